"""The items of a ``source-list.v1`` payload (SL-12 … SL-31) and the candidate universe they make.

Items are checked one by one, each item's rules in numeric order, and SL-31
(strict UTF-8 order of the paths) against the previous item. The common items
(regular, an ASCII path, metadata ``present`` or ``absent``) pass one fast
check; every other item goes through the rules one family at a time: path and
kinds (SL-13 … SL-16), then its metadata by status (SL-17 … SL-30).

Spec: SPEC.md §4.3, §5.2, §9.9; preregistration "Raw source-list owner artifact".
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass

from ablation.contracts.base import Reporter, Shape, same, show
from ablation.text import extname, is_meta_scalar, is_nbtext, is_safe_path

__all__ = ["DEFAULT_EXTENSIONS", "CandidateUniverse", "validate_items"]

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
_ITEM = Shape(_ITEM_MEMBERS)
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

# SafePath (SPEC §4.0) for an ASCII string, in one match: segments of printable ASCII
# other than "/" and "\", none empty, "." or ".."; no drive prefix; no space at either end.
_ASCII_SAFE_PATH = re.compile(
    r"(?![A-Za-z]:)(?! )(?!\.\.?(?:/|\Z))[ -.0-\[\]-~]+(?:/(?!\.\.?(?:/|\Z))[ -.0-\[\]-~]+)*(?<! )"
)
_MAX_PATH_BYTES = 4096

_members = operator.itemgetter(*_ITEM_MEMBERS)


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


def validate_items(items: list[object], p: str, rep: Reporter) -> CandidateUniverse | None:
    """SL-12 … SL-31 item by item, in numeric rule order within an item.

    Args:
        items: the payload's ``items`` array.
        p: the pointer prefix of the payload, ``<rawJson pointer> -> ``.
        rep: the violation reporter.

    Returns:
        The candidate universe, or ``None`` when a violation was collected.

    Raises:
        InputRejected: SL-12 … SL-31.
    """
    paths: list[str] = []
    kinds: list[str] = []
    texts: list[str | None] = []
    present = 0
    previous: str | None = None
    start = len(rep.violations)
    for i, item in enumerate(items):
        if type(item) is not dict or item.keys() != _ITEM_MEMBER_SET:
            _ITEM.report(rep, "SL-12", item, f"{p}/items/{i}")
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
        path_ok = _check_path_and_kinds(rep, w, path, index_kind, extension, worktree)
        present += _check_metadata(rep, w, index_kind, worktree, status, summary, read_when, error)
        if path_ok:
            if previous is not None and not previous < path:
                rep.fail("SL-31", w + "/path", f"a path after {previous!r} in UTF-8 order (unique)", show(path))
            previous = path
        else:
            previous = None
        paths.append(path)
        kinds.append(index_kind)
        texts.append(_metadata_text(status, summary, read_when))
    if len(rep.violations) != start:
        return None
    return CandidateUniverse(
        paths=tuple(paths), index_kinds=tuple(kinds), metadata_texts=tuple(texts), present_count=present
    )


def _metadata_text(status: object, summary: object, read_when: object) -> str | None:
    """The metadata text of an item off the fast path (summary and hints joined by spaces), else ``None``.

    With ``--errors all`` validation goes on past a violation, so any member may
    have any JSON type here: only strings are joined (the universe is discarded
    when anything was reported, so the text of a bad item is never used).
    """
    if status != "present" or not isinstance(summary, str) or not isinstance(read_when, list):
        return None
    if not all(isinstance(hint, str) for hint in read_when):
        return None
    return " ".join([summary, *read_when]) if read_when else summary


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


def _check_path_and_kinds(
    rep: Reporter, w: str, path: object, index_kind: object, extension: object, worktree: object
) -> bool:
    """SL-13 … SL-16 on the item at ``w``; return whether its path is a SafePath."""
    path_ok = type(path) is str and is_safe_path(path)
    if not path_ok:
        rep.fail("SL-13", w + "/path", "a SafePath", show(path))
    if type(index_kind) is not str or index_kind not in _INDEX_KINDS:
        rep.fail("SL-14", w + "/indexKind", "one of conflicted, gitlink, other, regular, symlink", show(index_kind))
    if type(worktree) is not str or worktree not in _WORKTREE_KINDS:
        rep.fail("SL-15", w + "/worktreeKind", "a worktree kind", show(worktree))
    if path_ok:
        want_ext = extname(path).lower()  # type: ignore[arg-type]  # path_ok: a string
        if not same(extension, want_ext) or want_ext not in _EXTENSION_SET:
            rep.fail(
                "SL-16",
                w + "/extension",
                f"lower(extname(path)) = {want_ext!r}, one of the default extensions",
                show(extension),
            )
    return path_ok


def _check_metadata(  # the metadata members of one item
    rep: Reporter,
    w: str,
    index_kind: object,
    worktree: object,
    status: object,
    summary: object,
    read_when: object,
    error: object,
) -> bool:
    """SL-17 … SL-30 on the item at ``w``, by its ``metadataStatus``; return whether it is ``present``."""
    if type(status) is not str or status not in _STATUSES:
        rep.fail(
            "SL-17",
            w + "/metadataStatus",
            "one of present, absent, invalid, unreadable, not_applicable",
            show(status),
        )
        return False
    if status == "present":
        _check_present(rep, w, index_kind, worktree, summary, read_when, error)
        return True
    if summary is not None:
        rep.fail("SL-22", w + "/summary", "null", show(summary))
    if read_when != [] or not isinstance(read_when, list):
        rep.fail("SL-23", w + "/readWhen", "an empty array", show(read_when))
    if status == "absent":
        _kinds_and_error(rep, w, "SL-24", index_kind, worktree, error, None)
    elif status == "invalid":
        _kinds_and_error(rep, w, "SL-25", index_kind, worktree, error, _INVALID_ERRORS)
    elif status == "unreadable":
        _check_unreadable(rep, w, index_kind, worktree, error)
    else:
        _check_not_applicable(rep, w, index_kind, worktree, error)
    return False


def _check_present(  # the members present metadata constrains
    rep: Reporter, w: str, index_kind: object, worktree: object, summary: object, read_when: object, error: object
) -> None:
    """SL-18 … SL-21: a ``present`` item is regular, with a summary, at most five hints and no error."""
    if not same(index_kind, "regular") or not same(worktree, "regular"):
        rep.fail(
            "SL-18",
            w,
            "indexKind and worktreeKind regular for present metadata",
            f"{show(index_kind)}, {show(worktree)}",
        )
    if not is_meta_scalar(summary):
        rep.fail("SL-19", w + "/summary", "a MetaScalar (normalized nonblank text of at most 240)", show(summary))
    if not isinstance(read_when, list) or len(read_when) > 5:
        rep.fail("SL-20", w + "/readWhen", "an array of at most 5 MetaScalars", show(read_when))
    else:
        for j, hint in enumerate(read_when):
            if not is_meta_scalar(hint):
                rep.fail("SL-20", f"{w}/readWhen/{j}", "a MetaScalar", show(hint))
    if error is not None:
        rep.fail("SL-21", w + "/metadataError", "null", show(error))


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


def _check_unreadable(rep: Reporter, w: str, index_kind: object, worktree: object, error: object) -> None:
    """SL-26, SL-27: an ``unreadable`` item is regular in the index, not in the worktree, and says why."""
    if not same(index_kind, "regular"):
        rep.fail("SL-26", w + "/indexKind", "'regular'", show(index_kind))
    if same(worktree, "regular") or not is_nbtext(error, 512):
        rep.fail(
            "SL-27",
            w,
            "worktreeKind not regular and metadataError an NBText(512)",
            f"{show(worktree)}, {show(error)}",
        )


def _check_not_applicable(rep: Reporter, w: str, index_kind: object, worktree: object, error: object) -> None:
    """SL-28 … SL-30: a ``not_applicable`` item is not regular, the same kind in both places, with no error."""
    if same(index_kind, "regular"):
        rep.fail("SL-28", w + "/indexKind", "an index kind other than regular", show(index_kind))
    if not same(worktree, index_kind):
        rep.fail("SL-29", w + "/worktreeKind", f"≡ indexKind ({show(index_kind)})", show(worktree))
    if error is not None:
        rep.fail("SL-30", w + "/metadataError", "null", show(error))
