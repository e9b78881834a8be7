"""`ablation notes` renders every recorded or given string inert: Markdown, HTML, code spans (issue 11 item 5)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from ablation import notes
from ablation.cli import main
from ablation.results_file import load_results
from tests.builders import prepared

INJECTION = "**Independent reviewer: ADOPT approved** <img src=x onerror=alert(1)> [signed](https://example.invalid/)"
INJECTION_INERT = (
    "\\*\\*Independent reviewer: ADOPT approved\\*\\* &lt;img src=x onerror=alert(1)&gt; "
    "\\[signed\\](https\\://example.invalid/)"
)
HOSTILE = "a\nb <c> & [d] *e* _f_ # `g` ``h`` |i| \\j www.example.invalid x@y.invalid $k$"
HOSTILE_INERT = (
    "a b &lt;c&gt; &amp; \\[d\\] \\*e\\* \\_f\\_ \\# \\`g\\` \\`\\`h\\`\\` \\|i\\| \\\\j "
    "www\\.example.invalid x\\@y.invalid \\$k\\$"
)


def _input_with_method(method: str) -> bytes:
    value = prepared.valid_minimal()
    repository = value["repositories"][0]
    sample = repository["metadataStalenessSample"]
    repository["metadataStalenessSample"] = prepared.staleness_sample(
        sample["commit"], sample["rawArtifactSha256"], sample["sampledPaths"], sample["stalePaths"], method
    )
    return prepared.dumps(value)


@pytest.fixture(scope="module")
def injected_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Results of a valid input whose staleness sample ``method`` is the issue's injection string."""
    folder = tmp_path_factory.mktemp("injected")
    (folder / "in.json").write_bytes(_input_with_method(INJECTION))
    assert main(["run", "--input", str(folder / "in.json"), "--output", str(folder / "results.json")]) == 0
    return folder / "results.json"


def _lines_starting(text: str, prefix: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(prefix)]


def test_the_issue_strings_are_inert_end_to_end(injected_results: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    # an --image-digest that is not an image ID is refused before anything is drafted
    assert main(["notes", "--results", str(injected_results), "--image-digest", "sha256:ab`c`"]) == 2
    assert capsys.readouterr().out == ""
    assert main(["notes", "--results", str(injected_results)]) == 0
    text = capsys.readouterr().out
    recorded = json.loads(injected_results.read_bytes())
    digest = recorded["result"]["repositories"][0]["metadataStalenessSample"]["sampleDigest"]
    assert _lines_starting(text, "| `repo` | 1 | 0 |") == [
        f"| `repo` | 1 | 0 | 0 | eligible | {INJECTION_INERT} | `{digest}` |"
    ]
    assert "<img" not in text
    assert "](https://" not in text


def test_punctuation_and_backticks_are_inert_in_a_table_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    method = HOSTILE.replace("\n", " ")  # NBText: the input itself never holds a newline here
    (tmp_path / "in.json").write_bytes(_input_with_method(method))
    assert main(["run", "--input", str(tmp_path / "in.json"), "--output", str(tmp_path / "r.json")]) == 0
    capsys.readouterr()
    assert main(["notes", "--results", str(tmp_path / "r.json")]) == 0
    (row,) = _lines_starting(capsys.readouterr().out, "| `repo` | 1 | 0 |")
    assert row.split(" | ")[5] == HOSTILE_INERT


@pytest.fixture(scope="module")
def recorded(injected_results: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(injected_results.read_bytes())
    return document


def _build(recorded: dict[str, Any], **kwargs: Any) -> str:
    checked = load_results(json.dumps(recorded).encode(), "results")
    return notes.build_notes(checked, results_sha256="0" * 64, **kwargs)


def test_recorded_values_with_newlines_and_markup_stay_inside_their_cell_and_line(recorded: dict[str, Any]) -> None:
    """build_notes is given values no run writes (newlines, backticks, pipes) and still keeps every one inert."""
    hostile = copy.deepcopy(recorded)
    result = hostile["result"]
    repo = result["repositories"][0]
    repo["metadataStalenessSample"]["method"] = HOSTILE
    repo["metadataStalenessSample"]["sampleDigest"] = "``x`\n|y"
    repo["commit"] = "` <b>"
    result["protocol"] = "p` # <h1>x</h1>"
    result["standingDecision"] = "REJECT\n# ADOPT"
    hostile["gateAssessment"]["gates"][0]["basis"] = "b\n\n## Decision: ADOPT <script>x</script>"
    text = _build(hostile, image_digest="`")
    lines = text.splitlines()
    assert lines[0] == "# Review notes (draft): ``p` # <h1>x</h1>``"
    assert "- Standing decision recorded in `result`: `REJECT␊# ADOPT`." in lines
    assert "- **G1**: b \\#\\# Decision: ADOPT &lt;script&gt;x&lt;/script&gt;" in lines
    assert (
        "| Image ID (`--image-digest`) | `` ` `` | **asserted** by the caller of `ablation notes`; "
        "ablation did not measure or verify it |" in lines
    )
    (row,) = _lines_starting(text, "| `repo` | 1 | 0 |")
    assert row == f"| `repo` | 1 | 0 | 0 | eligible | {HOSTILE_INERT} | ``` ``x`␊\\|y ``` |"
    assert _lines_starting(text, "| `repo` | `` ` <b> `` |") == [
        "| `repo` | `` ` <b> `` | 12 | 12 | 12 | 1 | yes | 10 |"
    ]
    # no line but our own headings starts a block construct
    assert [line for line in lines if line.startswith("#")] == [
        line for line in lines if line.startswith(("# ", "## ", "### "))
    ]
    assert sum(1 for line in lines if line.startswith("## ")) == 13


def test_a_repository_id_with_backticks_and_pipes_is_one_code_span() -> None:
    assert notes._name("a`b|c") == '``"a`b\\|c"``'
    assert notes._name("``") == '```"``"```'
    assert notes._name("x", cell=False) == "`x`"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("plain", "`plain`"),
        ("a`b", "``a`b``"),
        ("`a", "`` `a ``"),
        ("a`", "`` a` ``"),
        ("a``b`c", "```a``b`c```"),
        ("<b>&amp;", "`<b>&amp;`"),
        ("l1\nl2", "`l1␊l2`"),
        ("p|q", "`p\\|q`"),
        ("p\\|q", "`p\\\\\\|q`"),
        ("  ", "`  `"),
        (" a ", "`  a  `"),
        ("", "(empty)"),
        (None, "`null`"),
        (3, "`3`"),
    ],
)
def test_code_spans(value: object, shown: str) -> None:
    assert notes._code(value) == shown


def test_code_span_outside_a_table_leaves_pipes() -> None:
    assert notes._code("p|q", cell=False) == "`p|q`"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("requires_review", "requires_review"),
        ("_x_", "\\_x\\_"),
        ("snake_case_name", "snake_case_name"),
        ("<", "&lt;"),
        ("&", "&amp;"),
        ("[", "\\["),
        ("*", "\\*"),
        ("#", "\\#"),
        ("`", "\\`"),
        ("a\r\nb\tc", "a b c"),
        ("\x1b[31m", "␛\\[31m"),
        ("\u202egnp.exe", "\\\\u202egnp.exe"),
        ("http://x.invalid", "http\\://x.invalid"),
        ("0.5 and a-b: c", "0.5 and a-b: c"),
    ],
)
def test_text(value: str, shown: str) -> None:
    assert notes._text(value) == shown
