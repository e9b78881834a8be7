"""Review notes: the gate table of the realistic input, digests, determinism, the empty decision (issue 5)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ablation import notes
from ablation.canonical import canonical_digest
from ablation.recorded.schema import ShapeError
from ablation.results_file import RecordedResults, load_results
from tests.builders import prepared
from tests.builders.paths import INPUTS
from tests.builders.run import run_ablation

REALISTIC = INPUTS / "realistic.json.gz"
REALISTIC_SHA256 = "5e61f30b5cc018dac70e2f89abcb95e64eb12902e25723c0c18a88635deec5fa"


@pytest.fixture(scope="session")
def realistic(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(results file, bundle) of the realistic real-repository input."""
    if not REALISTIC.is_file():
        pytest.skip(f"{REALISTIC} is not available (../shared is absent)")
    folder = tmp_path_factory.mktemp("realistic")
    results, bundle = folder / "results.json", folder / "bundle.tar.gz"
    assert run_ablation("run", "--input", REALISTIC, "--input-sha256", REALISTIC_SHA256, "--output", results) == 0
    assert run_ablation("archive", "--input", REALISTIC, "--results", results, "--bundle", bundle) == 0
    return results, bundle


@pytest.fixture(scope="session")
def minimal_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Results of SPEC §11.1's input, whose cases all carry valid structural evidence."""
    data = prepared.dumps(prepared.valid_minimal())
    folder = tmp_path_factory.mktemp("minimal")
    (folder / "in.json").write_bytes(data)
    assert run_ablation("run", "--input", folder / "in.json", "--output", folder / "results.json") == 0
    return folder / "results.json"


def _notes(capsys: pytest.CaptureFixture[str], *args: object) -> str:
    capsys.readouterr()
    assert run_ablation("notes", *args) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    return captured.out


def _rows(text: str, first_cell: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(f"| {first_cell} |")]


def test_gate_table_of_the_realistic_input(realistic: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    text = _notes(capsys, "--results", realistic[0])
    assert _rows(text, "G4a") == [
        "| G4a | `precision_delta` | delta 1/8 (paths 7/40, source_list 3/10) | 0.125 | ≥ 1/10 | pass | pass |"
    ]
    assert _rows(text, "G4b") == [
        "| G4b | `unnecessary_reduction` | reduction 5/33 (paths 33/10, source_list 14/5) | ≈0.1515 "
        "| ≥ 1/5 | fail | fail |"
    ]
    assert _rows(text, "G4c") == [
        "| G4c | `omission_delta` | delta -1/2 (paths 23/20, source_list 13/20) | -0.5 | ≤ 0 | pass | pass |"
    ]
    assert _rows(text, "G1") == [
        "| G1 | `eligible_repositories` | 2 repositories with coverage ≥ 3/5 (`dspx`, `engineering-core`) | 2 "
        "| ≥ 3 | fail | fail |"
    ]
    assert _rows(text, "G8") == [
        "| G8 | `independent_review` | owner decision: see the last section (empty until the reviewer completes it) "
        "| — | review | — | requires_review |"
    ]
    gate_ids = [line.split(" | ")[0][2:] for line in text.splitlines() if re.match(r"\| G\d", line)]
    assert gate_ids == ["G1", "G2", "G3", "G4a", "G4b", "G4c", "G5", "G6", "G7", "G8"]
    assert "- Numeric gates (G1, G4a, G4b, G4c) all pass: **no**." in text


def test_per_repository_table_and_populations(realistic: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    text = _notes(capsys, "--results", realistic[0])
    assert (
        "| **equal-repository mean** (2 repositories) | 20 | 7/40 (0.175) | 3/10 (0.3) | 1/8 (0.125) | 2/5 (0.4) "
        "| 27/40 (0.675) | 33/10 (3.3) | 14/5 (2.8) | 5/33 (≈0.1515) | 23/20 (1.15) | 13/20 (0.65) |"
    ) in text
    assert "| `pi-extensions` | 0 | — | — | — | — | — | — | — | — | — | — |" in text
    assert "| paths ∩ `source_list` | 2 | 2 | 20 | 20 | 2 |" in text
    assert "| all four arms | 2 | 0 | 20 | 0 | 0 |" in text
    assert "No case is available for both `paths` and `structural` (30 eligible cases)" in text
    assert "| `pi-extensions` | 5 | 0 | 0 | ineligible control |" in text
    assert "| `structural` | 30 | 0 | 30 |" in text
    assert "| structural evidence invalid: SB-1 | 30 |" in text


def test_digests_are_cited_and_the_image_digest_is_asserted(
    realistic: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    results, bundle = realistic
    text = _notes(capsys, "--results", results, "--bundle", bundle, "--image-digest", "sha256:" + "ab" * 32)
    recorded = json.loads(results.read_text(encoding="utf-8"))
    assert f"`{REALISTIC_SHA256}` | pinned: the run was given this hash and it matched |" in text
    assert f"| Results file (SHA-256 of its bytes) | `{hashlib.sha256(results.read_bytes()).hexdigest()}` |" in text
    assert f"| Evidence bundle (SHA-256) | `{hashlib.sha256(bundle.read_bytes()).hexdigest()}` |" in text
    assert f"| Evaluator identityDigest | `{recorded['evaluator']['identityDigest']}` |" in text
    assert (
        f"| Image ID (`--image-digest`) | `sha256:{'ab' * 32}` | **asserted** by the caller of `ablation notes`; "
        "ablation did not measure or verify it |"
    ) in text
    assert f"| Container image ID | `sha256:{'ab' * 32}` (asserted by `--image-digest`, not measured) |" in text


def test_notes_are_deterministic(realistic: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    first = _notes(capsys, "--results", realistic[0], "--bundle", realistic[1])
    assert _notes(capsys, "--results", realistic[0], "--bundle", realistic[1]) == first
    assert first.endswith("\n")
    assert not first.endswith("\n\n")
    assert re.search(r"20\d\d-\d\d-\d\d", first) is None


def test_owner_decision_is_never_prefilled(realistic: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    text = _notes(capsys, "--results", realistic[0])
    section = text.split("## Owner decision (to be completed by the independent reviewer)\n", 1)[1]
    assert "- Decision (mark exactly one): [ ] ADOPT  [ ] REFINE  [ ] REJECT" in section
    assert re.search(r"\[[^ \]]\]", section) is None
    for line in section.splitlines():
        if line.startswith("- ") and not line.startswith("- Decision"):
            assert line.endswith(":"), line


def test_limitations_from_the_preregistration(realistic: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    text = _notes(capsys, "--results", realistic[0])
    limitations = text.split("## Limitations\n", 1)[1].split("\n## ", 1)[0]
    for phrase in (
        "not signatures",
        "Neither owner artifact is authenticated",
        "corroborated outside this evaluator",
        "not independent replications",
        "file selection",
        "do not price latency",
    ):
        assert phrase in limitations


def test_structural_tables_when_bundles_are_valid(minimal_results: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _notes(capsys, "--results", minimal_results)
    pairwise = text.split("### paths vs `structural`\n", 1)[1].split("\n### ", 1)[0]
    assert "| Repository | Cases | Precision paths | Precision structural |" in pairwise
    assert "**equal-repository mean** (1 repository)" in pairwise
    all_four = text.split("### All four arms", 1)[1].split("\n## ", 1)[0]
    assert all_four.count("**equal-repository mean**") == 4
    assert "computed only: the run was **not** bound to a preregistered hash" in text
    assert "| Image ID | not recorded |" in text


def test_bundle_with_other_results_is_refused(
    realistic: tuple[Path, Path], minimal_results: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_ablation("notes", "--results", minimal_results, "--bundle", realistic[1]) == 3
    assert "holds another results file" in capsys.readouterr().err


def test_not_a_results_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "x.json").write_text('{"a": 1}', encoding="utf-8")
    assert run_ablation("notes", "--results", tmp_path / "x.json") == 2
    assert "not an ablation results file" in capsys.readouterr().err
    assert run_ablation("notes", "--results", tmp_path / "missing.json") == 2


def _gate_exact(results: dict[str, Any], value: object) -> None:
    gates = results["gateAssessment"]["gates"]
    g4a = next(g for g in gates if g["id"] == "G4a")
    g4a["measured"]["delta"] = {"exact": value, "value": 1}


def _metric(name: str, value: object) -> Callable[[dict[str, Any]], None]:
    def change(results: dict[str, Any]) -> None:
        metrics = results["result"]["cases"][0]["arms"]["paths"]["metrics"]
        metrics[name] = value

    return change


def _text_edit(change: Callable[[bytes], bytes]) -> Callable[[bytes], bytes]:
    return change


def _value_edit(change: Callable[[dict[str, Any]], object]) -> Callable[[bytes], bytes]:
    def edit(data: bytes) -> bytes:
        value = json.loads(data)
        change(value)
        return json.dumps(value, indent=2).encode()

    return edit


DEEP = b"[" * 100_000 + b"]" * 100_000
MALFORMED: dict[str, tuple[Callable[[bytes], bytes], int, str]] = {
    "nested 100 000 deep": (
        _text_edit(lambda d: d.replace(b'"evaluator": {', b'"evaluator": {"x": ' + DEEP + b", ", 1)),
        2,
        "containers nested deeper than 256 levels",
    ),
    "a whole file nested 100 000 deep": (_text_edit(lambda d: DEEP), 2, "containers nested deeper than 256 levels"),
    "gate fraction 1/0": (
        _value_edit(lambda r: _gate_exact(r, "1/0")),
        2,
        'not an ablation results file: /gateAssessment/gates/3/measured/delta/exact is the string "1/0", '
        "not an exact fraction",
    ),
    "gate fraction not a fraction": (
        _value_edit(lambda r: _gate_exact(r, "1.5e3")),
        2,
        '/gateAssessment/gates/3/measured/delta/exact is the string "1.5e3"',
    ),
    "gate fraction a number": (
        _value_edit(lambda r: _gate_exact(r, 7)),
        2,
        "/gateAssessment/gates/3/measured/delta/exact is the number 7",
    ),
    "hits a string": (
        _value_edit(_metric("hits", "x")),
        2,
        '/result/cases/0/arms/paths/metrics/hits is the string "x", not a count',
    ),
    "hits negative": (_value_edit(_metric("hits", -1)), 2, "/result/cases/0/arms/paths/metrics/hits is the number -1"),
    "selected null": (
        _value_edit(_metric("selected", None)),
        2,
        "/result/cases/0/arms/paths/metrics/selected is null, not an array",
    ),
    "cases null": (
        _value_edit(lambda r: r["result"].update(cases=None)),
        2,
        "/result/cases is null, not an array",
    ),
    "NaN": (
        _text_edit(lambda d: d.replace(b'"inputSha256Pinned": false', b'"inputSha256Pinned": NaN')),
        2,
        "holds NaN, which is not JSON",
    ),
    "evaluator null": (
        _value_edit(lambda r: r.update(evaluator=None)),
        2,
        "/evaluator is null, not an evaluator identity object",
    ),
    "evaluator digest faked": (
        _value_edit(lambda r: r["evaluator"].update(identityDigest="sha256:" + "0" * 64)),
        3,
        f"/evaluator/identityDigest sha256:{'0' * 64} is not the canonical digest",
    ),
    "gzip hash not hex": (_value_edit(lambda r: r.update(inputGzipSha256="F" * 64)), 2, '/inputGzipSha256 is "FFFF'),
}


@pytest.mark.parametrize("name", list(MALFORMED), ids=list(MALFORMED))
def test_malformed_results_file_fails_on_one_line(
    name: str, minimal_results: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    change, code, expected = MALFORMED[name]
    results = tmp_path / "results.json"
    results.write_bytes(change(minimal_results.read_bytes()))
    capsys.readouterr()
    assert run_ablation("notes", "--results", results) == code
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"ablation: results file {str(results)!r}: "), captured.err
    assert expected in captured.err, captured.err
    assert captured.err.count("\n") == 1


def _recorded(members: dict[str, Any]) -> RecordedResults:
    """A results file with these members (the others as small as load_results accepts), as it reads it."""
    value = {
        "inputSha256": "0" * 64,
        "inputSha256Pinned": False,
        "result": {},
        "gateAssessment": {},
        "evaluator": {"measured": {}, "identityDigest": canonical_digest({})},
    } | members
    return load_results(json.dumps(value).encode(), "results")


def test_build_notes_refuses_values_of_the_wrong_type() -> None:
    """Issue 22 item 4: the renderer gets typed records; a value of the wrong type never reaches it."""
    recorded = {"result": {"pairwise": {"source_list": {"perRepository": {"r": {"caseIds": [["x"], {}]}}}}}}
    with pytest.raises(ShapeError, match=r"^/result/protocol is absent, not a string$"):
        notes.build_notes(_recorded(recorded), results_sha256="0" * 64)


def test_not_demonstrated_reduction_is_shown_as_such(minimal_results: Path) -> None:
    gate = {
        "id": "G4b",
        "name": "unnecessary_reduction",
        "status": "not_demonstrated",
        "numericStatus": "not_demonstrated",
        "basis": "b",
        "measured": {
            "population": {"repositoryCount": 0, "caseCount": 0, "repositoryIds": []},
            "paths": {"exact": "0", "value": 0.0},
            "sourceList": {"exact": "0", "value": 0.0},
            "reduction": None,
            "threshold": {"exact": "1/5", "value": 0.2},
        },
    }
    members = json.loads(minimal_results.read_bytes())
    members["gateAssessment"]["gates"][4] = gate
    text = notes.build_notes(_recorded(members), results_sha256="0" * 64)
    assert (
        "| G4b | `unnecessary_reduction` | reduction not demonstrated (paths baseline is 0) | — | ≥ 1/5 "
        "| not_demonstrated | not_demonstrated |" in text
    )


def test_exact_repository_rates_agree_with_the_recorded_floats(realistic: tuple[Path, Path]) -> None:
    recorded = json.loads(realistic[0].read_text(encoding="utf-8"))
    results = notes._Results(load_results(realistic[0].read_bytes(), "results"))
    checked = 0
    for treatment, pairwise in recorded["result"]["pairwise"].items():
        for entry in pairwise["perRepository"].values():
            for arm in ("paths", treatment):
                rates = results.rates(entry["caseIds"], arm)
                summary = entry["arms"][arm]
                if rates is None:
                    assert summary["macroPrecision"] is None
                    continue
                checked += 1
                assert rates.cases == summary["caseCount"]
                assert float(rates.precision) == pytest.approx(summary["macroPrecision"], abs=1e-12)
                assert float(rates.recall) == pytest.approx(summary["macroRecall"], abs=1e-12)
                assert float(rates.unnecessary_per_case) == pytest.approx(summary["unnecessaryPerCase"], abs=1e-12)
                assert float(rates.omissions_per_case) == pytest.approx(summary["omissionsPerCase"], abs=1e-12)
    assert checked == 4


def test_a_treatment_without_metrics_in_one_repository_is_left_out_of_its_mean(
    realistic: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hand-edited file (run never writes one): the repository's treatment figures are absent, and the
    treatment's equal-repository mean is over the repositories that have them; paths keeps all of them."""
    recorded = json.loads(realistic[0].read_bytes())
    for case in recorded["result"]["cases"]:
        if case["repositoryId"] == "dspx":
            case["arms"]["source_list"]["metrics"] = None
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(recorded), encoding="utf-8")
    capsys.readouterr()
    assert run_ablation("notes", "--results", edited) == 3  # issue 22: `notes` drafts only from a consistent file
    assert "arm source_list: available, but it records no metrics" in capsys.readouterr().err
    text = notes.build_notes(load_results(edited.read_bytes(), "results"), results_sha256="0" * 64)
    section = text[text.index("### paths vs `source_list`") : text.index("### paths vs `structural`")]
    assert "| `dspx` | 10 | 1/5 (0.2) | — | — | 2/5 (0.4) | — | 16/5 (3.2) | — | — | 6/5 (1.2) | — |" in section
    assert (
        "| **equal-repository mean** (2 repositories) | 20 | 7/40 (0.175) | 11/40 (0.275) | 1/10 (0.1) | 2/5 (0.4) "
        "| 7/10 (0.7) | 33/10 (3.3) | 29/10 (2.9) | 4/33 (≈0.1212) | 23/20 (1.15) | 3/5 (0.6) |"
    ) in section
