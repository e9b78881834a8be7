"""RCPT-26, every operation/kind pair of SPEC's table (issue 25).

RCPT-26: an evidence entry's ``operation`` and ``identity/kind`` are
compatible: ``structural_search`` → match; ``ast_query`` → match;
``find_definition`` → definition; ``find_references`` → reference;
``graph_expand`` → graph_node or graph_edge. All 25 pairs of the five
operations and five kinds are pinned: the 19 incompatible ones fail RCPT-26
with its whole message; the 6 compatible ones pass every RCPT rule, and the
bundle then fails where Phase-B first says no (REQ-15 on ``receipt/request``,
SB-6), or is valid for ``structural_search`` → match. The receipt's request
lists the entry's operation (RCPT-25 holds); a second set of tests lists all
five operations, so that an incompatible pair cannot hide behind RCPT-25.

Spec: SPEC.md §4.10 (RCPT-25, RCPT-26), §4.12 steps 4–5, §4.9 (REQ-15).
"""

from __future__ import annotations

import pytest

from tests.rules.members_support import bundle_failure, entry, validate, with_evidence

OPERATIONS = ("structural_search", "ast_query", "find_definition", "find_references", "graph_expand")
KINDS = ("match", "definition", "reference", "graph_node", "graph_edge")
#: SPEC §4.10 RCPT-26, written out.
COMPATIBLE = {
    ("structural_search", "match"),
    ("ast_query", "match"),
    ("find_definition", "definition"),
    ("find_references", "reference"),
    ("graph_expand", "graph_node"),
    ("graph_expand", "graph_edge"),
}
PAIRS = [(operation, kind) for operation in OPERATIONS for kind in KINDS]
REQ_15 = "REQ-15 at receipt/request/operations: expected exactly ['structural_search']; found {found}"


def _incompatible(e: int, operation: str, kind: str) -> str:
    return (
        f"RCPT-26 at receipt/evidence/{e}/operation: expected an operation compatible with identity kind {kind!r}; "
        f"found {operation!r}"
    )


@pytest.mark.parametrize(("operation", "kind"), PAIRS, ids=[f"{o}-{k}" for o, k in PAIRS])
def test_every_pair_of_the_table(operation: str, kind: str) -> None:
    """Each of the 25 operation/kind pairs, the operation requested alone."""
    b = with_evidence([entry(kind, operation)], operations=[operation])
    if (operation, kind) not in COMPATIBLE:
        assert bundle_failure(b) == _incompatible(0, operation, kind)
    elif operation == "structural_search":
        assert validate(b).candidate_ids == (b["receipt"]["evidence"][0]["id"],)
    else:  # every RCPT rule passed; Phase-B on the receipt's request (SB-6) is the first to fail
        assert bundle_failure(b) == REQ_15.format(found=f"[{operation!r}]")


@pytest.mark.parametrize(("operation", "kind"), PAIRS, ids=[f"{o}-{k}" for o, k in PAIRS])
def test_every_pair_with_every_operation_requested(operation: str, kind: str) -> None:
    """Each of the 25 pairs with all five operations requested (RCPT-25 holds for every one)."""
    b = with_evidence([entry(kind, operation)], operations=list(OPERATIONS))
    if (operation, kind) not in COMPATIBLE:
        assert bundle_failure(b) == _incompatible(0, operation, kind)
    else:
        assert bundle_failure(b) == REQ_15.format(found="an array of 5 elements")


@pytest.mark.parametrize("operation", OPERATIONS)
def test_only_the_last_entry_incompatible(operation: str) -> None:
    """One compatible entry per pair of the table, then one incompatible entry of ``operation``, last."""
    good = [entry(kind, op, path=f"src/{n}.js") for n, (op, kind) in enumerate(sorted(COMPATIBLE))]
    wrong_kind = next(kind for kind in KINDS if (operation, kind) not in COMPATIBLE)
    b = with_evidence([*good, entry(wrong_kind, operation, path="src/last.js")], operations=list(OPERATIONS))
    assert bundle_failure(b) == _incompatible(len(good), operation, wrong_kind)


def test_every_compatible_pair_in_one_receipt_passes_RCPT_26() -> None:
    """The six compatible pairs together in one receipt pass every RCPT rule."""
    good = [entry(kind, op, path=f"src/{n}.js") for n, (op, kind) in enumerate(sorted(COMPATIBLE))]
    b = with_evidence(good, operations=list(OPERATIONS))
    assert bundle_failure(b) == REQ_15.format(found="an array of 5 elements")
