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
import sys
from collections.abc import Sequence

from ablation.arguments import parse_arguments
from ablation.commands import COMMANDS
from ablation.errors import RESOURCE_ERRNOS, AblationError, InputRejected, RejectedInput
from ablation.interrupts import Interrupted, interruptible, report_stop
from ablation.streams import flushed, plug_closed_streams, stdout_failure

__all__ = ["main"]

_EXIT_RESOURCES = 6
# Formatted ahead: when memory ran out, the line to print must not need much more.
_OUT_OF_MEMORY = (
    "ablation: resources exhausted: out of memory (allow the process more memory, or lower --max-input-bytes)"
)
# What the dynamic loader says (dlerror) when a shared library finds no address space: glibc's wording.
_LOADER_OUT_OF_MEMORY = ("failed to map segment from shared object", "annot allocate memory")


def _command(argv: Sequence[str] | None) -> int:
    """Parse the command line and run the command; every reported error becomes its exit code."""
    try:
        args = parse_arguments(argv)
    except SystemExit as exc:  # argparse: --help/--version exit 0, bad usage exits 2
        return flushed(int(exc.code or 0), "ablation")
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
        stdout_code = stdout_failure(exc, "ablation")
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
    plug_closed_streams()
    try:
        with interruptible():
            return _command(argv)
    except (Interrupted, KeyboardInterrupt) as exc:
        return report_stop("ablation", exc)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
