"""The CAP rules: one table in docs/reference/prepare-rules.md, the same IDs in the code, tests that pin each.

Spec: issue 20 ("add a CAP-n table … PREPARE's style: ID, condition, message").
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "reference" / "prepare-rules.md"
_ROW = re.compile(r"^\| (CAP-\d+) \| (.+?) \| (.+?) \| (.+) \|$", re.MULTILINE)
_IN_CODE = re.compile(r"\"(CAP-\d+)\"")


def _documented() -> list[str]:
    return [m.group(1) for m in _ROW.finditer(DOC.read_text(encoding="utf-8"))]


def test_the_table_numbers_the_rules_without_gaps() -> None:
    assert _documented() == [f"CAP-{n}" for n in range(1, 20)]


def test_the_code_uses_exactly_the_documented_rules() -> None:
    used = {m for p in (ROOT / "ablation" / "prepare").glob("*.py") for m in _IN_CODE.findall(p.read_text("utf-8"))}
    assert used == set(_documented())


def test_every_rule_is_pinned_by_a_capture_test() -> None:
    """A test named after the rule (``test_CAP_7_…``), or an exact expectation of the rule in a capture test."""
    text = "\n".join(
        p.read_text(encoding="utf-8")
        for p in Path(__file__).parent.glob("test_capture_*.py")
        if p.name != Path(__file__).name
    )
    named = {m.replace("_", "-") for m in re.findall(r"def test_(CAP_\d+)_", text)}
    expected = set(re.findall(r"\"(CAP-\d+)\"", text)) | set(re.findall(r"\"(CAP-\d+) at ", text))
    assert set(_documented()) - (named | expected) == set()
