"""Every rule ID of SPEC §4 has at least one test named after it.

A test is named after a rule when its node id contains the rule ID as a
parametrize id (``[RCPT-28-…]``) or in its function name with ``_`` for
``-`` (``test_CASE_18_…``).
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.builders.paths import ROOT, SPEC

_RULE_ROW = re.compile(r"^\| ((?:TOP|REPO|SL|PREP|GIT|STALE|CASE|SB|REQ|RCPT|OBS)-[0-9]+) \|", re.MULTILINE)


@pytest.mark.skipif(not SPEC.is_file(), reason=f"SPEC.md not found at {SPEC}")
def test_every_rule_id_has_a_named_test() -> None:
    rules = sorted(set(_RULE_ROW.findall(SPEC.read_text(encoding="utf-8"))))
    assert len(rules) > 200
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-o", "addopts=", "-q", "-p", "no:cacheprovider", "tests"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    names = [line.replace("_", "-") for line in proc.stdout.splitlines() if "::" in line]
    missing = [
        rule
        for rule in rules
        if not any(f"{rule}-" in name or f"{rule}]" in name or f"[{rule}" in name for name in names)
    ]
    assert missing == []
