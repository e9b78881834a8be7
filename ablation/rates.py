"""Exact rates of an arm from the integer counts of its metrics, and their fraction text.

An arm's per-repository means (:func:`repository_rates`) and the
equal-repository means over repositories (:func:`equal_repository_rates`) are
:class:`fractions.Fraction` values built from integer counts, never from the
floats in ``result``; :func:`quantity` and :func:`exact_text` spell them.
Shared by :mod:`ablation.gates` (which decides with them) and
:mod:`ablation.notes` (which shows them) so both compute them one way
(preregistration "Metrics and populations"; PRODUCT.md "gateAssessment").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from ablation.metrics import CaseMetrics

__all__ = ["CaseCounts", "RepositoryRates", "equal_repository_rates", "exact_text", "quantity", "repository_rates"]


def quantity(value: Fraction | None) -> dict[str, object] | None:
    """``{"exact": "n/d", "value": float}`` in lowest terms, sign on the numerator.

    >>> quantity(Fraction(-2, 4))
    {'exact': '-1/2', 'value': -0.5}
    >>> quantity(Fraction(0))
    {'exact': '0', 'value': 0.0}
    """
    if value is None:
        return None
    return {"exact": exact_text(value), "value": float(value)}


def exact_text(value: Fraction) -> str:
    """A fraction as ``n`` or ``n/d`` in lowest terms, sign on the numerator (also used by ``notes``).

    >>> exact_text(Fraction(6, -4)), exact_text(Fraction(3))
    ('-3/2', '3')

    Raises:
        ValueError: a numerator or denominator with more digits than Python converts to text.
    """
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


@dataclass(frozen=True, slots=True)
class CaseCounts:
    """The integer counts of one arm's metrics on one case that exact rates are computed from (SPEC §7.2).

    Attributes:
        hits: selected paths that are in truth.
        selected: number of selected paths.
        unnecessary: number of selected paths not in truth.
        omitted: number of truth paths not selected.
    """

    hits: int
    selected: int
    unnecessary: int
    omitted: int

    @classmethod
    def of(cls, metrics: CaseMetrics) -> CaseCounts:
        """The counts of computed metrics."""
        return cls(metrics.hits, len(metrics.selected), len(metrics.unnecessary), len(metrics.omitted_truth))


@dataclass(frozen=True, slots=True)
class RepositoryRates:
    """Exact means of one arm over a repository's cases (also used by ``notes``), or over repositories.

    Attributes:
        cases: the number of cases (summed over the repositories for an equal-repository mean).
        precision: mean over cases of hits/selected (0 for a case that selected nothing).
        recall: mean over cases of hits/(hits + omitted) (0 for a case without truth).
        unnecessary_per_case: Σ unnecessary / case count.
        omissions_per_case: Σ omitted truth / case count.
    """

    cases: int
    precision: Fraction
    recall: Fraction
    unnecessary_per_case: Fraction
    omissions_per_case: Fraction


def _mean(values: Sequence[Fraction]) -> Fraction:
    return sum(values, Fraction(0)) / len(values)


def repository_rates(counts: Sequence[CaseCounts]) -> RepositoryRates:
    """Exact per-repository means of one arm from its cases' counts (preregistration "Metrics and populations").

    >>> repository_rates([CaseCounts(1, 2, 1, 1), CaseCounts(0, 1, 1, 2)])
    RepositoryRates(cases=2, precision=Fraction(1, 4), recall=Fraction(1, 4), \
unnecessary_per_case=Fraction(1, 1), omissions_per_case=Fraction(3, 2))

    Raises:
        ZeroDivisionError: no case.
    """
    n = len(counts)
    return RepositoryRates(
        cases=n,
        precision=_mean([Fraction(c.hits, c.selected) if c.selected else Fraction(0) for c in counts]),
        recall=_mean([Fraction(c.hits, c.hits + c.omitted) if c.hits + c.omitted else Fraction(0) for c in counts]),
        unnecessary_per_case=Fraction(sum(c.unnecessary for c in counts), n),
        omissions_per_case=Fraction(sum(c.omitted for c in counts), n),
    )


def equal_repository_rates(per_repository: Sequence[RepositoryRates]) -> RepositoryRates | None:
    """Equal-repository means of every rate, ``cases`` summed; ``None`` for no repository.

    Every repository weighs the same whatever its case count (preregistration
    "Metrics and populations").
    """
    if not per_repository:
        return None
    return RepositoryRates(
        cases=sum(r.cases for r in per_repository),
        precision=_mean([r.precision for r in per_repository]),
        recall=_mean([r.recall for r in per_repository]),
        unnecessary_per_case=_mean([r.unnecessary_per_case for r in per_repository]),
        omissions_per_case=_mean([r.omissions_per_case for r in per_repository]),
    )
