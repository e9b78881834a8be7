"""Pins for the weakenings named in issue 14 ("Tests that pin every rule").

Each test is named after the rule it pins and asserts the first-reported rule
exactly (and its location), so that a weakening which only moves the rejection
to another rule, or which drops one member or condition of a rule, fails here.
Every test was checked against the weakening applied by hand to a scratch copy.

Spec: SPEC.md §2.3 (TOP-5), §4.3 (SL-16, SL-27), §4.4 (PREP-14), §4.5 (GIT-8),
§4.6 (STALE-7), §4.7 (CASE-3), §4.12 (SB-10, REQ-9, RCPT-40, OBS-16).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from ablation.contracts.base import Reporter
from ablation.contracts.git_index import _checked_records, _whole_buffer_records, derive_tracked_entries
from ablation.contracts.sci_request import check_request
from ablation.errors import BundleInvalid, InputRejected
from ablation.experiment import validate_experiment
from ablation.strictjson import JsonGrammarError, _scan, parse_text
from tests import builder
from tests.builder import dumps, rehash_case, rehash_input, rehash_repository, valid_minimal
from tests.test_structural import QUESTION, assert_fails, make_request, mutated, put, validate

Obj = dict[str, Any]
E = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
PREP = "/repositories/0/sourceListPreparation"
SAMPLE = "/repositories/0/metadataStalenessSample"
OB = "executionObservation"


def rejected(obj_or_data: Obj | bytes) -> InputRejected:
    data = obj_or_data if isinstance(obj_or_data, bytes) else dumps(obj_or_data)
    with pytest.raises(InputRejected) as info:
        validate_experiment(data)
    return info.value


def accepted(obj: Obj) -> None:
    validate_experiment(dumps(obj))


def repo0(obj: Obj) -> Obj:
    return obj["repositories"][0]  # type: ignore[no-any-return]


def set_item(obj: Obj, k: int, **members: object) -> None:
    """Change item ``k`` of the source-list payload and re-seal every digest bound to it."""
    payload = json.loads(repo0(obj)["sourceListArtifact"]["rawJson"])
    payload["items"][k].update(members)
    repo0(obj)["sourceListArtifact"]["rawJson"] = builder.raw_text(payload)
    rehash_input(obj)


def set_prep(obj: Obj, change: Callable[[Obj], None]) -> None:
    """Change the preparation observation and re-seal its observationDigest."""
    observation = repo0(obj)["sourceListPreparation"]
    change(observation)
    observation["observationDigest"] = builder.canonical_digest(
        {k: v for k, v in observation.items() if k != "observationDigest"}
    )


# ---------------------------------------------------------------- PREP-14, OBS-16: every member


PREP_14_MEMBERS = [
    ("headBefore", "b" * 40),
    ("headAfter", "b" * 40),
    ("statusBefore", " M src/alpha.js"),
    ("statusAfter", " M src/alpha.js"),
    ("cleanBefore", False),
    ("cleanAfter", False),
    ("cleanBefore", 1),
    ("statusBefore", None),
]


@pytest.mark.parametrize(("member", "value"), PREP_14_MEMBERS, ids=[f"{m}-{v!r}" for m, v in PREP_14_MEMBERS])
def test_PREP_14_each_target_state_member_is_compared(member: str, value: object) -> None:
    obj = valid_minimal()
    set_prep(obj, lambda o: o["targetState"].__setitem__(member, value))
    error = rejected(obj)
    assert (error.rule, error.where) == ("PREP-14", f"{PREP}/targetState/{member}"), str(error)


def test_PREP_14_status_before_compared() -> None:
    obj = valid_minimal()
    set_prep(obj, lambda o: o["targetState"].__setitem__("statusBefore", "?? new.js"))
    assert str(rejected(obj)) == (
        f"PREP-14 at {PREP}/targetState/statusBefore: expected ''; found '?? new.js'"
    )


OBS_16_MEMBERS = [
    ("headBefore", "b" * 40),
    ("headAfter", "b" * 40),
    ("statusBefore", " M src/a.js"),
    ("statusAfter", " M src/a.js"),
    ("cleanBefore", False),
    ("cleanAfter", False),
]


@pytest.mark.parametrize(("member", "value"), OBS_16_MEMBERS, ids=[m for m, _ in OBS_16_MEMBERS])
def test_OBS_16_each_target_state_member_is_compared(member: str, value: object) -> None:
    assert_fails(mutated(lambda b: put(b, f"{OB}/targetState/{member}", value)), "OBS-16", f"{OB}/targetState/{member}")


def test_OBS_16_status_before_compared() -> None:
    err = assert_fails(mutated(lambda b: put(b, f"{OB}/targetState/statusBefore", "?? x.js")), "OBS-16",
                       f"{OB}/targetState/statusBefore")  # fmt: skip
    assert str(err) == "OBS-16 at executionObservation/targetState/statusBefore: expected ''; found '?? x.js'"


# ---------------------------------------------------------------- SB-10: every producer binding


@pytest.mark.parametrize(
    ("member", "value"),
    [("producerName", "other-producer"), ("producerVersion", "2.0.1"), ("producerWorkflow", "structural-evidence-export-v2")],
    ids=["name", "version", "workflow"],
)
def test_SB_10_each_producer_binding(member: str, value: str) -> None:
    """A provenance member that differs from the receipt's producer is SB-10, before SB-12's posture check."""
    assert_fails(mutated(lambda b: put(b, f"expectedProvenance/{member}", value)), "SB-10", f"expectedProvenance/{member}")


def test_SB_10_producer_workflow_binding() -> None:
    err = assert_fails(
        mutated(lambda b: put(b, "expectedProvenance/producerWorkflow", "structural-evidence-export-v2")),
        "SB-10", "expectedProvenance/producerWorkflow",
    )  # fmt: skip
    assert "receipt/producer/workflow 'structural-evidence-export-v1'" in str(err)


# ---------------------------------------------------------------- SL-16: both halves, both paths


@pytest.mark.parametrize(
    ("path", "status"),
    [("src/zz.md", "present"), ("src/zz.md", "absent"), ("src/zz", "present"), ("src/z\u00e9.md", "present"),
     ("src/z\u00e9", "absent")],
    ids=["ascii-present-md", "ascii-absent-md", "ascii-no-extension", "non-ascii-md", "non-ascii-no-extension"],
)
def test_SL_16_extension_in_default_list(path: str, status: str) -> None:
    """extension ≡ lower(extname(path)) but not a default extension: SL-16 (fast and slow item paths)."""
    obj = valid_minimal()
    ext = builder.extname(path).lower()
    set_item(obj, 11, path=path, extension=ext, metadataStatus=status,
             summary="owner record" if status == "present" else None)  # fmt: skip
    error = rejected(obj)
    assert (error.rule, error.where) == ("SL-16", "/repositories/0/sourceListArtifact/rawJson -> /items/11/extension")


@pytest.mark.parametrize("path", ["src/zz.JS", "src/z\u00e9.JS"], ids=["ascii", "non-ascii"])
def test_SL_16_extension_is_lower_case_of_extname(path: str) -> None:
    obj = valid_minimal()
    set_item(obj, 11, path=path, extension=".JS")
    error = rejected(obj)
    assert (error.rule, error.where) == ("SL-16", "/repositories/0/sourceListArtifact/rawJson -> /items/11/extension")


# ---------------------------------------------------------------- SL-27, CASE-3, RCPT-40: upper bounds


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
    [("EIO:\x01\tline\nnext  x ", "missing", True), ("\u3000 \t", "missing", False), (None, "missing", False),
     ("ENOENT", "regular", False), ("ENOENT", "symlink", True), (5, "missing", False)],
    ids=["controls-unnormalized-ok", "blank", "null", "regular-worktree", "symlink-worktree-ok", "number"],
)
def test_SL_27_conditions(error: object, worktree: str, ok: bool) -> None:
    obj = valid_minimal()
    _unreadable_last_item(obj, error, worktree)
    if ok:
        accepted(obj)
    else:
        assert rejected(obj).rule == "SL-27"


def _case_id(obj: Obj, value: str) -> None:
    obj["cases"][0]["id"] = value
    rehash_case(obj["cases"][0], repo0(obj))


def test_CASE_3_id_of_128_accepted() -> None:
    obj = valid_minimal()
    _case_id(obj, "c" * 128)
    accepted(obj)


def test_CASE_3_id_of_129_rejected() -> None:
    obj = valid_minimal()
    _case_id(obj, "c" * 129)
    error = rejected(obj)
    assert (error.rule, error.where) == ("CASE-3", "/cases/0/id")


def test_CASE_3_controls_and_unnormalized_accepted_non_ascii_counted_in_code_points() -> None:
    obj = valid_minimal()
    _case_id(obj, " a\x01  b ")
    accepted(obj)
    _case_id(obj, "\U0001f600" * 128)
    accepted(obj)
    _case_id(obj, "\U0001f600" * 129)
    assert rejected(obj).rule == "CASE-3"


def _limitation(message: str) -> Callable[[dict[str, Any]], None]:
    return lambda b: put(b, "receipt/limitations",
                         [{"code": "partial_scan", "message": message, "affectsCompleteness": False}])  # fmt: skip


def test_RCPT_40_message_of_2000_accepted() -> None:
    validate(mutated(_limitation("m" * 2000)))


def test_RCPT_40_message_of_2001_rejected() -> None:
    assert_fails(mutated(_limitation("m" * 2001)), "RCPT-40", "receipt/limitations/0/message")


@pytest.mark.parametrize(
    ("code", "ok"), [("p" * 64, True), ("p" * 65, False), ("a", True), ("a_9", True), ("9a", False), ("_a", False)],
    ids=["64", "65", "one", "digit-underscore", "leading-digit", "leading-underscore"],
)
def test_RCPT_40_code_bounds(code: str, ok: bool) -> None:
    b = mutated(lambda b: put(b, "receipt/limitations", [{"code": code, "message": "m", "affectsCompleteness": False}]))
    if ok:
        validate(b)
    else:
        assert_fails(b, "RCPT-40", "receipt/limitations/0/code")


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
    fields = [("100644", E, "1", "c.js"), ("100644", E, "2", "c.js"), ("100644", E, "3", "c.js"), ("100644", E, "0", "d.js")]
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
    rows = [("100644", "0", f"src/{n}.js") for n in ("alpha", "beta", "cache", "config", "exporter", "graph",
                                                    "parser", "ranking", "receipt", "runner", "security")]  # fmt: skip
    data = _records(*rows, ("100644", "4", "src/zeta.js"))

    def change(o: Obj) -> None:
        import base64

        o["trackedPathInventory"]["stdoutBase64"] = base64.b64encode(data).decode()
        o["trackedPathInventory"]["stdoutSha256"] = builder.raw_digest(data)

    set_prep(obj, change)
    error = rejected(obj)
    assert (error.rule, error.where) == ("GIT-8", f"{PREP}/trackedPathInventory/stdoutBase64")


# ---------------------------------------------------------------- TOP-5: JSON whitespace only


TRAILING = ["\f", "\u00a0", "\v", "\u2028", "\u3000", "\x85", "\ufeff"]


@pytest.mark.parametrize("tail", TRAILING, ids=[f"U+{ord(t):04X}" for t in TRAILING])
def test_TOP_5_trailing_non_json_whitespace(tail: str) -> None:
    for text in ("{}" + tail, "{} \n" + tail, "[1]\t" + tail):
        for parse in (parse_text, _scan):
            with pytest.raises(JsonGrammarError) as info:
                parse(text)
            assert (info.value.rule, info.value.offset) == ("TOP-5", text.index(tail)), (parse, text)


@pytest.mark.parametrize("tail", ["\f", "\u00a0"], ids=["form-feed", "no-break-space"])
def test_TOP_5_trailing_form_feed_or_nbsp_in_the_file(tail: str) -> None:
    data = dumps(valid_minimal())
    error = rejected(data + tail.encode())
    assert error.rule == "TOP-5", str(error)
    assert str(error).startswith(f"TOP-5 at byte {len(data)}"), str(error)


def test_TOP_5_json_whitespace_is_allowed_after_the_value() -> None:
    for parse in (parse_text, _scan):
        assert parse("{} \t\r\n ").value == {}


def test_TOP_5_leading_form_feed_is_TOP_3() -> None:
    with pytest.raises(JsonGrammarError) as info:
        parse_text("\f{}")
    assert (info.value.rule, info.value.offset) == ("TOP-3", 0)


# ---------------------------------------------------------------- REQ-9: every non-path kind


@pytest.mark.parametrize(
    ("k", "seed"),
    [(2, {"id": "seed:sym", "kind": "symbol", "value": "Foo  Bar"}),
     (2, {"id": "seed:sym", "kind": "symbol", "value": " Foo"}),
     (0, {"id": "seed:language", "kind": "symbol", "value": "Java\tScript"}),
     (0, {"id": "seed:language", "kind": "text", "value": "Java  Script"})],
    ids=["symbol-double-space", "symbol-leading-space", "language-symbol-tab", "text"],
)
def test_REQ_9_normalisation_for_symbol_seeds(k: int, seed: dict[str, str]) -> None:
    """A symbol seed that is not Normalized is REQ-9, not REQ-18 (which Phase B would report later)."""

    def change(b: dict[str, Any]) -> None:
        b["expectedRequest"]["seeds"][k] = seed

    assert_fails(mutated(change), "REQ-9", f"expectedRequest/seeds/{k}/value")
    request = make_request(QUESTION)
    request["seeds"][k] = seed
    with pytest.raises(BundleInvalid) as info:
        check_request(request, "r")
    assert info.value.rule == "REQ-9"


def test_REQ_9_normalized_symbol_seed_passes_the_grammar() -> None:
    request = make_request(QUESTION)
    request["seeds"][2] = {"id": "seed:sym", "kind": "symbol", "value": "Foo Bar"}
    check_request(request, "r")


# ---------------------------------------------------------------- STALE-7: distinct and increasing


@pytest.mark.parametrize(
    ("sampled", "stale", "where"),
    [(["src/alpha.js", "src/alpha.js"], [], "sampledPaths/1"),
     (["src/alpha.js", "src/beta.js"], ["src/alpha.js", "src/alpha.js"], "stalePaths/1"),
     (["src/beta.js", "src/alpha.js"], [], "sampledPaths/1"),
     (["src/alpha.js", "src/beta.js"], ["src/beta.js", "src/alpha.js"], "stalePaths/1"),
     (["src/alpha.js", "/src/beta.js"], [], "sampledPaths/1")],
    ids=["duplicate-sampled", "duplicate-stale", "unsorted-sampled", "unsorted-stale", "unsafe-path"],
)
def test_STALE_7_duplicate_sampled_paths(sampled: list[str], stale: list[str], where: str) -> None:
    obj = valid_minimal()
    sample = repo0(obj)["metadataStalenessSample"]
    sample["sampledPaths"], sample["stalePaths"] = sampled, stale
    rehash_repository(repo0(obj))
    error = rejected(obj)
    assert (error.rule, error.where) == ("STALE-7", f"{SAMPLE}/{where}"), str(error)


def test_STALE_7_two_distinct_increasing_paths_accepted() -> None:
    obj = valid_minimal()
    sample = repo0(obj)["metadataStalenessSample"]
    sample["sampledPaths"], sample["stalePaths"] = ["src/alpha.js", "src/beta.js"], ["src/beta.js"]
    rehash_repository(repo0(obj))
    accepted(obj)
