"""Read exactly the gzip framing ``archive`` writes, inflating in bounded chunks.

One gzip member whose 10-byte header is :data:`~ablation.bundle.tarformat.GZIP_HEADER`
(no flags, so no reserved bits, ``FHCRC``, name or extra field; mtime 0; XFL 2;
OS 255), raw deflate data, the CRC-32 and size of what it inflates to, and
nothing after: a second member, zero padding or any other trailing byte is
refused (issue 11). Memory stays bounded by the chunk size whatever the
compression ratio.
"""

from __future__ import annotations

import hashlib
import struct
import zlib
from typing import BinaryIO

from ablation.bundle.tarformat import GZIP_HEADER
from ablation.errors import IntegrityError, UsageError

__all__ = ["Inflater"]

CHUNK = 1 << 20
_TRAILER = 8


class Inflater:
    """The decompressed bytes of one bundle file, read in order.

    Attributes:
        position: decompressed bytes handed out so far.
    """

    def __init__(self, handle: BinaryIO, shown_path: str) -> None:
        """Check the gzip header at once.

        Raises:
            IntegrityError: ``bundle: …`` when the header is not exactly the writer's.
            UsageError: the file cannot be read.
        """
        self._handle = handle
        self._path = shown_path
        self._file_digest = hashlib.sha256()
        self._z = zlib.decompressobj(-zlib.MAX_WBITS)
        self._buffer = b""
        self._start = 0
        self._crc = 0
        self._size = 0
        self.position = 0
        header = self._raw(len(GZIP_HEADER))
        if header != GZIP_HEADER:
            msg = (
                f"bundle: not a readable gzip stream: its header is {header.hex() or 'empty'}, archive writes "
                f"exactly {GZIP_HEADER.hex()} (one member, no flags, mtime 0)"
            )
            raise IntegrityError(msg)

    def _raw(self, n: int) -> bytes:
        try:
            data = self._handle.read(n)
        except OSError as exc:
            msg = f"cannot read bundle {self._path!r}: {exc.strerror or exc}"
            raise UsageError(msg) from None
        self._file_digest.update(data)
        return data

    def _inflate(self) -> bytes:
        """The next decompressed bytes (possibly none); ``b""`` for good once the deflate data ended."""
        if self._z.eof:
            return b""
        source = self._z.unconsumed_tail or self._raw(CHUNK)
        if not source:
            msg = "bundle: the gzip stream is truncated (its deflate data does not end)"
            raise IntegrityError(msg)
        try:
            out = self._z.decompress(source, CHUNK)
        except zlib.error as exc:
            msg = f"bundle: not a readable gzip stream ({exc})"
            raise IntegrityError(msg) from None
        self._crc = zlib.crc32(out, self._crc)
        self._size += len(out)
        return out

    def read(self, n: int) -> bytes:
        """Exactly ``n`` decompressed bytes, or fewer only where the deflate data ends."""
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
            if not more and self._z.eof:
                break
            parts.append(more[:need])
            if len(more) > need:
                self._buffer, self._start = more, need
            need -= min(need, len(more))
        out = b"".join(parts)
        self.position += len(out)
        return out

    def finish(self) -> str:
        """Check that nothing follows the tar and that the gzip member ends the file; the file's SHA-256.

        Raises:
            IntegrityError: ``bundle: …`` for decompressed bytes after the tar,
                a wrong CRC-32 or size, or any byte after the gzip member.
        """
        appended = "bundle: bytes after the end of the tar archive are not a tar header (corrupt or appended data)"
        if self._start < len(self._buffer):
            raise IntegrityError(appended)
        while not self._z.eof:
            if self._inflate():
                raise IntegrityError(appended)
        trailer = self._z.unused_data
        if len(trailer) < _TRAILER:
            trailer += self._raw(_TRAILER - len(trailer))
        if len(trailer) < _TRAILER:
            msg = "bundle: the gzip stream is truncated (no CRC-32 and size after the deflate data)"
            raise IntegrityError(msg)
        crc, size = struct.unpack("<II", trailer[:_TRAILER])
        if (crc, size) != (self._crc, self._size & 0xFFFFFFFF):
            msg = "bundle: the gzip CRC-32 or size does not match the decompressed data"
            raise IntegrityError(msg)
        if len(trailer) > _TRAILER or self._raw(1):
            msg = (
                "bundle: bytes after the gzip member (a second member or padding); "
                "archive writes exactly one member and nothing after it"
            )
            raise IntegrityError(msg)
        return self._file_digest.hexdigest()
