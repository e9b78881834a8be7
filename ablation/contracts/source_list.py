"""The raw ``source-list.v1`` owner artifact: its envelope and payload (SL-1 … SL-11, SL-32 … SL-37).

The candidate universe of a repository is derived here and only here: the
items of the parsed raw text, in artifact order, checked by
:mod:`~ablation.contracts.source_list_items` (SL-12 … SL-31) (SPEC §4.2, §4.3;
preregistration "Raw source-list owner artifact").
"""

from __future__ import annotations

from dataclasses import dataclass

from ablation.canonical import is_digest, raw_digest
from ablation.contracts.base import Reporter, Shape, child, is_int, same, same_array, show
from ablation.contracts.source_list_items import DEFAULT_EXTENSIONS, CandidateUniverse, validate_items
from ablation.strictjson import JsonGrammarError, parse_text, pointer

__all__ = [
    "DEFAULT_EXTENSIONS",
    "MAX_RAW_BYTES",
    "CandidateUniverse",
    "SourceListArtifact",
    "validate_source_list_artifact",
]

MAX_RAW_BYTES = 16_777_216

_PAYLOAD = Shape(
    (
        "contractVersion",
        "mode",
        "repository",
        "supportedExtensions",
        "totalCount",
        "returnedCount",
        "page",
        "pageSize",
        "totalPages",
        "truncated",
        "items",
        "violationCount",
        "violations",
        "ok",
    )
)
_ARTIFACT = Shape(("rawJson", "rawSha256"))


@dataclass(frozen=True, slots=True)
class SourceListArtifact:
    """A validated raw source-list artifact.

    Attributes:
        raw_sha256: ``R(rawJson)``.
        raw_bytes: UTF-8 byte length of the raw text (cost disclosure).
        contract_version: the payload's ``contractVersion``.
        universe: the candidate universe.
    """

    raw_sha256: str
    raw_bytes: int
    contract_version: str
    universe: CandidateUniverse


_UNPARSED = object()  # the raw text was not examined or violated the profile (never a JSON value)


def _parse_raw(raw: str, where: str, rep: Reporter) -> object:
    """SL-4: parse the raw text under TOP-2 … TOP-11; any violation rejects (SPEC §2.4).

    Returns the parsed value (which may be ``None`` for the text ``null``), or
    ``_UNPARSED`` after reporting the violations.
    """
    try:
        parsed = parse_text(raw)
    except JsonGrammarError as exc:
        rep.fail(exc.rule, f"{where} -> character {exc.offset}", exc.expected, exc.found)
        return _UNPARSED
    for v in parsed.violations:
        found = f"{v.found} at character {v.offset}" if v.rule == "TOP-6" else v.found
        inner = pointer(v.path) or '""'
        rep.fail(v.rule, f"{where} -> {inner}", v.expected, found)
    return _UNPARSED if parsed.violations else parsed.value


def validate_source_list_artifact(artifact: object, where: str, rep: Reporter) -> SourceListArtifact | None:
    """Validate ``/repositories/{r}/sourceListArtifact`` and derive the candidate universe.

    Args:
        artifact: the parsed value at ``where``.
        where: its JSON Pointer, e.g. ``/repositories/0/sourceListArtifact``.
        rep: the violation reporter.

    Returns:
        The validated artifact, or ``None`` when a violation was collected.

    Raises:
        InputRejected: SL-1 … SL-37, and TOP-2 … TOP-11 located inside ``rawJson``
            (``<outer pointer> -> <inner pointer>``).

    Spec: SPEC.md §4.3, §2.4, §9.9.
    """
    raw_where = child(where, "rawJson")
    raw = artifact.get("rawJson") if isinstance(artifact, dict) else None
    # The raw text is examined whenever it exists and is a string (SPEC §2.4).
    payload = _parse_raw(raw, raw_where, rep) if isinstance(raw, str) and raw else _UNPARSED
    if not _ARTIFACT.report(rep, "SL-1", artifact, where):
        return None
    assert isinstance(artifact, dict)
    ok = True
    raw_bytes = raw.encode("utf-8") if isinstance(raw, str) else b""
    if not isinstance(raw, str) or not raw or len(raw_bytes) > MAX_RAW_BYTES:
        found = show(raw) if not isinstance(raw, str) else f"{len(raw_bytes)} UTF-8 bytes"
        rep.fail("SL-2", raw_where, "a non-empty string of at most 16777216 UTF-8 bytes", found)
        return None
    sha = artifact["rawSha256"]
    actual = raw_digest(raw_bytes)
    if not is_digest(sha) or sha != actual:
        rep.fail("SL-3", child(where, "rawSha256"), f"R(rawJson) = {actual}", show(sha))
        ok = False
    if payload is _UNPARSED:
        return None  # its violations are reported (SL-4), or SL-2 was
    universe = _validate_payload(payload, raw_where, rep)
    if universe is None or not ok:
        return None
    return SourceListArtifact(
        raw_sha256=actual,
        raw_bytes=len(raw_bytes),
        contract_version=payload["contractVersion"],  # type: ignore[index]  # a validated payload is an object
        universe=universe,
    )


def _validate_payload(payload: object, raw_where: str, rep: Reporter) -> CandidateUniverse | None:
    """SL-5 … SL-37 on the parsed payload; returns the universe or ``None``."""
    p = f"{raw_where} -> "
    if not _PAYLOAD.report(rep, "SL-5", payload, p + '""'):
        return None
    assert isinstance(payload, dict)
    start = len(rep.violations)
    _check_constants(payload, p, rep)
    items = payload["items"]
    if not isinstance(items, list):
        rep.fail("SL-11", p + "/items", "an array", show(items))
        return None
    universe = validate_items(items, p, rep)
    _check_counts(payload, len(items), p, rep)
    if len(rep.violations) != start:
        return None
    return universe


def _check_constants(payload: dict[str, object], p: str, rep: Reporter) -> None:
    """SL-6 … SL-10: the members every inventory payload has the same value in."""
    for rule, member, want in (
        ("SL-6", "contractVersion", "source-list.v1"),
        ("SL-7", "mode", "inventory"),
        ("SL-8", "repository", "."),
        ("SL-9", "ok", True),
    ):
        if not same(payload[member], want):
            rep.fail(rule, p + "/" + member, show(want), show(payload[member]))
    exts = payload["supportedExtensions"]
    if not same_array(exts, DEFAULT_EXTENSIONS):
        rep.fail("SL-10", p + "/supportedExtensions", "the 24 default extensions in order", show(exts))


def _check_counts(payload: dict[str, object], count: int, p: str, rep: Reporter) -> None:
    """SL-32 … SL-37: one complete page of ``count`` items, no violation."""
    total = payload["totalCount"]
    if not is_int(total) or total != count:
        rep.fail("SL-32", p + "/totalCount", f"the integer {count} (number of items)", show(total))
    if not same(payload["returnedCount"], total):
        rep.fail("SL-33", p + "/returnedCount", f"≡ totalCount ({show(total)})", show(payload["returnedCount"]))
    for member in ("page", "totalPages"):
        if not same(payload[member], 1):
            rep.fail("SL-34", p + "/" + member, "1", show(payload[member]))
    if not same(payload["pageSize"], max(count, 1)):
        rep.fail("SL-35", p + "/pageSize", str(max(count, 1)), show(payload["pageSize"]))
    if not same(payload["truncated"], False):
        rep.fail("SL-36", p + "/truncated", "false", show(payload["truncated"]))
    if not same(payload["violationCount"], 0):
        rep.fail("SL-37", p + "/violationCount", "0", show(payload["violationCount"]))
    if payload["violations"] != [] or not isinstance(payload["violations"], list):
        rep.fail("SL-37", p + "/violations", "an empty array", show(payload["violations"]))
