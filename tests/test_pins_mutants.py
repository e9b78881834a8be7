"""Tests that kill survivors of ``make mutate`` in the value modules (canonical, metrics, selection, …).

Each test names the behaviour it pins; the mutants they kill are listed in the
report (build/mutation/report.md) of the run before they were added.
"""

from __future__ import annotations

import pytest

from ablation.canonical import js_number

# ---------------------------------------------------------------- canonical.js_number (SPEC §9.1)


@pytest.mark.parametrize(
    ("value", "text"),
    [(1.5e-7, "1.5e-7"), (2.5e22, "2.5e+22"), (-1.5e-7, "-1.5e-7"), (1.25e-7, "1.25e-7"), (3e-7, "3e-7")],
)
def test_js_number_exponent_form_with_two_significant_digits(value: float, text: str) -> None:
    """k = 2 digits still get a decimal point in exponent form (k > 1, not k > 2)."""
    assert js_number(value) == text


# ---------------------------------------------------------------- metrics.delta (SPEC §7.4)


def test_delta_reduction_rate_is_null_when_paths_has_no_unnecessary_item() -> None:
    from ablation.metrics import delta

    paths = {"caseCount": 2, "macroPrecision": 1.0, "macroRecall": 0.5, "unnecessary": 0, "unnecessaryPerCase": 0.0,
             "omissions": 1, "omissionsPerCase": 0.5}  # fmt: skip
    treatment = {"caseCount": 2, "macroPrecision": 0.5, "macroRecall": 1.0, "unnecessary": 2, "unnecessaryPerCase": 1.0,
                 "omissions": 0, "omissionsPerCase": 0.0}  # fmt: skip
    assert delta(paths, treatment) == {
        "macroPrecision": -0.5, "macroRecall": 0.5, "unnecessary": 2, "unnecessaryReductionRate": None,
        "omissions": -1, "unnecessaryPerCase": 1.0, "omissionsPerCase": -0.5,
    }  # fmt: skip
    assert delta(treatment, paths)["unnecessaryReductionRate"] == 1.0  # type: ignore[index]
    assert delta(paths | {"caseCount": 0}, treatment) is None
