"""One SCI structural-evidence bundle: SB-1 … SB-17 in the order of SPEC §4.12.

:func:`validate_bundle` checks the value at ``/cases/{c}/structuralEvidence``
(SB-0, the strict-profile test of the bundle's values in the input file, is the
caller's step before this) and returns the :class:`StructuralEvidence` that
selection and the result need. The first failing rule in the fixed order of
SPEC §4.12 raises :class:`~ablation.errors.BundleInvalid`; the case's
``structural`` and ``fusion`` arms then become unavailable with the failure
``structural_evidence_validation_failed:<rule> <detail>`` (SPEC §6). The
detail is ``at <where>: expected <expected>; found <found>``, where ``<where>``
is a JSON Pointer relative to the bundle without its leading ``/``
(``expectedRequest/seeds/1/value``), ``""`` for the bundle itself, and for an
embedded text the text's pointer, `` -> `` and the inner location.

The rule groups are exposed as small functions (SB-1; SB-2 … SB-4;
SB-6 … SB-13; SB-15 … SB-17) so that each can be exercised on its own; SB-16
and SB-17 cannot fail end to end (RCPT-23 and RCPT-20 come first, and the
Phase-B grammar admits no graph evidence) but stay enforced.

Spec: SPEC.md §4.8, §4.12, §5.2, §6, §8.3.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from types import MappingProxyType

from ablation.canonical import canon, raw_digest
from ablation.contracts.base import Shape, fail, same, show
from ablation.contracts.execution import check_observation
from ablation.contracts.sci_receipt import CheckedReceipt, check_receipt
from ablation.contracts.sci_request import check_phase_b, check_request

__all__ = [
    "EVIDENCE_KINDS",
    "PRODUCER_WORKFLOW",
    "PathStatistics",
    "StructuralEvidence",
    "check_bundle_members",
    "check_evidence_paths",
    "check_expected_request",
    "check_receipt_binding",
    "path_statistics",
    "validate_bundle",
]

#: The structural kind counts, in the fixed order of SPEC §5.2 and of the sort keys of §5.3.
EVIDENCE_KINDS = ("definition", "reference", "match", "graph_node", "graph_edge")
#: SB-12: the only export workflow the protocol accepts.
PRODUCER_WORKFLOW = "structural-evidence-export-v1"

#: (directEvidenceCount, relatedEvidenceCount, definition, reference, match, graph_node, graph_edge)
PathStatistics = tuple[int, int, int, int, int, int, int]

_KIND_COLUMN = {kind: 2 + k for k, kind in enumerate(EVIDENCE_KINDS)}

_BUNDLE = Shape(("expectedRequest", "expectedRequestDigest", "expectedProvenance", "receipt", "executionObservation"))
_EXPECTED_PROVENANCE = Shape(
    (
        "producerName",
        "producerVersion",
        "producerWorkflow",
        "backendName",
        "backendVersion",
        "executableName",
        "executableVersion",
    )
)


@dataclass(frozen=True, slots=True)
class StructuralEvidence:
    """The validated bundle as selection and the result use it (SPEC §5.2, §8.3).

    Attributes:
        receipt_digest: ``receipt.receiptDigest``.
        request_digest: ``receipt.requestDigest``.
        execution_observation_digest: ``executionObservation.observationDigest``.
        raw_request_sha256: ``rawEvidence.requestSha256``.
        raw_receipt_sha256: ``rawEvidence.receiptSha256``.
        transcript_sha256: ``rawEvidence.transcriptSha256``.
        candidate_ids: every evidence id, sorted (Python ``str`` order, which
            is UTF-8 byte order here).
        path_statistics: path → (directEvidenceCount, relatedEvidenceCount,
            definition, reference, match, graph_node, graph_edge); only paths
            with some evidence appear, in ascending path order.
        receipt_text_bytes: the UTF-8 byte length of ``rawEvidence.receiptJson``
            (cost disclosure).
    """

    receipt_digest: str
    request_digest: str
    execution_observation_digest: str
    raw_request_sha256: str
    raw_receipt_sha256: str
    transcript_sha256: str
    candidate_ids: tuple[str, ...]
    path_statistics: Mapping[str, PathStatistics]
    receipt_text_bytes: int


def check_bundle_members(bundle: object) -> dict[str, object]:
    """SB-1: the bundle is ``Closed{expectedRequest, expectedRequestDigest, expectedProvenance, receipt,
    executionObservation}``.

    Raises:
        BundleInvalid: SB-1 (``null``, an array or any non-object fails too).
    """
    return _BUNDLE.check("SB-1", bundle, "")


def check_expected_request(bundle: dict[str, object], question: str) -> str:
    """SB-2 (REQ-1 … REQ-18 on ``expectedRequest``), SB-3 and SB-4.

    Args:
        bundle: a bundle that satisfies SB-1.
        question: the case's question.

    Returns:
        ``Canon(expectedRequest)``.

    Raises:
        BundleInvalid: REQ-1 … REQ-18 at ``expectedRequest``, SB-3, SB-4.
    """
    request = check_request(bundle["expectedRequest"], "expectedRequest")
    check_phase_b(request, "expectedRequest")
    if not same(request["question"], question):
        fail("SB-3", "expectedRequest/question", f"the case question {show(question)}", show(request["question"]))
    text = canon(request)
    digest = raw_digest(text)
    if not same(bundle["expectedRequestDigest"], digest):
        fail(
            "SB-4",
            "expectedRequestDigest",
            f"D(expectedRequest) = {digest!r}",
            show(bundle["expectedRequestDigest"]),
        )
    return text


def check_receipt_binding(
    bundle: dict[str, object],
    checked: CheckedReceipt,
    *,
    expected_request_text: str,
    repository_commit: str,
) -> None:
    """SB-6 … SB-13: the checked receipt against the expected request, commit and provenance.

    Args:
        bundle: a bundle that satisfies SB-1 … SB-5.
        checked: its receipt, checked by RCPT-1 … RCPT-41.
        expected_request_text: ``Canon(expectedRequest)``.
        repository_commit: the case repository's commit.

    Raises:
        BundleInvalid: REQ-15 … REQ-18 at ``receipt/request`` (SB-6), SB-7 … SB-13.
    """
    receipt = checked.receipt
    _check_request_binding(bundle, checked, expected_request_text)
    _check_snapshot(receipt, repository_commit)
    _check_provenance(bundle, receipt)
    _check_outcome(receipt)


def _check_request_binding(bundle: dict[str, object], checked: CheckedReceipt, expected_request_text: str) -> None:
    """SB-6 (REQ-15 … REQ-18 on ``receipt/request``) and SB-7 (the receipt's request is the expected one)."""
    receipt = checked.receipt
    request = receipt["request"]
    assert isinstance(request, dict)
    check_phase_b(request, "receipt/request")
    if not same(receipt["requestDigest"], bundle["expectedRequestDigest"]):
        fail(
            "SB-7",
            "receipt/requestDigest",
            f"expectedRequestDigest {bundle['expectedRequestDigest']!r}",
            show(receipt["requestDigest"]),
        )
    if checked.request_canonical_text != expected_request_text:
        fail("SB-7", "receipt/request", "a request canonically equal to expectedRequest", "a different request")


def _check_snapshot(receipt: dict[str, object], repository_commit: str) -> None:
    """SB-8: the receipt observed the case repository's commit, stably."""
    repository = receipt["repository"]
    assert isinstance(repository, dict)
    snapshot = "git:" + repository_commit
    for name in ("snapshotId", "baseFingerprint", "observedFingerprint"):
        if not same(repository[name], snapshot):
            fail("SB-8", f"receipt/repository/{name}", repr(snapshot), show(repository[name]))
    if not same(repository["stableAcrossExecution"], True):
        fail("SB-8", "receipt/repository/stableAcrossExecution", show(True), show(repository["stableAcrossExecution"]))


def _check_provenance(bundle: dict[str, object], receipt: dict[str, object]) -> None:
    """SB-9 … SB-12: ``expectedProvenance`` names the receipt's producer and backend, and the export workflow."""
    provenance = _EXPECTED_PROVENANCE.check("SB-9", bundle["expectedProvenance"], "expectedProvenance")
    producer, backend = receipt["producer"], receipt["backend"]
    assert isinstance(producer, dict)
    assert isinstance(backend, dict)
    executable = backend["executable"]
    bindings = (
        ("SB-10", "producerName", producer["name"], "receipt/producer/name"),
        ("SB-10", "producerVersion", producer["version"], "receipt/producer/version"),
        ("SB-10", "producerWorkflow", producer["workflow"], "receipt/producer/workflow"),
        ("SB-11", "backendName", backend["name"], "receipt/backend/name"),
        ("SB-11", "backendVersion", backend["version"], "receipt/backend/version"),
        ("SB-11", "executableName", executable["name"], "receipt/backend/executable/name"),
        ("SB-11", "executableVersion", executable["version"], "receipt/backend/executable/version"),
    )
    for rule, name, actual, source in bindings:
        if not same(provenance[name], actual):
            fail(rule, f"expectedProvenance/{name}", f"{source} {actual!r}", show(provenance[name]))
    if not same(provenance["producerWorkflow"], PRODUCER_WORKFLOW):
        fail(
            "SB-12",
            "expectedProvenance/producerWorkflow",
            repr(PRODUCER_WORKFLOW),
            show(provenance["producerWorkflow"]),
        )


def _check_outcome(receipt: dict[str, object]) -> None:
    """SB-13: the backend succeeded and the receipt says it is complete."""
    backend = receipt["backend"]
    assert isinstance(backend, dict)
    status = backend["outcome"]["status"]
    if not same(status, "succeeded"):
        fail("SB-13", "receipt/backend/outcome/status", "'succeeded'", show(status))
    summary = receipt["summary"]
    assert isinstance(summary, dict)
    if not same(summary["complete"], True):
        fail("SB-13", "receipt/summary/complete", show(True), show(summary["complete"]))


def check_evidence_paths(evidence: list[dict[str, dict[str, object]]], item_paths: AbstractSet[str]) -> None:
    """SB-15, SB-16, SB-17, evidence entry by evidence entry.

    Args:
        evidence: ``receipt/evidence`` of a receipt that satisfies RCPT-1 … RCPT-41.
        item_paths: the paths of the repository's items.

    Raises:
        BundleInvalid: SB-15 (a path outside the inventory), SB-16 (a
            ``graph_edge`` self-edge), SB-17 (a ``relatedPath`` outside the
            inventory).
    """
    for e, entry in enumerate(evidence):
        identity = entry["identity"]
        path = identity["path"]
        if not (isinstance(path, str) and path in item_paths):
            fail("SB-15", f"receipt/evidence/{e}/identity/path", "the path of an item of the repository", show(path))
        if identity["kind"] == "graph_edge":
            related = identity["relatedPath"]
            if same(path, related) and same(identity["symbol"], identity["relatedSymbol"]):
                fail(
                    "SB-16",
                    f"receipt/evidence/{e}/identity",
                    "a graph_edge that is not a self-edge",
                    f"path and relatedPath {show(path)}, symbol and relatedSymbol {show(identity['symbol'])}",
                )
            if not (isinstance(related, str) and related in item_paths):
                fail(
                    "SB-17",
                    f"receipt/evidence/{e}/identity/relatedPath",
                    "the path of an item of the repository",
                    show(related),
                )


def path_statistics(evidence: list[dict[str, dict[str, object]]]) -> Mapping[str, PathStatistics]:
    """Per-path structural statistics of SPEC §5.2, independent of evidence order.

    For each entry: direct += 1 and the kind's count += 1 at ``identity.path``;
    for ``graph_edge``, related += 1 at ``identity.relatedPath``.

    Returns:
        A read-only mapping, keys in ascending path order.

    >>> dict(path_statistics([{"identity": {"path": "a", "kind": "match"}}]))
    {'a': (1, 0, 0, 0, 1, 0, 0)}
    """
    rows: dict[str, list[int]] = {}
    for entry in evidence:
        identity = entry["identity"]
        path = identity["path"]
        row = rows.get(path)  # type: ignore[call-overload]  # a receipt validated by sci_receipt: paths are str
        if row is None:
            row = rows[path] = [0, 0, 0, 0, 0, 0, 0]  # type: ignore[index]  # a receipt validated by sci_receipt: paths are str
        row[0] += 1
        kind = identity["kind"]
        row[_KIND_COLUMN[kind]] += 1  # type: ignore[index]  # a validated receipt: kind is one of _KIND_COLUMN
        if kind == "graph_edge":
            related = identity["relatedPath"]
            related_row = rows.get(related)  # type: ignore[call-overload]  # a validated receipt: relatedPath is str
            if related_row is None:
                related_row = rows[related] = [0, 0, 0, 0, 0, 0, 0]  # type: ignore[index]  # a validated receipt: relatedPath is str
            related_row[1] += 1
    return MappingProxyType({path: tuple(rows[path]) for path in sorted(rows)})  # type: ignore[misc]  # a validated receipt: paths are str


def validate_bundle(
    bundle: object,
    *,
    question: str,
    repository_commit: str,
    item_paths: AbstractSet[str],
) -> StructuralEvidence:
    """Check SB-1 … SB-17 with REQ/RCPT/OBS in the exact order of SPEC §4.12.

    SB-0 is checked by the caller before this: every value of ``bundle``
    satisfies TOP-6 … TOP-11 (no duplicate names, no invalid number, no lone
    surrogate, no excessive depth).

    Steps (SPEC §4.12): (1) SB-1; (2) SB-2: REQ-1 … REQ-18 on
    ``expectedRequest``; (3) SB-3, SB-4; (4) SB-5: RCPT-1 … RCPT-41;
    (5) SB-6 … SB-13; (6) SB-14: OBS-1 … OBS-37; (7) per evidence entry
    SB-15, SB-16, SB-17.

    Args:
        bundle: the parsed value at ``/cases/{c}/structuralEvidence`` (may be
            ``None``, a list, anything).
        question: the case's question (SB-3).
        repository_commit: the case repository's commit (SB-8, OBS-5, OBS-16).
        item_paths: the paths of the repository's items (SB-15, SB-17).

    Returns:
        The digests, candidate ids and per-path statistics of the bundle.

    Raises:
        BundleInvalid: the first failing SB, REQ, RCPT or OBS rule.

    Spec: SPEC.md §4.8 … §4.12, §5.2, §6.
    """
    b = check_bundle_members(bundle)
    expected_request_text = check_expected_request(b, question)
    checked = check_receipt(b["receipt"], "receipt")
    check_receipt_binding(
        b,
        checked,
        expected_request_text=expected_request_text,
        repository_commit=repository_commit,
    )
    observation = check_observation(b["executionObservation"], checked, repository_commit=repository_commit)
    evidence = checked.receipt["evidence"]
    check_evidence_paths(evidence, item_paths)  # type: ignore[arg-type]  # a validated receipt: evidence is a list of objects
    receipt = checked.receipt
    return StructuralEvidence(
        receipt_digest=receipt["receiptDigest"],  # type: ignore[arg-type]  # a validated receipt: a digest string
        request_digest=receipt["requestDigest"],  # type: ignore[arg-type]  # a validated receipt: a digest string
        execution_observation_digest=observation.observation_digest,
        raw_request_sha256=observation.raw_request_sha256,
        raw_receipt_sha256=observation.raw_receipt_sha256,
        transcript_sha256=observation.transcript_sha256,
        candidate_ids=tuple(sorted(checked.candidate_ids)),
        path_statistics=path_statistics(evidence),  # type: ignore[arg-type]  # a validated receipt: evidence is a list of objects
        receipt_text_bytes=observation.receipt_text_bytes,
    )
