"""The pre-run review (``pre-run-review.toml``): bound to ``SHA256SUMS.pre-review``, naming the evaluator that may run.

.. code-block:: toml

    decision = "ACCEPT"                                   # or "REJECT"
    reviewer = "I. Reviewer"
    pre_review_manifest_sha256 = "<64 hex>"               # sha256sum D/SHA256SUMS.pre-review
    evaluator_identity_digest = "sha256:<64 hex>"         # ablation identity, where the run will happen
    ranking_executed = false
    notes = "…"

One top-level table, no repository entries. :func:`read_pre_run_review` checks,
in this order, and raises the first failure:

1. FRZ-4: UTF-8 TOML with exactly these keys (strings; ``ranking_executed`` a
   boolean); ``reviewer`` nonblank;
2. FRZ-5 (exit 3): ``pre_review_manifest_sha256`` is the SHA-256 of D's
   ``SHA256SUMS.pre-review``: a review of other bytes says nothing about these;
3. FRZ-6: ``decision`` is ``ACCEPT`` and ``ranking_executed`` is ``false``;
4. FRZ-7: ``evaluator_identity_digest`` is a ``Digest`` (``sha256:`` and 64 lowercase
   hex, SPEC §3.3), as ``ablation identity`` prints the ``identityDigest``.

``<where>`` is the review file as given, `` -> `` and the key.

Spec: PREPARE.md §3 (``pre-run-review.toml``), §7 item 3.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass

from ablation.canonical import is_digest
from ablation.contracts.base import show
from ablation.prepare.findings import EXIT_INTEGRITY, Finding, Findings, PrepareRejected
from ablation.prepare.schema import Table

__all__ = ["PRE_RUN_KEYS", "PreRunReview", "read_pre_run_review"]

PRE_RUN_KEYS = (
    "decision",
    "reviewer",
    "pre_review_manifest_sha256",
    "evaluator_identity_digest",
    "ranking_executed",
    "notes",
)
"""The closed key list of the pre-run review, all required."""


@dataclass(frozen=True, slots=True)
class PreRunReview:
    """An accepted pre-run review bound to the pre-review manifest."""

    path: str
    sha256: str
    reviewer: str
    evaluator_identity_digest: str


def _refuse(path: str, rule: str, key: str, expected: str, found: str, *, exit_code: int = 4) -> PrepareRejected:
    return PrepareRejected([Finding(rule, f"{path} -> {key}", expected, found, exit_code=exit_code)])


def _values(path: str, data: bytes) -> dict[str, object]:
    """FRZ-4: the file's shape; the values by key."""
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise _refuse(path, "FRZ-4", "(top level)", "a UTF-8 TOML 1.0 document", str(exc)) from None
    findings = Findings()
    table = Table(document, (), PRE_RUN_KEYS, findings)
    values: dict[str, object] = {}
    for key in PRE_RUN_KEYS:
        values[key] = table.boolean(key, required=True) if key == "ranking_executed" else table.string(key)
    if findings.errors:
        first = findings.errors[0]
        raise _refuse(path, "FRZ-4", first.where, first.expected, first.found)
    if not str(values["reviewer"]).strip():
        raise _refuse(path, "FRZ-4", "reviewer", "the reviewer's name", show(values["reviewer"]))
    return values


def read_pre_run_review(path: str, data: bytes, *, manifest_sha256: str) -> PreRunReview:
    """Read and check a pre-run review (the module docstring's four steps).

    Args:
        path: the file as named on the command line (messages name it).
        data: its bytes.
        manifest_sha256: the SHA-256 of D's ``SHA256SUMS.pre-review`` (bare hex).

    Raises:
        PrepareRejected: FRZ-4, FRZ-6, FRZ-7 (exit 4), FRZ-5 (exit 3).
    """
    values = _values(path, data)
    bound = values["pre_review_manifest_sha256"]
    if bound != manifest_sha256:
        expected = f"the SHA-256 of SHA256SUMS.pre-review, {manifest_sha256}"
        found = f"{show(bound)}: the review is of other bytes"
        raise _refuse(path, "FRZ-5", "pre_review_manifest_sha256", expected, found, exit_code=EXIT_INTEGRITY)
    decision = values["decision"]
    if decision != "ACCEPT":
        what = "a REJECT" if decision == "REJECT" else f"{show(decision)}, not a decision"
        raise _refuse(path, "FRZ-6", "decision", "'ACCEPT' (freeze binds only an accepted preparation)", what)
    if values["ranking_executed"] is not False:
        expected = "false (no ranking may run before the freeze)"
        raise _refuse(path, "FRZ-6", "ranking_executed", expected, "true")
    identity = values["evaluator_identity_digest"]
    if not is_digest(identity):
        expected = "a Digest, 'sha256:' and 64 lowercase hex, as ablation identity prints the identityDigest"
        raise _refuse(path, "FRZ-7", "evaluator_identity_digest", expected, show(identity))
    return PreRunReview(path, hashlib.sha256(data).hexdigest(), str(values["reviewer"]), str(identity))
