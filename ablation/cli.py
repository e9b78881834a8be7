"""The ``ablation`` command line: argument parsing and exit codes; the handlers are :mod:`ablation.commands`.

Exit codes (PRODUCT.md "Command line"): 0 ok; 2 usage; 3 integrity; 4 input
rejected; 5 output refused; 6 resources exhausted (memory or file descriptors,
one line, never a traceback); 1 internal error (a bug, shown with its traceback).
"""

from __future__ import annotations

import argparse
import errno
import gc
import os
import re
import sys
from collections.abc import Sequence

from ablation import __version__
from ablation.commands import COMMANDS
from ablation.errors import RESOURCE_ERRNOS, AblationError, InputRejected, OutputRefused, RejectedInput

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
_NO_ROOM_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})

# Mirrors ablation.pipeline.DEFAULT_MAX_INPUT_BYTES, which is not imported before
# the closure check (ablation.commands).
_DEFAULT_MAX_INPUT_BYTES = 1 << 30
_MAX_BYTE_COUNT = 1 << 40


def _byte_count(text: str) -> int:
    """A positive byte count up to 1 TiB (argparse type; anything else is a usage error)."""
    try:
        value = int(text, 10)
    except ValueError:
        msg = f"not a whole number of bytes: {text!r}"
        raise argparse.ArgumentTypeError(msg) from None
    if not 1 <= value <= _MAX_BYTE_COUNT:
        msg = f"must be from 1 to {_MAX_BYTE_COUNT} bytes, got {value}"
        raise argparse.ArgumentTypeError(msg)
    return value


def _path(text: str) -> str:
    """A file name given on the command line (argparse type): an empty one names no file."""
    if not text:
        msg = "an empty path names no file"
        raise argparse.ArgumentTypeError(msg)
    return text


_IMAGE_ID = re.compile(r"sha256:[0-9a-f]{64}")


def _image_id(text: str) -> str:
    """A container image ID as ``docker image inspect --format '{{.Id}}'`` prints it (argparse type)."""
    if _IMAGE_ID.fullmatch(text) is None:
        msg = f"not an image ID ('sha256:' and 64 lowercase hex digits): {text[:80]!r}"
        raise argparse.ArgumentTypeError(msg)
    return text


def _add_input(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--input", required=True, metavar="F", type=_path, help="prepared input (.json or .json.gz)")
    parser.add_argument("--input-sha256", metavar="HEX", help="SHA-256 of the exact (decompressed) JSON bytes")
    parser.add_argument("--input-gzip-sha256", metavar="HEX", help="SHA-256 of the .json.gz file itself")
    parser.add_argument(
        "--max-input-bytes",
        type=_byte_count,
        default=_DEFAULT_MAX_INPUT_BYTES,
        metavar="N",
        help="bound on the (decompressed) input size (default 1 GiB)",
    )
    parser.add_argument(
        "--errors",
        choices=("first", "all"),
        default="first",
        help="report the first violation (default) or every one found",
    )


def _command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    text: str,
) -> argparse.ArgumentParser:
    """A command whose one-line help is listed by ``ablation --help`` and heads its own ``--help``."""
    return sub.add_parser(name, help=text, description=f"{text[0].upper()}{text[1:]}.")


def _add_archive(archive: argparse.ArgumentParser) -> None:
    archive.add_argument(
        "--input", required=True, metavar="F", type=_path, help="the prepared input the results were made from"
    )
    archive.add_argument("--results", required=True, metavar="OUT", type=_path, help="the results file written by run")
    archive.add_argument("--bundle", required=True, metavar="B", type=_path, help="new bundle file (never overwritten)")
    archive.add_argument(
        "--evidence",
        action="append",
        default=[],
        metavar="PATH",
        type=_path,
        help="a file or folder to add under extra/ (repeatable)",
    )
    archive.add_argument(
        "--sign-key", metavar="K", type=_path, help="Ed25519 PEM private key (from keygen): sign SHA256SUMS"
    )


def _add_notes(notes: argparse.ArgumentParser) -> None:
    notes.add_argument("--results", required=True, metavar="OUT", type=_path, help="the results file written by run")
    notes.add_argument(
        "--bundle", metavar="B", type=_path, help="its evidence bundle: cite its digests and report its signature"
    )
    notes.add_argument(
        "--image-digest",
        metavar="D",
        type=_image_id,
        help="container image ID to cite (asserted; a warning when the results file records another)",
    )
    notes.add_argument(
        "--public-key", metavar="P", type=_path, help="Ed25519 PEM public key: check the bundle's signature"
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ablation",
        description="Sealed evaluator for pi-context-packer-source-selection-ablation/v2 prepared inputs.",
    )
    parser.add_argument("--version", action="version", version=f"ablation {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = _command(sub, "run", "verify the input hash, validate, evaluate and write the output file")
    _add_input(run)
    run.add_argument("--output", required=True, metavar="OUT", type=_path, help="new output file (never overwritten)")

    verify = _command(sub, "verify", "everything run checks, without ranking or metrics")
    _add_input(verify)
    verify.add_argument("--json", action="store_true", help="machine-readable summary")

    _command(sub, "identity", "print the evaluator identity (JSON)")

    _add_archive(_command(sub, "archive", "write a deterministic evidence bundle (.tar.gz)"))

    verify_archive = _command(sub, "verify-archive", "re-check a bundle and recompute its result")
    verify_archive.add_argument("bundle", metavar="B", type=_path, help="the bundle file")
    verify_archive.add_argument(
        "--public-key",
        metavar="P",
        type=_path,
        help="Ed25519 PEM public key: the bundle must carry a valid signature by it",
    )

    keygen = _command(sub, "keygen", "make an Ed25519 key pair for signing bundles")
    keygen.add_argument(
        "--private-key", required=True, metavar="K", type=_path, help="new private key file (PEM, mode 0600)"
    )
    keygen.add_argument("--public-key", required=True, metavar="P", type=_path, help="new public key file (PEM)")

    _add_notes(_command(sub, "notes", "draft Markdown review notes (written to stdout)"))
    return parser


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
    if exc.errno in _NO_ROOM_ERRNOS:
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit code (never raises for a reported error).

    Args:
        argv: the arguments after the program name (default: ``sys.argv[1:]``).

    Returns:
        0 ok, 2 usage, 3 integrity, 4 input rejected, 5 output refused,
        6 resources exhausted (``MemoryError``, ``EMFILE``/``ENFILE``/``ENOMEM``,
        or a C extension the loader had no memory to map, from any command,
        reported as one line).
    """
    _plug_closed_streams()
    for stream in (sys.stdout, sys.stderr):  # never crash on a path the terminal cannot encode
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    parser = _parser()
    try:
        args = parser.parse_args(argv)
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


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
