"""The ``result`` object of SPEC §8: arm outcomes per case, populations, member order.

:func:`evaluate_cases` runs selection (truth-blind) and then metrics for every
case; :func:`build_result` assembles the exact §8 shape. Serialization is
:mod:`ablation.output`'s job.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ablation.experiment import PROTOCOL, Case, Repository, ValidatedExperiment
from ablation.metrics import CaseMetrics, Summary, case_metrics, delta, equal_delta, macro, member_order, summary
from ablation.selection import ARMS, index_repository, score_case, select_arms

__all__ = [
    "COVERAGE_FAILURE",
    "ArmOutcome",
    "CaseOutcome",
    "availability_counts",
    "build_result",
    "evaluate_cases",
    "pairwise_cases",
]

COVERAGE_FAILURE = "repository_metadata_coverage_below_60_percent"
TREATMENTS = ("source_list", "structural", "fusion")


@dataclass(frozen=True, slots=True)
class ArmOutcome:
    """One arm of one case (SPEC §6): availability, failures and, when available, metrics."""

    eligible: bool
    available: bool
    failures: tuple[str, ...]
    metrics: CaseMetrics | None


@dataclass(frozen=True, slots=True)
class CaseOutcome:
    """A case with its four arm outcomes, keyed by arm name in :data:`ARMS` order."""

    case: Case
    repository: Repository
    arms: Mapping[str, ArmOutcome]


def _availability(eligible_repo: bool, case: Case) -> dict[str, tuple[bool, bool, tuple[str, ...]]]:
    """SPEC §6 table: (eligible, available, failures) per arm."""
    structural_failures = (case.structural_failure,) if case.structural_failure else ()
    valid = case.structural is not None
    coverage = () if eligible_repo else (COVERAGE_FAILURE,)
    return {
        "paths": (True, True, ()),
        "source_list": (eligible_repo, eligible_repo, coverage),
        "structural": (True, valid, structural_failures),
        "fusion": (eligible_repo, eligible_repo and valid, structural_failures if eligible_repo else coverage),
    }


def evaluate_cases(experiment: ValidatedExperiment) -> tuple[CaseOutcome, ...]:
    """Select with every available arm, then compute metrics (truth enters only here).

    Each repository's universe is indexed once; each case scores only the items
    sharing a token with its question or carrying structural evidence.

    Spec: SPEC.md §5, §6, §7.2.
    """
    questions: list[list[str]] = [[] for _ in experiment.repositories]
    for case in experiment.cases:
        questions[case.record.repository_index].append(case.record.question)
    indexes = [
        index_repository(repo.source_list.universe, questions[r]) for r, repo in enumerate(experiment.repositories)
    ]
    outcomes = []
    for case in experiment.cases:
        record = case.record
        repo = experiment.repositories[record.repository_index]
        index = indexes[record.repository_index]
        scores = score_case(index, record.question, case.structural)
        availability = _availability(repo.source_list_eligible, case)
        selections = select_arms(
            scores, [a for a, (_, available, _) in availability.items() if available], record.max_items, repo.item_count
        )
        arms: dict[str, ArmOutcome] = {}
        for arm, (eligible, available, failures) in availability.items():
            metrics = None
            if available:
                metrics = case_metrics([index.paths[k] for k in selections[arm]], record.truth)
            arms[arm] = ArmOutcome(eligible, available, failures, metrics)
        outcomes.append(CaseOutcome(case=case, repository=repo, arms=arms))
    return tuple(outcomes)


def _repository_result(repo: Repository) -> dict[str, object]:
    universe = repo.source_list.universe
    sample = repo.staleness
    return {
        "id": repo.id,
        "commit": repo.commit,
        "sourceListContractVersion": repo.source_list.contract_version,
        "rawSourceListArtifactSha256": repo.source_list.raw_sha256,
        "sourceListPreparationObservationDigest": repo.preparation.observation_digest,
        "sourceListRevision": repo.preparation.revision,
        "sourceListExecutableArtifactSha256": repo.preparation.artifact_sha256,
        "candidateCount": universe.item_count,
        "trackedPathCount": repo.preparation.tracked_path_count,
        "metadataPresentCount": universe.present_count,
        "metadataCoverage": universe.present_count / universe.item_count,
        "sourceListEligible": repo.source_list_eligible,
        "rawEvidenceRetainedInPreparedInput": True,
        "metadataStalenessSample": {
            "commit": sample.commit,
            "rawArtifactSha256": sample.raw_artifact_sha256,
            "sampleDigest": sample.sample_digest,
            "method": sample.method,
            "sampled": len(sample.sampled_paths),
            "stale": len(sample.stale_paths),
            "staleRate": len(sample.stale_paths) / len(sample.sampled_paths),
        },
    }


def _case_result(outcome: CaseOutcome) -> dict[str, object]:
    record = outcome.case.record
    item_count = outcome.repository.item_count
    structural = outcome.case.structural
    return {
        "id": record.id,
        "repositoryId": record.repository_id,
        "repositoryCommit": record.repository_commit,
        "sourceListArtifactSha256": record.source_list_artifact_sha256,
        "question": record.question,
        "questionId": record.question_id,
        "intentSignature": record.intent_signature,
        "targetBasisDigest": record.target_basis_digest,
        "maxItems": record.max_items,
        "candidateCount": item_count,
        "arms": {
            arm: {
                "eligible": a.eligible,
                "available": a.available,
                "failures": list(a.failures),
                "maxItems": record.max_items,
                "candidateCount": item_count,
                "sourceListArtifactSha256": record.source_list_artifact_sha256,
                "metrics": a.metrics.to_json() if a.metrics is not None else None,
            }
            for arm, a in outcome.arms.items()
        },
        "structuralEvidence": None
        if structural is None
        else {
            "receiptDigest": structural.receipt_digest,
            "requestDigest": structural.request_digest,
            "executionObservationDigest": structural.execution_observation_digest,
            "rawRequestSha256": structural.raw_request_sha256,
            "rawReceiptSha256": structural.raw_receipt_sha256,
            "transcriptSha256": structural.transcript_sha256,
            "candidateIds": list(structural.candidate_ids),
            "rawEvidenceRetainedInPreparedInput": True,
            "encounterOrderHasRelevanceSemantics": False,
        },
    }


def availability_counts(outcomes: Sequence[CaseOutcome], arm: str) -> dict[str, int]:
    """Availability counts of one arm over all cases (SPEC §7.6): eligible, available, unavailable."""
    eligible = sum(1 for o in outcomes if o.arms[arm].eligible)
    available = sum(1 for o in outcomes if o.arms[arm].eligible and o.arms[arm].available)
    return {"eligible": eligible, "available": available, "unavailable": eligible - available}


def pairwise_cases(outcomes: Sequence[CaseOutcome], arms: Sequence[str]) -> tuple[list[CaseOutcome], list[CaseOutcome]]:
    """(eligible, available) cases of the population over ``arms``, input order (SPEC §7.6)."""
    eligible = [o for o in outcomes if all(o.arms[a].eligible for a in arms)]
    available = [o for o in eligible if all(o.arms[a].available for a in arms)]
    return eligible, available


def _population(
    experiment: ValidatedExperiment, outcomes: Sequence[CaseOutcome], arms: Sequence[str]
) -> dict[str, object]:
    """Case ids, denominators, per-repository summaries and deltas, macro (SPEC §7.5–§7.7)."""
    eligible, available = pairwise_cases(outcomes, arms)
    treatments = [a for a in arms if a != "paths"]
    by_repo: dict[str, list[CaseOutcome]] = {repo.id: [] for repo in experiment.repositories}
    for o in available:
        by_repo[o.repository.id].append(o)
    per_repository: dict[str, object] = {}
    summaries: dict[str, dict[str, Summary]] = {}
    for repo_id in member_order([repo.id for repo in experiment.repositories]):
        cases = by_repo[repo_id]
        arm_summaries = {a: summary([o.arms[a].metrics for o in cases]) for a in arms}  # type: ignore[misc]  # only available arms: their metrics are set
        summaries[repo_id] = arm_summaries
        entry: dict[str, object] = {
            "caseIds": [o.case.record.id for o in cases],
            "caseCount": len(cases),
            "arms": arm_summaries,
        }
        if len(treatments) == 1:
            entry["deltaFromPaths"] = delta(arm_summaries["paths"], arm_summaries[treatments[0]])
        else:
            entry["deltasFromPaths"] = {t: delta(arm_summaries["paths"], arm_summaries[t]) for t in treatments}
        per_repository[repo_id] = entry
    included = [s for s in summaries.values() if s["paths"]["caseCount"]]
    repository_count = len(included)
    macros = {a: macro([s[a] for s in summaries.values()]) for a in arms}
    population: dict[str, object] = {}
    if len(treatments) == 1:
        population["population"] = "paths_and_treatment_available_intersection"
        population["treatment"] = treatments[0]
    else:
        population["population"] = "all_four_eligible_and_available_intersection"
    population["caseIds"] = [o.case.record.id for o in available]
    population["denominators"] = {
        "eligibleRepositoryCount": len({o.repository.id for o in eligible}),
        "availableRepositoryCount": repository_count,
        "eligibleCaseCount": len(eligible),
        "availableCaseCount": len(available),
    }
    population["perRepository"] = per_repository
    population["equalRepositoryMacro"] = {
        "repositoryCount": repository_count,
        "caseCount": sum(s["paths"]["caseCount"] for s in included),
        "arms": macros,
    }
    if len(treatments) == 1:
        population["deltaFromPaths"] = equal_delta(macros["paths"], macros[treatments[0]], repository_count)
    else:
        population["deltasFromPaths"] = {
            t: equal_delta(macros["paths"], macros[t], repository_count) for t in treatments
        }
    return population


def build_result(experiment: ValidatedExperiment, outcomes: Sequence[CaseOutcome]) -> dict[str, object]:
    """Assemble ``result`` exactly as SPEC §8.1 lists it (member order is output order).

    Args:
        experiment: the validated experiment.
        outcomes: :func:`evaluate_cases` of it.

    Returns:
        The result as nested dicts/lists of str, int, float, bool and None.

    Spec: SPEC.md §8 (shapes §8.1–§8.6), §7.
    """
    availability = {arm: availability_counts(outcomes, arm) for arm in ARMS}
    return {
        "protocol": PROTOCOL,
        "standingDecision": "REJECT_AUTOMATIC_SOURCE_LIST_ADOPTION",
        "rankingOwner": "pi-context-packer",
        "structuralEvidenceOrderSemantics": "none",
        "candidateUniversePolicy": "validated_raw_source_list_v1_artifact_shared_by_all_arms",
        "repositories": [_repository_result(repo) for repo in experiment.repositories],
        "cases": [_case_result(o) for o in outcomes],
        "availability": availability,
        "pairwise": {t: _population(experiment, outcomes, ("paths", t)) for t in TREATMENTS},
        "allFour": _population(experiment, outcomes, ARMS),
    }
