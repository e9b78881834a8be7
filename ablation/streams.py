"""A command line's standard streams: closed by the caller, a reader that went away, a full disk.

Both command lines (:mod:`ablation.cli`, :mod:`ablation.prepare.cli`) use these,
so that what a caller did to stdout and stderr ends the same way in both:

- a stream the caller closed (``>&-``, ``2>&-``) becomes the null device;
- a reader that went away (``| head``) is not an error of ours: exit 0;
- no room for stdout (redirected to a full disk) is an output refusal: exit 5,
  one line.

In each case the flush at exit cannot fail again (exit 120 with a traceback-like
"Exception ignored" message), because stdout then points at the null device.
"""

from __future__ import annotations

import os
import sys

from ablation.errors import NO_ROOM_ERRNOS, OutputRefused

__all__ = ["flushed", "plug_closed_streams", "stdout_failure"]


def plug_closed_streams() -> None:
    """A standard stream the caller closed (``2>&-``) becomes the null device; both never fail on encoding.

    Its messages are discarded, as a closed pipe's output is; without this,
    ``print(file=sys.stderr)`` falls back to stdout (a warning inside
    ``verify --json``), ``sys.stderr.isatty()`` raises, and the next file opened
    (the output's temporary) would get the stream's descriptor. A path the
    terminal cannot encode is written with backslash escapes, never a crash.
    """
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


def _discard_stdout() -> None:
    """Point stdout at the null device, so the flush at exit does not fail again (exit 120)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def stdout_failure(exc: OSError, program: str) -> int | None:
    """The exit code of a failed write to stdout, or ``None`` when ``exc`` is another error.

    A reader that went away (``| head``) is not an error of ours: exit 0. No room
    (stdout redirected to a full disk) is an output refusal: exit 5, one line
    ``<program>: cannot write standard output: <why>``.
    """
    if isinstance(exc, BrokenPipeError):
        _discard_stdout()
        return 0
    if exc.errno in NO_ROOM_ERRNOS:
        _discard_stdout()
        sys.stderr.write(f"{program}: cannot write standard output: {exc.strerror or exc}\n")
        return OutputRefused.exit_code
    return None


def flushed(code: int, program: str) -> int:
    """``code`` once stdout is flushed, or :func:`stdout_failure`'s code.

    Raises:
        OSError: the flush failed for another reason than a reader gone or no room.
    """
    try:
        sys.stdout.flush()
    except OSError as exc:
        stdout_code = stdout_failure(exc, program)
        if stdout_code is None:
            raise
        return stdout_code
    return code
