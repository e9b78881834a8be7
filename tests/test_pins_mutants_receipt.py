"""Pins found by mutation testing of the receipt's evidence entries (RCPT-19, RCPT-21, RCPT-23, RCPT-25, RCPT-28).

Valid edge cases the fast paths must not refuse (an empty range, an end at
column 0, a one-byte snippet, an edge that repeats only its path or only its
symbol, a related symbol of exactly 1024 characters), and values of another
JSON type where a rule compares against a set (never a TypeError). SPEC §4.10.
"""

from __future__ import annotations

from typing import Any

import pytest

from ablation.canonical import canonical_digest
from ablation.contracts.sci_receipt import check_receipt
from ablation.errors import BundleInvalid

try:
    from test_sci_receipt import _edge
    from test_structural import build_bundle, make_entry
except ImportError:  # pragma: no cover - importlib import mode
    from tests.test_sci_receipt import _edge
    from tests.test_structural import build_bundle, make_entry

E0 = "receipt/evidence/0"


def receipt_with(entries: list[dict[str, Any]], operations: list[str] | None = None) -> dict[str, Any]:
    """The SPEC §11.1 receipt with these evidence entries (and request operations), digests and summary resealed."""
    receipt: dict[str, Any] = build_bundle()["receipt"]
    if operations is not None:
        receipt["request"]["operations"] = operations
    receipt["evidence"] = entries
    receipt["summary"] = {
        "returnedCount": len(entries),
        "totalObservedCount": len(entries),
        "evidenceBytes": sum(e["byteCount"] for e in entries),
        "capped": False,
        "complete": True,
    }
    receipt["requestDigest"] = canonical_digest(receipt["request"])
    receipt["receiptDigest"] = canonical_digest({k: v for k, v in receipt.items() if k != "receiptDigest"})
    return receipt


def failure(receipt: dict[str, Any]) -> str:
    with pytest.raises(BundleInvalid) as caught:
        check_receipt(receipt)
    return str(caught.value)


GRAPH = ["structural_search", "graph_expand"]


@pytest.mark.parametrize(
    "entry",
    [
        make_entry(range={"start": {"line": 3, "column": 4}, "end": {"line": 3, "column": 4}}),
        make_entry(range={"start": {"line": 0, "column": 0}, "end": {"line": 0, "column": 0}}),
        make_entry(range={"start": {"line": 2, "column": 7}, "end": {"line": 3, "column": 0}}),
        make_entry(snippet="x"),
    ],
    ids=["empty-range", "empty-range-at-origin", "end-at-column-0", "one-byte-snippet"],
)
def test_RCPT_21_RCPT_28_valid_edge_cases_pass(entry: dict[str, Any]) -> None:
    assert check_receipt(receipt_with([entry])).candidate_ids == (entry["id"],)


@pytest.mark.parametrize(
    "entry",
    [_edge(relatedPath="src/alpha.js"), _edge(relatedSymbol="f"), _edge(relatedSymbol="s" * 1024)],
    ids=["same-path-other-symbol", "same-symbol-other-path", "related-symbol-1024"],
)
def test_RCPT_23_edges_that_are_not_self_edges_pass(entry: dict[str, Any]) -> None:
    assert check_receipt(receipt_with([make_entry(), entry], GRAPH)).candidate_ids[1] == entry["id"]


def test_RCPT_23_a_related_symbol_of_1025_characters_is_refused() -> None:
    receipt = receipt_with([make_entry(), _edge(relatedSymbol="s" * 1025)], GRAPH)
    assert failure(receipt) == (
        "RCPT-23 at receipt/evidence/1/identity/relatedSymbol: expected an NBText(1024); found "
        f"'{'s' * 78}… (1025 characters)"
    )


@pytest.mark.parametrize("operation", [[], {}, 1], ids=["array", "object", "number"])
def test_RCPT_25_an_operation_of_another_type_lists_the_request_operations(operation: object) -> None:
    entry = make_entry()
    entry["operation"] = operation
    shown = {"array": "an array of 0 elements", "object": "an object with 0 members", "number": "1"}
    found = shown["array" if operation == [] else "object" if operation == {} else "number"]
    assert failure(receipt_with([entry], GRAPH)) == (
        f"RCPT-25 at {E0}/operation: expected one of the request's operations 'graph_expand', "
        f"'structural_search'; found {found}"
    )


@pytest.mark.parametrize("kind", [[], {"k": 1}], ids=["array", "object"])
def test_RCPT_19_a_kind_of_another_type_is_refused_not_looked_up(kind: object) -> None:
    entry = make_entry()
    entry["identity"]["kind"] = kind
    found = "an array of 0 elements" if kind == [] else "an object with 1 member"
    assert failure(receipt_with([entry])) == (
        f"RCPT-19 at {E0}/identity/kind: expected one of 'match', 'definition', 'reference', 'graph_node', "
        f"'graph_edge'; found {found}"
    )


def _per_file(entries: list[dict[str, Any]], per_file: int) -> dict[str, Any]:
    receipt = receipt_with(entries)
    receipt["request"]["limits"]["maxCandidatesPerFile"] = per_file
    receipt["requestDigest"] = canonical_digest(receipt["request"])
    receipt["receiptDigest"] = canonical_digest({k: v for k, v in receipt.items() if k != "receiptDigest"})
    return receipt


def test_RCPT_37_exactly_max_candidates_per_file_entries_share_a_path() -> None:
    entries = [make_entry("src/alpha.js", line) for line in range(3)]
    assert len(check_receipt(_per_file(entries, 3)).candidate_ids) == 3
    assert failure(_per_file(entries, 2)) == (
        "RCPT-37 at receipt/evidence/0/identity/path: expected at most request limits/maxCandidatesPerFile (2) "
        "entries per path; found 3 entries with path 'src/alpha.js'"
    )


def test_RCPT_37_names_the_first_entry_of_a_path_over_the_limit_not_one_at_it() -> None:
    entries = [make_entry("src/alpha.js", line) for line in range(2)] + [
        make_entry("src/beta.js", line) for line in range(3)
    ]
    assert failure(_per_file(entries, 2)) == (
        "RCPT-37 at receipt/evidence/2/identity/path: expected at most request limits/maxCandidatesPerFile (2) "
        "entries per path; found 3 entries with path 'src/beta.js'"
    )
