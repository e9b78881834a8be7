"""Metrics after selection: per case, per case list, per repository, equal-repository macro.

Every non-integer value is an IEEE double computed exactly as SPEC §7.1 says
(one correctly rounded ``int / int`` division; means are left-to-right sums
from 0 divided by the count; differences are single subtractions) so that the
bits match the reference. Exact arithmetic for decisions lives in
:mod:`ablation.gates`, never here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypedDict

__all__ = [
    "CaseMetrics",
    "Summary",
    "case_metrics",
    "delta",
    "equal_delta",
    "js_mean",
    "macro",
    "member_order",
    "summary",
]

_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
_MAX_ARRAY_INDEX = 4_294_967_294


@dataclass(frozen=True, slots=True)
class CaseMetrics:
    """Per-case metrics of one available arm (SPEC §7.2).

    Attributes:
        selected: selected paths in selection order.
        hits: selected paths that are in truth.
        unnecessary: selected paths not in truth, in selection order.
        omitted_truth: truth paths not selected, in truth input order.
    """

    selected: tuple[str, ...]
    hits: int
    unnecessary: tuple[str, ...]
    omitted_truth: tuple[str, ...]
    truth_count: int

    @property
    def precision(self) -> float:
        """hits / number selected (never a zero denominator)."""
        return self.hits / len(self.selected)

    @property
    def recall(self) -> float:
        """hits / number of truth paths (never a zero denominator)."""
        return self.hits / self.truth_count

    def to_json(self) -> dict[str, object]:
        """The ``Metrics`` object of SPEC §8.3, members in order."""
        return {
            "selected": list(self.selected),
            "hits": self.hits,
            "precision": self.precision,
            "recall": self.recall,
            "unnecessary": list(self.unnecessary),
            "omittedTruth": list(self.omitted_truth),
        }


def case_metrics(selected: Sequence[str], truth: Sequence[str]) -> CaseMetrics:
    """Compute SPEC §7.2 metrics; ``truth`` enters here, after selection, and nowhere earlier."""
    truth_set = set(truth)
    chosen = set(selected)
    return CaseMetrics(
        selected=tuple(selected),
        hits=sum(1 for p in selected if p in truth_set),
        unnecessary=tuple(p for p in selected if p not in truth_set),
        omitted_truth=tuple(p for p in truth if p not in chosen),
        truth_count=len(truth),
    )


def js_mean(values: Sequence[float]) -> float | None:
    """Left-to-right IEEE sum from 0, divided by the count; ``None`` for no values (SPEC §7.1).

    Not ``sum()`` (compensated since Python 3.12), ``math.fsum`` or ``statistics``.

    >>> js_mean([0.1, 0.2, 0.3]) == (0.1 + 0.2 + 0.3) / 3
    True
    """
    if not values:
        return None
    total = 0.0
    for value in values:
        total += value
    return total / len(values)


class Summary(TypedDict):
    """``Summary`` of a case list for one arm (SPEC §7.3); the means are ``None`` for no case."""

    caseCount: int
    macroPrecision: float | None
    macroRecall: float | None
    unnecessary: int
    unnecessaryPerCase: float | None
    omissions: int
    omissionsPerCase: float | None


def summary(metrics: Sequence[CaseMetrics]) -> Summary:
    """``Summary`` of a case list for one arm (SPEC §7.3), members in §8.5 order."""
    n = len(metrics)
    unnecessary = sum(len(m.unnecessary) for m in metrics)
    omissions = sum(len(m.omitted_truth) for m in metrics)
    return {
        "caseCount": n,
        "macroPrecision": js_mean([m.precision for m in metrics]),
        "macroRecall": js_mean([m.recall for m in metrics]),
        "unnecessary": unnecessary,
        "unnecessaryPerCase": unnecessary / n if n else None,
        "omissions": omissions,
        "omissionsPerCase": omissions / n if n else None,
    }


def delta(paths: Summary, treatment: Summary) -> dict[str, object] | None:
    """Per-repository ``Delta`` treatment − paths (SPEC §7.4); ``None`` for an empty case list."""
    if not paths["caseCount"]:
        return None
    p_unnecessary = paths["unnecessary"]
    t_unnecessary = treatment["unnecessary"]
    assert isinstance(p_unnecessary, int) and isinstance(t_unnecessary, int)
    return {
        "macroPrecision": treatment["macroPrecision"] - paths["macroPrecision"],  # type: ignore[operator]  # caseCount > 0: a float
        "macroRecall": treatment["macroRecall"] - paths["macroRecall"],  # type: ignore[operator]  # caseCount > 0: a float
        "unnecessary": t_unnecessary - p_unnecessary,
        "unnecessaryReductionRate": (p_unnecessary - t_unnecessary) / p_unnecessary if p_unnecessary else None,
        "omissions": treatment["omissions"] - paths["omissions"],
        "unnecessaryPerCase": treatment["unnecessaryPerCase"] - paths["unnecessaryPerCase"],  # type: ignore[operator]  # caseCount > 0: a float
        "omissionsPerCase": treatment["omissionsPerCase"] - paths["omissionsPerCase"],  # type: ignore[operator]  # caseCount > 0: a float
    }


# The Summary members that are means, each with the Macro member it is averaged into.
_Mean = Literal["macroPrecision", "macroRecall", "unnecessaryPerCase", "omissionsPerCase"]
_MACRO_FROM: tuple[tuple[str, _Mean], ...] = (
    ("macroPrecision", "macroPrecision"),
    ("macroRecall", "macroRecall"),
    ("meanRepositoryUnnecessaryPerCase", "unnecessaryPerCase"),
    ("meanRepositoryOmissionsPerCase", "omissionsPerCase"),
)


def macro(summaries: Sequence[Summary]) -> dict[str, float | None]:
    """Equal-repository ``Macro`` over repository summaries with caseCount > 0, in the given order.

    Spec: SPEC.md §7.5 (every repository weighs the same).
    """
    included = [s for s in summaries if s["caseCount"]]
    return {name: js_mean([s[source] for s in included]) for name, source in _MACRO_FROM}  # type: ignore[misc]  # caseCount > 0: a float


def equal_delta(
    paths: dict[str, float | None], treatment: dict[str, float | None], repository_count: int
) -> dict[str, float] | None:
    """``EqualDelta`` treatment − paths, or ``None`` when no repository is included (§7.5)."""
    if repository_count == 0:
        return None
    return {name: treatment[name] - paths[name] for name, _ in _MACRO_FROM}  # type: ignore[operator]  # every member is set when repository_count > 0


def _is_array_index(name: str) -> bool:
    return _ARRAY_INDEX.fullmatch(name) is not None and int(name) <= _MAX_ARRAY_INDEX


def member_order(ids: Sequence[str]) -> list[str]:
    """ECMAScript object key order of ``perRepository`` (SPEC §7.7, §9.13).

    Canonical array-index names first in ascending numeric order, then the rest
    in declaration order.

    >>> member_order(["zeta", "10", "2", "01", "4294967295"])
    ['2', '10', 'zeta', '01', '4294967295']
    """
    indexes = sorted((name for name in ids if _is_array_index(name)), key=int)
    return indexes + [name for name in ids if not _is_array_index(name)]
