"""Read a bundle's gzip framing as RFC 1952 defines it, inflating in bounded chunks.

A bundle file is a series of gzip members, each checked as the one gzip
reader checks a ``.json.gz`` input (:func:`ablation.gzipfile.member_header`:
magic, method 8, reserved flag bits zero, ``FHCRC`` verified when present,
``FNAME``/``FCOMMENT`` at most 1024 bytes), then raw deflate data and the
CRC-32 and size of what that member inflates to. Nothing may follow the last
member: zero padding or any other trailing byte is refused. Memory stays
bounded by the chunk size (plus one member header) whatever the compression
ratio or the number of members.

``archive`` writes exactly one member whose 10-byte header is
:data:`~ablation.bundle.tarformat.GZIP_HEADER`: the *canonical framing*.
Any other well-formed framing (``gzip -9 -n``, ``gzip -1``, ``python -m
gzip``, several members) holds the same tar and so the same content digest;
:attr:`Inflater.framing` says how it differs (issue 22 item 1). The deflate
bytes themselves are not re-derived: they depend on the zlib that wrote them.
"""

from __future__ import annotations

import hashlib
import zlib
from typing import BinaryIO

from ablation.bundle.tarformat import GZIP_HEADER
from ablation.errors import InputRejected, IntegrityError, UsageError
from ablation.gzipfile import MAX_HEADER_BYTES, member_header

__all__ = ["CHUNK", "Inflater", "describe_header"]

CHUNK = 1 << 20
_TRAILER = 8
_OPTIONAL_FIELDS = ((0x04, "an extra field"), (0x08, "a file name"), (0x10, "a comment"), (0x02, "a header CRC"))


def describe_header(header: bytes) -> str:
    """What a well-formed gzip member header holds that :data:`GZIP_HEADER` does not, in words.

    >>> describe_header(bytes.fromhex("1f8b0800000000000203"))
    'XFL 2, OS 3; archive writes XFL 2, OS 255, mtime 0, no optional field'
    >>> describe_header(bytes.fromhex("1f8b0808d2040000000374") + b"b.tar\\0")
    'mtime 1234, XFL 0, OS 3, a file name; archive writes XFL 2, OS 255, mtime 0, no optional field'
    """
    flags, mtime, xfl, os_byte = header[3], int.from_bytes(header[4:8], "little"), header[8], header[9]
    parts = [f"mtime {mtime}"] if mtime else []
    parts += [f"XFL {xfl}", f"OS {os_byte}"]
    parts += [name for bit, name in _OPTIONAL_FIELDS if flags & bit]
    return ", ".join(parts) + "; archive writes XFL 2, OS 255, mtime 0, no optional field"


class Inflater:
    """The decompressed bytes of one bundle file, read in order across its gzip members.

    Attributes:
        position: decompressed bytes handed out so far.
        members: gzip members begun so far.
        first_header: the first member's header bytes (at most 64 of them).
    """

    def __init__(self, handle: BinaryIO, shown_path: str) -> None:
        """Check the first member's header at once.

        Raises:
            IntegrityError: ``bundle: not a readable gzip stream …`` when it is not an RFC 1952 member header.
            UsageError: the file cannot be read.
        """
        self._handle = handle
        self._path = shown_path
        self._file_digest = hashlib.sha256()
        self._raw_offset = 0  # file bytes read so far
        self._pending = b""  # file bytes read but not yet given to the inflater
        self._buffer = b""
        self._start = 0
        self._ended = False
        self.position = 0
        self.members = 0
        self.first_header = b""
        self._begin_member(first=True)

    def _raw(self, n: int) -> bytes:
        try:
            data = self._handle.read(n)
        except OSError as exc:
            msg = f"cannot read bundle {self._path!r}: {exc.strerror or exc}"
            raise UsageError(msg) from None
        self._file_digest.update(data)
        self._raw_offset += len(data)
        return data

    def _take(self) -> bytes:
        """The next compressed bytes: what a header left over, else a new chunk of the file."""
        if self._pending:
            data, self._pending = self._pending, b""
            return data
        return self._raw(CHUNK)

    def _begin_member(self, *, first: bool) -> None:
        """Parse the member header that starts the pending bytes; ready the inflater for its deflate data."""
        while len(self._pending) < MAX_HEADER_BYTES:
            more = self._raw(CHUNK)
            if not more:
                break
            self._pending += more
        origin = self._raw_offset - len(self._pending)
        try:
            start = member_header(memoryview(self._pending), 0, origin)
        except InputRejected as exc:
            what = f"at {exc.where}: expected {exc.expected}; found {exc.found}"
            if first:
                msg = f"bundle: not a readable gzip stream (RFC 1952) {what}"
            else:
                msg = f"bundle: bytes after gzip member {self.members} are not another gzip member ({what})"
            raise IntegrityError(msg) from None
        if first:
            self.first_header = self._pending[: min(start, 64)]
        self._pending = self._pending[start:]
        self.members += 1
        self._z = zlib.decompressobj(-zlib.MAX_WBITS)
        self._crc = 0
        self._size = 0

    def _end_member(self) -> None:
        """Check the member's CRC-32 and size; begin the next member, or note the end of the file."""
        trailer = self._z.unused_data
        while len(trailer) < _TRAILER:
            more = self._take()
            if not more:
                msg = "bundle: the gzip stream is truncated (no CRC-32 and size after the deflate data)"
                raise IntegrityError(msg)
            trailer += more
        crc, size = int.from_bytes(trailer[:4], "little"), int.from_bytes(trailer[4:8], "little")
        if (crc, size) != (self._crc, self._size & 0xFFFFFFFF):
            msg = f"bundle: the gzip CRC-32 or size does not match the decompressed data (gzip member {self.members})"
            raise IntegrityError(msg)
        self._pending = trailer[_TRAILER:] + self._pending
        if not self._pending:
            self._pending = self._raw(CHUNK)
        if self._pending:
            self._begin_member(first=False)
        else:
            self._ended = True

    def _inflate(self) -> bytes:
        """The next decompressed bytes; ``b""`` only once the last member ended."""
        while not self._ended:
            if self._z.eof:
                self._end_member()
                continue
            source = self._z.unconsumed_tail or self._take()
            if not source:
                msg = "bundle: the gzip stream is truncated (its deflate data does not end)"
                raise IntegrityError(msg)
            try:
                out = self._z.decompress(source, CHUNK)
            except zlib.error as exc:
                msg = f"bundle: not a readable gzip stream ({exc})"
                raise IntegrityError(msg) from None
            if out:
                self._crc = zlib.crc32(out, self._crc)
                self._size += len(out)
                return out
        return b""

    def read(self, n: int) -> bytes:
        """Exactly ``n`` decompressed bytes, or fewer only where the last member ends."""
        available = len(self._buffer) - self._start
        if available >= n:
            out = self._buffer[self._start : self._start + n]
            self._start += n
            self.position += n
            return out
        parts = [self._buffer[self._start :]]
        need = n - available
        self._buffer, self._start = b"", 0
        while need > 0:
            more = self._inflate()
            if not more:
                break
            parts.append(more[:need])
            if len(more) > need:
                self._buffer, self._start = more, need
            need -= min(need, len(more))
        out = b"".join(parts)
        self.position += len(out)
        return out

    @property
    def framing(self) -> str | None:
        """How the framing read so far differs from the canonical one, in words; ``None`` when it does not.

        Complete once :meth:`finish` returned.
        """
        differences = []
        if self.first_header != GZIP_HEADER:
            differences.append(f"its gzip header {self.first_header[:10].hex()} ({describe_header(self.first_header)})")
        if self.members != 1:
            differences.append(f"{self.members} gzip members (archive writes one)")
        return "; ".join(differences) or None

    def drain(self) -> None:
        """Inflate the rest of the file, checking every member, and discard what it gives.

        Raises:
            IntegrityError: as :meth:`read` and :meth:`finish` do for the framing.
        """
        self._buffer, self._start = b"", 0
        while self._inflate():
            pass

    def finish(self) -> str:
        """Check that nothing follows the tar and that the last gzip member ends the file; the file's SHA-256.

        Raises:
            IntegrityError: ``bundle: …`` for decompressed bytes after the tar,
                a wrong CRC-32 or size, or any byte after the last gzip member.
        """
        appended = "bundle: bytes after the end of the tar archive are not a tar header (corrupt or appended data)"
        if self._start < len(self._buffer) or self._inflate():
            raise IntegrityError(appended)
        return self._file_digest.hexdigest()
