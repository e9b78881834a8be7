"""GZ — a `.json.gz` input (product rule GZ-1, exit 4): every member header checked as RFC 1952 says.

Issue 11 item 3.
"""

from __future__ import annotations

import gzip
import hashlib
import struct
import zlib
from pathlib import Path

import pytest

from ablation.cli import main
from ablation.errors import InputRejected
from ablation.pipeline import gunzip_members
from tests.builders import prepared

DATA = prepared.dumps(prepared.valid_minimal())
SHA = hashlib.sha256(DATA).hexdigest()
MEMBER = gzip.compress(DATA, mtime=0)
TRAILER_AT = len(MEMBER) - 8  # where the first member's CRC-32 starts


def _with_flags(member: bytes, flags: int, fields: bytes = b"") -> bytes:
    """``member`` with FLG set to ``flags`` and ``fields`` inserted after the fixed 10-byte header."""
    return member[:3] + bytes([flags]) + member[4:10] + fields + member[10:]


def _with_header_crc(member: bytes, *, delta: int = 0) -> bytes:
    """``member`` with FHCRC set and the header CRC appended (off by ``delta``)."""
    header = member[:3] + bytes([member[3] | 0x02]) + member[4:10]
    crc = (zlib.crc32(header) & 0xFFFF) ^ delta
    return header + struct.pack("<H", crc) + member[10:]


def _verify(tmp_path: Path, content: bytes, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    path = tmp_path / "prepared.json.gz"
    path.write_bytes(content)
    code = main(["verify", "--input", str(path), "--input-sha256", SHA])
    return code, capsys.readouterr().err.splitlines()


REJECTED = {
    "reserved flag bit 5": (
        _with_flags(MEMBER, 0x20),
        "GZ-1 at byte 3: expected reserved flag bits 5-7 zero (RFC 1952); found flags 0x20",
    ),
    "reserved flag bit 7": (
        _with_flags(MEMBER, 0x80),
        "GZ-1 at byte 3: expected reserved flag bits 5-7 zero (RFC 1952); found flags 0x80",
    ),
    "wrong FHCRC": (
        _with_header_crc(MEMBER, delta=1),
        f"GZ-1 at byte 10: expected the header CRC 0x{zlib.crc32(_with_header_crc(MEMBER)[:10]) & 0xFFFF:04x} "
        f"(FHCRC); found 0x{(zlib.crc32(_with_header_crc(MEMBER)[:10]) & 0xFFFF) ^ 1:04x}",
    ),
    "trailing zeros": (
        MEMBER + bytes(512),
        f"GZ-1 at byte {len(MEMBER)}: expected another gzip member (1f 8b 08) or the end of the file; "
        "found 512 more bytes (00 00 00 00 00 00 00 00 …)",
    ),
    "trailing garbage": (
        MEMBER + b"junk",
        f"GZ-1 at byte {len(MEMBER)}: expected another gzip member (1f 8b 08) or the end of the file; "
        "found 4 more bytes (6a 75 6e 6b)",
    ),
    "second member of zeros": (
        MEMBER + b"\x1f\x8b\x08" + bytes(7),
        f"GZ-1 at byte {len(MEMBER) + 10}: expected the rest of the deflate stream; found the end of the file",
    ),
    "wrong method": (
        MEMBER[:2] + b"\x07" + MEMBER[3:],
        "GZ-1 at byte 2: expected compression method 8 (deflate); found 7",
    ),
    "not gzip": (DATA, "GZ-1 at byte 0: expected a gzip member starting 1f 8b; found 7b 0a"),
    "empty": (b"", "GZ-1 at byte 0: expected a 10-byte gzip member header; found the end of the file"),
    "short header": (
        MEMBER[:4],
        "GZ-1 at byte 0: expected a 10-byte gzip member header; found only 4 bytes (1f 8b 08 00)",
    ),
    "FNAME unterminated": (
        _with_flags(MEMBER, 0x08, b"n" * 2000),
        "GZ-1 at byte 10: expected a zero-terminated FNAME field of at most 1024 bytes; "
        "found no zero byte in 1024 bytes",
    ),
    "FCOMMENT cut by the end": (
        MEMBER[:3] + b"\x10" + MEMBER[4:10] + b"comment",
        "GZ-1 at byte 10: expected a zero-terminated FCOMMENT field of at most 1024 bytes; found the end of the file",
    ),
    "FEXTRA longer than the file": (
        _with_flags(MEMBER, 0x04, b"\xff\xff")[:40],
        "GZ-1 at byte 40: expected the rest of the FEXTRA field; found the end of the file",
    ),
    "wrong CRC-32": (
        MEMBER[:TRAILER_AT] + bytes(4) + MEMBER[TRAILER_AT + 4 :],
        f"GZ-1 at byte {TRAILER_AT}: expected the CRC-32 0x{zlib.crc32(DATA):08x} of the member's data; "
        "found 0x00000000",
    ),
    "wrong ISIZE": (
        MEMBER[:-4] + struct.pack("<I", len(DATA) + 1),
        f"GZ-1 at byte {TRAILER_AT + 4}: expected ISIZE {len(DATA)} (the member's length mod 2^32); "
        f"found {len(DATA) + 1}",
    ),
    "trailer cut": (
        MEMBER[:-1],
        f"GZ-1 at byte {TRAILER_AT}: expected the 8-byte member trailer (CRC-32, ISIZE); found 7 bytes",
    ),
}


@pytest.mark.parametrize(("content", "line"), list(REJECTED.values()), ids=list(REJECTED))
def test_gz1_rejects_with_where_expected_found(
    content: bytes, line: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _verify(tmp_path, content, capsys)
    assert (code, err[-1]) == (4, line)
    assert not any("Traceback" in x for x in err)


ACCEPTED = {
    "one member": MEMBER,
    "two valid members": gzip.compress(DATA[:100], mtime=0) + gzip.compress(DATA[100:], mtime=0),
    "an empty member first": gzip.compress(b"", mtime=0) + MEMBER,
    "correct FHCRC": _with_header_crc(MEMBER),
    "FTEXT, FEXTRA, FNAME, FCOMMENT": _with_flags(
        MEMBER, 0x1D, b"\x03\x00abc" + b"prepared.json\x00" + b"a comment\x00"
    ),
}


@pytest.mark.parametrize("content", list(ACCEPTED.values()), ids=list(ACCEPTED))
def test_well_formed_gzip_is_accepted(content: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _verify(tmp_path, content, capsys)
    assert code == 0, err
    assert gzip.decompress(content) == DATA


def test_the_bound_applies_to_the_sum_of_members() -> None:
    first = gzip.compress(b"a" * 600, mtime=0)
    two = first + gzip.compress(b"b" * 600, mtime=0)
    assert gunzip_members(two, 1200) == b"a" * 600 + b"b" * 600
    with pytest.raises(InputRejected) as caught:
        gunzip_members(two, 1199)
    # where: the member whose output crossed the bound
    assert (
        str(caught.value)
        == f"GZ-1 at byte {len(first)}: expected at most 1199 decompressed bytes; found more (raise --max-input-bytes)"
    )


def test_a_bomb_is_stopped_at_the_bound_without_decompressing_it() -> None:
    bomb = gzip.compress(bytes(200 << 20), compresslevel=9)  # 200 MiB of zeros, about 200 KB compressed
    with pytest.raises(InputRejected) as caught:
        gunzip_members(bomb, 1 << 20)
    assert caught.value.rule == "GZ-1"
    assert caught.value.found == "more (raise --max-input-bytes)"


# ---------------------------------------------------------------- through the command line


@pytest.mark.parametrize(
    ("content", "limit", "line"),
    [
        (
            b"\x1f\x8b\x08\x00garbage",
            None,
            "GZ-1 at byte 11: expected the rest of the deflate stream; found the end of the file",
        ),
        (
            gzip.compress(b" " * 5000),
            "1000",
            "GZ-1 at byte 0: expected at most 1000 decompressed bytes; found more (raise --max-input-bytes)",
        ),
    ],
    ids=["corrupt", "oversize"],
)
def test_gz1_corrupt_or_oversize_gzip(
    content: bytes, limit: str | None, line: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "x.json.gz"
    path.write_bytes(content)
    args = ["verify", "--input", str(path)] + (["--max-input-bytes", limit] if limit else [])
    assert main(args) == 4
    assert capsys.readouterr().err.splitlines()[-1] == line
