"""Selection, metrics and the result object on SPEC §11's worked examples (exact values)."""

from __future__ import annotations

import hashlib
import json
import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ablation.experiment import validate_experiment
from ablation.gates import reduction_status
from ablation.metrics import member_order
from ablation.output import dumps
from ablation.pipeline import evaluate as _evaluate
from ablation.rates import CaseCounts, RepositoryRates, equal_repository_rates, quantity, repository_rates
from tests.builders import prepared
from tests.builders.prepared import rehash_bundle, valid_minimal, valid_two_repo

MINIMAL = prepared.dumps(valid_minimal())
TWO_REPO = prepared.dumps(valid_two_repo())


def evaluate(data: bytes) -> Any:
    """``ablation.pipeline.evaluate``, its ``result`` and ``gate_assessment`` typed as the JSON the tests read."""
    return _evaluate(data)


def test_worked_example_bytes_are_the_specs() -> None:
    assert hashlib.sha256(MINIMAL).hexdigest() == "2a36b1e40c4024c0442e141d53af6b00aaacfe3bfc1322a52956f256f8980d10"
    assert hashlib.sha256(TWO_REPO).hexdigest() == "8552d8c46b7f9e9ef4d7e59143bd3f6a35cad46f2b88e19fa5f1dfb0d8045669"


def test_worked_example_result_digest() -> None:
    """SPEC §11.4: the result alone, serialized per §8.7 without trailing newline."""
    result = evaluate(MINIMAL).result
    assert hashlib.sha256(dumps(result).encode()).hexdigest() == (
        "9930c196e4312d837a6026ea12779642bf4d01478ced3ad620ffbd7f20d6bc9e"
    )


def _selected(result: Any, arm: str) -> list[list[str]]:
    return [
        [p.removeprefix("src/").removesuffix(".js") for p in c["arms"][arm]["metrics"]["selected"]]
        for c in result["cases"]
    ]


def test_ranking_walk_through() -> None:
    """SPEC §11.3's table: paths = source_list, structural, fusion selections."""
    result = evaluate(MINIMAL).result
    lexical = [
        ["alpha", "beta"],
        ["beta", "alpha"],
        ["cache", "alpha"],
        ["alpha", "beta"],
        ["exporter", "alpha"],
        ["graph", "alpha"],
        ["parser", "alpha"],
        ["ranking", "alpha"],
        ["receipt", "alpha"],
        ["runner", "alpha"],
    ]
    assert _selected(result, "paths") == lexical
    assert _selected(result, "source_list") == lexical
    assert _selected(result, "structural") == [["alpha", "beta"]] * 10
    assert _selected(result, "fusion") == [
        ["alpha", "beta"],
        ["alpha", "beta"],
        ["alpha", "cache"],
        ["alpha", "beta"],
    ] + [["alpha", x] for x in ("exporter", "graph", "parser", "ranking", "receipt", "runner")]


def test_worked_example_aggregates() -> None:
    result = evaluate(MINIMAL).result
    structural = result["pairwise"]["structural"]
    delta = structural["perRepository"]["repo"]["deltaFromPaths"]
    assert dumps(delta) == dumps(
        {
            "macroPrecision": -0.35,
            "macroRecall": -0.7,
            "unnecessary": 7,
            "unnecessaryReductionRate": -0.6363636363636364,
            "omissions": 7,
            "unnecessaryPerCase": 0.7,
            "omissionsPerCase": 0.7000000000000001,
        }
    )
    assert result["pairwise"]["source_list"]["perRepository"]["repo"]["deltaFromPaths"]["unnecessaryReductionRate"] == 0
    assert result["availability"]["structural"] == {"eligible": 10, "available": 10, "unavailable": 0}


def test_two_repository_example() -> None:
    """SPEC §11.5 expected outcomes, including the equal-repository means and deltas."""
    result = evaluate(TWO_REPO).result
    cases = {c["id"]: c for c in result["cases"]}
    a1 = cases["repo-a-1"]
    assert a1["arms"]["structural"]["available"] is False
    assert a1["arms"]["structural"]["failures"][0].startswith("structural_evidence_validation_failed:OBS-19 ")
    assert a1["arms"]["fusion"]["failures"] == a1["arms"]["structural"]["failures"]
    assert a1["structuralEvidence"] is None
    assert cases["repo-a-2"]["arms"]["fusion"]["metrics"]["selected"] == ["src/beta.js"]
    assert cases["repo-b-1"]["arms"]["structural"]["metrics"]["selected"] == ["c.js", "a.js"]
    assert cases["repo-b-1"]["arms"]["source_list"]["failures"] == ["repository_metadata_coverage_below_60_percent"]
    assert result["availability"] == {
        "paths": {"eligible": 20, "available": 20, "unavailable": 0},
        "source_list": {"eligible": 10, "available": 10, "unavailable": 0},
        "structural": {"eligible": 20, "available": 19, "unavailable": 1},
        "fusion": {"eligible": 10, "available": 9, "unavailable": 1},
    }
    pairwise = result["pairwise"]["structural"]
    assert pairwise["denominators"] == {
        "eligibleRepositoryCount": 2,
        "availableRepositoryCount": 2,
        "eligibleCaseCount": 20,
        "availableCaseCount": 19,
    }
    assert pairwise["perRepository"]["repo-a"]["deltaFromPaths"]["unnecessaryReductionRate"] == -8
    macro = pairwise["equalRepositoryMacro"]["arms"]
    assert list(macro["paths"].values()) == [
        0.6444444444444444,
        0.6944444444444444,
        0.6555555555555556,
        0.4555555555555556,
    ]
    assert list(pairwise["deltaFromPaths"].values()) == [
        -0.44444444444444436,
        -0.4444444444444444,
        0.44444444444444453,
        0.4444444444444444,
    ]
    empty = result["pairwise"]["source_list"]["perRepository"]["repo-b"]
    assert (empty["caseCount"], empty["deltaFromPaths"], empty["arms"]["paths"]["macroPrecision"]) == (0, None, None)
    assert result["allFour"]["denominators"] == {
        "eligibleRepositoryCount": 1,
        "availableRepositoryCount": 1,
        "eligibleCaseCount": 10,
        "availableCaseCount": 9,
    }
    assert result["allFour"]["caseIds"] == [f"repo-a-{n}" for n in range(2, 11)]
    assert '"unnecessaryReductionRate": -8,' in dumps(result)


def test_per_repository_member_order_puts_array_indexes_first() -> None:
    assert member_order(["zeta", "10", "2"]) == ["2", "10", "zeta"]
    assert member_order(["01", "-1", "1.5", " 7", "4294967295", "4294967294"]) == [
        "4294967294",
        "01",
        "-1",
        "1.5",
        " 7",
        "4294967295",
    ]


def test_gate_reduction_published_vector() -> None:
    """PRODUCT.md: U_paths = 27/10, U_source_list = 34/15 → 13/81 (16.0494 %), fail."""
    status, reduction = reduction_status(Fraction(27, 10), Fraction(34, 15))
    assert reduction is not None
    assert (status, reduction) == ("fail", Fraction(13, 81))
    assert quantity(reduction) == {"exact": "13/81", "value": 13 / 81}
    assert round(float(reduction) * 100, 4) == 16.0494


def test_gate_reduction_from_per_repository_values() -> None:
    paths = equal_repository_rates([RepositoryRates(10, Fraction(1, 2), Fraction(1), Fraction(27, 10), Fraction(0))])
    source_list = equal_repository_rates(
        [RepositoryRates(10, Fraction(1, 2), Fraction(1), Fraction(34, 15), Fraction(0))]
    )
    assert paths is not None and source_list is not None
    assert reduction_status(paths.unnecessary_per_case, source_list.unnecessary_per_case) == ("fail", Fraction(13, 81))


def test_repository_rates_are_exact_means_of_the_case_counts() -> None:
    """Shared by gates and notes: precision and recall per case, then means; a case with nothing selected or no
    truth counts 0 (notes may meet one in a hand-edited file; run never writes one)."""
    rates = repository_rates(
        [
            CaseCounts(hits=1, selected=3, unnecessary=2, omitted=1),
            CaseCounts(hits=2, selected=2, unnecessary=0, omitted=0),
            CaseCounts(hits=0, selected=0, unnecessary=0, omitted=0),
        ]
    )
    assert rates == RepositoryRates(
        cases=3,
        precision=Fraction(4, 9),
        recall=Fraction(1, 2),
        unnecessary_per_case=Fraction(2, 3),
        omissions_per_case=Fraction(1, 3),
    )
    other = repository_rates([CaseCounts(hits=1, selected=1, unnecessary=0, omitted=3)])
    assert equal_repository_rates([rates, other]) == RepositoryRates(
        cases=4,
        precision=Fraction(13, 18),
        recall=Fraction(3, 8),
        unnecessary_per_case=Fraction(1, 3),
        omissions_per_case=Fraction(5, 3),
    )
    assert equal_repository_rates([]) is None
    with pytest.raises(ZeroDivisionError):
        repository_rates([])


def test_gate_zero_paths_baseline_is_not_demonstrated() -> None:
    assert reduction_status(Fraction(0), Fraction(0)) == ("not_demonstrated", None)
    assert reduction_status(Fraction(0), Fraction(1, 3)) == ("not_demonstrated", None)
    assert reduction_status(Fraction(1), Fraction(4, 5)) == ("pass", Fraction(1, 5))


def test_gates_not_demonstrated_without_eligible_repository() -> None:
    obj = valid_two_repo()
    obj["repositories"] = obj["repositories"][1:]
    obj["cases"] = [c for c in obj["cases"] if c["repositoryId"] == "repo-b"]
    gates = {g["id"]: g for g in evaluate(prepared.dumps(obj)).gate_assessment["gates"]}
    assert [gates[g]["status"] for g in ("G1", "G4a", "G4b", "G4c")] == ["fail"] + ["not_demonstrated"] * 3


def test_gate_assessment_shape_on_worked_example() -> None:
    assessment = evaluate(MINIMAL).gate_assessment
    assert [g["id"] for g in assessment["gates"]] == ["G1", "G2", "G3", "G4a", "G4b", "G4c", "G5", "G6", "G7", "G8"]
    statuses = {g["id"]: (g["status"], g["numericStatus"]) for g in assessment["gates"]}
    assert statuses["G1"] == ("fail", "fail")  # one repository, three needed
    assert statuses["G3"] == ("pass", "pass")
    assert statuses["G4a"] == ("fail", "fail")  # identical selections: delta 0
    assert statuses["G4b"] == ("fail", "fail")
    assert statuses["G4c"] == ("pass", "pass")
    assert statuses["G8"] == ("requires_review", None)
    assert assessment["automaticAdoption"] is False


def _selections(data: bytes) -> list[list[list[str] | None]]:
    result = evaluate(data).result
    return [
        [(c["arms"][a]["metrics"] or {}).get("selected") for a in ("paths", "source_list", "structural", "fusion")]
        for c in result["cases"]
    ]


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_selection_is_invariant_to_receipt_order(seed: int) -> None:
    obj = valid_two_repo()
    before = _selections(prepared.dumps(obj))
    rng = random.Random(seed)
    for case in obj["cases"]:
        bundle = case["structuralEvidence"]
        rng.shuffle(bundle["receipt"]["evidence"])
        rehash_bundle(bundle)
    data = prepared.dumps(obj)
    assert _selections(data) == before
    ids = [c["structuralEvidence"] and c["structuralEvidence"]["candidateIds"] for c in evaluate(data).result["cases"]]
    assert ids == [
        c["structuralEvidence"] and c["structuralEvidence"]["candidateIds"] for c in evaluate(TWO_REPO).result["cases"]
    ]


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(0, 11), min_size=10, max_size=10))
def test_selection_is_invariant_to_truth(truth_index: list[int]) -> None:
    obj = valid_minimal()
    before = _selections(MINIMAL)
    paths = prepared.item_paths(obj["repositories"][0])
    used: set[int] = set()
    for case, k in zip(obj["cases"], truth_index, strict=True):
        while k in used:
            k = (k + 1) % 12
        used.add(k)
        case["truth"] = [paths[k]]
        prepared.rehash_case(case, obj["repositories"][0])
    assert _selections(prepared.dumps(obj)) == before


def test_evaluation_does_not_modify_the_parsed_input() -> None:
    experiment = validate_experiment(MINIMAL)
    snapshot = json.dumps([c.record.truth for c in experiment.cases])
    evaluate(MINIMAL)
    assert json.dumps([c.record.truth for c in experiment.cases]) == snapshot


@pytest.mark.parametrize("arm", ["paths", "source_list", "structural", "fusion"])
def test_every_arm_reports_the_same_budget_and_universe(arm: str) -> None:
    for case in evaluate(TWO_REPO).result["cases"]:
        a = case["arms"][arm]
        assert (a["maxItems"], a["candidateCount"], a["sourceListArtifactSha256"]) == (
            case["maxItems"],
            case["candidateCount"],
            case["sourceListArtifactSha256"],
        )
