"""SL — the source-list artifact, its payload and items (SPEC §4.3): one test per rule, bounds, both paths, messages.

Each row of :data:`MUTATIONS` breaks exactly one rule of SPEC §11.1's valid
input and re-seals every other digest (``tests/builders/reject.py``). The
other tests pin what a name alone does not: both bounds of every limit (at
the limit accepted, one past rejected), every member a rule names, and both
item paths of the checker — the one-pass fast path for plain ASCII items and
the rule-by-rule path — which must agree (a fast path may only hand an item
to the careful checks, never accept one they refuse).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ablation.canonical import raw_digest
from ablation.errors import RejectedInput
from ablation.experiment import validate_experiment
from ablation.text import extname
from tests.builders import prepared
from tests.builders.messages import Snapshot, ids, reject_inputs, reject_messages
from tests.builders.prepared import dumps, rehash_input, rehash_repository, valid_minimal
from tests.builders.reject import (
    NAMES,
    RAW,
    E,
    Mutation,
    Obj,
    accepted,
    assert_first_rule,
    first,
    item,
    one_page,
    path_records,
    rejected,
    repo0,
    rows,
    rule_of,
    set_git,
    set_item,
    set_path,
    set_payload,
    with_payload,
)


def _swap_items(payload: Obj) -> None:
    items = payload["items"]
    items[0], items[1] = items[1], items[0]


def _duplicate_item(payload: Obj) -> None:
    payload["items"][1] = dict(payload["items"][0])


MUTATIONS: list[tuple[str, Mutation]] = [
    ("SL-1-unknown-member", lambda obj: repo0(obj)["sourceListArtifact"].__setitem__("x", 1)),
    ("SL-2-empty-raw", set_path(("repositories", 0, "sourceListArtifact", "rawJson"), "")),
    ("SL-3-wrong-raw-sha", set_path(("repositories", 0, "sourceListArtifact", "rawSha256"), raw_digest("x"))),
    ("SL-5-unknown-payload-member", with_payload(lambda p: p.__setitem__("extra", 0))),
    (
        "SL-5-payload-null",
        lambda obj: (
            repo0(obj)["sourceListArtifact"].__setitem__("rawJson", "null\n"),
            rehash_input(obj),
        ),
    ),
    ("SL-6-contract-version", with_payload(lambda p: p.__setitem__("contractVersion", "source-list.v2"))),
    ("SL-7-mode", with_payload(lambda p: p.__setitem__("mode", "page"))),
    ("SL-8-repository", with_payload(lambda p: p.__setitem__("repository", "/repo"))),
    ("SL-9-ok-false", with_payload(lambda p: p.__setitem__("ok", False))),
    ("SL-10-extensions", with_payload(lambda p: p["supportedExtensions"].reverse())),
    ("SL-11-items-not-array", with_payload(lambda p: p.__setitem__("items", {}))),
    ("SL-12-unknown-item-member", item(0, extra=1)),
    ("SL-13-absolute-path", item(0, path="/src/alpha.js")),
    ("SL-14-index-kind", item(0, indexKind="file")),
    ("SL-15-worktree-kind", item(0, worktreeKind="file")),
    ("SL-16-extension-uppercase", item(0, extension=".JS")),
    ("SL-17-status", item(0, metadataStatus="stale")),
    ("SL-18-present-symlink-worktree", item(0, worktreeKind="symlink")),
    ("SL-19-summary-control", item(0, summary="owner\u0085x\x01")),
    ("SL-20-six-read-when", item(0, readWhen=["a"] * 6)),
    ("SL-21-present-error", item(0, metadataError="invalid_summary")),
    ("SL-22-absent-summary", item(0, metadataStatus="absent")),
    ("SL-23-absent-read-when", item(0, metadataStatus="absent", summary=None, readWhen=["x"])),
    ("SL-24-absent-symlink", item(0, metadataStatus="absent", summary=None, worktreeKind="symlink")),
    ("SL-25-invalid-error", item(0, metadataStatus="invalid", summary=None, metadataError="oops")),
    (
        "SL-26-unreadable-index",
        item(
            0,
            metadataStatus="unreadable",
            summary=None,
            indexKind="symlink",
            worktreeKind="missing",
            metadataError="ENOENT",
        ),
    ),
    ("SL-27-unreadable-regular", item(0, metadataStatus="unreadable", summary=None, metadataError="ENOENT")),
    ("SL-28-not-applicable-regular", item(0, metadataStatus="not_applicable", summary=None)),
    (
        "SL-29-not-applicable-worktree",
        item(0, metadataStatus="not_applicable", summary=None, indexKind="symlink", worktreeKind="regular"),
    ),
    (
        "SL-30-not-applicable-error",
        item(
            0,
            metadataStatus="not_applicable",
            summary=None,
            indexKind="symlink",
            worktreeKind="symlink",
            metadataError="x",
        ),
    ),
    ("SL-31-unsorted", with_payload(_swap_items)),
    ("SL-31-duplicate", with_payload(_duplicate_item)),
    ("SL-32-total-count-string", with_payload(lambda p: p.__setitem__("totalCount", "12"))),
    ("SL-33-returned-count", with_payload(lambda p: p.__setitem__("returnedCount", 11))),
    ("SL-34-page-boolean", with_payload(lambda p: p.__setitem__("page", True))),
    ("SL-35-page-size", with_payload(lambda p: p.__setitem__("pageSize", 100))),
    ("SL-36-truncated", with_payload(lambda p: p.__setitem__("truncated", True))),
    ("SL-37-violations", with_payload(lambda p: p.__setitem__("violationCount", 1))),
]


@pytest.mark.parametrize("mutate", rows(MUTATIONS))
def test_rule(mutate: Mutation, request: pytest.FixtureRequest) -> None:
    assert_first_rule(mutate, rule_of(request))


def test_SL_4_grammar_inside_source_list_text() -> None:
    obj = valid_minimal()
    repo0(obj)["sourceListArtifact"]["rawJson"] += "x"
    rehash_input(obj)
    error = rejected(dumps(obj))
    assert error.rule == "TOP-5"
    assert error.where.startswith("/repositories/0/sourceListArtifact/rawJson -> character ")


def test_SL_2_oversized_raw_text() -> None:
    obj = valid_minimal()
    raw = repo0(obj)["sourceListArtifact"]["rawJson"]
    repo0(obj)["sourceListArtifact"]["rawJson"] = raw + " " * (16_777_217 - len(raw.encode()))
    rehash_input(obj)
    assert rejected(dumps(obj)).rule == "SL-2"


def test_paths_with_tab_and_newline_are_kept() -> None:
    obj = valid_minimal()

    def rename(payload: Obj) -> None:
        payload["items"][0]["path"] = "\tsrc/a\nb.js"

    with_payload(rename, git=True)(obj)
    # SafePath forbids control characters in item paths (SL-13) even though git keeps them.
    assert rejected(dumps(obj)).rule == "SL-13"


@pytest.mark.parametrize(
    ("member", "value", "expected"),
    [
        (
            "readWhen",
            [1],
            "SL-20 at /repositories/0/sourceListArtifact/rawJson -> /items/0/readWhen/0: "
            "expected a MetaScalar; found 1",
        ),
        (
            "readWhen",
            ["when parsing", None],
            "SL-20 at /repositories/0/sourceListArtifact/rawJson -> /items/0/readWhen/1: "
            "expected a MetaScalar; found null",
        ),
    ],
)
def test_SL_20_errors_all_reports_a_hint_of_another_type_instead_of_crashing(
    member: str, value: object, expected: str
) -> None:
    """``--errors all`` goes on past a violation: a present item's text is joined only from strings."""
    obj = valid_minimal()
    repo = obj["repositories"][0]
    items = prepared.payload(repo)
    items["items"][0][member] = value
    rehash_repository(repo, payload=items)
    rehash_input(obj)
    with pytest.raises(RejectedInput) as info:
        validate_experiment(dumps(obj), collect_all=True)
    assert [str(v) for v in info.value.violations] == [expected]
    assert str(rejected(dumps(obj))) == expected


# ---------------------------------------------------------------- SL: artifact and payload


def test_SL_2_raw_text_of_16_MiB_accepted() -> None:
    obj = valid_minimal()
    raw = repo0(obj)["sourceListArtifact"]["rawJson"]
    repo0(obj)["sourceListArtifact"]["rawJson"] = raw + " " * (16_777_216 - len(raw.encode()))
    rehash_input(obj)
    accepted(obj)


@pytest.mark.parametrize("value", [None, 5, ["{}"]], ids=["null", "number", "array"])
def test_SL_2_raw_text_not_a_string(value: object) -> None:
    obj = valid_minimal()
    repo0(obj)["sourceListArtifact"]["rawJson"] = value
    assert first(obj)[0] == "SL-2"


@pytest.mark.parametrize(
    ("member", "value"),
    [
        ("contractVersion", "source-list.v0"),
        ("mode", "full"),
        ("repository", ".."),
        ("ok", 1),
        ("supportedExtensions", list(prepared.SUPPORTED_EXTENSIONS[:-1])),
        ("supportedExtensions", [*prepared.SUPPORTED_EXTENSIONS, ".md"]),
        ("totalCount", 13),
        ("returnedCount", 13),
        ("page", 2),
        ("totalPages", 2),
        ("totalPages", True),
        ("pageSize", 13),
        ("pageSize", 11),
        ("truncated", 0),
        ("violationCount", True),
        ("violations", [{"x": 1}]),
        ("violations", {}),
    ],
    ids=lambda v: v if isinstance(v, str) else json.dumps(v)[:20],
)
def test_SL_5_to_SL_37_each_payload_member(member: str, value: object) -> None:
    rule = {
        "contractVersion": "SL-6",
        "mode": "SL-7",
        "repository": "SL-8",
        "ok": "SL-9",
        "supportedExtensions": "SL-10",
        "totalCount": "SL-32",
        "returnedCount": "SL-33",
        "page": "SL-34",
        "totalPages": "SL-34",
        "pageSize": "SL-35",
        "truncated": "SL-36",
        "violationCount": "SL-37",
        "violations": "SL-37",
    }[member]
    obj = valid_minimal()
    set_payload(obj, lambda p: p.__setitem__(member, value))
    if member == "totalCount":  # totalCount ≠ items first, then returnedCount ≠ totalCount follows
        assert first(obj) == ("SL-32", RAW + "/totalCount")
        return
    assert first(obj) == (rule, RAW + "/" + member)


def test_SL_35_page_size_of_an_empty_universe_is_1() -> None:
    """max(totalCount, 1): with no items pageSize 1 passes SL-35 and REPO-5 names the empty universe."""
    obj = valid_minimal()
    set_payload(obj, lambda p: p.update(items=[], totalCount=0, returnedCount=0, pageSize=1), git=True)
    assert first(obj) == ("REPO-5", "/repositories/0/sourceListArtifact/rawJson -> /items")
    obj = valid_minimal()
    set_payload(obj, lambda p: p.update(items=[], totalCount=0, returnedCount=0, pageSize=0), git=True)
    assert first(obj) == ("SL-35", RAW + "/pageSize")


# ---------------------------------------------------------------- SL: items, both paths


@pytest.mark.parametrize(
    ("summary", "ok"),
    [
        ("s" * 240, True),
        ("s" * 241, False),
        ("\u00e9" * 240, True),
        ("\u00e9" * 241, False),
        ("\U0001f600" * 120, True),
        ("\U0001f600" * 121, False),
        ("\U0001f600" * 119 + "ab", True),
        ("\U0001f600" * 120 + "a", False),
        ("a\x7fb", False),
        ("a\u0085b", False),
        ("a  b", False),
        ("a\u3000b", False),
        (" a", False),
        ("", False),
        (None, False),
        (1, False),
    ],
    ids=[
        "ascii-240",
        "ascii-241",
        "latin-240",
        "latin-241",
        "astral-120",
        "astral-121",
        "utf16-240",
        "utf16-241",
        "del",
        "c1-control",
        "double-space",
        "ideographic-space",
        "leading",
        "empty",
        "null",
        "number",
    ],
)
def test_SL_19_summary_is_a_meta_scalar(summary: object, ok: bool) -> None:
    obj = valid_minimal()
    set_item(obj, 0, summary=summary)
    if ok:
        accepted(obj)
    else:
        assert first(obj) == ("SL-19", RAW + "/items/0/summary")


@pytest.mark.parametrize(
    ("hints", "where"),
    [
        (["h"] * 5, None),
        (["h"] * 6, "readWhen"),
        (["h", " h"], "readWhen/1"),
        (["h", "h\u0085"], "readWhen/1"),
        (["h", None], "readWhen/1"),
        ("h", "readWhen"),
        (["\u00e9"] * 5, None),
        (["\u00e9"] * 6, "readWhen"),
    ],
    ids=["5", "6", "leading-space", "control", "null", "string", "latin-5", "latin-6"],
)
def test_SL_20_read_when(hints: object, where: str | None) -> None:
    obj = valid_minimal()
    set_item(obj, 0, readWhen=hints)
    if where is None:
        accepted(obj)
    else:
        assert first(obj) == ("SL-20", RAW + "/items/0/" + where)


@pytest.mark.parametrize(
    ("index_kind", "worktree"), [("symlink", "regular"), ("regular", "symlink"), ("regular", "missing")]
)
def test_SL_18_present_needs_both_kinds_regular(index_kind: str, worktree: str) -> None:
    obj = valid_minimal()
    set_item(obj, 0, indexKind=index_kind, worktreeKind=worktree)
    assert first(obj) == ("SL-18", RAW + "/items/0")


@pytest.mark.parametrize(
    ("members", "rule"),
    [
        ({"indexKind": "symlink", "worktreeKind": "symlink"}, "SL-24"),
        ({"worktreeKind": "missing"}, "SL-24"),
        ({"metadataError": "invalid_summary"}, "SL-24"),
    ],
    ids=["index-kind", "worktree-kind", "error"],
)
def test_SL_24_absent_each_member(members: dict[str, Any], rule: str) -> None:
    obj = valid_minimal()
    set_item(obj, 11, metadataStatus="absent", summary=None, **members)
    assert first(obj) == (rule, RAW + "/items/11")


def test_SL_24_absent_item_accepted() -> None:
    obj = valid_minimal()
    set_item(obj, 11, metadataStatus="absent", summary=None)
    accepted(obj)


@pytest.mark.parametrize(
    "error",
    [
        "duplicate_summary",
        "invalid_summary",
        "invalid_read_when",
        "metadata_comment_too_large",
        "unterminated_metadata_comment",
    ],
)
def test_SL_25_each_invalid_error_accepted(error: str) -> None:
    obj = valid_minimal()
    set_item(obj, 11, metadataStatus="invalid", summary=None, metadataError=error)
    accepted(obj)


@pytest.mark.parametrize(
    ("members", "found"),
    [
        ({"metadataError": "Invalid_summary"}, "'Invalid_summary'"),
        ({"metadataError": None}, "null"),
        ({"indexKind": "symlink", "worktreeKind": "symlink"}, "'symlink'"),
        ({"worktreeKind": "missing"}, "'missing'"),
    ],
    ids=["error-case", "error-null", "index-kind", "worktree-kind"],
)
def test_SL_25_invalid_each_member(members: dict[str, Any], found: str) -> None:
    obj = valid_minimal()
    set_item(obj, 11, **({"metadataStatus": "invalid", "summary": None, "metadataError": "invalid_summary"} | members))
    error = rejected(obj)
    assert (error.rule, error.where) == ("SL-25", RAW + "/items/11")
    assert found in str(error)


@pytest.mark.parametrize("kind", ["symlink", "gitlink", "other", "conflicted"])
def test_SL_28_to_SL_30_not_applicable_accepted_for_each_non_regular_kind(kind: str) -> None:
    obj = valid_minimal()
    set_item(obj, 11, git=True, metadataStatus="not_applicable", summary=None, indexKind=kind, worktreeKind=kind)
    if kind == "conflicted":
        mode_records = path_records([f"src/{n}.js" for n in NAMES[:11]]) + b"".join(
            f"100644 {E} {s}\tsrc/zeta.js".encode() + b"\0" for s in (1, 2)
        )
        set_git(obj, mode_records)
    accepted(obj)


@pytest.mark.parametrize(
    ("kinds", "where", "rule"),
    [
        (("symlink", "missing"), "/worktreeKind", "SL-29"),
        (("gitlink", "symlink"), "/worktreeKind", "SL-29"),
    ],
    ids=["missing", "other-kind"],
)
def test_SL_29_not_applicable_worktree_equals_index_kind(kinds: tuple[str, str], where: str, rule: str) -> None:
    obj = valid_minimal()
    set_item(
        obj, 11, git=True, metadataStatus="not_applicable", summary=None, indexKind=kinds[0], worktreeKind=kinds[1]
    )
    assert first(obj) == (rule, RAW + "/items/11" + where)


@pytest.mark.parametrize(("length", "ok"), [(4096, True), (4097, False)])
@pytest.mark.parametrize("fill", ["a", "\u00e9"], ids=["ascii", "two-byte"])
def test_SL_13_path_of_4096_bytes_accepted_4097_rejected(length: int, ok: bool, fill: str) -> None:
    head, tail = "src/zz", ".js"
    room = length - len(head) - len(tail)
    body = fill * (room // len(fill.encode()))
    body += "a" * (room - len(body.encode()))
    path = head + body + tail
    assert len(path.encode()) == length
    obj = valid_minimal()
    set_item(obj, 11, git=True, path=path)
    if ok:
        accepted(obj)
    else:
        assert first(obj) == ("SL-13", RAW + "/items/11/path")


@pytest.mark.parametrize(
    "path",
    [
        "src/zz/../a.js",
        "src//zz.js",
        "src/./zz.js",
        "C:zz.js",
        "src\\zz.js",
        "src/zz.js ",
        " src/zz.js",
        "src/z\x01.js",
        "src/z\u0085.js",
        "/src/zz.js",
        "src/zz.js/",
        "src/\u00e9/../a.js",
        "src/\u00e9//a.js",
    ],
    ids=[
        "dotdot",
        "empty-segment",
        "dot",
        "drive",
        "backslash",
        "trailing-space",
        "leading-space",
        "c0",
        "c1",
        "absolute",
        "trailing-slash",
        "non-ascii-dotdot",
        "non-ascii-empty-segment",
    ],
)
def test_SL_13_safe_path_conditions(path: str) -> None:
    obj = valid_minimal()
    set_item(obj, 11, path=path, extension=".js")
    assert first(obj) == ("SL-13", RAW + "/items/11/path")


@pytest.mark.parametrize(
    "path",
    ["src/zz/..js", "src/zz/...js", "src/z\u00e9ta.js", "src/zz a.js"],
    ids=["dotdot-name", "three-dots", "non-ascii", "inner-space"],
)
def test_SL_13_safe_path_accepts(path: str) -> None:
    obj = valid_minimal()
    set_item(obj, 11, git=True, path=path, extension=".js")
    accepted(obj)


@pytest.mark.parametrize("k", [1, 11])
def test_SL_31_equal_neighbour_paths_rejected_on_both_paths(k: int) -> None:
    """A duplicate of the previous path: ASCII (fast path declines it) and non-ASCII (slow path)."""
    obj = valid_minimal()
    set_payload(obj, lambda p: p["items"][k].update(path=p["items"][k - 1]["path"]))
    assert first(obj) == ("SL-31", RAW + f"/items/{k}/path")
    obj = valid_minimal()

    def non_ascii(p: Obj) -> None:
        p["items"][k - 1]["path"] = p["items"][k]["path"] = f"src/{NAMES[k]}\u00e9.js"

    set_payload(obj, non_ascii)
    assert first(obj) == ("SL-31", RAW + f"/items/{k}/path")


@pytest.mark.parametrize(
    "member",
    ["path", "indexKind", "extension", "worktreeKind", "metadataStatus", "summary", "readWhen", "metadataError"],
)
def test_SL_12_each_item_member_required(member: str) -> None:
    obj = valid_minimal()
    set_payload(obj, lambda p: p["items"][5].pop(member))
    assert first(obj) == ("SL-12", RAW + "/items/5")


# ---------------------------------------------------------------- SL-16: both halves, both paths


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("src/zz.md", "present"),
        ("src/zz.md", "absent"),
        ("src/zz", "present"),
        ("src/z\u00e9.md", "present"),
        ("src/z\u00e9", "absent"),
    ],
    ids=["ascii-present-md", "ascii-absent-md", "ascii-no-extension", "non-ascii-md", "non-ascii-no-extension"],
)
def test_SL_16_extension_in_default_list(path: str, status: str) -> None:
    """extension ≡ lower(extname(path)) but not a default extension: SL-16 (fast and slow item paths)."""
    obj = valid_minimal()
    ext = extname(path).lower()
    set_item(
        obj,
        11,
        path=path,
        extension=ext,
        metadataStatus=status,
        summary="owner record" if status == "present" else None,
    )
    error = rejected(obj)
    assert (error.rule, error.where) == ("SL-16", "/repositories/0/sourceListArtifact/rawJson -> /items/11/extension")


@pytest.mark.parametrize("path", ["src/zz.JS", "src/z\u00e9.JS"], ids=["ascii", "non-ascii"])
def test_SL_16_extension_is_lower_case_of_extname(path: str) -> None:
    obj = valid_minimal()
    set_item(obj, 11, path=path, extension=".JS")
    error = rejected(obj)
    assert (error.rule, error.where) == ("SL-16", "/repositories/0/sourceListArtifact/rawJson -> /items/11/extension")


# ---------------------------------------------------------------- SL-27: the upper bound


def _unreadable_last_item(obj: Obj, error: object, worktree: str = "missing") -> None:
    set_item(obj, 11, metadataStatus="unreadable", summary=None, worktreeKind=worktree, metadataError=error)
    rehash_repository(repo0(obj))


def test_SL_27_metadata_error_512_accepted() -> None:
    obj = valid_minimal()
    _unreadable_last_item(obj, "E" * 512)
    accepted(obj)


def test_SL_27_metadata_error_513_rejected() -> None:
    obj = valid_minimal()
    _unreadable_last_item(obj, "E" * 513)
    error = rejected(obj)
    assert (error.rule, error.where) == ("SL-27", "/repositories/0/sourceListArtifact/rawJson -> /items/11")


@pytest.mark.parametrize(
    ("error", "worktree", "ok"),
    [
        ("EIO:\x01\tline\nnext  x ", "missing", True),
        ("\u3000 \t", "missing", False),
        (None, "missing", False),
        ("ENOENT", "regular", False),
        ("ENOENT", "symlink", True),
        (5, "missing", False),
    ],
    ids=["controls-unnormalized-ok", "blank", "null", "regular-worktree", "symlink-worktree-ok", "number"],
)
def test_SL_27_conditions(error: object, worktree: str, ok: bool) -> None:
    obj = valid_minimal()
    _unreadable_last_item(obj, error, worktree)
    if ok:
        accepted(obj)
    else:
        assert rejected(obj).rule == "SL-27"


ITEMS = "/repositories/0/sourceListArtifact/rawJson -> /items"


def test_SL_13_a_path_that_is_not_a_string_is_refused_not_read() -> None:
    obj = valid_minimal()
    item(0, path=7)(obj)
    assert str(rejected(dumps(obj))) == f"SL-13 at {ITEMS}/0/path: expected a SafePath; found 7"


@pytest.mark.parametrize(
    ("path", "extension", "expected"),
    [
        ("src/alpha.js", ".ts", "'.js'"),
        ("src/.js", ".js", "''"),
        ("src/x/.js", ".js", "''"),
    ],
    ids=["other-extension", "dotfile", "nested-dotfile"],
)
def test_SL_16_the_fast_path_never_accepts_an_extension_that_is_not_the_paths(
    path: str, extension: str, expected: str
) -> None:
    obj = valid_minimal()
    item(0, path=path, extension=extension)(obj)
    assert str(rejected(dumps(obj))) == (
        f"SL-16 at {ITEMS}/0/extension: expected lower(extname(path)) = {expected}, one of the default extensions; "
        f"found {extension!r}"
    )


@pytest.mark.parametrize("hints", [["h1"], ["h1", "h2", "h3", "h4", "h5"]], ids=["one-hint", "five-hints"])
def test_SL_20_off_the_fast_path_an_item_keeps_up_to_five_hints_in_its_text(hints: list[str]) -> None:
    obj = valid_minimal()

    def rename(payload: Obj) -> None:
        last = payload["items"][-1]
        last.update(path="src/z\u00e9ta.js", metadataStatus="present", summary="zeta", readWhen=hints)

    with_payload(rename, git=True)(obj)
    universe = validate_experiment(dumps(obj)).repositories[0].source_list.universe
    assert universe.paths[-1] == "src/z\u00e9ta.js"
    assert universe.metadata_texts[-1] == " ".join(["zeta", *hints])


def test_SL_12_errors_all_goes_on_past_an_item_that_is_not_an_object() -> None:
    obj = valid_minimal()

    def change(payload: Obj) -> None:
        payload["items"][0] = 1
        payload["items"][1]["path"] = 7

    with_payload(change)(obj)
    with pytest.raises(RejectedInput) as caught:
        validate_experiment(dumps(obj), collect_all=True)
    assert [(v.rule, v.where) for v in caught.value.violations][:2] == [
        ("SL-12", f"{ITEMS}/0"),
        ("SL-13", f"{ITEMS}/1/path"),
    ]


RAW_JSON = "/repositories/0/sourceListArtifact/rawJson"


def test_SL_2_a_raw_json_of_another_type_is_shown() -> None:
    obj = valid_minimal()
    repo0(obj)["sourceListArtifact"]["rawJson"] = 5
    rehash_input(obj)
    assert (
        str(rejected(dumps(obj)))
        == f"SL-2 at {RAW_JSON}: expected a non-empty string of at most 16777216 UTF-8 bytes; found 5"
    )


@pytest.mark.parametrize("items", [0, 1], ids=["no-item", "one-item"])
def test_SL_35_the_page_size_of_a_list_of_at_most_one_item_is_1(items: int) -> None:
    assert str(rejected(dumps(one_page(items, 5)))) == f"SL-35 at {RAW_JSON} -> /pageSize: expected 1; found 5"


EXTRA_REJECTS: list[tuple[str, Mutation]] = [
    ("SL-1-artifact-not-an-object", lambda obj: obj["repositories"][0].__setitem__("sourceListArtifact", 5)),
]


# ---------------------------------------------------------------- whole messages (tests/rules/messages/sl.json)

MESSAGES = Snapshot("sl")


@pytest.mark.parametrize(("name", "data"), list(reject_inputs(MUTATIONS, EXTRA_REJECTS)), ids=ids)
def test_reject_messages(name: str, data: bytes) -> None:
    MESSAGES.check(name, reject_messages(data))


def test_zz_snapshot_covers_every_row() -> None:
    """Runs last: writes the file in write mode, else checks that it holds exactly this family's rows."""
    MESSAGES.finish(name for name, _ in reject_inputs(MUTATIONS, EXTRA_REJECTS))
