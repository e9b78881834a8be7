"""``ablation-prepare``'s command line takes exactly what was typed, as ``ablation``'s does.

Every subcommand: no abbreviation of an option (``--di`` is not ``--dir``), and an
option given twice is a usage error naming it (exit 2), never "the last one wins";
``--allow-unavailable-structural`` alone may be repeated (each occurrence adds its
ids). No option of ``ablation-prepare`` takes a number.

Spec: PRODUCT.md "Command line"; ablation/arguments.py (issue 23 item 3); issue 21.
"""

from __future__ import annotations

import argparse

import pytest

from ablation.prepare import cli
from tests.prepare.prepfixtures import run_prepare

TWICE = "given twice; give it once (only --allow-unavailable-structural may be repeated)"


@pytest.mark.parametrize(
    ("argv", "tail"),
    [
        (
            ("check", "e.toml", "--errors", "all", "--errors", "first"),
            f"ablation-prepare check: error: --errors {TWICE}",
        ),
        (
            ("sheet", "cases", "e.toml", "--out", "a.md", "--out", "b.md"),
            f"ablation-prepare sheet: error: --out {TWICE}",
        ),
        (("capture", "e.toml", "--dir", "D", "--dir", "E"), f"ablation-prepare capture: error: --dir {TWICE}"),
        (
            ("capture", "e.toml", "--execute-owners", "--execute-owners"),
            f"ablation-prepare capture: error: --execute-owners {TWICE}",
        ),
        (("capture", "e.toml", "--resume", "--resume"), f"ablation-prepare capture: error: --resume {TWICE}"),
        (
            ("capture", "e.toml", "--file-access-trace", "strace", "--file-access-trace", "strace"),
            f"ablation-prepare capture: error: --file-access-trace {TWICE}",
        ),
        (("capture", "e.toml", "--retry", "a", "--retry", "b"), f"ablation-prepare capture: error: --retry {TWICE}"),
        (("assemble", "--dir", "D", "--dir", "E"), f"ablation-prepare assemble: error: --dir {TWICE}"),
        (("assemble", "--gzip", "--gzip"), f"ablation-prepare assemble: error: --gzip {TWICE}"),
        (
            ("assemble", "--supersedes", "A", "--supersedes", "B"),
            f"ablation-prepare assemble: error: --supersedes {TWICE}",
        ),
        (("freeze", "--sign-key", "k", "--sign-key", "k"), f"ablation-prepare freeze: error: --sign-key {TWICE}"),
        (
            ("freeze", "--attempt-record", "a", "--attempt-record", "b"),
            f"ablation-prepare freeze: error: --attempt-record {TWICE}",
        ),
        (
            ("check-freeze", "--results", "a", "--results", "b"),
            f"ablation-prepare check-freeze: error: --results {TWICE}",
        ),
        (
            ("check-freeze", "--dir", "D", "--public-key", "a", "--public-key", "b"),
            f"ablation-prepare check-freeze: error: --public-key {TWICE}",
        ),
    ],
)
def test_an_option_given_twice_is_exit_2_naming_it(argv: tuple[str, ...], tail: str) -> None:
    ran = run_prepare(*argv)
    assert (ran.code, ran.out, ran.err.splitlines()[-1]) == (2, "", tail)


@pytest.mark.parametrize(
    ("argv", "tail"),
    [
        (
            ("assemble", "--di", "D", "--staleness-review", "s.toml"),
            "ablation-prepare assemble: error: the following arguments are required: --dir",
        ),
        (
            ("freeze", "--dir", "D", "--pre-run", "p.toml"),
            "ablation-prepare freeze: error: the following arguments are required: --pre-run-review",
        ),
        (
            ("check-freeze", "--dir", "D", "--public", "k.pub"),
            "ablation-prepare: error: unrecognized arguments: --public k.pub",
        ),
        (
            ("capture", "e.toml", "--dir", "D", "--cases-review", "r.toml", "--execute", "--assert-no-index-access"),
            "ablation-prepare: error: unrecognized arguments: --execute",
        ),
        (("check", "e.toml", "--err", "all"), "ablation-prepare: error: unrecognized arguments: --err all"),
        (("--vers",), "ablation-prepare: error: the following arguments are required: COMMAND"),
    ],
)
def test_no_option_is_abbreviated(argv: tuple[str, ...], tail: str) -> None:
    ran = run_prepare(*argv)
    assert (ran.code, ran.out, ran.err.splitlines()[-1]) == (2, "", tail)


def _parsed(*argv: str) -> argparse.Namespace:
    return cli._parser().parse_args(list(argv))


def test_only_allow_unavailable_structural_may_be_repeated() -> None:
    args = _parsed(
        "capture",
        "e.toml",
        "--dir",
        "D",
        "--cases-review",
        "r.toml",
        "--assert-no-index-access",
        "--allow-unavailable-structural",
        "a b",
        "c",
        "--allow-unavailable-structural",
        "d",
    )
    assert args.allow_unavailable_structural == ["a b", "c", "d"]
    assert (args.execute_owners, args.resume, args.assert_no_index_access) == (False, False, True)


def test_every_subcommand_parses_its_options_once() -> None:
    args = _parsed("assemble", "--dir", "D", "--staleness-review", "s.toml", "--gzip", "--supersedes", "O")
    assert (args.dir, args.staleness_review, args.gzip, args.supersedes) == ("D", "s.toml", True, "O")
    args = _parsed("freeze", "--dir", "D", "--pre-run-review", "p.toml")
    assert (args.attempt_record, args.sign_key) == (None, None)
    args = _parsed("check-freeze", "--dir", "D")
    assert (args.public_key, args.results) == (None, None)
    assert run_prepare("freeze", "--dir", "", "--pre-run-review", "p").err.splitlines()[-1] == (
        "ablation-prepare freeze: error: argument --dir: an empty path names no file"
    )
