"""The SCI request grammar (REQ-1 … REQ-18), checked where a bundle holds a request.

A request appears twice in a structural bundle: as ``expectedRequest`` (all of
REQ-1 … REQ-18, through SB-2) and as ``receipt/request`` (REQ-1 … REQ-14
through RCPT-3, REQ-15 … REQ-18 through SB-6). The checks here take the
location of the request as a pointer relative to
``/cases/{c}/structuralEvidence`` (``"expectedRequest"`` or
``"receipt/request"``), so the failure names where it was found.

Every failure is a :class:`~ablation.errors.BundleInvalid` raised by
:func:`~ablation.contracts.base.fail`, whose detail reads
``at <where>: expected <expected>; found <found>`` (one line).

Spec: SPEC.md §4.0 (predicates, ≡), §4.9 (REQ), §4.12 (order), §9.3, §9.11.
"""

from __future__ import annotations

import re

from ablation.contracts.base import SHOW_LIMIT as _SHOW_LIMIT
from ablation.contracts.base import Shape, fail, is_int, same, show
from ablation.strictjson import child
from ablation.text import is_nbtext, is_normalized, is_portable, is_safe_path

__all__ = [
    "LIMIT_MAXIMA",
    "OPERATIONS",
    "SEED_KINDS",
    "check_phase_b",
    "check_request",
]

#: The five SCI operations (REQ-11, RCPT-25), in the order of the spec.
OPERATIONS = ("structural_search", "find_definition", "find_references", "graph_expand", "ast_query")
#: Seed kinds (REQ-6).
SEED_KINDS = ("path", "symbol", "text")
#: Upper bound of every ``limits`` member (REQ-13), in the order of REQ-12.
LIMIT_MAXIMA: dict[str, int] = {
    "maxCandidates": 10_000,
    "maxCandidatesPerFile": 10_000,
    "maxEvidenceBytes": 67_108_864,
    "timeoutMs": 120_000,
}

_OPERATION_SET = frozenset(OPERATIONS)
_SEED_KIND_SET = frozenset(SEED_KINDS)
_SEED_ID = re.compile(r"seed:[a-z0-9][a-z0-9._-]{0,127}")

# ------------------------------------------------------------------ REQ-1 … REQ-14

_REQUEST = Shape(("question", "seeds", "operations", "limits"))
_SEED = Shape(("id", "kind", "value"))
_LIMITS = Shape(tuple(LIMIT_MAXIMA))


def _check_seed(seed: object, where: str) -> str:
    """REQ-4 … REQ-9 for one seed, in numeric order; return its id."""
    seed = _SEED.check("REQ-4", seed, where)
    seed_id = seed["id"]
    if not isinstance(seed_id, str) or _SEED_ID.fullmatch(seed_id) is None:
        fail(
            "REQ-5",
            child(where, "id"),
            "a string 'seed:' + [a-z0-9] + 0 to 127 of [a-z0-9._-]",
            show(seed_id),
        )
    kind = seed["kind"]
    if not isinstance(kind, str) or kind not in _SEED_KIND_SET:
        fail("REQ-6", child(where, "kind"), "one of 'path', 'symbol', 'text'", show(kind))
    value = seed["value"]
    if not (is_nbtext(value, 4096) and is_portable(value)):
        fail("REQ-7", child(where, "value"), "a Portable NBText(4096)", show(value))
    if kind == "path":
        if not is_safe_path(value):
            fail("REQ-8", child(where, "value"), "a SafePath (kind 'path')", show(value))
    elif not is_normalized(value):
        fail("REQ-9", child(where, "value"), f"a Normalized value (kind {kind!r})", show(value))
    return seed_id


def check_request(request: object, where: str) -> dict[str, object]:
    """Check REQ-1 … REQ-14 on one SCI request, in the order of SPEC §4.12.

    Per-seed rules (REQ-4 … REQ-9) run seed by seed, each seed's rules in
    numeric order; REQ-10 runs after every seed has passed them.

    Args:
        request: the parsed value at ``where``.
        where: ``"expectedRequest"`` or ``"receipt/request"``.

    Returns:
        The request, known to be an object satisfying REQ-1 … REQ-14.

    Raises:
        BundleInvalid: REQ-1 … REQ-14.

    Spec: SPEC.md §4.9.
    """
    req = _REQUEST.check("REQ-1", request, where)
    question = req["question"]
    if not (is_nbtext(question, 4000) and is_normalized(question) and is_portable(question)):
        fail("REQ-2", child(where, "question"), "a Normalized, Portable NBText(4000)", show(question))
    seeds = req["seeds"]
    seeds_where = child(where, "seeds")
    if not isinstance(seeds, list) or not 1 <= len(seeds) <= 256:
        fail("REQ-3", seeds_where, "an array of 1 to 256 seeds", show(seeds))
    ids = [_check_seed(seed, child(seeds_where, k)) for k, seed in enumerate(seeds)]
    if len(set(ids)) != len(ids):
        seen: set[str] = set()
        for k, seed_id in enumerate(ids):
            if seed_id in seen:
                fail(
                    "REQ-10", child(child(seeds_where, k), "id"), "seed ids pairwise distinct", f"a second {seed_id!r}"
                )
            seen.add(seed_id)
    _check_operations(req["operations"], child(where, "operations"))
    limits = _LIMITS.check("REQ-12", req["limits"], child(where, "limits"))
    for name, maximum in LIMIT_MAXIMA.items():
        value = limits[name]
        if not is_int(value) or not 1 <= value <= maximum:
            fail("REQ-13", child(child(where, "limits"), name), f"an Int from 1 to {maximum}", show(value))
    per_file, overall = limits["maxCandidatesPerFile"], limits["maxCandidates"]
    if per_file > overall:  # type: ignore[operator]  # both checked as Int by REQ-13 (fail raises)
        fail(
            "REQ-14",
            child(child(where, "limits"), "maxCandidatesPerFile"),
            f"at most maxCandidates ({overall})",
            show(per_file),
        )
    return req


def _check_operations(operations: object, where: str) -> None:
    """REQ-11: an array of 1 to 16 distinct known operations."""
    if not isinstance(operations, list) or not 1 <= len(operations) <= 16:
        fail("REQ-11", where, "an array of 1 to 16 operations", show(operations))
    seen: set[str] = set()
    for k, op in enumerate(operations):
        if not isinstance(op, str) or op not in _OPERATION_SET:
            fail("REQ-11", child(where, k), "one of " + ", ".join(repr(o) for o in OPERATIONS), show(op))
        if op in seen:
            fail("REQ-11", child(where, k), "operations pairwise distinct", f"a second {op!r}")
        seen.add(op)


# ------------------------------------------------------------------ REQ-15 … REQ-18


def check_phase_b(request: dict[str, object], where: str) -> None:
    """Check the Phase-B grammar REQ-15 … REQ-18 on a request that satisfies REQ-1 … REQ-14.

    Args:
        request: a request already checked by :func:`check_request`.
        where: ``"expectedRequest"`` or ``"receipt/request"``.

    Raises:
        BundleInvalid: REQ-15 … REQ-18.

    Spec: SPEC.md §4.9.
    """
    operations = request["operations"]
    if not (isinstance(operations, list) and len(operations) == 1 and same(operations[0], "structural_search")):
        fail("REQ-15", child(where, "operations"), "exactly ['structural_search']", _show_list(operations))
    seeds = request["seeds"]
    assert isinstance(seeds, list)
    seeds_where = child(where, "seeds")
    for rule, wanted in (("REQ-16", "seed:language"), ("REQ-17", "seed:pattern")):
        matches = [k for k, seed in enumerate(seeds) if same(seed["id"], wanted)]
        if len(matches) != 1:
            fail(rule, seeds_where, f"exactly one seed with id {wanted!r}", f"{len(matches)} such seeds")
        kind = seeds[matches[0]]["kind"]
        if not same(kind, "text"):
            fail(rule, child(child(seeds_where, matches[0]), "kind"), f"'text' (seed {wanted!r})", show(kind))
    for k, seed in enumerate(seeds):
        named = same(seed["id"], "seed:language") or same(seed["id"], "seed:pattern")
        if not named and not same(seed["kind"], "path"):
            fail(
                "REQ-18",
                child(child(seeds_where, k), "kind"),
                f"'path' (every seed other than seed:language and seed:pattern; id {show(seed['id'])})",
                show(seed["kind"]),
            )


def _show_list(value: object) -> str:
    """Show a short array of strings in full, anything else with :func:`show`."""
    if isinstance(value, list) and len(value) <= 4 and all(isinstance(v, str) for v in value):
        text = repr(value)
        if len(text) <= 2 * _SHOW_LIMIT:
            return text
    return show(value)
