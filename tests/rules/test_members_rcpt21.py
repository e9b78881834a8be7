"""RCPT-21, every member of the evidence range rule, on both of its paths (issue 25).

RCPT-21: ``identity/range`` (when present) is ``Closed{start, end}``; start
and end are each ``Closed{line, column}`` with both an ``Int`` >= 0; and
(end.line, end.column) >= (start.line, start.column) lexicographically.

``receipt_evidence._check_range`` has two paths. The fast path accepts a
valid range with one test per component (an exact ``int`` type, >= 0, the
order); whatever it does not accept goes to the general path, which finds
the first violated member and words the message. So every invalid range
below breaks exactly one condition of the fast path (a fast path without
that condition would accept it), and its whole message pins the member the
general path names. The valid ranges pin the other side: bounds at 0 and at
2^53 - 1, equal ends, and the lexicographic order (a later line may end at a
smaller column).

Spec: SPEC.md §4.10 (RCPT-21), §4.12 step 4, §9.3 (a boolean is never an Int).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.rules.members_support import bundle_failure, entry, span, validate, with_evidence

E0 = "receipt/evidence/0/identity/range"
MAX = 9_007_199_254_740_991


def _fails(rng: Any, where: str, expected: str, found: str, *, kind: str = "match") -> None:
    operation = {"match": "structural_search", "definition": "find_definition", "reference": "find_references"}
    e = entry(kind, operation.get(kind, "graph_expand"))
    e["identity"]["range"] = rng  # with_evidence recomputes the id (RCPT-24 comes after RCPT-21 anyway)
    b = with_evidence([e])
    assert bundle_failure(b) == f"RCPT-21 at {where}: expected {expected}; found {found}"


# ---------------------------------------------------------------- valid ranges (the fast path accepts them)


@pytest.mark.parametrize(
    "rng",
    [
        span(0, 0, 0, 0),
        span(0, 0, 0, 5),
        span(3, 7, 3, 7),
        span(0, 9, 1, 0),
        span(2, 40, 5, 1),
        span(0, 0, MAX, MAX),
        span(MAX, MAX, MAX, MAX),
        span(MAX - 1, MAX, MAX, 0),
    ],
    ids=[
        "zero",
        "same-line",
        "empty-at-3-7",
        "next-line-smaller-column",
        "later-line-smaller-column",
        "max-end",
        "max-both",
        "max-line-step",
    ],
)
def test_valid_ranges_pass(rng: Any) -> None:
    """Valid ranges at the bounds and in lexicographic order pass RCPT-21 and the whole bundle."""
    validate(with_evidence([entry(rng=rng)]))


# ---------------------------------------------------------------- each number: an Int (never a boolean) >= 0


MEMBERS = [("start", "line"), ("start", "column"), ("end", "line"), ("end", "column")]


def _with(end: str, name: str, value: object) -> Any:
    rng = span(0, 0, 1, 5)
    rng[end][name] = value
    return rng


@pytest.mark.parametrize(("end", "name"), MEMBERS, ids=[f"{e}.{n}" for e, n in MEMBERS])
@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (-1, "-1"),
        (-MAX, f"-{MAX}"),
        (False, "false"),
        (True, "true"),
        ("0", "'0'"),
        (None, "null"),
        ([0], "an array of 1 element"),
    ],
    ids=["minus-1", "minus-max", "false", "true", "string", "null", "array"],
)
def test_each_number_is_an_int_of_at_least_0(end: str, name: str, value: object, shown: str) -> None:
    """Each of the four numbers alone: negative, boolean, string, null or array fails at its pointer."""
    _fails(_with(end, name, value), f"{E0}/{end}/{name}", "an Int >= 0", shown)


def test_end_line_minus_1_is_named_before_the_order() -> None:
    """end.line -1 also puts end before start; the member is reported, not the order."""
    _fails(span(0, 0, -1, 5), f"{E0}/end/line", "an Int >= 0", "-1")


def test_the_first_bad_number_is_reported() -> None:
    """Several bad numbers: the first in start, end / line, column order is named."""
    _fails(span(0, -1, -1, -1), f"{E0}/start/column", "an Int >= 0", "-1")
    _fails(span(0, 0, 1, True), f"{E0}/end/column", "an Int >= 0", "true")


# ---------------------------------------------------------------- the order: line first, then column


@pytest.mark.parametrize(
    ("rng", "points"),
    [
        (span(0, 6, 0, 5), "(0, 6) and end (0, 5)"),
        (span(3, 0, 2, 9), "(3, 0) and end (2, 9)"),
        (span(1, 0, 0, 0), "(1, 0) and end (0, 0)"),
        (span(MAX, 0, MAX - 1, MAX), f"({MAX}, 0) and end ({MAX - 1}, {MAX})"),
        (span(5, 5, 5, 4), "(5, 5) and end (5, 4)"),
    ],
    ids=["same-line-column-back", "line-back-column-forward", "line-back", "max", "one-column-back"],
)
def test_end_before_start_fails(rng: Any, points: str) -> None:
    """end before start, by line or by column on the same line, fails at the range."""
    _fails(rng, E0, "end >= start (line, then column)", f"start {points}")


# ---------------------------------------------------------------- closed objects at each level


@pytest.mark.parametrize(
    ("change", "where", "expected", "found"),
    [
        (lambda r: None, E0, "an object Closed{start, end}", "null"),
        (lambda r: [r["start"], r["end"]], E0, "an object Closed{start, end}", "an array of 2 elements"),
        (lambda r: {"start": r["start"]}, E0, "an object Closed{start, end}", "no member 'end'"),
        (lambda r: {"end": r["end"]}, E0, "an object Closed{start, end}", "no member 'start'"),
        (lambda r: r | {"length": 5}, E0, "an object Closed{start, end}", "an unknown member 'length'"),
        (lambda r: r | {"start": None}, f"{E0}/start", "an object Closed{line, column}", "null"),
        (lambda r: r | {"end": 0}, f"{E0}/end", "an object Closed{line, column}", "0"),
        (lambda r: r | {"start": {"line": 0}}, f"{E0}/start", "an object Closed{line, column}", "no member 'column'"),
        (lambda r: r | {"end": {"column": 5}}, f"{E0}/end", "an object Closed{line, column}", "no member 'line'"),
        (
            lambda r: r | {"start": r["start"] | {"offset": 0}},
            f"{E0}/start",
            "an object Closed{line, column}",
            "an unknown member 'offset'",
        ),
        (
            lambda r: r | {"end": r["end"] | {"offset": 5}},
            f"{E0}/end",
            "an object Closed{line, column}",
            "an unknown member 'offset'",
        ),
    ],
    ids=[
        "null",
        "array",
        "no-end",
        "no-start",
        "extra",
        "start-null",
        "end-number",
        "start-no-column",
        "end-no-line",
        "start-extra",
        "end-extra",
    ],
)
def test_each_level_is_a_closed_object(change: Any, where: str, expected: str, found: str) -> None:
    """range, start and end are each Closed: not an object, a member missing or one too many."""
    _fails(change(span(0, 0, 0, 5)), where, expected, found)


# ---------------------------------------------------------------- every identity kind that carries a range


@pytest.mark.parametrize("kind", ["match", "definition", "reference", "graph_node"])
def test_the_range_of_every_kind_is_checked(kind: str) -> None:
    """The range of match, definition, reference and graph_node identities is checked alike."""
    _fails(span(2, 0, 1, 0), E0, "end >= start (line, then column)", "start (2, 0) and end (1, 0)", kind=kind)
    _fails(span(0, 0, 0, -1), f"{E0}/end/column", "an Int >= 0", "-1", kind=kind)


def test_a_graph_node_without_range_passes_RCPT_21() -> None:
    """The range is optional for graph_node: RCPT-21 is not applied, RCPT-25 (not requested) fails next."""
    b = with_evidence([entry("graph_node", "graph_expand")])
    assert bundle_failure(b).startswith("RCPT-25 at receipt/evidence/0/operation: ")


# ---------------------------------------------------------------- every evidence entry, the last one included


@pytest.mark.parametrize("bad", [0, 1, 4], ids=["first", "middle", "last"])
def test_the_range_of_every_entry_is_checked(bad: int) -> None:
    """Five evidence entries, one bad range: first, middle or last, each reported at its index."""
    entries = [
        entry(path=path) for path in ("src/alpha.js", "src/beta.js", "src/cache.js", "src/graph.js", "src/zeta.js")
    ]
    entries[bad] = entry(path=entries[bad]["identity"]["path"], rng=span(0, 3, 0, 2))
    b = with_evidence(entries)
    assert bundle_failure(b) == (
        f"RCPT-21 at receipt/evidence/{bad}/identity/range: expected end >= start (line, then column); "
        "found start (0, 3) and end (0, 2)"
    )
