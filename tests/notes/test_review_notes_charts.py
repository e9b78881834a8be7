"""Issue 22 Why 7: one chart per quantity, on its own axis, bars per repository and arm, named, titled to fit.

Each ``paths vs <treatment>`` section has two Mermaid ``xychart-beta``
charts: precision on 0–1, then unnecessary files per case from 0 to the next
whole number above the largest. Every bar is a repository (labelled as in the
legend table) and an arm; every number equals the per-repository figure that
``result`` records for it, rounded to 4 places. No lines (no trend between
repositories), the legend on, one named series, axis titles naming the quantity.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from tests.notes.review_notes_made import captured, make_example, run_input, shared_input

TREATMENTS = ("source_list", "structural", "fusion")
_BAR = re.compile(r'    bar "([a-z ]+)" \[(.*)\]')
_X = re.compile(r'    x-axis "repository and arm" \[(.*)\]')
_Y = re.compile(r'    y-axis "([^"]+)" 0 --> (\d+)')
_TITLE = re.compile(r'    title "([^"]+)"')


def _results(name: str, tmp_path: Path) -> Path:
    if name == "example":
        return make_example(tmp_path)["results.json"]
    return run_input(tmp_path, shared_input(name), name)


def _charts(text: str, treatment: str) -> list[list[str]]:
    section = text.split(f"### paths vs `{treatment}`\n", 1)[1].split("\n### ", 1)[0]
    return [block.split("\n```", 1)[0].splitlines() for block in section.split("```mermaid\n")[1:]]


def _one(pattern: re.Pattern[str], lines: list[str]) -> re.Match[str]:
    (found,) = [m for m in map(pattern.fullmatch, lines) if m is not None]
    return found


@pytest.mark.parametrize("name", ["example", "realistic.json.gz", "realistic-structural.json.gz"])
def test_every_chart_number_is_the_recorded_figure(name: str, tmp_path: Path) -> None:
    """Every chart's structure and numbers against `result`."""
    results = _results(name, tmp_path)
    code, text, _ = captured("notes", "--results", results)
    assert code == 0
    result = json.loads(results.read_bytes())["result"]
    legend = text.split("| Chart label | Repository |\n|---|---|\n", 1)[1].split("\n\n", 1)[0].splitlines()
    labels = {re.findall(r"`([^`]+)`", row)[0]: re.findall(r"`([^`]+)`", row)[1] for row in legend}
    for treatment in TREATMENTS:
        per_repository = result["pairwise"][treatment]["perRepository"]
        shown = [r for r, entry in per_repository.items() if entry["caseCount"]]
        charts = _charts(text, treatment)
        if not shown:
            assert charts == []
            continue
        assert len(charts) == 2
        for lines, (quantity, member, axis) in zip(
            charts,
            (
                ("precision", "macroPrecision", "precision = hits / selected"),
                ("unnecessary per case", "unnecessaryPerCase", "unnecessary files per case"),
            ),
            strict=True,
        ):
            assert lines[:11] == [
                "---",
                "config:",
                "  xyChart:",
                "    width: 760",
                lines[4],
                "    showLegend: true",
                "  themeVariables:",
                "    xyChart:",
                '      plotColorPalette: "#2f6db5"',
                "---",
                "xychart-beta horizontal",
            ]
            assert not any(line.lstrip().startswith("line") for line in lines)
            title = _one(_TITLE, lines).group(1)
            assert len(title) <= 60 and title.endswith(f"paths vs {treatment}")
            categories = [c.strip('"') for c in _one(_X, lines).group(1).split(", ")]
            expected = [
                f"{label} {arm}" for label, repo in labels.items() if repo in shown for arm in ("paths", treatment)
            ]
            assert categories == expected
            series, values = _one(_BAR, lines).groups()
            assert series == quantity
            numbers = [float(v) for v in values.split(", ")]
            recorded = [per_repository[labels[c.split()[0]]]["arms"][c.split()[1]][member] for c in categories]
            assert numbers == [round(v, 4) for v in recorded]
            assert all(re.fullmatch(r"\d+(\.\d{1,4})?", v) for v in values.split(", "))
            y_title, top = _one(_Y, lines).groups()
            assert y_title == axis
            if quantity == "precision":
                assert top == "1"
            else:
                assert int(top) == max(1, math.ceil(max(recorded))) >= max(numbers)


def test_the_charts_say_what_they_show(tmp_path: Path) -> None:
    """The example's charts, line by line."""
    _, text, _ = captured("notes", "--results", _results("example", tmp_path))
    section = text.split("### paths vs `source_list`\n", 1)[1]
    assert section.startswith(
        "\nCharts of paths vs `source_list` per repository (one bar per repository and arm, `r0 paths` being "
        "repository `r0` of the legend above under `paths`; values rounded to 4 places):\n"
    )
    charts = _charts(text, "source_list")
    assert charts[0][11:] == [
        '    title "Precision: paths vs source_list"',
        '    x-axis "repository and arm" ["r0 paths", "r0 source_list", "r2 paths", "r2 source_list"]',
        '    y-axis "precision = hits / selected" 0 --> 1',
        '    bar "precision" [0.4267, 0.4467, 0.2667, 0.4667]',
    ]
    assert charts[1][11:] == [
        '    title "Unnecessary files per case: paths vs source_list"',
        '    x-axis "repository and arm" ["r0 paths", "r0 source_list", "r2 paths", "r2 source_list"]',
        '    y-axis "unnecessary files per case" 0 --> 3',
        '    bar "unnecessary per case" [2, 1.9, 2.2, 1.6]',
    ]
