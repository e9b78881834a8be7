"""The last element of every structural-bundle rule's collection, and every member it compares (issue 25 item 3).

Found by the review pass of issue 25 (each loop of a rule check made to
skip its last element, each ``and``/``or`` chain made to drop one operand,
one at a time, against the whole in-process suite); what no test noticed is
pinned here, each test breaking only the LAST element or one member and
asserting the whole failure text.

- OBS-3, RCPT-5: "X minus K" covers every member whatever the member order:
  with the digest member written first, the bundle stays valid.

Spec: SPEC.md §3.3, §4.8 … §4.12.
"""

from __future__ import annotations

from typing import Any

from tests.rules.members_support import OB, bundle, bundle_failure, reseal, validate


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
