"""A bundle whose tar is not the one ``archive`` writes: say so, and which files still match ``SHA256SUMS``.

The strict reader (:mod:`ablation.bundle.reader`) refuses every tar that is
not byte-for-byte the writer's, raising :class:`RepackedTar`. Such a tar was
re-packed (``tar -czf`` of an extracted bundle) or damaged; either way
``verify-archive`` does not vouch for it (exit 3), but the reviewer is told
what can still be learnt without extracting anything: :func:`repacked_listing`
reads the file once more, as a plain tar stream (ustar and GNU headers, GNU
long names and PAX ``path`` records, each bounded), hashes every regular file
as it streams, and compares them with the ``SHA256SUMS`` it holds. Links,
devices and folders are never followed or created: they are names in a
stream. It stops, and says where, at anything it cannot read safely
(sparse files, base-256 numbers, over-long records, over the size bounds).
A damaged gzip stream found on the way is reported instead, as damage.
Issue 22 item 1; README "For reviewers".
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import BinaryIO

from ablation.bundle.gzipstream import CHUNK, Inflater
from ablation.bundle.layout import MAX_MEMBER_BYTES, MAX_TOTAL_BYTES, SIGNATURE, SUMS, shown, utf8_key
from ablation.bundle.sums import parse_sums
from ablation.errors import IntegrityError

__all__ = ["REPACKED", "RepackedTar", "repacked_listing"]

REPACKED = "re-packed: not the tar that `archive` writes"
MAX_SCAN_MEMBERS = 1_000_000  # members read before the listing stops
MAX_RECORD_BYTES = 1 << 16  # a GNU long name or a PAX record, at most
MAX_SUMS_BYTES = 64 << 20  # a SHA256SUMS kept for the comparison, at most
_BLOCK = 512
_SHOWN = 5  # names listed per kind before "and N more"
_MAGICS = (b"ustar\x0000", b"ustar  \x00")
_DATA = (b"0", b"\x00", b"7")
_NAMES_ONLY = {b"1": "a hard link", b"2": "a symbolic link", b"3": "a device", b"4": "a device", b"6": "a fifo"}


class RepackedTar(IntegrityError):
    """The tar inside a bundle is not the form ``archive`` writes (a header, the order, the padding or the end).

    Raised by the strict reader; :func:`ablation.bundle.reader.read_bundle_file`
    turns it into one message with :func:`repacked_listing`'s findings.
    """


@dataclass(slots=True)
class _Scan:
    """What the plain reading of a tar found."""

    files: dict[str, str] = field(default_factory=dict)  # name -> hex SHA-256
    kept: dict[str, bytes] = field(default_factory=dict)  # SHA256SUMS candidates by name
    special: list[str] = field(default_factory=list)  # links, devices, fifos
    stopped: str | None = None
    members: int = 0
    total: int = 0


def _number(field_bytes: bytes) -> int | None:
    """A tar octal field as GNU and POSIX tar write it (spaces or NULs around the digits); ``None`` otherwise."""
    digits = field_bytes.strip(b" \x00")
    if any(c not in b"01234567" for c in digits):
        return None
    return int(digits, 8) if digits else 0


def _checksum_ok(block: bytes) -> bool:
    stored = _number(block[148:156])
    return stored is not None and stored == sum(block[:148]) + 8 * 32 + sum(block[156:])


def _normal(name: str) -> str:
    """A member name without leading ``./`` and trailing ``/``."""
    while name.startswith("./"):
        name = name[2:]
    return name.rstrip("/")


def _pax_path(data: bytes) -> str | None:
    """The ``path`` of a PAX extended header's records, or ``None``."""
    path = None
    while data:
        length_text, _, rest = data.partition(b" ")
        if not length_text.isdigit() or int(length_text) <= len(length_text) + 1 or int(length_text) > len(data):
            return path
        record = rest[: int(length_text) - len(length_text) - 1]
        key, _, value = record.partition(b"=")
        if key == b"path":
            path = value.removesuffix(b"\n").decode("utf-8", "replace")
        data = data[int(length_text) :]
    return path


def _data(stream: Inflater, scan: _Scan, size: int, name: str, *, keep: bool) -> tuple[str, bytes] | None:
    """Hash a member's data (and keep it when asked); ``None`` when the stream ended inside it."""
    digest, parts, remaining = hashlib.sha256(), [], size
    while remaining:
        chunk = stream.read(min(remaining, CHUNK))
        if not chunk:
            scan.stopped = f"{shown(name)}: truncated inside its data"
            return None
        digest.update(chunk)
        if keep:
            parts.append(chunk)
        remaining -= len(chunk)
    stream.read(-size % _BLOCK)
    return digest.hexdigest(), b"".join(parts)


def _header(stream: Inflater, scan: _Scan) -> tuple[bytes, int] | None:
    """The next header block and its size; ``None`` at the end blocks or where the scan stops."""
    at = stream.position
    block = stream.read(_BLOCK)
    if len(block) < _BLOCK:
        scan.stopped = f"the tar ends at byte {at} without its end blocks"
        return None
    if block == bytes(_BLOCK):
        return None
    size = _number(block[124:136])
    if block[257:265] not in _MAGICS or not _checksum_ok(block):
        scan.stopped = f"the {_BLOCK} bytes at byte {at} are not a ustar or GNU tar header"
    elif size is None:
        scan.stopped = f"the header at byte {at} has a size that is not octal (base-256 is not read)"
    elif size > MAX_MEMBER_BYTES or scan.total + size > MAX_TOTAL_BYTES:
        scan.stopped = f"the header at byte {at} declares {size} bytes, over the bundle's size bounds"
    elif scan.members >= MAX_SCAN_MEMBERS:
        scan.stopped = f"more than {MAX_SCAN_MEMBERS} members"
    else:
        scan.members += 1
        scan.total += size
        return block, size
    return None


def _walk(stream: Inflater) -> _Scan:
    """Read the tar as a plain stream, hashing every regular file; stop at anything unsafe."""
    scan = _Scan()
    long_name: str | None = None
    while (found := _header(stream, scan)) is not None:
        block, size = found
        kind = block[156:157]
        name = block[:100].split(b"\0", 1)[0]
        if block[257:265] == _MAGICS[0] and block[345:500].strip(b"\0"):
            name = block[345:500].split(b"\0", 1)[0] + b"/" + name
        member = long_name if long_name is not None else name.decode("utf-8", "replace")
        if kind in (b"L", b"x", b"K", b"g"):
            if size > MAX_RECORD_BYTES:
                scan.stopped = (
                    f"{shown(member)}: a {size}-byte long-name or PAX record (at most {MAX_RECORD_BYTES} read)"
                )
                break
            record = _data(stream, scan, size, member, keep=True)
            if record is None:
                break
            if kind == b"L":
                long_name = record[1].split(b"\0", 1)[0].decode("utf-8", "replace")
            elif kind == b"x":
                long_name = _pax_path(record[1]) or long_name
            continue
        long_name = None
        name_text = _normal(member)
        if kind in _DATA:
            keep = name_text.rpartition("/")[2] == SUMS and size <= MAX_SUMS_BYTES
            hashed = _data(stream, scan, size, name_text, keep=keep)
            if hashed is None:
                break
            scan.files[name_text] = hashed[0]
            if keep:
                scan.kept[name_text] = hashed[1]
        elif kind == b"5" or kind in _NAMES_ONLY:
            if kind in _NAMES_ONLY:
                scan.special.append(f"{shown(name_text)} ({_NAMES_ONLY[kind]})")
            if _data(stream, scan, size, name_text, keep=False) is None:
                break
        else:
            scan.stopped = f"{shown(name_text)}: a member of tar type {kind!r}, not read"
            break
    return scan


def _names(paths: list[str], base: str) -> str:
    listed = ", ".join(shown(base + p) for p in paths[:_SHOWN])
    return listed + (f" and {len(paths) - _SHOWN} more" if len(paths) > _SHOWN else "")


def _compare(scan: _Scan) -> str:
    """The comparison of the hashed files with the ``SHA256SUMS`` found among them."""
    candidates = sorted(scan.kept, key=lambda n: (n.count("/"), utf8_key(n)))
    if not candidates:
        return f"it holds no readable {SUMS}, so no file can be compared"
    sums_name = candidates[0]
    base = sums_name[: -len(SUMS)]
    try:
        listed = parse_sums(scan.kept[sums_name], shown(sums_name))
    except IntegrityError as exc:
        return f"its {SUMS} is not in the form archive writes ({exc}), so no file is compared"
    present = {n[len(base) :]: d for n, d in scan.files.items() if n.startswith(base)}
    differ = [p for p in listed if p in present and present[p] != listed[p]]
    missing = [p for p in listed if p not in present]
    unlisted = sorted((p for p in present if p not in listed and p not in (SUMS, SIGNATURE)), key=utf8_key)
    unlisted += [n for n in sorted(scan.files, key=utf8_key) if not n.startswith(base)]
    parts = [f"{len(listed) - len(differ) - len(missing)} of the {len(listed)} files {shown(sums_name)} lists match it"]
    if differ:
        parts.append(f"differ from {SUMS}: {_names(differ, base)}")
    if missing:
        parts.append(f"listed but missing: {_names(missing, base)}")
    if unlisted:
        parts.append(f"not listed in {SUMS}: {_names(unlisted, base)}")
    if not (differ or missing or unlisted or scan.stopped):
        parts.append(f"no file differs from {SUMS}, yet only the tar archive writes is checked: ask for that bundle")
    return "; ".join(parts)


def repacked_listing(handle: BinaryIO, shown_path: str) -> str:
    """What a plain, non-extracting reading of the bundle's tar finds, as one clause (no trailing period).

    Args:
        handle: the bundle file, positioned at its start.
        shown_path: how messages name the file.

    Raises:
        IntegrityError: the gzip stream itself is damaged (truncated, corrupt,
            a wrong CRC-32): that, not the tar, is then what is wrong.
        UsageError: the file cannot be read.
    """
    stream = Inflater(handle, shown_path)
    scan = _walk(stream)
    stream.drain()
    parts = [f"read without extracting: {_compare(scan)}"]
    if scan.special:
        parts.append(f"links or devices (never followed): {', '.join(scan.special[:_SHOWN])}")
    if scan.stopped is not None:
        parts.append(f"the reading stopped there: {scan.stopped}")
    return "; ".join(parts)
