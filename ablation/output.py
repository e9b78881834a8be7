"""Output text and file I/O at the edges: SPEC §8.7/§9.1 serialization, exclusive atomic writes.

The writer is the only place that turns values into output bytes; a file
appears complete or not at all and is never overwritten (PRODUCT.md ``run``).
"""

from __future__ import annotations

import contextlib
import json
import os

from ablation.canonical import js_number, sha256_hex
from ablation.closure import check as closure_check
from ablation.errors import RESOURCE_ERRNOS, AblationError, OutputRefused, ResourcesExhausted
from ablation.files import read_regular
from ablation.interrupts import deferred

__all__ = ["dumps", "read_file", "refuse_existing", "render_output", "write_exclusive"]

_string = json.JSONEncoder(ensure_ascii=False).encode


def _write(value: object, indent: str, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif type(value) is int:
        out.append(str(value))
    elif type(value) is float:
        out.append(js_number(value))
    elif type(value) is str:
        out.append(_string(value))
    elif isinstance(value, list | tuple):
        if not value:
            out.append("[]")
            return
        inner = indent + "  "
        out.append("[")
        for k, element in enumerate(value):
            out.append(",\n" + inner if k else "\n" + inner)
            _write(element, inner, out)
        out.append("\n" + indent + "]")
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = indent + "  "
        out.append("{")
        for k, (name, element) in enumerate(value.items()):
            out.append(",\n" + inner if k else "\n" + inner)
            out.append(_string(name) + ": ")
            _write(element, inner, out)
        out.append("\n" + indent + "}")
    else:
        msg = f"cannot serialize {type(value).__name__}"
        raise TypeError(msg)


def dumps(value: object) -> str:
    """Serialize per SPEC §8.7: 2-space indent, raw UTF-8, §3.2 escapes, §9.1 numbers.

    Identical to ``json.dumps(value, indent=2, ensure_ascii=False)`` except that
    floats are written as ECMAScript does (``1`` not ``1.0``, ``1e-7`` not
    ``1e-07``). No trailing newline.

    Raises:
        ValueError: for NaN or an infinity (never written).
        TypeError: for a value that is not JSON.

    >>> print(dumps({"a": [1.0, 0.5, None], "b": {}}))
    {
      "a": [
        1,
        0.5,
        null
      ],
      "b": {}
    }
    """
    out: list[str] = []
    _write(value, "", out)
    return "".join(out)


def render_output(members: dict[str, object]) -> bytes:
    """The output file's bytes: :func:`dumps` of the members plus one trailing newline."""
    return (dumps(members) + "\n").encode("utf-8")


def refuse_existing(path: str | os.PathLike[str]) -> None:
    """Refuse an output path that exists as anything, including a (dangling) symlink.

    Raises:
        OutputRefused: (exit 5) naming the path.
    """
    if os.path.lexists(path):
        msg = f"output {os.fspath(path)!r} already exists; it is never overwritten (choose a new path)"
        raise OutputRefused(msg)


def read_file(path: str | os.PathLike[str], what: str) -> bytes:
    """Read a whole file named on the command line (:func:`ablation.files.read_regular`).

    Raises:
        UsageError: (exit 2) naming ``what`` and the path when it cannot be read
            or is not a regular file (a FIFO is refused without waiting for a writer).
        ResourcesExhausted: (exit 6) no file descriptor or kernel memory to read it.
    """
    return read_regular(path, what)


_MAX_NAME_BYTES = 255
_RANDOM_CHARACTERS = 8  # what tempfile.mkstemp adds after the prefix


def _temporary_prefix(name: str) -> str:
    """``.<name>.tmp-<pid>-`` (mkstemp adds random characters), shortened, keeping the pid, to fit a file name."""
    suffix = f".tmp-{os.getpid()}-"
    prefix = f".{name}{suffix}"
    if len(prefix.encode("utf-8", "surrogateescape")) + _RANDOM_CHARACTERS <= _MAX_NAME_BYTES:
        return prefix
    return f".{sha256_hex(name.encode('utf-8', 'surrogateescape'))[:32]}{suffix}"


def _refused(path: str | os.PathLike[str], exc: OSError) -> AblationError:
    """The error for an OSError while writing ``path``: exit 6 when the machine ran short, else exit 5."""
    msg = f"cannot write output {os.fspath(path)!r}: {exc.strerror or exc}"
    return ResourcesExhausted(msg) if exc.errno in RESOURCE_ERRNOS else OutputRefused(msg)


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _sync_folder(folder: str) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _write_and_link(fd: int, temporary: str, target: str, data: bytes, mode: int, path: str | os.PathLike[str]) -> None:
    """Write and fsync the temporary file open as ``fd``, then hard-link it to ``target`` (OutputRefused)."""
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode & ~_current_umask())
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        raise _refused(path, exc) from None
    try:
        os.link(temporary, target)
    except FileExistsError:
        msg = f"output {os.fspath(path)!r} appeared while writing; it is never overwritten"
        raise OutputRefused(msg) from None
    except OSError as exc:
        raise _refused(path, exc) from None


def _publish(target: str, folder: str, data: bytes, mode: int, path: str | os.PathLike[str]) -> list[str]:
    """Write the temporary, link it to ``target``, remove it and fsync ``folder``; what could not be confirmed."""
    import tempfile  # noqa: PLC0415 - here: it imports shutil, bz2, lzma and random, which commands that write nothing need not load

    try:
        fd, temporary = tempfile.mkstemp(prefix=_temporary_prefix(os.path.basename(target)), dir=folder)
    except OSError as exc:
        raise _refused(path, exc) from None
    try:
        _write_and_link(fd, temporary, target, data, mode, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    problems = []
    try:
        os.unlink(temporary)
    except OSError as exc:
        problems.append(f"could not remove the temporary {os.path.basename(temporary)!r} ({exc.strerror or exc})")
    try:
        _sync_folder(folder)
    except OSError as exc:
        problems.append(f"could not fsync its folder {folder!r} ({exc.strerror or exc})")
    return problems


def write_exclusive(path: str | os.PathLike[str], data: bytes, *, mode: int = 0o644) -> str | None:
    """Write ``data`` to a new file at ``path``: complete or absent, never overwritten.

    Writes a temporary ``.<name>.tmp-<pid>-<random>`` in the same folder
    (:func:`tempfile.mkstemp`, so a stale temporary of a killed run, even one
    with the same PID in another container, never blocks), fsyncs it,
    hard-links it to ``path`` (``os.link`` fails if ``path`` appeared
    meanwhile) and unlinks the temporary. SIGINT and SIGTERM are held from
    the temporary's creation until its removal and the folder's fsync
    (:func:`ablation.interrupts.deferred`), so they never leave it behind;
    a SIGKILL can leave only the temporary behind. ``mode`` is the new file's permission bits before the
    umask (0600 for a private key).

    Once the link succeeded the output is complete: a failure to fsync the
    folder (a write-only folder cannot be opened; some filesystems answer
    ``EINVAL``) or to remove the temporary only means that durability was
    not confirmed, and is returned as a warning instead of raised.

    Before anything is written, the sealed closure is checked again for every
    file loaded or mapped since start-up (:func:`ablation.closure.check.recheck`),
    so no output is published by code the manifest does not hold.

    Returns:
        ``None``, or one line saying what could not be confirmed after the output was in place.

    Raises:
        OutputRefused: (exit 5) when ``path`` exists or the folder is not writable (``EACCES``, ``ENOSPC``, …).
        ResourcesExhausted: (exit 6) no file descriptor or kernel memory (``EMFILE``, ``ENFILE``, ``ENOMEM``).
        IntegrityError: (exit 3) a loaded or mapped file differs from the closure manifest.

    Side effects: creates ``path``; fsyncs the file and its folder.
    """
    import tempfile  # noqa: F401, PLC0415 - what publishing loads (_publish), loaded before the recheck covers it

    closure_check.recheck()
    target = os.fspath(path)
    if target.endswith(("/", os.sep)) or os.path.basename(target) in (".", ".."):
        msg = f"output {target!r} names a folder; give a file name"
        raise OutputRefused(msg)
    refuse_existing(target)
    folder = os.path.dirname(target) or "."
    with deferred():  # a SIGINT or SIGTERM waits until the temporary is gone (ablation.interrupts)
        problems = _publish(target, folder, data, mode, path)
    if not problems:
        return None
    return f"output {os.fspath(path)!r} is complete, but its durability was not confirmed: " + "; ".join(problems)
