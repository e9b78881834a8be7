"""Re-derive what a results file's gate rows must say from the exact figures it records (issue 22 item 5).

A results file edited by hand can carry statuses its own figures contradict
(G1 "pass" with 2 eligible repositories of the 3 needed). :func:`contradictions`
recomputes, with :class:`fractions.Fraction` only:

- every case's metrics from its own lists (hits + unnecessary = selected;
  precision and recall as the doubles of their exact values), and that an
  arm records metrics exactly when it is available;
- G1 from the repositories' coverage (present / candidates) and the
  preregistered thresholds (3 repositories, 3/5);
- G4a/G4b/G4c from the per-case counts of the ``paths ∩ source_list``
  population (equal-repository means, as :mod:`ablation.gates` decides them)
  and the preregistered thresholds (1/10, 1/5, 0);
- G2, G3 and G5–G8 as ``run`` writes them (G2 from the cases per repository,
  G3 from the cases' budgets, G5 rates from the staleness samples, G6 from
  ``availability``, G7 tokens as bytes/4 rounded up);
- every ``value`` beside an ``exact`` as the double nearest to it;
- ``numericGatesPassed`` from G1, G4a, G4b, G4c, and ``automaticAdoption`` false.

It cannot tell a results file that ``run`` wrote for this input from one made
up consistently: only a recomputation from the input does that
(``verify-archive``, ``notes --bundle``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from fractions import Fraction

from ablation.gates import (
    COVERAGE_THRESHOLD,
    MIN_ELIGIBLE_REPOSITORIES,
    NUMERIC_GATES,
    PRECISION_THRESHOLD,
    REDUCTION_THRESHOLD,
    reduction_status,
)
from ablation.rates import CaseCounts, RepositoryRates, equal_repository_rates, exact_text, repository_rates
from ablation.recorded import ResultsFile
from ablation.recorded.gates import (
    Approximate,
    CaseCohorts,
    CostDisclosure,
    EligibleRepositories,
    Gate,
    IdenticalUniverses,
    OmissionDelta,
    PrecisionDelta,
    Quantity,
    Staleness,
    StructuralSeparate,
    UnnecessaryReduction,
)
from ablation.recorded.result import Case, Metrics, Result
from ablation.recorded.schema import Record

__all__ = ["MINIMUM_CASES", "case_counts", "contradictions", "g4_rates"]

MINIMUM_CASES = 10  # cases per repository (preregistration gate 2; validation guarantees it)
Derived = tuple[str | None, list[str]]  # (numericStatus, why the gate has it)


def _fraction(value: Fraction | None) -> str:
    return "null" if value is None else exact_text(value)


def _status(numeric: str | None, decided: bool) -> str:
    """``status`` as :func:`ablation.gates._gate` sets it from ``numericStatus``."""
    if numeric in ("fail", "not_demonstrated"):
        return numeric
    return "pass" if decided else "requires_review"


def _rows(gate: Gate, numeric: str | None, decided: bool, why: str) -> Iterator[str]:
    """The gate row's two statuses against the re-derived ones."""
    for name, recorded, derived in (
        ("numericStatus", gate.numeric_status, numeric),
        ("status", gate.status, _status(numeric, decided)),
    ):
        if recorded != derived:
            shown, should = ("null" if v is None else f'"{v}"' for v in (recorded, derived))
            yield f"{gate.id}: {name} is {shown}, but {why}, so it is {should}"


def case_counts(metrics: Metrics) -> CaseCounts:
    """The integer counts of recorded metrics (hits, selected, unnecessary, omitted truth)."""
    return CaseCounts(
        hits=metrics.hits,
        selected=len(metrics.selected),
        unnecessary=len(metrics.unnecessary),
        omitted=len(metrics.omitted_truth),
    )


def _case_problems(case: Case) -> Iterator[str]:
    for arm_name, arm in case.arms.items():
        m, where = arm.metrics, f"case {case.id!r}, arm {arm_name}"
        if arm.available != (m is not None):
            state = "available" if arm.available else "unavailable"
            yield f"{where}: {state}, but it records {'no ' if m is None else ''}metrics"
        if m is None:
            continue
        if m.hits + len(m.unnecessary) != len(m.selected):
            yield f"{where}: {m.hits} hits and {len(m.unnecessary)} unnecessary are not its {len(m.selected)} selected"
        truth = m.hits + len(m.omitted_truth)
        precision = Fraction(m.hits, len(m.selected)) if m.selected else Fraction(0)
        recall = Fraction(m.hits, truth) if truth else Fraction(0)
        for name, recorded, exact in (("precision", m.precision, precision), ("recall", m.recall, recall)):
            if recorded != float(exact):
                yield f"{where}: {name} {recorded!r} is not {exact_text(exact)}, what its lists give"


def g4_rates(result: Result) -> tuple[list[str], int, RepositoryRates | None, RepositoryRates | None]:
    """G4's population from ``pairwise.source_list`` and the per-case counts.

    Returns:
        (ids of its repositories with a case, its case count, equal-repository
        rates of ``paths``, of ``source_list``; ``None`` without a repository).
    """
    cases = {c.id: c for c in result.cases}
    population = result.pairwise.get("source_list")
    ids, case_count = [], 0
    per_arm: dict[str, list[RepositoryRates]] = {"paths": [], "source_list": []}
    for repo_id, entry in population.per_repository.items() if population is not None else ():
        found = [cases[c] for c in entry.case_ids if c in cases]
        if not found:
            continue
        ids.append(repo_id)
        case_count += len(found)
        for arm, rates in per_arm.items():
            metrics = [a.metrics for c in found if (a := c.arms.get(arm)) is not None and a.metrics is not None]
            if metrics:
                rates.append(repository_rates([case_counts(m) for m in metrics]))
    return ids, case_count, equal_repository_rates(per_arm["paths"]), equal_repository_rates(per_arm["source_list"])


def _g1(m: EligibleRepositories, r: Result) -> Derived:
    problems = []
    if m.threshold.repositories != MIN_ELIGIBLE_REPOSITORIES or m.threshold.coverage.fraction != COVERAGE_THRESHOLD:
        problems.append(
            f"its threshold {m.threshold.repositories} repositories at coverage {m.threshold.coverage.exact} is "
            f"not the preregistered {MIN_ELIGIBLE_REPOSITORIES} at {exact_text(COVERAGE_THRESHOLD)}"
        )
    if [c.repository_id for c in m.coverage] != [repo.id for repo in r.repositories]:
        problems.append("its coverage rows are not the result's repositories")
    eligible = []
    for row, repo in zip(m.coverage, r.repositories, strict=False):
        coverage = Fraction(repo.metadata_present_count, repo.candidate_count) if repo.candidate_count else None
        if coverage is None or row.coverage.fraction != coverage:
            problems.append(f"coverage {row.coverage.exact} of {repo.id!r} is not its {_fraction(coverage)}")
        elif row.eligible != (coverage >= COVERAGE_THRESHOLD) or repo.source_list_eligible != row.eligible:
            problems.append(f"{repo.id!r} with coverage {row.coverage.exact} is marked eligible {row.eligible}")
        if coverage is not None and coverage >= COVERAGE_THRESHOLD:
            eligible.append(repo.id)
    if list(m.eligible_ids) != eligible or m.eligible_count != len(eligible):
        problems.append(f"it counts {m.eligible_count} eligible repositories where the coverage gives {len(eligible)}")
    numeric = "pass" if len(eligible) >= MIN_ELIGIBLE_REPOSITORIES else "fail"
    why = f"{len(eligible)} repositories reach coverage 3/5 and {MIN_ELIGIBLE_REPOSITORIES} are needed"
    return numeric, [*problems, why]


def _g2(m: CaseCohorts, r: Result) -> Derived:
    found = [(repo.id, sum(1 for c in r.cases if c.repository_id == repo.id)) for repo in r.repositories]
    problems = []
    if [(x.repository_id, x.case_count) for x in m.cases_per_repository] != found or m.minimum != MINIMUM_CASES:
        problems.append(f"its case counts are not the result's cases per repository with a minimum of {MINIMUM_CASES}")
    fewest = min((n for _, n in found), default=0)
    numeric = "pass" if fewest >= MINIMUM_CASES else "fail"
    return numeric, [*problems, f"the fewest cases in a repository are {fewest} of {MINIMUM_CASES} needed"]


def _g3(m: IdenticalUniverses, r: Result) -> Derived:
    positive = all(c.max_items >= 1 for c in r.cases)
    problems = []
    if m.case_count != len(r.cases) or m.positive_max_items != positive:
        problems.append("its case count or positiveMaxItems is not the result's cases")
    numeric = "pass" if positive and m.arms_share_universe else "fail"
    return numeric, [*problems, f"armsShareCandidateUniverse is {str(m.arms_share_universe).lower()}"]


G4Measured = PrecisionDelta | UnnecessaryReduction | OmissionDelta
_G4_RATE: dict[str, Callable[[RepositoryRates], Fraction]] = {
    "G4a": lambda x: x.precision,
    "G4b": lambda x: x.unnecessary_per_case,
    "G4c": lambda x: x.omissions_per_case,
}
_G4_THRESHOLD = {"G4a": PRECISION_THRESHOLD, "G4b": REDUCTION_THRESHOLD, "G4c": None}


def _g4_judge(gate_id: str, paths: Fraction, source_list: Fraction) -> tuple[str, Fraction | None]:
    if gate_id == "G4b":
        return reduction_status(paths, source_list)
    delta = source_list - paths
    if gate_id == "G4a":
        return ("pass" if delta >= PRECISION_THRESHOLD else "fail"), delta
    return ("pass" if delta <= 0 else "fail"), delta


def _g4(gate_id: str, m: G4Measured, r: Result) -> Derived:
    ids, case_count, p_rates, s_rates = g4_rates(r)
    problems = []
    if (m.population.repository_ids, m.population.repository_count, m.population.case_count) != (
        tuple(ids),
        len(ids),
        case_count,
    ):
        problems.append("its population is not the result's paths ∩ source_list cases")
    threshold = _G4_THRESHOLD[gate_id]
    derived: tuple[Fraction | None, Fraction | None, Fraction | None]
    if p_rates is None or s_rates is None:
        numeric, derived = "not_demonstrated", (None, None, None)
        threshold = None
    else:
        paths, source_list = _G4_RATE[gate_id](p_rates), _G4_RATE[gate_id](s_rates)
        numeric, amount = _g4_judge(gate_id, paths, source_list)
        derived = (paths, source_list, amount)
    recorded_threshold = getattr(m, "threshold", None)
    recorded = (m.paths, m.source_list, m.amount, recorded_threshold)
    names = ("paths", "sourceList", "reduction" if gate_id == "G4b" else "delta", "threshold")
    for name, got, want in zip(names, recorded, (*derived, threshold), strict=True):
        if (None if got is None else got.fraction) != want:
            shown = "absent or null" if got is None else got.exact
            basis = "the preregistered threshold" if name == "threshold" else "what the per-case counts give"
            problems.append(f"its {name} {shown} is not {_fraction(want)}, {basis}")
    if derived[2] is None:
        why = "the per-case counts give no paths ∩ source_list case with a positive paths baseline"
    else:
        needed = "≤ 0" if gate_id == "G4c" else f"≥ {_fraction(threshold)}"
        why = f"the per-case counts give {names[2]} {_fraction(derived[2])} where {needed} is needed"
    return numeric, [*problems, why]


def _g5(m: Staleness, r: Result) -> Derived:
    expected = [(x.id, x.staleness.sampled, x.staleness.stale, x.source_list_eligible) for x in r.repositories]
    rows = [(x.repository_id, x.sampled, x.stale, x.source_list_eligible) for x in m.repositories]
    problems = [] if rows == expected else ["its samples are not the result's staleness samples"]
    for x in m.repositories:
        if not x.sampled or x.stale_rate.fraction != Fraction(x.stale, x.sampled):
            problems.append(f"stale rate {x.stale_rate.exact} of {x.repository_id!r} is not {x.stale}/{x.sampled}")
    controls = [x.id for x in r.repositories if not x.source_list_eligible]
    if list(m.ineligible_controls) != controls:
        problems.append("its ineligible controls are not the result's ineligible repositories")
    return None, [*problems, "staleness is reviewed, not decided"]


def _g6(m: StructuralSeparate, r: Result) -> Derived:
    same = (m.structural, m.fusion) == (r.availability.get("structural"), r.availability.get("fusion"))
    problems = [] if same else ["its availability is not the result's"]
    return None, [*problems, "structural evidence is reviewed, not decided"]


def _tokens_ok(x: Approximate) -> bool:
    return x.approximate_tokens == (None if x.bytes is None else math.ceil(x.bytes / 4))


def _g7(m: CostDisclosure, r: Result) -> Derived:
    sizes = [x.source_list_raw_bytes for x in m.repositories] + [x.git_evidence_bytes for x in m.repositories]
    sizes += [x.sci_receipt_raw_bytes for x in m.cases]
    problems = [] if all(_tokens_ok(x) for x in sizes) else ["an approximate token count is not bytes/4 rounded up"]
    if [x.repository_id for x in m.repositories] != [x.id for x in r.repositories]:
        problems.append("its repositories are not the result's")
    if [x.case_id for x in m.cases] != [x.id for x in r.cases]:
        problems.append("its cases are not the result's")
    return None, [*problems, "costs are reviewed, not decided"]


def _derive(gate: Gate, r: Result) -> Derived:
    m = gate.measured
    if isinstance(m, EligibleRepositories):
        return _g1(m, r)
    if isinstance(m, CaseCohorts):
        return _g2(m, r)
    if isinstance(m, IdenticalUniverses):
        return _g3(m, r)
    if isinstance(m, PrecisionDelta | UnnecessaryReduction | OmissionDelta):
        return _g4(gate.id, m, r)
    if isinstance(m, Staleness):
        return _g5(m, r)
    if isinstance(m, StructuralSeparate):
        return _g6(m, r)
    if isinstance(m, CostDisclosure):
        return _g7(m, r)
    return None, ["the owner decision is not measured"]


def _quantities(value: object, where: str) -> Iterator[tuple[Quantity, str]]:
    """Every :class:`Quantity` inside a record, with its JSON Pointer."""
    if isinstance(value, Quantity):
        yield value, where
    elif isinstance(value, Record):
        for m in value._spec():  # noqa: SLF001 - the record machinery of this package
            yield from _quantities(getattr(value, m.attribute), f"{where}/{m.name}")
    elif isinstance(value, tuple):
        for k, element in enumerate(value):
            yield from _quantities(element, f"{where}/{k}")


_DECIDED = frozenset({"G3", "G4a", "G4b", "G4c"})  # gates whose status follows a passing numericStatus


def contradictions(results: ResultsFile) -> list[str]:
    """Every place where the file contradicts its own figures, each naming its case or gate; empty when none.

    Cases come first (the gates are computed from them), then the gates in
    order, then ``numericGatesPassed`` and ``automaticAdoption``.
    """
    r, assessment = results.result, results.gate_assessment
    found = [problem for case in r.cases for problem in _case_problems(case)]
    numeric: dict[str, str | None] = {}
    for k, gate in enumerate(assessment.gates):
        derived, reasons = _derive(gate, r)
        numeric[gate.id] = derived
        found += [f"{gate.id}: {reason}" for reason in reasons[:-1]]
        found += _rows(gate, derived, gate.id in _DECIDED, reasons[-1])
        for quantity, where in _quantities(gate.measured, f"/gateAssessment/gates/{k}/measured"):
            if quantity.value != float(quantity.fraction):
                found.append(f"{gate.id}: {where}/value {quantity.value!r} is not {quantity.exact} as a double")
    passed = all(numeric[g] == "pass" for g in NUMERIC_GATES)
    if assessment.numeric_gates_passed != passed:
        failing = ", ".join(g for g in NUMERIC_GATES if numeric[g] != "pass")
        found.append(
            f"numericGatesPassed: {str(assessment.numeric_gates_passed).lower()}, but "
            + (f"{failing} do not pass" if failing else "G1, G4a, G4b and G4c all pass")
        )
    if assessment.automatic_adoption:
        found.append("automaticAdoption: true, which ablation never writes (it never adopts)")
    return found
