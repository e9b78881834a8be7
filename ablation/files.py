"""Files named on the command line, opened for reading: never blocking, and only when they are regular files.

Every option that names a file to read (``--input``, ``--results``,
``--sign-key``, ``--public-key``, ``--bundle`` and ``verify-archive``'s
bundle) goes through :func:`open_regular`. The file is opened with
``O_NONBLOCK``, so opening a FIFO that has no writer returns at once instead
of waiting for one, and the opened object's ``fstat`` decides: anything but a
regular file (a FIFO, a socket, a device, a folder) is a usage error naming
the option's file, before a byte is read, without blocking. ``O_NONBLOCK`` has
no effect on reads of a regular file. A symbolic link given here is followed:
the file it names must be regular. ``--evidence`` has its own careful walk
(:mod:`ablation.bundle.evidence`).
"""

from __future__ import annotations

import errno
import os
import stat

from ablation.errors import RESOURCE_ERRNOS, ResourcesExhausted, UsageError

TYPE_CHECKING = False  # not typing's: the start-up modules do not import typing (ablation.closure.record)
if TYPE_CHECKING:
    from typing import BinaryIO

__all__ = ["describe_kind", "open_regular", "read_regular"]

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISREG, "a regular file"),
)


def describe_kind(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words (``"a FIFO (named pipe)"``, ``"a folder"``, …).

    >>> describe_kind(stat.S_IFIFO | 0o644), describe_kind(stat.S_IFREG | 0o644)
    ('a FIFO (named pipe)', 'a regular file')
    """
    for test, name in _KINDS:
        if test(mode):
            return name
    return f"an unknown kind of file (mode 0o{mode:o})"


def _not_regular(path: str, what: str, mode: int) -> UsageError:
    return UsageError(f"{what} {path!r} is {describe_kind(mode)}, not a regular file; give the file itself")


def _cannot_read(path: str, what: str, exc: OSError) -> UsageError | ResourcesExhausted:
    msg = f"cannot read {what} {path!r}: {exc.strerror or exc}"
    return ResourcesExhausted(msg) if exc.errno in RESOURCE_ERRNOS else UsageError(msg)


def _mode(path: str | os.PathLike[str]) -> int | None:
    try:
        return os.stat(path).st_mode
    except OSError:
        return None


def open_regular(path: str | os.PathLike[str], what: str) -> BinaryIO:
    """Open a file named on the command line for reading, once it is known to be a regular file.

    Args:
        path: the path as given (a symbolic link is followed).
        what: how messages name it: ``input``, ``results file``, ``bundle``, ….

    Returns:
        The open file (binary, buffered); the caller closes it.

    Raises:
        UsageError: ``<what> '<path>' is a FIFO (named pipe), not a regular
            file; …`` for anything but a regular file (never waiting for a
            FIFO's writer), or ``cannot read <what> '<path>': <reason>`` (exit 2).
        ResourcesExhausted: no file descriptor or kernel memory (exit 6).
    """
    shown = os.fspath(path)
    try:
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        mode = _mode(path) if exc.errno == errno.ENXIO else None  # a socket cannot be opened
        if mode is not None and not stat.S_ISREG(mode):
            raise _not_regular(shown, what, mode) from None
        raise _cannot_read(shown, what, exc) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(shown, what, mode)
        return os.fdopen(fd, "rb")
    except BaseException as exc:
        os.close(fd)
        if isinstance(exc, OSError):
            raise _cannot_read(shown, what, exc) from None
        raise


def read_regular(path: str | os.PathLike[str], what: str) -> bytes:
    """The whole content of a regular file named on the command line (:func:`open_regular`).

    Raises:
        UsageError: not a regular file, or unreadable (exit 2).
        ResourcesExhausted: no file descriptor or kernel memory (exit 6).
    """
    with open_regular(path, what) as handle:
        try:
            return handle.read()
        except OSError as exc:
            raise _cannot_read(os.fspath(path), what, exc) from None
