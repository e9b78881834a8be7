"""Running one process the way ``capture`` runs owners: its own session, files for output, reaped to the end.

This is the one place ``capture`` starts a process (the audited read-only git
helper, :mod:`ablation.prepare.gitread`, serves ``pin``, ``check`` and ``sheet``).
Every process it starts, an owner or prepare's own git:

- leads its own session and process group (``start_new_session=True``), reads
  ``/dev/null``, and writes stdout and stderr to two files created exclusively
  (``O_CREAT|O_EXCL``), never to pipes, so an orphan that keeps stdout open
  cannot hold ``capture`` up;
- is waited for with a wall limit; while it runs, both files are watched, and
  once one reaches 16 MiB + 1 byte the group is killed (the files stay as written);
- is followed to the end of its group: this process is a child subreaper
  (``prctl(PR_SET_CHILD_SUBREAPER)``), so orphans are re-parented here and
  reaped (``waitpid(-pgid, WNOHANG)``) until ``killpg(pgid, 0)`` gives ESRCH;
  PID 1 on the machines this was built on does not reap, and a zombie keeps its
  group alive. A group still alive :data:`GRACE_S` seconds after the leader
  exited is killed and the run is *not confirmed*
  (``processGroupTerminationConfirmed`` is ESRCH reached with nothing killed);
- is killed, with its group, when SIGINT or SIGTERM reaches ``capture`` during
  :func:`interruptible` (the owner, in its own session, never receives the
  terminal's signal itself).

Owners run strictly one after another, so reaping by process group never takes
a child that another wait is for. A descendant that leaves the group (``setsid``)
is not followed: no in-process check can see it.

Tests shorten :data:`GRACE_S` by patching the module attribute; there is no
command-line option or environment variable for it.

Spec: PREPARE.md §4 ("Process discipline", "Interruption").
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType

__all__ = [
    "GRACE_S",
    "OUTPUT_CAP_BYTES",
    "Launch",
    "RunOutcome",
    "interruptible",
    "pending_signal",
    "run",
]

OUTPUT_CAP_BYTES = 16 * 1024 * 1024 + 1
"""A stdout or stderr file of this size or more ends the run (OBS-27: a raw text holds at most 16 MiB)."""
GRACE_S = 5.0
"""How long a group may outlive its leader before it is killed (PREPARE.md §4: 5 s)."""

_PR_SET_CHILD_SUBREAPER = 36
_POLL_S = 0.05
_REAP_POLL_S = 0.01
_KILL_WAIT_S = 10.0
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True, slots=True)
class Launch:
    """One process to start.

    Attributes:
        argv: what runs (``argv[0]`` is executed as given: an absolute path).
        cwd: its working directory.
        env: its whole environment (:mod:`ablation.prepare.environment`).
        stdout, stderr: the two files to create exclusively for its output.
        timeout_s: the wall limit for the leader, in seconds.
    """

    argv: tuple[str, ...]
    cwd: str
    env: dict[str, str]
    stdout: str
    stderr: str
    timeout_s: float


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What one run did; by the time it is returned no process of its group is left.

    Attributes:
        pid: the leader's pid, which is also the group id (``None`` when it did not start).
        exit_code: the leader's exit status; ``None`` when a signal ended it or it did not start.
        signal: the signal that ended the leader, else ``None``.
        start_ns, end_ns: ``time.monotonic_ns()`` at the start and when the group was gone.
        timed_out: the leader outlived ``timeout_s``; the group was killed.
        output_cap_exceeded: a file reached :data:`OUTPUT_CAP_BYTES`; the group was killed.
        interrupted: the signal (SIGINT, SIGTERM) that reached ``capture`` during the run, else ``None``.
        orphans: processes of the group reaped after the leader (orphaned descendants).
        killed: the group was killed (timeout, output cap, interruption, or alive after the grace).
        confirmed: the group ended by itself, nothing killed (``processGroupTerminationConfirmed``).
        grace_s: the grace period that applied.
        not_started: why the process could not start (``exec`` failed), else ``None``.
    """

    pid: int | None
    exit_code: int | None
    signal: int | None
    start_ns: int
    end_ns: int
    timed_out: bool
    output_cap_exceeded: bool
    interrupted: int | None
    orphans: int
    killed: bool
    confirmed: bool
    grace_s: float
    not_started: str | None = None

    @property
    def clean_exit(self) -> bool:
        """Exit status 0, no signal, nothing killed: the run ended by itself and its group with it."""
        return self.exit_code == 0 and self.confirmed


class _Signals:
    """The SIGINT/SIGTERM that reached ``capture`` while :func:`interruptible` was active."""

    pending: int | None = None
    active: bool = False


def pending_signal() -> int | None:
    """The signal number received during :func:`interruptible`, or ``None``."""
    return _Signals.pending


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Catch SIGINT and SIGTERM for the block: a run in progress then kills its group and returns.

    Outside the block the previous handlers are back. Must be entered from the main thread.
    """

    def note(signum: int, _frame: FrameType | None) -> None:
        _Signals.pending = signum

    previous = {s: signal.signal(s, note) for s in (signal.SIGINT, signal.SIGTERM)}
    _Signals.pending, _Signals.active = None, True
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        _Signals.active = False


def _become_subreaper() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno), "prctl(PR_SET_CHILD_SUBREAPER)")


def _reap(pgid: int) -> int:
    """Reap every exited process of group ``pgid`` that is a child of this process; how many."""
    count = 0
    while True:
        try:
            pid, _ = os.waitpid(-pgid, os.WNOHANG)
        except ChildProcessError:
            return count
        if pid == 0:
            return count
        count += 1


def _gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _kill(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)


def _oversize(fds: tuple[int, int]) -> bool:
    return any(os.fstat(fd).st_size >= OUTPUT_CAP_BYTES for fd in fds)


def _wait_leader(
    proc: subprocess.Popen[bytes], fds: tuple[int, int], timeout_s: float
) -> tuple[bool, bool, int | None]:
    """Wait for the leader (wall limit, output cap, interruption); kill the group on any of them.

    Returns:
        ``(timed_out, output_cap_exceeded, interrupted)``, the leader reaped by ``proc``.
    """
    deadline = time.monotonic() + timeout_s
    pidfd = None
    with contextlib.suppress(OSError, AttributeError):
        pidfd = os.pidfd_open(proc.pid)
    try:
        while proc.poll() is None:
            interrupted = _Signals.pending
            timed_out = interrupted is None and time.monotonic() >= deadline
            capped = interrupted is None and not timed_out and _oversize(fds)
            if interrupted is not None or timed_out or capped:
                _kill(proc.pid)
                proc.wait()  # the leader first: Popen keeps its status (a group reap would lose it)
                return timed_out, capped, interrupted
            wait = min(_POLL_S, max(0.0, deadline - time.monotonic()))
            if pidfd is not None:
                select.select([pidfd], [], [], wait)
            else:
                time.sleep(wait)
    finally:
        if pidfd is not None:
            os.close(pidfd)
    return False, _oversize(fds), None


def _follow_group(pgid: int, *, killed: bool, grace_s: float) -> tuple[int, bool]:
    """Reap the group until it is gone; kill it after the grace (or at once when ``killed``).

    Returns:
        ``(orphans reaped, killed)``.

    Raises:
        OSError: the group survived SIGKILL for 10 s (the machine is in trouble).
    """
    orphans = _reap(pgid)
    deadline = time.monotonic() + grace_s
    while not _gone(pgid):
        if not killed and (time.monotonic() >= deadline or _Signals.pending is not None):
            killed = True
        if killed:
            _kill(pgid)
            break
        time.sleep(_REAP_POLL_S)
        orphans += _reap(pgid)
    kill_deadline = time.monotonic() + _KILL_WAIT_S
    while not _gone(pgid):
        orphans += _reap(pgid)
        if time.monotonic() >= kill_deadline:
            raise OSError(0, f"process group {pgid} survived SIGKILL for {_KILL_WAIT_S:g} s")
        time.sleep(_REAP_POLL_S)
    return orphans + _reap(pgid), killed


def _start(launch: Launch, fds: tuple[int, int]) -> subprocess.Popen[bytes]:
    """The one ``Popen`` of ``capture``: own session, ``/dev/null`` in, the two files out."""
    return subprocess.Popen(
        launch.argv,
        cwd=launch.cwd,
        env=launch.env,
        stdin=subprocess.DEVNULL,
        stdout=fds[0],
        stderr=fds[1],
        start_new_session=True,
    )


def _open_outputs(launch: Launch) -> tuple[int, int]:
    """Create the stdout and stderr files exclusively; their descriptors.

    Raises:
        OSError: a file exists already or cannot be created; a stdout file already made is kept
            (nothing captured is ever removed), its descriptor closed.
    """
    stdout_fd = os.open(launch.stdout, _FILE_FLAGS, 0o644)
    try:
        return stdout_fd, os.open(launch.stderr, _FILE_FLAGS, 0o644)
    except BaseException:
        os.close(stdout_fd)
        raise


def run(launch: Launch, *, started: Callable[[int], None] | None = None) -> RunOutcome:
    """Start ``launch``, wait for it and its whole process group, and say what happened.

    Args:
        launch: what to run and where its output goes.
        started: called with the leader's pid as soon as it runs (``capture`` records it in the
            ledger, so a crash leaves the group's id behind).

    Returns:
        The outcome; the two output files exist (possibly empty) whatever happened.

    Raises:
        OSError: an output file could not be created (it exists, or the folder is not writable),
            or the group survived SIGKILL.
    """
    _become_subreaper()
    grace_s = GRACE_S
    fds = _open_outputs(launch)
    start = time.monotonic_ns()
    try:
        if _Signals.pending is not None:
            return RunOutcome(None, None, None, start, start, False, False, _Signals.pending, 0, False, False, grace_s)
        try:
            proc = _start(launch, fds)
        except OSError as exc:
            end = time.monotonic_ns()
            why = exc.strerror or str(exc)
            return RunOutcome(None, None, None, start, end, False, False, None, 0, False, False, grace_s, why)
        try:
            if started is not None:
                started(proc.pid)
            timed_out, capped, interrupted = _wait_leader(proc, fds, launch.timeout_s)
            orphans, killed = _follow_group(proc.pid, killed=bool(timed_out or capped or interrupted), grace_s=grace_s)
        except BaseException:
            _kill(proc.pid)
            proc.wait()
            _follow_group(proc.pid, killed=True, grace_s=0.0)
            raise
    finally:
        for fd in fds:
            os.close(fd)
    code = proc.returncode
    return RunOutcome(
        pid=proc.pid,
        exit_code=code if code >= 0 else None,
        signal=-code if code < 0 else None,
        start_ns=start,
        end_ns=time.monotonic_ns(),
        timed_out=timed_out,
        output_cap_exceeded=capped,
        interrupted=interrupted if interrupted is not None else _Signals.pending,
        orphans=orphans,
        killed=killed,
        confirmed=not killed,
        grace_s=grace_s,
    )
