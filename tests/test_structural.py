"""Tests for ablation.contracts.structural (SB-1 … SB-17, the SPEC §4.12 order, statistics).

This module also holds the bundle builder the other bundle test modules import
(``test_sci_request``, ``test_sci_receipt``, ``test_execution``): it builds the
structural bundle of SPEC §11.1 case ``repo-1`` from its parts and can reseal
every derived digest and raw text after a mutation, so that the rule a test
targets is the first one that fails.
"""

from __future__ import annotations

import contextlib
import copy
import gzip
import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ablation.canonical import canonical_digest, raw_digest
from ablation.contracts.sci_receipt import check_receipt
from ablation.contracts.structural import (
    EVIDENCE_KINDS,
    StructuralEvidence,
    check_bundle_members,
    check_evidence_paths,
    check_receipt_binding,
    path_statistics,
    validate_bundle,
)
from ablation.errors import BundleInvalid
from ablation.strictjson import parse_text

# ---------------------------------------------------------------- the §11.1 bundle

QUESTION = "Locate alpha request parsing and validation behavior."
COMMIT = "a" * 40
ITEM_PATHS = frozenset(
    f"src/{name}.js"
    for name in (
        "alpha",
        "beta",
        "cache",
        "config",
        "exporter",
        "graph",
        "parser",
        "ranking",
        "receipt",
        "runner",
        "security",
        "zeta",
    )
)
SCI_PATH = "/opt/pinned/semantic-code-intelligence"
REQUEST_PATH = "/evidence/prepared-request.json"
WORKFLOW = "structural-evidence-export-v1"

#: SPEC §11.2, case repo-1.
DIGESTS_11_2 = {
    "expectedRequestDigest": "sha256:1446d8d6f56e6ac92cbf0a3e12d9621f29905a63576491548d5596b815b6f9ff",
    "receiptDigest": "sha256:d204767fb25a97af540bdc106e1877504795546dd6310bc525bfcb3bf9871298",
    "requestSha256": "sha256:fb5c08a792d259bf80d50386b08e5f031671ad1af014b1038c7f87d0de46b30b",
    "receiptSha256": "sha256:af4969bb05a5718b22da64c7bf913e46f0453fa6a46f9641995d0c1194e8c597",
    "stderrSha256": "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "processSha256": "sha256:2974ebbacd8c9b9feae97af13c3a2ec659440a720b8ffa4f479ff976b75c734f",
    "stateSha256": "sha256:e5ed33f0c77221d32121a11c6dcee03316853f2715651fd62cdcfc5a17dd5d0e",
    "transcriptSha256": "sha256:357157da27afe03e05cae7b2c46aa241d9bf430a44b39fb2f7acfef9ed25b695",
    "observationDigest": "sha256:fae70fd1ce21b7432d65500dd4d61523a1625746b28eb8c371fb9d00c1225958",
    "candidateId": "candidate:sha256:66430d70df6d03a2e042b45e6033c58fdd9897fa5e6194d332c2afe109829858",
}

Bundle = dict[str, Any]


def dumps(value: object) -> str:
    """The raw-text form of SPEC §11.1: 2-space indent, raw UTF-8, one trailing LF."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def make_entry(
    path: str = "src/alpha.js",
    line: int = 0,
    snippet: str = "alpha",
    *,
    kind: str = "match",
    operation: str = "structural_search",
    **identity_extra: object,
) -> dict[str, Any]:
    """One evidence entry with its id computed; a range on ``line`` unless ``range=None``."""
    identity: dict[str, Any] = {"path": path, "kind": kind}
    rng = identity_extra.pop("range", {"start": {"line": line, "column": 0}, "end": {"line": line, "column": 5}})
    if rng is not None:
        identity["range"] = rng
    identity.update(identity_extra)
    return {
        "id": "candidate:" + canonical_digest(identity),
        "identity": identity,
        "operation": operation,
        "snippet": snippet,
        "byteCount": len(snippet.encode("utf-8")),
        "provenance": {"backend": "ast-grep", "workflow": WORKFLOW},
    }


def make_request(question: str = QUESTION) -> dict[str, Any]:
    return {
        "question": question,
        "seeds": [
            {"id": "seed:language", "kind": "text", "value": "JavaScript"},
            {"id": "seed:pattern", "kind": "text", "value": "$MATCH"},
            {"id": "seed:path", "kind": "path", "value": "src"},
        ],
        "operations": ["structural_search"],
        "limits": {"maxCandidates": 20, "maxCandidatesPerFile": 5, "maxEvidenceBytes": 65536, "timeoutMs": 30000},
    }


def build_bundle(question: str = QUESTION, commit: str = COMMIT) -> Bundle:
    """The structural bundle of SPEC §11.1 for one case, every digest and raw text computed."""
    fingerprint = "git:" + commit
    receipt = {
        "schema": "semantic-code-intelligence.structural_evidence_receipt.v1",
        "request": make_request(question),
        "requestDigest": "",
        "repository": {
            "snapshotId": fingerprint,
            "baseFingerprint": fingerprint,
            "observedFingerprint": fingerprint,
            "stableAcrossExecution": True,
        },
        "producer": {"name": "semantic-code-intelligence", "version": "2.0.0", "workflow": WORKFLOW},
        "backend": {
            "name": "ast-grep",
            "version": "0.40.5",
            "executable": {"name": "ast-grep", "version": "0.40.5"},
            "outcome": {"status": "succeeded", "exitCode": 0, "message": "evidence collected"},
        },
        "evidence": [make_entry()],
        "summary": {"returnedCount": 1, "totalObservedCount": 1, "evidenceBytes": 5, "capped": False, "complete": True},
        "limitations": [],
        "receiptDigest": "",
    }
    observation = {
        "schema": "pi-context-packer.structural_evidence_execution_observation.v2",
        "receiptDigest": "",
        "repositoryCommit": commit,
        "requestArtifact": {"path": REQUEST_PATH, "sha256": ""},
        "command": [SCI_PATH, "experimental", "structural-evidence-receipt", "--request-file", REQUEST_PATH],
        "commandDigest": "",
        "sciArtifact": {
            "name": "semantic-code-intelligence",
            "version": "2.0.0",
            "path": SCI_PATH,
            "revision": "c" * 40,
            "sha256": raw_digest("sci artifact"),
        },
        "backendArtifact": {
            "name": "ast-grep",
            "version": "0.40.5",
            "path": "/opt/pinned/ast-grep",
            "sha256": raw_digest("backend artifact"),
        },
        "rawEvidence": dict.fromkeys(
            (
                "requestJson",
                "requestSha256",
                "receiptJson",
                "receiptSha256",
                "stdout",
                "stdoutSha256",
                "stderr",
                "stderrSha256",
                "transcriptJson",
                "transcriptSha256",
                "processJson",
                "processSha256",
                "stateJson",
                "stateSha256",
            ),
            "",
        ),
        "targetState": {
            "headBefore": commit,
            "headAfter": commit,
            "statusBefore": "",
            "statusAfter": "",
            "cleanBefore": True,
            "cleanAfter": True,
            "noIndex": True,
            "indexRead": False,
            "indexBuilt": False,
            "ontologyBefore": "absent",
            "ontologyAfter": "absent",
        },
        "process": {"exitCode": 0, "receiptCount": 1, "processGroupTerminationConfirmed": True},
        "cleanup": {"completed": True, "temporaryRootsRemoved": True},
        "observationDigest": "",
    }
    bundle = {
        "expectedRequest": make_request(question),
        "expectedRequestDigest": "",
        "expectedProvenance": {
            "producerName": "semantic-code-intelligence",
            "producerVersion": "2.0.0",
            "producerWorkflow": WORKFLOW,
            "backendName": "ast-grep",
            "backendVersion": "0.40.5",
            "executableName": "ast-grep",
            "executableVersion": "0.40.5",
        },
        "receipt": receipt,
        "executionObservation": observation,
    }
    reseal(bundle)
    return bundle


def _minus(obj: dict[str, Any], name: str) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k != name}


def _ids(b: Bundle) -> None:
    for entry in b["receipt"]["evidence"]:
        entry["id"] = "candidate:" + canonical_digest(entry["identity"])


def _raw_texts(b: Bundle) -> None:
    receipt, obs = b["receipt"], b["executionObservation"]
    raw = obs["rawEvidence"]
    raw["requestJson"] = dumps(receipt["request"])
    raw["receiptJson"] = raw["stdout"] = dumps(receipt)
    raw["processJson"] = dumps(obs["process"])
    raw["stateJson"] = dumps(obs["targetState"])


def _raw_shas(b: Bundle) -> None:
    raw = b["executionObservation"]["rawEvidence"]
    for name in ("requestJson", "receiptJson", "stdout", "stderr", "processJson", "stateJson"):
        raw[name.removesuffix("Json") + "Sha256"] = raw_digest(raw[name])


def _transcript(b: Bundle) -> None:
    obs = b["executionObservation"]
    raw = obs["rawEvidence"]
    transcript = {"command": obs["command"], "commandDigest": obs["commandDigest"]}
    for name in ("requestSha256", "receiptSha256", "stdoutSha256", "stderrSha256", "processSha256", "stateSha256"):
        transcript[name] = raw[name]
    raw["transcriptJson"] = dumps(transcript)


#: Reseal steps in dependency order; a mutation names the ones to skip.
_STEPS: tuple[tuple[str, Callable[[Bundle], None]], ...] = (
    ("ids", _ids),
    ("expected_digest", lambda b: b.__setitem__("expectedRequestDigest", canonical_digest(b["expectedRequest"]))),
    ("request_digest", lambda b: b["receipt"].__setitem__("requestDigest", canonical_digest(b["receipt"]["request"]))),
    (
        "receipt_digest",
        lambda b: b["receipt"].__setitem__("receiptDigest", canonical_digest(_minus(b["receipt"], "receiptDigest"))),
    ),
    ("obs_receipt", lambda b: b["executionObservation"].__setitem__("receiptDigest", b["receipt"]["receiptDigest"])),
    (
        "command_digest",
        lambda b: b["executionObservation"].__setitem__(
            "commandDigest", canonical_digest(b["executionObservation"]["command"])
        ),
    ),
    ("raw_texts", _raw_texts),
    ("raw_shas", _raw_shas),
    (
        "artifact_sha",
        lambda b: b["executionObservation"]["requestArtifact"].__setitem__(
            "sha256", b["executionObservation"]["rawEvidence"]["requestSha256"]
        ),
    ),
    ("transcript", _transcript),
    (
        "transcript_sha",
        lambda b: b["executionObservation"]["rawEvidence"].__setitem__(
            "transcriptSha256", raw_digest(b["executionObservation"]["rawEvidence"]["transcriptJson"])
        ),
    ),
    (
        "obs_digest",
        lambda b: b["executionObservation"].__setitem__(
            "observationDigest", canonical_digest(_minus(b["executionObservation"], "observationDigest"))
        ),
    ),
)
ALL_STEPS = frozenset(name for name, _ in _STEPS)


def reseal(b: Bundle, skip: Iterable[str] = ()) -> Bundle:
    """Recompute every derived value not in ``skip``; steps whose inputs a mutation broke are left alone."""
    skipped = frozenset(skip)
    assert skipped <= ALL_STEPS, skipped - ALL_STEPS
    for name, step in _STEPS:
        if name not in skipped:
            # A mutation may break this part's shape; an earlier rule then fires.
            with contextlib.suppress(KeyError, TypeError, AttributeError, IndexError):
                step(b)
    return b


def _walk(b: object, path: str) -> tuple[Any, str | int]:
    parts: list[str | int] = [int(p) if p.isdigit() else p for p in path.split("/")]
    node: Any = b
    for part in parts[:-1]:
        node = node[part]
    return node, parts[-1]


def get(b: object, path: str) -> Any:
    """The value at a slash-separated path (list indexes as digits)."""
    node, last = _walk(b, path)
    return node[last]


def put(b: object, path: str, value: object) -> None:
    """Set the value at a slash-separated path."""
    node, last = _walk(b, path)
    node[last] = value


def drop(b: object, path: str) -> None:
    """Remove the member at a slash-separated path."""
    node, last = _walk(b, path)
    del node[last]


def set_evidence(b: Bundle, entries: list[dict[str, Any]], **summary: object) -> None:
    """Replace the receipt's evidence and make its summary consistent (overrides in ``summary``)."""
    b["receipt"]["evidence"] = entries
    total = len(entries)
    b["receipt"]["summary"] = {
        "returnedCount": total,
        "totalObservedCount": total,
        "evidenceBytes": sum(e["byteCount"] for e in entries),
        "capped": False,
        "complete": True,
    } | summary


def mutated(mutation: Callable[[Bundle], object], skip: Iterable[str] = ()) -> Bundle:
    """Build the valid bundle, apply ``mutation`` and reseal all but ``skip``."""
    b = build_bundle()
    mutation(b)
    return reseal(b, skip)


def validate(b: object, *, question: str = QUESTION) -> StructuralEvidence:
    return validate_bundle(b, question=question, repository_commit=COMMIT, item_paths=ITEM_PATHS)


def assert_fails(b: object, rule: str, where: str, *, question: str = QUESTION) -> BundleInvalid:
    """Validate ``b`` and assert the first failing rule and the start of its location."""
    with pytest.raises(BundleInvalid) as info:
        validate(b, question=question)
    err = info.value
    assert err.rule == rule, str(err)
    assert err.detail.startswith(f"at {where}"), str(err)
    assert "\n" not in str(err)
    return err


def rule_cases(table: list[tuple[str, str, str, Callable[[Bundle], object], Iterable[str]]]) -> list[Any]:
    """Turn (rule, defect, where, mutation, skip) rows into pytest params with ids ``<rule>-<defect>``."""
    return [
        pytest.param(rule, where, mutation, skip, id=f"{rule}-{defect}")
        for rule, defect, where, mutation, skip in table
    ]


# ---------------------------------------------------------------- the valid bundle


def test_valid_bundle_matches_spec_11_2_digests() -> None:
    b = build_bundle()
    raw = b["executionObservation"]["rawEvidence"]
    assert b["expectedRequestDigest"] == DIGESTS_11_2["expectedRequestDigest"]
    assert b["receipt"]["requestDigest"] == DIGESTS_11_2["expectedRequestDigest"]
    assert b["receipt"]["receiptDigest"] == DIGESTS_11_2["receiptDigest"]
    for name in ("requestSha256", "receiptSha256", "stderrSha256", "processSha256", "stateSha256", "transcriptSha256"):
        assert raw[name] == DIGESTS_11_2[name], name
    assert raw["stdoutSha256"] == DIGESTS_11_2["receiptSha256"]
    assert b["executionObservation"]["observationDigest"] == DIGESTS_11_2["observationDigest"]
    assert b["receipt"]["evidence"][0]["id"] == DIGESTS_11_2["candidateId"]


def test_valid_bundle_result() -> None:
    b = build_bundle()
    result = validate(b)
    assert result == StructuralEvidence(
        receipt_digest=DIGESTS_11_2["receiptDigest"],
        request_digest=DIGESTS_11_2["expectedRequestDigest"],
        execution_observation_digest=DIGESTS_11_2["observationDigest"],
        raw_request_sha256=DIGESTS_11_2["requestSha256"],
        raw_receipt_sha256=DIGESTS_11_2["receiptSha256"],
        transcript_sha256=DIGESTS_11_2["transcriptSha256"],
        candidate_ids=(DIGESTS_11_2["candidateId"],),
        path_statistics=result.path_statistics,
        receipt_text_bytes=len(b["executionObservation"]["rawEvidence"]["receiptJson"].encode()),
    )
    assert dict(result.path_statistics) == {"src/alpha.js": (1, 0, 0, 0, 1, 0, 0)}
    with pytest.raises(TypeError):
        result.path_statistics["src/beta.js"] = (0,) * 7  # type: ignore[index]


def test_validation_does_not_mutate_the_bundle() -> None:
    b = build_bundle()
    before = copy.deepcopy(b)
    validate(b)
    assert b == before


def test_spec_11_2_repo_2_digests() -> None:
    b = build_bundle("Trace beta candidate filtering and fallback behavior.")
    result = validate(b, question="Trace beta candidate filtering and fallback behavior.")
    assert result.receipt_digest == "sha256:db596ad8b37d271ab85f33eaf9563c20be6b906007547fcc08769da28e5b0c3c"
    assert (
        result.execution_observation_digest == "sha256:3bb69b23b52efb5b0929af3630eb4f3ddb5f013ce240b25c9a0b00249d63a5b0"
    )


def test_evidence_kinds_order() -> None:
    assert EVIDENCE_KINDS == ("definition", "reference", "match", "graph_node", "graph_edge")


# ---------------------------------------------------------------- SB rules, end to end


def _unknown_member(b: Bundle) -> None:
    b["notes"] = "x"


def _other_workflow(b: Bundle) -> None:
    other = "structural-evidence-export-v2"
    put(b, "expectedProvenance/producerWorkflow", other)
    put(b, "receipt/producer/workflow", other)
    put(b, "receipt/evidence/0/provenance/workflow", other)


def _failed_outcome(b: Bundle) -> None:
    put(b, "receipt/backend/outcome", {"status": "failed", "exitCode": 2, "message": "ast-grep failed"})
    put(b, "receipt/summary/complete", False)


def _incomplete(b: Bundle) -> None:
    b["receipt"]["limitations"] = [
        {"code": "partial_scan", "message": "Scan was partial.", "affectsCompleteness": True}
    ]
    put(b, "receipt/summary/complete", False)


SB_CASES = rule_cases(
    [
        ("SB-1", "null", '""', lambda b: b.clear(), ALL_STEPS),
        ("SB-1", "missing-observation", '""', lambda b: b.pop("executionObservation"), ALL_STEPS),
        ("SB-1", "unknown-member", '""', _unknown_member, ALL_STEPS),
        (
            "SB-3",
            "question-mismatch",
            "expectedRequest/question",
            lambda b: put(b, "expectedRequest/question", "Locate beta."),
            (),
        ),
        (
            "SB-4",
            "digest-mismatch",
            "expectedRequestDigest",
            lambda b: put(b, "expectedRequestDigest", "sha256:" + "0" * 64),
            ALL_STEPS,
        ),
        (
            "SB-4",
            "digest-uppercase",
            "expectedRequestDigest",
            lambda b: put(b, "expectedRequestDigest", b["expectedRequestDigest"].upper()),
            ALL_STEPS,
        ),
        (
            "SB-7",
            "receipt-request-differs",
            "receipt/requestDigest",
            lambda b: put(b, "receipt/request/limits/timeoutMs", 20000),
            (),
        ),
        (
            "SB-8",
            "snapshot-other-commit",
            "receipt/repository/snapshotId",
            lambda b: put(b, "receipt/repository/snapshotId", "git:" + "b" * 40),
            (),
        ),
        (
            "SB-8",
            "not-stable",
            "receipt/repository/stableAcrossExecution",
            lambda b: (
                put(b, "receipt/repository/stableAcrossExecution", False),
                put(b, "receipt/summary/complete", False),
            ),
            (),
        ),
        (
            "SB-9",
            "provenance-unknown-member",
            "expectedProvenance",
            lambda b: put(b, "expectedProvenance/extra", 1),
            (),
        ),
        ("SB-9", "provenance-null", "expectedProvenance", lambda b: put(b, "expectedProvenance", None), ()),
        (
            "SB-10",
            "producer-version",
            "expectedProvenance/producerVersion",
            lambda b: put(b, "expectedProvenance/producerVersion", "2.0.1"),
            (),
        ),
        (
            "SB-10",
            "producer-name-type",
            "expectedProvenance/producerName",
            lambda b: put(b, "expectedProvenance/producerName", 1),
            (),
        ),
        (
            "SB-11",
            "backend-version",
            "expectedProvenance/backendVersion",
            lambda b: put(b, "expectedProvenance/backendVersion", "0.41.0"),
            (),
        ),
        (
            "SB-11",
            "executable-name",
            "expectedProvenance/executableName",
            lambda b: put(b, "expectedProvenance/executableName", "sg"),
            (),
        ),
        ("SB-12", "workflow-posture", "expectedProvenance/producerWorkflow", _other_workflow, ()),
        ("SB-13", "failed-outcome", "receipt/backend/outcome/status", _failed_outcome, ()),
        ("SB-13", "incomplete-limitation", "receipt/summary/complete", _incomplete, ()),
        (
            "SB-15",
            "path-outside-inventory",
            "receipt/evidence/0/identity/path",
            lambda b: put(b, "receipt/evidence/0/identity/path", "src/missing.js"),
            (),
        ),
    ]
)


def test_SB_messages_spell_json_constants_as_json() -> None:
    not_stable = mutated(lambda b: (put(b, "receipt/repository/stableAcrossExecution", False),
                                    put(b, "receipt/summary/complete", False)))  # fmt: skip
    err = assert_fails(not_stable, "SB-8", "receipt/repository/stableAcrossExecution")
    assert err.detail == "at receipt/repository/stableAcrossExecution: expected true; found false"
    err = assert_fails(mutated(_incomplete), "SB-13", "receipt/summary/complete")
    assert err.detail == "at receipt/summary/complete: expected true; found false"


@pytest.mark.parametrize(("rule", "where", "mutation", "skip"), SB_CASES)
def test_rule(rule: str, where: str, mutation: Callable[[Bundle], object], skip: Iterable[str]) -> None:
    assert_fails(mutated(mutation, skip), rule, where)


@pytest.mark.parametrize(
    "value",
    [None, False, 0, "bundle", [], [build_bundle()]],
    ids=["null", "false", "zero", "string", "empty-array", "array-of-bundle"],
)
def test_SB_1_non_object(value: object) -> None:
    err = assert_fails(value, "SB-1", '""')
    assert str(err).startswith('SB-1 at "": expected an object Closed{expectedRequest, expectedRequestDigest, ')


def test_SB_2_reports_the_REQ_rule_at_expectedRequest() -> None:
    b = mutated(lambda b: put(b, "expectedRequest/seeds/1/value", "/home/x"), ())
    err = assert_fails(b, "REQ-7", "expectedRequest/seeds/1/value")
    assert str(err) == "REQ-7 at expectedRequest/seeds/1/value: expected a Portable NBText(4096); found '/home/x'"


def test_SB_3_compares_with_the_case_question() -> None:
    err = assert_fails(build_bundle(), "SB-3", "expectedRequest/question", question="Trace beta candidate filtering.")
    assert "found 'Locate alpha request parsing and validation behavior.'" in str(err)


def test_SB_5_reports_the_RCPT_rule() -> None:
    assert_fails(mutated(lambda b: put(b, "receipt/schema", "v0"), ()), "RCPT-2", "receipt/schema")


def test_SB_6_phase_b_on_receipt_request() -> None:
    b = mutated(lambda b: put(b, "receipt/request/operations", ["structural_search", "ast_query"]), ())
    assert_fails(b, "REQ-15", "receipt/request/operations")


def test_SB_6_runs_after_the_receipt_rules() -> None:
    # receipt/request breaks Phase-B (SB-6) and the receipt breaks RCPT-41: RCPT-41 comes first.
    def mutation(b: Bundle) -> None:
        put(b, "receipt/request/operations", ["structural_search", "ast_query"])
        put(b, "receipt/summary/complete", 1)

    assert_fails(mutated(mutation), "RCPT-41", "receipt/summary/complete")


def test_SB_7_canonical_request_inequality_alone() -> None:
    # Digests agree (both recomputed) but the request is not canonically equal: impossible without a
    # collision, so exercise the second half of SB-7 through check_receipt_binding directly.
    b = build_bundle()
    checked = check_receipt(b["receipt"])
    with pytest.raises(BundleInvalid) as info:
        check_receipt_binding(b, checked, expected_request_text="{}", repository_commit=COMMIT)
    assert info.value.rule == "SB-7"
    assert info.value.detail.startswith("at receipt/request:")


def test_SB_14_reports_the_OBS_rule() -> None:
    assert_fails(
        mutated(lambda b: put(b, "executionObservation/cleanup/completed", False)),
        "OBS-19",
        "executionObservation/cleanup/completed",
    )


# ---------------------------------------------------------------- SB-15 … SB-17 directly


def _edge(path: str, symbol: str, related_path: str, related_symbol: str) -> dict[str, Any]:
    return make_entry(
        path,
        kind="graph_edge",
        operation="graph_expand",
        range=None,
        symbol=symbol,
        relatedPath=related_path,
        relatedSymbol=related_symbol,
        edgeType="import",
    )


def test_SB_15_direct() -> None:
    with pytest.raises(BundleInvalid) as info:
        check_evidence_paths([make_entry(), make_entry("lib/x.js")], ITEM_PATHS)
    assert info.value.rule == "SB-15"
    assert str(info.value) == (
        "SB-15 at receipt/evidence/1/identity/path: expected the path of an item of the repository; found 'lib/x.js'"
    )


def test_SB_16_self_edge_direct() -> None:
    evidence = [make_entry(), _edge("src/graph.js", "f", "src/graph.js", "f")]
    with pytest.raises(BundleInvalid) as info:
        check_evidence_paths(evidence, ITEM_PATHS)
    assert info.value.rule == "SB-16"
    assert info.value.detail.startswith("at receipt/evidence/1/identity:")


def test_SB_16_same_path_other_symbol_is_fine() -> None:
    check_evidence_paths([_edge("src/graph.js", "f", "src/graph.js", "g")], ITEM_PATHS)


def test_SB_17_related_path_outside_inventory_direct() -> None:
    with pytest.raises(BundleInvalid) as info:
        check_evidence_paths([_edge("src/graph.js", "f", "src/missing.js", "g")], ITEM_PATHS)
    assert info.value.rule == "SB-17"
    assert info.value.detail.startswith("at receipt/evidence/0/identity/relatedPath:")


def test_SB_15_before_SB_16_before_SB_17_per_entry() -> None:
    entry_0 = _edge("src/graph.js", "f", "src/missing.js", "g")  # SB-17
    entry_1 = make_entry("lib/x.js")  # SB-15
    with pytest.raises(BundleInvalid) as info:
        check_evidence_paths([entry_0, entry_1], ITEM_PATHS)
    assert info.value.rule == "SB-17"
    with pytest.raises(BundleInvalid) as info:
        check_evidence_paths([_edge("lib/g.js", "f", "lib/g.js", "f")], ITEM_PATHS)
    assert info.value.rule == "SB-15"


def test_check_bundle_members_returns_the_object() -> None:
    b = build_bundle()
    assert check_bundle_members(b) is b


# ---------------------------------------------------------------- statistics and order independence


def _three_entries() -> list[dict[str, Any]]:
    return [
        make_entry("src/beta.js", 0),
        make_entry("src/alpha.js", 1),
        make_entry("src/beta.js", 2, "beta beta"),
    ]


def test_evidence_order_reversal_gives_same_ids_and_statistics() -> None:
    forward = mutated(lambda b: set_evidence(b, _three_entries()))
    backward = mutated(lambda b: set_evidence(b, _three_entries()[::-1]))
    a, z = validate(forward), validate(backward)
    assert a.receipt_digest != z.receipt_digest
    assert a.candidate_ids == z.candidate_ids == tuple(sorted(a.candidate_ids))
    assert len(a.candidate_ids) == 3
    assert a.path_statistics == z.path_statistics
    assert list(a.path_statistics) == list(z.path_statistics) == ["src/alpha.js", "src/beta.js"]
    assert dict(a.path_statistics) == {"src/alpha.js": (1, 0, 0, 0, 1, 0, 0), "src/beta.js": (2, 0, 0, 0, 2, 0, 0)}


def test_path_statistics_all_kinds() -> None:
    evidence = [
        make_entry("a", kind="definition", symbol="f"),
        make_entry("a", kind="reference", symbol="f"),
        make_entry("b", kind="graph_node", symbol="g", range=None),
        _edge("b", "g", "c", "h"),
        _edge("b", "g", "a", "f"),
        make_entry("c"),
    ]
    stats = path_statistics(evidence)  # type: ignore[arg-type]
    assert dict(stats) == {
        "a": (2, 1, 1, 1, 0, 0, 0),
        "b": (3, 0, 0, 0, 0, 1, 2),
        "c": (1, 1, 0, 0, 1, 0, 0),
    }
    assert dict(path_statistics(evidence[::-1])) == dict(stats)  # type: ignore[arg-type]


def test_empty_evidence_is_valid() -> None:
    result = validate(mutated(lambda b: set_evidence(b, [])))
    assert result.candidate_ids == ()
    assert dict(result.path_statistics) == {}


def test_candidate_ids_sorted_by_code_point() -> None:
    entries = [make_entry("src/alpha.js", line) for line in range(5)]
    result = validate(mutated(lambda b: set_evidence(b, entries)))
    assert list(result.candidate_ids) == sorted(e["id"] for e in entries)


# ---------------------------------------------------------------- the §4.12 order across groups


ORDER_CASES = [
    pytest.param(
        lambda b: (put(b, "expectedRequest/seeds/0/value", "Java  Script"), put(b, "expectedRequest/question", "x")),
        "REQ-9",
        (),
        id="REQ-before-SB-3",
    ),
    pytest.param(
        lambda b: (put(b, "expectedRequestDigest", "bad"), put(b, "receipt/schema", "bad")),
        "SB-4",
        ALL_STEPS,
        id="SB-4-before-receipt",
    ),
    pytest.param(
        lambda b: (put(b, "receipt/requestDigest", "sha256:" + "1" * 64), put(b, "receipt/repository", None)),
        "RCPT-4",
        {"request_digest"},
        id="RCPT-4-before-RCPT-6",
    ),
    pytest.param(
        lambda b: set_evidence(b, [make_entry(snippet=" "), make_entry(kind="symbol")]),
        "RCPT-27",
        (),
        id="entry-by-entry",
    ),
    pytest.param(
        lambda b: (set_evidence(b, [make_entry(), make_entry()]), put(b, "receipt/limitations", {})),
        "RCPT-30",
        (),
        id="RCPT-30-before-RCPT-39",
    ),
    pytest.param(
        lambda b: (put(b, "receipt/summary/complete", 1), put(b, "expectedProvenance", None)),
        "RCPT-41",
        (),
        id="receipt-before-SB-9",
    ),
    pytest.param(
        lambda b: (put(b, "expectedProvenance", None), put(b, "executionObservation/schema", "x")),
        "SB-9",
        (),
        id="SB-9-before-observation",
    ),
    pytest.param(
        lambda b: (
            put(b, "executionObservation/cleanup/completed", False),
            put(b, "executionObservation/rawEvidence/stderr", "warn"),
        ),
        "OBS-19",
        (),
        id="OBS-19-before-OBS-30",
    ),
    pytest.param(
        lambda b: (
            put(b, "executionObservation/requestArtifact/sha256", "sha256:" + "2" * 64),
            put(b, "receipt/evidence/0/identity/path", "src/missing.js"),
        ),
        "OBS-37",
        {"artifact_sha"},
        id="observation-before-SB-15",
    ),
]


@pytest.mark.parametrize(("mutation", "rule", "skip"), ORDER_CASES)
def test_first_failing_rule_in_spec_order(mutation: Callable[[Bundle], object], rule: str, skip: Iterable[str]) -> None:
    b = mutated(mutation, skip)
    with pytest.raises(BundleInvalid) as info:
        validate(b)
    assert info.value.rule == rule, str(info.value)


# ---------------------------------------------------------------- robustness: never a crash

_json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
)
_json_values = st.recursive(
    _json_scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=8,
)


def _node_paths(value: object, prefix: str = "") -> list[str]:
    out: list[str] = []
    items: Iterable[tuple[Any, Any]] = ()
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    for key, child in items:
        path = f"{prefix}/{key}" if prefix else str(key)
        if "/" in str(key):
            continue
        out.append(path)
        out.extend(_node_paths(child, path))
    return out


_BASE = build_bundle()
_PATHS = _node_paths(_BASE)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(st.sampled_from(_PATHS), _json_values, st.booleans()), min_size=1, max_size=3),
    st.booleans(),
)
def test_any_mutation_is_a_rule_or_valid(changes: list[tuple[str, object, bool]], do_reseal: bool) -> None:
    b = copy.deepcopy(_BASE)
    for path, value, remove in changes:
        try:
            if remove:
                drop(b, path)
            else:
                put(b, path, value)
        except (KeyError, IndexError, TypeError):
            continue
    if do_reseal:
        reseal(b)
    try:
        validate(b)
    except BundleInvalid as err:
        assert err.rule.split("-")[0] in {"SB", "REQ", "RCPT", "OBS"}
        assert "\n" not in str(err)


# ---------------------------------------------------------------- performance


def test_ten_thousand_entries_validate_quickly() -> None:
    paths = sorted(ITEM_PATHS)
    entries = [make_entry(paths[k % len(paths)], k, f"alpha {k}") for k in range(10_000)]

    def mutation(b: Bundle) -> None:
        for where in ("expectedRequest", "receipt/request"):
            put(b, f"{where}/limits/maxCandidates", 10_000)
            put(b, f"{where}/limits/maxCandidatesPerFile", 10_000)
            put(b, f"{where}/limits/maxEvidenceBytes", 1_000_000)
        set_evidence(b, entries)

    b = mutated(mutation)
    start = time.perf_counter()
    result = validate(b)
    elapsed = time.perf_counter() - start
    assert len(result.candidate_ids) == 10_000
    assert sum(row[0] for row in result.path_statistics.values()) == 10_000
    assert elapsed < 5.0, elapsed


# ---------------------------------------------------------------- the shared conformance corpus

_CORPUS = Path(__file__).resolve().parents[2] / "shared"


def _corpus_inputs() -> list[Any]:
    found = []
    conformance = _CORPUS / "conformance"
    if conformance.is_dir():
        for folder in sorted(conformance.iterdir()):
            if (folder / "reference-output.json").is_file():
                found.append(pytest.param(folder / "input.json", folder / "reference-output.json", id=folder.name))
    inputs = _CORPUS / "inputs"
    if (inputs / "realistic-structural.json.gz").is_file():
        found.append(
            pytest.param(
                inputs / "realistic-structural.json.gz",
                inputs / "realistic-structural.reference-output.json.gz",
                id="realistic-structural",
            )
        )
    return found or [pytest.param(None, None, marks=pytest.mark.skip(reason="no shared corpus"))]


def _read(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


@pytest.mark.parametrize(("input_path", "output_path"), _corpus_inputs())
def test_structural_availability_matches_reference(input_path: Path, output_path: Path) -> None:
    """Every bundle of the accepted corpus inputs is valid exactly where the reference's structural arm is available."""
    parsed = parse_text(_read(input_path).decode("utf-8"))
    sb0_cases = {
        v.path[1] for v in parsed.violations if v.path[:1] == ("cases",) and v.path[2:3] == ("structuralEvidence",)
    }
    document: Any = parsed.value
    reference = {c["id"]: c for c in json.loads(_read(output_path))["result"]["cases"]}
    repositories = {r["id"]: r for r in document["repositories"]}
    items = {
        rid: frozenset(item["path"] for item in json.loads(r["sourceListArtifact"]["rawJson"])["items"])
        for rid, r in repositories.items()
    }
    for c, case in enumerate(document["cases"]):
        if c in sb0_cases:
            available = False
        else:
            repository = repositories[case["repositoryId"]]
            try:
                validate_bundle(
                    case["structuralEvidence"],
                    question=case["question"],
                    repository_commit=repository["commit"],
                    item_paths=items[case["repositoryId"]],
                )
                available = True
            except BundleInvalid:
                available = False
        assert reference[case["id"]]["arms"]["structural"]["available"] is available, case["id"]
