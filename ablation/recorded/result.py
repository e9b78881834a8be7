"""The ``result`` object of a results file as typed records (SPEC §8; :mod:`ablation.result` writes it).

Every member ``ablation run`` writes has its field, in the order it is written
(SPEC §8.1–§8.6): :class:`Result` → :class:`Repository` (with its
:class:`StalenessSample`), :class:`Case` → :class:`Arm` → :class:`Metrics`,
:class:`Availability`, and the populations :class:`PairPopulation`
(``pairwise``) and :class:`AllFourPopulation` (``allFour``) with their
per-repository :class:`Summary` and :class:`Delta` values. Built by
:meth:`~ablation.recorded.schema.Record.from_json`; nothing here computes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ablation.recorded.schema import (
    COUNT,
    FLAG,
    INTEGER,
    JSON_OBJECT,
    NUMBER,
    TEXT,
    TEXTS,
    Record,
    array_of,
    member,
    nullable,
    object_of,
    record,
)

__all__ = [
    "AllFourPopulation",
    "Arm",
    "Availability",
    "Case",
    "Delta",
    "Denominators",
    "EqualDelta",
    "Macro",
    "MacroArm",
    "Metrics",
    "PairPopulation",
    "Repository",
    "Result",
    "StalenessSample",
    "Summary",
]

_NUMBER_OR_NULL = nullable(NUMBER)


@dataclass(frozen=True, slots=True)
class StalenessSample(Record):
    """``metadataStalenessSample`` of a repository (SPEC §8.2)."""

    commit: str = member("commit", TEXT)
    raw_artifact_sha256: str = member("rawArtifactSha256", TEXT)
    sample_digest: str = member("sampleDigest", TEXT)
    method: str = member("method", TEXT)
    sampled: int = member("sampled", COUNT)
    stale: int = member("stale", COUNT)
    stale_rate: float = member("staleRate", NUMBER)


@dataclass(frozen=True, slots=True)
class Repository(Record):
    """One element of ``result.repositories`` (SPEC §8.2)."""

    id: str = member("id", TEXT)
    commit: str = member("commit", TEXT)
    source_list_contract_version: str = member("sourceListContractVersion", TEXT)
    raw_source_list_artifact_sha256: str = member("rawSourceListArtifactSha256", TEXT)
    preparation_observation_digest: str = member("sourceListPreparationObservationDigest", TEXT)
    source_list_revision: str = member("sourceListRevision", TEXT)
    source_list_executable_sha256: str = member("sourceListExecutableArtifactSha256", TEXT)
    candidate_count: int = member("candidateCount", COUNT)
    tracked_path_count: int = member("trackedPathCount", COUNT)
    metadata_present_count: int = member("metadataPresentCount", COUNT)
    metadata_coverage: float = member("metadataCoverage", NUMBER)
    source_list_eligible: bool = member("sourceListEligible", FLAG)
    raw_evidence_retained: bool = member("rawEvidenceRetainedInPreparedInput", FLAG)
    staleness: StalenessSample = member("metadataStalenessSample", record(StalenessSample))


@dataclass(frozen=True, slots=True)
class Metrics(Record):
    """An available arm's ``metrics`` (SPEC §8.3): the selection and its counts against the truth."""

    selected: tuple[str, ...] = member("selected", TEXTS)
    hits: int = member("hits", COUNT)
    precision: float = member("precision", NUMBER)
    recall: float = member("recall", NUMBER)
    unnecessary: tuple[str, ...] = member("unnecessary", TEXTS)
    omitted_truth: tuple[str, ...] = member("omittedTruth", TEXTS)


@dataclass(frozen=True, slots=True)
class Arm(Record):
    """One arm of a case (SPEC §8.3): availability, failures and, when available, metrics."""

    eligible: bool = member("eligible", FLAG)
    available: bool = member("available", FLAG)
    failures: tuple[str, ...] = member("failures", TEXTS)
    max_items: int = member("maxItems", COUNT)
    candidate_count: int = member("candidateCount", COUNT)
    source_list_artifact_sha256: str = member("sourceListArtifactSha256", TEXT)
    metrics: Metrics | None = member("metrics", nullable(record(Metrics)))


@dataclass(frozen=True, slots=True)
class Case(Record):
    """One element of ``result.cases`` (SPEC §8.3); ``structuralEvidence`` kept as recorded (frozen)."""

    id: str = member("id", TEXT)
    repository_id: str = member("repositoryId", TEXT)
    repository_commit: str = member("repositoryCommit", TEXT)
    source_list_artifact_sha256: str = member("sourceListArtifactSha256", TEXT)
    question: str = member("question", TEXT)
    question_id: str = member("questionId", TEXT)
    intent_signature: str = member("intentSignature", TEXT)
    target_basis_digest: str = member("targetBasisDigest", TEXT)
    max_items: int = member("maxItems", COUNT)
    candidate_count: int = member("candidateCount", COUNT)
    arms: Mapping[str, Arm] = member("arms", object_of(record(Arm)))
    structural_evidence: Mapping[str, object] | None = member("structuralEvidence", nullable(JSON_OBJECT))


@dataclass(frozen=True, slots=True)
class Availability(Record):
    """Availability counts of one arm over all cases (SPEC §7.6)."""

    eligible: int = member("eligible", COUNT)
    available: int = member("available", COUNT)
    unavailable: int = member("unavailable", COUNT)


@dataclass(frozen=True, slots=True)
class Summary(Record):
    """``Summary`` of one arm over a repository's cases (SPEC §8.5); means are ``null`` without a case."""

    case_count: int = member("caseCount", COUNT)
    macro_precision: float | None = member("macroPrecision", _NUMBER_OR_NULL)
    macro_recall: float | None = member("macroRecall", _NUMBER_OR_NULL)
    unnecessary: int = member("unnecessary", COUNT)
    unnecessary_per_case: float | None = member("unnecessaryPerCase", _NUMBER_OR_NULL)
    omissions: int = member("omissions", COUNT)
    omissions_per_case: float | None = member("omissionsPerCase", _NUMBER_OR_NULL)


@dataclass(frozen=True, slots=True)
class Delta(Record):
    """``Delta`` treatment − paths over one repository's cases (SPEC §7.4)."""

    macro_precision: float = member("macroPrecision", NUMBER)
    macro_recall: float = member("macroRecall", NUMBER)
    unnecessary: int = member("unnecessary", INTEGER)
    unnecessary_reduction_rate: float | None = member("unnecessaryReductionRate", _NUMBER_OR_NULL)
    omissions: int = member("omissions", INTEGER)
    unnecessary_per_case: float = member("unnecessaryPerCase", NUMBER)
    omissions_per_case: float = member("omissionsPerCase", NUMBER)


@dataclass(frozen=True, slots=True)
class MacroArm(Record):
    """One arm's equal-repository means (SPEC §7.5); each ``null`` when no repository is included."""

    macro_precision: float | None = member("macroPrecision", _NUMBER_OR_NULL)
    macro_recall: float | None = member("macroRecall", _NUMBER_OR_NULL)
    unnecessary_per_case: float | None = member("meanRepositoryUnnecessaryPerCase", _NUMBER_OR_NULL)
    omissions_per_case: float | None = member("meanRepositoryOmissionsPerCase", _NUMBER_OR_NULL)


EqualDelta = MacroArm  # ``EqualDelta`` (treatment − paths) has the members of one arm's means


@dataclass(frozen=True, slots=True)
class Macro(Record):
    """``equalRepositoryMacro`` of a population (SPEC §7.5)."""

    repository_count: int = member("repositoryCount", COUNT)
    case_count: int = member("caseCount", COUNT)
    arms: Mapping[str, MacroArm] = member("arms", object_of(record(MacroArm)))


@dataclass(frozen=True, slots=True)
class Denominators(Record):
    """A population's denominators (SPEC §7.6)."""

    eligible_repository_count: int = member("eligibleRepositoryCount", COUNT)
    available_repository_count: int = member("availableRepositoryCount", COUNT)
    eligible_case_count: int = member("eligibleCaseCount", COUNT)
    available_case_count: int = member("availableCaseCount", COUNT)


@dataclass(frozen=True, slots=True)
class PairPerRepository(Record):
    """One repository of a pairwise population: its cases, each arm's summary, the treatment's delta."""

    case_ids: tuple[str, ...] = member("caseIds", TEXTS)
    case_count: int = member("caseCount", COUNT)
    arms: Mapping[str, Summary] = member("arms", object_of(record(Summary)))
    delta: Delta | None = member("deltaFromPaths", nullable(record(Delta)))


@dataclass(frozen=True, slots=True)
class AllFourPerRepository(Record):
    """One repository of the all-four population: its cases, each arm's summary, each treatment's delta."""

    case_ids: tuple[str, ...] = member("caseIds", TEXTS)
    case_count: int = member("caseCount", COUNT)
    arms: Mapping[str, Summary] = member("arms", object_of(record(Summary)))
    deltas: Mapping[str, Delta | None] = member("deltasFromPaths", object_of(nullable(record(Delta))))


@dataclass(frozen=True, slots=True)
class PairPopulation(Record):
    """``result.pairwise.<treatment>``: paths and one treatment, both available (SPEC §7.6, §8.4)."""

    population: str = member("population", TEXT)
    treatment: str = member("treatment", TEXT)
    case_ids: tuple[str, ...] = member("caseIds", TEXTS)
    denominators: Denominators = member("denominators", record(Denominators))
    per_repository: Mapping[str, PairPerRepository] = member("perRepository", object_of(record(PairPerRepository)))
    macro: Macro = member("equalRepositoryMacro", record(Macro))
    delta: EqualDelta | None = member("deltaFromPaths", nullable(record(EqualDelta)))


@dataclass(frozen=True, slots=True)
class AllFourPopulation(Record):
    """``result.allFour``: the cases where all four arms are available (SPEC §7.6, §8.4)."""

    population: str = member("population", TEXT)
    case_ids: tuple[str, ...] = member("caseIds", TEXTS)
    denominators: Denominators = member("denominators", record(Denominators))
    per_repository: Mapping[str, AllFourPerRepository] = member(
        "perRepository", object_of(record(AllFourPerRepository))
    )
    macro: Macro = member("equalRepositoryMacro", record(Macro))
    deltas: Mapping[str, EqualDelta | None] = member("deltasFromPaths", object_of(nullable(record(EqualDelta))))


@dataclass(frozen=True, slots=True)
class Result(Record):
    """The ``result`` object (SPEC §8.1), members in the order ``run`` writes them."""

    protocol: str = member("protocol", TEXT)
    standing_decision: str = member("standingDecision", TEXT)
    ranking_owner: str = member("rankingOwner", TEXT)
    structural_order_semantics: str = member("structuralEvidenceOrderSemantics", TEXT)
    candidate_universe_policy: str = member("candidateUniversePolicy", TEXT)
    repositories: tuple[Repository, ...] = member("repositories", array_of(record(Repository)))
    cases: tuple[Case, ...] = member("cases", array_of(record(Case)))
    availability: Mapping[str, Availability] = member("availability", object_of(record(Availability)))
    pairwise: Mapping[str, PairPopulation] = member("pairwise", object_of(record(PairPopulation)))
    all_four: AllFourPopulation = member("allFour", record(AllFourPopulation))
