"""One gzip reader (issue 23 item 9): a bundled ``.json.gz`` input ``run`` refuses, ``verify-archive`` refuses too.

The bundle is made by ``archive`` from a well-formed ``.json.gz`` of the bundled
example, then its input is edited (8 trailing zero bytes; a reserved flag bit)
and every digest that names it is made consistent again: the input's line in
``SHA256SUMS``, ``inputGzipSha256`` in ``results.json`` and its line, and the
signature. Only the gzip rule GZ-1 is left to refuse it.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from ablation.bundle import keys, sums, tarformat
from ablation.cli import main

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "prepared-input.json"


def _cli(*args: object) -> int:
    return main([str(a) for a in args])


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with ``in.json.gz``, its results, a key pair and the signed bundle ``b.tar.gz``."""
    folder = tmp_path_factory.mktemp("bundled-gzip")
    (folder / "in.json.gz").write_bytes(gzip.compress(EXAMPLE.read_bytes(), mtime=0))
    assert _cli("keygen", "--private-key", folder / "k.pem", "--public-key", folder / "k.pub") == 0
    assert _cli("run", "--input", folder / "in.json.gz", "--output", folder / "results.json") == 0
    assert (
        _cli(
            "archive",
            "--input",
            folder / "in.json.gz",
            "--results",
            folder / "results.json",
            "--bundle",
            folder / "b.tar.gz",
            "--sign-key",
            folder / "k.pem",
        )
        == 0
    )
    return folder


def _members(bundle: Path) -> tuple[str, dict[str, bytes]]:
    """The top folder and every file below it."""
    files: dict[str, bytes] = {}
    with tarfile.open(bundle, "r:gz") as tar:
        top = tar.getmembers()[0].name.rstrip("/")
        for member in tar.getmembers():
            handle = tar.extractfile(member)
            if handle is not None:
                files[member.name[len(top) + 1 :]] = handle.read()
    return top, files


def _rebundled(made: Path, edit: bytes, name: str) -> tuple[Path, Path]:
    """The bundle with its input replaced by ``edit``, consistently re-hashed and re-signed; and ``edit`` as a file."""
    top, files = _members(made / "b.tar.gz")
    old = hashlib.sha256(files["input/in.json.gz"]).hexdigest()
    new = hashlib.sha256(edit).hexdigest()
    files["input/in.json.gz"] = edit
    files["results.json"] = files["results.json"].replace(old.encode(), new.encode())
    del files["SHA256SUMS"], files["SHA256SUMS.sig"]
    files["SHA256SUMS"] = sums.render_sums(files)
    files["SHA256SUMS.sig"] = keys.load_private_key(str(made / "k.pem")).sign(files["SHA256SUMS"])
    bundle = made / f"{name}.tar.gz"
    bundle.write_bytes(tarformat.bundle_bytes(top, files))
    as_file = made / name / "in.json.gz"
    as_file.parent.mkdir()
    as_file.write_bytes(edit)
    return bundle, as_file


def _trailing_zeros(data: bytes) -> bytes:
    return data + bytes(8)


def _reserved_flag(data: bytes) -> bytes:
    return data[:3] + bytes([data[3] | 0x20]) + data[4:]


@pytest.mark.parametrize("edit", [_trailing_zeros, _reserved_flag], ids=["trailing-zeros", "reserved-flag"])
def test_verify_archive_refuses_what_run_refuses_with_gz1(
    edit: Callable[[bytes], bytes], made: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 23 Why 9: the same GZ-1 line from ``run`` and, behind the member name, from ``verify-archive``."""
    edited = edit((made / "in.json.gz").read_bytes())
    bundle, as_file = _rebundled(made, edited, edit.__name__)
    # the stdlib decoder accepts both edits: only our RFC 1952 checks tell them apart
    assert gzip.decompress(edited) == EXAMPLE.read_bytes()
    capsys.readouterr()
    assert _cli("run", "--input", as_file, "--output", made / f"{edit.__name__}.results.json") == 4
    run_line = capsys.readouterr().err.splitlines()[-1]
    assert run_line.startswith("GZ-1 at byte ")
    assert _cli("verify-archive", bundle, "--public-key", made / "k.pub") == 3
    err = capsys.readouterr().err
    top = _members(bundle)[0]
    assert err == f"ablation: {top}/input/in.json.gz: {run_line}\n"


def test_the_trailing_zero_refusal_names_where_and_what(made: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The acceptance case: 8 trailing zero bytes, exit 3 naming GZ-1, the byte offset and the bytes found."""
    size = (made / "in.json.gz").stat().st_size
    bundle, _ = _rebundled(made, _trailing_zeros((made / "in.json.gz").read_bytes()), "zeros-message")
    capsys.readouterr()
    assert _cli("verify-archive", bundle) == 3
    assert capsys.readouterr().err.endswith(
        f"/input/in.json.gz: GZ-1 at byte {size}: expected another gzip member (1f 8b 08) or the end of the file; "
        "found 8 more bytes (00 00 00 00 00 00 00 00)\n"
    )


def test_the_untouched_bundle_verifies(made: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The control: the bundle before any edit is valid with its signature."""
    capsys.readouterr()
    assert _cli("verify-archive", made / "b.tar.gz", "--public-key", made / "k.pub") == 0
    assert io.StringIO(capsys.readouterr().out).readline().startswith("bundle ")
