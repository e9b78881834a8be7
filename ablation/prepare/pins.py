"""Tool pins: hashing the files a preparation runs, checking them (PRE-20), deriving revisions (PRE-12).

A pin is a path and the bare hex SHA-256 of the bytes there. :func:`check_pins`
re-hashes every ``[tools.*]`` file and every ``extra_pins`` file of an
experiment; a missing file or other bytes is an integrity failure (exit 3).
:func:`derive_revision` is how both ``pin`` and ``revision_from_checkout`` find
a tool's revision: the file (its real path) is tracked in a git checkout whose
status is empty, and the revision is that checkout's HEAD.

Spec: PREPARE.md §2 (``pin``), §3 (pins, ``revision_from_checkout``, check 10).
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass

from ablation.prepare.experiment_file import Experiment
from ablation.prepare.findings import EXIT_INTEGRITY, Findings, PrepareRejected
from ablation.prepare.gitread import GitFailed, GitReader
from ablation.prepare.tomltext import where
from ablation.text import is_commit

__all__ = ["FileState", "check_pins", "derive_revision", "read_file_state", "rehash_tools"]


@dataclass(frozen=True, slots=True)
class FileState:
    """What a pinned path holds now: its real path, size in bytes and bare hex SHA-256."""

    realpath: str
    size: int
    sha256: str


def read_file_state(path: str) -> FileState:
    """Hash the regular file at ``path`` (symlinks followed).

    Raises:
        OSError: it cannot be read, or is not a regular file (``strerror``
            ``not a regular file``: a folder, a FIFO that would never end, a device).
    """
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise OSError(0, "not a regular file")
    with open(path, "rb") as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode):  # replaced between the two looks
            raise OSError(0, "not a regular file")
        digest = hashlib.file_digest(stream, "sha256").hexdigest()
    return FileState(os.path.realpath(path), info.st_size, digest)


def _check_one(path: str, pin: str, at: tuple[str | int, ...], findings: Findings) -> None:
    try:
        state = read_file_state(path)
    except OSError as exc:
        why = exc.strerror or str(exc)
        findings.error("PRE-20", where(*at, "path"), "a readable regular file", why, exit_code=EXIT_INTEGRITY)
        return
    if state.sha256 != pin:
        findings.error(
            "PRE-20",
            where(*at, "sha256"),
            f"the bytes at {path!r} to have the pinned SHA-256 {pin}",
            f"{state.sha256} ({state.size} bytes)",
            exit_code=EXIT_INTEGRITY,
        )


def check_pins(experiment: Experiment, findings: Findings, keys: tuple[str, ...] | None = None) -> None:
    """PRE-20: every tool file (``keys``, default all) and each of its ``extra_pins`` holds its pinned bytes.

    Findings are integrity errors (exit 3); a pin that is not 64 lowercase hex
    (PRE-9) is left to the value checks and not compared here.
    """
    for key, tool in experiment.tools.items():
        if keys is not None and key not in keys:
            continue
        if _is_hex64(tool.sha256):
            _check_one(tool.path, tool.sha256, ("tools", key), findings)
        for k, extra in enumerate(tool.extra_pins):
            if _is_hex64(extra.sha256):
                _check_one(extra.path, extra.sha256, ("tools", key, "extra_pins", k), findings)


def _is_hex64(text: str) -> bool:
    return len(text) == 64 and all(c in "0123456789abcdef" for c in text)


def derive_revision(git: GitReader, path: str) -> tuple[str | None, str]:
    """The revision of the file at ``path``: HEAD of the clean git checkout that tracks it.

    Returns:
        ``(revision, "")``, or ``(None, why)`` when the real path is not in a
        git checkout, the checkout's status is not empty, the file is not
        tracked, or HEAD is not a ``Commit``.
    """
    real = os.path.realpath(path)
    try:
        top = os.fsdecode(git.run(os.path.dirname(real), "rev-parse", "--show-toplevel", discover=True).rstrip(b"\n"))
    except GitFailed as exc:
        return None, f"{real!r} is not in a git checkout ({exc.why})"
    relative = os.path.relpath(real, top)
    try:
        status = git.status(top)
        tracked = git.tracked(top, relative)
        head = git.head(top)
    except GitFailed as exc:
        return None, f"git cannot read the checkout {top!r} ({exc.why})"
    if status:
        listed = status.count(b"\0")
        return None, f"the checkout {top!r} is not clean (git status lists {listed} path{'' if listed == 1 else 's'})"
    if not tracked:
        return None, f"{relative!r} is not tracked in the checkout {top!r}"
    if not is_commit(head):
        return None, f"HEAD of {top!r} is {head!r}, not a commit id"
    return head, ""


def rehash_tools(experiment: Experiment, keys: tuple[str, ...]) -> dict[str, str]:
    """Hash each tool of ``keys`` and its ``extra_pins`` again, right before a spawn that runs them.

    Returns:
        The bare hex SHA-256 by location (``git``, ``sci``, ``sci.extra_pins[0]``), every one equal to its pin.

    Raises:
        PrepareRejected: PRE-20 (exit 3) for the first file that is gone or holds other bytes.
    """
    found: dict[str, str] = {}
    for key in keys:
        tool = experiment.tools[key]
        files: list[tuple[str, str, str, tuple[str | int, ...]]] = [(key, tool.path, tool.sha256, ("tools", key))]
        files += [
            (f"{key}.extra_pins[{k}]", e.path, e.sha256, ("tools", key, "extra_pins", k))
            for k, e in enumerate(tool.extra_pins)
        ]
        for name, path, pin, at in files:
            findings = Findings()
            _check_one(path, pin, at, findings)
            if findings.errors:
                raise PrepareRejected(findings.errors[:1])
            found[name] = pin
    return found
