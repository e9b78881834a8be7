"""The examples in the docstrings of issue 22's modules run and hold (``doctest``)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "ablation.recorded.schema",
    "ablation.notes.markdown",
    "ablation.notes.figures",
    "ablation.bundle.report",
    "ablation.bundle.gzipstream",
    "ablation.bundle.keys",
    "ablation.gzipfile",
]


@pytest.mark.parametrize("module", MODULES)
def test_doctests(module: str) -> None:
    """The module's doctests pass (and it has some)."""
    failures, tried = doctest.testmod(importlib.import_module(module))
    assert failures == 0
    assert tried > 0 or module == "ablation.gzipfile"
