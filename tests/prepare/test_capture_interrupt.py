"""Interruption and crash: SIGINT kills the owner's group and closes the attempt; ``kill -9`` leaves it open.

A capture whose only SCI case hangs runs in a child process. SIGINT during the
SCI run: the stand-in's group is killed, a failure entry (CAP-19) closes the
attempt, the files stay, and ``--resume`` refuses the step until ``--retry``.
``kill -9`` of a retry during the SCI run: the ledger holds the open attempt,
which ``--resume`` treats as failed, and ``--retry`` refuses while the open
attempt's process group is alive; once it is gone, ``--retry`` closes the open
attempt in the ledger and runs a new one.

Spec: PREPARE.md §4 ("Interruption"), §8 (Ctrl-C, crash); §11 criteria 27 and issue 20 "Crash safety".
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ablation.prepare import capture as capture_module
from ablation.prepare import capture_steps
from ablation.prepare.attempts import AttemptRun
from ablation.prepare.experiment_file import Repository
from tests.prepare.capfixtures import Made, assert_ledger_files_intact, capture, ends, ledger, standin_experiment
from tests.prepare.doubles.standin_runs import become_subreaper
from tests.prepare.prepfixtures import errors_of

ROOT = Path(__file__).resolve().parents[2]
_REASON = "see whether it hangs again"


def _start(made: Made, *extra: str) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "ablation.prepare", "capture", *[str(a) for a in made.args(*extra)]]
    return subprocess.Popen(
        argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _started(made: Made, attempt: int, proc: subprocess.Popen[str]) -> int:
    """Wait until the ledger says the SCI stand-in of ``attempt`` runs; its process group."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        path = made.dir / "attempts.jsonl"
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                entry = json.loads(line)
                if entry["entry"] == "started" and entry["spawn"] == "sci" and entry["attempt"] == attempt:
                    time.sleep(0.3)  # let the stand-in reach its sleep
                    return int(entry["pid"])
        time.sleep(0.05)
    raise AssertionError("the SCI stand-in never started")


def _alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="module")
def hanging(tmp_path_factory: pytest.TempPathFactory) -> Made:
    root = tmp_path_factory.mktemp("interrupt")
    return standin_experiment(root / "hang", sci="hang", sci_cases=1, process_timeout_s=4, timeout_ms=3000)


def test_CAP_19_sigint_kills_the_owners_group_and_closes_the_attempt(hanging: Made) -> None:
    proc = _start(hanging)
    pgid = _started(hanging, 1, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    folder = hanging.dir / "raw/cases/0000/attempt-1"
    line = (
        f"CAP-19 at {folder}: expected the run of sci to end by itself; found SIGINT reached capture; the process "
        "group was killed and capture stopped"
    )
    assert (proc.returncode, err.splitlines()[-1]) == (4, line)
    assert not _alive(pgid)
    spawn = next(e for e in ledger(hanging) if e["entry"] == "spawn" and e["spawn"] == "sci")
    assert (spawn["interrupted"], spawn["killed"], spawn["groupConfirmed"], spawn["exitCode"]) == (2, True, False, None)
    assert ends(hanging)[("case:0000:sci", 1)] | {"seq": 0} == {
        "seq": 0,
        "entry": "end",
        "step": "case:0000:sci",
        "attempt": 1,
        "outcome": "failed",
        "rule": "CAP-19",
        "message": line,
    }
    assert (folder / "stdout").is_file() and (folder / "request.json").is_file()
    assert_ledger_files_intact(hanging)
    ran = capture(hanging, "--resume")
    assert (ran.code, errors_of(ran)) == (
        4,
        [
            "CAP-7 at case:0000:sci: expected a usable attempt, or none yet: a failed or open step "
            "runs again only with "
            "--retry STEP --reason TEXT; found attempt 1 failed (CAP-19)"
        ],
    )


def test_kill_9_leaves_an_open_attempt_that_resume_treats_as_failed(hanging: Made) -> None:
    become_subreaper()  # the orphaned stand-in comes to this process, which reaps it below
    proc = _start(hanging, "--retry", "case:0000:sci", "--reason", _REASON)
    pgid = _started(hanging, 2, proc)
    proc.kill()
    proc.communicate(timeout=60)
    assert _alive(pgid)
    history = [e for e in ledger(hanging) if e.get("step") == "case:0000:sci" and e.get("attempt") == 2]
    assert [e["entry"] for e in history if e["entry"] in ("retry", "begin", "started", "end")] == [
        "retry",
        "begin",
        "started",
    ]
    ran = capture(hanging, "--resume")
    assert (ran.code, errors_of(ran)) == (
        4,
        [
            "CAP-7 at case:0000:sci: expected a usable attempt, or none yet: a failed or open step "
            "runs again only with "
            "--retry STEP --reason TEXT; found attempt 2 open (capture ended during it)"
        ],
    )
    ran = capture(hanging, "--retry", "case:0000:sci", "--reason", _REASON)
    assert (ran.code, errors_of(ran)) == (
        4,
        [
            f"CAP-7 at --retry case:0000:sci: expected no process of the step's open attempt left; found its open "
            f"attempt 2's process group {pgid} is alive (end it: kill -KILL -{pgid})"
        ],
    )
    os.killpg(pgid, signal.SIGKILL)
    while _alive(pgid):
        try:
            os.waitpid(-pgid, 0)
        except ChildProcessError:
            time.sleep(0.01)
    assert_ledger_files_intact(hanging)


def test_a_retry_closes_the_open_attempt_and_runs_a_new_one(hanging: Made) -> None:
    ran = capture(hanging, "--retry", "case:0000:sci", "--reason", _REASON)
    assert ran.code == 4
    assert errors_of(ran)[0].startswith(f"SB-1 at {hanging.dir}/raw/cases/0000/attempt-3/stdout: ")
    closed = ends(hanging)[("case:0000:sci", 2)]
    assert (closed["outcome"], closed["rule"], closed["message"]) == (
        "failed",
        "CAP-7",
        "CAP-7 at case:0000:sci: attempt 2 was open: capture ended during it",
    )
    assert ends(hanging)[("case:0000:sci", 3)]["rule"] == "SB-1"
    assert sorted(p.name for p in (hanging.dir / "raw/cases/0000").iterdir()) == ["attempt-1", "attempt-2", "attempt-3"]
    assert_ledger_files_intact(hanging)


def test_CAP_19_a_signal_between_steps_stops_capture_before_the_next_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = standin_experiment(tmp_path / "between", sci_cases=1)
    real = capture_steps.clone_step

    def clone_then_sigterm(attempt: AttemptRun, repo: Repository) -> str:
        summary = real(attempt, repo)
        os.kill(os.getpid(), signal.SIGTERM)  # no process runs now: capture notes it and goes on to the next step
        return summary

    monkeypatch.setattr(capture_module, "clone_step", clone_then_sigterm)
    ran = capture(made)
    assert (ran.code, errors_of(ran)) == (
        4,
        [
            "CAP-19 at repo:0000:source-list: expected no interruption; found SIGTERM reached capture; "
            "it stopped before "
            "this step"
        ],
    )
    assert ends(made)[("repo:0000:clone", 1)]["outcome"] == "succeeded"
    assert not [e for e in ledger(made) if e.get("step") == "repo:0000:source-list"]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
