"""RCPT — the SCI receipt (SPEC §4.10; ``ablation.contracts.sci_receipt``, ``receipt_evidence``: RCPT-1 … RCPT-41).

Every row mutates the receipt of the SPEC §11.1 bundle, reseals the digests
that earlier rules check (ids for RCPT-24, requestDigest for RCPT-4,
receiptDigest for RCPT-5, and the observation) unless the row skips them, and
asserts the first failing rule and its location.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

from ablation.canonical import canon, canonical_digest
from ablation.contracts.sci_receipt import check_receipt
from ablation.errors import BundleInvalid
from tests.builders.bundle import (
    Bundle,
    assert_fails,
    build_bundle,
    drop,
    make_entry,
    mutated,
    put,
    rule_cases,
    set_evidence,
    validate,
)
from tests.builders.messages import Snapshot, bundle_inputs, bundle_message, ids

R = "receipt"
E0 = "receipt/evidence/0"


def _edit(path: str, value: object) -> Callable[[Bundle], None]:
    return lambda b: put(b, path, value)


def _entry(**changes: Any) -> Callable[[Bundle], None]:
    """Replace evidence entry 0 by ``make_entry(**changes)`` with a consistent summary."""
    return lambda b: set_evidence(b, [make_entry(**changes)])


def _edge(**changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "kind": "graph_edge",
        "operation": "graph_expand",
        "range": None,
        "symbol": "f",
        "relatedPath": "src/beta.js",
        "relatedSymbol": "g",
        "edgeType": "import",
    }
    fields.update(changes)
    return make_entry("src/alpha.js", **fields)


def _entries(paths: list[str]) -> list[dict[str, Any]]:
    return [make_entry(path, line) for line, path in enumerate(paths)]


def _limits(b: Bundle, **limits: int) -> None:
    for name, value in limits.items():
        put(b, f"receipt/request/limits/{name}", value)


def _limitation(**changes: Any) -> Callable[[Bundle], None]:
    item: dict[str, Any] = {"code": "partial_scan", "message": "Scan was partial.", "affectsCompleteness": False}
    item.update(changes)
    return lambda b: put(b, "receipt/limitations", [item])


def _mixed_operation(b: Bundle) -> None:
    put(b, "receipt/request/operations", ["structural_search", "find_definition"])
    put(b, f"{E0}/operation", "find_definition")


def _too_many(b: Bundle) -> None:
    _limits(b, maxCandidates=5)
    set_evidence(b, _entries(["src/alpha.js"] * 3 + ["src/beta.js"] * 3))


def _per_file(b: Bundle) -> None:
    set_evidence(b, _entries(["src/beta.js"] + ["src/alpha.js"] * 6))


def _capped_but_complete(b: Bundle) -> None:
    put(b, "receipt/summary/totalObservedCount", 2)
    put(b, "receipt/summary/capped", True)


def _failed_but_complete(b: Bundle) -> None:
    put(b, "receipt/backend/outcome", {"status": "failed", "exitCode": -9, "message": ""})


def _utf16_byte_count(b: Bundle) -> None:
    entry = make_entry(snippet="\U0001f600alpha")  # UTF-16: 7 units; UTF-8: 9 bytes
    entry["byteCount"] = 7
    set_evidence(b, [entry])


def _true_byte_count(b: Bundle) -> None:
    entry = make_entry(snippet="a")
    entry["byteCount"] = True
    set_evidence(b, [entry], evidenceBytes=1)


def _limitation_item() -> dict[str, Any]:
    return {"code": "partial_scan", "message": "Scan was partial.", "affectsCompleteness": False}


def get_id(b: Bundle) -> str:
    return str(b["receipt"]["evidence"][0]["id"])


RCPT_CASES = rule_cases(
    [
        ("RCPT-1", "null", R, _edit(R, None), ()),
        ("RCPT-1", "unknown-member", R, _edit(f"{R}/notes", "x"), ()),
        ("RCPT-1", "missing-limitations", R, lambda b: drop(b, f"{R}/limitations"), ()),
        (
            "RCPT-2",
            "schema-v2",
            f"{R}/schema",
            _edit(f"{R}/schema", "semantic-code-intelligence.structural_evidence_receipt.v2"),
            (),
        ),
        ("RCPT-2", "schema-null", f"{R}/schema", _edit(f"{R}/schema", None), ()),
        (
            "RCPT-4",
            "request-digest-mismatch",
            f"{R}/requestDigest",
            _edit(f"{R}/requestDigest", "sha256:" + "0" * 64),
            {"request_digest"},
        ),
        ("RCPT-4", "request-digest-null", f"{R}/requestDigest", _edit(f"{R}/requestDigest", None), {"request_digest"}),
        (
            "RCPT-5",
            "receipt-digest-mismatch",
            f"{R}/receiptDigest",
            _edit(f"{R}/receiptDigest", "sha256:" + "0" * 64),
            {"receipt_digest"},
        ),
        (
            "RCPT-5",
            "receipt-digest-stale",
            f"{R}/receiptDigest",
            _edit(f"{R}/backend/outcome/message", "evidence gathered"),
            {"receipt_digest", "obs_receipt"},
        ),
        ("RCPT-6", "repository-unknown-member", f"{R}/repository", _edit(f"{R}/repository/branch", "main"), ()),
        (
            "RCPT-6",
            "repository-missing-stable",
            f"{R}/repository",
            lambda b: drop(b, f"{R}/repository/stableAcrossExecution"),
            (),
        ),
        (
            "RCPT-7",
            "fingerprint-short",
            f"{R}/repository/snapshotId",
            _edit(f"{R}/repository/snapshotId", "git:abc"),
            (),
        ),
        (
            "RCPT-7",
            "fingerprint-space",
            f"{R}/repository/baseFingerprint",
            _edit(f"{R}/repository/baseFingerprint", "git: " + "a" * 40),
            (),
        ),
        (
            "RCPT-7",
            "fingerprint-long",
            f"{R}/repository/snapshotId",
            _edit(f"{R}/repository/snapshotId", "a" * 257),
            (),
        ),
        (
            "RCPT-7",
            "fingerprint-newline",
            f"{R}/repository/snapshotId",
            _edit(f"{R}/repository/snapshotId", "git:" + "a" * 40 + "\n"),
            (),
        ),
        (
            "RCPT-7",
            "fingerprint-number",
            f"{R}/repository/observedFingerprint",
            _edit(f"{R}/repository/observedFingerprint", 1234567890123456),
            (),
        ),
        (
            "RCPT-8",
            "stable-1",
            f"{R}/repository/stableAcrossExecution",
            _edit(f"{R}/repository/stableAcrossExecution", 1),
            (),
        ),
        (
            "RCPT-8",
            "stable-string",
            f"{R}/repository/stableAcrossExecution",
            _edit(f"{R}/repository/stableAcrossExecution", "true"),
            (),
        ),
        (
            "RCPT-9",
            "stable-but-moved",
            f"{R}/repository/observedFingerprint",
            _edit(f"{R}/repository/observedFingerprint", "git:" + "b" * 40),
            (),
        ),
        ("RCPT-10", "producer-missing-workflow", f"{R}/producer", lambda b: drop(b, f"{R}/producer/workflow"), ()),
        ("RCPT-10", "producer-null", f"{R}/producer", _edit(f"{R}/producer", None), ()),
        ("RCPT-11", "producer-name", f"{R}/producer/name", _edit(f"{R}/producer/name", "sci"), ()),
        ("RCPT-11", "version-number", f"{R}/producer/version", _edit(f"{R}/producer/version", 2), ()),
        ("RCPT-11", "version-trailing-space", f"{R}/producer/version", _edit(f"{R}/producer/version", "2.0.0 "), ()),
        ("RCPT-11", "workflow-leading-dash", f"{R}/producer/workflow", _edit(f"{R}/producer/workflow", "-export"), ()),
        ("RCPT-11", "workflow-null", f"{R}/producer/workflow", _edit(f"{R}/producer/workflow", None), ()),
        ("RCPT-12", "backend-unknown-member", f"{R}/backend", _edit(f"{R}/backend/flags", []), ()),
        ("RCPT-12", "backend-name-true", f"{R}/backend/name", _edit(f"{R}/backend/name", True), ()),
        ("RCPT-12", "backend-version-newline", f"{R}/backend/version", _edit(f"{R}/backend/version", "0.40.5\n"), ()),
        (
            "RCPT-13",
            "executable-missing",
            f"{R}/backend/executable",
            lambda b: drop(b, f"{R}/backend/executable/version"),
            (),
        ),
        (
            "RCPT-13",
            "executable-version-null",
            f"{R}/backend/executable/version",
            _edit(f"{R}/backend/executable/version", None),
            (),
        ),
        (
            "RCPT-13",
            "executable-name-space",
            f"{R}/backend/executable/name",
            _edit(f"{R}/backend/executable/name", "ast grep"),
            (),
        ),
        ("RCPT-14", "status-unknown", f"{R}/backend/outcome/status", _edit(f"{R}/backend/outcome/status", "ok"), ()),
        (
            "RCPT-14",
            "outcome-missing-message",
            f"{R}/backend/outcome",
            lambda b: drop(b, f"{R}/backend/outcome/message"),
            (),
        ),
        (
            "RCPT-15",
            "message-home-path",
            f"{R}/backend/outcome/message",
            _edit(f"{R}/backend/outcome/message", "wrote /home/u/x"),
            (),
        ),
        (
            "RCPT-15",
            "message-too-long",
            f"{R}/backend/outcome/message",
            _edit(f"{R}/backend/outcome/message", "m" * 2001),
            (),
        ),
        ("RCPT-15", "message-number", f"{R}/backend/outcome/message", _edit(f"{R}/backend/outcome/message", 0), ()),
        (
            "RCPT-16",
            "succeeded-false-is-not-0",
            f"{R}/backend/outcome/exitCode",
            _edit(f"{R}/backend/outcome/exitCode", False),
            (),
        ),
        ("RCPT-16", "succeeded-exit-1", f"{R}/backend/outcome/exitCode", _edit(f"{R}/backend/outcome/exitCode", 1), ()),
        (
            "RCPT-16",
            "failed-exit-0",
            f"{R}/backend/outcome/exitCode",
            _edit(f"{R}/backend/outcome", {"status": "failed", "exitCode": 0, "message": ""}),
            (),
        ),
        (
            "RCPT-16",
            "failed-exit-true",
            f"{R}/backend/outcome/exitCode",
            _edit(f"{R}/backend/outcome", {"status": "failed", "exitCode": True, "message": ""}),
            (),
        ),
        (
            "RCPT-16",
            "timed-out-exit-0",
            f"{R}/backend/outcome/exitCode",
            _edit(f"{R}/backend/outcome", {"status": "timed_out", "exitCode": 0, "message": ""}),
            (),
        ),
        ("RCPT-17", "evidence-object", f"{R}/evidence", _edit(f"{R}/evidence", {}), ()),
        ("RCPT-17", "evidence-null", f"{R}/evidence", _edit(f"{R}/evidence", None), ()),
        ("RCPT-17", "evidence-10001", f"{R}/evidence", _edit(f"{R}/evidence", [None] * 10_001), ()),
        ("RCPT-18", "entry-missing-provenance", E0, lambda b: drop(b, f"{E0}/provenance"), ()),
        ("RCPT-18", "entry-array", E0, _edit(E0, []), ()),
        ("RCPT-18", "entry-unknown-member", E0, _edit(f"{E0}/score", 1), ()),
        ("RCPT-19", "identity-array", f"{E0}/identity", _edit(f"{E0}/identity", []), ()),
        ("RCPT-19", "kind-unknown", f"{E0}/identity/kind", _edit(f"{E0}/identity/kind", "call"), ()),
        ("RCPT-19", "kind-missing", f"{E0}/identity/kind", lambda b: drop(b, f"{E0}/identity/kind"), ()),
        ("RCPT-19", "kind-number", f"{E0}/identity/kind", _edit(f"{E0}/identity/kind", 1), ()),
        ("RCPT-19", "match-with-symbol", f"{E0}/identity", _edit(f"{E0}/identity/symbol", "alpha"), ()),
        ("RCPT-19", "match-without-range", f"{E0}/identity", lambda b: drop(b, f"{E0}/identity/range"), ()),
        (
            "RCPT-19",
            "graph-node-without-symbol",
            f"{E0}/identity",
            _entry(kind="graph_node", operation="graph_expand"),
            (),
        ),
        ("RCPT-19", "definition-without-symbol", f"{E0}/identity", _entry(kind="definition"), ()),
        ("RCPT-20", "dot-slash", f"{E0}/identity/path", _edit(f"{E0}/identity/path", "./src/alpha.js"), ()),
        ("RCPT-20", "absolute", f"{E0}/identity/path", _edit(f"{E0}/identity/path", "/src/alpha.js"), ()),
        ("RCPT-20", "double-slash", f"{E0}/identity/path", _edit(f"{E0}/identity/path", "src//alpha.js"), ()),
        ("RCPT-20", "number", f"{E0}/identity/path", _edit(f"{E0}/identity/path", 7), ()),
        (
            "RCPT-21",
            "reversed",
            f"{E0}/identity/range",
            _edit(f"{E0}/identity/range", {"start": {"line": 3, "column": 0}, "end": {"line": 2, "column": 9}}),
            (),
        ),
        ("RCPT-21", "reversed-column", f"{E0}/identity/range", _edit(f"{E0}/identity/range/start/column", 6), ()),
        (
            "RCPT-21",
            "negative-line",
            f"{E0}/identity/range/start/line",
            _edit(f"{E0}/identity/range/start/line", -1),
            (),
        ),
        (
            "RCPT-21",
            "column-true",
            f"{E0}/identity/range/end/column",
            _edit(f"{E0}/identity/range/end/column", True),
            (),
        ),
        ("RCPT-21", "range-null", f"{E0}/identity/range", _edit(f"{E0}/identity/range", None), ()),
        ("RCPT-21", "range-missing-end", f"{E0}/identity/range", lambda b: drop(b, f"{E0}/identity/range/end"), ()),
        ("RCPT-21", "position-extra", f"{E0}/identity/range/start", _edit(f"{E0}/identity/range/start/offset", 0), ()),
        ("RCPT-22", "symbol-blank", f"{E0}/identity/symbol", _entry(kind="definition", symbol=" \u2003"), ()),
        ("RCPT-22", "symbol-too-long", f"{E0}/identity/symbol", _entry(kind="reference", symbol="s" * 1025), ()),
        (
            "RCPT-23",
            "self-edge",
            f"{E0}/identity",
            lambda b: set_evidence(b, [_edge(relatedPath="src/alpha.js", relatedSymbol="f")]),
            (),
        ),
        ("RCPT-23", "edge-type", f"{E0}/identity/edgeType", lambda b: set_evidence(b, [_edge(edgeType="calls")]), ()),
        (
            "RCPT-23",
            "related-path",
            f"{E0}/identity/relatedPath",
            lambda b: set_evidence(b, [_edge(relatedPath="../x.js")]),
            (),
        ),
        (
            "RCPT-23",
            "related-symbol",
            f"{E0}/identity/relatedSymbol",
            lambda b: set_evidence(b, [_edge(relatedSymbol="")]),
            (),
        ),
        ("RCPT-24", "id-mismatch", f"{E0}/id", _edit(f"{E0}/id", "candidate:sha256:" + "0" * 64), {"ids"}),
        (
            "RCPT-24",
            "id-without-prefix",
            f"{E0}/id",
            lambda b: put(b, f"{E0}/id", get_id(b)[len("candidate:") :]),
            {"ids"},
        ),
        ("RCPT-24", "id-of-other-range", f"{E0}/id", _edit(f"{E0}/identity/range/end/column", 6), {"ids"}),
        ("RCPT-24", "id-null", f"{E0}/id", _edit(f"{E0}/id", None), {"ids"}),
        ("RCPT-25", "operation-not-requested", f"{E0}/operation", _edit(f"{E0}/operation", "find_definition"), ()),
        ("RCPT-25", "operation-unknown", f"{E0}/operation", _edit(f"{E0}/operation", "grep"), ()),
        ("RCPT-25", "operation-null", f"{E0}/operation", _edit(f"{E0}/operation", None), ()),
        ("RCPT-26", "definition-op-for-match", f"{E0}/operation", _mixed_operation, ()),
        ("RCPT-27", "snippet-empty", f"{E0}/snippet", _entry(snippet=""), ()),
        ("RCPT-27", "snippet-blank", f"{E0}/snippet", _entry(snippet=" \u2003\ufeff"), ()),
        ("RCPT-27", "snippet-too-long", f"{E0}/snippet", _entry(snippet="s" * 20_001), ()),
        ("RCPT-27", "snippet-null", f"{E0}/snippet", _edit(f"{E0}/snippet", None), ()),
        ("RCPT-28", "bytecount-mismatch", f"{E0}/byteCount", _edit(f"{E0}/byteCount", 4), ()),
        ("RCPT-28", "bytecount-utf16-length", f"{E0}/byteCount", _utf16_byte_count, ()),
        ("RCPT-28", "bytecount-true-is-not-1", f"{E0}/byteCount", _true_byte_count, ()),
        ("RCPT-28", "bytecount-string", f"{E0}/byteCount", _edit(f"{E0}/byteCount", "5"), ()),
        (
            "RCPT-29",
            "provenance-backend",
            f"{E0}/provenance/backend",
            _edit(f"{E0}/provenance/backend", "tree-sitter"),
            (),
        ),
        (
            "RCPT-29",
            "provenance-workflow",
            f"{E0}/provenance/workflow",
            _edit(f"{E0}/provenance/workflow", "other"),
            (),
        ),
        ("RCPT-29", "provenance-extra", f"{E0}/provenance", _edit(f"{E0}/provenance/host", "x"), ()),
        ("RCPT-29", "provenance-null", f"{E0}/provenance", _edit(f"{E0}/provenance", None), ()),
        (
            "RCPT-30",
            "duplicate-ids",
            "receipt/evidence/1/id",
            lambda b: set_evidence(b, [make_entry(), make_entry()]),
            (),
        ),
        ("RCPT-31", "summary-extra", f"{R}/summary", _edit(f"{R}/summary/pages", 1), ()),
        ("RCPT-31", "summary-null", f"{R}/summary", _edit(f"{R}/summary", None), ()),
        ("RCPT-32", "returned-2", f"{R}/summary/returnedCount", _edit(f"{R}/summary/returnedCount", 2), ()),
        (
            "RCPT-32",
            "returned-true-is-not-1",
            f"{R}/summary/returnedCount",
            _edit(f"{R}/summary/returnedCount", True),
            (),
        ),
        (
            "RCPT-33",
            "total-below-returned",
            f"{R}/summary/totalObservedCount",
            _edit(f"{R}/summary/totalObservedCount", 0),
            (),
        ),
        (
            "RCPT-33",
            "total-string",
            f"{R}/summary/totalObservedCount",
            _edit(f"{R}/summary/totalObservedCount", "1"),
            (),
        ),
        (
            "RCPT-33",
            "total-true",
            f"{R}/summary/totalObservedCount",
            _edit(f"{R}/summary/totalObservedCount", True),
            (),
        ),
        ("RCPT-34", "evidence-bytes", f"{R}/summary/evidenceBytes", _edit(f"{R}/summary/evidenceBytes", 6), ()),
        ("RCPT-34", "evidence-bytes-null", f"{R}/summary/evidenceBytes", _edit(f"{R}/summary/evidenceBytes", None), ()),
        ("RCPT-35", "over-max-candidates", f"{R}/summary/returnedCount", _too_many, ()),
        (
            "RCPT-36",
            "over-max-evidence-bytes",
            f"{R}/summary/evidenceBytes",
            lambda b: _limits(b, maxEvidenceBytes=4),
            (),
        ),
        ("RCPT-37", "per-file-cap", "receipt/evidence/1/identity/path", _per_file, ()),
        ("RCPT-38", "capped-but-not", f"{R}/summary/capped", _edit(f"{R}/summary/capped", True), ()),
        ("RCPT-38", "not-capped-but-is", f"{R}/summary/capped", _edit(f"{R}/summary/totalObservedCount", 2), ()),
        ("RCPT-38", "capped-0", f"{R}/summary/capped", _edit(f"{R}/summary/capped", 0), ()),
        ("RCPT-39", "limitations-object", f"{R}/limitations", _edit(f"{R}/limitations", {}), ()),
        (
            "RCPT-39",
            "limitations-129",
            f"{R}/limitations",
            lambda b: put(b, f"{R}/limitations", [_limitation_item()] * 129),
            (),
        ),
        ("RCPT-40", "code-number", f"{R}/limitations/0/code", _limitation(code=5), ()),
        ("RCPT-40", "code-null", f"{R}/limitations/0/code", _limitation(code=None), ()),
        ("RCPT-40", "code-uppercase", f"{R}/limitations/0/code", _limitation(code="Partial"), ()),
        ("RCPT-40", "code-dash", f"{R}/limitations/0/code", _limitation(code="partial-scan"), ()),
        ("RCPT-40", "code-too-long", f"{R}/limitations/0/code", _limitation(code="p" * 65), ()),
        ("RCPT-40", "message-empty", f"{R}/limitations/0/message", _limitation(message=""), ()),
        ("RCPT-40", "message-home", f"{R}/limitations/0/message", _limitation(message="see /Users/me/log"), ()),
        (
            "RCPT-40",
            "affects-string",
            f"{R}/limitations/0/affectsCompleteness",
            _limitation(affectsCompleteness="no"),
            (),
        ),
        ("RCPT-40", "limitation-extra", f"{R}/limitations/0", _limitation(severity="low"), ()),
        ("RCPT-40", "limitation-string", f"{R}/limitations/0", _edit(f"{R}/limitations", ["partial_scan"]), ()),
        ("RCPT-41", "complete-despite-limitation", f"{R}/summary/complete", _limitation(affectsCompleteness=True), ()),
        ("RCPT-41", "complete-1-is-not-true", f"{R}/summary/complete", _edit(f"{R}/summary/complete", 1), ()),
        ("RCPT-41", "incomplete-without-reason", f"{R}/summary/complete", _edit(f"{R}/summary/complete", False), ()),
        ("RCPT-41", "complete-but-capped", f"{R}/summary/complete", _capped_but_complete, ()),
        ("RCPT-41", "complete-but-failed", f"{R}/summary/complete", _failed_but_complete, ()),
        (
            "RCPT-41",
            "complete-but-unstable",
            f"{R}/summary/complete",
            _edit(f"{R}/repository/stableAcrossExecution", False),
            (),
        ),
    ]
)


@pytest.mark.parametrize(("rule", "where", "mutation", "skip"), RCPT_CASES)
def test_rule(rule: str, where: str, mutation: Callable[[Bundle], object], skip: Iterable[str]) -> None:
    assert_fails(mutated(mutation, skip), rule, where)


# ---------------------------------------------------------------- RCPT-3: the request grammar on receipt/request


@pytest.mark.parametrize(
    ("path", "value", "rule"),
    [
        ("receipt/request/seeds/1/value", "/home/x", "REQ-7"),
        ("receipt/request/seeds/2/id", 3, "REQ-5"),
        ("receipt/request/limits/maxCandidatesPerFile", 21, "REQ-14"),
        ("receipt/request", None, "REQ-1"),
    ],
    ids=["RCPT-3-REQ-7", "RCPT-3-REQ-5", "RCPT-3-REQ-14", "RCPT-3-REQ-1"],
)
def test_RCPT_3_request_grammar_at_receipt_request(path: str, value: object, rule: str) -> None:
    assert_fails(mutated(_edit(path, value)), rule, path)


def test_RCPT_3_does_not_apply_phase_b() -> None:
    # Phase-B (REQ-15 … REQ-18) on receipt/request waits for SB-6, after every RCPT rule.
    request = build_bundle()["receipt"]["request"]
    request["operations"] = ["structural_search", "graph_expand"]
    b = mutated(_edit("receipt/request", request))
    assert_fails(b, "REQ-15", "receipt/request/operations")


# ---------------------------------------------------------------- valid variations


def test_valid_variations_pass() -> None:
    entries = [
        make_entry("src/alpha.js", 0, "\U0001f600 é"),  # UTF-8 byte count 7
        make_entry("src/beta.js", 1, "x" * 20_000),
    ]

    def mutation(b: Bundle) -> None:
        set_evidence(b, entries, totalObservedCount=2)
        put(b, "receipt/limitations", [_limitation_item()])
        put(b, "receipt/backend/outcome/message", "")

    result = validate(mutated(mutation))
    assert len(result.candidate_ids) == 2
    assert entries[0]["byteCount"] == 7


def test_checked_receipt_texts() -> None:
    b = build_bundle()
    checked = check_receipt(b["receipt"])
    assert checked.canonical_text == canon(b["receipt"])
    assert checked.request_canonical_text == canon(b["receipt"]["request"])
    assert checked.candidate_ids == (b["receipt"]["evidence"][0]["id"],)
    assert checked.receipt is b["receipt"]


def test_graph_evidence_passes_the_receipt_rules() -> None:
    # Outside Phase-B, graph and definition evidence is well-formed receipt evidence.
    b = build_bundle()
    receipt = b["receipt"]
    receipt["request"]["operations"] = ["structural_search", "graph_expand", "find_definition"]
    entries = [
        make_entry(),
        _edge(),
        make_entry("src/beta.js", kind="graph_node", operation="graph_expand", range=None, symbol="g"),
        make_entry("src/beta.js", kind="definition", operation="find_definition", symbol="g"),
    ]
    receipt["evidence"] = entries
    receipt["summary"] = {
        "returnedCount": 4,
        "totalObservedCount": 4,
        "evidenceBytes": 20,
        "capped": False,
        "complete": True,
    }
    receipt["requestDigest"] = canonical_digest(receipt["request"])
    receipt["receiptDigest"] = canonical_digest({k: v for k, v in receipt.items() if k != "receiptDigest"})
    checked = check_receipt(receipt)
    assert len(checked.candidate_ids) == 4


# ---------------------------------------------------------------- messages


def _receipt_error(mutation: Callable[[Bundle], object], skip: Iterable[str] = ()) -> str:
    b = mutated(mutation, skip)
    with pytest.raises(BundleInvalid) as info:
        check_receipt(b["receipt"])
    return str(info.value)


def test_message_RCPT_28() -> None:
    assert _receipt_error(_edit(f"{E0}/byteCount", 4)) == (
        "RCPT-28 at receipt/evidence/0/byteCount: expected the UTF-8 byte length of snippet (5), > 0; found 4"
    )


def test_message_RCPT_41_type_trap() -> None:
    assert _receipt_error(_edit(f"{R}/summary/complete", 1)).startswith(
        "RCPT-41 at receipt/summary/complete: expected true (stable, "
    )
    assert _receipt_error(_edit(f"{R}/summary/complete", 1)).endswith("; found 1")


def test_messages_spell_json_constants_as_json() -> None:
    """Expected and found values read ``true``/``false``/``null``, never Python's ``True``/``False``/``None``."""
    assert _receipt_error(_edit(f"{R}/backend/outcome/exitCode", False)) == (
        "RCPT-16 at receipt/backend/outcome/exitCode: expected 0 (status 'succeeded'); found false"
    )
    timed_out = _edit(f"{R}/backend/outcome", {"status": "timed_out", "exitCode": 0, "message": ""})
    assert _receipt_error(timed_out) == (
        "RCPT-16 at receipt/backend/outcome/exitCode: expected null (status 'timed_out'); found 0"
    )
    assert _receipt_error(_edit(f"{R}/summary/capped", True)).startswith(
        "RCPT-38 at receipt/summary/capped: expected false (totalObservedCount "
    )
    assert _receipt_error(_edit(f"{R}/repository/stableAcrossExecution", None)) == (
        "RCPT-8 at receipt/repository/stableAcrossExecution: expected a boolean; found null"
    )


def test_message_RCPT_37_names_first_offending_entry() -> None:
    assert _receipt_error(_per_file) == (
        "RCPT-37 at receipt/evidence/1/identity/path: expected at most request limits/maxCandidatesPerFile (5) "
        "entries per path; found 6 entries with path 'src/alpha.js'"
    )


def test_entries_checked_in_order_each_in_rule_order() -> None:
    # Entry 0 breaks RCPT-29 (late rule), entry 1 breaks RCPT-18 (early rule): entry 0 is reported.
    first = make_entry()
    first["provenance"]["backend"] = "other"
    second = make_entry("src/beta.js")
    del second["snippet"]
    assert _receipt_error(lambda b: set_evidence(b, [first, second])).startswith("RCPT-29 at receipt/evidence/0/")


# ---------------------------------------------------------------- valid edge cases, whole messages (mutmut)


def receipt_with(entries: list[dict[str, Any]], operations: list[str] | None = None) -> dict[str, Any]:
    """The SPEC §11.1 receipt with these evidence entries (and request operations), digests and summary resealed."""
    receipt: dict[str, Any] = build_bundle()["receipt"]
    if operations is not None:
        receipt["request"]["operations"] = operations
    receipt["evidence"] = entries
    receipt["summary"] = {
        "returnedCount": len(entries),
        "totalObservedCount": len(entries),
        "evidenceBytes": sum(e["byteCount"] for e in entries),
        "capped": False,
        "complete": True,
    }
    receipt["requestDigest"] = canonical_digest(receipt["request"])
    receipt["receiptDigest"] = canonical_digest({k: v for k, v in receipt.items() if k != "receiptDigest"})
    return receipt


def receipt_failure(receipt: dict[str, Any]) -> str:
    with pytest.raises(BundleInvalid) as caught:
        check_receipt(receipt)
    return str(caught.value)


GRAPH = ["structural_search", "graph_expand"]


@pytest.mark.parametrize(
    "entry",
    [
        make_entry(range={"start": {"line": 3, "column": 4}, "end": {"line": 3, "column": 4}}),
        make_entry(range={"start": {"line": 0, "column": 0}, "end": {"line": 0, "column": 0}}),
        make_entry(range={"start": {"line": 2, "column": 7}, "end": {"line": 3, "column": 0}}),
        make_entry(snippet="x"),
    ],
    ids=["empty-range", "empty-range-at-origin", "end-at-column-0", "one-byte-snippet"],
)
def test_RCPT_21_RCPT_28_valid_edge_cases_pass(entry: dict[str, Any]) -> None:
    assert check_receipt(receipt_with([entry])).candidate_ids == (entry["id"],)


@pytest.mark.parametrize(
    "entry",
    [_edge(relatedPath="src/alpha.js"), _edge(relatedSymbol="f"), _edge(relatedSymbol="s" * 1024)],
    ids=["same-path-other-symbol", "same-symbol-other-path", "related-symbol-1024"],
)
def test_RCPT_23_edges_that_are_not_self_edges_pass(entry: dict[str, Any]) -> None:
    assert check_receipt(receipt_with([make_entry(), entry], GRAPH)).candidate_ids[1] == entry["id"]


def test_RCPT_23_a_related_symbol_of_1025_characters_is_refused() -> None:
    receipt = receipt_with([make_entry(), _edge(relatedSymbol="s" * 1025)], GRAPH)
    assert receipt_failure(receipt) == (
        "RCPT-23 at receipt/evidence/1/identity/relatedSymbol: expected an NBText(1024); found "
        f"'{'s' * 78}… (1025 characters)"
    )


@pytest.mark.parametrize("operation", [[], {}, 1], ids=["array", "object", "number"])
def test_RCPT_25_an_operation_of_another_type_lists_the_request_operations(operation: object) -> None:
    entry = make_entry()
    entry["operation"] = operation
    shown = {"array": "an array of 0 elements", "object": "an object with 0 members", "number": "1"}
    found = shown["array" if operation == [] else "object" if operation == {} else "number"]
    assert receipt_failure(receipt_with([entry], GRAPH)) == (
        f"RCPT-25 at {E0}/operation: expected one of the request's operations 'graph_expand', "
        f"'structural_search'; found {found}"
    )


@pytest.mark.parametrize("kind", [[], {"k": 1}], ids=["array", "object"])
def test_RCPT_19_a_kind_of_another_type_is_refused_not_looked_up(kind: object) -> None:
    entry = make_entry()
    entry["identity"]["kind"] = kind
    found = "an array of 0 elements" if kind == [] else "an object with 1 member"
    assert receipt_failure(receipt_with([entry])) == (
        f"RCPT-19 at {E0}/identity/kind: expected one of 'match', 'definition', 'reference', 'graph_node', "
        f"'graph_edge'; found {found}"
    )


def _receipt_per_file(entries: list[dict[str, Any]], per_file: int) -> dict[str, Any]:
    receipt = receipt_with(entries)
    receipt["request"]["limits"]["maxCandidatesPerFile"] = per_file
    receipt["requestDigest"] = canonical_digest(receipt["request"])
    receipt["receiptDigest"] = canonical_digest({k: v for k, v in receipt.items() if k != "receiptDigest"})
    return receipt


def test_RCPT_37_exactly_max_candidates_per_file_entries_share_a_path() -> None:
    entries = [make_entry("src/alpha.js", line) for line in range(3)]
    assert len(check_receipt(_receipt_per_file(entries, 3)).candidate_ids) == 3
    assert receipt_failure(_receipt_per_file(entries, 2)) == (
        "RCPT-37 at receipt/evidence/0/identity/path: expected at most request limits/maxCandidatesPerFile (2) "
        "entries per path; found 3 entries with path 'src/alpha.js'"
    )


def test_RCPT_37_names_the_first_entry_of_a_path_over_the_limit_not_one_at_it() -> None:
    entries = [make_entry("src/alpha.js", line) for line in range(2)] + [
        make_entry("src/beta.js", line) for line in range(3)
    ]
    assert receipt_failure(_receipt_per_file(entries, 2)) == (
        "RCPT-37 at receipt/evidence/2/identity/path: expected at most request limits/maxCandidatesPerFile (2) "
        "entries per path; found 3 entries with path 'src/beta.js'"
    )


# ---------------------------------------------------------------- limits at the limit and one past, every member


def both_limits(b: Bundle, **limits: int) -> None:
    """Set request limits in expectedRequest and in the receipt's copy (SB-7 compares them)."""
    for name, value in limits.items():
        put(b, f"expectedRequest/limits/{name}", value)
        put(b, f"receipt/request/limits/{name}", value)


THREE = [("src/alpha.js", 0), ("src/alpha.js", 1), ("src/beta.js", 0)]


def three_entries(b: Bundle) -> None:
    set_evidence(b, [make_entry(path, line) for path, line in THREE])


# ---------------------------------------------------------------- RCPT-35, RCPT-36, RCPT-37: at the limit


def test_RCPT_35_returned_count_equal_to_max_candidates_accepted() -> None:
    validate(mutated(lambda b: (three_entries(b), both_limits(b, maxCandidates=3, maxCandidatesPerFile=2))))


def test_RCPT_35_one_past_max_candidates() -> None:
    b = mutated(lambda b: (three_entries(b), both_limits(b, maxCandidates=2, maxCandidatesPerFile=2)))
    assert_fails(b, "RCPT-35", "receipt/summary/returnedCount")


def test_RCPT_36_evidence_bytes_equal_to_max_accepted_one_past_rejected() -> None:
    validate(mutated(lambda b: (three_entries(b), both_limits(b, maxEvidenceBytes=15))))
    b = mutated(lambda b: (three_entries(b), both_limits(b, maxEvidenceBytes=14)))
    assert_fails(b, "RCPT-36", "receipt/summary/evidenceBytes")


def test_RCPT_37_entries_per_path_equal_to_max_accepted_one_past_rejected() -> None:
    validate(mutated(lambda b: (three_entries(b), both_limits(b, maxCandidatesPerFile=2))))
    b = mutated(lambda b: (three_entries(b), both_limits(b, maxCandidatesPerFile=1)))
    err = assert_fails(b, "RCPT-37", "receipt/evidence/0/identity/path")  # the path's first entry
    assert "2 entries with path 'src/alpha.js'" in str(err)


# ---------------------------------------------------------------- RCPT-33, RCPT-38, RCPT-41


def test_RCPT_33_total_observed_equal_to_returned_accepted_below_rejected() -> None:
    validate(mutated(lambda b: three_entries(b)))
    b = mutated(lambda b: (three_entries(b), put(b, f"{R}/summary/totalObservedCount", 2)))
    assert_fails(b, "RCPT-33", "receipt/summary/totalObservedCount")


@pytest.mark.parametrize(
    ("total", "capped", "rule"),
    [(4, False, "RCPT-38"), (3, True, "RCPT-38"), (4, True, "RCPT-41")],
    ids=["more-observed-not-capped", "equal-but-capped", "capped-but-complete"],
)
def test_RCPT_38_capped_iff_more_observed(total: int, capped: bool, rule: str) -> None:
    def change(b: Bundle) -> None:
        three_entries(b)
        put(b, f"{R}/summary/totalObservedCount", total)
        put(b, f"{R}/summary/capped", capped)

    where = "receipt/summary/capped" if rule == "RCPT-38" else "receipt/summary/complete"
    assert_fails(mutated(change), rule, where)


@pytest.mark.parametrize(
    "change",
    [
        lambda b: put(b, f"{R}/limitations", [{"code": "partial", "message": "m", "affectsCompleteness": True}]),
        lambda b: put(b, f"{R}/backend/outcome", {"status": "timed_out", "exitCode": None, "message": ""}),
        lambda b: put(b, f"{R}/backend/outcome", {"status": "unavailable", "exitCode": None, "message": ""}),
        lambda b: (put(b, f"{R}/summary/totalObservedCount", 2), put(b, f"{R}/summary/capped", True)),
    ],
    ids=["limitation-affects", "timed-out", "unavailable", "capped"],
)
def test_RCPT_41_each_conjunct_of_complete(change: Callable[[Bundle], object]) -> None:
    assert_fails(mutated(change), "RCPT-41", "receipt/summary/complete")


def test_RCPT_41_limitation_not_affecting_completeness_keeps_complete() -> None:
    validate(
        mutated(
            lambda b: put(b, f"{R}/limitations", [{"code": "note", "message": "m", "affectsCompleteness": False}] * 128)
        )
    )


def test_RCPT_39_128_limitations_accepted() -> None:
    validate(
        mutated(
            lambda b: put(b, f"{R}/limitations", [{"code": "n", "message": "m", "affectsCompleteness": False}] * 128)
        )
    )


# ---------------------------------------------------------------- RCPT-7, RCPT-9


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("git:" + "a" * 12, True),
        ("git:" + "a" * 11, False),
        ("x" * 256, True),
        ("x" * 257, False),
        ("A-z_0.9:" * 2, True),
        ("git:" + "a" * 11 + "/", False),
        ("git:" + "a" * 11 + " ", False),
        (None, False),
    ],
    ids=["16", "15", "256", "257", "alphabet", "slash", "space", "null"],
)
def test_RCPT_7_snapshot_id_of_16_to_256_characters(value: object, ok: bool) -> None:
    b = mutated(lambda b: put(b, f"{R}/repository/snapshotId", value))
    if ok:  # RCPT-7 passes; SB-8 then compares with the commit
        assert_fails(b, "SB-8", "receipt/repository/snapshotId")
    else:
        assert_fails(b, "RCPT-7", "receipt/repository/snapshotId")


def test_RCPT_9_stable_needs_equal_fingerprints() -> None:
    other = "git:" + "b" * 40
    assert_fails(
        mutated(lambda b: put(b, f"{R}/repository/observedFingerprint", other)), "RCPT-9", "receipt/repository"
    )


def test_RCPT_9_unstable_may_differ_then_SB_8_rejects() -> None:
    other = "git:" + "b" * 40

    def change(b: Bundle) -> None:
        put(b, f"{R}/repository/observedFingerprint", other)
        put(b, f"{R}/repository/stableAcrossExecution", False)
        put(b, f"{R}/summary/complete", False)

    assert_fails(mutated(change), "SB-8", "receipt/repository/observedFingerprint")


# ---------------------------------------------------------------- RCPT-26: the operation/kind table


def _entry_for(kind: str) -> dict[str, Any]:
    extra: dict[str, Any] = {"kind": kind}
    if kind in ("definition", "reference"):
        extra["symbol"] = "f"
    if kind == "graph_node":
        extra |= {"range": None, "symbol": "f"}
    return extra


@pytest.mark.parametrize(
    ("operation", "kind", "compatible"),
    [
        ("structural_search", "match", True),
        ("ast_query", "match", True),
        ("find_definition", "definition", True),
        ("find_references", "reference", True),
        ("graph_expand", "graph_node", True),
        ("structural_search", "definition", False),
        ("ast_query", "reference", False),
        ("find_definition", "match", False),
        ("find_references", "definition", False),
        ("graph_expand", "match", False),
        ("find_definition", "reference", False),
        ("ast_query", "graph_node", False),
    ],
    ids=lambda v: str(v),
)
def test_RCPT_26_operation_and_kind_compatible(operation: str, kind: str, compatible: bool) -> None:
    def change(b: Bundle) -> None:
        put(b, "receipt/request/operations", [operation])  # expectedRequest keeps Phase-B's operation (SB-2)
        set_evidence(b, [make_entry(operation=operation, **_entry_for(kind))])

    b = mutated(change)
    if not compatible:
        assert_fails(b, "RCPT-26", "receipt/evidence/0/operation")
    elif operation == "structural_search":
        validate(b)
    else:  # every RCPT rule passed; Phase-B on the receipt's request (SB-6) names the operation
        assert_fails(b, "REQ-15", "receipt/request/operations")


def _limitation_with_message(message: str) -> Callable[[dict[str, Any]], None]:
    return lambda b: put(
        b, "receipt/limitations", [{"code": "partial_scan", "message": message, "affectsCompleteness": False}]
    )


def test_RCPT_40_message_of_2000_accepted() -> None:
    validate(mutated(_limitation_with_message("m" * 2000)))


def test_RCPT_40_message_of_2001_rejected() -> None:
    assert_fails(mutated(_limitation_with_message("m" * 2001)), "RCPT-40", "receipt/limitations/0/message")


@pytest.mark.parametrize(
    ("code", "ok"),
    [("p" * 64, True), ("p" * 65, False), ("a", True), ("a_9", True), ("9a", False), ("_a", False)],
    ids=["64", "65", "one", "digit-underscore", "leading-digit", "leading-underscore"],
)
def test_RCPT_40_code_bounds(code: str, ok: bool) -> None:
    b = mutated(lambda b: put(b, "receipt/limitations", [{"code": code, "message": "m", "affectsCompleteness": False}]))
    if ok:
        validate(b)
    else:
        assert_fails(b, "RCPT-40", "receipt/limitations/0/code")


# ---------------------------------------------------------------- whole messages (tests/rules/messages/rcpt.json)

MESSAGES = Snapshot("rcpt")


@pytest.mark.parametrize(("name", "case"), list(bundle_inputs(RCPT_CASES)), ids=ids)
def test_bundle_messages(name: str, case: Any) -> None:
    MESSAGES.check(name, bundle_message(*case))


def test_zz_snapshot_covers_every_row() -> None:
    """Runs last: writes the file in write mode, else checks that it holds exactly this family's rows."""
    MESSAGES.finish(name for name, _ in bundle_inputs(RCPT_CASES))
