"""Mermaid ``xychart-beta`` charts of the review notes: only our labels ``r0``, ``r1``, … and numbers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from ablation.notes.figures import _decimal, _get, _Results, _shown
from ablation.rates import RepositoryRates
from ablation.result import TREATMENTS


def _chart_labels(r: _Results) -> dict[str, str]:
    """``r0``, ``r1``, … for every repository id in ``result`` (its repositories first, in recorded order).

    Only these labels, our own numbers and fixed words enter a chart's syntax; the ids are shown,
    escaped, in the legend table (issue 12 item 4).
    """
    ids: list[str] = [i for i in (repo.get("id") for repo in r.repositories) if isinstance(i, str)]
    for population in [*(_get(r.result, "pairwise", t) for t in TREATMENTS), r.result.get("allFour")]:
        per_repository = _get(population, "perRepository")
        ids += list(per_repository) if isinstance(per_repository, dict) else []
    labels: dict[str, str] = {}
    for repo_id in ids:
        labels.setdefault(repo_id, f"r{len(labels)}")
    return labels


def _chart_number(value: Fraction | None) -> str:
    """A value for a chart: :func:`_decimal` without its ``≈`` (the chart says it rounds)."""
    return _decimal(value).removeprefix("≈")


def _chart(treatment: str, charted: Sequence[tuple[str, RepositoryRates, RepositoryRates | None]]) -> list[str]:
    """One Mermaid ``xychart-beta`` of per-repository precision and unnecessary files per case.

    Four lines over the repositories' labels: precision of ``paths`` and of the
    treatment, then unnecessary per case of each. Values are the exact
    per-repository figures rounded to 4 places; the y axis runs from 0 to the
    next whole number above the largest (at least 1).
    """
    series: list[list[Fraction | None]] = [
        [c[1].precision for c in charted],
        [_shown(c[2])[0] for c in charted],
        [c[1].unnecessary_per_case for c in charted],
        [_shown(c[2])[2] for c in charted],
    ]
    largest = max((v for line in series for v in line if v is not None), default=Fraction(0))
    top = max(1, math.ceil(largest))
    return [
        f"Per repository at a glance (lines in order: 1 precision of `paths`, 2 precision of `{treatment}`, "
        f"3 unnecessary files per case of `paths`, 4 of `{treatment}`; values rounded to 4 places; labels as in "
        "the legend above):",
        "",
        "```mermaid",
        "xychart-beta",
        f'    title "paths vs {treatment}: precision (lines 1, 2) and unnecessary per case (lines 3, 4)"',
        f"    x-axis [{', '.join(c[0] for c in charted)}]",
        f'    y-axis "per repository" 0 --> {top}',
        *(f"    line [{', '.join(_chart_number(v) for v in line)}]" for line in series),
        "```",
    ]
