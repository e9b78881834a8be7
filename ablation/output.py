"""Output text and file I/O at the edges: SPEC §8.7/§9.1 serialization, exclusive atomic writes.

The writer is the only place that turns values into output bytes; a file
appears complete or not at all and is never overwritten (PRODUCT.md ``run``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ablation.canonical import js_number, sha256_hex
from ablation.closure import check as closure_check
from ablation.errors import OutputRefused, UsageError

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
    """Read a whole file named on the command line.

    Raises:
        UsageError: (exit 2) naming ``what`` and the path when it cannot be read.
    """
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        msg = f"cannot read {what} {os.fspath(path)!r}: {exc.strerror or exc}"
        raise UsageError(msg) from None


_MAX_NAME_BYTES = 255


def _temporary_name(name: str) -> str:
    """``.<name>.tmp-<pid>``, shortened (keeping the pid) when it would exceed a file-name limit."""
    suffix = f".tmp-{os.getpid()}"
    temporary = f".{name}{suffix}"
    if len(temporary.encode("utf-8", "surrogateescape")) <= _MAX_NAME_BYTES:
        return temporary
    return f".{sha256_hex(name.encode('utf-8', 'surrogateescape'))[:32]}{suffix}"


def write_exclusive(path: str | os.PathLike[str], data: bytes, *, mode: int = 0o644) -> None:
    """Write ``data`` to a new file at ``path``: complete or absent, never overwritten.

    Writes ``.<name>.tmp-<pid>`` in the same folder, fsyncs it, hard-links it
    to ``path`` (``os.link`` fails if ``path`` appeared meanwhile) and unlinks
    the temporary. A SIGKILL can leave only the temporary behind. ``mode`` is
    the new file's permission bits (0600 for a private key).

    Before anything is written, the sealed closure is checked again for every
    file loaded or mapped since start-up (:func:`ablation.closure.check.recheck`),
    so no output is published by code the manifest does not hold.

    Raises:
        OutputRefused: (exit 5) when ``path`` exists or the folder is not writable.
        IntegrityError: (exit 3) a loaded or mapped file differs from the closure manifest.

    Side effects: creates ``path``; fsyncs the file and its folder.
    """
    closure_check.recheck()
    if os.fspath(path).endswith(("/", os.sep)):
        msg = f"output {os.fspath(path)!r} names a folder; give a file name"
        raise OutputRefused(msg)
    target = Path(path)
    refuse_existing(target)
    temporary = target.with_name(_temporary_name(target.name))
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except OSError as exc:
        msg = f"cannot write output {os.fspath(path)!r}: {exc.strerror}"
        raise OutputRefused(msg) from None
    try:
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            msg = f"cannot write output {os.fspath(path)!r}: {exc.strerror or exc}"
            raise OutputRefused(msg) from None
        try:
            os.link(temporary, target)
        except FileExistsError:
            msg = f"output {os.fspath(path)!r} appeared while writing; it is never overwritten"
            raise OutputRefused(msg) from None
        except OSError as exc:
            msg = f"cannot write output {os.fspath(path)!r}: {exc.strerror}"
            raise OutputRefused(msg) from None
    finally:
        temporary.unlink(missing_ok=True)
    folder = os.open(target.parent if str(target.parent) else ".", os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
