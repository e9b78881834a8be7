"""Rule by rule pins for the REJECT families (REPO, SL, PREP, GIT, STALE, CASE): SPEC §4.2 … §4.7.

Complements ``test_rules_reject`` (one defect per rule) with what a name alone
does not pin: both bounds of every limit (at the limit accepted, one past
rejected), every member a rule names, both item paths of the source-list
checker (the ASCII fast path and the per-rule slow path), and the exact
first-reported rule and location.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import pytest

from ablation.canonical import canonical_digest, raw_digest
from ablation.errors import InputRejected
from ablation.experiment import validate_experiment
from tests import builder
from tests.builder import dumps, rehash_case, rehash_input, rehash_repository, valid_minimal

Obj = dict[str, Any]
E = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
RAW = "/repositories/0/sourceListArtifact/rawJson -> "
PREP = "/repositories/0/sourceListPreparation"
SAMPLE = "/repositories/0/metadataStalenessSample"
NAMES = ("alpha", "beta", "cache", "config", "exporter", "graph", "parser", "ranking", "receipt", "runner", "security",
         "zeta")  # fmt: skip


def rejected(obj: Obj | bytes) -> InputRejected:
    with pytest.raises(InputRejected) as info:
        validate_experiment(obj if isinstance(obj, bytes) else dumps(obj))
    return info.value


def accepted(obj: Obj) -> None:
    validate_experiment(dumps(obj))


def first(obj: Obj) -> tuple[str, str]:
    error = rejected(obj)
    return error.rule, error.where


def repo0(obj: Obj) -> Obj:
    return obj["repositories"][0]  # type: ignore[no-any-return]


def payload(obj: Obj) -> Obj:
    return json.loads(repo0(obj)["sourceListArtifact"]["rawJson"])  # type: ignore[no-any-return]


def set_payload(obj: Obj, change: Callable[[Obj], None], *, git: bool = False) -> None:
    p = payload(obj)
    change(p)
    repo0(obj)["sourceListArtifact"]["rawJson"] = builder.raw_text(p)
    rehash_input(obj)
    if git:
        rehash_repository(repo0(obj), regenerate_git=True)


def set_item(obj: Obj, k: int, *, git: bool = False, **members: object) -> None:
    set_payload(obj, lambda p: p["items"][k].update(members), git=git)


def set_prep(obj: Obj, change: Callable[[Obj], None]) -> None:
    observation = repo0(obj)["sourceListPreparation"]
    change(observation)
    observation["observationDigest"] = canonical_digest({k: v for k, v in observation.items() if k != "observationDigest"})


def set_git(obj: Obj, data: bytes) -> None:
    def change(o: Obj) -> None:
        o["trackedPathInventory"]["stdoutBase64"] = base64.b64encode(data).decode()
        o["trackedPathInventory"]["stdoutSha256"] = raw_digest(data)

    set_prep(obj, change)


def records(paths: list[str], stage: int = 0, mode: str = "100644") -> bytes:
    return b"".join(f"{mode} {E} {stage}\t{p}".encode() + b"\0" for p in paths)


def minimal_with(change: Callable[[Obj], None]) -> Obj:
    obj = valid_minimal()
    change(obj)
    return obj


# ---------------------------------------------------------------- REPO


def _repo_id(value: str) -> Callable[[Obj], None]:
    def change(obj: Obj) -> None:
        repo0(obj)["id"] = value
        for c in obj["cases"]:
            c["repositoryId"] = value
        rehash_input(obj)

    return change


def test_REPO_3_id_of_128_accepted_129_rejected() -> None:
    accepted(minimal_with(_repo_id("r" * 128)))
    accepted(minimal_with(_repo_id("\u00e9" * 128)))
    assert first(minimal_with(_repo_id("r" * 129))) == ("REPO-3", "/repositories/0/id")


@pytest.mark.parametrize("value", ["\u3000", " repo", "repo ", "re\tpo", "", "re\u00a0po"],
                         ids=["blank", "leading", "trailing", "tab", "empty", "nbsp"])  # fmt: skip
def test_REPO_3_id_blank_or_not_normalized(value: str) -> None:
    assert first(minimal_with(_repo_id(value))) == ("REPO-3", "/repositories/0/id")


@pytest.mark.parametrize("value", ["a" * 39, "a" * 41, "a" * 63, "a" * 65, "g" * 40, 40], ids=str)
def test_REPO_4_commit_is_40_or_64_lowercase_hex(value: object) -> None:
    obj = valid_minimal()
    repo0(obj)["commit"] = value
    assert first(obj) == ("REPO-4", "/repositories/0/commit")


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
    [("contractVersion", "source-list.v0"), ("mode", "full"), ("repository", ".."), ("ok", 1),
     ("supportedExtensions", list(builder.SUPPORTED_EXTENSIONS[:-1])),
     ("supportedExtensions", [*builder.SUPPORTED_EXTENSIONS, ".md"]), ("totalCount", 13), ("returnedCount", 13),
     ("page", 2), ("totalPages", 2), ("totalPages", True), ("pageSize", 13), ("pageSize", 11), ("truncated", 0),
     ("violationCount", True), ("violations", [{"x": 1}]), ("violations", {})],
    ids=lambda v: v if isinstance(v, str) else json.dumps(v)[:20],
)
def test_SL_5_to_SL_37_each_payload_member(member: str, value: object) -> None:
    rule = {"contractVersion": "SL-6", "mode": "SL-7", "repository": "SL-8", "ok": "SL-9", "supportedExtensions": "SL-10",
            "totalCount": "SL-32", "returnedCount": "SL-33", "page": "SL-34", "totalPages": "SL-34",
            "pageSize": "SL-35", "truncated": "SL-36", "violationCount": "SL-37", "violations": "SL-37"}[member]  # fmt: skip
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


@pytest.mark.parametrize(("summary", "ok"), [("s" * 240, True), ("s" * 241, False), ("\u00e9" * 240, True),
                                            ("\u00e9" * 241, False), ("\U0001f600" * 120, True),
                                            ("\U0001f600" * 121, False), ("\U0001f600" * 119 + "ab", True),
                                            ("\U0001f600" * 120 + "a", False), ("a\x7fb", False), ("a\u0085b", False),
                                            ("a  b", False), ("a\u3000b", False), (" a", False), ("", False),
                                            (None, False), (1, False)],
                         ids=["ascii-240", "ascii-241", "latin-240", "latin-241", "astral-120", "astral-121", "utf16-240", "utf16-241", "del",
                              "c1-control", "double-space", "ideographic-space", "leading", "empty", "null", "number"])  # fmt: skip
def test_SL_19_summary_is_a_meta_scalar(summary: object, ok: bool) -> None:
    obj = valid_minimal()
    set_item(obj, 0, summary=summary)
    if ok:
        accepted(obj)
    else:
        assert first(obj) == ("SL-19", RAW + "/items/0/summary")


@pytest.mark.parametrize(("hints", "where"), [(["h"] * 5, None), (["h"] * 6, "readWhen"), (["h", " h"], "readWhen/1"),
                                            (["h", "h\u0085"], "readWhen/1"), (["h", None], "readWhen/1"),
                                            ("h", "readWhen"), (["\u00e9"] * 5, None), (["\u00e9"] * 6, "readWhen")],
                         ids=["5", "6", "leading-space", "control", "null", "string", "latin-5", "latin-6"])  # fmt: skip
def test_SL_20_read_when(hints: object, where: str | None) -> None:
    obj = valid_minimal()
    set_item(obj, 0, readWhen=hints)
    if where is None:
        accepted(obj)
    else:
        assert first(obj) == ("SL-20", RAW + "/items/0/" + where)


@pytest.mark.parametrize(("index_kind", "worktree"), [("symlink", "regular"), ("regular", "symlink"),
                                                       ("regular", "missing")])  # fmt: skip
def test_SL_18_present_needs_both_kinds_regular(index_kind: str, worktree: str) -> None:
    obj = valid_minimal()
    set_item(obj, 0, indexKind=index_kind, worktreeKind=worktree)
    assert first(obj) == ("SL-18", RAW + "/items/0")


@pytest.mark.parametrize(("members", "rule"), [
    ({"indexKind": "symlink", "worktreeKind": "symlink"}, "SL-24"),
    ({"worktreeKind": "missing"}, "SL-24"),
    ({"metadataError": "invalid_summary"}, "SL-24"),
], ids=["index-kind", "worktree-kind", "error"])  # fmt: skip
def test_SL_24_absent_each_member(members: dict[str, object], rule: str) -> None:
    obj = valid_minimal()
    set_item(obj, 11, metadataStatus="absent", summary=None, **members)
    assert first(obj) == (rule, RAW + "/items/11")


def test_SL_24_absent_item_accepted() -> None:
    obj = valid_minimal()
    set_item(obj, 11, metadataStatus="absent", summary=None)
    accepted(obj)


@pytest.mark.parametrize("error", ["duplicate_summary", "invalid_summary", "invalid_read_when",
                                   "metadata_comment_too_large", "unterminated_metadata_comment"])  # fmt: skip
def test_SL_25_each_invalid_error_accepted(error: str) -> None:
    obj = valid_minimal()
    set_item(obj, 11, metadataStatus="invalid", summary=None, metadataError=error)
    accepted(obj)


@pytest.mark.parametrize(("members", "found"), [
    ({"metadataError": "Invalid_summary"}, "'Invalid_summary'"), ({"metadataError": None}, "null"),
    ({"indexKind": "symlink", "worktreeKind": "symlink"}, "'symlink'"), ({"worktreeKind": "missing"}, "'missing'"),
], ids=["error-case", "error-null", "index-kind", "worktree-kind"])  # fmt: skip
def test_SL_25_invalid_each_member(members: dict[str, object], found: str) -> None:
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
        mode_records = records([f"src/{n}.js" for n in NAMES[:11]]) + b"".join(
            f"100644 {E} {s}\tsrc/zeta.js".encode() + b"\0" for s in (1, 2))
        set_git(obj, mode_records)
    accepted(obj)


@pytest.mark.parametrize(("kinds", "where", "rule"), [
    (("symlink", "missing"), "/worktreeKind", "SL-29"),
    (("gitlink", "symlink"), "/worktreeKind", "SL-29"),
], ids=["missing", "other-kind"])  # fmt: skip
def test_SL_29_not_applicable_worktree_equals_index_kind(kinds: tuple[str, str], where: str, rule: str) -> None:
    obj = valid_minimal()
    set_item(obj, 11, git=True, metadataStatus="not_applicable", summary=None, indexKind=kinds[0], worktreeKind=kinds[1])
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


@pytest.mark.parametrize("path", ["src/zz/../a.js", "src//zz.js", "src/./zz.js", "C:zz.js", "src\\zz.js", "src/zz.js ",
                                  " src/zz.js", "src/z\x01.js", "src/z\u0085.js", "/src/zz.js", "src/zz.js/",
                                  "src/\u00e9/../a.js", "src/\u00e9//a.js"],
                         ids=["dotdot", "empty-segment", "dot", "drive", "backslash", "trailing-space",
                              "leading-space", "c0", "c1", "absolute", "trailing-slash", "non-ascii-dotdot",
                              "non-ascii-empty-segment"])  # fmt: skip
def test_SL_13_safe_path_conditions(path: str) -> None:
    obj = valid_minimal()
    set_item(obj, 11, path=path, extension=".js")
    assert first(obj) == ("SL-13", RAW + "/items/11/path")


@pytest.mark.parametrize("path", ["src/zz/..js", "src/zz/...js", "src/z\u00e9ta.js", "src/zz a.js"],
                         ids=["dotdot-name", "three-dots", "non-ascii", "inner-space"])  # fmt: skip
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


# ---------------------------------------------------------------- PREP: every member and position


@pytest.mark.parametrize("k", range(6))
def test_PREP_11_every_argv_position(k: int) -> None:
    obj = valid_minimal()

    def change(o: Obj) -> None:
        o["command"][k] = o["command"][k] + "x"
        o["commandDigest"] = canonical_digest(o["command"])

    set_prep(obj, change)
    assert first(obj) == ("PREP-11", f"{PREP}/command")


@pytest.mark.parametrize("k", range(9))
def test_PREP_16_every_git_argv_position(k: int) -> None:
    obj = valid_minimal()

    def change(o: Obj) -> None:
        inventory = o["trackedPathInventory"]
        inventory["command"][k] = inventory["command"][k] + "x"
        inventory["commandDigest"] = canonical_digest(inventory["command"])

    set_prep(obj, change)
    assert first(obj) == ("PREP-16", f"{PREP}/trackedPathInventory/command")


@pytest.mark.parametrize(("member", "value", "rule"), [
    ("nodePath", "/", None), ("nodePath", "usr/bin/node", "PREP-7"), ("nodePath", "/" + "n" * 4095, None),
    ("nodePath", "/" + "n" * 4096, "PREP-7"), ("path", " ", "PREP-8"), ("path", "/" + "p" * 4096, "PREP-8"),
    ("revision", "b" * 64, None), ("revision", "b" * 63, "PREP-9"), ("revision", "B" * 40, "PREP-9"),
    ("artifactSha256", "sha256:" + "0" * 64, None), ("artifactSha256", "sha256:" + "0" * 63, "PREP-10"),
], ids=lambda v: str(v)[:12])  # fmt: skip
def test_PREP_7_to_PREP_10_executable_members(member: str, value: str, rule: str | None) -> None:
    obj = valid_minimal()

    def change(o: Obj) -> None:
        o["sourceListExecutable"][member] = value
        o["command"] = [o["sourceListExecutable"]["nodePath"], o["sourceListExecutable"]["path"], "--repo", ".",
                        "--full-list", "--json"]  # fmt: skip
        o["commandDigest"] = canonical_digest(o["command"])

    set_prep(obj, change)
    if rule is None:
        accepted(obj)
    else:
        assert first(obj) == (rule, f"{PREP}/sourceListExecutable/{member}")


@pytest.mark.parametrize(("path", "value", "rule"), [
    (("exitCode",), 1, "PREP-13"), (("exitCode",), None, "PREP-13"),
    (("trackedPathInventory", "exitCode"), False, "PREP-18"), (("trackedPathInventory", "exitCode"), -1, "PREP-18"),
], ids=["exit-1", "exit-null", "git-exit-false", "git-exit-minus-1"])  # fmt: skip
def test_PREP_13_PREP_18_exit_codes(path: tuple[str, ...], value: object, rule: str) -> None:
    obj = valid_minimal()

    def change(o: Obj) -> None:
        target = o
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    set_prep(obj, change)
    assert first(obj) == (rule, PREP + "/" + "/".join(path))


# ---------------------------------------------------------------- GIT


def test_GIT_9_20000_distinct_paths_accepted() -> None:
    obj = valid_minimal()
    set_git(obj, records([f"src/{n}.js" for n in NAMES] + [f"d/{k}.md" for k in range(20_000 - 12)]))
    accepted(obj)


def test_GIT_9_counts_distinct_paths_not_records() -> None:
    """20 000 distinct paths with extra records of conflicted stages (same path) are still within the bound."""
    obj = valid_minimal()
    extra = [f"d/{k}.md" for k in range(20_000 - 12)]
    data = records([f"src/{n}.js" for n in NAMES] + extra) + records(extra[:5], stage=1) + records(extra[:5], stage=2)
    set_git(obj, data)
    accepted(obj)
    obj = valid_minimal()
    set_git(obj, records([f"src/{n}.js" for n in NAMES] + extra + ["d/last.md"]))
    assert first(obj) == ("GIT-9", f"{PREP}/trackedPathInventory/stdoutBase64")


@pytest.mark.parametrize(("mode", "kind"), [("120000", "symlink"), ("160000", "gitlink"), ("100755", "regular"),
                                            ("040000", "other"), ("100000", "regular"), ("120001", "other")])  # fmt: skip
def test_GIT_11_index_kind_from_mode(mode: str, kind: str) -> None:
    """The derived kind of the last item must equal its indexKind; each mode maps to one kind."""
    obj = valid_minimal()
    status = {"indexKind": kind, "worktreeKind": kind, "metadataStatus": "not_applicable", "summary": None}
    if kind == "regular":
        status = {}
    set_item(obj, 11, **status)
    set_git(obj, records([f"src/{n}.js" for n in NAMES[:11]]) + records(["src/zeta.js"], mode=mode))
    accepted(obj)


def test_GIT_11_worktree_kind_is_not_compared() -> None:
    obj = valid_minimal()
    set_item(obj, 11, metadataStatus="unreadable", summary=None, worktreeKind="missing", metadataError="EIO")
    accepted(obj)


def test_GIT_10_one_more_tracked_source_path() -> None:
    obj = valid_minimal()
    set_git(obj, records([f"src/{n}.js" for n in NAMES] + ["src/zzz.js"]))
    assert first(obj) == ("GIT-10", f"{PREP}/trackedPathInventory/stdoutBase64")


def test_GIT_4_stdout_sha_must_be_a_digest() -> None:
    obj = valid_minimal()
    set_prep(obj, lambda o: o["trackedPathInventory"].__setitem__(
        "stdoutSha256", o["trackedPathInventory"]["stdoutSha256"].upper()))  # fmt: skip
    assert first(obj) == ("GIT-4", f"{PREP}/trackedPathInventory/stdoutSha256")


# ---------------------------------------------------------------- STALE


def _method(value: object) -> Callable[[Obj], None]:
    def change(obj: Obj) -> None:
        repo0(obj)["metadataStalenessSample"]["method"] = value
        rehash_repository(repo0(obj))

    return change


def test_STALE_4_method_of_2000_accepted_2001_rejected() -> None:
    accepted(minimal_with(_method("m" * 2000)))
    assert first(minimal_with(_method("m" * 2001))) == ("STALE-4", f"{SAMPLE}/method")


@pytest.mark.parametrize("value", ["a  b", " a", "a\tb", "", None], ids=["double", "leading", "tab", "empty", "null"])
def test_STALE_4_method_normalized_nonblank(value: object) -> None:
    assert first(minimal_with(_method(value))) == ("STALE-4", f"{SAMPLE}/method")


def test_STALE_9_sampled_path_of_an_absent_item() -> None:
    obj = valid_minimal()
    set_item(obj, 1, metadataStatus="absent", summary=None)
    sample = repo0(obj)["metadataStalenessSample"]
    sample["sampledPaths"] = ["src/alpha.js", "src/beta.js"]
    rehash_repository(repo0(obj))
    assert first(obj) == ("STALE-9", f"{SAMPLE}/sampledPaths/1")


@pytest.mark.parametrize("member", ["commit", "rawArtifactSha256"])
def test_STALE_2_STALE_3_bindings(member: str) -> None:
    obj = valid_minimal()
    repo0(obj)["metadataStalenessSample"][member] = "b" * 40 if member == "commit" else raw_digest("x")
    rehash_repository(repo0(obj))
    assert first(obj) == ("STALE-2" if member == "commit" else "STALE-3", f"{SAMPLE}/{member}")


# ---------------------------------------------------------------- CASE


def _question(obj: Obj, k: int, question: str) -> None:
    obj["cases"][k]["question"] = question
    rehash_case(obj["cases"][k], repo0(obj))


def test_CASE_5_question_of_4000_accepted_4001_rejected() -> None:
    obj = valid_minimal()
    q = obj["cases"][0]["question"]
    _question(obj, 0, q + " " + "x" * (4000 - len(q) - 1))
    accepted(obj)
    _question(obj, 0, q + " " + "x" * (4001 - len(q) - 1))
    assert first(obj) == ("CASE-5", "/cases/0/question")


@pytest.mark.parametrize(("value", "ok"), [(1, True), (12, True), (0, False), (13, False), (-1, False), ("2", False),
                                            (None, False)],
                         ids=["1", "12", "0", "13", "-1", "string", "null"])  # fmt: skip
def test_CASE_8_max_items_between_1_and_item_count(value: object, ok: bool) -> None:
    obj = valid_minimal()
    obj["cases"][0]["maxItems"] = value
    rehash_case(obj["cases"][0], repo0(obj))
    if ok:
        accepted(obj)
    else:
        assert first(obj) == ("CASE-8", "/cases/0/maxItems")


def test_CASE_9_truth_not_an_array() -> None:
    obj = valid_minimal()
    obj["cases"][0]["truth"] = "src/alpha.js"
    assert first(obj) == ("CASE-9", "/cases/0/truth")


def test_CASE_17_duplicate_id_names_the_second_case() -> None:
    obj = valid_minimal()
    obj["cases"][4]["id"] = obj["cases"][2]["id"]
    assert first(obj) == ("CASE-17", "/cases/4/id")


def test_CASE_19_ten_cases_of_a_repository_accepted_nine_rejected() -> None:
    obj = valid_minimal()
    assert len(obj["cases"]) == 10
    accepted(obj)
    obj["cases"].pop()
    assert first(obj)[0] == "CASE-19"


# ---------------------------------------------------------------- closed objects: a missing member, an extra member


def _drop(path: tuple[object, ...], *, reseal: Callable[[Obj], None] | None = None) -> Callable[[Obj], None]:
    def change(obj: Obj) -> None:
        target: Any = obj
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
        if reseal is not None:
            reseal(obj)

    return change


def _reprep(obj: Obj) -> None:
    set_prep(obj, lambda o: None)


@pytest.mark.parametrize(("path", "rule", "where"), [
    (("cases",), "TOP-13", ""),
    (("repositories", 0, "metadataStalenessSample"), "REPO-2", "/repositories/0"),
    (("repositories", 0, "sourceListArtifact", "rawSha256"), "SL-1", "/repositories/0/sourceListArtifact"),
    (("repositories", 0, "metadataStalenessSample", "stalePaths"), "STALE-1", SAMPLE),
    (("cases", 3, "structuralEvidence"), "CASE-2", "/cases/3"),
], ids=["TOP-13", "REPO-2", "SL-1", "STALE-1", "CASE-2"])  # fmt: skip
def test_closed_object_missing_member(path: tuple[object, ...], rule: str, where: str) -> None:
    obj = valid_minimal()
    _drop(path)(obj)
    assert first(obj) == (rule, where)


@pytest.mark.parametrize(("member", "rule", "where"), [
    ("schema", "PREP-1", PREP), ("sourceListExecutable/revision", "PREP-6", PREP + "/sourceListExecutable"),
    ("targetState/cleanAfter", "PREP-14", PREP + "/targetState"),
    ("trackedPathInventory/exitCode", "PREP-15", PREP + "/trackedPathInventory"),
], ids=["PREP-1", "PREP-6", "PREP-14", "PREP-15"])  # fmt: skip
def test_preparation_closed_objects_missing_member(member: str, rule: str, where: str) -> None:
    obj = valid_minimal()
    keys = member.split("/")
    set_prep(obj, lambda o: (o[keys[0]].pop(keys[1]) if len(keys) == 2 else o.pop(keys[0])))
    assert first(obj) == (rule, where)


@pytest.mark.parametrize("member", ["path", "indexKind", "extension", "worktreeKind", "metadataStatus", "summary",
                                    "readWhen", "metadataError"])  # fmt: skip
def test_SL_12_each_item_member_required(member: str) -> None:
    obj = valid_minimal()
    set_payload(obj, lambda p: p["items"][5].pop(member))
    assert first(obj) == ("SL-12", RAW + "/items/5")


# ---------------------------------------------------------------- CASE bindings and digests


@pytest.mark.parametrize(("member", "value", "rule"), [
    ("repositoryId", "repo ", "CASE-4"), ("repositoryCommit", "A" * 40, "CASE-6"),
    ("sourceListArtifactSha256", "sha256:" + "0" * 64, "CASE-7"),
], ids=["CASE-4", "CASE-6", "CASE-7"])  # fmt: skip
def test_CASE_4_6_7_bindings_to_the_repository(member: str, value: str, rule: str) -> None:
    obj = valid_minimal()
    obj["cases"][7][member] = value
    rehash_case(obj["cases"][7], repo0(obj))
    assert first(obj) == (rule, f"/cases/7/{member}")


@pytest.mark.parametrize(("member", "rule"), [("intentSignature", "CASE-12"), ("targetBasisDigest", "CASE-13"),
                                              ("questionId", "CASE-14")])  # fmt: skip
def test_CASE_12_13_14_digest_of_another_case(member: str, rule: str) -> None:
    obj = valid_minimal()
    obj["cases"][6][member] = obj["cases"][5][member]
    assert first(obj) == (rule, f"/cases/6/{member}")


def test_CASE_13_truth_order_is_free() -> None:
    obj = valid_minimal()
    obj["cases"][0]["truth"] = ["src/beta.js", "src/alpha.js"]
    rehash_case(obj["cases"][0], repo0(obj))
    digest = obj["cases"][0]["targetBasisDigest"]
    accepted(obj)
    obj["cases"][0]["truth"] = ["src/alpha.js", "src/beta.js"]
    rehash_case(obj["cases"][0], repo0(obj))
    assert obj["cases"][0]["targetBasisDigest"] == digest
    accepted(obj)


def test_CASE_16_reordered_truth_is_the_same_truth_set() -> None:
    obj = valid_minimal()
    obj["cases"][0]["truth"] = ["src/alpha.js", "src/zeta.js"]
    obj["cases"][1]["truth"] = ["src/zeta.js", "src/alpha.js"]
    rehash_case(obj["cases"][0], repo0(obj))
    rehash_case(obj["cases"][1], repo0(obj))
    assert first(obj) == ("CASE-16", "/cases/1/targetBasisDigest")


def test_CASE_15_same_tokens_in_another_order_is_the_same_intent() -> None:
    obj = valid_minimal()
    q = obj["cases"][0]["question"]
    words = q.rstrip(".").split(" ")
    obj["cases"][1]["question"] = " ".join(reversed(words)) + "."
    rehash_case(obj["cases"][1], repo0(obj))
    assert first(obj) == ("CASE-15", "/cases/1/intentSignature")


@pytest.mark.parametrize("value", [["repo"], {"id": "repo"}, None, 5], ids=["array", "object", "null", "number"])
def test_CASE_4_repository_id_not_a_string(value: object) -> None:
    obj = valid_minimal()
    obj["cases"][2]["repositoryId"] = value
    error = rejected(obj)
    assert (error.rule, error.where) == ("CASE-4", "/cases/2/repositoryId")


def test_CASE_18_message_names_the_first_case() -> None:
    from ablation.contracts.base import Reporter
    from ablation.contracts.cases import RepositoryRef, validate_cases

    obj = valid_minimal()
    repo = repo0(obj)
    ref = RepositoryRef(id="repo", commit="a" * 40, raw_sha256=repo["sourceListArtifact"]["rawSha256"], item_count=12,
                        item_paths=frozenset(builder.item_paths(repo)))  # fmt: skip
    cases = obj["cases"]
    cases.append(json.loads(json.dumps(cases[4])))
    cases[-1]["id"] = "repo-11"
    rep = Reporter(collect_all=True)
    validate_cases(cases, [ref], rep)
    assert [str(v) for v in rep.violations][-1] == (
        "CASE-18 at /cases/10/questionId: expected a question id unique in the input; found the same as /cases/4"
    )
