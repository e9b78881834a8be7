"""GZ-1 on every member of a ``.json.gz``, the last one included (issue 25 item 3).

GZ-1 (PRODUCT.md): a ``.json.gz`` input is a sequence of RFC 1952 members,
every member header checked (magic, method 8, reserved flag bits zero,
``FHCRC`` verified when present, ``FNAME``/``FCOMMENT`` at most 1024 bytes),
each member's CRC-32 and ISIZE, nothing after the last member. The check
loops over the members; ``tests/test_gzip_input.py`` breaks the first (or
only) member, so here the first member is valid and the LAST one is broken,
each defect reported at its byte offset in the whole file, and a valid
``FHCRC`` on the last member (computed over that member's header only) passes.

Spec: PRODUCT.md "GZ-1"; RFC 1952 §2.3.
"""

from __future__ import annotations

import gzip
import struct
import zlib

import pytest

from ablation.errors import InputRejected
from ablation.pipeline import gunzip_members

FIRST = gzip.compress(b'{"first": "member"}', mtime=0)
LAST_DATA = b', "the last member"'
LAST = gzip.compress(LAST_DATA, mtime=0)
AT = len(FIRST)  # where the last member starts
LIMIT = 1 << 20


def _rejected(data: bytes) -> str:
    with pytest.raises(InputRejected) as info:
        gunzip_members(data, LIMIT)
    return str(info.value)


def _with_header_crc(member: bytes, *, delta: int = 0) -> bytes:
    header = member[:3] + bytes([member[3] | 0x02]) + member[4:10]
    return header + struct.pack("<H", (zlib.crc32(header) & 0xFFFF) ^ delta) + member[10:]


def test_two_valid_members_are_one_text() -> None:
    """Both members decompress and are joined in order."""
    assert gunzip_members(FIRST + LAST, LIMIT) == b'{"first": "member"}' + LAST_DATA


def test_a_valid_header_crc_on_the_last_member_covers_that_member_only() -> None:
    """FHCRC is the CRC-32 of the last member's own header bytes, not of the file from byte 0."""
    assert gunzip_members(FIRST + _with_header_crc(LAST), LIMIT) == b'{"first": "member"}' + LAST_DATA


@pytest.mark.parametrize(
    ("last", "line"),
    [
        (
            b"\x1f\x8c" + LAST[2:],
            f"GZ-1 at byte {AT}: expected another gzip member (1f 8b 08) or the end of the file; "
            f"found {len(LAST)} more bytes (1f 8c 08 00 00 00 00 00 …)",
        ),
        (
            LAST[:2] + b"\x07" + LAST[3:],
            f"GZ-1 at byte {AT}: expected another gzip member (1f 8b 08) or the end of "
            f"the file; found {len(LAST)} more bytes (1f 8b 07 00 00 00 00 00 …)",
        ),
        (
            LAST[:3] + b"\x20" + LAST[4:],
            f"GZ-1 at byte {AT + 3}: expected reserved flag bits 5-7 zero (RFC 1952); found flags 0x20",
        ),
        (
            LAST[:3] + b"\x80" + LAST[4:],
            f"GZ-1 at byte {AT + 3}: expected reserved flag bits 5-7 zero (RFC 1952); found flags 0x80",
        ),
        (
            LAST[:3] + b"\x08" + LAST[4:10] + b"n" * 1100 + b"\x00" + LAST[10:],
            f"GZ-1 at byte {AT + 10}: expected a zero-terminated FNAME field of at most 1024 bytes; "
            "found no zero byte in 1024 bytes",
        ),
        (
            LAST[:3] + b"\x10" + LAST[4:10] + b"c" * 1100 + b"\x00" + LAST[10:],
            f"GZ-1 at byte {AT + 10}: expected a zero-terminated FCOMMENT field of at most 1024 bytes; "
            "found no zero byte in 1024 bytes",
        ),
        (
            LAST[:-8] + bytes(4) + LAST[-4:],
            f"GZ-1 at byte {AT + len(LAST) - 8}: expected the CRC-32 "
            f"0x{zlib.crc32(LAST_DATA):08x} of the member's data; found 0x00000000",
        ),
        (
            LAST[:-4] + struct.pack("<I", len(LAST_DATA) + 1),
            f"GZ-1 at byte {AT + len(LAST) - 4}: expected ISIZE {len(LAST_DATA)} (the member's length mod 2^32); "
            f"found {len(LAST_DATA) + 1}",
        ),
        (
            LAST[:-1],
            f"GZ-1 at byte {AT + len(LAST) - 8}: expected the 8-byte member trailer (CRC-32, ISIZE); found 7 bytes",
        ),
        (
            LAST + b"\x00",
            f"GZ-1 at byte {AT + len(LAST)}: expected another gzip member (1f 8b 08) or the end of the "
            "file; found 1 more bytes (00)",
        ),
    ],
    ids=[
        "magic",
        "method",
        "reserved-bit-5",
        "reserved-bit-7",
        "fname-too-long",
        "fcomment-too-long",
        "crc32",
        "isize",
        "trailer-cut",
        "trailing-zero",
    ],
)
def test_every_check_applies_to_the_last_member(last: bytes, line: str) -> None:
    """The first member is valid; each defect of the last one is GZ-1 at its offset in the file."""
    assert _rejected(FIRST + last) == line


def test_a_wrong_header_crc_on_the_last_member() -> None:
    """FHCRC off by one on the last member: GZ-1 where that member's header CRC is."""
    good = zlib.crc32(_with_header_crc(LAST)[:10]) & 0xFFFF
    assert _rejected(FIRST + _with_header_crc(LAST, delta=1)) == (
        f"GZ-1 at byte {AT + 10}: expected the header CRC 0x{good:04x} (FHCRC); found 0x{good ^ 1:04x}"
    )


def test_the_bound_counts_the_last_member_too() -> None:
    """The decompressed bound is over the sum: the last member crosses it, and is named."""
    total = len(b'{"first": "member"}') + len(LAST_DATA)
    assert gunzip_members(FIRST + LAST, total) == b'{"first": "member"}' + LAST_DATA
    assert _rejected_at(FIRST + LAST, total - 1) == (
        f"GZ-1 at byte {AT}: expected at most {total - 1} decompressed bytes; found more (raise --max-input-bytes)"
    )


def _rejected_at(data: bytes, limit: int) -> str:
    with pytest.raises(InputRejected) as info:
        gunzip_members(data, limit)
    return str(info.value)
