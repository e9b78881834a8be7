"""Every weakening of ``tools/weakenings.py`` still names text that is in the source, once, and a test file that exists.

A refactor that moves or reformats a rule check would otherwise turn the
weakenings into no-ops silently: ``tools/weakenings.py`` then says
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
def test_each_weakening_runs_its_family_file_and_the_member_pins(name: str) -> None:
    pins = weakenings.pins(name)
    family = ROOT / f"tests/rules/test_{name.split('-')[0].lower()}.py"
    members = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("tests/rules/test_members_*.py"))
    assert members
    assert pins == ([str(family.relative_to(ROOT))] if family.is_file() else []) + members
    assert all((ROOT / p).is_file() for p in pins)


def test_every_issue_14_weakening_names_an_existing_family_file() -> None:
    issue_14 = [name for name, *_ in weakenings.W[: weakenings.ISSUE_14_COUNT]]
    assert issue_14
    for name in issue_14:
        assert weakenings.pins(name)[0] == f"tests/rules/test_{name.split('-')[0].lower()}.py", name
