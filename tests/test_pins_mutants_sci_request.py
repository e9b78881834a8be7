"""Pins found by mutation testing of the SCI request grammar (REQ-3, REQ-11, REQ-15, the location bound).

Each test names the rule whose bound or message it pins; the values are the
ones at the edge (one seed, sixteen operations, four and five operations,
a location of 240 and 241 characters). SPEC.md §4.9, §2.5.
"""

from __future__ import annotations

import copy

import pytest

from ablation.contracts.sci_request import OPERATIONS, check_phase_b, check_request, fail
from ablation.errors import BundleInvalid

try:
    from test_structural import make_request
except ImportError:  # pragma: no cover - importlib import mode
    from tests.test_structural import make_request

REQUEST = make_request("Where is the parser?")


def failure(check, request: dict[str, object]) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(BundleInvalid) as caught:
        check(request, "expectedRequest")
    return str(caught.value)


def test_REQ_3_one_seed_is_enough_for_the_request_grammar() -> None:
    request = copy.deepcopy(REQUEST)
    request["seeds"] = request["seeds"][:1]  # type: ignore[index]
    assert check_request(request, "expectedRequest") is request
    # … and then Phase B reports the missing pattern seed, not REQ-3.
    assert failure(check_phase_b, request) == (
        "REQ-17 at expectedRequest/seeds: expected exactly one seed with id 'seed:pattern'; found 0 such seeds"
    )


def test_REQ_11_sixteen_operations_pass_the_length_bound_and_fail_on_the_repeat() -> None:
    request = copy.deepcopy(REQUEST)
    request["operations"] = ["structural_search"] * 16
    assert failure(check_request, request) == (
        "REQ-11 at expectedRequest/operations/1: expected operations pairwise distinct; found a second "
        "'structural_search'"
    )
    request["operations"] = ["structural_search"] * 17
    assert failure(check_request, request) == (
        "REQ-11 at expectedRequest/operations: expected an array of 1 to 16 operations; found an array of 17 elements"
    )


def test_REQ_15_four_operations_are_listed_in_full() -> None:
    request = copy.deepcopy(REQUEST)
    request["operations"] = list(OPERATIONS[1:])
    check_request(request, "expectedRequest")
    assert failure(check_phase_b, request) == (
        "REQ-15 at expectedRequest/operations: expected exactly ['structural_search']; "
        "found ['find_definition', 'find_references', 'graph_expand', 'ast_query']"
    )


def test_REQ_15_five_operations_are_counted() -> None:
    request = copy.deepcopy(REQUEST)
    request["operations"] = list(OPERATIONS)
    check_request(request, "expectedRequest")
    assert failure(check_phase_b, request) == (
        "REQ-15 at expectedRequest/operations: expected exactly ['structural_search']; found an array of 5 elements"
    )


def test_a_location_of_240_characters_is_shown_whole_and_241_cut() -> None:
    with pytest.raises(BundleInvalid) as caught:
        fail("REQ-1", "w" * 240, "x", "y")
    assert caught.value.detail == "at " + "w" * 240 + ": expected x; found y"
    with pytest.raises(BundleInvalid) as caught:
        fail("REQ-1", "w" * 241, "x", "y")
    assert caught.value.detail == "at " + "w" * 239 + "…: expected x; found y"
