"""The SCI step of one case: request file, one exporter run, its observation, and the case's bundle checked at once.

``case:<nnn>:sci``, in this order:

1. the request (:func:`ablation.prepare.requests.build_request`) is written to
   ``<work_root>/requests/<nnn>.json`` with exclusive create, mode 0600, checked by
   ``lstat`` to be a regular file and read back byte-equal; an existing file is
   reused only when its bytes are identical (the ledger says so), else CAP-9,
   before anything runs; a copy goes into the attempt folder (``request.json``);
2. the target observed before: at the commit, clean, no ``.sci``,
   ``.semantic-graph`` or ``.ontology`` (else CAP-10);
3. the exporter, OBS-13's argv, cwd the target, PATH the backend's folder then
   ``environment_path``, a private empty HOME and TMPDIR; under
   ``--file-access-trace strace`` wrapped in the pinned strace (:mod:`ablation.prepare.trace`);
4. TMPDIR and HOME listed and removed when empty, the target observed after, the
   trace read; ``process.json`` (OBS-18's members), ``state.json`` (OBS-15's),
   ``extras.json`` (everything only the record carries, and ``cleanup``) and last
   ``transcript.json`` (OBS-35's) are written;
5. the gates: the ``ls-files --stage`` listing unchanged (CAP-18, never allowed);
   then the bundle built by :func:`ablation.prepare.build.case_bundle` from the files
   just written, checked with :func:`ablation.contracts.structural.validate_bundle`
   (SB-1 … SB-17 with REQ, RCPT, OBS in SPEC §4.12's order) against the repository's
   items. A bundle failure (or no receipt at all: a null bundle, SB-1) is
   *allowable*: ``--allow-unavailable-structural`` can make it the outcome ``unavailable``.

Spec: PREPARE.md §4 ("SCI request", "SCI run", "Raw texts of a case", "Index and ontology",
"SCI gates"), §8.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Set as AbstractSet

from ablation.canonical import canonical_digest, raw_digest
from ablation.contracts.structural import validate_bundle
from ablation.errors import BundleInvalid
from ablation.prepare.attempts import AttemptRun, Ran, StepFailed, json_text, run_record, write_new
from ablation.prepare.build import sci_command
from ablation.prepare.build_case import case_bundle, read_case_attempt, receipt_count
from ablation.prepare.capture_steps import precondition_problem
from ablation.prepare.environment import owner_environment, sci_path
from ablation.prepare.experiment_file import Case, Repository
from ablation.prepare.findings import Finding
from ablation.prepare.gates import bundle_finding
from ablation.prepare.layout import request_path, target_path
from ablation.prepare.requests import build_request, request_text
from ablation.prepare.spawn import RunOutcome
from ablation.prepare.targets import TargetState, observe_target
from ablation.prepare.trace import TraceSummary, read_trace, strace_argv

__all__ = ["ASSERTED", "sci_step"]

ASSERTED = "indexRead / indexBuilt asserted, not traced"
"""What the record and the pre-run sheet say of every case captured with ``--assert-no-index-access``."""


def _request_file(attempt: AttemptRun, case: Case) -> tuple[str, bytes]:
    """Write (or reuse) the case's request file under ``work_root``; its path and bytes (CAP-9)."""
    experiment = attempt.session.experiment
    data = request_text(build_request(case, experiment.limits)).encode("utf-8")
    path = request_path(experiment.work_root, case.index, len(experiment.cases))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    reused = False
    try:
        write_new(path, data, mode=0o600)
    except FileExistsError:
        reused = True
    expected = "a regular request file holding the request's bytes"
    if not stat.S_ISREG(os.lstat(path).st_mode):
        raise StepFailed(Finding("CAP-9", path, expected, "not a regular file (kept as it is)"))
    with open(path, "rb") as stream:
        found = stream.read()
    if found != data:
        what = "an existing file with other bytes" if reused else "other bytes when read back"
        raise StepFailed(Finding("CAP-9", path, expected, f"{what}, SHA-256 {hashlib.sha256(found).hexdigest()}"))
    attempt.session.ledger.append(
        "request", step=attempt.step, attempt=attempt.number, file=path,
        sha256=hashlib.sha256(data).hexdigest(), reused=reused,
    )  # fmt: skip
    return path, data


def _state(before: TargetState, after: TargetState, index: tuple[bool, bool]) -> dict[str, object]:
    """OBS-15's eleven members, in order (``index``: indexRead, indexBuilt)."""
    return {
        "headBefore": before.head,
        "headAfter": after.head,
        "statusBefore": before.status,
        "statusAfter": after.status,
        "cleanBefore": before.clean,
        "cleanAfter": after.clean,
        "noIndex": not before.class_a,
        "indexRead": index[0],
        "indexBuilt": index[1],
        "ontologyBefore": before.presence[".ontology"],
        "ontologyAfter": after.presence[".ontology"],
    }


def _null_bundle_note(o: RunOutcome, timeout_s: int) -> str:
    if o.not_started:
        return f"; the exporter did not start: {o.not_started}"
    if o.timed_out:
        return f"; the exporter ran past process_timeout_s ({timeout_s} s) and its process group was killed"
    if o.output_cap_exceeded:
        return "; the exporter's output reached 16 MiB + 1 byte and its process group was killed"
    if o.signal is not None:
        return f"; signal {o.signal} ended the exporter"
    return f"; the exporter exited {o.exit_code}" if o.exit_code else ""


def _run(attempt: AttemptRun, case: Case, target: str) -> tuple[Ran, TraceSummary | None]:
    session = attempt.session
    experiment = session.experiment
    command = tuple(sci_command(experiment, case.index))
    argv, tools = command, ("sci", "backend", *(("strace",) if session.traced else ()))
    trace_file = os.path.join(attempt.path, "trace.txt")
    if session.traced:
        argv = strace_argv(experiment.tools["strace"].path, trace_file, command)
    path = sci_path(experiment.tools["backend"].path, experiment.environment_path)
    environment = owner_environment(path=path, home=attempt.home, tmpdir=attempt.tmp)
    ran = attempt.spawn(
        "sci", "sci", (argv, target, "target", environment), tools=tools,
        timeout_s=experiment.process_timeout_s, stdout_name="stdout", stderr_name="stderr",
    )  # fmt: skip
    summary = None
    if session.traced and os.path.exists(trace_file):
        with open(trace_file, "rb") as stream:
            data = stream.read()
        attempt.record_file(f"{attempt.folder}/trace.txt", data)
        summary = read_trace(data.decode("utf-8", "surrogateescape"), target=target, home=attempt.home)
    return ran, summary


def _write_texts(
    attempt: AttemptRun,
    case: Case,
    run: tuple[Ran, TraceSummary | None],
    states: tuple[TargetState, TargetState],
    extras: dict[str, object],
) -> None:
    """``process.json``, ``state.json``, ``extras.json``, then ``transcript.json`` (the raw texts of §4)."""
    session = attempt.session
    ran, summary = run
    outcome, stdout, stderr = ran.outcome, ran.stdout, ran.stderr
    before, after = states
    index = (summary.index_read if summary else False, after.class_a or (summary.index_built if summary else False))
    process = {
        "exitCode": outcome.exit_code,
        "receiptCount": receipt_count(stdout.decode("utf-8", "surrogateescape")),
        "processGroupTerminationConfirmed": outcome.confirmed,
    }
    process_text, state_text = json_text(process), json_text(_state(before, after, index))
    attempt.write("process.json", process_text.encode("utf-8"))
    attempt.write("state.json", state_text.encode("utf-8"))
    extras["fileAccess"] = (
        {"mode": "traced", "summary": summary.as_record()}
        if summary is not None
        else {"mode": "asserted", "note": ASSERTED}
    )
    attempt.write_json("extras.json", extras)
    with open(os.path.join(attempt.path, "request.json"), "rb") as stream:
        request = stream.read()
    command = sci_command(session.experiment, case.index)
    transcript = {
        "command": command,
        "commandDigest": canonical_digest(command),
        "requestSha256": raw_digest(request),
        "receiptSha256": raw_digest(stdout),
        "stdoutSha256": raw_digest(stdout),
        "stderrSha256": raw_digest(stderr),
        "processSha256": raw_digest(process_text),
        "stateSha256": raw_digest(state_text),
    }
    attempt.write_json("transcript.json", transcript)


def sci_step(attempt: AttemptRun, case: Case, repo: Repository, item_paths: AbstractSet[str]) -> str:
    """Run the case's SCI attempt (the module docstring's five steps); a one-line summary.

    Raises:
        StepFailed: CAP-9, CAP-10, CAP-11, CAP-18 (never allowable); SB-1 (no receipt) or the rule
            the bundle validation reports (allowable).
    """
    session = attempt.session
    experiment = session.experiment
    target = target_path(experiment.work_root, repo.index, len(experiment.repositories))
    request_file, request = _request_file(attempt, case)
    attempt.write("request.json", request)
    attempt.make_private_folders()
    before = observe_target(attempt, target, "before")
    problem = precondition_problem(before, repo.commit, attempt, class_a=True)
    if problem is not None:
        where = session.shown(f"{attempt.folder}/state-before.status.stdout")
        raise StepFailed(
            Finding("CAP-10", where, "a target at the commit, clean and without an index, before SCI", problem)
        )
    ran, summary = _run(attempt, case, target)
    outcome = ran.outcome
    private = attempt.private_folders_after()
    after = observe_target(attempt, target, "after")
    tmp, home = private["tmp"], private["home"]
    assert isinstance(tmp, dict) and isinstance(home, dict)
    extras: dict[str, object] = {
        "sci": run_record(ran),
        "privateFolders": private,
        "stateBefore": before.extras(),
        "stateAfter": after.extras(),
        "gitIndexChanged": before.git_index_sha256 != after.git_index_sha256,
        "request": {"file": request_file},
        "cleanup": {
            "completed": outcome.exit_code == 0
            and outcome.confirmed
            and bool(tmp["removed"])
            and bool(home["removed"]),
            "temporaryRootsRemoved": bool(tmp["empty"]),
        },
    }
    _write_texts(attempt, case, (ran, summary), (before, after), extras)
    if before.stage_listing != after.stage_listing:
        where = session.shown(f"{attempt.folder}/state-after.ls-files-stage.stdout")
        raise StepFailed(
            Finding("CAP-18", where, "the ls-files --stage listing of before the run", "a changed listing")
        )
    folder = session.shown(attempt.folder)
    bundle, why = case_bundle(
        experiment, case, repo.commit, sci_revision=session.revisions["sci"], texts=read_case_attempt(attempt.path)
    )
    if bundle is None:
        expected = "a receipt: stdout's first JSON value (without one the case's bundle is null)"
        found = f"{why}{_null_bundle_note(outcome, experiment.process_timeout_s)}"
        raise StepFailed(Finding("SB-1", f"{folder}/stdout", expected, found), allowable=True)
    try:
        validate_bundle(bundle, question=case.question, repository_commit=repo.commit, item_paths=item_paths)
    except BundleInvalid as exc:
        raise StepFailed(bundle_finding(folder, exc), allowable=True) from None
    return "structural bundle valid"
