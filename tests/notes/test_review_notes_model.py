"""Issue 22 Why 10: the results file as frozen, typed records parsed once, with from_json/to_json.

``ResultsFile.from_json`` types every member ``run`` writes; ``to_json`` gives the
same JSON back, so ``render_output(to_json())`` is the file's bytes, and
``from_json(to_json(r)) == r``. Records are frozen; a value of another shape is
one ``ShapeError`` naming its JSON Pointer, never another exception.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ablation.errors import IntegrityError, UsageError
from ablation.notes.figures import _Results
from ablation.output import render_output
from ablation.recorded import ResultsFile, load_results_file
from ablation.recorded.gates import EligibleRepositories, PrecisionDelta, Quantity, UnnecessaryReduction
from ablation.recorded.result import Metrics, Result
from ablation.recorded.schema import ShapeError
from tests.builders import prepared as builder
from tests.notes.review_notes_made import make_example, run_input, shared_input


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The example's run, a key pair and its signed bundle."""
    return make_example(tmp_path_factory.mktemp("model"))


@pytest.fixture(scope="module")
def minimal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Results of SPEC §11.1's valid-minimal input."""
    return run_input(tmp_path_factory.mktemp("minimal"), builder.dumps(builder.valid_minimal()))


def _results_files(example: dict[str, Path], minimal: Path, tmp_path: Path, name: str) -> bytes:
    if name == "example":
        return example["results.json"].read_bytes()
    if name == "minimal":
        return minimal.read_bytes()
    return run_input(tmp_path, shared_input(name), name).read_bytes()


@pytest.mark.parametrize("name", ["example", "minimal", "realistic.json.gz", "realistic-structural.json.gz"])
def test_to_json_of_from_json_is_the_file(name: str, example: dict[str, Path], minimal: Path, tmp_path: Path) -> None:
    """to_json(from_json(v)) is v, and its rendering the file's bytes."""
    data = _results_files(example, minimal, tmp_path, name)
    value = json.loads(data)
    typed = ResultsFile.from_json(value)
    assert typed.to_json() == value
    assert list(typed.to_json()) == list(value)
    assert render_output(typed.to_json()) == data
    assert ResultsFile.from_json(typed.to_json()) == typed
    recorded, parsed = load_results_file(data, "results")
    assert parsed == typed and recorded.raw == value


def test_the_records_are_typed_and_frozen(example: dict[str, Path]) -> None:
    """The records are typed by gate and frozen."""
    typed = ResultsFile.from_json(json.loads(example["results.json"].read_bytes()))
    assert isinstance(typed.result, Result)
    g1, g4a, g4b = (typed.gate_assessment.gate(g) for g in ("G1", "G4a", "G4b"))
    assert isinstance(g1.measured, EligibleRepositories) and g1.measured.eligible_count == 2
    assert isinstance(g4a.measured, PrecisionDelta) and isinstance(g4b.measured, UnnecessaryReduction)
    assert g4a.measured.delta == Quantity(exact="11/100", value=0.11)
    metrics = typed.result.cases[0].arms["paths"].metrics
    assert isinstance(metrics, Metrics) and metrics.hits == 2 and isinstance(metrics.selected, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        typed.result.cases[0].id = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        typed.result.cases[0].arms["paths"] = typed.result.cases[0].arms["fusion"]  # type: ignore[index]
    assert isinstance(_Results(typed).result, Result)  # what the notes read


def _without(value: dict[str, Any], *path: str | int) -> dict[str, Any]:
    changed = copy.deepcopy(value)
    node: Any = changed
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]
    return changed


def _with(value: dict[str, Any], replacement: object, *path: str | int) -> dict[str, Any]:
    changed = copy.deepcopy(value)
    node: Any = changed
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = replacement
    return changed


def test_a_value_of_another_shape_names_its_pointer(example: dict[str, Path]) -> None:
    """A value of another shape is refused naming its pointer."""
    value = json.loads(example["results.json"].read_bytes())
    cases = [
        (
            _without(value, "result", "cases", 0, "arms", "paths", "metrics", "hits"),
            "/result/cases/0/arms/paths/metrics/hits is absent, not a count",
        ),
        (
            _with(value, "x", "result", "repositories", 1, "candidateCount"),
            '/result/repositories/1/candidateCount is the string "x", not a count',
        ),
        (
            _with(value, {"exact": "1/0", "value": 1}, "gateAssessment", "gates", 3, "measured", "delta"),
            '/gateAssessment/gates/3/measured/delta/exact is the string "1/0", not an exact fraction n '
            "or n/d with d > 0",
        ),
        (
            _with(value, 1, "result", "allFour", "perRepository", "ledger-api", "extra"),
            '/result/allFour/perRepository/ledger-api has the member "extra", which ablation never writes',
        ),
        (
            _with(value, "G9", "gateAssessment", "gates", 9, "id"),
            '/gateAssessment/gates/9/id is the string "G9", not one of "G1", "G2", "G3", "G4a", "G4b", "G4c", '
            '"G5", "G6", "G7", "G8"',
        ),
        (
            _with(value, value["gateAssessment"]["gates"][::-1], "gateAssessment", "gates"),
            "/gateAssessment/gates lists the gates G8, G7, G6, G5, G4c, G4b, G4a, G3, G2, G1, not G1, G2, G3, G4a, "
            "G4b, G4c, G5, G6, G7, G8 in that order",
        ),
        (
            _with(value, "5 ms", "gateAssessment", "gates", 8, "measured", "latency"),
            '/gateAssessment/gates/8/measured/latency is the string "5 ms", not null',
        ),
    ]
    for changed, said in cases:
        with pytest.raises(UsageError) as raised:
            ResultsFile.from_json(changed, "results file 'r.json'", UsageError)
        assert str(raised.value) == f"results file 'r.json': not an ablation results file: {said}"
    faked = _with(value, "sha256:" + "0" * 64, "evaluator", "identityDigest")
    with pytest.raises(IntegrityError, match=r"/evaluator/identityDigest sha256:0+ is not the canonical digest"):
        ResultsFile.from_json(faked, "r", UsageError)


def _leaves(value: object, path: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _leaves(v, (*path, k))] or [path]
    if isinstance(value, list):
        return [p for k, v in enumerate(value) for p in _leaves(v, (*path, k))] or [path]
    return [path]


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**60), 2**60),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.just([]),
    st.just({}),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_single_change_is_typed_or_refused_on_one_line(data: st.DataObject, example: dict[str, Path]) -> None:
    """Any single scalar change is typed back exactly or refused on one line."""
    value = json.loads(example["results.json"].read_bytes())
    leaves = _leaves({"result": value["result"], "gateAssessment": value["gateAssessment"]})
    path = data.draw(st.sampled_from(leaves))
    changed = _with(value, data.draw(SCALARS), *path)
    try:
        typed = ResultsFile.from_json(changed, "r", UsageError)
    except UsageError as exc:
        assert str(exc).startswith("r: not an ablation results file: /") and "\n" not in str(exc)
        return
    assert typed.to_json() == changed


def test_a_shape_error_says_where_and_what(example: dict[str, Path]) -> None:
    """ShapeError's text and attributes."""
    error = ShapeError("/a/b", -1, "a count")
    assert str(error) == "/a/b is the number -1, not a count"
    assert (error.where, error.found, error.wanted) == ("/a/b", -1, "a count")
