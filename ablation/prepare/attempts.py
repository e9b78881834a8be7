"""One attempt of a capture step: its folder in D, its HOME and TMPDIR under ``work_root``, its spawns and files.

Every attempt writes only below its own folder ``D/raw/<kind>/<nnn>/attempt-<k>/``
(created, never reused) and its own run folder
``<work_root>/run/<step>/attempt-<k>/`` (``home/``, ``tmp/`` and, for a
``tool-version`` step, ``cwd/``, created empty). Files are created exclusively
and fsynced; each file's SHA-256 goes into the ledger (a ``file`` entry, or the
``spawn`` entry for a spawn's stdout and stderr). Nothing is ever overwritten or
deleted, except the per-invocation folders that are empty after the run, which
are removed with ``rmdir``.

A spawn re-hashes the pinned files it runs immediately before it starts
(PRE-20, exit 3, nothing started) and is recorded in the ledger whatever
happened; a failure of the attempt is raised as :class:`StepFailed` carrying its
finding, and :meth:`AttemptRun.end` closes the attempt in the ledger.

Spec: PREPARE.md §4 ("Ledger", "Attempts", "TMPDIR, HOME and cleanup"), §5.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import signal
import stat
from collections.abc import Callable
from dataclasses import dataclass

from ablation.prepare import spawn
from ablation.prepare.environment import environment_digest
from ablation.prepare.experiment_file import Experiment
from ablation.prepare.findings import Finding
from ablation.prepare.layout import run_folder
from ablation.prepare.ledger import Ledger
from ablation.prepare.pins import rehash_tools

__all__ = [
    "AttemptRun",
    "Ran",
    "Session",
    "StepFailed",
    "json_text",
    "listing",
    "run_record",
    "tokens",
    "write_new",
]

_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_LISTING_LIMIT = 1000


def json_text(value: object) -> str:
    """A JSON text as prepare writes every one: ``json.dumps(v, indent=2, ensure_ascii=False)`` and a line feed."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def write_new(path: str, data: bytes, *, mode: int = 0o644) -> None:
    """Create ``path`` exclusively (never following a link) with ``mode``, write ``data``, fsync it.

    Raises:
        FileExistsError: it exists (as anything, a dangling link included).
        OSError: it cannot be written.
    """
    fd = os.open(path, _NEW_FILE, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def listing(folder: str) -> list[str]:
    """What a folder holds, recursively: ``<relative path> (<file of N bytes|folder|symlink|other>)``, sorted.

    At most 1000 entries are listed (then one line says how many more); a folder that
    does not exist lists nothing.
    """
    found = []
    for top, folders, files in os.walk(folder):
        for name in sorted(folders) + sorted(files):
            path = os.path.join(top, name)
            info = os.lstat(path)
            kind = (
                f"file of {info.st_size} bytes"
                if stat.S_ISREG(info.st_mode)
                else "folder"
                if stat.S_ISDIR(info.st_mode)
                else "symlink"
                if stat.S_ISLNK(info.st_mode)
                else "other"
            )
            found.append(f"{os.path.relpath(path, folder)} ({kind})")
    found.sort()
    if len(found) > _LISTING_LIMIT:
        found = [*found[:_LISTING_LIMIT], f"… and {len(found) - _LISTING_LIMIT} more"]
    return found


class StepFailed(Exception):
    """An attempt failed; :attr:`finding` says why (its rule, where, expected and found).

    Attributes:
        finding: the failure in the SPEC §2.5 form; its ``exit_code`` is ``capture``'s.
        allowable: a bundle-validation failure of an SCI step, which
            ``--allow-unavailable-structural`` may turn into the outcome ``unavailable``.
    """

    def __init__(self, finding: Finding, *, allowable: bool = False) -> None:
        super().__init__(finding.line())
        self.finding = finding
        self.allowable = allowable


@dataclass(slots=True)
class Session:
    """One ``capture`` invocation: the experiment, D, the ledger and the choices of the command line.

    Attributes:
        experiment: the checked experiment file.
        dir_given: D as given on the command line (messages name files under it).
        dir: D as an absolute path.
        ledger: the ledger, open for appending.
        traced: ``--file-access-trace strace`` (else ``--assert-no-index-access``).
        allowed: the case ids of ``--allow-unavailable-structural``.
        revisions: the revision of ``source_list`` and ``sci`` (declared, or derived from the checkout).
        say: prints one progress line (stdout).
    """

    experiment: Experiment
    dir_given: str
    dir: str
    ledger: Ledger
    traced: bool
    allowed: frozenset[str]
    revisions: dict[str, str]
    say: Callable[[str], None]

    def shown(self, relative: str) -> str:
        """A path in D as messages name it: D as given, then the path relative to D."""
        return posixpath.join(self.dir_given, relative)


@dataclass(frozen=True, slots=True)
class Ran:
    """A finished spawn: the outcome and the bytes it wrote to its two files."""

    outcome: spawn.RunOutcome
    stdout: bytes
    stderr: bytes
    stdout_name: str
    stderr_name: str


class AttemptRun:
    """The attempt being made: :meth:`begin` opens it in the ledger and makes its folders.

    Attributes:
        session: the invocation.
        step: the step id (``case:0003:sci``).
        number: ``k``.
        folder: the attempt folder, relative to D; :attr:`path` is absolute.
        run: ``<work_root>/run/<step>/attempt-<k>``; ``home``, ``tmp``, ``cwd`` below it.
    """

    def __init__(self, session: Session, step: str, number: int, folder: str) -> None:
        self.session = session
        self.step = step
        self.number = number
        self.folder = folder
        self.path = os.path.join(session.dir, folder)
        self.run = run_folder(session.experiment.work_root, step, number)
        self.home = posixpath.join(self.run, "home")
        self.tmp = posixpath.join(self.run, "tmp")
        self.cwd = posixpath.join(self.run, "cwd")

    @classmethod
    def begin(cls, session: Session, step: str, kind: str, number: int, folder: str) -> AttemptRun:
        """Open attempt ``number`` of ``step`` in the ledger (:meth:`make_folder` makes its folder)."""
        attempt = cls(session, step, number, folder)
        session.ledger.append("begin", step=step, attempt=number, kind=kind, folder=folder, runFolder=attempt.run)
        return attempt

    def make_folder(self) -> None:
        """Make the attempt folder in D.

        Raises:
            StepFailed: CAP-8 when it exists already.
        """
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        try:
            os.mkdir(self.path)
        except FileExistsError:
            where = self.session.shown(self.folder)
            raise StepFailed(Finding("CAP-8", where, "a new attempt folder", "it exists already")) from None

    def make_private_folders(self, *, with_cwd: bool = False) -> None:
        """Create the run folder and, empty, ``home/``, ``tmp/`` (and ``cwd/``) for this attempt's spawns.

        Raises:
            StepFailed: CAP-8 when the run folder exists already (another preparation's, or a bug).
        """
        os.makedirs(os.path.dirname(self.run), exist_ok=True)
        try:
            os.mkdir(self.run)
        except FileExistsError:
            raise StepFailed(Finding("CAP-8", self.run, "a new run folder under work_root", "it exists")) from None
        for folder in (self.home, self.tmp, *((self.cwd,) if with_cwd else ())):
            os.mkdir(folder)

    def write(self, name: str, data: bytes) -> str:
        """Write a new file ``name`` into the attempt folder and record its SHA-256; return its path in D."""
        relative = posixpath.join(self.folder, name)
        write_new(os.path.join(self.session.dir, relative), data)
        self.record_file(relative, data)
        return relative

    def write_json(self, name: str, value: object) -> str:
        """:meth:`write` of :func:`json_text` of ``value``."""
        return self.write(name, json_text(value).encode("utf-8"))

    def record_file(self, relative: str, data: bytes) -> None:
        """A ``file`` entry for a file of this attempt that someone else wrote (strace's trace)."""
        sha = hashlib.sha256(data).hexdigest()
        self.session.ledger.append(
            "file", step=self.step, attempt=self.number, file=relative, bytes=len(data), sha256=sha
        )

    def spawn(
        self,
        name: str,
        kind: str,
        launch: tuple[tuple[str, ...], str, str, dict[str, str]],
        *,
        tools: tuple[str, ...],
        timeout_s: float,
        stdout_name: str | None = None,
        stderr_name: str | None = None,
    ) -> Ran:
        """Run one process of this attempt and record it; its output files are named after ``name``.

        Args:
            name: the spawn's name (``source-list``, ``state-before.status``, …).
            kind: ``git``, ``source-list``, ``sci`` or ``tool-version``.
            launch: ``(argv, cwd, cwd label, environment)``.
            tools: the ``[tools.*]`` keys whose files run (re-hashed first).
            timeout_s: the wall limit.
            stdout_name, stderr_name: the files' names when they are not ``<name>.stdout`` and ``<name>.stderr``.

        Raises:
            PrepareRejected: PRE-20 (exit 3): a pinned file changed; nothing was started.
            StepFailed: CAP-19 when SIGINT or SIGTERM interrupted the run (its group was killed).
        """
        argv, cwd, cwd_label, environment = launch
        hashes = rehash_tools(self.session.experiment, tools)
        out_name, err_name = stdout_name or f"{name}.stdout", stderr_name or f"{name}.stderr"
        out_path, err_path = os.path.join(self.path, out_name), os.path.join(self.path, err_name)
        owner = kind != "git"
        ledger = self.session.ledger

        def started(pid: int) -> None:
            if owner:
                ledger.append("started", step=self.step, attempt=self.number, spawn=name, pid=pid)

        outcome = spawn.run(spawn.Launch(argv, cwd, environment, out_path, err_path, timeout_s), started=started)
        ran = Ran(outcome, _read(out_path), _read(err_path), out_name, err_name)
        self._record_spawn(name, kind, (argv, cwd_label, environment), hashes, ran)
        if outcome.interrupted is not None:
            raise StepFailed(_interrupted(outcome.interrupted, self.session.shown(self.folder), name))
        return ran

    def _record_spawn(
        self,
        name: str,
        kind: str,
        what: tuple[tuple[str, ...], str, dict[str, str]],
        hashes: dict[str, str],
        ran: Ran,
    ) -> None:
        argv, cwd_label, environment = what
        o = ran.outcome
        files = {}
        for member, file_name, data in (
            ("stdout", ran.stdout_name, ran.stdout),
            ("stderr", ran.stderr_name, ran.stderr),
        ):
            relative = posixpath.join(self.folder, file_name)
            files[member] = {"file": relative, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        self.session.ledger.append(
            "spawn",
            step=self.step,
            attempt=self.number,
            spawn=name,
            kind=kind,
            argv=list(argv),
            cwd=cwd_label,
            environment=environment,
            environmentSha256=environment_digest(environment),
            toolSha256=hashes,
            startNs=o.start_ns,
            endNs=o.end_ns,
            exitCode=o.exit_code,
            signal=o.signal,
            timedOut=o.timed_out,
            outputCapExceeded=o.output_cap_exceeded,
            interrupted=o.interrupted,
            orphans=o.orphans,
            killed=o.killed,
            groupConfirmed=o.confirmed,
            graceS=o.grace_s,
            notStarted=o.not_started,
            **files,
        )

    def private_folders_after(self, *, with_cwd: bool = False) -> dict[str, object]:
        """List ``tmp/`` and ``home/`` (and ``cwd/``), then ``rmdir`` each that is empty; what was found.

        Returns:
            Per folder (``tmp``, ``home``, ``cwd``): ``{"path", "listing", "empty", "removed"}``.
        """
        found: dict[str, object] = {}
        for label, folder in (("tmp", self.tmp), ("home", self.home), *((("cwd", self.cwd),) if with_cwd else ())):
            entries = listing(folder)
            removed = False
            if not entries:
                try:
                    os.rmdir(folder)
                    removed = True
                except OSError:
                    removed = False
            found[label] = {"path": folder, "listing": entries, "empty": not entries, "removed": removed}
        return found

    def end(self, outcome: str, finding: Finding | None = None, *, message: str | None = None) -> None:
        """Close the attempt in the ledger with ``outcome`` and, unless it succeeded, its finding (or a message)."""
        self.session.ledger.append(
            "end",
            step=self.step,
            attempt=self.number,
            outcome=outcome,
            rule=finding.rule if finding else None,
            message=finding.line() if finding else message,
        )


def tokens(size: int) -> int:
    """``ceil(bytes / 4)``: the record's rough token count of a text (not a tokenizer).

    >>> tokens(0), tokens(1), tokens(8)
    (0, 1, 2)
    """
    return -(-size // 4)


def run_record(ran: Ran) -> dict[str, object]:
    """What ``extras.json`` says of one spawn: exit, signal, duration, process group, bytes and ``ceil(bytes/4)``."""
    o = ran.outcome
    return {
        "exitCode": o.exit_code,
        "signal": o.signal,
        "durationNs": o.end_ns - o.start_ns,
        "timedOut": o.timed_out,
        "outputCapExceeded": o.output_cap_exceeded,
        "notStarted": o.not_started,
        "orphans": o.orphans,
        "killed": o.killed,
        "groupConfirmed": o.confirmed,
        "graceS": o.grace_s,
        "stdoutBytes": len(ran.stdout),
        "stdoutTokensCeil4": tokens(len(ran.stdout)),
        "stderrBytes": len(ran.stderr),
        "stderrTokensCeil4": tokens(len(ran.stderr)),
    }


def _read(path: str) -> bytes:
    with open(path, "rb") as stream:
        return stream.read()


def _interrupted(signum: int, where: str, name: str) -> Finding:
    return Finding(
        "CAP-19",
        where,
        f"the run of {name} to end by itself",
        f"{signal.Signals(signum).name} reached capture; the process group was killed and capture stopped",
    )
