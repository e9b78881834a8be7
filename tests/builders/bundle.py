"""The structural bundle of SPEC §11.1 case ``repo-1``, built from its parts, and its one-defect edits.

The UNAVAILABLE rule families (SB, REQ, RCPT, OBS; ``tests/rules/test_sb.py``,
``test_req.py``, ``test_rcpt.py``, ``test_obs.py``) start from
:func:`build_bundle`, change one member (:func:`put`, :func:`drop`,
:func:`set_evidence`), reseal every derived digest and raw text the test does
not target (:func:`reseal`, :func:`mutated`), and assert the first failing
rule and its location (:func:`assert_fails`). It is built independently of
``tests/builders/prepared.py`` on purpose: both must agree with the §11.2
digests (``tests/rules/test_sb.py``).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from ablation.canonical import canonical_digest, raw_digest
from ablation.contracts.structural import (
    StructuralEvidence,
    validate_bundle,
)
from ablation.errors import BundleInvalid
from tests.builders.prepared import MINIMAL_PATHS

QUESTION = "Locate alpha request parsing and validation behavior."
COMMIT = "a" * 40


ITEM_PATHS = frozenset(MINIMAL_PATHS)


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
    """The Phase-B request of SPEC §11.1 for ``question``: three seeds, structural_search, the default limits."""
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
    """Validate ``b`` as case ``repo-1``'s bundle of SPEC §11.1 (its commit and item paths)."""
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
