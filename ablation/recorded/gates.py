"""``gateAssessment`` of a results file as typed records (PRODUCT.md "gateAssessment"; :mod:`ablation.gates`).

:class:`GateAssessment` holds its ten :class:`Gate` rows, G1 … G8 in order
(G4 in three parts), each with its ``measured`` object typed by gate
(:class:`EligibleRepositories`, :class:`CaseCohorts`, …). Exact quantities are
:class:`Quantity` records (``{"exact": "n/d", "value": float}``). What the
statuses should be is derived in :mod:`ablation.recorded.derive`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Self

from ablation.recorded.result import Availability
from ablation.recorded.schema import (
    COUNT,
    EXACT,
    FLAG,
    NUMBER,
    TEXT,
    TEXTS,
    Kind,
    Record,
    ShapeError,
    array_of,
    member,
    nullable,
    record,
)
from ablation.strictjson import child

__all__ = [
    "GATE_IDS",
    "Approximate",
    "CaseCohorts",
    "CaseCost",
    "CostDisclosure",
    "EligibleRepositories",
    "Gate",
    "GateAssessment",
    "IdenticalUniverses",
    "Measured",
    "NoMeasure",
    "OmissionDelta",
    "PrecisionDelta",
    "Quantity",
    "RepositoryCost",
    "Staleness",
    "StructuralSeparate",
    "UnnecessaryReduction",
]

GATE_IDS = ("G1", "G2", "G3", "G4a", "G4b", "G4c", "G5", "G6", "G7", "G8")
STATUSES = ("pass", "fail", "not_demonstrated", "requires_review")


def _one_of(values: tuple[str, ...]) -> Kind[str]:
    wanted = "one of " + ", ".join(f'"{v}"' for v in values)

    def check(value: object, where: str) -> str:
        if value not in values:
            raise ShapeError(where, value, wanted)
        assert isinstance(value, str)  # one of the strings
        return value

    return Kind(wanted, check)


def _null(value: object, where: str) -> None:
    if value is not None:
        raise ShapeError(where, value, "null")


STATUS = _one_of(STATUSES)


@dataclass(frozen=True, slots=True)
class Quantity(Record):
    """An exact quantity: ``exact`` (``n`` or ``n/d`` in lowest terms) and its double ``value``."""

    exact: str = member("exact", EXACT)
    value: float = member("value", NUMBER)

    @property
    def fraction(self) -> Fraction:
        """``exact`` as a :class:`~fractions.Fraction`."""
        return Fraction(self.exact)


QUANTITY = record(Quantity)
QUANTITY_OR_NULL = nullable(QUANTITY)


@dataclass(frozen=True, slots=True)
class Coverage(Record):
    """G1: one repository's metadata coverage and whether it reaches the threshold."""

    repository_id: str = member("repositoryId", TEXT)
    coverage: Quantity = member("coverage", QUANTITY)
    eligible: bool = member("eligible", FLAG)


@dataclass(frozen=True, slots=True)
class CoverageThreshold(Record):
    """G1's thresholds: eligible repositories needed, coverage needed."""

    repositories: int = member("repositories", COUNT)
    coverage: Quantity = member("coverage", QUANTITY)


@dataclass(frozen=True, slots=True)
class EligibleRepositories(Record):
    """G1 ``measured``."""

    eligible_count: int = member("eligibleRepositoryCount", COUNT)
    eligible_ids: tuple[str, ...] = member("eligibleRepositoryIds", TEXTS)
    coverage: tuple[Coverage, ...] = member("coverage", array_of(record(Coverage)))
    threshold: CoverageThreshold = member("threshold", record(CoverageThreshold))


@dataclass(frozen=True, slots=True)
class RepositoryCases(Record):
    """G2: one repository's case count."""

    repository_id: str = member("repositoryId", TEXT)
    case_count: int = member("caseCount", COUNT)


@dataclass(frozen=True, slots=True)
class CaseCohorts(Record):
    """G2 ``measured``."""

    cases_per_repository: tuple[RepositoryCases, ...] = member("casesPerRepository", array_of(record(RepositoryCases)))
    minimum: int = member("minimumCasesPerRepository", COUNT)


@dataclass(frozen=True, slots=True)
class IdenticalUniverses(Record):
    """G3 ``measured``."""

    case_count: int = member("caseCount", COUNT)
    arms_share_universe: bool = member("armsShareCandidateUniverse", FLAG)
    positive_max_items: bool = member("positiveMaxItems", FLAG)


@dataclass(frozen=True, slots=True)
class G4Population(Record):
    """G4's population: the repositories and cases where paths and source_list are both available."""

    repository_count: int = member("repositoryCount", COUNT)
    case_count: int = member("caseCount", COUNT)
    repository_ids: tuple[str, ...] = member("repositoryIds", TEXTS)


@dataclass(frozen=True, slots=True)
class PrecisionDelta(Record):
    """G4a ``measured``: equal-repository precision of paths and source_list, their delta, the threshold."""

    population: G4Population = member("population", record(G4Population))
    paths: Quantity | None = member("paths", QUANTITY_OR_NULL)
    source_list: Quantity | None = member("sourceList", QUANTITY_OR_NULL)
    delta: Quantity | None = member("delta", QUANTITY_OR_NULL)
    threshold: Quantity | None = member("threshold", QUANTITY, optional=True)

    @property
    def amount(self) -> Quantity | None:
        """The measured amount the gate compares (the delta)."""
        return self.delta


@dataclass(frozen=True, slots=True)
class UnnecessaryReduction(Record):
    """G4b ``measured``: equal-repository unnecessary per case of both arms, the reduction, the threshold."""

    population: G4Population = member("population", record(G4Population))
    paths: Quantity | None = member("paths", QUANTITY_OR_NULL)
    source_list: Quantity | None = member("sourceList", QUANTITY_OR_NULL)
    reduction: Quantity | None = member("reduction", QUANTITY_OR_NULL)
    threshold: Quantity | None = member("threshold", QUANTITY, optional=True)

    @property
    def amount(self) -> Quantity | None:
        """The measured amount the gate compares (the reduction)."""
        return self.reduction


@dataclass(frozen=True, slots=True)
class OmissionDelta(Record):
    """G4c ``measured``: equal-repository omissions per case of both arms and their delta."""

    population: G4Population = member("population", record(G4Population))
    paths: Quantity | None = member("paths", QUANTITY_OR_NULL)
    source_list: Quantity | None = member("sourceList", QUANTITY_OR_NULL)
    delta: Quantity | None = member("delta", QUANTITY_OR_NULL)

    @property
    def amount(self) -> Quantity | None:
        """The measured amount the gate compares (the delta)."""
        return self.delta


@dataclass(frozen=True, slots=True)
class StaleRate(Record):
    """G5: one repository's staleness sample as a rate."""

    repository_id: str = member("repositoryId", TEXT)
    sampled: int = member("sampled", COUNT)
    stale: int = member("stale", COUNT)
    stale_rate: Quantity = member("staleRate", QUANTITY)
    source_list_eligible: bool = member("sourceListEligible", FLAG)


@dataclass(frozen=True, slots=True)
class Staleness(Record):
    """G5 ``measured``."""

    repositories: tuple[StaleRate, ...] = member("repositories", array_of(record(StaleRate)))
    ineligible_controls: tuple[str, ...] = member("ineligibleControls", TEXTS)


@dataclass(frozen=True, slots=True)
class StructuralSeparate(Record):
    """G6 ``measured``: availability of the structural and fusion arms."""

    structural: Availability = member("structural", record(Availability))
    fusion: Availability = member("fusion", record(Availability))


@dataclass(frozen=True, slots=True)
class Approximate(Record):
    """G7: a size in UTF-8 bytes and its approximate tokens (bytes/4, rounded up); both ``null`` when unknown."""

    bytes: int | None = member("bytes", nullable(COUNT))
    approximate_tokens: int | None = member("approximateTokens", nullable(COUNT))


@dataclass(frozen=True, slots=True)
class RepositoryCost(Record):
    """G7: one repository's raw source-list text and git evidence sizes."""

    repository_id: str = member("repositoryId", TEXT)
    source_list_raw_bytes: Approximate = member("sourceListRawBytes", record(Approximate))
    git_evidence_bytes: Approximate = member("gitEvidenceBytes", record(Approximate))


@dataclass(frozen=True, slots=True)
class CaseCost(Record):
    """G7: one case's raw SCI receipt size."""

    case_id: str = member("caseId", TEXT)
    sci_receipt_raw_bytes: Approximate = member("sciReceiptRawBytes", record(Approximate))


@dataclass(frozen=True, slots=True)
class CostDisclosure(Record):
    """G7 ``measured``; ``latency`` is always ``null`` (not in a v2 input)."""

    repositories: tuple[RepositoryCost, ...] = member("repositories", array_of(record(RepositoryCost)))
    cases: tuple[CaseCost, ...] = member("cases", array_of(record(CaseCost)))
    latency: None = member("latency", Kind("null", _null))


@dataclass(frozen=True, slots=True)
class NoMeasure(Record):
    """G8 ``measured``: the empty object (the owner decision is not measured)."""


Measured = (
    EligibleRepositories
    | CaseCohorts
    | IdenticalUniverses
    | PrecisionDelta
    | UnnecessaryReduction
    | OmissionDelta
    | Staleness
    | StructuralSeparate
    | CostDisclosure
    | NoMeasure
)
_MEASURED: dict[str, Callable[[object, str], Any]] = {
    "G1": EligibleRepositories.from_json,
    "G2": CaseCohorts.from_json,
    "G3": IdenticalUniverses.from_json,
    "G4a": PrecisionDelta.from_json,
    "G4b": UnnecessaryReduction.from_json,
    "G4c": OmissionDelta.from_json,
    "G5": Staleness.from_json,
    "G6": StructuralSeparate.from_json,
    "G7": CostDisclosure.from_json,
    "G8": NoMeasure.from_json,
}


def _later(value: object, _where: str) -> object:
    """``measured`` is typed once the gate's id is known (:meth:`Gate.checked`)."""
    return value


@dataclass(frozen=True, slots=True)
class Gate(Record):
    """One row of ``gateAssessment.gates``; ``measured`` typed by the gate's id."""

    id: str = member("id", _one_of(GATE_IDS))
    name: str = member("name", TEXT)
    status: str = member("status", STATUS)
    numeric_status: str | None = member("numericStatus", nullable(STATUS))
    measured: Measured = member("measured", Kind("an object", _later))
    basis: str = member("basis", TEXT)

    def checked(self, where: str) -> Self:
        """This row with ``measured`` typed by its gate id.

        Raises:
            ShapeError: ``measured`` is not what ``run`` writes for that gate.
        """
        return dataclasses.replace(self, measured=_MEASURED[self.id](self.measured, child(where, "measured")))


def _gates_in_order(value: object, where: str) -> tuple[Gate, ...]:
    gates = array_of(record(Gate))(value, where)
    if tuple(g.id for g in gates) != GATE_IDS:
        listed = ", ".join(g.id for g in gates) or "none"
        detail = f"{where} lists the gates {listed}, not {', '.join(GATE_IDS)} in that order"
        raise ShapeError(where, value, "", detail)
    return gates


@dataclass(frozen=True, slots=True)
class GateAssessment(Record):
    """The ``gateAssessment`` object (PRODUCT.md), members in the order ``run`` writes them."""

    population: str = member("population", _one_of(("paths_and_treatment_available_intersection",)))
    treatment: str = member("treatment", _one_of(("source_list",)))
    gates: tuple[Gate, ...] = member("gates", Kind("an array", _gates_in_order))
    numeric_gates_passed: bool = member("numericGatesPassed", FLAG)
    automatic_adoption: bool = member("automaticAdoption", FLAG)

    def gate(self, gate_id: str) -> Gate:
        """The row of ``gate_id`` (one of :data:`GATE_IDS`)."""
        return self.gates[GATE_IDS.index(gate_id)]
