"""The PRE rules: one table in docs/reference/prepare-rules.md, the same IDs in the code, a test for each.

Spec: issue 19 ("rule IDs PRE-n … write them down in PREPARE.md's style: ID, condition, message").
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "reference" / "prepare-rules.md"
_ROW = re.compile(r"^\| (PRE-\d+) \| (.+?) \| (.+?) \| (.+) \|$", re.MULTILINE)
_IN_CODE = re.compile(r"\"(PRE-\d+)\"")


def _documented() -> list[str]:
    return [m.group(1) for m in _ROW.finditer(DOC.read_text(encoding="utf-8"))]


def test_the_table_numbers_the_rules_without_gaps() -> None:
    documented = _documented()
    assert documented == [f"PRE-{n}" for n in range(1, len(documented) + 1)]
    assert len(documented) >= 20


def test_the_code_uses_exactly_the_documented_rules() -> None:
    used = {m for p in (ROOT / "ablation" / "prepare").glob("*.py") for m in _IN_CODE.findall(p.read_text("utf-8"))}
    assert used == set(_documented())


def test_every_rule_has_a_test_named_after_it() -> None:
    tests = [*Path(__file__).parent.glob("test_prepare_*.py"), *Path(__file__).parent.glob("test_capture_*.py")]
    text = "\n".join(p.read_text(encoding="utf-8") for p in tests)
    named = {m.replace("_", "-") for m in re.findall(r"def test_(PRE_\d+)_", text)}
    named |= set(re.findall(r'id="(PRE-\d+)-', text))
    assert set(_documented()) - named == set()
