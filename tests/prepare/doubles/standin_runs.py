"""Run a stand-in the way PREPARE.md §4 runs an owner, so that no stand-in process survives a test.

The stand-in leads its own session and process group, reads ``/dev/null``, and
writes stdout and stderr to files (never pipes: an orphan holding stdout cannot
hold the test up). This process makes itself a child subreaper, so the orphans
a stand-in leaves are re-parented here and reaped (``waitpid(-pgid)``) until
``killpg(pgid, 0)`` gives ESRCH; PID 1 on this machine does not reap, and a
zombie keeps its group alive. A group still alive at the end of the grace is
killed; so is the whole group on a timeout or on any error.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

_PR_SET_CHILD_SUBREAPER = 36
_KILL_WAIT_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class OwnerRun:
    """What one stand-in run did.

    Attributes:
        pgid: the process group (and pid) of the leader; the group is gone when the run returns.
        exit_code: the leader's exit status; ``None`` when a signal ended it.
        signal: the signal that ended the leader, else ``None``.
        stdout, stderr: the bytes written to the two files.
        timed_out: the leader outlived ``timeout`` and the group was killed.
        orphans_seen: a process of the group was alive right after the leader was reaped.
        killed: the group was killed (timeout, or alive at the end of the grace).
        confirmed: ``processGroupTerminationConfirmed``: the group ended with nothing killed.
    """

    pgid: int
    exit_code: int | None
    signal: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool
    orphans_seen: bool
    killed: bool
    confirmed: bool


def become_subreaper() -> None:
    """``prctl(PR_SET_CHILD_SUBREAPER, 1)`` for this process (Linux); idempotent.

    Raises:
        OSError: the call failed.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno), "prctl(PR_SET_CHILD_SUBREAPER)")


def group_gone(pgid: int) -> bool:
    """Reap every exited process of group ``pgid`` that is a child of this process; true when none is left."""
    while True:
        try:
            pid, _ = os.waitpid(-pgid, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def kill_group(pgid: int) -> None:
    """SIGKILL group ``pgid`` and reap it until it is gone.

    Raises:
        RuntimeError: the group was still there after 10 s.
    """
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + _KILL_WAIT_SECONDS
    while not group_gone(pgid):
        if time.monotonic() > deadline:
            raise RuntimeError(f"process group {pgid} survived SIGKILL")
        time.sleep(0.01)


def run_owner(
    argv: list[str], *, cwd: Path, env: dict[str, str], out_dir: Path, timeout: float = 60.0, grace: float = 5.0
) -> OwnerRun:
    """Run ``argv`` as an owner and wait until its process group is gone.

    Args:
        argv: the argv (``argv[0]`` is executed as given).
        cwd: the working directory (the target).
        env: the whole environment (see :func:`standins.owner_env`).
        out_dir: a folder for the ``stdout`` and ``stderr`` files (created exclusively).
        timeout: wall limit for the leader, in seconds; then the group is killed.
        grace: how long the group may outlive the leader before it is killed, in seconds.

    Returns:
        The :class:`OwnerRun`; by then no process of the group is left.
    """
    become_subreaper()
    out_dir.mkdir(parents=True, exist_ok=True)
    stdout_path, stderr_path = out_dir / "stdout", out_dir / "stderr"
    with stdout_path.open("xb") as out, stderr_path.open("xb") as err:
        proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True
        )
    pgid, timed_out, killed = proc.pid, False, False
    try:
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = killed = True
            os.killpg(pgid, signal.SIGKILL)
            proc.wait()  # the leader first: Popen reads its status (reaped by group_gone, it would read 0)
        orphans_seen = not group_gone(pgid)
        deadline = time.monotonic() + grace
        while not group_gone(pgid) and time.monotonic() < deadline:
            time.sleep(0.02)
        if not group_gone(pgid):
            killed = True
            kill_group(pgid)
    except BaseException:
        kill_group(pgid)
        raise
    code = proc.returncode
    return OwnerRun(
        pgid=pgid,
        exit_code=code if code >= 0 else None,
        signal=-code if code < 0 else None,
        stdout=stdout_path.read_bytes(),
        stderr=stderr_path.read_bytes(),
        timed_out=timed_out,
        orphans_seen=orphans_seen,
        killed=killed,
        confirmed=not killed,
    )
