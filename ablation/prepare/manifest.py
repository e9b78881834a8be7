"""The files of a preparation directory and its two manifests, ``SHA256SUMS.pre-review`` and ``SHA256SUMS.pre-run``.

D holds only regular files with safe names (PREPARE.md §5): no link, no other
kind of file, and no name that is empty, ``.`` or ``..`` or holds a control
character or a backslash, so ``sha256sum`` writes every line without escaping
and ``make archive EVIDENCE=D`` can carry all of it. :func:`walk_files` lists
them, :func:`file_sha256` hashes one, and a manifest is one line per file in
``sha256sum -c`` format, ``<64 lowercase hex>  <path relative to D>``, the
lines sorted by the UTF-8 bytes of the path (:func:`render_manifest`,
:func:`parse_manifest`). Nothing here runs a process; a manifest is checked in
Python, never with ``sha256sum`` (``freeze`` and ``check-freeze`` spawn nothing).

Spec: PREPARE.md §5, §6 item 4, §7.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import stat
from collections.abc import Collection, Mapping
from dataclasses import dataclass

__all__ = [
    "PRE_REVIEW",
    "PRE_RUN",
    "SIGNATURE",
    "Walk",
    "file_sha256",
    "parse_manifest",
    "recorded_difference",
    "render_manifest",
    "utf8_order",
    "walk_files",
]

PRE_REVIEW = "SHA256SUMS.pre-review"
"""The manifest ``assemble`` writes last: every file of D but itself and the freeze files."""
PRE_RUN = "SHA256SUMS.pre-run"
"""The manifest ``freeze`` writes: the pre-review entries, that manifest, the pre-run review and the freeze record."""
SIGNATURE = "SHA256SUMS.pre-run.sig"
"""The raw 64-byte Ed25519 signature of :data:`PRE_RUN` (``freeze --sign-key``)."""

_UNSAFE = re.compile(r"[\x00-\x1f\x7f\\]")
_LINE = re.compile(r"([0-9a-f]{64})  (.+)")
_CHUNK = 1 << 20


def utf8_order(path: str) -> bytes:
    """The sort key of a manifest line: the UTF-8 bytes of its path (sorted(..., key=utf8_order))."""
    return path.encode("utf-8")


def _unsafe_name(name: str) -> str | None:
    if name in ("", ".", ".."):
        return f"the name {name!r}"
    found = _UNSAFE.search(name)
    if found is not None:
        return f"the name {name!r}, which holds {found.group()!r}"
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return f"the name {name!r}, which is not UTF-8"
    return None


@dataclass(frozen=True, slots=True)
class Walk:
    """What :func:`walk_files` found: the regular files (relative, UTF-8 order) and the first entry D must not hold."""

    files: list[str]
    problem: tuple[str, str] | None  # (relative path, what it is)


def walk_files(folder: str) -> Walk:
    """Every regular file below ``folder`` as a path relative to it (``/``-separated), in UTF-8 order.

    Links are never followed. The first entry that is not a folder or a regular file
    with a safe name is returned as ``problem`` (its path and what it is), in walk order.

    Raises:
        OSError: ``folder`` cannot be listed.
    """
    files: list[str] = []
    problem: tuple[str, str] | None = None
    pending = [""]
    while pending:
        relative = pending.pop()
        for name in sorted(os.listdir(os.path.join(folder, relative) if relative else folder)):
            path = posixpath.join(relative, name) if relative else name
            why = _unsafe_name(name)
            mode = os.lstat(os.path.join(folder, path)).st_mode
            if why is None and stat.S_ISDIR(mode):
                pending.append(path)
            elif why is None and stat.S_ISREG(mode):
                files.append(path)
            elif problem is None:
                kind = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file or a folder"
                problem = (path, why or kind)
    return Walk(sorted(files, key=utf8_order), problem)


def file_sha256(path: str) -> str:
    """The SHA-256 (bare hex) of the file at ``path``, read without following a final link.

    Raises:
        OSError: it cannot be read (a link: ``ELOOP``).
    """
    digest = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def recorded_difference(
    folder: str, present: Collection[str], recorded: Mapping[str, str]
) -> tuple[str, str, str | None] | None:
    """The first file of ``recorded`` (path → SHA-256, in its order) that D does not hold as recorded.

    Args:
        folder: D (absolute).
        present: the regular files D holds (:func:`walk_files`).
        recorded: what a manifest or the ledger says D holds.

    Returns:
        ``(path, recorded SHA-256, SHA-256 found)``, the last ``None`` when the regular file is
        missing; ``None`` when every recorded file is there, byte for byte.
    """
    for path, sha in recorded.items():
        if path not in present:
            return path, sha, None
        found = file_sha256(os.path.join(folder, path))
        if found != sha:
            return path, sha, found
    return None


def render_manifest(entries: Mapping[str, str]) -> bytes:
    """``<hex>  <path>`` lines, sorted by the UTF-8 bytes of the path, each ending in a line feed.

    >>> render_manifest({"b": "0" * 64, "a/c": "1" * 64}).decode().splitlines()[0][-5:]
    '  a/c'
    """
    lines = [f"{entries[path]}  {path}\n" for path in sorted(entries, key=utf8_order)]
    return "".join(lines).encode("utf-8")


def parse_manifest(data: bytes) -> tuple[dict[str, str], str | None]:
    """A manifest's entries (path → hex), or why it is not one :func:`render_manifest` writes.

    Returns:
        ``(entries, None)``, or ``({}, why)``: not UTF-8, a line not in ``<64 hex>  <path>`` form
        or without its line feed, an unsafe or absolute path, a path listed twice, or lines
        out of UTF-8 order.

    >>> parse_manifest(b"")
    ({}, None)
    >>> parse_manifest(("0" * 64 + " *x\\n").encode())[1]
    "line 1 is not '<64 lowercase hex>  <path>'"
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return {}, f"byte {exc.start} is not UTF-8"
    if text and not text.endswith("\n"):
        return {}, "its last line has no line feed"
    entries: dict[str, str] = {}
    previous = b""
    for n, line in enumerate(text.split("\n")[:-1], start=1):
        match = _LINE.fullmatch(line)
        if match is None:
            return {}, f"line {n} is not '<64 lowercase hex>  <path>'"
        hexdigest, path = match.groups()
        unsafe = next((why for why in map(_unsafe_name, path.split("/")) if why is not None), None)
        if unsafe is not None:
            return {}, f"line {n} names a path with {unsafe}"
        if path in entries:
            return {}, f"line {n} lists {path!r} a second time"
        if utf8_order(path) < previous:
            return {}, f"line {n} ({path!r}) is out of UTF-8 order"
        previous = utf8_order(path)
        entries[path] = hexdigest
    return entries, None
