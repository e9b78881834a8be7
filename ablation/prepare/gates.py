"""The gates ``capture`` applies to what an owner wrote, with the evaluator's own rules, at once.

Source-list (:func:`check_source_list`, right after each run, for every
repository before any SCI run), in this order: the run ended by itself with exit
0, its group gone and its TMPDIR and HOME empty and removed (CAP-13); empty stderr
(CAP-14: the preparation observation has no stderr member, so a non-empty one
fails instead of vanishing); strict UTF-8 (CAP-15); SL-1 … SL-37
(:func:`ablation.contracts.source_list.validate_source_list_artifact`); PREP-1 …
PREP-18 with GIT-1 … GIT-11 on the preparation observation built as ``assemble``
builds it (:func:`ablation.contracts.preparation.validate_preparation`); the
``ls-files --stage`` listing unchanged by the run (CAP-18);
``expect_source_list_sha256`` (CAP-16); at least one metadata-``present`` item
(CAP-17: STALE-8/9 would make the repository impossible); every truth path an item
(CASE-10) and ``max_items`` at most the item count (CASE-8).

An evaluator rule is reported with the evaluator's own ``expected`` and ``found``
texts; only ``<where>`` is prepare's: the raw file in D and, after `` -> ``, the
place inside it (:func:`source_list_where`, :func:`bundle_where`).

Spec: PREPARE.md §2 (error format), §4 ("immediate gates", "SCI gates"), §8.
"""

from __future__ import annotations

import hashlib
import re

from ablation.contracts.base import Reporter, show
from ablation.contracts.preparation import validate_preparation
from ablation.contracts.source_list import CandidateUniverse, validate_source_list_artifact
from ablation.errors import BundleInvalid, InputRejected
from ablation.prepare.attempts import AttemptRun, Ran, StepFailed
from ablation.prepare.build import preparation_observation, source_list_artifact, target_state_members
from ablation.prepare.experiment_file import Repository
from ablation.prepare.findings import Finding
from ablation.prepare.targets import EVIDENCE_FILE, TargetState
from ablation.prepare.tomltext import where as toml_where

__all__ = ["bundle_finding", "bundle_where", "check_source_list", "owner_run_problem", "source_list_where"]

_ARTIFACT = "/repositories/0/sourceListArtifact"
_PREPARATION = "/repositories/0/sourceListPreparation"
_SOURCE_FILES = (
    (f"{_ARTIFACT}/rawJson", "source-list.stdout", ""),
    (f"{_PREPARATION}/trackedPathInventory/stdoutBase64", EVIDENCE_FILE, ""),
    (f"{_PREPARATION}/targetState/headBefore", "state-before.json", "/head"),
    (f"{_PREPARATION}/targetState/statusBefore", "state-before.json", "/status"),
    (f"{_PREPARATION}/targetState/cleanBefore", "state-before.json", "/status"),
    (f"{_PREPARATION}/targetState/headAfter", "state-after.json", "/head"),
    (f"{_PREPARATION}/targetState/statusAfter", "state-after.json", "/status"),
    (f"{_PREPARATION}/targetState/cleanAfter", "state-after.json", "/status"),
)
_BUNDLE_FILES = (
    ("expectedRequest", "request.json", ""),
    ("receipt", "stdout", ""),
    ("executionObservation/rawEvidence/requestJson", "request.json", ""),
    ("executionObservation/rawEvidence/receiptJson", "stdout", ""),
    ("executionObservation/rawEvidence/stdout", "stdout", ""),
    ("executionObservation/rawEvidence/stderr", "stderr", ""),
    ("executionObservation/rawEvidence/transcriptJson", "transcript.json", ""),
    ("executionObservation/rawEvidence/processJson", "process.json", ""),
    ("executionObservation/rawEvidence/stateJson", "state.json", ""),
    ("executionObservation/targetState", "state.json", ""),
    ("executionObservation/process", "process.json", ""),
    ("executionObservation/cleanup", "extras.json", "/cleanup"),
)
_DETAIL = re.compile(r"at (.*?): expected (.*); found (.*)", re.DOTALL)


def _placed(folder: str, pointer: str, files: tuple[tuple[str, str, str], ...], prefix: str) -> str:
    """``<folder>/<file>[ -> <inner>]`` for the longest mapped prefix of ``pointer``; else ``<folder> -> <pointer>``."""
    outer, arrow, inner = pointer.partition(" -> ")
    for key, name, head in sorted(files, key=lambda f: -len(f[0])):
        if outer == key or outer.startswith(key + "/"):
            rest = head + outer[len(key) :]
            place = f"{folder}/{name}"
            if rest:
                place += f" -> {rest}"
            return f"{place} -> {inner}" if arrow else place
    relative = outer[len(prefix) :] if prefix and outer.startswith(prefix) else outer
    if not relative.startswith("/"):
        relative = f"/{relative}" if relative else '""'
    return f"{folder} -> {relative}" + (f" -> {inner}" if arrow else "")


def source_list_where(folder: str, pointer: str) -> str:
    """Where an SL, GIT or PREP rule of a repository's captured files fails, in D.

    >>> source_list_where("D/raw/repositories/0000/attempt-1", "/repositories/0/sourceListArtifact/rawJson -> /items/3")
    'D/raw/repositories/0000/attempt-1/source-list.stdout -> /items/3'
    >>> source_list_where("D/x", "/repositories/0/sourceListPreparation/targetState/statusAfter")
    'D/x/state-after.json -> /status'
    """
    return _placed(folder, pointer, _SOURCE_FILES, "/repositories/0")


def bundle_where(folder: str, pointer: str) -> str:
    """Where a bundle rule (SB, REQ, RCPT, OBS) fails, in D: the raw file when there is one.

    >>> bundle_where("D/raw/cases/0003/attempt-1", "receipt/evidence/0/identity/path")
    'D/raw/cases/0003/attempt-1/stdout -> /evidence/0/identity/path'
    >>> bundle_where("D/c", "executionObservation/rawEvidence/receiptJson -> /x")
    'D/c/stdout -> /x'
    >>> bundle_where("D/c", "expectedProvenance/x")
    'D/c -> /expectedProvenance/x'
    """
    return _placed(folder, "" if pointer == '""' else pointer, _BUNDLE_FILES, "")


def bundle_finding(folder: str, failure: BundleInvalid) -> Finding:
    """A bundle failure as a finding: the evaluator's rule, expected and found, at its place in D."""
    match = _DETAIL.fullmatch(failure.detail)
    if match is None:  # pragma: no cover - every contract failure has this form (contracts.base.fail)
        return Finding(failure.rule, folder, "a valid structural bundle", failure.detail)
    pointer, expected, found = match.groups()
    return Finding(failure.rule, bundle_where(folder, pointer), expected, found)


def owner_run_problem(ran: Ran, private: dict[str, object], timeout_s: int) -> str | None:
    """Why an owner run did not end cleanly (CAP-13), or ``None``: exit 0, nothing killed, TMPDIR/HOME removed."""
    o = ran.outcome
    if o.not_started:
        return f"it did not start: {o.not_started}"
    if o.timed_out:
        return f"it ran past process_timeout_s ({timeout_s} s); its process group was killed"
    if o.output_cap_exceeded:
        return "its output reached 16 MiB + 1 byte; its process group was killed"
    if o.signal is not None:
        return f"signal {o.signal} ended it"
    if o.exit_code != 0:
        return f"exit {o.exit_code}"
    if not o.confirmed:
        return f"its process group outlived it by the {o.grace_s:g} s grace and was killed ({o.orphans} orphans)"
    for label in ("tmp", "home"):
        folder = private[label]
        assert isinstance(folder, dict)
        if not folder["removed"]:
            return (
                f"its {label.upper() if label == 'tmp' else 'HOME'} {folder['path']} is not empty: {folder['listing']}"
            )
    return None


def _fail(rule: str, where: str, expected: str, found: str) -> StepFailed:
    return StepFailed(Finding(rule, where, expected, found))


def _evaluator_rules(
    attempt: AttemptRun, repo: Repository, stdout: bytes, evidence: bytes, states: tuple[TargetState, TargetState]
) -> CandidateUniverse:
    """SL, then PREP with GIT, on the observation ``assemble`` will build; the universe."""
    session = attempt.session
    folder = session.shown(attempt.folder)
    artifact = source_list_artifact(stdout)
    try:
        checked = validate_source_list_artifact(artifact, _ARTIFACT, Reporter())
        assert checked is not None  # fail-fast: a violation raised
        before, after = states
        observation = preparation_observation(
            session.experiment,
            repo.commit,
            revision=session.revisions["source_list"],
            raw_sha256=checked.raw_sha256,
            exit_code=0,
            target_state=target_state_members(before.protocol(), after.protocol()),
            evidence=evidence,
        )
        validate_preparation(
            observation, _PREPARATION, commit=repo.commit, raw_sha256=checked.raw_sha256,
            universe=checked.universe, rep=Reporter(),
        )  # fmt: skip
    except InputRejected as exc:
        raise _fail(exc.rule, source_list_where(folder, exc.where), exc.expected, exc.found) from None
    return checked.universe


def check_source_list(
    attempt: AttemptRun,
    repo: Repository,
    runs: tuple[Ran, Ran],
    states: tuple[TargetState, TargetState],
    private: dict[str, object],
) -> CandidateUniverse:
    """Every gate of a source-list run, in the order of the module docstring; the candidate universe.

    Args:
        attempt: the attempt (its files are written already).
        repo: the repository.
        runs: the source-list run and the evidence command.
        states: the target before and after the run.
        private: :meth:`AttemptRun.private_folders_after` of the run.

    Raises:
        StepFailed: the first gate that fails.
    """
    session = attempt.session
    experiment = session.experiment
    ran, evidence = runs
    stdout_file = session.shown(f"{attempt.folder}/source-list.stdout")
    problem = owner_run_problem(ran, private, experiment.process_timeout_s)
    if problem is not None:
        expected = "a run that ends by itself: exit 0 (PREP-13), no signal, its group gone, TMPDIR and HOME empty"
        raise _fail("CAP-13", session.shown(f"{attempt.folder}/source-list.stderr"), expected, problem)
    if ran.stderr:
        where = session.shown(f"{attempt.folder}/source-list.stderr")
        raise _fail(
            "CAP-14",
            where,
            "an empty stderr (the preparation observation has no stderr)",
            show(ran.stderr.decode("utf-8", "backslashreplace")),
        )
    try:
        ran.stdout.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _fail(
            "CAP-15", stdout_file, "strict UTF-8", f"the byte 0x{ran.stdout[exc.start]:02x} at byte {exc.start}"
        ) from None
    universe = _evaluator_rules(attempt, repo, ran.stdout, evidence.stdout, states)
    _check_repository(attempt, repo, ran.stdout, states, universe)
    return universe


def _check_repository(
    attempt: AttemptRun,
    repo: Repository,
    stdout: bytes,
    states: tuple[TargetState, TargetState],
    universe: CandidateUniverse,
) -> None:
    """CAP-18, CAP-16, CAP-17, then CASE-10 and CASE-8 for the repository's cases."""
    session = attempt.session
    stdout_file = session.shown(f"{attempt.folder}/source-list.stdout")
    before, after = states
    if before.stage_listing != after.stage_listing:
        where = session.shown(f"{attempt.folder}/state-after.ls-files-stage.stdout")
        raise _fail("CAP-18", where, "the ls-files --stage listing of before the run", "a changed listing")
    expected_sha = repo.expect_source_list_sha256
    actual = hashlib.sha256(stdout).hexdigest()
    if expected_sha is not None and actual != expected_sha:
        at = toml_where("repository", repo.index, "expect_source_list_sha256")
        raise _fail("CAP-16", stdout_file, f"the SHA-256 {expected_sha} ({at})", actual)
    if universe.present_count < 1:
        expected = "at least one metadata-present item (a v2 input cannot include this repository: STALE-8/9)"
        raise _fail("CAP-17", stdout_file, expected, f"0 of {universe.item_count} items present")
    items = frozenset(universe.paths)
    for case in session.experiment.cases:
        if case.repository != repo.id:
            continue
        for k, path in enumerate(case.truth):
            if path not in items:
                expected = f"the path of an item of {stdout_file}"
                raise _fail("CASE-10", toml_where("case", case.index, "truth", k), expected, show(path))
        if case.max_items > universe.item_count:
            expected = f"at most the item count of {stdout_file} ({universe.item_count})"
            raise _fail("CASE-8", toml_where("case", case.index, "max_items"), expected, show(case.max_items))
