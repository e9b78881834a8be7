"""The bundle's byte format: GNU tar headers and one gzip member, exactly as ``archive`` writes them.

The writer (:func:`bundle_bytes`) and the strict reader
(:mod:`ablation.bundle.reader`) share :func:`header_bytes` and
:data:`GZIP_HEADER`, so a bundle is read back only when each header is
byte-for-byte what the writer produces for that name, size and type.

Format (docs/reference/evidence-bundle.md): entries sorted by UTF-8 name, each folder
before its contents; GNU tar headers (magic ``ustar  \\0``) of type ``5``
(folder, mode 0755, size 0, name ending in ``/``) or ``0`` (file, mode 0644),
uid/gid 0, empty owner names, every member's mtime the same (0 or
``SOURCE_DATE_EPOCH``); a name over 100 UTF-8 bytes is preceded by one GNU
``L`` record (``././@LongLink``) holding it NUL-terminated; data padded with
NUL to 512 bytes; two zero blocks, then zeros to the next 10240-byte record.
The tar is one gzip member: the 10-byte header :data:`GZIP_HEADER` (no flags,
mtime 0, XFL 2, OS 255), raw deflate at level 9, CRC-32 and size, nothing after.
"""

from __future__ import annotations

import tarfile
import zlib
from collections.abc import Iterable, Iterator, Mapping

from ablation.bundle.layout import utf8_key

__all__ = [
    "BLOCK",
    "GZIP_HEADER",
    "MAX_MTIME",
    "RECORD",
    "bundle_bytes",
    "compress",
    "end_bytes",
    "header_bytes",
    "padding",
]

BLOCK = tarfile.BLOCKSIZE  # 512
RECORD = tarfile.RECORDSIZE  # 10240
MAX_MTIME = 8**11 - 1  # 8589934591: the largest mtime the 12-byte octal field holds
GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
_GROUP = 8 << 20  # bytes per call into zlib, at least (:func:`_grouped`)


def header_bytes(name: str, size: int, *, folder: bool, mtime: int) -> bytes:
    """The header block(s) ``archive`` writes for one member: a GNU ``L`` record when needed, then the header.

    Args:
        name: the full member name (top folder included, no trailing ``/``).
        size: the file's size in bytes (0 for a folder).
        folder: a folder entry (type ``5``, mode 0755) rather than a file (type ``0``, mode 0644).
        mtime: seconds, 0 … :data:`MAX_MTIME`.

    Raises:
        UnicodeEncodeError: ``name`` is not valid UTF-8 text.
    """
    info = tarfile.TarInfo(name)
    info.mtime = mtime
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.type = tarfile.DIRTYPE if folder else tarfile.REGTYPE
    info.mode = 0o755 if folder else 0o644
    info.size = 0 if folder else size
    return info.tobuf(tarfile.GNU_FORMAT, "utf-8", "strict")


def padding(size: int) -> int:
    """NUL bytes after ``size`` data bytes to reach the next 512-byte block."""
    return -size % BLOCK


def end_bytes(offset: int) -> int:
    """How many zero bytes end a tar whose members end at ``offset``: two blocks, then to the record."""
    end = offset + 2 * BLOCK
    return end - offset + (-end % RECORD)


def _entries(top: str, files: Mapping[str, bytes]) -> dict[str, bytes | None]:
    """Every member name (folders as ``None``) of a bundle, unsorted.

    Raises:
        ValueError: a path is both a file and a folder.
    """
    entries: dict[str, bytes | None] = {top: None}
    for rel, data in files.items():
        parts = rel.split("/")
        for k in range(1, len(parts)):
            folder = f"{top}/{'/'.join(parts[:k])}"
            if entries.get(folder) is not None:
                msg = f"{folder} is both a file and a folder"
                raise ValueError(msg)
            entries[folder] = None
        name = f"{top}/{rel}"
        if name in entries:
            msg = f"{name} is both a file and a folder"
            raise ValueError(msg)
        entries[name] = data
    return entries


def _tar_chunks(entries: Mapping[str, bytes | None], mtime: int) -> Iterator[bytes]:
    offset = 0
    for name in sorted(entries, key=utf8_key):
        data = entries[name]
        header = header_bytes(name, len(data or b""), folder=data is None, mtime=mtime)
        yield header
        offset += len(header)
        if data:
            yield data
            yield b"\0" * padding(len(data))
            offset += len(data) + padding(len(data))
    yield b"\0" * end_bytes(offset)


def _grouped(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """The chunks in pieces of at least :data:`_GROUP` bytes: small ones joined, a large one passed as is."""
    pending: list[bytes] = []
    size = 0
    for chunk in chunks:
        if len(chunk) < _GROUP:
            pending.append(chunk)
            size += len(chunk)
            if size < _GROUP:
                continue
        if pending:
            yield b"".join(pending)
            pending, size = [], 0
        if len(chunk) >= _GROUP:
            yield chunk
    if pending:
        yield b"".join(pending)


def compress(chunks: Iterable[bytes]) -> bytes:
    """One gzip member as ``archive`` writes it: :data:`GZIP_HEADER`, level-9 raw deflate, CRC-32, size.

    zlib writes the gzip framing itself (window bits 16 + 15: its 10-byte
    header, then the CRC-32 and size it computes while deflating), and its
    header is replaced by :data:`GZIP_HEADER` (zlib's names the OS, 3 on Unix;
    the bundle's says 255). Without a flush, deflate's output does not depend
    on how its input is cut into calls, so the chunks go to zlib in few large
    pieces (:func:`_grouped`): run in a thread, each call releases the GIL
    once, and a thread that must take the GIL back for every small piece
    waits on the evaluation running beside it.
    """
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS, zlib.DEF_MEM_LEVEL, 0)
    out = [compressor.compress(piece) for piece in _grouped(chunks)]
    out.append(compressor.flush())
    framed = b"".join(out)
    return GZIP_HEADER + framed[len(GZIP_HEADER) :]


def bundle_bytes(top: str, files: Mapping[str, bytes], *, mtime: int = 0) -> bytes:
    """The deterministic ``.tar.gz`` of ``files`` (paths below ``top``), with every folder as an entry.

    Raises:
        ValueError: a path is both a file and a folder.
    """
    return compress(_tar_chunks(_entries(top, files), mtime))
