"""The SCI structural-evidence receipt (RCPT-1 … RCPT-41).

Root: ``/cases/{c}/structuralEvidence/receipt``. The rules run in the order of
SPEC §4.12 step 4: RCPT-1 … RCPT-16, then the evidence entries (RCPT-17 …
RCPT-30, :mod:`~ablation.contracts.receipt_evidence`), then RCPT-31 …
RCPT-39, RCPT-40 limitation by limitation, and RCPT-41. The receipt's
canonical text is assembled once from per-member pieces so that RCPT-4,
RCPT-5 and the later OBS-25/OBS-26 comparisons share it.

Spec: SPEC.md §3.4, §4.10, §4.12, §9.3, §9.7, §9.11.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ablation.canonical import canon, raw_digest
from ablation.contracts.base import Shape, child, fail, is_int, same, show
from ablation.contracts.receipt_evidence import check_evidence
from ablation.contracts.sci_request import check_request
from ablation.text import is_nbtext, is_portable, is_text, is_token

__all__ = [
    "OUTCOME_STATUSES",
    "PRODUCER_NAME",
    "RECEIPT_SCHEMA",
    "CheckedReceipt",
    "check_receipt",
]

RECEIPT_SCHEMA = "semantic-code-intelligence.structural_evidence_receipt.v1"
PRODUCER_NAME = "semantic-code-intelligence"
OUTCOME_STATUSES = ("succeeded", "failed", "timed_out", "unavailable")
MAX_LIMITATIONS = 128

_RECEIPT = Shape(
    (
        "schema",
        "request",
        "requestDigest",
        "repository",
        "producer",
        "backend",
        "evidence",
        "summary",
        "limitations",
        "receiptDigest",
    )
)
_REPOSITORY = Shape(("snapshotId", "baseFingerprint", "observedFingerprint", "stableAcrossExecution"))
_PRODUCER = Shape(("name", "version", "workflow"))
_BACKEND = Shape(("name", "version", "executable", "outcome"))
_EXECUTABLE = Shape(("name", "version"))
_OUTCOME = Shape(("status", "exitCode", "message"))
_SUMMARY = Shape(("returnedCount", "totalObservedCount", "evidenceBytes", "capped", "complete"))
_LIMITATION = Shape(("code", "message", "affectsCompleteness"))

_FINGERPRINT = re.compile(r"[A-Za-z0-9._:-]{16,256}")
_LIMITATION_CODE = re.compile(r"[a-z][a-z0-9_]{0,63}")
_STATUS_SET = frozenset(OUTCOME_STATUSES)


@dataclass(frozen=True, slots=True)
class CheckedReceipt:
    """A receipt that satisfies RCPT-1 … RCPT-41, with the values later rules reuse.

    Attributes:
        receipt: the receipt object itself (not copied, never mutated).
        canonical_text: ``Canon(receipt)`` (OBS-26 compares the parsed
            ``receiptJson`` with it).
        request_canonical_text: ``Canon(receipt.request)`` (OBS-25).
        candidate_ids: the evidence ids in evidence order.
    """

    receipt: dict[str, object]
    canonical_text: str
    request_canonical_text: str
    candidate_ids: tuple[str, ...]


def _assemble(pieces: dict[str, str], skip: str | None = None) -> str:
    """Canon of an object from the canonical texts of its members (SPEC §3.1)."""
    return "{" + ",".join(f"{canon(name)}:{pieces[name]}" for name in sorted(pieces) if name != skip) + "}"


def check_receipt(receipt: object, where: str = "receipt") -> CheckedReceipt:
    """Check RCPT-1 … RCPT-41 on one receipt, in the order of SPEC §4.12 step 4.

    Args:
        receipt: the parsed value at ``/cases/{c}/structuralEvidence/receipt``
            (any JSON value; it satisfies SB-0).
        where: its pointer relative to the bundle.

    Returns:
        The checked receipt with its canonical texts and evidence ids.

    Raises:
        BundleInvalid: RCPT-1 … RCPT-41, or REQ-1 … REQ-14 at
            ``receipt/request`` (RCPT-3).

    Spec: SPEC.md §4.10.
    """
    r = _RECEIPT.check("RCPT-1", receipt, where)
    request, pieces = _check_request_and_digests(r, where)
    repository = _check_repository(r["repository"], child(where, "repository"))
    producer = _check_producer(r["producer"], child(where, "producer"))
    backend, status = _check_backend(r["backend"], child(where, "backend"))
    ids = check_evidence(r["evidence"], child(where, "evidence"), request, backend["name"], producer["workflow"])
    capped = _check_summary(r, where, request)
    affects = _check_limitations(r["limitations"], child(where, "limitations"))
    _check_complete(r, where, repository, status, capped=capped, affects=affects)
    return CheckedReceipt(
        receipt=r,
        canonical_text=_assemble(pieces),
        request_canonical_text=pieces["request"],
        candidate_ids=ids,
    )


def _check_request_and_digests(r: dict[str, object], where: str) -> tuple[dict[str, object], dict[str, str]]:
    """RCPT-2 … RCPT-5; return the request and the canonical text of every member."""
    if not same(r["schema"], RECEIPT_SCHEMA):
        fail("RCPT-2", child(where, "schema"), repr(RECEIPT_SCHEMA), show(r["schema"]))
    request = check_request(r["request"], child(where, "request"))  # RCPT-3
    pieces = {name: canon(value) for name, value in r.items()}
    request_digest = raw_digest(pieces["request"])
    if not same(r["requestDigest"], request_digest):
        fail("RCPT-4", child(where, "requestDigest"), f"D(request) = {request_digest!r}", show(r["requestDigest"]))
    receipt_digest = raw_digest(_assemble(pieces, skip="receiptDigest"))
    if not same(r["receiptDigest"], receipt_digest):
        fail(
            "RCPT-5",
            child(where, "receiptDigest"),
            f"D(receipt minus receiptDigest) = {receipt_digest!r}",
            show(r["receiptDigest"]),
        )
    return request, pieces


def _check_complete(
    r: dict[str, object], where: str, repository: dict[str, object], status: str, *, capped: bool, affects: bool
) -> None:
    """RCPT-41: ``summary.complete`` is true exactly when nothing limits the evidence."""
    summary = r["summary"]
    assert isinstance(summary, dict)
    complete = (
        repository["stableAcrossExecution"] is True
        and repository["baseFingerprint"] == repository["observedFingerprint"]
        and status == "succeeded"
        and not capped
        and not affects
    )
    if not same(summary["complete"], complete):
        fail(
            "RCPT-41",
            child(child(where, "summary"), "complete"),
            f"{show(complete)} (stable, base = observed fingerprint, succeeded, not capped, "
            "no limitation affecting completeness)",
            show(summary["complete"]),
        )


def _check_repository(value: object, where: str) -> dict[str, object]:
    """RCPT-6 … RCPT-9."""
    repository = _REPOSITORY.check("RCPT-6", value, where)
    for name in ("snapshotId", "baseFingerprint", "observedFingerprint"):
        v = repository[name]
        if not isinstance(v, str) or _FINGERPRINT.fullmatch(v) is None:
            fail("RCPT-7", child(where, name), "a string of 16 to 256 of [A-Za-z0-9._:-]", show(v))
    stable = repository["stableAcrossExecution"]
    if not isinstance(stable, bool):
        fail("RCPT-8", child(where, "stableAcrossExecution"), "a boolean", show(stable))
    if stable and repository["baseFingerprint"] != repository["observedFingerprint"]:
        fail(
            "RCPT-9",
            child(where, "observedFingerprint"),
            f"baseFingerprint {show(repository['baseFingerprint'])} (stableAcrossExecution is true)",
            show(repository["observedFingerprint"]),
        )
    return repository


def _check_producer(value: object, where: str) -> dict[str, object]:
    """RCPT-10, RCPT-11."""
    producer = _PRODUCER.check("RCPT-10", value, where)
    if not same(producer["name"], PRODUCER_NAME):
        fail("RCPT-11", child(where, "name"), repr(PRODUCER_NAME), show(producer["name"]))
    for name in ("version", "workflow"):
        if not is_token(producer[name]):
            fail("RCPT-11", child(where, name), "a Token", show(producer[name]))
    return producer


def _check_backend(value: object, where: str) -> tuple[dict[str, object], str]:
    """RCPT-12 … RCPT-16; return the backend and its outcome status."""
    backend = _BACKEND.check("RCPT-12", value, where)
    for name in ("name", "version"):
        if not is_token(backend[name]):
            fail("RCPT-12", child(where, name), "a Token", show(backend[name]))
    executable_where = child(where, "executable")
    executable = _EXECUTABLE.check("RCPT-13", backend["executable"], executable_where)
    for name in ("name", "version"):
        if not is_token(executable[name]):
            fail("RCPT-13", child(executable_where, name), "a Token", show(executable[name]))
    outcome_where = child(where, "outcome")
    outcome = _OUTCOME.check("RCPT-14", backend["outcome"], outcome_where)
    status = outcome["status"]
    if not isinstance(status, str) or status not in _STATUS_SET:
        fail(
            "RCPT-14", child(outcome_where, "status"), "one of " + ", ".join(map(repr, OUTCOME_STATUSES)), show(status)
        )
    message = outcome["message"]
    if not (is_text(message, 2000) and is_portable(message)):
        fail("RCPT-15", child(outcome_where, "message"), "a Portable Text(2000)", show(message))
    code = outcome["exitCode"]
    if status == "succeeded":
        ok, expected = same(code, 0), "0 (status 'succeeded')"
    elif status == "failed":
        ok, expected = is_int(code) and code != 0, "an Int other than 0 (status 'failed')"
    else:
        ok, expected = code is None, f"{show(None)} (status {status!r})"
    if not ok:
        fail("RCPT-16", child(outcome_where, "exitCode"), expected, show(code))
    return backend, status


def _check_summary(r: dict[str, object], where: str, request: dict[str, object]) -> bool:
    """RCPT-31 … RCPT-38 (the summary and the request's limits); return ``capped``."""
    summary_where = child(where, "summary")
    summary = _SUMMARY.check("RCPT-31", r["summary"], summary_where)
    evidence = r["evidence"]
    assert isinstance(evidence, list)
    returned = summary["returnedCount"]
    if not same(returned, len(evidence)):
        fail(
            "RCPT-32",
            child(summary_where, "returnedCount"),
            f"the number of evidence entries ({len(evidence)})",
            show(returned),
        )
    assert isinstance(returned, int)
    total = summary["totalObservedCount"]
    if not is_int(total) or total < returned:
        fail(
            "RCPT-33", child(summary_where, "totalObservedCount"), f"an Int >= returnedCount ({returned})", show(total)
        )
    byte_sum = sum(entry["byteCount"] for entry in evidence)
    evidence_bytes = summary["evidenceBytes"]
    if not same(evidence_bytes, byte_sum):
        fail(
            "RCPT-34",
            child(summary_where, "evidenceBytes"),
            f"the sum of all byteCount ({byte_sum})",
            show(evidence_bytes),
        )
    limits = request["limits"]
    assert isinstance(limits, dict)
    if returned > limits["maxCandidates"]:
        fail(
            "RCPT-35",
            child(summary_where, "returnedCount"),
            f"at most request limits/maxCandidates ({limits['maxCandidates']})",
            show(returned),
        )
    if byte_sum > limits["maxEvidenceBytes"]:
        fail(
            "RCPT-36",
            child(summary_where, "evidenceBytes"),
            f"at most request limits/maxEvidenceBytes ({limits['maxEvidenceBytes']})",
            show(evidence_bytes),
        )
    _check_per_file(evidence, child(where, "evidence"), limits["maxCandidatesPerFile"])
    capped = summary["capped"]
    expected = total > returned
    if not same(capped, expected):
        fail(
            "RCPT-38",
            child(summary_where, "capped"),
            f"{show(expected)} (totalObservedCount {total} > returnedCount {returned})",
            show(capped),
        )
    return expected


def _check_per_file(evidence: list[dict[str, dict[str, str]]], where: str, per_file: object) -> None:
    """RCPT-37: at most maxCandidatesPerFile entries share an ``identity/path``."""
    counts: dict[str, int] = {}
    for entry in evidence:
        path = entry["identity"]["path"]
        counts[path] = counts.get(path, 0) + 1
    assert isinstance(per_file, int)
    if counts and max(counts.values()) > per_file:
        for e, entry in enumerate(evidence):
            path = entry["identity"]["path"]
            if counts[path] > per_file:
                fail(
                    "RCPT-37",
                    child(child(child(where, e), "identity"), "path"),
                    f"at most request limits/maxCandidatesPerFile ({per_file}) entries per path",
                    f"{counts[path]} entries with path {show(path)}",
                )


def _check_limitations(value: object, where: str) -> bool:
    """RCPT-39, then RCPT-40 limitation by limitation; return whether one affects completeness."""
    if not isinstance(value, list) or len(value) > MAX_LIMITATIONS:
        fail("RCPT-39", where, f"an array of at most {MAX_LIMITATIONS} limitations", show(value))
    affects = False
    for k, item in enumerate(value):
        item_where = child(where, k)
        limitation = _LIMITATION.check("RCPT-40", item, item_where)
        code = limitation["code"]
        if not isinstance(code, str) or _LIMITATION_CODE.fullmatch(code) is None:
            fail("RCPT-40", child(item_where, "code"), "a string [a-z] + 0 to 63 of [a-z0-9_]", show(code))
        message = limitation["message"]
        if not (is_nbtext(message, 2000) and is_portable(message)):
            fail("RCPT-40", child(item_where, "message"), "a Portable NBText(2000)", show(message))
        flag = limitation["affectsCompleteness"]
        if not isinstance(flag, bool):
            fail("RCPT-40", child(item_where, "affectsCompleteness"), "a boolean", show(flag))
        affects = affects or flag
    return affects
