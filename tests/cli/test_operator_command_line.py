"""The command line takes exactly what was typed (issue 23 Why 5, 6 and 7).

An option given twice was "last one wins", an abbreviation was accepted, and
a number in another script's digits was taken; each is now a usage error
(exit 2) that names what was refused, and nothing is read or written.
"""

from __future__ import annotations

import hashlib
import tarfile
from pathlib import Path

import pytest

from ablation.cli import main

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "prepared-input.json"
SHA = hashlib.sha256(EXAMPLE.read_bytes()).hexdigest()
OTHER = "0" * 64
TWICE = "given twice; give it once (only --evidence may be repeated)"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example input, its results, a key pair and a bundle."""
    folder = tmp_path_factory.mktemp("command-line")
    (folder / "in.json").write_bytes(EXAMPLE.read_bytes())
    assert main(["keygen", "--private-key", str(folder / "k.pem"), "--public-key", str(folder / "k.pub")]) == 0
    assert main(["keygen", "--private-key", str(folder / "k2.pem"), "--public-key", str(folder / "k2.pub")]) == 0
    assert main(["run", "--input", str(folder / "in.json"), "--output", str(folder / "r.json")]) == 0
    assert (
        main(
            [
                "archive",
                "--input",
                str(folder / "in.json"),
                "--results",
                str(folder / "r.json"),
                "--bundle",
                str(folder / "b.tar.gz"),
                "--sign-key",
                str(folder / "k.pem"),
            ]
        )
        == 0
    )
    return folder


def _usage_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The last stderr line of a command that must exit 2."""
    capsys.readouterr()
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err.splitlines()[-1]


# command line (split at spaces; {d} is the folder, {sha} the input's hash) -> the option given twice
REPEATED = {
    "run --input {d}/in.json --input-sha256 {sha} --input-sha256 {other} --output {d}/new.json": "--input-sha256",
    "run --input {d}/in.json --input-sha256={sha} --input-sha256 {sha} --output {d}/new.json": "--input-sha256",
    "run --input {d}/absent.json --input {d}/in.json --output {d}/new.json": "--input",
    "run --input {d}/in.json --output {d}/new.json --output {d}/new2.json": "--output",
    "verify-archive {d}/b.tar.gz --public-key {d}/k2.pub --public-key {d}/k.pub": "--public-key",
    "verify --input {d}/in.json --max-input-bytes 9 --max-input-bytes 99999999": "--max-input-bytes",
    "verify --input {d}/in.json --errors all --errors first": "--errors",
    "verify --input {d}/in.json --json --json": "--json",
    "archive --input {d}/in.json --results {d}/r.json --bundle {d}/n.tgz --sign-key {d}/k.pem --sign-key {d}/k2.pem": (
        "--sign-key"
    ),
    "notes --results {d}/r.json --bundle {d}/x --bundle {d}/b.tar.gz": "--bundle",
}


def _argv(line: str, folder: Path) -> list[str]:
    return line.format(d=folder, sha=SHA, other=OTHER).split()


@pytest.mark.parametrize("case", list(REPEATED))
def test_an_option_given_twice_is_a_usage_error_naming_it(
    case: str, made: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Why 5: never "the last one wins"; nothing is written."""
    argv = _argv(case, made)
    line = _usage_error(argv, capsys)
    assert line == f"ablation {argv[0]}: error: {REPEATED[case]} {TWICE}"
    assert not (made / "new.json").exists() and not (made / "new2.json").exists() and not (made / "n.tgz").exists()


def test_evidence_is_the_one_repeatable_option(made: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--evidence`` documents repetition: two of them archive both."""
    (made / "e1.txt").write_text("one\n", encoding="utf-8")
    (made / "e2.txt").write_text("two\n", encoding="utf-8")
    capsys.readouterr()
    assert (
        main(
            [
                "archive",
                "--input",
                str(made / "in.json"),
                "--results",
                str(made / "r.json"),
                "--bundle",
                str(made / "two-evidence.tgz"),
                "--evidence",
                str(made / "e1.txt"),
                "--evidence",
                str(made / "e2.txt"),
            ]
        )
        == 0
    )
    with tarfile.open(made / "two-evidence.tgz") as tar:
        extras = sorted(name.split("/", 1)[1] for name in tar.getnames() if "/extra/" in name)
    assert extras == ["extra/e1.txt", "extra/e2.txt"]


ABBREVIATED = {
    "verify --input {d}/in.json --input-s {sha}": "ablation: error: unrecognized arguments: --input-s {sha}",
    "run --input {d}/in.json --input-s {sha} --output {d}/new.json": (
        "ablation: error: unrecognized arguments: --input-s {sha}"
    ),
    "run --input {d}/in.json --out {d}/new.json": "ablation run: error: the following arguments are required: --output",
    "verify-archive {d}/b.tar.gz --pub {d}/k.pub": "ablation: error: unrecognized arguments: --pub {d}/k.pub",
    "verify --in {d}/in.json": "ablation verify: error: the following arguments are required: --input",
}


@pytest.mark.parametrize("case", list(ABBREVIATED))
def test_an_abbreviated_option_is_refused(case: str, made: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Why 6: an abbreviation is never expanded, so a later option cannot change what it means."""
    assert _usage_error(_argv(case, made), capsys) == ABBREVIATED[case].format(d=made, sha=SHA)
    assert not (made / "new.json").exists()


NOT_ASCII_DIGITS = {
    "arabic-indic": "١٠٠",
    "fullwidth": "１００",
    "underscore": "1_000",
    "leading-space": " 100",
    "trailing-space": "100 ",
    "plus": "+100",
    "exponent": "1e3",
    "hex": "0x64",
    "long": "1" * 5000,
}


@pytest.mark.parametrize("value", list(NOT_ASCII_DIGITS.values()), ids=list(NOT_ASCII_DIGITS))
def test_a_number_is_ascii_digits_only(value: str, made: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Why 7: ``--max-input-bytes ١٠٠`` used to set the bound to 100."""
    line = _usage_error(["verify", "--input", str(made / "in.json"), "--max-input-bytes", value], capsys)
    assert line == (
        f"ablation verify: error: argument --max-input-bytes: not a whole number of bytes in ASCII digits: "
        f"{value[:40]!r}"
    )


def test_ascii_digits_still_set_the_bound(made: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The control: ``100`` is read as 100 bytes (IN-1 for the larger example)."""
    capsys.readouterr()
    assert main(["verify", "--input", str(made / "in.json"), "--max-input-bytes", "100"]) == 4
    assert capsys.readouterr().err.splitlines()[-1].startswith("IN-1 at byte 100: ")
