"""Raw git index evidence: base64 text → NUL records → tracked entries (GIT-1 … GIT-11).

The tracked entries are compared position by position with the source-list
items, which catches a self-consistent artifact that omits, adds or changes a
tracked candidate (preregistration "Source-list preparation observation").
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import NamedTuple

from ablation.canonical import is_digest, raw_digest
from ablation.contracts.base import Reporter, child, show
from ablation.contracts.source_list import DEFAULT_EXTENSIONS, CandidateUniverse
from ablation.text import extname

__all__ = ["MAX_DECODED_BYTES", "MAX_TRACKED_PATHS", "TrackedEntry", "derive_tracked_entries", "validate_git_evidence"]

MAX_DECODED_BYTES = 16_777_216
MAX_TRACKED_PATHS = 20_000
MAX_BASE64_CHARACTERS = 33_554_432
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")
_RECORD = re.compile(r"([0-9]{6}) ([0-9a-f]+) ([0-3])\t(.+)", re.DOTALL)
_RECORDS = re.compile(r"([0-9]{6}) ([0-9a-f]+) ([0-3])\t([^\x00]+)\x00")  # 11 fixed characters
_EXTENSIONS = frozenset(DEFAULT_EXTENSIONS)


class TrackedEntry(NamedTuple):
    """One kept tracked path and its derived index kind (SPEC §4.5 derivation)."""

    path: str
    index_kind: str


def _mode_kind(mode: str) -> str:
    """Index kind of an unconflicted path from the mode of its first record (SPEC §4.5 step 3)."""
    if mode == "120000":
        return "symlink"
    if mode == "160000":
        return "gitlink"
    if mode.startswith("100"):
        return "regular"
    return "other"


def _whole_buffer_records(decoded: bytes) -> list[tuple[str, str, str, str]] | None:
    """All (mode, oid, stage, path) records in one scan, or ``None`` when any record is malformed.

    ``findall`` skips what it cannot match, so equal lengths prove that every
    byte belongs to a well-formed record; otherwise the record-by-record check
    finds and names the first bad one.
    """
    try:
        text = decoded.decode("utf-8", "strict")
    except UnicodeDecodeError:
        return None
    fields = _RECORDS.findall(text)
    if sum(len(oid) + len(path) for _, oid, _, path in fields) + 11 * len(fields) != len(text):
        return None
    return fields


def _checked_records(decoded: bytes, where: str, rep: Reporter) -> list[tuple[str, str, str, str]] | None:
    """Record by record (GIT-6, GIT-7, GIT-8), reporting the first malformed one."""
    fields: list[tuple[str, str, str, str]] = []
    for k, raw in enumerate(decoded[:-1].split(b"\x00")):
        if not raw:
            rep.fail("GIT-6", where, "no empty NUL-separated record", f"an empty record at index {k}")
            return None
        try:
            record = raw.decode("utf-8", "strict")
        except UnicodeDecodeError as exc:
            rep.fail("GIT-7", where, "well-formed UTF-8 records", f"record {k}: invalid byte at offset {exc.start}")
            return None
        m = _RECORD.fullmatch(record)
        if m is None:
            rep.fail("GIT-8", where, "'<6 digits> <hex oid> <stage 0-3>\\t<path>'", f"record {k}: {record[:60]!r}")
            return None
        fields.append(m.groups())  # type: ignore[arg-type]  # _RECORD has exactly four groups, none optional
    return fields


def derive_tracked_entries(decoded: bytes, where: str, rep: Reporter) -> tuple[list[TrackedEntry], int] | None:
    """Parse decoded ``ls-files --stage -z`` bytes into kept entries (GIT-5 … GIT-9).

    Args:
        decoded: the base64-decoded bytes.
        where: pointer of ``stdoutBase64`` for messages.
        rep: the violation reporter.

    Returns:
        (kept entries sorted in UTF-8 order, number of distinct paths), or ``None``.

    Raises:
        InputRejected: GIT-5, GIT-6, GIT-7, GIT-8, GIT-9.

    Spec: SPEC.md §4.5 (test vectors there), §9.17, §9.18.
    """
    if not decoded:
        return [], 0
    if decoded[-1] != 0:
        rep.fail("GIT-5", where, "decoded bytes ending with NUL", f"last byte 0x{decoded[-1]:02X}")
        return None
    records = _whole_buffer_records(decoded) or _checked_records(decoded, where, rep)
    if records is None:
        return None
    first_mode: dict[str, str] = {}  # step 1: group by path, the first record's mode decides
    conflicted: set[str] = set()
    for mode, _, stage, path in records:
        if path not in first_mode:
            first_mode[path] = mode
        if stage != "0":
            conflicted.add(path)
    if len(first_mode) > MAX_TRACKED_PATHS:
        rep.fail("GIT-9", where, "at most 20000 distinct tracked paths", str(len(first_mode)))
        return None
    kept = [  # steps 2-3: supported extensions only, index kind per path
        TrackedEntry(path, "conflicted" if path in conflicted else _mode_kind(mode))
        for path, mode in first_mode.items()
        if extname(path).lower() in _EXTENSIONS
    ]
    kept.sort(key=lambda e: e.path)  # step 4: UTF-8 order
    return kept, len(first_mode)


def validate_git_evidence(
    inventory: dict[str, object], where: str, universe: CandidateUniverse | None, rep: Reporter
) -> tuple[int, int] | None:
    """Validate ``trackedPathInventory``'s evidence against the items (GIT-1 … GIT-11).

    Args:
        inventory: the (closed) ``trackedPathInventory`` object.
        where: its pointer.
        universe: the validated candidate universe, or ``None`` when the
            source-list artifact failed (then GIT-10/11 are not checked).
        rep: the violation reporter.

    Returns:
        (trackedPathCount, decoded byte count), or ``None``.

    Raises:
        InputRejected: GIT-1 … GIT-11.

    Spec: SPEC.md §4.5, §9.16.
    """
    b64_where = child(where, "stdoutBase64")
    decoded = _decode_evidence(inventory, where, b64_where, rep)
    if decoded is None:
        return None
    derived = derive_tracked_entries(decoded, b64_where, rep)
    if derived is None:
        return None
    entries, _ = derived
    if universe is None:
        return None
    start = len(rep.violations)
    _check_against_items(entries, universe, b64_where, rep)
    if len(rep.violations) != start:
        return None
    return len(entries), len(decoded)


def _decode_evidence(inventory: dict[str, object], where: str, b64_where: str, rep: Reporter) -> bytes | None:
    """GIT-1 … GIT-4: ``stdoutBase64`` is canonical base64 of at most 16 MiB whose digest is ``stdoutSha256``.

    Returns the decoded bytes, or ``None`` when GIT-1, GIT-2 or GIT-3 failed
    (a GIT-4 failure is reported and the bytes are still returned).
    """
    text = inventory["stdoutBase64"]
    # Text(33 554 432) of the base64 alphabet: the pattern admits no surrogate, so only the length is left.
    if type(text) is not str or len(text) > MAX_BASE64_CHARACTERS or _BASE64.fullmatch(text) is None:
        rep.fail("GIT-1", b64_where, "base64 text (A-Z a-z 0-9 + / then at most two '=')", show(text))
        return None
    assert isinstance(text, str)
    try:
        decoded = base64.b64decode(text, validate=True)
    except binascii.Error:
        decoded = None
    if decoded is None or base64.b64encode(decoded).decode("ascii") != text:
        rep.fail("GIT-2", b64_where, "canonical padded base64", show(text))
        return None
    if len(decoded) > MAX_DECODED_BYTES:
        rep.fail("GIT-3", b64_where, "at most 16777216 decoded bytes", f"{len(decoded)} bytes")
        return None
    sha = inventory["stdoutSha256"]
    actual = raw_digest(decoded)
    if not is_digest(sha) or sha != actual:
        rep.fail("GIT-4", child(where, "stdoutSha256"), f"R(decoded bytes) = {actual}", show(sha))
    return decoded


def _check_against_items(
    entries: list[TrackedEntry], universe: CandidateUniverse, b64_where: str, rep: Reporter
) -> None:
    """GIT-10, GIT-11: the kept tracked entries are the items, position by position."""
    if len(entries) != universe.item_count:
        rep.fail(
            "GIT-10",
            b64_where,
            f"{universe.item_count} tracked source paths (one per item)",
            f"{len(entries)} tracked source paths",
        )
        return
    if entries == list(zip(universe.paths, universe.index_kinds, strict=True)):
        return
    for k, entry in enumerate(entries):
        if entry.path != universe.paths[k] or entry.index_kind != universe.index_kinds[k]:
            rep.fail(
                "GIT-11",
                b64_where,
                f"tracked entry {k} = item {k} ({universe.paths[k]!r}, {universe.index_kinds[k]})",
                f"({entry.path!r}, {entry.index_kind})",
            )
            return
