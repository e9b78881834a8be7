"""A preparation with a retried step, assembled with ``--supersedes``: nothing hidden, nothing changed.

The SCI owner of this experiment fails once (a test-only launcher that exits 3 the
first time, then runs the stand-in): capture stops, ``--retry case:0000:sci`` runs
attempt 2 (reusing the byte-identical request file), and ``assemble`` builds the case
from attempt 2. A file left in the failed attempt's folder that the ledger does not
record (what a crash of capture would leave) is accepted there and listed. With
``--supersedes OLD_D`` (the session's earlier preparation), every attempt of OLD_D
goes into the record and onto the pre-run sheet with the SHA-256 of its ledger and
experiment copy, and OLD_D is unchanged, listing and hashes.

Spec: PREPARE.md §6 item 2, §8 "A changed experiment"; §11 criteria 13, 18, 25.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from tests.prepare.capfixtures import Made, capture, ledger, listing, standin_experiment, write_review
from tests.prepare.chainfixtures import staleness_review
from tests.prepare.doubles import standins
from tests.prepare.prepfixtures import Ran, dump_toml, errors_of, pin_table, run_prepare

REASON = "the exporter failed once; nothing in the target changed"
_FLAKY = """#!/usr/bin/env python3
# A test-only SCI that fails the first time (exit 3, nothing on stdout), then runs the stand-in with its argv.
import os
import sys

flag = {flag!r}
if not os.path.exists(flag):
    open(flag, "w").close()
    sys.exit(3)
os.execv({sci!r}, [{sci!r}, *sys.argv[1:]])
"""


@pytest.fixture(scope="module")
def retried(captured_base: Made, tmp_path_factory: pytest.TempPathFactory) -> tuple[Made, Ran, dict[str, Any]]:
    root = tmp_path_factory.mktemp("retried")
    made = standin_experiment(root / "experiment", sci_cases=2)
    flaky = root / "tools" / "flaky-sci.py"
    flaky.parent.mkdir()
    flaky.write_text(_FLAKY.format(flag=str(root / "failed-once"), sci=str(standins.SCI)), encoding="utf-8")
    flaky.chmod(0o755)
    made.doc["tools"]["sci"] |= pin_table(flaky) | {"extra_pins": [pin_table(standins.SCI)]}
    made.experiment.write_text(dump_toml(made.doc), encoding="utf-8")
    write_review(made)
    first = capture(made)
    assert first.code == 4 and errors_of(first)[0].startswith("SB-1 at "), first.err
    retry = capture(made, "--retry", "case:0000:sci", "--reason", REASON)
    assert retry.code == 0, retry.err
    (made.dir / "raw/cases/0000/attempt-1/left-by-a-crash.txt").write_text("x\n", encoding="utf-8")
    review = root / "staleness-review.toml"
    review.write_text(staleness_review(made.dir), encoding="utf-8")
    old = captured_base.dir
    before = listing(old)
    ran = run_prepare("assemble", "--dir", made.dir, "--staleness-review", review, "--supersedes", old)
    assert listing(old) == before
    return made, ran, json.loads((made.dir / "preparation-record.json").read_bytes()) if ran.code == 0 else {}


def test_assemble_uses_the_usable_attempt_and_lists_the_failed_one(retried: tuple[Made, Ran, dict[str, Any]]) -> None:
    made, ran, record = retried
    assert (ran.code, errors_of(ran)) == (0, [])
    case = record["cases"][0]
    assert (case["attempt"]["folder"], case["attempt"]["outcome"], case["structuralAvailable"]) == (
        "raw/cases/0000/attempt-2",
        "succeeded",
        True,
    )
    assert record["retries"] == [{"step": "case:0000:sci", "attempt": 2, "reason": REASON}]
    [failed] = record["failedAttempts"]
    assert (failed["step"], failed["attempt"], failed["outcome"], failed["rule"]) == (
        "case:0000:sci",
        1,
        "failed",
        "SB-1",
    )
    assert [(r["step"], r["attempt"], r["reused"]) for r in record["requestFiles"]] == [
        ("case:0000:sci", 1, False),
        ("case:0000:sci", 2, True),
        ("case:0001:sci", 1, False),
    ]
    assert record["unrecordedFiles"] == ["raw/cases/0000/attempt-1/left-by-a-crash.txt"]
    step = next(s for s in record["steps"] if s["step"] == "case:0000:sci")
    assert [(a["attempt"], a["outcome"], a["usable"]) for a in step["attempts"]] == [
        (1, "failed", False),
        (2, "succeeded", True),
    ]
    assert [e["allowUnavailableStructural"] for e in ledger(made) if e["entry"] == "capture"] == [[], []]


def test_the_superseded_preparation_is_in_the_record_and_on_the_sheet(
    retried: tuple[Made, Ran, dict[str, Any]], captured_base: Made
) -> None:
    made, _, record = retried
    old = captured_base.dir
    superseded = record["superseded"]
    attempts = [(e["step"], e["attempt"], e["outcome"]) for e in ledger(captured_base) if e["entry"] == "end"]
    assert superseded["dir"] == str(old)
    assert superseded["ledgerSha256"] == hashlib.sha256((old / "attempts.jsonl").read_bytes()).hexdigest()
    assert superseded["experimentSha256"] == hashlib.sha256((old / "experiment.toml").read_bytes()).hexdigest()
    assert [(a["step"], a["attempt"], a["outcome"]) for a in superseded["attempts"]] == attempts
    sheet = (made.dir / "pre-run-sheet.md").read_text(encoding="utf-8")
    section = sheet.split("## Superseded preparation\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert (
        section[0] == f"- `{old}`: ledger `{superseded['ledgerSha256']}`, experiment `{superseded['experimentSha256']}`"
    )
    assert len(section) == 1 + len(attempts)
    assert "## Retries\n\n- case:0000:sci attempt 2: the exporter failed once; nothing in the target changed\n" in sheet
    assert "## Failed and open attempts\n\n- case:0000:sci attempt 1: failed SB-1\n" in sheet
    assert "## Request files reused\n\n- case:0000:sci attempt 2: " in sheet
    assert (
        "## Files of failed attempts the ledger does not record\n\n- `raw/cases/0000/attempt-1/left-by-a-crash.txt`"
        in sheet
    )
