"""Mermaid ``xychart-beta`` charts of the review notes: only our labels ``r0``, ``r1``, …, arm names and numbers.

One chart per quantity and comparison (issue 22 item 7): precision on a 0–1
axis, unnecessary files per case on its own axis from 0. Each chart is a
horizontal bar chart with one bar per repository and arm, labelled
``r<k> <arm>`` (the two arms of a repository side by side), one named series
(the legend names the quantity) and an axis title naming it too; the title
is short enough for the chart's width. Mermaid draws several bar series of
one chart on top of each other (it has no grouped bars), so the arms are
told apart by their labels, not by overlapping colours; there are no lines,
which would suggest a trend between repositories. The tables stay the
authority; the charts round to 4 places.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

from ablation.notes.figures import _decimal, _Results
from ablation.rates import RepositoryRates
from ablation.result import TREATMENTS

Charted = Sequence[tuple[str, RepositoryRates, RepositoryRates | None]]  # (label, paths, treatment)
CHART_WIDTH = 760
_COLOUR = "#2f6db5"  # one dark blue series, legible on white (the default first colour is nearly white)


def _chart_labels(r: _Results) -> dict[str, str]:
    """``r0``, ``r1``, … for every repository id in ``result`` (its repositories first, in recorded order).

    Only these labels, arm names, our own numbers and fixed words enter a chart's syntax; the ids are
    shown, escaped, in the legend table (issue 12 item 4).
    """
    ids: list[str] = [repo.id for repo in r.repositories]
    for population in [*(r.result.pairwise.get(t) for t in TREATMENTS), r.result.all_four]:
        ids += [] if population is None else list(population.per_repository)
    labels: dict[str, str] = {}
    for repo_id in ids:
        labels.setdefault(repo_id, f"r{len(labels)}")
    return labels


def _chart_number(value: Fraction) -> str:
    """A value for a chart: :func:`_decimal` without its ``≈`` (the chart says it rounds)."""
    return _decimal(value).removeprefix("≈")


def _bars(treatment: str, charted: Charted, rate: Callable[[RepositoryRates], Fraction]) -> list[tuple[str, Fraction]]:
    """``(category, value)`` per repository and arm: ``r0 paths``, ``r0 <treatment>``, ``r1 paths``, …"""
    bars = []
    for label, paths, other in charted:
        bars.append((f"{label} paths", rate(paths)))
        if other is not None:
            bars.append((f"{label} {treatment}", rate(other)))
    return bars


def _chart(title: str, axis: str, series: str, bars: Sequence[tuple[str, Fraction]], top: int) -> list[str]:
    """One Mermaid horizontal bar chart: its front matter (size, legend, colour), title, axes and one series."""
    height = max(280, 120 + 36 * len(bars))
    categories = ", ".join(f'"{category}"' for category, _ in bars)
    values = ", ".join(_chart_number(value) for _, value in bars)
    return [
        "```mermaid",
        "---",
        "config:",
        "  xyChart:",
        f"    width: {CHART_WIDTH}",
        f"    height: {height}",
        "    showLegend: true",
        "  themeVariables:",
        "    xyChart:",
        f'      plotColorPalette: "{_COLOUR}"',
        "---",
        "xychart-beta horizontal",
        f'    title "{title}"',
        f'    x-axis "repository and arm" [{categories}]',
        f'    y-axis "{axis}" 0 --> {top}',
        f'    bar "{series}" [{values}]',
        "```",
    ]


def _charts(treatment: str, charted: Charted) -> list[str]:
    """The two charts of one comparison: precision (0–1), then unnecessary files per case (0 to its ceiling)."""
    precision = _bars(treatment, charted, lambda x: x.precision)
    unnecessary = _bars(treatment, charted, lambda x: x.unnecessary_per_case)
    top = max(1, math.ceil(max((v for _, v in unnecessary), default=Fraction(0))))
    return [
        f"Charts of paths vs `{treatment}` per repository (one bar per repository and arm, `r0 paths` being "
        "repository `r0` of the legend above under `paths`; values rounded to 4 places):",
        "",
        *_chart(f"Precision: paths vs {treatment}", "precision = hits / selected", "precision", precision, 1),
        "",
        *_chart(
            f"Unnecessary files per case: paths vs {treatment}",
            "unnecessary files per case",
            "unnecessary per case",
            unnecessary,
            top,
        ),
    ]
