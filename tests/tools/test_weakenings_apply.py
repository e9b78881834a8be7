"""Every weakening of ``tools/weakenings.py`` still names text that is in the source, once.

A refactor that moves or reformats a rule check would otherwise turn the
issue-14 weakenings into no-ops silently: ``tools/weakenings.py`` then says
STALE, and this test fails first, in ``make test``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_SPEC = importlib.util.spec_from_file_location("weakenings", ROOT / "tools" / "weakenings.py")
assert _SPEC is not None and _SPEC.loader is not None
weakenings = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(weakenings)


@pytest.mark.parametrize(("name", "rel", "old", "new"), weakenings.W, ids=[w[0] for w in weakenings.W])
def test_the_weakened_text_is_in_the_source_once(name: str, rel: str, old: str, new: str) -> None:
    text = (ROOT / rel).read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{name}: {old!r} is not found once in {rel}"
    assert old != new
