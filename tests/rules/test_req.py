"""REQ — the SCI request and the Phase-B grammar (SPEC §4.9; ``ablation.contracts.sci_request``: REQ-1 … REQ-18).

End-to-end rows mutate ``expectedRequest`` of the SPEC §11.1 bundle (SB-2) and
assert the first failing rule and its location; the receipt's copy of the
request (RCPT-3, SB-6) is covered in ``test_rcpt.py`` and ``test_sb.py``. The helpers every
bundle rule shares (``same``, ``show``, ``fail``, ``Shape``) are tested in
``tests/contracts/test_base.py``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from ablation.contracts.base import fail
from ablation.contracts.sci_request import (
    OPERATIONS,
    check_phase_b,
    check_request,
)
from ablation.errors import BundleInvalid
from tests.builders.bundle import (
    QUESTION,
    Bundle,
    assert_fails,
    drop,
    make_request,
    mutated,
    put,
    rule_cases,
)
from tests.builders.messages import Snapshot, bundle_inputs, bundle_message, ids

ER = "expectedRequest"


def _seed(k: int) -> dict[str, str]:
    return {"id": f"seed:p{k}", "kind": "path", "value": "src"}


def _add_seed(seed: dict[str, Any]) -> Callable[[Bundle], None]:
    return lambda b: b[ER]["seeds"].append(seed)


REQ_CASES = rule_cases(
    [
        ("REQ-1", "not-object", ER, lambda b: put(b, ER, []), ()),
        ("REQ-1", "null", ER, lambda b: put(b, ER, None), ()),
        ("REQ-1", "unknown-member", ER, lambda b: put(b, f"{ER}/mode", "x"), ()),
        ("REQ-1", "missing-limits", ER, lambda b: drop(b, f"{ER}/limits"), ()),
        (
            "REQ-2",
            "non-portable",
            f"{ER}/question",
            lambda b: put(b, f"{ER}/question", "Inspect /home/dev/app config."),
            (),
        ),
        ("REQ-2", "file-url", f"{ER}/question", lambda b: put(b, f"{ER}/question", "Load FILE://repo/config."), ()),
        ("REQ-2", "not-normalized", f"{ER}/question", lambda b: put(b, f"{ER}/question", "Locate  alpha."), ()),
        ("REQ-2", "nbsp", f"{ER}/question", lambda b: put(b, f"{ER}/question", "Locate\u00a0alpha."), ()),
        ("REQ-2", "empty", f"{ER}/question", lambda b: put(b, f"{ER}/question", ""), ()),
        ("REQ-2", "too-long", f"{ER}/question", lambda b: put(b, f"{ER}/question", "a" * 4001), ()),
        ("REQ-2", "not-string", f"{ER}/question", lambda b: put(b, f"{ER}/question", 5), ()),
        ("REQ-3", "empty", f"{ER}/seeds", lambda b: put(b, f"{ER}/seeds", []), ()),
        ("REQ-3", "not-array", f"{ER}/seeds", lambda b: put(b, f"{ER}/seeds", {}), ()),
        ("REQ-3", "too-many", f"{ER}/seeds", lambda b: put(b, f"{ER}/seeds", [_seed(k) for k in range(257)]), ()),
        ("REQ-4", "missing-value", f"{ER}/seeds/2", lambda b: drop(b, f"{ER}/seeds/2/value"), ()),
        ("REQ-4", "not-object", f"{ER}/seeds/2", lambda b: put(b, f"{ER}/seeds/2", "seed:path"), ()),
        ("REQ-4", "unknown-member", f"{ER}/seeds/0", lambda b: put(b, f"{ER}/seeds/0/weight", 1), ()),
        ("REQ-5", "non-string-id", f"{ER}/seeds/2/id", lambda b: put(b, f"{ER}/seeds/2/id", 7), ()),
        ("REQ-5", "array-id", f"{ER}/seeds/2/id", lambda b: put(b, f"{ER}/seeds/2/id", ["seed:path"]), ()),
        ("REQ-5", "null-id", f"{ER}/seeds/2/id", lambda b: put(b, f"{ER}/seeds/2/id", None), ()),
        ("REQ-5", "uppercase", f"{ER}/seeds/2/id", lambda b: put(b, f"{ER}/seeds/2/id", "seed:Path"), ()),
        ("REQ-5", "trailing-newline", f"{ER}/seeds/2/id", lambda b: put(b, f"{ER}/seeds/2/id", "seed:path\n"), ()),
        ("REQ-5", "empty-tail", f"{ER}/seeds/2/id", lambda b: put(b, f"{ER}/seeds/2/id", "seed:"), ()),
        ("REQ-5", "first-char-dot", f"{ER}/seeds/2/id", lambda b: put(b, f"{ER}/seeds/2/id", "seed:.x"), ()),
        ("REQ-5", "too-long", f"{ER}/seeds/2/id", lambda b: put(b, f"{ER}/seeds/2/id", "seed:" + "a" * 129), ()),
        ("REQ-5", "non-ascii-digit", f"{ER}/seeds/2/id", lambda b: put(b, f"{ER}/seeds/2/id", "seed:\u0661"), ()),
        ("REQ-6", "unknown-kind", f"{ER}/seeds/2/kind", lambda b: put(b, f"{ER}/seeds/2/kind", "file"), ()),
        ("REQ-6", "kind-bool", f"{ER}/seeds/2/kind", lambda b: put(b, f"{ER}/seeds/2/kind", True), ()),
        ("REQ-7", "home-path", f"{ER}/seeds/1/value", lambda b: put(b, f"{ER}/seeds/1/value", "/home/x"), ()),
        ("REQ-7", "drive-path", f"{ER}/seeds/1/value", lambda b: put(b, f"{ER}/seeds/1/value", "C:\\tmp\\pattern"), ()),
        ("REQ-7", "blank", f"{ER}/seeds/1/value", lambda b: put(b, f"{ER}/seeds/1/value", "\u3000"), ()),
        ("REQ-7", "number", f"{ER}/seeds/1/value", lambda b: put(b, f"{ER}/seeds/1/value", 5), ()),
        ("REQ-7", "too-long", f"{ER}/seeds/1/value", lambda b: put(b, f"{ER}/seeds/1/value", "a" * 4097), ()),
        ("REQ-8", "dot-dot", f"{ER}/seeds/2/value", lambda b: put(b, f"{ER}/seeds/2/value", "../src"), ()),
        ("REQ-8", "trailing-slash", f"{ER}/seeds/2/value", lambda b: put(b, f"{ER}/seeds/2/value", "src/"), ()),
        ("REQ-8", "backslash", f"{ER}/seeds/2/value", lambda b: put(b, f"{ER}/seeds/2/value", "src\\a"), ()),
        ("REQ-9", "double-space", f"{ER}/seeds/0/value", lambda b: put(b, f"{ER}/seeds/0/value", "Java  Script"), ()),
        ("REQ-9", "tab", f"{ER}/seeds/0/value", lambda b: put(b, f"{ER}/seeds/0/value", "Java\tScript"), ()),
        ("REQ-9", "leading-space", f"{ER}/seeds/1/value", lambda b: put(b, f"{ER}/seeds/1/value", " $MATCH"), ()),
        (
            "REQ-10",
            "duplicate-id",
            f"{ER}/seeds/3/id",
            _add_seed({"id": "seed:path", "kind": "path", "value": "lib"}),
            (),
        ),
        ("REQ-11", "empty", f"{ER}/operations", lambda b: put(b, f"{ER}/operations", []), ()),
        ("REQ-11", "not-array", f"{ER}/operations", lambda b: put(b, f"{ER}/operations", "structural_search"), ()),
        (
            "REQ-11",
            "too-many",
            f"{ER}/operations",
            lambda b: put(b, f"{ER}/operations", ["structural_search"] * 17),
            (),
        ),
        ("REQ-11", "unknown", f"{ER}/operations/0", lambda b: put(b, f"{ER}/operations", ["grep"]), ()),
        (
            "REQ-11",
            "non-string",
            f"{ER}/operations/1",
            lambda b: put(b, f"{ER}/operations", ["structural_search", 1]),
            (),
        ),
        (
            "REQ-11",
            "duplicate",
            f"{ER}/operations/1",
            lambda b: put(b, f"{ER}/operations", ["structural_search", "structural_search"]),
            (),
        ),
        ("REQ-12", "unknown-limit", f"{ER}/limits", lambda b: put(b, f"{ER}/limits/maxDepth", 3), ()),
        ("REQ-12", "missing-limit", f"{ER}/limits", lambda b: drop(b, f"{ER}/limits/timeoutMs"), ()),
        ("REQ-12", "not-object", f"{ER}/limits", lambda b: put(b, f"{ER}/limits", [20, 5, 65536, 30000]), ()),
        ("REQ-13", "zero", f"{ER}/limits/maxCandidates", lambda b: put(b, f"{ER}/limits/maxCandidates", 0), ()),
        (
            "REQ-13",
            "true-is-not-1",
            f"{ER}/limits/maxCandidates",
            lambda b: put(b, f"{ER}/limits/maxCandidates", True),
            (),
        ),
        (
            "REQ-13",
            "over-max",
            f"{ER}/limits/maxCandidates",
            lambda b: put(b, f"{ER}/limits/maxCandidates", 10_001),
            (),
        ),
        (
            "REQ-13",
            "per-file-negative",
            f"{ER}/limits/maxCandidatesPerFile",
            lambda b: put(b, f"{ER}/limits/maxCandidatesPerFile", -1),
            (),
        ),
        (
            "REQ-13",
            "bytes-over",
            f"{ER}/limits/maxEvidenceBytes",
            lambda b: put(b, f"{ER}/limits/maxEvidenceBytes", 67_108_865),
            (),
        ),
        ("REQ-13", "timeout-over", f"{ER}/limits/timeoutMs", lambda b: put(b, f"{ER}/limits/timeoutMs", 120_001), ()),
        ("REQ-13", "timeout-string", f"{ER}/limits/timeoutMs", lambda b: put(b, f"{ER}/limits/timeoutMs", "30000"), ()),
        (
            "REQ-14",
            "per-file-over-total",
            f"{ER}/limits/maxCandidatesPerFile",
            lambda b: put(b, f"{ER}/limits/maxCandidatesPerFile", 30),
            (),
        ),
        (
            "REQ-15",
            "two-operations",
            f"{ER}/operations",
            lambda b: put(b, f"{ER}/operations", ["structural_search", "ast_query"]),
            (),
        ),
        ("REQ-15", "other-operation", f"{ER}/operations", lambda b: put(b, f"{ER}/operations", ["ast_query"]), ()),
        ("REQ-16", "language-missing", f"{ER}/seeds", lambda b: put(b, f"{ER}/seeds/0/id", "seed:lang"), ()),
        ("REQ-16", "language-kind-symbol", f"{ER}/seeds/0/kind", lambda b: put(b, f"{ER}/seeds/0/kind", "symbol"), ()),
        ("REQ-17", "pattern-missing", f"{ER}/seeds", lambda b: b[ER]["seeds"].pop(1), ()),
        ("REQ-17", "pattern-kind-path", f"{ER}/seeds/1/kind", lambda b: put(b, f"{ER}/seeds/1/kind", "path"), ()),
        (
            "REQ-18",
            "extra-text-seed",
            f"{ER}/seeds/3/kind",
            _add_seed({"id": "seed:other", "kind": "text", "value": "x"}),
            (),
        ),
        ("REQ-18", "path-seed-as-symbol", f"{ER}/seeds/2/kind", lambda b: put(b, f"{ER}/seeds/2/kind", "symbol"), ()),
    ]
)


@pytest.mark.parametrize(("rule", "where", "mutation", "skip"), REQ_CASES)
def test_rule(rule: str, where: str, mutation: Callable[[Bundle], object], skip: Iterable[str]) -> None:
    assert_fails(mutated(mutation, skip), rule, where)


# ---------------------------------------------------------------- messages


def _error(request: object, *, phase_b: bool = False) -> BundleInvalid:
    with pytest.raises(BundleInvalid) as info:
        checked = check_request(request, "receipt/request")
        if phase_b:
            check_phase_b(checked, "receipt/request")
    return info.value


def test_REQ_5_non_string_seed_id_message() -> None:
    request = make_request()
    request["seeds"][0]["id"] = 2
    err = _error(request)
    assert err.rule == "REQ-5"
    assert str(err) == (
        "REQ-5 at receipt/request/seeds/0/id: expected a string 'seed:' + [a-z0-9] + 0 to 127 of [a-z0-9._-]; found 2"
    )


def test_REQ_1_messages_unknown_then_missing() -> None:
    request = make_request()
    del request["limits"]
    request["extra"] = 1
    err = _error(request)
    assert str(err) == (
        "REQ-1 at receipt/request: expected an object Closed{question, seeds, operations, limits}; "
        "found an unknown member 'extra'"
    )
    del request["extra"]
    assert str(_error(request)).endswith("found no member 'limits'")


def test_REQ_10_names_the_second_occurrence() -> None:
    request = make_request()
    request["seeds"].append({"id": "seed:language", "kind": "text", "value": "TypeScript"})
    assert str(_error(request)) == (
        "REQ-10 at receipt/request/seeds/3/id: expected seed ids pairwise distinct; found a second 'seed:language'"
    )


def test_REQ_16_counts_only_string_ids() -> None:
    request = make_request()
    request["seeds"][0]["id"] = "seed:lang"
    err = _error(request, phase_b=True)
    assert (
        str(err)
        == "REQ-16 at receipt/request/seeds: expected exactly one seed with id 'seed:language'; found 0 such seeds"
    )


def test_per_seed_rules_run_seed_by_seed() -> None:
    request = make_request()
    request["seeds"][0]["value"] = "Java  Script"  # REQ-9 on seed 0
    request["seeds"][1]["id"] = 5  # REQ-5 on seed 1
    assert _error(request).rule == "REQ-9"


def test_REQ_10_after_every_seed() -> None:
    request = make_request()
    request["seeds"].insert(1, {"id": "seed:language", "kind": "text", "value": "x"})  # duplicate id
    request["seeds"][3]["value"] = "../src"  # REQ-8 on a later seed
    assert _error(request).rule == "REQ-8"


# ---------------------------------------------------------------- boundaries that pass


def test_boundaries_pass() -> None:
    request = make_request("q" * 4000)
    request["seeds"] = [
        {"id": "seed:language", "kind": "text", "value": "\U0001f600" * 4096},  # 4096 code points, 16384 bytes
        {"id": "seed:pattern", "kind": "symbol", "value": "a\u0085b"},  # U+0085 is not in W
        {"id": "seed:" + "a" * 128, "kind": "path", "value": "..js"},
        *({"id": f"seed:p{k}", "kind": "path", "value": "src"} for k in range(253)),
    ]
    request["operations"] = ["structural_search", "find_definition", "find_references", "graph_expand", "ast_query"]
    request["limits"] = {
        "maxCandidates": 10_000,
        "maxCandidatesPerFile": 10_000,
        "maxEvidenceBytes": 67_108_864,
        "timeoutMs": 120_000,
    }
    assert len(request["seeds"]) == 256
    assert check_request(request, "expectedRequest") is request


def test_phase_b_accepts_zero_path_seeds() -> None:
    request = make_request()
    del request["seeds"][2]
    check_phase_b(check_request(request, "expectedRequest"), "expectedRequest")


def test_check_request_does_not_mutate() -> None:
    request = make_request()
    before = copy.deepcopy(request)
    check_phase_b(check_request(request, "expectedRequest"), "expectedRequest")
    assert request == before


def test_request_failure_shows_json_spellings() -> None:
    request = make_request()
    request["seeds"] = None
    with pytest.raises(BundleInvalid) as info:
        check_request(request, "expectedRequest")
    assert str(info.value) == "REQ-3 at expectedRequest/seeds: expected an array of 1 to 256 seeds; found null"
    request = make_request()
    request["limits"]["timeoutMs"] = True
    with pytest.raises(BundleInvalid) as info:
        check_request(request, "expectedRequest")
    assert str(info.value).endswith("expected an Int from 1 to 120000; found true")


# ---------------------------------------------------------------- bounds and whole messages (mutation testing)

REQUEST = make_request("Where is the parser?")


def request_failure(check: Callable[[Any, str], object], request: dict[str, Any]) -> str:
    with pytest.raises(BundleInvalid) as caught:
        check(request, "expectedRequest")
    return str(caught.value)


def test_REQ_3_one_seed_is_enough_for_the_request_grammar() -> None:
    request = copy.deepcopy(REQUEST)
    request["seeds"] = request["seeds"][:1]
    assert check_request(request, "expectedRequest") is request
    # … and then Phase B reports the missing pattern seed, not REQ-3.
    assert request_failure(check_phase_b, request) == (
        "REQ-17 at expectedRequest/seeds: expected exactly one seed with id 'seed:pattern'; found 0 such seeds"
    )


def test_REQ_11_sixteen_operations_pass_the_length_bound_and_fail_on_the_repeat() -> None:
    request = copy.deepcopy(REQUEST)
    request["operations"] = ["structural_search"] * 16
    assert request_failure(check_request, request) == (
        "REQ-11 at expectedRequest/operations/1: expected operations pairwise distinct; found a second "
        "'structural_search'"
    )
    request["operations"] = ["structural_search"] * 17
    assert request_failure(check_request, request) == (
        "REQ-11 at expectedRequest/operations: expected an array of 1 to 16 operations; found an array of 17 elements"
    )


def test_REQ_15_four_operations_are_listed_in_full() -> None:
    request = copy.deepcopy(REQUEST)
    request["operations"] = list(OPERATIONS[1:])
    check_request(request, "expectedRequest")
    assert request_failure(check_phase_b, request) == (
        "REQ-15 at expectedRequest/operations: expected exactly ['structural_search']; "
        "found ['find_definition', 'find_references', 'graph_expand', 'ast_query']"
    )


def test_REQ_15_five_operations_are_counted() -> None:
    request = copy.deepcopy(REQUEST)
    request["operations"] = list(OPERATIONS)
    check_request(request, "expectedRequest")
    assert request_failure(check_phase_b, request) == (
        "REQ-15 at expectedRequest/operations: expected exactly ['structural_search']; found an array of 5 elements"
    )


def test_a_location_of_240_characters_is_shown_whole_and_241_cut() -> None:
    with pytest.raises(BundleInvalid) as caught:
        fail("REQ-1", "w" * 240, "x", "y")
    assert caught.value.detail == "at " + "w" * 240 + ": expected x; found y"
    with pytest.raises(BundleInvalid) as caught:
        fail("REQ-1", "w" * 241, "x", "y")
    assert caught.value.detail == "at " + "w" * 239 + "…: expected x; found y"


# ---------------------------------------------------------------- REQ-9: every non-path kind


@pytest.mark.parametrize(
    ("k", "seed"),
    [
        (2, {"id": "seed:sym", "kind": "symbol", "value": "Foo  Bar"}),
        (2, {"id": "seed:sym", "kind": "symbol", "value": " Foo"}),
        (0, {"id": "seed:language", "kind": "symbol", "value": "Java\tScript"}),
        (0, {"id": "seed:language", "kind": "text", "value": "Java  Script"}),
    ],
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


# ---------------------------------------------------------------- whole messages (tests/rules/messages/req.json)

MESSAGES = Snapshot("req")


@pytest.mark.parametrize(("name", "case"), list(bundle_inputs(REQ_CASES)), ids=ids)
def test_bundle_messages(name: str, case: Any) -> None:
    MESSAGES.check(name, bundle_message(*case))


def test_zz_snapshot_covers_every_row() -> None:
    """Runs last: writes the file in write mode, else checks that it holds exactly this family's rows."""
    MESSAGES.finish(name for name, _ in bundle_inputs(REQ_CASES))
