"""The examples in the docstrings of the preparation modules hold."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize(
    "module",
    [
        "ablation.prepare.tomltext",
        "ablation.prepare.schema",
        "ablation.prepare.check_values",
        "ablation.prepare.gitread",
        "ablation.prepare.layout",
        "ablation.prepare.requests",
        "ablation.prepare.environment",
        "ablation.prepare.build",
        "ablation.prepare.build_case",
        "ablation.prepare.gates",
        "ablation.prepare.attempts",
    ],
)
def test_doctests(module: str) -> None:
    failures, tried = doctest.testmod(importlib.import_module(module))
    assert (failures, tried > 0) == (0, True)
