"""``gateAssessment``: the preregistration's eight adoption gates, decided exactly.

Every measured quantity is a :class:`fractions.Fraction` built from integer
counts (hits, selected, truth sizes, unnecessary and omission counts, case
counts; :mod:`ablation.rates`) — never from the floats in ``result`` — and
thresholds are the exact rationals 1/10 and 1/5. Never an adoption decision:
``automaticAdoption`` is always false (PRODUCT.md "gateAssessment";
preregistration "Adoption decision gates").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ablation.experiment import ValidatedExperiment
from ablation.metrics import CaseMetrics, member_order
from ablation.rates import CaseCounts, RepositoryRates, equal_repository_rates, quantity, repository_rates
from ablation.result import CaseOutcome, availability_counts, pairwise_cases

__all__ = ["GATES", "NUMERIC_GATES", "assess_gates", "reduction_status"]

PRECISION_THRESHOLD = Fraction(1, 10)
REDUCTION_THRESHOLD = Fraction(1, 5)
COVERAGE_THRESHOLD = Fraction(3, 5)
MIN_ELIGIBLE_REPOSITORIES = 3


def _repository_rates(outcomes: Sequence[CaseOutcome], arm: str) -> RepositoryRates:
    # Only outcomes where ``arm`` is available reach here: their metrics are set.
    metrics: list[CaseMetrics] = [o.arms[arm].metrics for o in outcomes]  # type: ignore[misc]  # see above
    return repository_rates([CaseCounts.of(m) for m in metrics])


def reduction_status(u_paths: Fraction, u_source_list: Fraction) -> tuple[str, Fraction | None]:
    """G4b: (status, reduction). A zero paths baseline is ``not_demonstrated`` (never a pass).

    >>> reduction_status(Fraction(27, 10), Fraction(34, 15))
    ('fail', Fraction(13, 81))
    >>> reduction_status(Fraction(0), Fraction(0))
    ('not_demonstrated', None)
    """
    if u_paths <= 0:
        return "not_demonstrated", None
    reduction = (u_paths - u_source_list) / u_paths
    return ("pass" if reduction >= REDUCTION_THRESHOLD else "fail"), reduction


def _gate(
    gate_id: str, name: str, numeric: str | None, decided: bool, measured: Mapping[str, object], basis: str
) -> dict[str, object]:
    """One ``Gate`` object: ``status`` follows ``numericStatus`` when it fails, else pass or review."""
    if numeric in ("fail", "not_demonstrated"):
        status = numeric
    else:
        status = "pass" if decided else "requires_review"
    return {
        "id": gate_id,
        "name": name,
        "status": status,
        "numericStatus": numeric,
        "measured": measured,
        "basis": basis,
    }


def _approximate(byte_count: int | None) -> dict[str, int | None]:
    return {"bytes": byte_count, "approximateTokens": None if byte_count is None else math.ceil(byte_count / 4)}


def _raw_receipt_bytes(bundle: object) -> int | None:
    """UTF-8 bytes of ``executionObservation.rawEvidence.receiptJson`` when it is a string."""
    value = bundle
    for member in ("executionObservation", "rawEvidence", "receiptJson"):
        if not isinstance(value, dict):
            return None
        value = value.get(member)
    return len(value.encode("utf-8")) if isinstance(value, str) else None


@dataclass(frozen=True, slots=True)
class _Treatment:
    """G4's population (paths ∩ source_list available) and both arms' equal-repository rates.

    ``paths`` and ``source_list`` are ``None`` when the population has no repository.
    """

    population: dict[str, object]
    paths: RepositoryRates | None
    source_list: RepositoryRates | None


def _treatment(experiment: ValidatedExperiment, outcomes: Sequence[CaseOutcome]) -> _Treatment:
    _, available = pairwise_cases(outcomes, ("paths", "source_list"))
    grouped: dict[str, list[CaseOutcome]] = {r.id: [] for r in experiment.repositories}
    for o in available:
        grouped[o.repository.id].append(o)
    order = [rid for rid in member_order([r.id for r in experiment.repositories]) if grouped[rid]]
    return _Treatment(
        population={"repositoryCount": len(order), "caseCount": len(available), "repositoryIds": order},
        paths=equal_repository_rates([_repository_rates(grouped[rid], "paths") for rid in order]),
        source_list=equal_repository_rates([_repository_rates(grouped[rid], "source_list") for rid in order]),
    )


@dataclass(frozen=True, slots=True)
class _Inputs:
    """What every gate reads: the validated experiment, the evaluated cases, G4's treatment rates."""

    experiment: ValidatedExperiment
    outcomes: Sequence[CaseOutcome]
    treatment: _Treatment


def _g1(x: _Inputs) -> dict[str, object]:
    """G1 — at least three repositories with coverage >= 3/5 (exact: present/items)."""
    repos = x.experiment.repositories
    coverage = [Fraction(r.present_count, r.item_count) for r in repos]
    eligible_ids = [r.id for r, c in zip(repos, coverage, strict=True) if c >= COVERAGE_THRESHOLD]
    numeric = "pass" if len(eligible_ids) >= MIN_ELIGIBLE_REPOSITORIES else "fail"
    measured = {
        "eligibleRepositoryCount": len(eligible_ids),
        "eligibleRepositoryIds": eligible_ids,
        "coverage": [
            {"repositoryId": r.id, "coverage": quantity(c), "eligible": c >= COVERAGE_THRESHOLD}
            for r, c in zip(repos, coverage, strict=True)
        ],
        "threshold": {"repositories": MIN_ELIGIBLE_REPOSITORIES, "coverage": quantity(COVERAGE_THRESHOLD)},
    }
    basis = (
        "At least three independently owned representative repositories must derive at least 60% present "
        "metadata coverage; ownership and representativeness need independent review."
    )
    return _gate("G1", "eligible_repositories", numeric, False, measured, basis)


def _g2(x: _Inputs) -> dict[str, object]:
    """G2 — >= 10 cases per repository with distinct intents and target bases (validation guarantees it)."""
    per_repo_cases = {r.id: 0 for r in x.experiment.repositories}
    for o in x.outcomes:
        per_repo_cases[o.repository.id] += 1
    measured = {
        "casesPerRepository": [{"repositoryId": rid, "caseCount": n} for rid, n in per_repo_cases.items()],
        "minimumCasesPerRepository": 10,
    }
    basis = (
        "Every declared repository has at least 10 cases with distinct intent signatures and target bases "
        "(enforced by validation); the questions still need pre-ranking review."
    )
    return _gate("G2", "case_cohorts", "pass", False, measured, basis)


def _g3(x: _Inputs) -> dict[str, object]:
    """G3 — identical universes and positive budgets (by construction)."""
    measured = {
        "caseCount": len(x.outcomes),
        "armsShareCandidateUniverse": True,
        "positiveMaxItems": all(o.case.record.max_items >= 1 for o in x.outcomes),
    }
    basis = (
        "All arms rank each case's single validated candidate universe under the same positive maxItems, "
        "and truth enters only the metrics after selection."
    )
    return _gate("G3", "identical_universes_and_budgets", "pass", True, measured, basis)


_EMPTY_POPULATION = "No repository reaches 60% coverage, so the source_list population is empty."


Judgement = Callable[[Fraction, Fraction], tuple[str, Fraction | None]]  # (paths, source_list) -> (status, value)
Rate = Callable[[RepositoryRates], Fraction]  # picks one rate of an arm's equal-repository means


def _g4(
    x: _Inputs, part: tuple[str, str, Rate, str], judge: Judgement, basis: str, threshold: Fraction | None
) -> dict[str, object]:
    """One part of G4 on the paths ∩ source_list population: ``part`` is ``(id, name, rate, value key)``;
    the rate picks precision, unnecessary or omissions per case; no repository: not demonstrated."""
    gate_id, name, rate, key = part
    t = x.treatment
    if t.paths is None or t.source_list is None:
        measured: dict[str, object] = {"population": t.population, "paths": None, "sourceList": None, key: None}
        return _gate(gate_id, name, "not_demonstrated", True, measured, _EMPTY_POPULATION)
    status, value = judge(rate(t.paths), rate(t.source_list))
    measured = {
        "population": t.population,
        "paths": quantity(rate(t.paths)),
        "sourceList": quantity(rate(t.source_list)),
        key: quantity(value),
    }
    if threshold is not None:
        measured["threshold"] = quantity(threshold)
    return _gate(gate_id, name, status, True, measured, basis)


def _precision_delta(paths: Fraction, source_list: Fraction) -> tuple[str, Fraction | None]:
    delta = source_list - paths
    return ("pass" if delta >= PRECISION_THRESHOLD else "fail"), delta


def _omission_delta(paths: Fraction, source_list: Fraction) -> tuple[str, Fraction | None]:
    delta = source_list - paths
    return ("pass" if delta <= 0 else "fail"), delta


def _g4a(x: _Inputs) -> dict[str, object]:
    """G4a — equal-repository precision of source_list minus paths >= 1/10."""
    basis = "Equal-repository macro precision of source_list minus paths must be at least 1/10."
    return _g4(
        x, ("G4a", "precision_delta", lambda r: r.precision, "delta"), _precision_delta, basis, PRECISION_THRESHOLD
    )


def _g4b(x: _Inputs) -> dict[str, object]:
    """G4b — (U_paths − U_source_list) / U_paths >= 1/5 with U_paths > 0."""
    basis = (
        "(pathsMacroUnnecessary - sourceListMacroUnnecessary) / pathsMacroUnnecessary must be at least 1/5 "
        "with a strictly positive paths baseline; a zero baseline is not demonstrated."
    )
    return _g4(
        x,
        ("G4b", "unnecessary_reduction", lambda r: r.unnecessary_per_case, "reduction"),
        reduction_status,
        basis,
        REDUCTION_THRESHOLD,
    )


def _g4c(x: _Inputs) -> dict[str, object]:
    """G4c — equal-repository omissions per case must not increase under source_list."""
    basis = "Equal-repository target omissions per case must not increase under source_list."
    return _g4(x, ("G4c", "omission_delta", lambda r: r.omissions_per_case, "delta"), _omission_delta, basis, None)


def _g5(x: _Inputs) -> dict[str, object]:
    """G5 — staleness reported for every repository; ineligible repositories stay visible as controls."""
    repos = x.experiment.repositories
    measured = {
        "repositories": [
            {
                "repositoryId": r.id,
                "sampled": len(r.staleness.sampled_paths),
                "stale": len(r.staleness.stale_paths),
                "staleRate": quantity(Fraction(len(r.staleness.stale_paths), len(r.staleness.sampled_paths))),
                "sourceListEligible": r.source_list_eligible,
            }
            for r in repos
        ],
        "ineligibleControls": [r.id for r in repos if not r.source_list_eligible],
    }
    basis = (
        "Metadata staleness is sampled and reported for every repository; the sampling method needs independent review."
    )
    return _gate("G5", "metadata_staleness", None, False, measured, basis)


def _g6(x: _Inputs) -> dict[str, object]:
    """G6 — structural and fusion stay separate from source-list semantics, availability reported."""
    measured = {
        "structural": availability_counts(x.outcomes, "structural"),
        "fusion": availability_counts(x.outcomes, "fusion"),
    }
    basis = (
        "Structural and fusion arms use only fail-closed SCI receipts and observations without fallback; "
        "a structural improvement cannot substitute for the metadata gate."
    )
    return _gate("G6", "structural_evidence_separate", None, False, measured, basis)


def _g7(x: _Inputs) -> dict[str, object]:
    """G7 — cost disclosure: raw artifact bytes and approximate tokens; latency is not in a v2 input."""
    measured = {
        "repositories": [
            {
                "repositoryId": r.id,
                "sourceListRawBytes": _approximate(r.source_list.raw_bytes),
                "gitEvidenceBytes": _approximate(r.preparation.git_evidence_bytes),
            }
            for r in x.experiment.repositories
        ],
        "cases": [
            {"caseId": o.case.record.id, "sciReceiptRawBytes": _approximate(_raw_receipt_bytes(o.case.record.bundle))}
            for o in x.outcomes
        ],
        "latency": None,
    }
    basis = (
        "Raw artifact sizes with approximate token counts (bytes/4, rounded up) are disclosed; latency, "
        "executable identity and maintenance limits need review."
    )
    return _gate("G7", "cost_disclosure", None, False, measured, basis)


def _g8(_: _Inputs) -> dict[str, object]:
    """G8 — independent post-ranking review with an explicit owner decision."""
    basis = (
        "An independent post-ranking review must record an explicit ADOPT, REFINE or REJECT "
        "owner decision; this evaluator never makes it."
    )
    return _gate("G8", "independent_review", None, False, {}, basis)


GATES: tuple[Callable[[_Inputs], dict[str, object]], ...] = (_g1, _g2, _g3, _g4a, _g4b, _g4c, _g5, _g6, _g7, _g8)
"""One function per gate, in the order of ``gateAssessment.gates`` (G1, G2, G3, G4a, G4b, G4c, G5 … G8)."""

NUMERIC_GATES = ("G1", "G4a", "G4b", "G4c")
"""The gates whose numeric parts decide ``numericGatesPassed``."""


def assess_gates(experiment: ValidatedExperiment, outcomes: Sequence[CaseOutcome]) -> dict[str, object]:
    """Evaluate G1 … G8 (G4 in three parts) for the ``source_list`` treatment.

    Args:
        experiment: the validated experiment.
        outcomes: the evaluated cases.

    Returns:
        The ``gateAssessment`` object of PRODUCT.md, members in order.

    Spec: PRODUCT.md "gateAssessment"; preregistration "Adoption decision gates" 1–8.
    """
    inputs = _Inputs(experiment, outcomes, _treatment(experiment, outcomes))
    gates = [gate(inputs) for gate in GATES]
    numeric = {g["id"]: g["numericStatus"] for g in gates}
    return {
        "population": "paths_and_treatment_available_intersection",
        "treatment": "source_list",
        "gates": gates,
        "numericGatesPassed": all(numeric[g] == "pass" for g in NUMERIC_GATES),
        "automaticAdoption": False,
    }
