"""The evidence entries of an SCI receipt (RCPT-17 … RCPT-30).

Root: ``/cases/{c}/structuralEvidence/receipt/evidence``. RCPT-17 checks the
array, RCPT-18 … RCPT-29 run entry by entry (each entry's rules in numeric
order, its identity's first), and RCPT-30 runs once every entry has passed
them. Each entry is checked in constant time: one canonical digest of its
identity, member names below it joined by plain concatenation and only on
failure.

Spec: SPEC.md §4.10, §4.12 step 4, §9.3, §9.11.
"""

from __future__ import annotations

from ablation.canonical import canon, raw_digest
from ablation.contracts.base import Shape, child, fail, is_int, same, show
from ablation.contracts.sci_request import OPERATIONS
from ablation.text import is_nbtext, is_safe_path

__all__ = ["EDGE_TYPES", "IDENTITY_KINDS", "MAX_EVIDENCE", "OPERATION_KINDS", "check_evidence"]

#: Evidence identity kinds (RCPT-19), in the spec's listing order.
IDENTITY_KINDS = ("match", "definition", "reference", "graph_node", "graph_edge")
EDGE_TYPES = ("import", "export", "caller", "callee", "semantic")
#: RCPT-26: the identity kinds each operation may produce.
OPERATION_KINDS: dict[str, frozenset[str]] = {
    "structural_search": frozenset({"match"}),
    "ast_query": frozenset({"match"}),
    "find_definition": frozenset({"definition"}),
    "find_references": frozenset({"reference"}),
    "graph_expand": frozenset({"graph_node", "graph_edge"}),
}
MAX_EVIDENCE = 10_000

_ENTRY = Shape(("id", "identity", "operation", "snippet", "byteCount", "provenance"))
_IDENTITY: dict[str, Shape] = {
    "match": Shape(("path", "kind", "range")),
    "definition": Shape(("path", "kind", "range", "symbol")),
    "reference": Shape(("path", "kind", "range", "symbol")),
    "graph_node": Shape(("path", "kind", "symbol", "range"), optional=("range",)),
    "graph_edge": Shape(("path", "kind", "symbol", "relatedPath", "relatedSymbol", "edgeType")),
}
_RANGE = Shape(("start", "end"))
_POSITION = Shape(("line", "column"))
_PROVENANCE = Shape(("backend", "workflow"))

_OPERATION_SET = frozenset(OPERATIONS)
_EDGE_TYPE_SET = frozenset(EDGE_TYPES)


def check_evidence(
    value: object,
    where: str,
    request: dict[str, object],
    backend_name: object,
    workflow: object,
) -> tuple[str, ...]:
    """RCPT-17, then RCPT-18 … RCPT-29 entry by entry, then RCPT-30.

    Args:
        value: the parsed ``evidence`` member of the receipt.
        where: its pointer relative to the bundle.
        request: the receipt's request, already checked (REQ-1 … REQ-14).
        backend_name: ``backend.name`` of the receipt (RCPT-29).
        workflow: ``producer.workflow`` of the receipt (RCPT-29).

    Returns:
        The evidence ids in evidence order.

    Raises:
        BundleInvalid: RCPT-17 … RCPT-30.
    """
    if not isinstance(value, list) or len(value) > MAX_EVIDENCE:
        fail("RCPT-17", where, f"an array of at most {MAX_EVIDENCE} entries", show(value))
    requested = request["operations"]
    assert isinstance(requested, list)  # REQ-11
    operations: frozenset[object] = frozenset(requested)
    ids = tuple(
        _check_entry(entry, f"{where}/{e}", operations, backend_name, workflow) for e, entry in enumerate(value)
    )
    if len(set(ids)) != len(ids):
        seen: set[str] = set()
        for e, candidate_id in enumerate(ids):
            if candidate_id in seen:
                fail(
                    "RCPT-30",
                    child(child(where, e), "id"),
                    "evidence ids pairwise distinct",
                    f"a second {candidate_id!r}",
                )
            seen.add(candidate_id)
    return ids


def _check_entry(  # one rule per branch, in numeric order
    entry: object,
    where: str,
    operations: frozenset[object],
    backend_name: object,
    workflow: object,
) -> str:
    """RCPT-18 … RCPT-29 on one evidence entry; return its id.

    ``where`` is the entry's pointer; member names below it are fixed ASCII
    names, so locations are formed by plain concatenation, and only on failure.
    """
    if not _ENTRY.fits(entry):
        _ENTRY.check("RCPT-18", entry, where)
    e: dict[str, object] = entry  # type: ignore[assignment]  # _ENTRY.check raises unless entry is an object
    identity = e["identity"]
    kind = _check_identity(identity, where)
    candidate_id = "candidate:" + raw_digest(canon(identity))
    if e["id"] != candidate_id or type(e["id"]) is not str:
        fail("RCPT-24", f"{where}/id", f"'candidate:' + D(identity) = {candidate_id!r}", show(e["id"]))
    operation = e["operation"]
    if type(operation) is not str or operation not in _OPERATION_SET or operation not in operations:
        fail(
            "RCPT-25",
            f"{where}/operation",
            "one of the request's operations " + ", ".join(sorted(map(repr, operations))),
            show(operation),
        )
    if kind not in OPERATION_KINDS[operation]:
        fail("RCPT-26", f"{where}/operation", f"an operation compatible with identity kind {kind!r}", show(operation))
    snippet = e["snippet"]
    if not is_nbtext(snippet, 20_000):
        fail("RCPT-27", f"{where}/snippet", "an NBText(20000)", show(snippet))
    assert isinstance(snippet, str)  # NBText
    size = len(snippet) if snippet.isascii() else len(snippet.encode("utf-8"))
    byte_count = e["byteCount"]
    if type(byte_count) is not int or byte_count != size or size <= 0:
        fail("RCPT-28", f"{where}/byteCount", f"the UTF-8 byte length of snippet ({size}), > 0", show(byte_count))
    _check_provenance(e["provenance"], where, backend_name, workflow)
    return candidate_id


def _check_identity(identity: object, where: str) -> object:
    """RCPT-19 … RCPT-23 on the ``identity`` of the entry at ``where``; return its kind."""
    if type(identity) is not dict:
        fail("RCPT-19", f"{where}/identity", "an object with a kind", show(identity))
    kind = identity.get("kind")
    shape = _IDENTITY.get(kind) if isinstance(kind, str) else None
    if shape is None:
        fail(
            "RCPT-19",
            f"{where}/identity/kind",
            "one of " + ", ".join(map(repr, IDENTITY_KINDS)),
            show(kind) if "kind" in identity else "no member 'kind'",
        )
    if not shape.fits(identity):
        shape.check("RCPT-19", identity, f"{where}/identity")
    path = identity["path"]
    if not is_safe_path(path):
        fail("RCPT-20", f"{where}/identity/path", "a SafePath", show(path))
    if "range" in identity:
        _check_range(identity["range"], f"{where}/identity/range")
    if "symbol" in identity and not is_nbtext(identity["symbol"], 1024):
        fail("RCPT-22", f"{where}/identity/symbol", "an NBText(1024)", show(identity["symbol"]))
    if kind == "graph_edge":
        _check_edge(identity, f"{where}/identity")
    return kind


def _check_range(value: object, where: str) -> None:
    """RCPT-21 on one ``identity/range`` (a fast path for the valid shape, messages on the slow one)."""
    if _RANGE.fits(value):
        start, end = value["start"], value["end"]  # type: ignore[index]  # _RANGE.fits: an object with these members
        if _POSITION.fits(start) and _POSITION.fits(end):
            a, b, c, d = start["line"], start["column"], end["line"], end["column"]
            if (
                type(a) is int
                and type(b) is int
                and type(c) is int
                and type(d) is int
                and a >= 0
                and b >= 0
                and (c, d) >= (a, b)
                and d >= 0
            ):
                return
    rng = _RANGE.check("RCPT-21", value, where)
    points: list[tuple[int, int]] = []
    for end_name in ("start", "end"):
        end_where = child(where, end_name)
        position = _POSITION.check("RCPT-21", rng[end_name], end_where)
        line, column = position["line"], position["column"]
        for name, v in (("line", line), ("column", column)):
            if not is_int(v) or v < 0:
                fail("RCPT-21", child(end_where, name), "an Int >= 0", show(v))
        points.append((line, column))  # type: ignore[arg-type]  # both checked as Int above (fail raises)
    fail("RCPT-21", where, "end >= start (line, then column)", f"start {points[0]} and end {points[1]}")


def _check_edge(identity: dict[str, object], where: str) -> None:
    """RCPT-23 on a ``graph_edge`` identity."""
    related_path = identity["relatedPath"]
    if not is_safe_path(related_path):
        fail("RCPT-23", child(where, "relatedPath"), "a SafePath", show(related_path))
    related_symbol = identity["relatedSymbol"]
    if not is_nbtext(related_symbol, 1024):
        fail("RCPT-23", child(where, "relatedSymbol"), "an NBText(1024)", show(related_symbol))
    if related_path == identity["path"] and related_symbol == identity["symbol"]:
        fail("RCPT-23", where, "not a self-edge (path and symbol ≡ relatedPath and relatedSymbol)", show(related_path))
    edge_type = identity["edgeType"]
    if not isinstance(edge_type, str) or edge_type not in _EDGE_TYPE_SET:
        fail("RCPT-23", child(where, "edgeType"), "one of " + ", ".join(map(repr, EDGE_TYPES)), show(edge_type))


def _check_provenance(provenance: object, where: str, backend_name: object, workflow: object) -> None:
    """RCPT-29 on the ``provenance`` of the entry at ``where``: the receipt's backend name and workflow."""
    if not _PROVENANCE.fits(provenance):
        _PROVENANCE.check("RCPT-29", provenance, f"{where}/provenance")
    if not same(provenance["backend"], backend_name):  # type: ignore[index]  # _PROVENANCE.check raises unless it is an object
        fail("RCPT-29", f"{where}/provenance/backend", f"backend.name {backend_name!r}", show(provenance["backend"]))  # type: ignore[index]  # _PROVENANCE.check raises unless it is an object
    if not same(provenance["workflow"], workflow):  # type: ignore[index]  # _PROVENANCE.check raises unless it is an object
        fail(
            "RCPT-29",
            f"{where}/provenance/workflow",
            f"producer.workflow {workflow!r}",
            show(provenance["workflow"]),  # type: ignore[index]  # _PROVENANCE.check raises unless it is an object
        )
