"""The ``ablation`` command line: exit codes and what reaches stderr; the handlers are :mod:`ablation.commands`.

The grammar is :mod:`ablation.arguments`. Exit codes (PRODUCT.md "Command
line"): 0 ok; 2 usage; 3 integrity; 4 input rejected; 5 output refused;
6 resources exhausted (memory or file descriptors, one line, never a
traceback); 130 and 143 interrupted by SIGINT (Ctrl-C) and SIGTERM (one line,
no traceback, no partial output; docs/reference/exit-codes.md); 1 internal error (a bug,
shown with its traceback).
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence

from ablation.arguments import parse_arguments
from ablation.commands import COMMANDS
from ablation.errors import NO_ROOM_ERRNOS, RESOURCE_ERRNOS, AblationError, InputRejected, OutputRefused, RejectedInput
from ablation.interrupts import Interrupted, interruptible, report_stop

__all__ = ["main"]

_EXIT_RESOURCES = 6
# Formatted ahead: when memory ran out, the line to print must not need much more.
_OUT_OF_MEMORY = (
    "ablation: resources exhausted: out of memory (allow the process more memory, or lower --max-input-bytes)"
)
# What the dynamic loader says (dlerror) when a shared library finds no address space: glibc's wording.
_LOADER_OUT_OF_MEMORY = ("failed to map segment from shared object", "annot allocate memory")

# A write to standard output that found no room (every file a command writes maps these
# to OutputRefused itself, so one reaching main is the redirected stdout of verify, notes, …).


def _plug_closed_streams() -> None:
    """A standard stream the caller closed (``2>&-``) becomes the null device.

    Its messages are discarded, as a closed pipe's output is; without this,
    ``print(file=sys.stderr)`` falls back to stdout (a warning inside
    ``verify --json``), ``sys.stderr.isatty()`` raises, and the next file opened
    (the output's temporary) would get the stream's descriptor.
    """
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives as long as the process


def _discard_stdout() -> None:
    """Point stdout at the null device, so the flush at exit does not fail again (exit 120)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _stdout_failure(exc: OSError) -> int | None:
    """The exit code of a failed write to stdout, or ``None`` when ``exc`` is another error.

    A reader that went away (``| head``) is not an error of ours: exit 0. No room
    (stdout redirected to a full disk) is an output refusal: exit 5, one line.
    """
    if isinstance(exc, BrokenPipeError):
        _discard_stdout()
        return 0
    if exc.errno in NO_ROOM_ERRNOS:
        _discard_stdout()
        print(f"ablation: cannot write standard output: {exc.strerror or exc}", file=sys.stderr)
        return OutputRefused.exit_code
    return None


def _flushed(code: int) -> int:
    """``code`` once stdout is flushed (argparse's ``--help``), or :func:`_stdout_failure`'s code."""
    try:
        sys.stdout.flush()
    except OSError as exc:
        stdout_code = _stdout_failure(exc)
        if stdout_code is None:
            raise
        return stdout_code
    return code


def _command(argv: Sequence[str] | None) -> int:
    """Parse the command line and run the command; every reported error becomes its exit code."""
    try:
        args = parse_arguments(argv)
    except SystemExit as exc:  # argparse: --help/--version exit 0, bad usage exits 2
        return _flushed(int(exc.code or 0))
    # The evaluator builds large acyclic trees (parsed JSON, records): reference
    # counting frees them, and the cyclic collector's passes over millions of
    # fresh objects only cost time, so it is paused for the command.
    collecting = gc.isenabled()
    gc.disable()
    try:
        code = COMMANDS[args.command](args)
        sys.stdout.flush()  # here, not at exit: a closed pipe or a full disk would be exit 120 there
        return code
    except (InputRejected, RejectedInput) as exc:
        print(str(exc), file=sys.stderr)
        return exc.exit_code
    except AblationError as exc:
        print(f"ablation: {exc}", file=sys.stderr)
        return exc.exit_code
    except MemoryError:
        print(_OUT_OF_MEMORY, file=sys.stderr)
        return _EXIT_RESOURCES
    except OSError as exc:
        stdout_code = _stdout_failure(exc)
        if stdout_code is not None:
            return stdout_code
        if exc.errno not in RESOURCE_ERRNOS:
            raise
        print(f"ablation: resources exhausted: {exc.strerror or exc}", file=sys.stderr)
        return _EXIT_RESOURCES
    except ImportError as exc:  # the loader could not map a C extension into memory
        if not any(sign in str(exc) for sign in _LOADER_OUT_OF_MEMORY):
            raise
        print(_OUT_OF_MEMORY, file=sys.stderr)
        return _EXIT_RESOURCES
    finally:
        if collecting:
            gc.enable()


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit code (never raises for a reported error).

    Args:
        argv: the arguments after the program name (default: ``sys.argv[1:]``).

    Returns:
        0 ok, 2 usage, 3 integrity, 4 input rejected, 5 output refused,
        6 resources exhausted (``MemoryError``, ``EMFILE``/``ENFILE``/``ENOMEM``,
        or a C extension the loader had no memory to map, from any command,
        reported as one line), 130 or 143 interrupted by SIGINT (Ctrl-C) or
        SIGTERM (one line, no traceback; :mod:`ablation.interrupts`).
    """
    _plug_closed_streams()
    for stream in (sys.stdout, sys.stderr):  # never crash on a path the terminal cannot encode
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        with interruptible():
            return _command(argv)
    except (Interrupted, KeyboardInterrupt) as exc:
        return report_stop("ablation", exc)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
