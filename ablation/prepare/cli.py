"""The ``ablation-prepare`` command line: argument parsing and exit codes; the handlers are in
:mod:`ablation.prepare.commands`.

A second console script, separate from ``ablation``: the evaluator's commands
never load this package. Exit codes and the error format are the product's
(PRODUCT.md "Command line", SPEC §2.5): 0 ok; 2 usage; 3 integrity (a tool
whose bytes no longer match its pin); 4 rejected (a PRE rule, or the SPEC rule
the experiment file already breaks, at its TOML location); 5 output refused;
6 resources exhausted; 1 internal error (a bug, shown with its traceback).

Spec: PREPARE.md §2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ablation.arguments import SourceVersion
from ablation.errors import RESOURCE_ERRNOS, AblationError
from ablation.prepare.commands import COMMANDS
from ablation.prepare.findings import PrepareRejected

__all__ = ["main"]

_PROG = "ablation-prepare"
_EXIT_RESOURCES = 6


def _path(text: str) -> str:
    """A file named on the command line (argparse type): an empty one names no file."""
    if not text:
        msg = "an empty path names no file"
        raise argparse.ArgumentTypeError(msg)
    return text


def _command(sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str, text: str) -> argparse.ArgumentParser:
    """A subcommand whose one-line help is listed by ``ablation-prepare --help`` and heads its own ``--help``."""
    return sub.add_parser(name, help=text, description=f"{text[0].upper()}{text[1:]}.")


def _errors(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--errors",
        choices=("first", "all"),
        default="first",
        help="report the first error (default) or every one found",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=_PROG,
        description=(
            "Prepare a pi-context-packer-source-selection-ablation/v2 input from an experiment file. "
            "pin, check and sheet run no owner program: they read files and, through a read-only git "
            "helper, the source repositories; only capture runs the owners, and only with --execute-owners."
        ),
    )
    parser.add_argument("--version", action=SourceVersion)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

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
    sheet.add_argument(
        "--out",
        required=True,
        metavar="F",
        type=_path,
        help="new sheet file (never overwritten); outside the preparation directory",
    )
    _capture(sub)
    return parser


def _capture(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    capture = _command(sub, "capture", "run the pinned owners once and keep everything they wrote in D")
    capture.add_argument("experiment", metavar="EXPERIMENT.toml", type=_path, help="the experiment file")
    capture.add_argument(
        "--dir", required=True, metavar="D", type=_path, help="the preparation directory: absent or empty (or --resume)"
    )
    capture.add_argument(
        "--cases-review", required=True, metavar="R.toml", type=_path, help="the cases review, bound to the experiment"
    )
    capture.add_argument(
        "--execute-owners",
        action="store_true",
        help="required: run source-list and SCI (naming it is the explicit act)",
    )
    access = capture.add_mutually_exclusive_group(required=True)
    access.add_argument(
        "--file-access-trace", choices=("strace",), help="trace each SCI run with the pinned [tools.strace]"
    )
    access.add_argument(
        "--assert-no-index-access",
        action="store_true",
        help="no trace: indexRead and indexBuilt are asserted, not observed (recorded so)",
    )
    capture.add_argument(
        "--allow-unavailable-structural",
        nargs="+",
        action="extend",
        default=[],
        metavar="CASE_ID",
        help="cases whose failed bundle validation ends their attempt 'unavailable' instead of stopping capture",
    )
    capture.add_argument("--resume", action="store_true", help="go on with the preparation in D")
    capture.add_argument("--retry", metavar="STEP", help="run a failed (or open) step again (implies --resume)")
    capture.add_argument("--reason", metavar="TEXT", help="why --retry runs the step again (recorded)")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; return its exit code (never raises for a reported error).

    Args:
        argv: the arguments after the program name (default: ``sys.argv[1:]``).

    Returns:
        0 ok, 2 usage, 3 integrity, 4 rejected, 5 output refused, 6 resources exhausted.
    """
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help/--version exit 0, bad usage exits 2
        sys.stdout.flush()
        return int(exc.code or 0)
    try:
        code = COMMANDS[args.command](args)
        sys.stdout.flush()
        return code
    except PrepareRejected as exc:
        print(str(exc), file=sys.stderr)
        return exc.exit_code
    except AblationError as exc:
        print(f"{_PROG}: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # a reader that went away (| head) is not an error of ours
        return 0
    except MemoryError:
        print(f"{_PROG}: resources exhausted: out of memory", file=sys.stderr)
        return _EXIT_RESOURCES
    except OSError as exc:
        if exc.errno not in RESOURCE_ERRNOS:
            raise
        print(f"{_PROG}: resources exhausted: {exc.strerror or exc}", file=sys.stderr)
        return _EXIT_RESOURCES


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
