"""The last element of every structural-bundle rule's collection, and every member it compares (issue 25 item 3).

Found by the review pass of issue 25 (each loop of a rule check made to
skip its last element, each ``and``/``or`` chain made to drop one operand,
one at a time, against the whole in-process suite); what no test noticed is
pinned here, each test breaking only the LAST element or one member and
asserting the whole failure text.

- OBS-3, RCPT-5: "X minus K" covers every member whatever the member order:
  with the digest member written first, the bundle stays valid.
- RCPT-40, RCPT-41: every limitation is checked and counts for completeness,
  the last of several included.
- REQ-6, REQ-11, RCPT-14, RCPT-23: an array or object where one of a fixed
  set of names belongs gets the rule's message; the type test before the
  set lookup is what keeps it from raising TypeError (unhashable).

Spec: SPEC.md §3.3, §4.8 … §4.12.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.rules.members_support import OB, Obj, bundle, bundle_failure, entry, put, reseal, validate, with_evidence


def _digest_first(obj: dict[str, Any], name: str) -> dict[str, Any]:
    """``obj`` with member ``name`` moved to the front (same members, same values)."""
    return {name: obj[name], **{k: v for k, v in obj.items() if k != name}}


def test_OBS_3_the_digest_covers_every_member_when_it_is_written_first() -> None:
    """observationDigest first: still D(observation minus observationDigest); the last member (cleanup) counts."""
    b = bundle()
    b[OB] = _digest_first(b[OB], "observationDigest")
    validate(b)
    b[OB]["cleanup"]["temporaryRootsRemoved"] = False  # the last member, changed without re-sealing
    assert bundle_failure(b).startswith(
        f"OBS-3 at {OB}/observationDigest: expected D(observation minus observationDigest) = "
    )


def test_RCPT_5_the_digest_covers_every_member_when_it_is_written_first() -> None:
    """receiptDigest first: still D(receipt minus receiptDigest); the last member (limitations) counts."""
    b = bundle()
    b["receipt"] = _digest_first(b["receipt"], "receiptDigest")
    validate(reseal(b))
    b["receipt"]["limitations"] = [{"code": "partial", "message": "one file skipped", "affectsCompleteness": False}]
    assert bundle_failure(b).startswith("RCPT-5 at receipt/receiptDigest: expected D(receipt minus receiptDigest) = ")


# ---------------------------------------------------------------- RCPT-40, RCPT-41: every limitation, the last included

RCPT_41 = (
    "RCPT-41 at receipt/summary/complete: expected {complete} (stable, base = observed fingerprint, succeeded, "
    "not capped, no limitation affecting completeness); found {found}"
)


def _limitation(code: str = "partial_scan", message: str = "one file skipped", affects: object = False) -> Obj:
    return {"code": code, "message": message, "affectsCompleteness": affects}


def _with_limitations(limitations: list[Obj], *, complete: bool = True) -> Obj:
    b = bundle()
    b["receipt"]["limitations"] = limitations
    b["receipt"]["summary"]["complete"] = complete
    return reseal(b)


@pytest.mark.parametrize(
    ("last", "where", "expected", "found"),
    [
        (_limitation(code="Partial"), "code", "a string [a-z] + 0 to 63 of [a-z0-9_]", "'Partial'"),
        (_limitation(message=""), "message", "a Portable NBText(2000)", "''"),
        (_limitation(message="see /home/alice/log"), "message", "a Portable NBText(2000)", "'see /home/alice/log'"),
        (_limitation(affects="no"), "affectsCompleteness", "a boolean", "'no'"),
        (
            {"code": "partial_scan", "message": "x"},
            "",
            "an object Closed{code, message, affectsCompleteness}",
            "no member 'affectsCompleteness'",
        ),
    ],
    ids=["code", "message-empty", "message-home", "affects-string", "closed"],
)
def test_RCPT_40_the_last_of_three_limitations(last: Obj, where: str, expected: str, found: str) -> None:
    """Two valid limitations, then a bad one: RCPT-40 at limitations/2."""
    b = _with_limitations([_limitation(), _limitation(code="slow"), last])
    pointer = "receipt/limitations/2" + (f"/{where}" if where else "")
    assert bundle_failure(b) == f"RCPT-40 at {pointer}: expected {expected}; found {found}"


def test_RCPT_41_the_last_limitation_affects_completeness() -> None:
    """Only the last of three limitations affects completeness: complete must be false (then SB-13 says no)."""
    limitations = [_limitation(), _limitation(code="slow"), _limitation(code="truncated", affects=True)]
    assert bundle_failure(_with_limitations(limitations)) == RCPT_41.format(complete="false", found="true")
    assert bundle_failure(_with_limitations(limitations, complete=False)) == (
        "SB-13 at receipt/summary/complete: expected true; found false"
    )


@pytest.mark.parametrize("k", [0, 1], ids=["first", "middle"])
def test_RCPT_41_an_earlier_limitation_affects_completeness(k: int) -> None:
    """Only the first (or middle) of three limitations affects completeness: the later ones do not undo it."""
    limitations = [_limitation(), _limitation(code="slow"), _limitation(code="truncated")]
    limitations[k]["affectsCompleteness"] = True
    assert bundle_failure(_with_limitations(limitations)) == RCPT_41.format(complete="false", found="true")
    assert bundle_failure(_with_limitations(limitations, complete=False)) == (
        "SB-13 at receipt/summary/complete: expected true; found false"
    )


def test_RCPT_41_no_limitation_affects_completeness() -> None:
    """Three limitations, none affecting completeness: complete is true and the bundle is valid."""
    validate(_with_limitations([_limitation(), _limitation(code="slow"), _limitation(code="truncated")]))


# ---------------------------------------------------------------- a value of any JSON type is a message, never a crash

OPS = "'structural_search', 'find_definition', 'find_references', 'graph_expand', 'ast_query'"


@pytest.mark.parametrize(("value", "shown"), [([], "an array of 0 elements"), ({"a": 1}, "an object with 1 member")])
@pytest.mark.parametrize(
    ("pointer", "rule", "expected"),
    [
        ("expectedRequest/seeds/2/kind", "REQ-6", "one of 'path', 'symbol', 'text'"),
        ("expectedRequest/operations/0", "REQ-11", f"one of {OPS}"),
        ("receipt/backend/outcome/status", "RCPT-14", "one of 'succeeded', 'failed', 'timed_out', 'unavailable'"),
    ],
    ids=["REQ-6-seed-kind", "REQ-11-operation", "RCPT-14-status"],
)
def test_a_container_where_a_name_is_expected(
    pointer: str, rule: str, expected: str, value: object, shown: str
) -> None:
    """An array or object where one of a fixed set of names belongs: the rule's message (a set lookup would raise)."""
    b = bundle()
    put(b, pointer, value)
    assert bundle_failure(reseal(b)) == f"{rule} at {pointer}: expected {expected}; found {shown}"


@pytest.mark.parametrize(("value", "shown"), [([], "an array of 0 elements"), ({"a": 1}, "an object with 1 member")])
def test_RCPT_23_a_container_as_edge_type(value: object, shown: str) -> None:
    """A graph_edge whose edgeType is an array or an object: RCPT-23 at edgeType (RCPT-23 comes before RCPT-25)."""
    e = entry("graph_edge", "graph_expand")
    e["identity"]["edgeType"] = value
    assert bundle_failure(with_evidence([e])) == (
        "RCPT-23 at receipt/evidence/0/identity/edgeType: expected one of 'import', 'export', 'caller', 'callee', "
        f"'semantic'; found {shown}"
    )


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ({"structural_search": 0}, "an object with 1 member"),
        ("find", "'find'"),
        ("structural_search", "'structural_search'"),
    ],
    ids=["object-named-like-the-operation", "short-string", "the-operation-as-a-string"],
)
def test_REQ_11_operations_is_an_array(value: object, shown: str) -> None:
    """An object whose one member is named like the operation, or a string: REQ-11 on ``operations`` itself."""
    b = bundle()
    put(b, "expectedRequest/operations", value)
    assert bundle_failure(reseal(b)) == (
        f"REQ-11 at expectedRequest/operations: expected an array of 1 to 16 operations; found {shown}"
    )


def test_RCPT_37_a_receipt_without_evidence_passes_the_per_file_bound() -> None:
    """No entry at all: nothing exceeds maxCandidatesPerFile, and the bundle is valid with no candidate."""
    b = with_evidence([])
    assert b["receipt"]["summary"]["returnedCount"] == 0
    assert validate(b).candidate_ids == ()
