"""Every weakening of ``tools/weakenings.py`` still names text that is in the source, once, and a test file that exists.

A refactor that moves or reformats a rule check would otherwise turn the
issue-14 weakenings into no-ops silently: ``tools/weakenings.py`` then says
STALE, and this test fails first, in ``make test``.
"""

from __future__ import annotations

import pytest

from tests.builders.paths import ROOT, load_tool

weakenings = load_tool("weakenings")


@pytest.mark.parametrize(("name", "rel", "old", "new"), weakenings.W, ids=[w[0] for w in weakenings.W])
def test_the_weakened_text_is_in_the_source_once(name: str, rel: str, old: str, new: str) -> None:
    text = (ROOT / rel).read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{name}: {old!r} is not found once in {rel}"
    assert old != new


@pytest.mark.parametrize("name", [w[0] for w in weakenings.W])
def test_each_weakening_runs_the_test_file_of_its_rule_family(name: str) -> None:
    pins = weakenings.pins(name)
    assert pins == f"tests/rules/test_{name.split('-')[0].lower()}.py"
    assert (ROOT / pins).is_file()
