"""The ``ablation-prepare`` command line: argument parsing and exit codes; the handlers are in
:mod:`ablation.prepare.commands`.

A second console script, separate from ``ablation``: the evaluator's commands
never load this package. Exit codes and the error format are the product's
(PRODUCT.md "Command line", SPEC §2.5): 0 ok; 2 usage; 3 integrity (a tool
whose bytes no longer match its pin); 4 rejected (a PRE rule, or the SPEC rule
the experiment file already breaks, at its TOML location); 5 output refused;
6 resources exhausted; 1 internal error (a bug, shown with its traceback).

The command line takes exactly what was typed, as ``ablation``'s does
(:mod:`ablation.arguments`): no abbreviations, and an option given twice is a
usage error naming it (exit 2); only ``--allow-unavailable-structural`` may be
repeated (each occurrence adds its case ids). No option takes a number.

Spec: PREPARE.md §2.
"""

from __future__ import annotations

import argparse
import errno
import sys
from collections.abc import Sequence
from typing import Any

from ablation.arguments import OPTIONS_GIVEN, HelpFormatter, Once, SourceVersion
from ablation.errors import NO_ROOM_ERRNOS, RESOURCE_ERRNOS, AblationError
from ablation.interrupts import Interrupted, interruptible, report_stop
from ablation.prepare.commands import COMMANDS
from ablation.prepare.findings import PrepareRejected
from ablation.streams import flushed, plug_closed_streams, stdout_failure

__all__ = ["main"]

_PROG = "ablation-prepare"
_EXIT_RESOURCES = 6
_EXIT_OUTPUT = 5
_WRITE_REFUSED_ERRNOS = NO_ROOM_ERRNOS | {errno.EROFS}  # and a read-only file system: nothing more can be written


class _Once(Once):
    """An option given at most once (exit 2 naming it otherwise), as on ``ablation``'s command line."""

    repeatable = "--allow-unavailable-structural"


def _path(text: str) -> str:
    """A file named on the command line (argparse type): an empty one names no file."""
    if not text:
        msg = "an empty path names no file"
        raise argparse.ArgumentTypeError(msg)
    return text


def _command(sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str, text: str) -> argparse.ArgumentParser:
    """A subcommand whose one-line help is listed by ``ablation-prepare --help`` and heads its own ``--help``."""
    description = f"{text[0].upper()}{text[1:]}."
    return sub.add_parser(name, help=text, description=description, allow_abbrev=False, formatter_class=HelpFormatter)


def _option(
    parser: argparse.ArgumentParser | argparse._MutuallyExclusiveGroup, name: str, text: str, **kwargs: Any
) -> None:
    """An option taking one value (a path unless ``type`` or ``choices`` says otherwise), given at most once."""
    if "choices" not in kwargs:
        kwargs.setdefault("type", _path)
    parser.add_argument(name, action=_Once, help=text, **kwargs)


def _flag(parser: argparse.ArgumentParser | argparse._MutuallyExclusiveGroup, name: str, text: str) -> None:
    """A switch, given at most once."""
    parser.add_argument(name, action=_Once, nargs=0, const=True, default=False, help=text)


def _errors(parser: argparse.ArgumentParser) -> None:
    _option(
        parser,
        "--errors",
        "report the first error (default) or every one found",
        choices=("first", "all"),
        default="first",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=_PROG,
        description=(
            "Prepare a pi-context-packer-source-selection-ablation/v2 input from an experiment file. "
            "pin, check and sheet run no owner program: they read files and, through a read-only git "
            "helper, the source repositories; only capture runs the owners, and only with --execute-owners; "
            "assemble, freeze and check-freeze start no process."
        ),
        allow_abbrev=False,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action=SourceVersion)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", prog=parser.prog)  # arguments.py

    pin = _command(
        sub, "pin", "print ready-to-paste [tools.*] lines: path, sha256 and, from a clean checkout, revision"
    )
    pin.add_argument("paths", nargs="+", metavar="PATH", type=_path, help="a file a preparation runs")

    check = _command(sub, "check", "check an experiment file before anything runs; print its SHA-256")
    check.add_argument("experiment", metavar="EXPERIMENT.toml", type=_path, help="the experiment file")
    _errors(check)

    sheet = _command(sub, "sheet", "write the case-review sheet (Markdown) of an experiment file")
    sheet.add_argument("kind", choices=("cases",), help="the sheet to write: cases")
    sheet.add_argument("experiment", metavar="EXPERIMENT.toml", type=_path, help="the experiment file")
    _option(
        sheet,
        "--out",
        "new sheet file (never overwritten); outside the preparation directory",
        required=True,
        metavar="F",
    )
    _capture(sub)
    _assemble(sub)
    _freeze(sub)
    return parser


def _capture(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    capture = _command(sub, "capture", "run the pinned owners once and keep everything they wrote in D")
    capture.add_argument("experiment", metavar="EXPERIMENT.toml", type=_path, help="the experiment file")
    _option(capture, "--dir", "the preparation directory: absent or empty (or --resume)", required=True, metavar="D")
    _option(capture, "--cases-review", "the cases review, bound to the experiment", required=True, metavar="R.toml")
    _flag(capture, "--execute-owners", "required: run source-list and SCI (naming it is the explicit act)")
    access = capture.add_mutually_exclusive_group(required=True)
    _option(access, "--file-access-trace", "trace each SCI run with the pinned [tools.strace]", choices=("strace",))
    _flag(
        access,
        "--assert-no-index-access",
        "no trace: indexRead and indexBuilt are asserted, not observed (recorded so)",
    )
    capture.add_argument(
        "--allow-unavailable-structural",
        nargs="+",
        action="extend",
        default=[],
        metavar="CASE_ID",
        help="cases whose failed bundle validation ends their attempt 'unavailable' instead of stopping capture "
        "(several ids; may be repeated)",
    )
    _flag(capture, "--resume", "go on with the preparation in D")
    _option(capture, "--retry", "run a failed (or open) step again (implies --resume)", metavar="STEP", type=str)
    _option(capture, "--reason", "why --retry runs the step again (recorded)", metavar="TEXT", type=str)


def _assemble(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    assemble = _command(sub, "assemble", "build prepared.json from D's captured bytes, check it blind, write it once")
    _option(assemble, "--dir", "the preparation directory capture filled", required=True, metavar="D")
    _option(
        assemble,
        "--staleness-review",
        "the staleness review, bound to D/staleness-sheet.md",
        required=True,
        metavar="S.toml",
    )
    _flag(assemble, "--gzip", "also write prepared.json.gz (one gzip member, mtime 0, no file name)")
    _option(
        assemble,
        "--supersedes",
        "an earlier preparation of a changed experiment: its attempts go into the record (read only)",
        metavar="OLD_D",
    )


def _freeze(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    freeze = _command(sub, "freeze", "bind the pre-run review and the evaluator identity; write SHA256SUMS.pre-run")
    _option(freeze, "--dir", "the assembled preparation directory", required=True, metavar="D")
    _option(
        freeze,
        "--pre-run-review",
        "the pre-run review, bound to D/SHA256SUMS.pre-review",
        required=True,
        metavar="P.toml",
    )
    _option(
        freeze,
        "--attempt-record",
        "the one-shot marker ablation run --attempt-record will create (default: attempt.json in D)",
        metavar="PATH",
    )
    _option(
        freeze, "--sign-key", "Ed25519 PEM private key (from ablation keygen): sign SHA256SUMS.pre-run", metavar="K"
    )
    check = _command(sub, "check-freeze", "re-check a frozen D from its files alone; report the attempt marker")
    _option(check, "--dir", "the frozen preparation directory", required=True, metavar="D")
    _option(
        check, "--public-key", "Ed25519 PEM public key: SHA256SUMS.pre-run.sig must be its valid signature", metavar="P"
    )
    _option(
        check,
        "--results",
        "a results file of ablation run: was it the frozen evaluator on the frozen input?",
        metavar="OUT",
    )


def _parse(argv: Sequence[str] | None) -> argparse.Namespace | int:
    """The parsed command line, or argparse's exit code: 0 after ``--help`` or ``--version``, 2 for bad usage."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    vars(args).pop(OPTIONS_GIVEN, None)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; return its exit code (never raises for a reported error).

    Args:
        argv: the arguments after the program name (default: ``sys.argv[1:]``).

    Returns:
        0 ok, 2 usage, 3 integrity, 4 rejected, 5 output refused (also a full disk or a read-only file
        system while writing), 6 resources exhausted, 130 or 143 interrupted by SIGINT or SIGTERM (one line).
    """
    plug_closed_streams()
    try:
        with interruptible():  # Ctrl-C or SIGTERM: one line and 130 or 143; a file being published is finished first
            args = _parse(argv)
            code = args if isinstance(args, int) else COMMANDS[args.command](args)
        return flushed(code, _PROG)  # here, not at exit: a closed pipe or a full disk would be exit 120 there
    except (Interrupted, KeyboardInterrupt) as exc:
        return report_stop(_PROG, exc)
    except PrepareRejected as exc:
        print(str(exc), file=sys.stderr)
        return exc.exit_code
    except AblationError as exc:
        print(f"{_PROG}: {exc}", file=sys.stderr)
        return exc.exit_code
    except MemoryError:
        print(f"{_PROG}: resources exhausted: out of memory", file=sys.stderr)
        return _EXIT_RESOURCES
    except OSError as exc:
        stdout_code = None if exc.filename else stdout_failure(exc, _PROG)  # a file's error names the file
        if stdout_code is not None:  # a reader that went away (| head): 0; stdout on a full disk: 5
            return stdout_code
        if exc.errno in _WRITE_REFUSED_ERRNOS:
            where = f" ({exc.filename})" if exc.filename else ""
            print(f"{_PROG}: output refused: cannot write{where}: {exc.strerror or exc}", file=sys.stderr)
            return _EXIT_OUTPUT
        if exc.errno not in RESOURCE_ERRNOS:
            raise
        print(f"{_PROG}: resources exhausted: {exc.strerror or exc}", file=sys.stderr)
        return _EXIT_RESOURCES


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
