"""The ``ablation`` command line's grammar: commands, options, their types, and what is never guessed.

The command line takes exactly what was typed (docs/reference/operating.md):

- no abbreviations: ``--input-s`` is not ``--input-sha256``, so an option
  added later can never change what an old command line means;
- an option given twice is a usage error naming it (exit 2), never "the last
  one wins"; ``--evidence`` alone is documented as repeatable;
- a number is ASCII digits only (no sign, spaces, ``_`` or other scripts'
  digits);
- ``run --attempt-record`` requires ``--input-sha256``, and
  ``--pre-run-manifest-sha256`` requires ``--attempt-record`` (PREPARE.md §7).

Only :mod:`ablation.cli` uses it; nothing here reads a file. PRODUCT.md "Command line".
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence

TYPE_CHECKING = False  # not typing's: the start-up modules do not import typing (ablation.closure.record)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["DEFAULT_MAX_INPUT_BYTES", "OPTIONS_GIVEN", "HelpFormatter", "Once", "SourceVersion", "parse_arguments"]

# Mirrors ablation.pipeline.DEFAULT_MAX_INPUT_BYTES, which is not imported before
# the closure check (ablation.commands).
DEFAULT_MAX_INPUT_BYTES = 1 << 30
_MAX_BYTE_COUNT = 1 << 40
_DIGITS = re.compile(r"[0-9]{1,15}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_IMAGE_ID = re.compile(r"sha256:[0-9a-f]{64}")
_FINGERPRINT = _IMAGE_ID  # the same spelling: "sha256:" and 64 lowercase hex digits
_SEEN = "_options_given"
OPTIONS_GIVEN = _SEEN
"""The namespace member :class:`Once` keeps its bookkeeping in (dropped after parsing)."""


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help layout, which looks up the terminal's width only when it writes help.

    argparse makes a formatter for every ``add_argument`` (to try the metavar), and
    its own constructor asks :mod:`shutil` for the terminal's width. ``shutil``
    loads ``zlib``, ``bz2`` and ``lzma``: two extension modules and a shared library
    that the closure check then hashes, in every start of every command. This
    formatter takes the same width, ``shutil.get_terminal_size().columns - 2``,
    when :meth:`format_help` runs; every argparse text (help, usage, errors) is
    written through it. Both command lines use it.
    """

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        self._asked = (max_help_position, width)
        super().__init__(prog, indent_increment, max_help_position, 80 if width is None else width)

    def format_help(self) -> str:
        """The text, laid out for the terminal's width (or the width given)."""
        max_help_position, width = self._asked
        if width is None:
            import shutil  # noqa: PLC0415 - only to write help (see the class)

            width = shutil.get_terminal_size().columns - 2
        self._width = width
        self._max_help_position = min(max_help_position, max(width - 20, self._indent_increment * 2))
        return super().format_help()


class Once(argparse.Action):
    """Store an option's value; a second occurrence is a usage error naming the option.

    :attr:`repeatable` names the options documented as repeatable (the message says so);
    ``ablation-prepare`` uses a subclass with its own.
    """

    repeatable = "--evidence"

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        """Store the value (the constant of a switch); a second occurrence: exit 2 naming the option."""
        seen: set[str] = namespace.__dict__.setdefault(_SEEN, set())
        if self.dest in seen:
            parser.error(f"{option_string} given twice; give it once (only {self.repeatable} may be repeated)")
        seen.add(self.dest)
        setattr(namespace, self.dest, self.const if self.nargs == 0 else values)


class SourceVersion(argparse.Action):
    """``--version``: print the program and the source revision it was built from, then exit 0.

    The text (:func:`ablation.identity.version_text`) is made only when the option is given.
    """

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        kwargs.setdefault("help", "show the git commit this program was built from (its source revision) and exit")
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        """Print the version text and exit (argparse calls it when ``--version`` is given)."""
        from ablation.identity import version_text  # noqa: PLC0415 - only when --version is given

        sys.stdout.write(version_text(parser.prog) + "\n")
        parser.exit()


def _flag(parser: argparse.ArgumentParser, name: str, text: str) -> None:
    """A switch (``store_true`` that may be given once)."""
    parser.add_argument(name, action=Once, nargs=0, const=True, default=False, help=text)


def _byte_count(text: str) -> int:
    """A positive byte count up to 1 TiB in ASCII digits (argparse type; anything else is a usage error)."""
    if _DIGITS.fullmatch(text) is None:
        msg = f"not a whole number of bytes in ASCII digits: {text[:40]!r}"
        raise argparse.ArgumentTypeError(msg)
    value = int(text, 10)
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


def _sha256(text: str) -> str:
    """A bare SHA-256 as ``sha256sum`` prints it: 64 lowercase hex digits (argparse type)."""
    if _SHA256.fullmatch(text) is None:
        msg = f"not a SHA-256 (64 lowercase hex digits): {text[:80]!r}"
        raise argparse.ArgumentTypeError(msg)
    return text


def _image_id(text: str) -> str:
    """A container image ID as ``docker image inspect --format '{{.Id}}'`` prints it (argparse type)."""
    if _IMAGE_ID.fullmatch(text) is None:
        msg = f"not an image ID ('sha256:' and 64 lowercase hex digits): {text[:80]!r}"
        raise argparse.ArgumentTypeError(msg)
    return text


def _fingerprint(text: str) -> str:
    """A public key fingerprint as ``keygen`` prints it: ``sha256:`` and 64 lowercase hex digits (argparse type)."""
    if _FINGERPRINT.fullmatch(text) is None:
        msg = f"not a key fingerprint ('sha256:' and 64 lowercase hex digits, as keygen prints it): {text[:80]!r}"
        raise argparse.ArgumentTypeError(msg)
    return text


def _expect_key(parser: argparse.ArgumentParser) -> None:
    _option(
        parser,
        "--expect-key",
        "FP",
        "sha256:<hex> fingerprint the --public-key must have (keygen prints it); "
        "exit 3 for another key or an unsigned bundle",
        type=_fingerprint,
    )


def _option(parser: argparse.ArgumentParser, name: str, metavar: str, text: str, **kwargs: Any) -> None:
    """An option taking one value, given at most once; a path unless ``type`` says otherwise."""
    kwargs.setdefault("type", _path)
    parser.add_argument(name, action=Once, metavar=metavar, help=text, **kwargs)


def _add_input(parser: argparse.ArgumentParser) -> None:
    _option(parser, "--input", "F", "prepared input (.json or .json.gz)", required=True)
    _option(parser, "--input-sha256", "HEX", "SHA-256 of the exact (decompressed) JSON bytes", type=str)
    _option(parser, "--input-gzip-sha256", "HEX", "SHA-256 of the .json.gz file itself", type=str)
    _option(
        parser,
        "--max-input-bytes",
        "N",
        "bound on the (decompressed) input size (default 1 GiB)",
        type=_byte_count,
        default=DEFAULT_MAX_INPUT_BYTES,
    )
    parser.add_argument(
        "--errors",
        action=Once,
        choices=("first", "all"),
        default="first",
        help="report the first violation (default) or every one found",
    )


def _add_run(run: argparse.ArgumentParser) -> None:
    _add_input(run)
    _option(run, "--output", "OUT", "new output file (never overwritten)", required=True)
    _option(
        run,
        "--attempt-record",
        "PATH",
        "one-shot marker, created (never overwritten) before the input is read; "
        "a second run with it is exit 5 (needs --input-sha256)",
    )
    _option(
        run,
        "--pre-run-manifest-sha256",
        "HEX",
        "SHA-256 of the frozen SHA256SUMS.pre-run, recorded in the marker (needs --attempt-record)",
        type=_sha256,
    )


def _add_archive(archive: argparse.ArgumentParser) -> None:
    _option(archive, "--input", "F", "the prepared input the results were made from", required=True)
    _option(archive, "--results", "OUT", "the results file written by run", required=True)
    _option(archive, "--bundle", "B", "new bundle file (never overwritten)", required=True)
    archive.add_argument(
        "--evidence",
        action="append",
        default=[],
        metavar="PATH",
        type=_path,
        help="a file or folder to add under extra/ (repeatable)",
    )
    _option(archive, "--sign-key", "K", "Ed25519 PEM private key (from keygen): sign SHA256SUMS")


def _add_notes(notes: argparse.ArgumentParser) -> None:
    _option(notes, "--results", "OUT", "the results file written by run (default: the bundle's results.json)")
    _option(
        notes,
        "--bundle",
        "B",
        "its evidence bundle (.tar.gz, read as verify-archive reads it): recompute the result, cite its digests",
    )
    _option(
        notes,
        "--image-digest",
        "D",
        "container image ID to cite (asserted; a warning when the results file records another)",
        type=_image_id,
    )
    _option(notes, "--public-key", "P", "Ed25519 PEM public key: check the bundle's signature")
    _expect_key(notes)


def _command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    text: str,
) -> argparse.ArgumentParser:
    """A command whose one-line help is listed by ``ablation --help`` and heads its own ``--help``."""
    description = f"{text[0].upper()}{text[1:]}."
    return sub.add_parser(name, help=text, description=description, allow_abbrev=False, formatter_class=HelpFormatter)


def _parsers() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The whole parser and the ``run`` command's (whose option pairs are checked after parsing)."""
    parser = argparse.ArgumentParser(
        prog="ablation",
        description="Sealed evaluator for pi-context-packer-source-selection-ablation/v2 prepared inputs.",
        allow_abbrev=False,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action=SourceVersion)
    # prog given: argparse would lay out a usage line (the terminal width, shutil) to find the same name
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", prog=parser.prog)
    run = _command(sub, "run", "verify the input hash, validate, evaluate and write the output file")
    _add_run(run)
    verify = _command(sub, "verify", "everything run checks, without ranking or metrics")
    _add_input(verify)
    _flag(verify, "--json", "machine-readable summary")
    _command(sub, "identity", "print the evaluator identity (JSON)")
    _add_archive(_command(sub, "archive", "write a deterministic evidence bundle (.tar.gz)"))
    verify_archive = _command(sub, "verify-archive", "re-check a bundle and recompute its result")
    verify_archive.add_argument("bundle", metavar="B", type=_path, help="the bundle file")
    _option(
        verify_archive, "--public-key", "P", "Ed25519 PEM public key: the bundle must carry a valid signature by it"
    )
    _expect_key(verify_archive)
    keygen = _command(sub, "keygen", "make an Ed25519 key pair for signing bundles")
    _option(keygen, "--private-key", "K", "new private key file (PEM, mode 0600)", required=True)
    _option(keygen, "--public-key", "P", "new public key file (PEM)", required=True)
    _add_notes(_command(sub, "notes", "draft Markdown review notes (written to stdout)"))
    return parser, run


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """The parsed command line.

    Raises:
        SystemExit: argparse's exit: 0 after ``--help`` or ``--version``, 2 for
            a usage error (an unknown or abbreviated option, an option given
            twice, a bad value, ``--attempt-record`` without ``--input-sha256``,
            ``--pre-run-manifest-sha256`` without ``--attempt-record``), its
            message on stderr.
    """
    parser, run = _parsers()
    args = parser.parse_args(argv)
    vars(args).pop(_SEEN, None)
    if args.command == "run":
        if args.attempt_record is not None and args.input_sha256 is None:
            run.error("--attempt-record requires --input-sha256 (the preregistered hash the marker records)")
        if args.pre_run_manifest_sha256 is not None and args.attempt_record is None:
            run.error("--pre-run-manifest-sha256 requires --attempt-record (it is recorded only in the marker)")
    return args
