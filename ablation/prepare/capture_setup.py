"""Everything ``capture`` checks before anything runs, and the steps it will run.

:func:`prepare_invocation` refuses, before any owner or git command of capture
starts (only the audited read-only git helper of ``check`` has run):

- exit 5: without ``--resume``, a D that exists and is not an empty folder; with
  it, a D that holds ``prepared.json``, or one another ``capture`` is writing;
- exit 4/3: everything ``check`` refuses (PRE and SPEC rules at their TOML
  locations; PRE-20, a tool whose bytes differ from its pin, exit 3);
  ``--file-access-trace strace`` without ``[tools.strace]`` (PRE-26); a D that
  is ``work_root``, lies inside it or holds it, or lies inside a source
  repository (PRE-27);
- the cases review (CAP-1 … CAP-4, :mod:`ablation.prepare.reviews`);
- CAP-5: an ``--allow-unavailable-structural`` id that is not a case with ``[case.sci]``;
- CAP-6 (exit 3), with ``--resume``: D's ``experiment.toml`` or ``cases-review.toml``
  differs from the file given, the ledger is damaged, or a derived revision moved;
- CAP-7: a step whose last attempt failed or is open, unless ``--retry`` names it;
  a ``--retry`` of a step that has a usable attempt, never ran, or whose process
  group is still alive;
- CAP-8: without ``--resume``, a ``work_root`` whose ``targets/``, ``requests/`` or
  ``run/`` holds anything (another preparation's files).

Spec: PREPARE.md §2, §4 ("Attempts, resume and retry"), §8.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import posixpath
from collections.abc import Callable
from dataclasses import dataclass

from ablation.contracts.base import show
from ablation.errors import OutputRefused, UsageError
from ablation.output import read_file
from ablation.prepare.check_values import is_within
from ablation.prepare.checks import CheckReport, run_check
from ablation.prepare.experiment_file import TOOL_KEYS, Experiment, load_experiment
from ablation.prepare.findings import EXIT_INTEGRITY, Finding, Findings, PrepareRejected
from ablation.prepare.layout import attempt_folder, step_id
from ablation.prepare.ledger import LEDGER_NAME, LedgerDamaged, LedgerView, StepHistory, read_ledger
from ablation.prepare.reviews import CasesReview, read_cases_review
from ablation.prepare.tomltext import where

__all__ = ["EXPERIMENT_COPY", "REVIEW_COPY", "Invocation", "Step", "plan_steps", "prepare_invocation"]

EXPERIMENT_COPY = "experiment.toml"
REVIEW_COPY = "cases-review.toml"
_WORK_FOLDERS = ("targets", "requests", "run")
_RUN_AGAIN = "a usable attempt, or none yet: a failed or open step runs again only with --retry STEP --reason TEXT"


@dataclass(frozen=True, slots=True)
class Step:
    """One step of the plan: its id, kind, what it is about, and where its attempts go.

    Attributes:
        id: ``tool:git:version``, ``repo:0000:clone``, ``repo:0000:source-list``, ``case:0016:sci``.
        kind: ``tool-version``, ``clone``, ``source-list`` or ``sci``.
        subject: the tool key, or the repository or case index.
        base: the folder of its attempts, relative to D (``raw/cases/0016``).
    """

    id: str
    kind: str
    subject: str | int
    base: str

    def folder(self, attempt: int) -> str:
        """The folder of attempt ``attempt``, relative to D."""
        return posixpath.join(self.base, f"attempt-{attempt}")


def plan_steps(experiment: Experiment) -> list[Step]:
    """Every step, in the order ``capture`` runs them: tool versions, per repository clone then
    source-list, then one SCI step per case with ``[case.sci]``."""
    steps = [
        Step(f"tool:{key}:version", "tool-version", key, f"raw/tools/{key}")
        for key in TOOL_KEYS
        if key in experiment.tools and experiment.tools[key].record_version
    ]
    repos = len(experiment.repositories)
    for repo in experiment.repositories:
        base = posixpath.dirname(attempt_folder("repositories", repo.index, repos, 1))
        steps.append(Step(step_id("repo", repo.index, repos, "clone"), "clone", repo.index,
                          posixpath.dirname(attempt_folder("clones", repo.index, repos, 1))))  # fmt: skip
        steps.append(Step(step_id("repo", repo.index, repos, "source-list"), "source-list", repo.index, base))
    cases = len(experiment.cases)
    for case in experiment.cases:
        if case.sci is not None:
            base = posixpath.dirname(attempt_folder("cases", case.index, cases, 1))
            steps.append(Step(step_id("case", case.index, cases, "sci"), "sci", case.index, base))
    return steps


@dataclass(frozen=True, slots=True)
class Invocation:
    """What the refusals established: the checked inputs and, on ``--resume``, the ledger read back."""

    experiment: Experiment
    experiment_bytes: bytes
    report: CheckReport
    review: CasesReview
    review_bytes: bytes
    dir: str
    steps: list[Step]
    revisions: dict[str, str]
    ledger: LedgerView | None


def _load(path: str, data: bytes) -> Experiment:
    """The experiment file's shape (PRE-1 … PRE-4), from the bytes that will be copied into D."""
    findings = Findings()
    experiment = load_experiment(data, path, findings)
    findings.raise_errors(collect_all=False)
    assert experiment is not None
    return experiment


def _integrity(where_: str, expected: str, found: str) -> PrepareRejected:
    return PrepareRejected([Finding("CAP-6", where_, expected, found, exit_code=EXIT_INTEGRITY)])


def _check_dir(folder: str, *, resume: bool) -> None:
    """Exit 5 for a D ``capture`` must not write into."""
    if not resume:
        if os.path.lexists(folder) and (not os.path.isdir(folder) or os.path.islink(folder) or os.listdir(folder)):
            msg = f"the preparation directory {folder!r} is not empty (or not a folder); give --resume to go on with it"
            raise OutputRefused(msg)
        return
    if not os.path.isdir(folder):
        raise UsageError(f"--resume: the preparation directory {folder!r} does not exist")
    if os.path.lexists(os.path.join(folder, "prepared.json")):
        raise OutputRefused(f"{folder!r} holds prepared.json already: this preparation is assembled")


def _capture_checks(experiment: Experiment, report: CheckReport, folder: str, *, traced: bool) -> None:
    """PRE-26 and PRE-27 (D's place), after every check of ``check`` passed."""
    if traced and "strace" not in experiment.tools:
        expected = "a [tools.strace] table pinning the strace that --file-access-trace strace runs"
        raise PrepareRejected([Finding("PRE-26", where("tools", "strace"), expected, "no such table")])
    d = os.path.realpath(folder)
    work_root = os.path.realpath(experiment.work_root)
    expected = "a preparation directory outside work_root and every source repository (it holds only regular files)"
    if is_within(d, work_root) or is_within(work_root, d):
        how = (
            "is work_root"
            if d == work_root
            else "lies inside work_root"
            if is_within(d, work_root)
            else "holds work_root"
        )
        raise PrepareRejected([Finding("PRE-27", folder, expected, f"it {how} ({show(work_root)})")])
    for view in report.views:
        if view.extent is not None and is_within(d, os.path.realpath(view.extent)):
            found = f"inside {where('repository', view.repository.index)} at {show(view.extent)}"
            raise PrepareRejected([Finding("PRE-27", folder, expected, found)])


def _check_allowed(experiment: Experiment, allowed: list[str]) -> None:
    sci_cases = {case.id for case in experiment.cases if case.sci is not None}
    for case_id in allowed:
        if case_id not in sci_cases:
            expected = "the id of a case with [case.sci]"
            raise PrepareRejected([Finding("CAP-5", "--allow-unavailable-structural", expected, show(case_id))])


def _revisions(experiment: Experiment, report: CheckReport) -> dict[str, str]:
    found = {}
    for key in ("source_list", "sci"):
        tool = experiment.tools.get(key)
        if tool is not None:
            revision = tool.revision or report.revisions.get(key)
            assert revision is not None  # check passed: PRE-11/PRE-12 hold
            found[key] = revision
    return found


def _resumed(folder: str, experiment_path: str, data: tuple[bytes, bytes], revisions: dict[str, str]) -> LedgerView:
    """CAP-6: D's copies equal the files given; the ledger reads back; the revisions did not move."""
    for name, given, what in ((EXPERIMENT_COPY, data[0], experiment_path), (REVIEW_COPY, data[1], "the cases review")):
        path = os.path.join(folder, name)
        try:
            with open(path, "rb") as stream:
                copy = stream.read()
        except OSError as exc:
            raise _integrity(path, f"D's copy of {what}", f"cannot read it: {exc.strerror or exc}") from None
        if copy != given:
            expected = f"the bytes of {what} (SHA-256 {hashlib.sha256(given).hexdigest()})"
            found = f"SHA-256 {hashlib.sha256(copy).hexdigest()}: a changed experiment is a new preparation in a new D"
            raise _integrity(path, expected, found)
    path = os.path.join(folder, LEDGER_NAME)
    try:
        view = read_ledger(path)
    except (OSError, LedgerDamaged) as exc:
        raise _integrity(path, "the ledger capture wrote, every line complete", str(exc)) from None
    first = view.captures()[0] if view.captures() else {}
    tools = first.get("tools", {})
    for key, revision in revisions.items():
        recorded = tools.get(key, {}).get("revision") if isinstance(tools, dict) else None
        if recorded != revision:
            found = f"{revision}; the first invocation recorded {recorded}"
            raise _integrity(path, f"the revision of tools.{key} the preparation started with", found)
    return view


def _group_alive(pid: int) -> bool:
    """Whether process group ``pid`` still has a process (a zombie counts)."""
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _retry_refusal(step: Step, history: StepHistory) -> Finding | None:
    """CAP-7 for the step ``--retry`` names: its last attempt failed or is open, its process groups gone."""
    at = f"--retry {step.id}"
    expected = "a step whose last attempt failed or is open (one with a usable attempt is never run again)"
    last, usable = history.last, history.usable
    if last is None:
        return Finding("CAP-7", at, expected, "a step that has not run yet")
    if usable is not None:
        return Finding("CAP-7", at, expected, f"attempt {usable.number} {usable.outcome}")
    alive = [pid for pid in last.pids if last.outcome is None and _group_alive(pid)]
    if alive:
        found = f"its open attempt {last.number}'s process group {alive[0]} is alive (end it: kill -KILL -{alive[0]})"
        return Finding("CAP-7", at, "no process of the step's open attempt left", found)
    return None


def _attempts_refusal(steps: list[Step], view: LedgerView | None, retry: str | None) -> Finding | None:
    """CAP-7: each step's attempts allow this invocation (module docstring); the first refusal, or ``None``.

    The step ``--retry`` names is checked first, then every other step in order.
    """
    histories = {step.id: view.history(step.id) if view is not None else StepHistory(step.id) for step in steps}
    if retry is not None:
        if retry not in histories:
            return Finding("CAP-7", f"--retry {retry}", "the id of a step of this experiment", show(retry))
        refusal = _retry_refusal(next(s for s in steps if s.id == retry), histories[retry])
        if refusal is not None:
            return refusal
    for step in steps:
        history = histories[step.id]
        last = history.last
        if step.id == retry or last is None or history.usable is not None:
            continue
        state = f"attempt {last.number} {last.outcome}" if last.outcome else f"attempt {last.number} open"
        why = f" ({last.rule})" if last.rule else " (capture ended during it)" if last.outcome is None else ""
        return Finding("CAP-7", step.id, _RUN_AGAIN, state + why)
    return None


def _fresh_work_root(experiment: Experiment) -> None:
    """CAP-8: a new preparation finds no targets, requests or run folders in ``work_root``."""
    for name in _WORK_FOLDERS:
        path = posixpath.join(experiment.work_root, name)
        if os.path.isdir(path) and os.listdir(path):
            expected = "a work_root without another preparation's targets, requests and run folders"
            found = f"{path} holds {len(os.listdir(path))} entries: name a new work_root, or move it aside"
            raise PrepareRejected([Finding("CAP-8", where("experiment", "work_root"), expected, found)])


def prepare_invocation(args: argparse.Namespace, warn: Callable[[str], None]) -> Invocation:
    """Every refusal of ``capture`` (module docstring), in order; what the steps need.

    Args:
        args: the parsed command line (``experiment``, ``dir``, ``cases_review``, ``file_access_trace``,
            ``allow_unavailable_structural``, ``resume``, ``retry``).
        warn: prints one warning line (``check``'s warnings).

    Raises:
        UsageError, OutputRefused, PrepareRejected: the first refusal.
    """
    resume = bool(args.resume or args.retry is not None)
    folder = os.path.abspath(args.dir)
    _check_dir(folder, resume=resume)
    experiment_bytes = read_file(args.experiment, "experiment file")
    experiment = _load(args.experiment, experiment_bytes)
    review_bytes = read_file(args.cases_review, "cases review")
    report = run_check(experiment)
    for finding in report.findings.warnings:
        warn(finding.line())
    report.findings.raise_errors(collect_all=False)
    _capture_checks(experiment, report, args.dir, traced=args.file_access_trace is not None)
    review = read_cases_review(
        args.cases_review, review_bytes, experiment_sha256=experiment.sha256,
        repository_ids=[r.id for r in experiment.repositories],
    )  # fmt: skip
    _check_allowed(experiment, args.allow_unavailable_structural)
    revisions = _revisions(experiment, report)
    steps = plan_steps(experiment)
    view = None
    if resume:
        view = _resumed(folder, args.experiment, (experiment_bytes, review_bytes), revisions)
    else:
        _fresh_work_root(experiment)
    refusal = _attempts_refusal(steps, view, args.retry)
    if refusal is not None:
        raise PrepareRejected([refusal])
    return Invocation(experiment, experiment_bytes, report, review, review_bytes, folder, steps, revisions, view)
