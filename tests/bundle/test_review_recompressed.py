"""Issue 22 Why 1: a re-compressed bundle is read, said to be re-compressed, and checked as the original.

``gzip -dc b.tar.gz | gzip -9 -n``, ``gzip -1`` and ``python -m gzip`` keep the
tar, and so every file and the content digest: ``verify-archive`` exits 0,
says how the framing differs on stdout and on stderr, and prints the same
content digest. Other well-formed framings (a header CRC, a file name, several
members) are read too; what RFC 1952 does not allow, and truncation, stay exit 3.
"""

from __future__ import annotations

import gzip
import hashlib
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from ablation.bundle import tarformat
from tests.bundle.review_made import captured, gzip_again, make_day, python_gzip

RECOMPRESSED = "framing: bundle bytes differ from the canonical framing (re-compressed); content digest "


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The example's day: runs, keys and bundles."""
    return make_day(tmp_path_factory.mktemp("recompressed"), pinned=True)


def _content(report: str) -> str:
    (line,) = [x for x in report.splitlines() if x.startswith("  content sha256 ")]
    return line.split()[2]


def _accepted(path: Path, *args: object) -> tuple[str, str]:
    code, out, err = captured("verify-archive", path, *args)
    assert code == 0, err
    return out, err


def test_the_canonical_bundle_says_so_and_warns_of_nothing(day: dict[str, Path]) -> None:
    """The bundle as archive wrote it: canonical, no warning."""
    out, err = _accepted(day["signed.tar.gz"], "--public-key", day["k.pub"])
    assert "framing: canonical (one gzip member, header 1f8b08000000000002ff, as archive writes it)\n" in out
    assert err == ""


@pytest.mark.parametrize("how", ["gzip -9 -n", "gzip -1", "python -m gzip"])
def test_a_recompressed_bundle_verifies_with_the_note(how: str, day: dict[str, Path], tmp_path: Path) -> None:
    """Re-compressed as a reviewer would: exit 0, the note, the same content digest."""
    if how == "python -m gzip":
        path = python_gzip(day["signed.tar.gz"], tmp_path)
    else:
        path = gzip_again(day["signed.tar.gz"], tmp_path / "r.tar.gz", *how.split()[1:])
    assert path.read_bytes() != day["signed.tar.gz"].read_bytes()
    original, _ = _accepted(day["signed.tar.gz"])
    out, err = _accepted(path, "--public-key", day["k.pub"])
    content = _content(original)
    assert _content(out) == content
    assert f"  bundle sha256          {hashlib.sha256(path.read_bytes()).hexdigest()}\n" in out
    (line,) = [x for x in out.splitlines() if x.startswith("framing: ")]
    assert line.startswith(f"{RECOMPRESSED}{content} unchanged: its gzip header 1f8b08")
    assert line.endswith("; archive writes XFL 2, OS 255, mtime 0, no optional field)")
    assert "signature: SHA256SUMS.sig verified with public key" in out
    assert err == (
        "ablation: warning: bundle bytes differ from the canonical framing (re-compressed); content digest "
        f"{content} unchanged: compare it, not the bundle SHA-256, with the cited one\n"
    )


def _header_with(data: bytes, flags: int, fields: bytes) -> bytes:
    """The bundle with its first member's FLG and optional fields replaced (header CRC appended when asked)."""
    header = data[:3] + bytes([flags]) + data[4:10] + fields
    if flags & 0x02:
        header += struct.pack("<H", zlib.crc32(header) & 0xFFFF)
    return header + data[10:]


@pytest.mark.parametrize(
    ("name", "flags", "fields", "said"),
    [
        ("a header CRC", 0x02, b"", "a header CRC"),
        ("a file name", 0x08, b"b.tar\0", "a file name"),
        ("a comment and an extra field", 0x14, b"\x04\x00abcdhello\0", "an extra field, a comment"),
    ],
)
def test_other_well_formed_headers_are_read(
    name: str, flags: int, fields: bytes, said: str, day: dict[str, Path], tmp_path: Path
) -> None:
    """A header CRC, a name, a comment, an extra field: read and described."""
    path = tmp_path / "h.tar.gz"
    path.write_bytes(_header_with(day["unsigned.tar.gz"].read_bytes(), flags, fields))
    out, _ = _accepted(path)
    assert f", {said}; archive writes" in out, name


def test_several_members_are_one_stream(day: dict[str, Path], tmp_path: Path) -> None:
    """A file of several gzip members is one stream."""
    tar = gzip.decompress(day["unsigned.tar.gz"].read_bytes())
    path = tmp_path / "members.tar.gz"
    path.write_bytes(tarformat.compress([tar[:1000]]) + tarformat.compress([tar[1000:]]) + gzip.compress(b"", mtime=0))
    out, _ = _accepted(path)
    assert "unchanged: 3 gzip members (archive writes one)\n" in out


REFUSED: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "last 8 bytes cut": (lambda d: d[:-8], "bundle: the gzip stream is truncated (no CRC-32 and size after"),
    "half the file": (
        lambda d: d[: len(d) // 2],
        "bundle: the gzip stream is truncated (its deflate data does not end)",
    ),
    "zero padding": (
        lambda d: d + bytes(16),
        "bundle: bytes after gzip member 1 are not another gzip member (at byte",
    ),
    "reserved flag bits": (
        lambda d: d[:3] + b"\xe0" + d[4:],
        "bundle: not a readable gzip stream (RFC 1952) at byte 3: "
        "expected reserved flag bits 5-7 zero (RFC 1952); found flags 0xe0",
    ),
    "wrong CRC-32": (
        lambda d: d[:-8] + bytes([d[-8] ^ 1]) + d[-7:],
        "bundle: the gzip CRC-32 or size does not match",
    ),
}


@pytest.mark.parametrize("name", list(REFUSED), ids=list(REFUSED))
def test_what_rfc_1952_does_not_allow_and_truncation_stay_exit_3(
    name: str, day: dict[str, Path], tmp_path: Path
) -> None:
    """Truncation, padding, reserved bits and a wrong CRC stay exit 3."""
    change, said = REFUSED[name]
    for source in (day["unsigned.tar.gz"], gzip_again(day["unsigned.tar.gz"], tmp_path / "n.tar.gz", "-9", "-n")):
        path = tmp_path / "bad.tar.gz"
        path.write_bytes(change(source.read_bytes()))
        code, out, err = captured("verify-archive", path)
        assert (code, out) == (3, ""), name
        assert err.startswith("ablation: ") and said in err and err.count("\n") == 1, (name, err)
