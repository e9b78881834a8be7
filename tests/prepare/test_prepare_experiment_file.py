"""The experiment file's shape (PRE-1 … PRE-4), its defaults, and the TOML text preparation writes.

Spec: PREPARE.md §3 ("Keys and values"), check 1.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ablation.prepare.check_values import normalized
from ablation.prepare.experiment_file import DEFAULT_LIMITS, Experiment, Limits, load_experiment
from ablation.prepare.findings import Findings
from ablation.prepare.tomltext import toml_key, toml_string, where
from ablation.text import is_normalized
from tests.prepare.prepfixtures import dump_toml, run_prepare

MINIMAL = """\
[experiment]
id = "x"
protocol = "pi-context-packer-source-selection-ablation/v2"
authority = "AK-1"
work_root = "/evidence/x"
environment_path = "/usr/bin:/bin"

[tools.git]
path = "/usr/bin/git"
sha256 = "{hex}"
[tools.node]
path = "/usr/bin/node"
sha256 = "{hex}"
[tools.source_list]
path = "/opt/s/source-list.mjs"
sha256 = "{hex}"
revision_from_checkout = true
[tools.backend]
path = "/opt/b/ast-grep"
sha256 = "{hex}"
name = "ast-grep"
version = "0.42.0"

[staleness]
size = 1

[[repository]]
id = "r"
source = "/srv/r.git"
commit = "{hex40}"

[[case]]
id = "c"
repository = "r"
question = "q"
truth = ["a.py"]
max_items = 1
""".replace("{hex40}", "a" * 40).replace("{hex}", "b" * 64)


def _load(text: str | bytes) -> tuple[Experiment | None, list[str]]:
    findings = Findings()
    data = text.encode("utf-8") if isinstance(text, str) else text
    experiment = load_experiment(data, "x.toml", findings)
    return experiment, [f.line() for f in findings.errors]


def test_a_minimal_file_loads_with_every_default() -> None:
    experiment, errors = _load(MINIMAL)
    assert errors == []
    assert experiment is not None
    assert (
        experiment.limits
        == DEFAULT_LIMITS
        == Limits(max_candidates=2000, max_candidates_per_file=200, max_evidence_bytes=1_048_576, timeout_ms=60_000)
    )
    assert (experiment.process_timeout_s, experiment.staleness_rule) == (300, "spread")
    backend = experiment.tools["backend"]
    assert (backend.executable_name, backend.executable_version) == ("ast-grep", "0.42.0")
    assert experiment.tools["source_list"].revision_from_checkout is True
    assert list(experiment.tools) == ["git", "node", "source_list", "backend"]


def test_sci_defaults_given_in_part_keep_the_other_defaults() -> None:
    text = MINIMAL + "\n[sci_defaults]\nlimits = { max_candidates = 500, timeout_ms = 1000 }\n"
    experiment, errors = _load(text)
    assert errors == []
    assert experiment is not None
    assert experiment.limits == Limits(max_candidates=500, timeout_ms=1000)
    assert experiment.limits.request_limits() == {
        "maxCandidates": 500,
        "maxCandidatesPerFile": 200,
        "maxEvidenceBytes": 1_048_576,
        "timeoutMs": 1000,
    }


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        pytest.param(
            b'[experiment]\nid = "\xff"\n',
            ["PRE-1 at byte 19: expected UTF-8 text; found the byte 0xff"],
            id="PRE-1-not-utf8",
        ),
        pytest.param(
            MINIMAL + "max_items = 2\n",
            ["PRE-1 at line 38, column 14: expected a TOML 1.0 document; found Cannot overwrite a value"],
            id="PRE-1-duplicate-key",
        ),
        pytest.param(
            "[experiment]\nid = \n",
            ["PRE-1 at line 2, column 6: expected a TOML 1.0 document; found Invalid value"],
            id="PRE-1-not-toml",
        ),
        pytest.param(
            MINIMAL.replace("[staleness]", "[stalenes]"),
            [
                "PRE-2 at stalenes: expected one of the keys experiment, tools, sci_defaults, staleness, repository, "
                "case in (top level); found an unknown key 'stalenes'",
                "PRE-3 at staleness: expected a key staleness (a table); found no such key",
            ],
            id="PRE-2-misspelt-table",
        ),
        pytest.param(
            MINIMAL.replace('version = "0.42.0"', 'version = "0.42.0"\nrevision = "' + "c" * 40 + '"'),
            [
                "PRE-2 at tools.backend.revision: expected one of the keys path, sha256, name, version, "
                "executable_name, executable_version, record_version, extra_pins in tools.backend; "
                "found an unknown key 'revision'"
            ],
            id="PRE-2-revision-on-the-backend",
        ),
        pytest.param(
            MINIMAL.replace("max_items = 1\n", 'max_items = 1\n"max items" = 2\n'),
            [
                'PRE-2 at case[0]."max items": expected one of the keys id, repository, question, truth, max_items, '
                "sci in case[0]; found an unknown key 'max items'"
            ],
            id="PRE-2-quoted-key",
        ),
        pytest.param(
            MINIMAL.replace("[[case]]", "[[cases]]"),
            [
                "PRE-2 at cases: expected one of the keys experiment, tools, sci_defaults, staleness, repository, "
                "case in (top level); found an unknown key 'cases'",
                "PRE-3 at case: expected a key case (an array of tables (at least one)); found no such key",
            ],
            id="PRE-3-no-case",
        ),
        pytest.param(
            MINIMAL + '[case.sci]\nlanguage = "python"\n',
            [
                "PRE-3 at case[0].sci.pattern: expected a key pattern (a string); found no such key",
                "PRE-3 at tools.sci: expected a key sci (a table); found no such key",
            ],
            id="PRE-3-sci-needs-pattern-and-the-sci-tool",
        ),
        pytest.param(
            MINIMAL.replace('truth = ["a.py"]', 'truth = "a.py"'),
            ["PRE-4 at case[0].truth: expected an array of strings; found a string 'a.py'"],
            id="PRE-4-truth-not-an-array",
        ),
        pytest.param(
            MINIMAL.replace("size = 1", "size = 1.5"),
            ["PRE-4 at staleness.size: expected an integer; found a float 1.5"],
            id="PRE-4-float",
        ),
        pytest.param(
            MINIMAL.replace('id = "r"', "id = 2026-12-01"),
            ["PRE-4 at repository[0].id: expected a string; found a date or time 2026-12-01"],
            id="PRE-4-date",
        ),
        pytest.param(
            MINIMAL + '[sci_defaults]\nlimits = { max_candidates = "500" }\n',
            ["PRE-4 at sci_defaults.limits.max_candidates: expected an integer; found a string '500'"],
            id="PRE-4-limit-as-text",
        ),
        pytest.param(
            MINIMAL.replace(
                'sha256 = "' + "b" * 64 + '"\n[tools.node]',
                'sha256 = "' + "b" * 64 + '"\nextra_pins = [1]\n[tools.node]',
            ),
            ["PRE-4 at tools.git.extra_pins[0]: expected a table; found an integer 1"],
            id="PRE-4-extra-pin-not-a-table",
        ),
    ],
)
def test_the_shape_of_the_file(text: str | bytes, lines: list[str]) -> None:
    experiment, errors = _load(text)
    assert (experiment, errors) == (None, lines)


def test_check_reports_the_first_shape_error_or_all(tmp_path: Path) -> None:
    path = tmp_path / "e.toml"
    path.write_text(MINIMAL.replace("[[case]]", "[[cases]]"), encoding="utf-8")
    first = run_prepare("check", path)
    assert (first.code, first.out, first.err) == (
        4,
        "",
        (
            "PRE-2 at cases: expected one of the keys experiment, tools, sci_defaults, staleness, repository, case in "
            "(top level); found an unknown key 'cases'\n"
        ),
    )
    every = run_prepare("check", path, "--errors", "all")
    assert every.err.count("\n") == 2


def test_an_unreadable_experiment_file_is_a_usage_error(tmp_path: Path) -> None:
    ran = run_prepare("check", tmp_path / "none.toml")
    assert (ran.code, ran.out) == (2, "")
    assert (
        ran.err
        == f"ablation-prepare: cannot read experiment file '{tmp_path / 'none.toml'}': No such file or directory\n"
    )


@settings(deadline=None)  # no timed assertions: a loaded machine must not fail them
@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"])))
def test_toml_string_reads_back_as_the_same_text(text: str) -> None:
    assert tomllib.loads(f"k = {toml_string(text)}")["k"] == text


@settings(deadline=None)  # no timed assertions: a loaded machine must not fail them
@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=8))
def test_toml_key_and_where_read_back(key: str) -> None:
    assert tomllib.loads(f"{toml_key(key)} = 1") == {key: 1}
    assert where("case", 2, key).startswith("case[2].")


@settings(deadline=None)  # no timed assertions: a loaded machine must not fail them
@given(st.text(alphabet=st.sampled_from(["a", "b", " ", "\t", "\n", "\u3000", "\ufeff", "\xa0", "\u2028", "x"])))
def test_normalized_is_the_normal_form_of_spec(text: str) -> None:
    result = normalized(text)
    assert is_normalized(result)
    assert normalized(result) == result
    assert (result == text) == is_normalized(text)


def test_dump_toml_writes_what_tomllib_reads() -> None:
    doc = {"experiment": {"id": "x"}, "tools": {"git": {"path": "/g", "extra_pins": [{"path": "/p", "sha256": "a"}]}}}
    doc |= {"case": [{"id": "c", "sci": {"paths": ["a  b"]}}, {"id": "d"}]}
    assert tomllib.loads(dump_toml(doc)) == doc
