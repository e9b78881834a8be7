"""The strict bundle reader: only the tar ``archive`` writes, streamed, never extracted to disk.

The gzip framing around it may be any well-formed RFC 1952 one
(:mod:`ablation.bundle.gzipstream`: a re-compressed bundle is read and said to
be one); the tar may not: a refusal of its form is a
:class:`~ablation.bundle.repacked.RepackedTar` ("re-packed"), and
:func:`read_bundle_file` then says which files still match ``SHA256SUMS``.

Every header must be byte-for-byte what the writer produces for its name, size
and type (:func:`ablation.bundle.tarformat.header_bytes`): GNU headers of types
``0`` and ``5``, a GNU ``L`` long-name record of at most 4 KiB only directly
before the header it names, canonical octal fields and checksum, the end
blocks, and nothing after. PAX ``x``/``g``, GNU ``K``/``S``, sparse forms,
base-256 numbers, links and devices are refused at their header, before their
data is read. Members come sorted by UTF-8 name, the top folder first and
``SHA256SUMS`` next, so each file is checked against its listed SHA-256 as it
streams; only the members verification needs are kept in memory
(:data:`KEPT`, and the one ``input/`` file). Issue 11; docs/reference/evidence-bundle.md.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import BinaryIO

from ablation.bundle.gzipstream import CHUNK, Inflater
from ablation.bundle.keys import SIGNATURE_BYTES
from ablation.bundle.layout import INDEX, MAX_MEMBER_BYTES, MAX_TOTAL_BYTES, SIGNATURE, SUMS, TOP_RE, shown, utf8_key
from ablation.bundle.repacked import REPACKED, RepackedTar, repacked_listing
from ablation.bundle.sums import parse_sums
from ablation.bundle.tarformat import BLOCK, MAX_MTIME, end_bytes, header_bytes, padding
from ablation.errors import IntegrityError
from ablation.files import open_regular

__all__ = ["KEPT", "BundleContents", "read_bundle", "read_bundle_file"]

KEPT = frozenset({SUMS, SIGNATURE, "results.json", "identity.json", INDEX})
MAX_LONG_NAME = 4096  # bytes of a GNU L record's name, its NUL included
_ZERO_BLOCK = bytes(BLOCK)
_MAGIC = b"ustar  \0"
_POSIX_MAGIC = b"ustar\x0000"  # named in refusals (PAX, sparse), never accepted: the writer uses GNU
_TYPE_NAMES = {
    b"1": "a hard link",
    b"2": "a symbolic link",
    b"3": "a character device",
    b"4": "a block device",
    b"6": "a fifo",
    b"7": "a contiguous file",
    b"x": "a PAX extended header",
    b"g": "a PAX global header",
    b"K": "a GNU long link name",
    b"S": "a GNU sparse file",
    b"L": "a second GNU long-name record",
    b"\0": "an old-style (pre-POSIX) file",
}


@dataclass(frozen=True, slots=True)
class BundleContents:
    """A bundle read by :func:`read_bundle`, its ``SHA256SUMS`` already checked.

    Attributes:
        top: the single top folder.
        files: the kept members' bytes by path below ``top`` (:data:`KEPT` and the ``input/`` file).
        digests: hex SHA-256 of every regular file by path below ``top``.
        folders: folder entries by path below ``top`` (the top folder itself excluded).
        listed: ``SHA256SUMS`` as ``{path: hex}``.
        bundle_sha256: hex SHA-256 of the bundle file.
        framing: how its gzip framing differs from the canonical one (re-compressed), ``None`` when it does not
            (:attr:`ablation.bundle.gzipstream.Inflater.framing`).
    """

    top: str
    files: dict[str, bytes]
    digests: dict[str, str]
    folders: frozenset[str]
    listed: dict[str, str]
    bundle_sha256: str
    framing: str | None = None

    @property
    def sums_sha256(self) -> str:
        """The content digest: hex SHA-256 of ``SHA256SUMS``."""
        return self.digests[SUMS]


@dataclass(frozen=True, slots=True)
class _Header:
    name: str
    size: int
    folder: bool
    mtime: int


def _octal(field_bytes: bytes) -> int | None:
    """A canonical octal field (digits then one NUL), or ``None`` (base-256 or anything else)."""
    digits = field_bytes[:-1]
    if field_bytes[-1:] != b"\0" or not digits or any(c not in b"01234567" for c in digits):
        return None
    return int(digits, 8)


def _refuse(message: str) -> IntegrityError:
    return IntegrityError(message)


def _repacked(message: str) -> RepackedTar:
    """A refusal of the tar's form (not of its content): archive never writes such a tar."""
    return RepackedTar(message)


def _long_name(stream: Inflater, block: bytes) -> tuple[bytes, bytes]:
    """A GNU ``L`` record's name (without its NUL) and the record's bytes; bounded before reading."""
    size = _octal(block[124:136])
    if size is None or not 1 <= size <= MAX_LONG_NAME:
        raise _repacked(
            f"bundle: a GNU long-name record at byte {stream.position - BLOCK} declares "
            f"{'a non-octal size' if size is None else f'{size} bytes'}; archive writes at most "
            f"{MAX_LONG_NAME}"
        )
    data = stream.read(size + padding(size))
    if len(data) != size + padding(size):
        raise _refuse("bundle: the tar archive is truncated inside a GNU long-name record")
    return data[: size - 1], block + data


def _next_header(stream: Inflater) -> _Header | None:
    """The next member's header, checked byte-for-byte against the writer's; ``None`` at the end blocks."""
    at = stream.position
    block = stream.read(BLOCK)
    if len(block) < BLOCK:
        raise _refuse(f"bundle: the tar archive is truncated at byte {at} (no end blocks)")
    if block == _ZERO_BLOCK:
        return None
    prefix, raw_name = b"", block[:100].split(b"\0", 1)[0]
    if block[257:265] == _MAGIC and block[156:157] == b"L":
        raw_name, prefix = _long_name(stream, block)
        block = stream.read(BLOCK)
        if len(block) < BLOCK or block == _ZERO_BLOCK:
            raise _repacked(f"bundle: a GNU long-name record at byte {at} is not followed by the header it names")
    if block[257:265] not in (_MAGIC, _POSIX_MAGIC):
        raise _repacked(f"bundle: the {BLOCK} bytes at byte {stream.position - BLOCK} are not a GNU tar header")
    name = raw_name.decode("utf-8", "replace")
    kind = block[156:157]
    if kind not in (b"0", b"5"):
        what = _TYPE_NAMES.get(kind, f"a member of tar type {kind!r}")
        raise _repacked(f"{shown(name)}: {what}; only regular files and folders are allowed")
    if raw_name != name.encode("utf-8"):
        raise _repacked(f"{shown(name)}: the member name is not UTF-8")
    folder = kind == b"5"
    size, mtime = _octal(block[124:136]), _octal(block[136:148])
    name = name.removesuffix("/") if folder else name
    if size is None or mtime is None or mtime > MAX_MTIME:
        raise _repacked(f"{shown(name)}: the tar header's size or mtime is not the canonical octal archive writes")
    size = 0 if folder else size
    if prefix + block != header_bytes(name, size, folder=folder, mtime=mtime):
        raise _repacked(
            f"{shown(name)}: the tar header is not byte-for-byte what archive writes for this name, "
            "size and type (checksum, mode, owner, padding or field encoding differ)"
        )
    return _Header(name, size, folder, mtime)


def _check_member_name(name: str) -> None:
    segments = name.split("/")
    if name.startswith("/"):
        raise _repacked(f"{shown(name)}: an absolute member name")
    if ".." in segments:
        raise _repacked(f"{shown(name)}: a member name with a '..' segment")
    if any(s in ("", ".") for s in segments):
        raise _repacked(f"{shown(name)}: a member name with an empty or '.' segment")


@dataclass(slots=True)
class _State:
    """What the reader has seen so far."""

    top: str = ""
    mtime: int = 0
    previous: bytes = b""
    seen: set[str] = field(default_factory=set)
    folders: set[str] = field(default_factory=set)
    files: dict[str, bytes] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)
    listed: dict[str, str] | None = None
    total: int = 0


def _first(state: _State, header: _Header) -> None:
    """The top folder's entry must come first."""
    first = header.name.split("/", 1)[0]
    if not header.folder or "/" in header.name:
        raise _repacked(f"{shown(first)}: the top folder has no folder entry (archive writes it first)")
    if TOP_RE.fullmatch(first) is None:
        raise _repacked(f"{shown(first)}: the top folder is not named ablation-bundle-<12 hex digits>")
    state.top, state.mtime, state.previous = first, header.mtime, utf8_key(first)
    state.seen.add(first)


def _admit(state: _State, header: _Header) -> str:
    """Check one member's place before its data is read; its path below the top folder."""
    name, top = header.name, state.top
    if name.split("/", 1)[0] != top or name == top:
        raise _repacked(
            f"{shown(name)}: outside the single top folder {top}" if name != top else f"{top}: duplicate member name"
        )
    if name in state.seen:
        raise _repacked(f"{shown(name)}: duplicate member name")
    rel = name[len(top) + 1 :]
    if state.listed is None and (rel != SUMS or header.folder):
        raise _repacked(f"{top}/{SUMS}: must follow the top folder (archive writes it first), found {shown(rel)}")
    if state.listed is not None and not header.folder and rel != SIGNATURE and rel not in state.listed:
        raise _refuse(f"{top}/{shown(rel)}: in the bundle but not listed in {SUMS}")
    if not header.folder and rel.startswith("input/") and any(p.startswith("input/") for p in state.files):
        raise _refuse(f"{top}/input/: must hold exactly one file, holds a second one, {shown(rel)}")
    if utf8_key(name) < state.previous:
        raise _repacked(f"{shown(name)}: out of order (archive writes members sorted by UTF-8 name)")
    parent = rel.rpartition("/")[0]
    if parent and parent not in state.folders:
        raise _repacked(f"{top}/{shown(parent)}: folder entry missing before {shown(rel)}")
    if header.mtime != state.mtime:
        raise _repacked(f"{shown(name)}: mtime {header.mtime} differs from the top folder's {state.mtime}")
    _check_size(state, header, rel)
    state.seen.add(name)
    state.previous = utf8_key(name)
    return rel


def _check_size(state: _State, header: _Header, rel: str) -> None:
    if header.size > MAX_MEMBER_BYTES:
        raise _refuse(f"{state.top}/{shown(rel)}: {header.size} bytes, over the 1 GiB member limit")
    state.total += header.size
    if state.total > MAX_TOTAL_BYTES:
        raise _refuse(f"{state.top}/{shown(rel)}: the members so far exceed the 4 GiB bundle limit")
    if rel == SIGNATURE and header.size != SIGNATURE_BYTES:
        raise _refuse(f"{state.top}/{SIGNATURE}: {header.size} bytes, not a raw 64-byte Ed25519 signature")


def _read_data(stream: Inflater, state: _State, rel: str, size: int) -> None:
    """Stream one file's data: hash it, keep it when needed, check it against ``SHA256SUMS``."""
    where = f"{state.top}/{shown(rel)}"
    keep = rel in KEPT or rel.startswith("input/")
    digest, parts, remaining = hashlib.sha256(), [], size
    while remaining:
        chunk = stream.read(min(remaining, CHUNK))
        if not chunk:
            raise _refuse(f"{where}: truncated ({size - remaining} of {size} bytes)")
        digest.update(chunk)
        if keep:
            parts.append(chunk)
        remaining -= len(chunk)
    if stream.read(padding(size)) != bytes(padding(size)):
        raise _repacked(f"{where}: the padding after its data is not {padding(size)} NUL bytes")
    hexdigest = digest.hexdigest()
    state.digests[rel] = hexdigest
    if keep:
        state.files[rel] = b"".join(parts)
    if rel == SUMS:
        state.listed = parse_sums(state.files[SUMS], where)
        if SUMS in state.listed or SIGNATURE in state.listed:
            raise _refuse(f"{where}: lists itself or {SIGNATURE}, which it never covers")
    elif state.listed is not None and rel in state.listed and state.listed[rel] != hexdigest:
        raise _refuse(f"{where}: sha256 {hexdigest} does not match {SUMS} ({state.listed[rel]})")


def _end(stream: Inflater, state: _State, at: int) -> None:
    """The end blocks: zeros up to the writer's record boundary, then the end of the tar."""
    rest = end_bytes(at) - BLOCK
    if stream.read(rest) != bytes(rest):
        raise _repacked(f"bundle: the end of the tar archive is not the {end_bytes(at)} zero bytes archive writes")
    if not state.top:
        raise _refuse("bundle: an empty tar archive")
    listed = state.listed or {}
    missing = sorted((p for p in listed if p not in state.digests), key=utf8_key)
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise _refuse(f"{state.top}/{shown(missing[0])}: listed in {SUMS} but missing from the bundle{more}")
    needed = {p.rpartition("/")[0] for p in state.digests} - {""}
    needed = {"/".join(p.split("/")[:k]) for p in needed for k in range(1, p.count("/") + 2)}
    empty = sorted(state.folders - needed, key=utf8_key)
    if empty:
        raise _repacked(f"{state.top}/{shown(empty[0])}: a folder that holds no file")


def read_bundle(handle: BinaryIO, shown_path: str) -> BundleContents:
    """Read and check a whole bundle from an open binary file, in one pass.

    The gzip framing may be any well-formed RFC 1952 one (:class:`Inflater`;
    :attr:`BundleContents.framing` says how it differs from the writer's); the
    tar inside must be exactly the writer's.

    Raises:
        RepackedTar: the tar is not the form archive writes (exit 3).
        IntegrityError: ``<member>: <what is wrong>``, or ``bundle: …`` for the framing (exit 3).
        UsageError: the file cannot be read (exit 2).
    """
    stream = Inflater(handle, shown_path)
    state = _State()
    while True:
        at = stream.position
        header = _next_header(stream)
        if header is None:
            break
        _check_member_name(header.name)
        if not state.top:
            _first(state, header)
            continue
        rel = _admit(state, header)
        if header.folder:
            state.folders.add(rel)
        else:
            _read_data(stream, state, rel, header.size)
    _end(stream, state, at)
    bundle_sha256 = stream.finish()
    return BundleContents(
        top=state.top,
        files=state.files,
        digests=state.digests,
        folders=frozenset(state.folders),
        listed=state.listed or {},
        bundle_sha256=bundle_sha256,
        framing=stream.framing,
    )


def read_bundle_file(path: str) -> BundleContents:
    """:func:`read_bundle` of the file at ``path``; a re-packed tar is read once more to say what still matches.

    Raises:
        UsageError: ``cannot read bundle '<path>': …``, or not a regular file (exit 2).
        IntegrityError: as :func:`read_bundle`; for a re-packed tar
            ``bundle: re-packed: not the tar that `archive` writes: <the first
            difference>; read without extracting: …`` (:func:`repacked_listing`),
            or the damage a second reading finds in the gzip stream (exit 3).
    """
    with open_regular(path, "bundle") as handle:
        try:
            return read_bundle(handle, path)
        except RepackedTar as exc:
            handle.seek(0)
            listing = repacked_listing(handle, path)
            msg = f"bundle: {REPACKED}: {exc}; {listing}"
            raise IntegrityError(msg) from None
