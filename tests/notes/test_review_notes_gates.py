"""Issue 22 Why 5: ``notes`` re-derives every gate row from the exact figures and refuses a contradiction.

The issue's edit (G1 and G4b statuses and ``numericGatesPassed`` set to pass)
is exit 3 naming G1, with nothing drafted; so is each single contradiction
below, naming its gate or case. Files ``run`` wrote pass unchanged, and a
file drafted from alone says in "What to cite" that nothing was recomputed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ablation.recorded import ResultsFile
from ablation.recorded.derive import contradictions
from tests.builders import prepared as builder
from tests.notes.review_notes_made import captured, edited, make_example, run_input, shared_input

Edit = Callable[[dict[str, Any]], object]


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The example's run, a key pair and its signed bundle."""
    return make_example(tmp_path_factory.mktemp("gates"))


def _gate(value: dict[str, Any], gate_id: str) -> dict[str, Any]:
    gate: dict[str, Any] = next(g for g in value["gateAssessment"]["gates"] if g["id"] == gate_id)
    return gate


def _issue_edit(value: dict[str, Any]) -> None:
    """Issue 22 Why 5: G1 and G4b statuses and numericGatesPassed set to pass."""
    for gate_id in ("G1", "G4b"):
        _gate(value, gate_id).update(status="pass", numericStatus="pass")
    value["gateAssessment"]["numericGatesPassed"] = True


def _refused(results: Path) -> str:
    code, out, err = captured("notes", "--results", results)
    assert (code, out) == (3, ""), err
    assert err.startswith(f"ablation: results file {str(results)!r}: contradicts its own figures: ")
    assert err.endswith("; notes are not drafted from it\n") and err.count("\n") == 1
    return err


def test_the_issue_edit_is_refused_naming_g1(example: dict[str, Path], tmp_path: Path) -> None:
    """The issue's edited file: exit 3 naming G1."""
    err = _refused(edited(example["results.json"], tmp_path / "edited.json", _issue_edit))
    assert (
        ': G1: numericStatus is "pass", but 2 repositories reach coverage 3/5 and 3 are needed, so it is "fail" '
        "(and 4 more)" in err
    )


def _quantity(text: str) -> dict[str, object]:
    from fractions import Fraction  # noqa: PLC0415

    return {"exact": text, "value": float(Fraction(text))}


SINGLE_EDITS: dict[str, tuple[Edit, str]] = {
    "G4b numericStatus alone": (
        lambda v: _gate(v, "G4b").update(numericStatus="pass"),
        'G4b: numericStatus is "pass", but the per-case counts give reduction 1/6 where '
        '≥ 1/5 is needed, so it is "fail"',
    ),
    "G4b status alone": (
        lambda v: _gate(v, "G4b").update(status="pass"),
        'G4b: status is "pass", but the per-case counts give reduction 1/6 where ≥ 1/5 is needed, so it is "fail"',
    ),
    "G4a threshold lowered": (
        lambda v: _gate(v, "G4a")["measured"].update(threshold=_quantity("1/100")),
        "G4a: its threshold 1/100 is not 1/10, the preregistered threshold",
    ),
    "G4a delta inflated": (
        lambda v: _gate(v, "G4a")["measured"].update(delta=_quantity("1/5")),
        "G4a: its delta 1/5 is not 11/100, what the per-case counts give",
    ),
    "G4a value not its exact": (
        lambda v: _gate(v, "G4a")["measured"]["delta"].update(value=0.5),
        "G4a: /gateAssessment/gates/3/measured/delta/value 0.5 is not 11/100 as a double",
    ),
    "G1 count": (
        lambda v: _gate(v, "G1")["measured"].update(eligibleRepositoryCount=3),
        "G1: it counts 3 eligible repositories where the coverage gives 2",
    ),
    "G1 coverage": (
        lambda v: _gate(v, "G1")["measured"]["coverage"][1].update(coverage=_quantity("3/5"), eligible=True),
        "G1: coverage 3/5 of 'console-web' is not its 2/5",
    ),
    "G3 status": (
        lambda v: _gate(v, "G3").update(status="requires_review"),
        'G3: status is "requires_review", but armsShareCandidateUniverse is true, so it is "pass"',
    ),
    "G5 numericStatus": (
        lambda v: _gate(v, "G5").update(numericStatus="pass"),
        'G5: numericStatus is "pass", but staleness is reviewed, not decided, so it is null',
    ),
    "G5 stale rate": (
        lambda v: _gate(v, "G5")["measured"]["repositories"][0].update(staleRate=_quantity("0")),
        "G5: stale rate 0 of 'ledger-api' is not",
    ),
    "G7 tokens": (
        lambda v: _gate(v, "G7")["measured"]["repositories"][0]["gitEvidenceBytes"].update(approximateTokens=1),
        "G7: an approximate token count is not bytes/4 rounded up",
    ),
    "numericGatesPassed alone": (
        lambda v: v["gateAssessment"].update(numericGatesPassed=True),
        "numericGatesPassed: true, but G1, G4b do not pass",
    ),
    "automaticAdoption": (
        lambda v: v["gateAssessment"].update(automaticAdoption=True),
        "automaticAdoption: true, which ablation never writes (it never adopts)",
    ),
    "case hits": (
        lambda v: v["result"]["cases"][0]["arms"]["paths"]["metrics"].update(hits=3),
        "case 'ledger-api-01', arm paths: 3 hits and 1 unnecessary are not its 3 selected",
    ),
    "case precision": (
        lambda v: v["result"]["cases"][0]["arms"]["paths"]["metrics"].update(precision=1),
        "case 'ledger-api-01', arm paths: precision 1 is not 2/3, what its lists give",
    ),
}


@pytest.mark.parametrize("name", list(SINGLE_EDITS), ids=list(SINGLE_EDITS))
def test_each_contradiction_is_refused_naming_its_gate(name: str, example: dict[str, Path], tmp_path: Path) -> None:
    """Each single contradiction: exit 3 naming its gate or case."""
    change, said = SINGLE_EDITS[name]
    err = _refused(edited(example["results.json"], tmp_path / "edited.json", change))
    assert f": contradicts its own figures: {said}" in err, err


def test_what_run_writes_has_no_contradiction(example: dict[str, Path], tmp_path: Path) -> None:
    """Files run wrote re-derive to themselves."""
    files = [example["results.json"], run_input(tmp_path, builder.dumps(builder.valid_minimal()), "minimal.json")]
    for name in ("realistic.json.gz", "realistic-structural.json.gz"):
        try:
            files.append(run_input(tmp_path, shared_input(name), name))
        except pytest.skip.Exception:
            continue
    for path in files:
        assert contradictions(ResultsFile.from_json(json.loads(path.read_bytes()))) == [], path


def test_a_file_alone_is_drafted_and_says_it_was_not_recomputed(example: dict[str, Path]) -> None:
    """A consistent file alone is drafted and says it was not recomputed."""
    code, out, err = captured("notes", "--results", example["results.json"])
    assert (code, err) == (0, "")
    assert (
        "| Result recomputed | **no**: drafted from the results file alone; nothing was recomputed (its gate "
        "statuses were re-derived from the figures it records). Recompute with `ablation notes --bundle` or "
        "`ablation verify-archive` |"
    ) in out
    assert "Every row's statuses were re-derived by `ablation notes` from the exact figures recorded beside them" in out
