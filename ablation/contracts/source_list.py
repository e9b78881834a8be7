"""The raw ``source-list.v1`` owner artifact: envelope, payload and items (SL-1 … SL-37).

The candidate universe of a repository is derived here and only here: the
items of the parsed raw text, in artifact order (SPEC §4.2, §4.3; preregistration
"Raw source-list owner artifact").
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass

from ablation.canonical import is_digest, raw_digest
from ablation.contracts.base import Reporter, child, is_int, same, show
from ablation.strictjson import JsonGrammarError, parse_text, pointer
from ablation.text import extname, is_meta_scalar, is_nbtext, is_safe_path

__all__ = [
    "DEFAULT_EXTENSIONS",
    "MAX_RAW_BYTES",
    "CandidateUniverse",
    "SourceListArtifact",
    "validate_source_list_artifact",
]

MAX_RAW_BYTES = 16_777_216

#: The default extension list of SL-10, in order.
DEFAULT_EXTENSIONS = (
    ".bash",
    ".c",
    ".cc",
    ".cjs",
    ".cpp",
    ".cs",
    ".go",
    ".h",
    ".hpp",
    ".java",
    ".js",
    ".jsx",
    ".kt",
    ".lua",
    ".mjs",
    ".php",
    ".py",
    ".rb",
    ".rs",
    ".sh",
    ".swift",
    ".ts",
    ".tsx",
    ".zsh",
)
_EXTENSION_SET = frozenset(DEFAULT_EXTENSIONS)

_PAYLOAD_MEMBERS = (
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
_ITEM_MEMBERS = (
    "path",
    "indexKind",
    "extension",
    "worktreeKind",
    "metadataStatus",
    "summary",
    "readWhen",
    "metadataError",
)
_ITEM_MEMBER_SET = frozenset(_ITEM_MEMBERS)
_INDEX_KINDS = frozenset({"regular", "symlink", "gitlink", "conflicted", "other"})
_WORKTREE_KINDS = _INDEX_KINDS | {"directory", "missing", "indeterminate"}
_STATUSES = frozenset({"present", "absent", "invalid", "unreadable", "not_applicable"})
_INVALID_ERRORS = frozenset(
    {
        "duplicate_summary",
        "invalid_summary",
        "invalid_read_when",
        "metadata_comment_too_large",
        "unterminated_metadata_comment",
    }
)


@dataclass(frozen=True, slots=True)
class CandidateUniverse:
    """All items of one repository in artifact order (strictly UTF-8 ordered by SL-31).

    Attributes:
        paths: item paths; position k is item k.
        index_kinds: each item's ``indexKind``.
        metadata_texts: for a ``present`` item its summary and read-when hints
            joined by one space (what the metadata score tokenizes, SPEC §5.2);
            ``None`` for every other status.
        present_count: number of ``present`` items.
    """

    paths: tuple[str, ...]
    index_kinds: tuple[str, ...]
    metadata_texts: tuple[str | None, ...]
    present_count: int

    @property
    def item_count(self) -> int:
        """Number of items (the coverage denominator)."""
        return len(self.paths)


@dataclass(frozen=True, slots=True)
class SourceListArtifact:
    """A validated raw source-list artifact.

    Attributes:
        raw_json: the exact raw text.
        raw_sha256: ``R(raw_json)``.
        raw_bytes: UTF-8 byte length of the raw text (cost disclosure).
        contract_version: the payload's ``contractVersion``.
        universe: the candidate universe.
    """

    raw_json: str
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
    if not rep.check_closed("SL-1", artifact, where, ("rawJson", "rawSha256")):
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
        raw_json=raw,
        raw_sha256=actual,
        raw_bytes=len(raw_bytes),
        contract_version=payload["contractVersion"],  # type: ignore[index]  # a validated payload is an object
        universe=universe,
    )


def _validate_payload(payload: object, raw_where: str, rep: Reporter) -> CandidateUniverse | None:
    """SL-5 … SL-37 on the parsed payload; returns the universe or ``None``."""
    p = f"{raw_where} -> "
    if not rep.check_closed("SL-5", payload, p + '""', _PAYLOAD_MEMBERS):
        return None
    assert isinstance(payload, dict)
    start = len(rep.violations)
    for rule, member, want in (
        ("SL-6", "contractVersion", "source-list.v1"),
        ("SL-7", "mode", "inventory"),
        ("SL-8", "repository", "."),
        ("SL-9", "ok", True),
    ):
        if not same(payload[member], want):
            rep.fail(rule, p + "/" + member, show(want), show(payload[member]))
    exts = payload["supportedExtensions"]
    if not (
        isinstance(exts, list)
        and len(exts) == len(DEFAULT_EXTENSIONS)
        and all(same(a, b) for a, b in zip(exts, DEFAULT_EXTENSIONS, strict=True))
    ):
        rep.fail("SL-10", p + "/supportedExtensions", "the 24 default extensions in order", show(exts))
    items = payload["items"]
    if not isinstance(items, list):
        rep.fail("SL-11", p + "/items", "an array", show(items))
        return None
    universe = _validate_items(items, p, rep)
    total = payload["totalCount"]
    count = len(items)
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
    if len(rep.violations) != start:
        return None
    return universe


def _validate_items(items: list[object], p: str, rep: Reporter) -> CandidateUniverse | None:
    """SL-12 … SL-31 item by item, in numeric rule order within an item."""
    paths: list[str] = []
    kinds: list[str] = []
    texts: list[str | None] = []
    present = 0
    previous: str | None = None
    start = len(rep.violations)
    for i, item in enumerate(items):
        if type(item) is not dict or item.keys() != _ITEM_MEMBER_SET:
            rep.check_closed("SL-12", item, f"{p}/items/{i}", _ITEM_MEMBERS)
            previous = None
            continue
        path, index_kind, extension, worktree, status, summary, read_when, error = _members(item)
        plain = _plain_item(path, index_kind, extension, worktree, status, summary, read_when, error, previous)
        if plain is not None:  # the common cases, checked in one pass
            previous = path
            paths.append(path)
            kinds.append("regular")
            texts.append(plain or None)
            present += plain != ""
            continue
        w = f"{p}/items/{i}"
        path_ok = type(path) is str and is_safe_path(path)
        if not path_ok:
            rep.fail("SL-13", w + "/path", "a SafePath", show(path))
        if type(index_kind) is not str or index_kind not in _INDEX_KINDS:
            rep.fail("SL-14", w + "/indexKind", "one of conflicted, gitlink, other, regular, symlink", show(index_kind))
        if type(worktree) is not str or worktree not in _WORKTREE_KINDS:
            rep.fail("SL-15", w + "/worktreeKind", "a worktree kind", show(worktree))
        if path_ok:
            want_ext = extname(path).lower()
            if not same(extension, want_ext) or want_ext not in _EXTENSION_SET:
                rep.fail(
                    "SL-16",
                    w + "/extension",
                    f"lower(extname(path)) = {want_ext!r}, one of the default extensions",
                    show(extension),
                )
        if type(status) is not str or status not in _STATUSES:
            rep.fail(
                "SL-17",
                w + "/metadataStatus",
                "one of present, absent, invalid, unreadable, not_applicable",
                show(status),
            )
        elif status == "present":
            present += 1
            if not same(index_kind, "regular") or not same(worktree, "regular"):
                rep.fail(
                    "SL-18",
                    w,
                    "indexKind and worktreeKind regular for present metadata",
                    f"{show(index_kind)}, {show(worktree)}",
                )
            if not is_meta_scalar(summary):
                rep.fail(
                    "SL-19", w + "/summary", "a MetaScalar (normalized nonblank text of at most 240)", show(summary)
                )
            if not isinstance(read_when, list) or len(read_when) > 5:
                rep.fail("SL-20", w + "/readWhen", "an array of at most 5 MetaScalars", show(read_when))
            else:
                for j, hint in enumerate(read_when):
                    if not is_meta_scalar(hint):
                        rep.fail("SL-20", f"{w}/readWhen/{j}", "a MetaScalar", show(hint))
            if error is not None:
                rep.fail("SL-21", w + "/metadataError", "null", show(error))
        else:
            if summary is not None:
                rep.fail("SL-22", w + "/summary", "null", show(summary))
            if read_when != [] or not isinstance(read_when, list):
                rep.fail("SL-23", w + "/readWhen", "an empty array", show(read_when))
            if status == "absent":
                _kinds_and_error(rep, w, "SL-24", index_kind, worktree, error, None)
            elif status == "invalid":
                _kinds_and_error(rep, w, "SL-25", index_kind, worktree, error, _INVALID_ERRORS)
            elif status == "unreadable":
                if not same(index_kind, "regular"):
                    rep.fail("SL-26", w + "/indexKind", "'regular'", show(index_kind))
                if same(worktree, "regular") or not is_nbtext(error, 512):
                    rep.fail(
                        "SL-27",
                        w,
                        "worktreeKind not regular and metadataError an NBText(512)",
                        f"{show(worktree)}, {show(error)}",
                    )
            else:  # not_applicable
                if same(index_kind, "regular"):
                    rep.fail("SL-28", w + "/indexKind", "an index kind other than regular", show(index_kind))
                if not same(worktree, index_kind):
                    rep.fail("SL-29", w + "/worktreeKind", f"≡ indexKind ({show(index_kind)})", show(worktree))
                if error is not None:
                    rep.fail("SL-30", w + "/metadataError", "null", show(error))
        if path_ok:
            if previous is not None and not previous < path:
                rep.fail("SL-31", w + "/path", f"a path after {previous!r} in UTF-8 order (unique)", show(path))
            previous = path
        else:
            previous = None
        paths.append(path)
        kinds.append(index_kind)
        if status == "present" and isinstance(read_when, list) and isinstance(summary, str):
            texts.append(" ".join([summary, *read_when]) if read_when else summary)
        else:
            texts.append(None)
    if len(rep.violations) != start:
        return None
    return CandidateUniverse(
        paths=tuple(paths), index_kinds=tuple(kinds), metadata_texts=tuple(texts), present_count=present
    )


# SafePath (SPEC §4.0) for an ASCII string, in one match: segments of printable ASCII
# other than "/" and "\", none empty, "." or ".."; no drive prefix; no space at either end.
_ASCII_SAFE_PATH = re.compile(
    r"(?![A-Za-z]:)(?! )(?!\.\.?(?:/|\Z))[ -.0-\[\]-~]+(?:/(?!\.\.?(?:/|\Z))[ -.0-\[\]-~]+)*(?<! )"
)
_MAX_PATH_BYTES = 4096


_members = operator.itemgetter(*_ITEM_MEMBERS)


def _plain_item(  # the eight members of one item
    path: object,
    index_kind: object,
    extension: object,
    worktree: object,
    status: object,
    summary: object,
    read_when: object,
    error: object,
    previous: str | None,
) -> str | None:
    """Fast path for the common items: a regular item with an ASCII path, ``present`` or ``absent``.

    Returns the item's metadata text (``""`` for ``absent``) when the item
    satisfies SL-13 … SL-24 and SL-31 after ``previous``; ``None`` sends it
    through every rule in order (it may still be valid).
    """
    if (
        index_kind != "regular"
        or worktree != "regular"
        or error is not None
        or type(path) is not str
        or not path.isascii()
        or len(path) > _MAX_PATH_BYTES
        or (previous is not None and not previous < path)
        or _ASCII_SAFE_PATH.fullmatch(path) is None
    ):
        return None
    dot = path.rfind(".")
    if extension != (path[dot:].lower() if dot > path.rfind("/") + 1 else "") or extension not in _EXTENSION_SET:
        return None  # extname of an ASCII safe path (no ".." segment), SPEC §9.9
    if status == "absent":
        return "" if summary is None and read_when == [] and type(read_when) is list else None
    if (
        status != "present"
        or not is_meta_scalar(summary)
        or type(read_when) is not list
        or len(read_when) > 5  # SL-20
        or not all(is_meta_scalar(hint) for hint in read_when)
    ):
        return None
    return " ".join([summary, *read_when]) if read_when else summary  # type: ignore[list-item,return-value]  # is_meta_scalar: strings


def _kinds_and_error(
    rep: Reporter,
    w: str,
    rule: str,
    index_kind: object,
    worktree: object,
    error: object,
    allowed_errors: frozenset[str] | None,
) -> None:
    """SL-24 / SL-25: regular kinds and a null (absent) or enumerated (invalid) error."""
    error_ok = error is None if allowed_errors is None else type(error) is str and error in allowed_errors
    if not same(index_kind, "regular") or not same(worktree, "regular") or not error_ok:
        want = "null" if allowed_errors is None else "one of " + ", ".join(sorted(allowed_errors))
        rep.fail(
            rule,
            w,
            f"indexKind and worktreeKind regular, metadataError {want}",
            f"{show(index_kind)}, {show(worktree)}, {show(error)}",
        )
