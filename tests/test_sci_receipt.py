"""Tests for ablation.contracts.sci_receipt: RCPT-1 … RCPT-41 and their order.

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

try:
    from test_structural import (
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
except ImportError:  # pragma: no cover - importlib import mode
    from tests.test_structural import (
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
