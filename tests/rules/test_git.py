"""GIT — the tracked-path evidence: decoding, parsing and comparison (SPEC §4.5).

One test per rule (the rows of :data:`MUTATIONS`), SPEC's git parser vectors,
both bounds of every limit, and both record paths — the one-scan fast path
over the whole buffer and the record-by-record check — which must agree.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

from ablation.canonical import raw_digest
from ablation.contracts.base import Reporter
from ablation.contracts.git_index import (
    MAX_BASE64_CHARACTERS,
    MAX_DECODED_BYTES,
    _checked_records,
    _whole_buffer_records,
    derive_tracked_entries,
    validate_git_evidence,
)
from ablation.errors import InputRejected
from tests.builders.messages import Snapshot, ids, reject_inputs, reject_messages
from tests.builders.prepared import MINIMAL_PATHS, dumps, valid_minimal
from tests.builders.reject import (
    NAMES,
    PREP,
    E,
    Mutation,
    Obj,
    accepted,
    assert_first_rule,
    first,
    git_bytes,
    path_records,
    prep,
    records,
    rejected,
    rows,
    rule_of,
    set_git,
    set_item,
    set_prep,
)

MINIMAL_ROWS = [("100644", 0, path) for path in MINIMAL_PATHS]


MUTATIONS: list[tuple[str, Mutation]] = [
    ("GIT-1-line-wrapped", git_bytes(records(*MINIMAL_ROWS), text="YWJj\nZGVm")),
    ("GIT-2-noncanonical-padding", git_bytes(b"a", text="YR==")),
    ("GIT-1-junk-after-padding", git_bytes(b"a", text="YQ==YWJj")),
    ("GIT-2-missing-padding", git_bytes(b"a", text="YQ")),
    ("GIT-4-stdout-sha", prep(lambda o: o["trackedPathInventory"].__setitem__("stdoutSha256", raw_digest("x")))),
    ("GIT-5-no-final-nul", git_bytes(records(*MINIMAL_ROWS)[:-1])),
    ("GIT-6-empty-record", git_bytes(records(*MINIMAL_ROWS) + b"\0")),
    ("GIT-7-invalid-utf8", git_bytes(records(*MINIMAL_ROWS) + b"100644 " + E.encode() + b" 0\tbad\xff.js\0")),
    ("GIT-8-bom", git_bytes(b"\xef\xbb\xbf" + records(*MINIMAL_ROWS))),
    (
        "GIT-8-unicode-digit-stage",
        git_bytes(records(*MINIMAL_ROWS) + "100644 e 0\t\u0660.js\0".encode().replace(b" 0\t\xd9", b" \xd9\xa0\t\xd9")),
    ),
    ("GIT-9-over-20000", git_bytes(records(*MINIMAL_ROWS, *[("100644", 0, f"d/{k}.md") for k in range(19_989)]))),
    ("GIT-10-count", git_bytes(records(*MINIMAL_ROWS[:-1]))),
    ("GIT-11-kind", git_bytes(records(("120000", 0, "src/alpha.js"), *MINIMAL_ROWS[1:]))),
    (
        "GIT-11-dotdot-js-kept",
        git_bytes(
            records(*MINIMAL_ROWS, ("100644", 0, "src/..js"))[:0] + records(("100644", 0, "..js"), *MINIMAL_ROWS[1:])
        ),
    ),
]


@pytest.mark.parametrize("mutate", rows(MUTATIONS))
def test_rule(mutate: Mutation, request: pytest.FixtureRequest) -> None:
    assert_first_rule(mutate, rule_of(request))


def test_GIT_3_decoded_bytes_bound() -> None:
    data = b"\0" * 16_777_217
    obj = valid_minimal()
    git_bytes(data)(obj)
    assert rejected(dumps(obj)).rule == "GIT-3"


GIT_VECTORS = [
    (
        "1",
        records(
            ("100644", 0, "\tx.js"), ("100644", 0, "a\nb.py"), ("100644", 0, "sp ace.ts"), ("100644", 0, "README.md")
        ),
        [("\tx.js", "regular"), ("a\nb.py", "regular"), ("sp ace.ts", "regular")],
    ),
    ("2", records(("100644", 1, "f.js"), ("100644", 2, "f.js"), ("100644", 3, "f.js")), [("f.js", "conflicted")]),
    (
        "3",
        records(("160000", 0, "sub.go"), ("120000", 0, "ln.sh"), ("100755", 0, "x.PY"), ("040000", 0, "weird.c")),
        [("ln.sh", "symlink"), ("sub.go", "gitlink"), ("weird.c", "other"), ("x.PY", "regular")],
    ),
    ("4", records(("120000", 0, "d.js"), ("100644", 0, "d.js")), [("d.js", "symlink")]),
    ("8", b"", []),
    ("12", records(("100644", 0, "..js"), ("100644", 0, ".js")), [("..js", "regular")]),
    ("13", base64.b64decode("OTk5OTk5IGEgMwl6LnJzAA=="), [("z.rs", "conflicted")]),
]


@pytest.mark.parametrize(("data", "entries"), [v[1:] for v in GIT_VECTORS], ids=[f"vector-{v[0]}" for v in GIT_VECTORS])
def test_git_parser_vectors(data: bytes, entries: list[tuple[str, str]]) -> None:
    derived = derive_tracked_entries(data, "/x", Reporter())
    assert derived is not None
    assert [(e.path, e.index_kind) for e in derived[0]] == entries


@pytest.mark.parametrize(
    ("data", "rule"),
    [
        (b"\xef\xbb\xbf" + records(("100644", 0, "src/a.js")), "GIT-8"),
        (b"\xef\xbb\xbf\xef\xbb\xbf" + records(("100644", 0, "src/a.js")), "GIT-8"),
        (records(("100644", 0, "p.js"))[:-1], "GIT-5"),
        (b"100644 " + E.encode() + b" 0\tbad\xff.js\0", "GIT-7"),
        (f"100644 {E} \u0660\tx.js\0".encode(), "GIT-8"),
        (records(("100644", 0, "p.js")) + b"\0", "GIT-6"),
    ],
    ids=["vector-5", "vector-6", "vector-7", "vector-9", "vector-10", "vector-11"],
)
def test_git_parser_fault_vectors(data: bytes, rule: str) -> None:
    with pytest.raises(InputRejected) as info:
        derive_tracked_entries(data, "/x", Reporter())
    assert info.value.rule == rule


# ---------------------------------------------------------------- GIT


def test_GIT_9_20000_distinct_paths_accepted() -> None:
    obj = valid_minimal()
    set_git(obj, path_records([f"src/{n}.js" for n in NAMES] + [f"d/{k}.md" for k in range(20_000 - 12)]))
    accepted(obj)


def test_GIT_9_counts_distinct_paths_not_records() -> None:
    """20 000 distinct paths with extra records of conflicted stages (same path) are still within the bound."""
    obj = valid_minimal()
    extra = [f"d/{k}.md" for k in range(20_000 - 12)]
    data = (
        path_records([f"src/{n}.js" for n in NAMES] + extra)
        + path_records(extra[:5], stage=1)
        + path_records(extra[:5], stage=2)
    )
    set_git(obj, data)
    accepted(obj)
    obj = valid_minimal()
    set_git(obj, path_records([f"src/{n}.js" for n in NAMES] + extra + ["d/last.md"]))
    assert first(obj) == ("GIT-9", f"{PREP}/trackedPathInventory/stdoutBase64")


@pytest.mark.parametrize(
    ("mode", "kind"),
    [
        ("120000", "symlink"),
        ("160000", "gitlink"),
        ("100755", "regular"),
        ("040000", "other"),
        ("100000", "regular"),
        ("120001", "other"),
    ],
)
def test_GIT_11_index_kind_from_mode(mode: str, kind: str) -> None:
    """The derived kind of the last item must equal its indexKind; each mode maps to one kind."""
    obj = valid_minimal()
    status: dict[str, Any] = {
        "indexKind": kind,
        "worktreeKind": kind,
        "metadataStatus": "not_applicable",
        "summary": None,
    }
    if kind == "regular":
        status = {}
    set_item(obj, 11, **status)
    set_git(obj, path_records([f"src/{n}.js" for n in NAMES[:11]]) + path_records(["src/zeta.js"], mode=mode))
    accepted(obj)


def test_GIT_11_worktree_kind_is_not_compared() -> None:
    obj = valid_minimal()
    set_item(obj, 11, metadataStatus="unreadable", summary=None, worktreeKind="missing", metadataError="EIO")
    accepted(obj)


def test_GIT_10_one_more_tracked_source_path() -> None:
    obj = valid_minimal()
    set_git(obj, path_records([f"src/{n}.js" for n in NAMES] + ["src/zzz.js"]))
    assert first(obj) == ("GIT-10", f"{PREP}/trackedPathInventory/stdoutBase64")


def test_GIT_4_stdout_sha_must_be_a_digest() -> None:
    obj = valid_minimal()
    set_prep(
        obj,
        lambda o: o["trackedPathInventory"].__setitem__(
            "stdoutSha256", o["trackedPathInventory"]["stdoutSha256"].upper()
        ),
    )
    assert first(obj) == ("GIT-4", f"{PREP}/trackedPathInventory/stdoutSha256")


# ---------------------------------------------------------------- GIT-8: fast and slow record paths


def _records(*rows: tuple[str, str, str]) -> bytes:
    return b"".join(f"{mode} {E} {stage}\t{path}".encode() + b"\0" for mode, stage, path in rows)


@pytest.mark.parametrize("stage", ["4", "9", "a", "00"])
def test_GIT_8_stage_outside_0_to_3_is_rejected(stage: str) -> None:
    data = _records(("100644", "0", "a.js"), ("100644", stage, "b.js"))
    assert _whole_buffer_records(data) is None  # fast path declines
    rep = Reporter()
    with pytest.raises(InputRejected) as info:
        _checked_records(data, "/x", rep)  # slow path names it
    assert (info.value.rule, info.value.where) == ("GIT-8", "/x")
    assert "record 1:" in str(info.value)
    with pytest.raises(InputRejected) as info:
        derive_tracked_entries(data, "/x", Reporter())
    assert info.value.rule == "GIT-8"


def test_GIT_8_stage_0_to_3_accepted_on_both_paths() -> None:
    data = _records(("100644", "1", "c.js"), ("100644", "2", "c.js"), ("100644", "3", "c.js"), ("100644", "0", "d.js"))
    fields = [
        ("100644", E, "1", "c.js"),
        ("100644", E, "2", "c.js"),
        ("100644", E, "3", "c.js"),
        ("100644", E, "0", "d.js"),
    ]
    assert _whole_buffer_records(data) == fields
    assert _checked_records(data, "/x", Reporter()) == fields


def test_GIT_8_slow_path_accepts_stage_3_before_a_bad_record() -> None:
    """A stage-3 record, then a malformed one: the slow path names record 1, not record 0."""
    data = _records(("100644", "3", "a.js")) + b"10064 " + E.encode() + b" 0\tb.js\0"
    with pytest.raises(InputRejected) as info:
        derive_tracked_entries(data, "/x", Reporter())
    assert info.value.rule == "GIT-8"
    assert "record 1:" in str(info.value)


def test_GIT_8_stage_4_end_to_end() -> None:
    obj = valid_minimal()
    *others, last = MINIMAL_PATHS
    assert last == "src/zeta.js"
    rows = [("100644", "0", path) for path in others]
    data = _records(*rows, ("100644", "4", last))

    def change(o: Obj) -> None:
        o["trackedPathInventory"]["stdoutBase64"] = base64.b64encode(data).decode()
        o["trackedPathInventory"]["stdoutSha256"] = raw_digest(data)

    set_prep(obj, change)
    error = rejected(obj)
    assert (error.rule, error.where) == ("GIT-8", f"{PREP}/trackedPathInventory/stdoutBase64")


def test_derive_tracked_entries_of_no_bytes_is_no_path() -> None:
    assert derive_tracked_entries(b"", "/x", Reporter()) == ([], 0)
    e = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    data = f"100644 {e} 1\tb.md\x00100644 {e} 2\tb.md\x00100644 {e} 0\ta.js\x00".encode()
    derived = derive_tracked_entries(data, "/x", Reporter())
    assert derived is not None
    entries, distinct = derived
    assert (entries, distinct) == ([("a.js", "regular")], 2)


def _git_error(text: object, data: bytes | None = None) -> InputRejected:
    inventory = {"stdoutBase64": text, "stdoutSha256": raw_digest(data if data is not None else b"")}
    with pytest.raises(InputRejected) as info:
        validate_git_evidence(inventory, "/p", None, Reporter())
    return info.value


@pytest.mark.parametrize("value", [None, 5, ["QQ=="], {}], ids=["null", "number", "array", "object"])
def test_GIT_1_stdout_base64_not_a_string(value: object) -> None:
    error = _git_error(value)
    assert (error.rule, error.where) == ("GIT-1", "/p/stdoutBase64")


def test_GIT_1_base64_text_at_the_limit_and_one_past() -> None:
    at_limit = "A" * MAX_BASE64_CHARACTERS  # passes GIT-1 and GIT-2; decodes past GIT-3's bound
    assert _git_error(at_limit).rule == "GIT-3"
    assert _git_error(at_limit + "AAAA").rule == "GIT-1"


def test_GIT_3_decoded_bytes_at_the_limit_and_one_past() -> None:
    at_limit = b"\0" * MAX_DECODED_BYTES
    error = _git_error(base64.b64encode(at_limit).decode(), at_limit)
    assert error.rule == "GIT-6"  # within GIT-3; the empty records come next
    past = at_limit + b"\0\0\0"
    error = _git_error(base64.b64encode(past).decode(), past)
    assert str(error) == "GIT-3 at /p/stdoutBase64: expected at most 16777216 decoded bytes; found 16777219 bytes"


# ---------------------------------------------------------------- whole messages (tests/rules/messages/git.json)

MESSAGES = Snapshot("git")


@pytest.mark.parametrize(("name", "data"), list(reject_inputs(MUTATIONS)), ids=ids)
def test_reject_messages(name: str, data: bytes) -> None:
    MESSAGES.check(name, reject_messages(data))


def test_zz_snapshot_covers_every_row() -> None:
    """Runs last: writes the file in write mode, else checks that it holds exactly this family's rows."""
    MESSAGES.finish(name for name, _ in reject_inputs(MUTATIONS))
