"""The one reader of a ``.json.gz`` prepared input: RFC 1952 checked, rule GZ-1, bounded output.

``run``, ``verify`` and ``archive`` read the input file through it
(:func:`ablation.pipeline.load_input`), and ``verify-archive`` and ``notes``
read a bundled ``.json.gz`` input through it too
(:func:`ablation.bundle.bundled.bundled_input`), so a file one of them refuses
is refused by all with the same rule (issue 23 item 5). The standard library's
``zlib`` inflates the deflate data; everything around it (member headers,
trailers, what may follow) is checked here. PRODUCT.md "Command line"
(``.json.gz`` input, GZ-1); RFC 1952 §2.3.
"""

from __future__ import annotations

import zlib

from ablation.errors import InputRejected

__all__ = ["MAX_HEADER_BYTES", "gunzip_members", "member_header"]

_CHUNK = 1 << 20  # compressed bytes handed to the inflater per step
_GZIP_FIELD_MAX = 1024  # bound of a zero-terminated FNAME or FCOMMENT, terminator included
_FTEXT, _FHCRC, _FEXTRA, _FNAME, _FCOMMENT = 0x01, 0x02, 0x04, 0x08, 0x10
_FRESERVED = 0xE0
# The longest member header RFC 1952 allows here: 10 fixed bytes, FEXTRA (2 + 65535),
# FNAME and FCOMMENT (1024 each, bounded above) and FHCRC (2).
MAX_HEADER_BYTES = 10 + 2 + 0xFFFF + 2 * _GZIP_FIELD_MAX + 2


def _hex(data: bytes | memoryview) -> str:
    return " ".join(f"{b:02x}" for b in data)


def _gzip_reject(where: int, expected: str, found: str) -> InputRejected:
    return InputRejected("GZ-1", f"byte {where}", expected, found)


def member_header(view: memoryview, start: int, origin: int = 0) -> int:
    """Check one RFC 1952 member header at ``start``; return the offset of its deflate data.

    Required: ID1 ID2 = 1f 8b, CM = 8, reserved FLG bits 5-7 zero; optional
    FEXTRA (its 16-bit length bounds it), FNAME and FCOMMENT (zero-terminated,
    at most 1024 bytes each), FHCRC (the low 16 bits of the CRC-32 of the
    header bytes before it, verified). ``view`` must reach the end of the file
    or hold at least :data:`MAX_HEADER_BYTES` bytes from ``start``: its end is
    taken for the end of the file. Offsets in messages are ``origin`` plus the
    offset in ``view`` (a streaming reader's view starts inside its file; the
    evidence bundle's reader, :mod:`ablation.bundle.gzipstream`, is one).

    Raises:
        InputRejected: GZ-1 at ``byte N``, what RFC 1952 requires there and what was found.
    """
    end = len(view)

    def reject(where: int, expected: str, found: str) -> InputRejected:
        return _gzip_reject(origin + where, expected, found)

    if end - start < 10:
        found = f"only {end - start} bytes ({_hex(view[start:end])})" if end > start else "the end of the file"
        raise reject(start, "a 10-byte gzip member header", found)
    if view[start : start + 2] != b"\x1f\x8b":  # type: ignore[comparison-overlap]  # memoryview == bytes by content
        raise reject(start, "a gzip member starting 1f 8b", _hex(view[start : start + 2]))
    if view[start + 2] != 8:
        raise reject(start + 2, "compression method 8 (deflate)", str(view[start + 2]))
    flags = view[start + 3]
    if flags & _FRESERVED:
        raise reject(start + 3, "reserved flag bits 5-7 zero (RFC 1952)", f"flags 0x{flags:02x}")
    pos = start + 10
    if flags & _FEXTRA:
        if end - pos < 2:
            raise reject(pos, "the 2-byte FEXTRA length", "the end of the file")
        pos += 2 + int.from_bytes(view[pos : pos + 2], "little")
        if pos > end:
            raise reject(end, "the rest of the FEXTRA field", "the end of the file")
    for flag, name in ((_FNAME, "FNAME"), (_FCOMMENT, "FCOMMENT")):
        if flags & flag:
            field = view[pos : min(pos + _GZIP_FIELD_MAX, end)]
            terminator = bytes(field).find(b"\x00")
            if terminator < 0:
                found = "the end of the file" if pos + len(field) >= end else f"no zero byte in {_GZIP_FIELD_MAX} bytes"
                raise reject(pos, f"a zero-terminated {name} field of at most {_GZIP_FIELD_MAX} bytes", found)
            pos += terminator + 1
    if flags & _FHCRC:
        if end - pos < 2:
            raise reject(pos, "the 2-byte header CRC (FHCRC)", "the end of the file")
        want = zlib.crc32(view[start:pos]) & 0xFFFF
        got = int.from_bytes(view[pos : pos + 2], "little")
        if got != want:
            raise reject(pos, f"the header CRC 0x{want:04x} (FHCRC)", f"0x{got:04x}")
        pos += 2
    return pos


def gunzip_members(compressed: bytes, limit: int) -> bytes:
    """Decompress every gzip member, checking each as RFC 1952 says; never more than ``limit`` bytes out.

    Each member: its header (:func:`member_header`), a complete deflate stream,
    and the trailer's CRC-32 and ISIZE of that member's output. Several
    members are concatenated; nothing may follow the last one (no zero
    padding, no garbage). Memory: the output plus one step's worth. Also
    meant for a ``.json.gz`` input read from a bundle (the caller turns GZ-1
    into its own error).

    Raises:
        InputRejected: GZ-1 naming the byte offset in the compressed file, what
            RFC 1952 requires there and what was found; or more than ``limit``
            decompressed bytes (exit 4).
    """
    view = memoryview(compressed)
    end = len(view)
    out: list[bytes] = []
    total = 0
    start = 0
    while True:
        pos = member_header(view, start)
        inflater = zlib.decompressobj(-zlib.MAX_WBITS)
        crc = 0
        size = 0
        while not inflater.eof:
            if pos >= end:
                raise _gzip_reject(end, "the rest of the deflate stream", "the end of the file")
            piece = view[pos : pos + _CHUNK]
            pos += len(piece)
            try:
                chunk = inflater.decompress(piece, limit + 1 - total)
            except zlib.error as exc:
                raise _gzip_reject(pos - len(piece), "a valid deflate stream", f"a corrupt one ({exc})") from None
            total += len(chunk)
            if total > limit or inflater.unconsumed_tail:
                raise _gzip_reject(start, f"at most {limit} decompressed bytes", "more (raise --max-input-bytes)")
            crc = zlib.crc32(chunk, crc)
            size += len(chunk)
            out.append(chunk)
        pos -= len(inflater.unused_data)
        if end - pos < 8:
            raise _gzip_reject(pos, "the 8-byte member trailer (CRC-32, ISIZE)", f"{end - pos} bytes")
        got_crc = int.from_bytes(view[pos : pos + 4], "little")
        if got_crc != crc:
            raise _gzip_reject(pos, f"the CRC-32 0x{crc:08x} of the member's data", f"0x{got_crc:08x}")
        got_size = int.from_bytes(view[pos + 4 : pos + 8], "little")
        if got_size != size & 0xFFFFFFFF:
            raise _gzip_reject(pos + 4, f"ISIZE {size & 0xFFFFFFFF} (the member's length mod 2^32)", str(got_size))
        start = pos + 8
        if start == end:
            return out[0] if len(out) == 1 else b"".join(out)
        if view[start : start + 3] != b"\x1f\x8b\x08":  # type: ignore[comparison-overlap]  # memoryview == bytes by content
            found = f"{end - start} more bytes ({_hex(view[start : start + 8])}{' …' if end - start > 8 else ''})"
            raise _gzip_reject(start, "another gzip member (1f 8b 08) or the end of the file", found)
