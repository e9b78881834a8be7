"""``evaluator_identity`` measures once and gives every caller its own copy.

The identity is cached as JSON text and parsed again for each caller (decision 20:
``copy`` and ``weakref`` are not imported at the start for a deep copy), so a caller
that changes what it got changes nothing the next caller sees.
"""

from __future__ import annotations

import json
from typing import Any

from ablation import identity
from ablation.canonical import canonical_digest


def _identity() -> Any:
    return identity.evaluator_identity()


def test_each_call_is_a_copy_of_one_measurement() -> None:
    first, second = _identity(), _identity()
    assert first == second
    assert first is not second
    assert first["measured"] is not second["measured"]
    first["measured"]["closure"]["state"] = "changed"
    first["asserted"]["imageDigest"] = "changed"
    third = _identity()
    assert third == second
    assert third["measured"]["closure"]["state"] in ("sealed", "unsealed")


def test_the_copy_loses_nothing_the_digest_covers() -> None:
    copy = _identity()
    assert copy["identityDigest"] == canonical_digest(copy["measured"])
    assert json.loads(json.dumps(copy)) == copy
