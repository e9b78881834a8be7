"""The ASM and FRZ rules: a table each in docs/reference/prepare-rules.md, the same IDs in the code, a test for each.

Spec: issue 21 ("add ASM-n and FRZ-n tables in the same style": ID, condition, where, message).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "reference" / "prepare-rules.md"


def _documented(family: str) -> list[str]:
    row = re.compile(rf"^\| ({family}-\d+) \| (.+?) \| (.+?) \| (.+) \|$", re.MULTILINE)
    return [m.group(1) for m in row.finditer(DOC.read_text(encoding="utf-8"))]


@pytest.mark.parametrize(("family", "count"), [("ASM", 11), ("FRZ", 11)])
def test_the_table_numbers_the_rules_without_gaps(family: str, count: int) -> None:
    assert _documented(family) == [f"{family}-{n}" for n in range(1, count + 1)]


@pytest.mark.parametrize("family", ["ASM", "FRZ"])
def test_the_code_uses_exactly_the_documented_rules(family: str) -> None:
    in_code = re.compile(rf"\"({family}-\d+)\"")
    used = {m for p in (ROOT / "ablation" / "prepare").glob("*.py") for m in in_code.findall(p.read_text("utf-8"))}
    assert used == set(_documented(family))


@pytest.mark.parametrize("family", ["ASM", "FRZ"])
def test_every_rule_is_pinned_by_a_test(family: str) -> None:
    """A test named after the rule (``test_ASM_7_…``), or a whole expected message ``"ASM-7 at …"`` in one."""
    here = Path(__file__)
    files = [
        p
        for pattern in ("test_assemble_*.py", "test_freeze_*.py", "test_chain_*.py")
        for p in here.parent.glob(pattern)
        if p != here
    ]
    text = "\n".join(p.read_text(encoding="utf-8") for p in files)
    named = {m.replace("_", "-") for m in re.findall(rf"def test_({family}_\d+)_", text)}
    named |= set(re.findall(rf"\"({family}-\d+) at ", text))
    assert set(_documented(family)) - named == set()
