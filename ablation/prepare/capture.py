"""``ablation-prepare capture``: run the pinned owners once, observe everything, lose nothing.

After every refusal (:mod:`ablation.prepare.capture_setup`), a new preparation
copies the experiment file and the cases review into D and starts the ledger;
a resumed one opens the ledger for appending. Each invocation appends a
``capture`` entry (its choices, the tools as hashed now). Then the steps run in
order (:func:`~ablation.prepare.capture_setup.plan_steps`):

1. ``tool:<key>:version`` for each tool with ``record_version = true``;
2. per repository ``repo:<nnn>:clone``, then ``repo:<nnn>:source-list`` with all its gates;
3. once every repository passed: ``staleness-sheet.md``;
4. ``case:<nnn>:sci`` for each case with ``[case.sci]``.

A step with a usable attempt is skipped; every other step runs one attempt.
A failed attempt stops ``capture`` (exit 4, or 3 for a tool whose bytes changed),
its files and ledger entries kept. An SCI bundle failure of a case that
``--allow-unavailable-structural`` names ends the attempt ``unavailable`` and
``capture`` goes on. SIGINT or SIGTERM kills the running process group, closes
the attempt as failed (CAP-19) and stops. Nothing under D or ``work_root`` is
deleted, except the per-invocation HOME, TMPDIR and cwd folders that were empty.

Spec: PREPARE.md §4, §5, §8.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import os
import signal
from collections.abc import Callable

from ablation.closure import check as closure_check
from ablation.contracts.base import Reporter
from ablation.contracts.source_list import validate_source_list_artifact
from ablation.errors import OutputRefused
from ablation.identity import version_text
from ablation.prepare import spawn
from ablation.prepare.attempts import AttemptRun, Session, StepFailed, write_new
from ablation.prepare.build import read_repository_attempt, source_list_artifact
from ablation.prepare.capture_sci import sci_step
from ablation.prepare.capture_setup import EXPERIMENT_COPY, REVIEW_COPY, Invocation, Step, prepare_invocation
from ablation.prepare.capture_steps import clone_step, source_list_step, tool_version_step
from ablation.prepare.findings import EXIT_INTEGRITY, Finding, PrepareRejected
from ablation.prepare.ledger import LEDGER_NAME, Ledger, StepHistory
from ablation.prepare.pins import read_file_state, rehash_tools
from ablation.prepare.staleness import SHEET_NAME, pick_sample, render_staleness_sheet

__all__ = ["run_capture"]


def _file_record(path: str) -> dict[str, object]:
    state = read_file_state(path)
    return {"path": path, "realpath": state.realpath, "size": state.size, "sha256": state.sha256}


def _tools_record(invocation: Invocation) -> dict[str, object]:
    found: dict[str, object] = {}
    for key, tool in invocation.experiment.tools.items():
        entry = _file_record(tool.path)
        if tool.extra_pins:
            entry["extraPins"] = [_file_record(extra.path) for extra in tool.extra_pins]
        if key in invocation.revisions:
            entry["revision"] = invocation.revisions[key]
        found[key] = entry
    return found


def _open_ledger(invocation: Invocation) -> Ledger:
    """A new preparation: D made, both copies written, the ledger created; else the ledger opened.

    Raises:
        OutputRefused: another ``capture`` holds the ledger (exit 5).
    """
    folder = invocation.dir
    path = os.path.join(folder, LEDGER_NAME)
    if invocation.ledger is None:
        os.makedirs(folder, exist_ok=True)
        try:
            write_new(os.path.join(folder, EXPERIMENT_COPY), invocation.experiment_bytes)
            write_new(os.path.join(folder, REVIEW_COPY), invocation.review_bytes)
            ledger = Ledger(path, create=True)
        except FileExistsError:
            raise OutputRefused(f"{folder!r} was filled meanwhile (another capture?)") from None
    else:
        ledger = Ledger(path, next_seq=len(invocation.ledger.entries) + 1)
    try:
        fcntl.flock(ledger.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        ledger.close()
        raise OutputRefused(f"another capture is writing {path!r}; wait for it to end") from None
    return ledger


def _start(invocation: Invocation, args: argparse.Namespace, ledger: Ledger) -> None:
    invocations = len(invocation.ledger.captures()) + 1 if invocation.ledger is not None else 1
    ledger.append(
        "capture",
        invocation=invocations,
        prepare=version_text("ablation-prepare"),
        experimentSha256=invocation.experiment.sha256,
        casesReviewSha256=invocation.review.sha256,
        fileAccess="traced" if args.file_access_trace else "asserted",
        allowUnavailableStructural=list(args.allow_unavailable_structural),
        resume=bool(args.resume),
        retry=args.retry,
        workRoot=invocation.experiment.work_root,
        tools=_tools_record(invocation),
    )
    if invocation.ledger is None:
        for name, data in ((EXPERIMENT_COPY, invocation.experiment_bytes), (REVIEW_COPY, invocation.review_bytes)):
            sha = hashlib.sha256(data).hexdigest()
            ledger.append("file", step=None, attempt=None, file=name, bytes=len(data), sha256=sha)


class _Run:
    """The steps of one invocation: which ran, the universes found, the sheet."""

    def __init__(self, session: Session, invocation: Invocation, args: argparse.Namespace) -> None:
        self.session = session
        self.invocation = invocation
        self.retry: str | None = args.retry
        self.reason: str | None = args.reason
        self.items: dict[int, frozenset[str]] = {}
        self.usable: dict[str, str] = {}  # step id -> folder of its usable attempt, made by this invocation
        self.counts = {"run": 0, "skipped": 0, "unavailable": 0}

    def history(self, step: Step) -> StepHistory:
        view = self.invocation.ledger
        return view.history(step.id) if view is not None else StepHistory(step.id)

    def _attempt_body(self, step: Step, attempt: AttemptRun) -> str:
        experiment = self.session.experiment
        if step.kind == "tool-version":
            return tool_version_step(attempt, str(step.subject))
        if step.kind == "clone":
            return clone_step(attempt, experiment.repositories[int(step.subject)])
        if step.kind == "source-list":
            repo = experiment.repositories[int(step.subject)]
            universe = source_list_step(attempt, repo)
            self.items[repo.index] = frozenset(universe.paths)
            return f"{universe.item_count} items, {universe.present_count} metadata-present"
        case = experiment.cases[int(step.subject)]
        owner = experiment.repository(case.repository)
        assert owner is not None  # check passed: CASE-4
        return sci_step(attempt, case, owner, self.item_paths(owner.index))

    def usable_folder(self, step: Step) -> str:
        """The folder of the step's usable attempt, absolute (the step has one)."""
        folder = self.usable.get(step.id)
        if folder is None:
            usable = self.history(step).usable
            assert usable is not None
            folder = usable.folder
        return os.path.join(self.session.dir, folder)

    def item_paths(self, r: int) -> frozenset[str]:
        """The item paths of repository ``r``, from its usable source-list attempt."""
        if r not in self.items:
            step = next(s for s in self.invocation.steps if s.kind == "source-list" and s.subject == r)
            capture = read_repository_attempt(self.usable_folder(step))
            checked = validate_source_list_artifact(source_list_artifact(capture.stdout), "/", Reporter())
            assert checked is not None
            self.items[r] = frozenset(checked.universe.paths)
        return self.items[r]

    def tools_of(self, step: Step) -> tuple[str, ...]:
        """The ``[tools.*]`` keys a step runs (their pins are checked before its attempt begins)."""
        if step.kind == "tool-version":
            return (str(step.subject),)
        if step.kind == "clone":
            return ("git",)
        if step.kind == "source-list":
            return ("git", "node", "source_list")
        return ("git", "sci", "backend", *(("strace",) if self.session.traced else ()))

    def run_step(self, step: Step) -> None:
        """Skip a step with a usable attempt; otherwise run its next attempt and close it in the ledger."""
        history, ledger = self.history(step), self.session.ledger
        if history.usable is not None:
            self.counts["skipped"] += 1
            self.session.say(f"{step.id}: attempt {history.usable.number} {history.usable.outcome} earlier; skipped")
            return
        number = len(history.attempts) + 1
        signum = spawn.pending_signal()
        if signum is not None:  # it came between two steps: stop before the next one begins
            found = f"{signal.Signals(signum).name} reached capture; it stopped before this step"
            raise PrepareRejected([Finding("CAP-19", step.id, "no interruption", found)])
        if step.id == self.retry:
            last = history.last
            assert last is not None
            if last.outcome is None:
                message = f"CAP-7 at {step.id}: attempt {last.number} was open: capture ended during it"
                ledger.append("end", step=step.id, attempt=last.number, outcome="failed", rule="CAP-7", message=message)
            ledger.append("retry", step=step.id, attempt=number, reason=self.reason)
        rehash_tools(self.session.experiment, self.tools_of(step))  # a changed tool: exit 3, no attempt begun
        attempt = AttemptRun.begin(self.session, step.id, step.kind, number, step.folder(number))
        self.counts["run"] += 1
        self._finish(step, attempt)

    def _finish(self, step: Step, attempt: AttemptRun) -> None:
        try:
            attempt.make_folder()
            summary = self._attempt_body(step, attempt)
        except StepFailed as failure:
            case = self.session.experiment.cases[int(step.subject)] if step.kind == "sci" else None
            if failure.allowable and case is not None and case.id in self.session.allowed:
                attempt.end("unavailable", failure.finding)
                self.usable[step.id] = attempt.folder
                self.counts["unavailable"] += 1
                self.session.say(f"{step.id} attempt {attempt.number}: unavailable (allowed): {failure.finding.line()}")
                return
            attempt.end("failed", failure.finding)
            raise PrepareRejected([failure.finding]) from None
        except PrepareRejected as refused:
            attempt.end("failed", refused.findings[0])
            raise
        except BaseException as exc:  # a bug or the machine: the attempt is closed, the error goes on
            attempt.end("failed", message=f"internal error: {exc!r}")
            raise
        attempt.end("succeeded")
        self.usable[step.id] = attempt.folder
        self.session.say(f"{step.id} attempt {attempt.number}: succeeded ({summary})")

    def write_sheet(self) -> None:
        """``staleness-sheet.md`` from the usable source-list attempts (CAP-6 when D holds another)."""
        experiment = self.session.experiment
        picks = []
        for step in self.invocation.steps:
            if step.kind == "source-list":
                capture = read_repository_attempt(self.usable_folder(step))
                repo = experiment.repositories[int(step.subject)]
                picks.append(pick_sample(experiment, repo, capture.stdout, capture.evidence))
        data = render_staleness_sheet(experiment, picks).encode("utf-8")
        path = os.path.join(self.session.dir, SHEET_NAME)
        if os.path.lexists(path):
            with open(path, "rb") as stream:
                if stream.read() != data:
                    where = self.session.shown(SHEET_NAME)
                    expected = "the sheet recomputed from the usable source-list attempts"
                    finding = Finding("CAP-6", where, expected, "other bytes", exit_code=EXIT_INTEGRITY)
                    raise PrepareRejected([finding])
            return
        write_new(path, data)
        sha = hashlib.sha256(data).hexdigest()
        self.session.ledger.append("file", step=None, attempt=None, file=SHEET_NAME, bytes=len(data), sha256=sha)
        self.session.say(f"{sha}  {self.session.shown(SHEET_NAME)}")


def run_capture(args: argparse.Namespace, say: Callable[[str], None], warn: Callable[[str], None]) -> int:
    """Run ``capture`` (module docstring); 0 when every step has a usable attempt.

    Raises:
        UsageError (2), IntegrityError or PrepareRejected (3), PrepareRejected (4), OutputRefused (5).
    """
    invocation = prepare_invocation(args, warn)
    closure_check.recheck()  # every module capture uses is loaded: the sealed closure still holds them
    ledger = _open_ledger(invocation)
    try:
        _start(invocation, args, ledger)
        session = Session(
            experiment=invocation.experiment,
            dir_given=args.dir,
            dir=invocation.dir,
            ledger=ledger,
            traced=args.file_access_trace is not None,
            allowed=frozenset(args.allow_unavailable_structural),
            revisions=invocation.revisions,
            say=say,
        )
        run = _Run(session, invocation, args)
        with spawn.interruptible():
            sheet_written = False
            for step in invocation.steps:
                if step.kind == "sci" and not sheet_written:
                    run.write_sheet()
                    sheet_written = True
                run.run_step(step)
            if not sheet_written:
                run.write_sheet()
    finally:
        ledger.close()
    c = run.counts
    say(f"capture complete: {c['run']} attempts run, {c['skipped']} steps skipped, {c['unavailable']} unavailable")
    return 0
