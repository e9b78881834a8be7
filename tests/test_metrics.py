"""``metrics``: the per-repository delta (SPEC §7.4) where the worked examples do not reach.

The summaries, populations and the equal-repository macro are pinned on the
worked examples in ``test_result.py``; these pin what mutation testing found
free to change.
"""

from __future__ import annotations

from ablation.metrics import Summary, delta


def test_delta_reduction_rate_is_null_when_paths_has_no_unnecessary_item() -> None:
    paths: Summary = {
        "caseCount": 2,
        "macroPrecision": 1.0,
        "macroRecall": 0.5,
        "unnecessary": 0,
        "unnecessaryPerCase": 0.0,
        "omissions": 1,
        "omissionsPerCase": 0.5,
    }
    treatment: Summary = {
        "caseCount": 2,
        "macroPrecision": 0.5,
        "macroRecall": 1.0,
        "unnecessary": 2,
        "unnecessaryPerCase": 1.0,
        "omissions": 0,
        "omissionsPerCase": 0.0,
    }
    assert delta(paths, treatment) == {
        "macroPrecision": -0.5,
        "macroRecall": 0.5,
        "unnecessary": 2,
        "unnecessaryReductionRate": None,
        "omissions": -1,
        "unnecessaryPerCase": 1.0,
        "omissionsPerCase": -0.5,
    }
    reversed_delta = delta(treatment, paths)
    assert reversed_delta is not None
    assert reversed_delta["unnecessaryReductionRate"] == 1.0
    assert delta(Summary(**(paths | {"caseCount": 0})), treatment) is None
