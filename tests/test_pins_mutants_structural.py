"""Pins found by mutation testing of the structural bundle rules (SB-7, SB-11, SB-16, SB-17, statistics).

The rule IDs were already asserted; these pin the whole failure text (what was
expected and found, SPEC §2.5) and the related-path count of SPEC §5.2 when
two edges point at one path.
"""

from __future__ import annotations

from typing import Any

import pytest

from ablation.contracts.sci_receipt import check_receipt
from ablation.contracts.structural import check_evidence_paths, check_receipt_binding, path_statistics
from ablation.errors import BundleInvalid

try:
    from test_structural import COMMIT, ITEM_PATHS, _edge, build_bundle, make_entry, mutated, put, validate
except ImportError:  # pragma: no cover - importlib import mode
    from tests.test_structural import COMMIT, ITEM_PATHS, _edge, build_bundle, make_entry, mutated, put, validate


def failure(call: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(BundleInvalid) as caught:
        call(*args, **kwargs)
    return str(caught.value)


def test_SB_7_message_names_the_request_comparison() -> None:
    b = build_bundle()
    assert failure(
        check_receipt_binding, b, check_receipt(b["receipt"]), expected_request_text="{}", repository_commit=COMMIT
    ) == "SB-7 at receipt/request: expected a request canonically equal to expectedRequest; found a different request"


@pytest.mark.parametrize(
    ("member", "value", "message"),
    [
        (
            "backendName",
            "x",
            "SB-11 at expectedProvenance/backendName: expected receipt/backend/name 'ast-grep'; found 'x'",
        ),
        (
            "executableVersion",
            "9",
            "SB-11 at expectedProvenance/executableVersion: expected receipt/backend/executable/version '0.40.5'; "
            "found '9'",
        ),
    ],
)
def test_SB_11_message_names_the_receipt_member(member: str, value: str, message: str) -> None:
    bundle = mutated(lambda b: put(b, f"expectedProvenance/{member}", value))
    assert failure(validate, bundle) == message


def test_SB_16_message_shows_the_path_and_the_symbol() -> None:
    evidence = [make_entry(), _edge("src/graph.js", "walk", "src/graph.js", "walk")]
    assert failure(check_evidence_paths, evidence, ITEM_PATHS) == (
        "SB-16 at receipt/evidence/1/identity: expected a graph_edge that is not a self-edge; "
        "found path and relatedPath 'src/graph.js', symbol and relatedSymbol 'walk'"
    )


def test_SB_17_message_shows_the_related_path() -> None:
    assert failure(check_evidence_paths, [_edge("src/graph.js", "f", "src/missing.js", "g")], ITEM_PATHS) == (
        "SB-17 at receipt/evidence/0/identity/relatedPath: expected the path of an item of the repository; "
        "found 'src/missing.js'"
    )


def test_two_edges_into_one_path_count_two_related() -> None:
    statistics = path_statistics([_edge("src/a.js", "f", "src/graph.js", "g"), _edge("src/b.js", "f", "src/graph.js", "g")])
    assert dict(statistics) == {
        "src/a.js": (1, 0, 0, 0, 0, 0, 1),
        "src/b.js": (1, 0, 0, 0, 0, 0, 1),
        "src/graph.js": (0, 2, 0, 0, 0, 0, 0),
    }
