"""OBS — the execution observation, raw evidence and transcript (SPEC §4.11: OBS-1 … OBS-37).

Checked by ``ablation.contracts.execution`` and ``raw_evidence``.

Every row mutates the execution observation (or its raw texts) of the
SPEC §11.1 bundle, reseals the digests that earlier rules check unless the row
skips them, and asserts the first failing rule and its location.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from ablation.canonical import canonical_digest, raw_digest
from ablation.contracts.execution import check_observation
from ablation.contracts.raw_evidence import RAW_TEXT_MAX_BYTES, _check_text, show_command
from ablation.contracts.sci_receipt import check_receipt
from ablation.contracts.structural import validate_bundle
from ablation.errors import BundleInvalid
from tests.builders.bundle import (
    COMMIT,
    DIGESTS_11_2,
    Bundle,
    assert_fails,
    build_bundle,
    drop,
    dumps,
    get,
    mutated,
    put,
    rule_cases,
    validate,
)
from tests.builders.messages import Snapshot, bundle_inputs, bundle_message, ids

OB = "executionObservation"
RAW = f"{OB}/rawEvidence"
TEXTS = {"raw_texts"}


def _edit(path: str, value: object) -> Callable[[Bundle], None]:
    return lambda b: put(b, path, value)


def _text(name: str, change: Callable[[str], str]) -> Callable[[Bundle], None]:
    """Rewrite one raw text from its current value."""
    return lambda b: put(b, f"{RAW}/{name}", change(get(b, f"{RAW}/{name}")))


def _transcript(**changes: object) -> Callable[[Bundle], None]:
    """Write a transcript from the observation's values with ``changes`` (``None`` drops a member)."""

    def mutation(b: Bundle) -> None:
        obs = b[OB]
        raw = obs["rawEvidence"]
        transcript: dict[str, Any] = {"command": obs["command"], "commandDigest": obs["commandDigest"]}
        for name in ("requestSha256", "receiptSha256", "stdoutSha256", "stderrSha256", "processSha256", "stateSha256"):
            transcript[name] = raw[name]
        for name, value in changes.items():
            if value is None:
                del transcript[name]
            else:
                transcript[name] = value
        raw["transcriptJson"] = dumps(transcript)

    return mutation


def _request_text(change: Callable[[dict[str, Any]], None]) -> Callable[[Bundle], None]:
    def mutation(b: Bundle) -> None:
        request = json.loads(json.dumps(b["receipt"]["request"]))
        change(request)
        put(b, f"{RAW}/requestJson", dumps(request))

    return mutation


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


OBS_CASES = rule_cases(
    [
        ("OBS-1", "null", OB, _edit(OB, None), ()),
        ("OBS-1", "unknown-member", OB, _edit(f"{OB}/notes", "x"), ()),
        ("OBS-1", "missing-cleanup", OB, lambda b: drop(b, f"{OB}/cleanup"), ()),
        (
            "OBS-2",
            "schema-v1",
            f"{OB}/schema",
            _edit(f"{OB}/schema", "pi-context-packer.structural_evidence_execution_observation.v1"),
            (),
        ),
        (
            "OBS-3",
            "digest-mismatch",
            f"{OB}/observationDigest",
            _edit(f"{OB}/observationDigest", "sha256:" + "0" * 64),
            {"obs_digest"},
        ),
        ("OBS-3", "digest-stale", f"{OB}/observationDigest", _edit(f"{OB}/rawEvidence/stderr", "late"), {"obs_digest"}),
        (
            "OBS-4",
            "receipt-binding",
            f"{OB}/receiptDigest",
            _edit(f"{OB}/receiptDigest", "sha256:" + "1" * 64),
            {"obs_receipt"},
        ),
        ("OBS-5", "other-commit", f"{OB}/repositoryCommit", _edit(f"{OB}/repositoryCommit", "b" * 40), ()),
        ("OBS-5", "commit-null", f"{OB}/repositoryCommit", _edit(f"{OB}/repositoryCommit", None), ()),
        (
            "OBS-6",
            "request-path-relative",
            f"{OB}/requestArtifact/path",
            _edit(f"{OB}/requestArtifact/path", "evidence/prepared-request.json"),
            (),
        ),
        (
            "OBS-6",
            "request-path-blank",
            f"{OB}/requestArtifact/path",
            _edit(f"{OB}/requestArtifact/path", "/ "[1:]),
            (),
        ),
        (
            "OBS-6",
            "request-sha-uppercase",
            f"{OB}/requestArtifact/sha256",
            lambda b: put(b, f"{OB}/requestArtifact/sha256", get(b, f"{RAW}/requestSha256").upper()),
            {"artifact_sha"},
        ),
        ("OBS-6", "request-artifact-extra", f"{OB}/requestArtifact", _edit(f"{OB}/requestArtifact/size", 1), ()),
        ("OBS-7", "sci-missing-revision", f"{OB}/sciArtifact", lambda b: drop(b, f"{OB}/sciArtifact/revision"), ()),
        ("OBS-7", "sci-null", f"{OB}/sciArtifact", _edit(f"{OB}/sciArtifact", None), ()),
        ("OBS-8", "sci-version", f"{OB}/sciArtifact/version", _edit(f"{OB}/sciArtifact/version", "2.0.1"), ()),
        ("OBS-8", "sci-name", f"{OB}/sciArtifact/name", _edit(f"{OB}/sciArtifact/name", "sci"), ()),
        ("OBS-9", "sci-path-relative", f"{OB}/sciArtifact/path", _edit(f"{OB}/sciArtifact/path", "opt/sci"), ()),
        ("OBS-9", "sci-revision-branch", f"{OB}/sciArtifact/revision", _edit(f"{OB}/sciArtifact/revision", "main"), ()),
        ("OBS-9", "sci-revision-39", f"{OB}/sciArtifact/revision", _edit(f"{OB}/sciArtifact/revision", "c" * 39), ()),
        (
            "OBS-9",
            "sci-revision-uppercase",
            f"{OB}/sciArtifact/revision",
            _edit(f"{OB}/sciArtifact/revision", "C" * 40),
            (),
        ),
        ("OBS-9", "sci-sha", f"{OB}/sciArtifact/sha256", _edit(f"{OB}/sciArtifact/sha256", "sha256:XYZ"), ()),
        ("OBS-10", "backend-revision", f"{OB}/backendArtifact", _edit(f"{OB}/backendArtifact/revision", "d" * 40), ()),
        ("OBS-10", "backend-null", f"{OB}/backendArtifact", _edit(f"{OB}/backendArtifact", None), ()),
        (
            "OBS-11",
            "backend-version",
            f"{OB}/backendArtifact/version",
            _edit(f"{OB}/backendArtifact/version", "0.40.6"),
            (),
        ),
        ("OBS-11", "backend-name", f"{OB}/backendArtifact/name", _edit(f"{OB}/backendArtifact/name", "sg"), ()),
        ("OBS-12", "backend-path", f"{OB}/backendArtifact/path", _edit(f"{OB}/backendArtifact/path", "ast-grep"), ()),
        (
            "OBS-12",
            "backend-sha",
            f"{OB}/backendArtifact/sha256",
            _edit(f"{OB}/backendArtifact/sha256", "sha256:XYZ"),
            (),
        ),
        (
            "OBS-12",
            "backend-sha-newline",
            f"{OB}/backendArtifact/sha256",
            lambda b: _append(b, f"{OB}/backendArtifact/sha256", "\n"),
            (),
        ),
        ("OBS-13", "extra-flag", f"{OB}/command", lambda b: get(b, f"{OB}/command").append("--version"), ()),
        (
            "OBS-13",
            "other-request-file",
            f"{OB}/command",
            lambda b: put(b, f"{OB}/command/4", "/evidence/other.json"),
            (),
        ),
        ("OBS-13", "other-subcommand", f"{OB}/command", lambda b: put(b, f"{OB}/command/2", "receipt"), ()),
        ("OBS-13", "command-string", f"{OB}/command", _edit(f"{OB}/command", "sci experimental"), ()),
        (
            "OBS-14",
            "command-digest",
            f"{OB}/commandDigest",
            _edit(f"{OB}/commandDigest", "sha256:" + "2" * 64),
            {"command_digest"},
        ),
        ("OBS-15", "state-extra", f"{OB}/targetState", _edit(f"{OB}/targetState/dirty", False), ()),
        ("OBS-15", "state-missing", f"{OB}/targetState", lambda b: drop(b, f"{OB}/targetState/noIndex"), ()),
        ("OBS-16", "head-after", f"{OB}/targetState/headAfter", _edit(f"{OB}/targetState/headAfter", "b" * 40), ()),
        ("OBS-16", "head-before-null", f"{OB}/targetState/headBefore", _edit(f"{OB}/targetState/headBefore", None), ()),
        (
            "OBS-16",
            "status-after",
            f"{OB}/targetState/statusAfter",
            _edit(f"{OB}/targetState/statusAfter", " M src/a.js"),
            (),
        ),
        ("OBS-16", "clean-after-1", f"{OB}/targetState/cleanAfter", _edit(f"{OB}/targetState/cleanAfter", 1), ()),
        ("OBS-17", "no-index-false", f"{OB}/targetState/noIndex", _edit(f"{OB}/targetState/noIndex", False), ()),
        ("OBS-17", "index-read", f"{OB}/targetState/indexRead", _edit(f"{OB}/targetState/indexRead", True), ()),
        ("OBS-17", "index-built-0", f"{OB}/targetState/indexBuilt", _edit(f"{OB}/targetState/indexBuilt", 0), ()),
        (
            "OBS-17",
            "ontology-present",
            f"{OB}/targetState/ontologyAfter",
            _edit(f"{OB}/targetState/ontologyAfter", "present"),
            (),
        ),
        ("OBS-18", "exit-false-is-not-0", f"{OB}/process/exitCode", _edit(f"{OB}/process/exitCode", False), ()),
        (
            "OBS-18",
            "receipts-true-is-not-1",
            f"{OB}/process/receiptCount",
            _edit(f"{OB}/process/receiptCount", True),
            (),
        ),
        (
            "OBS-18",
            "group-not-terminated",
            f"{OB}/process/processGroupTerminationConfirmed",
            _edit(f"{OB}/process/processGroupTerminationConfirmed", False),
            (),
        ),
        ("OBS-18", "process-missing", f"{OB}/process", lambda b: drop(b, f"{OB}/process/receiptCount"), ()),
        ("OBS-19", "cleanup-incomplete", f"{OB}/cleanup/completed", _edit(f"{OB}/cleanup/completed", False), ()),
        (
            "OBS-19",
            "roots-1",
            f"{OB}/cleanup/temporaryRootsRemoved",
            _edit(f"{OB}/cleanup/temporaryRootsRemoved", 1),
            (),
        ),
        ("OBS-19", "cleanup-extra", f"{OB}/cleanup", _edit(f"{OB}/cleanup/log", ""), ()),
        ("OBS-20", "raw-extra", RAW, _edit(f"{RAW}/exitJson", "{}"), ()),
        ("OBS-20", "raw-missing", RAW, lambda b: drop(b, f"{RAW}/stateSha256"), {"raw_shas"}),
        ("OBS-20", "raw-null", RAW, _edit(RAW, None), ()),
        ("OBS-21", "request-empty", f"{RAW}/requestJson", _edit(f"{RAW}/requestJson", ""), TEXTS),
        ("OBS-21", "request-not-string", f"{RAW}/requestJson", _edit(f"{RAW}/requestJson", {"question": "x"}), TEXTS),
        (
            "OBS-21",
            "request-sha-mismatch",
            f"{RAW}/requestSha256",
            _edit(f"{RAW}/requestSha256", "sha256:" + "3" * 64),
            {"raw_shas", "artifact_sha"},
        ),
        (
            "OBS-21",
            "request-sha-not-digest",
            f"{RAW}/requestSha256",
            _edit(f"{RAW}/requestSha256", "fb5c08a7"),
            {"raw_shas", "artifact_sha"},
        ),
        (
            "OBS-21",
            "request-too-many-bytes",
            f"{RAW}/requestJson",
            _edit(f"{RAW}/requestJson", "\u00e9" * 8_388_609),
            TEXTS,
        ),
        ("OBS-22", "request-truncated", f"{RAW}/requestJson -> character 1", _edit(f"{RAW}/requestJson", "{"), TEXTS),
        (
            "OBS-22",
            "request-bom",
            f"{RAW}/requestJson -> character 0",
            _text("requestJson", lambda t: "\ufeff" + t),
            TEXTS,
        ),
        (
            "OBS-22",
            "request-trailing-data",
            f"{RAW}/requestJson -> character",
            _text("requestJson", lambda t: t + "{}"),
            TEXTS,
        ),
        (
            "OBS-22",
            "request-nan",
            f"{RAW}/requestJson -> character",
            _text("requestJson", lambda t: t.replace("30000", "NaN")),
            TEXTS,
        ),
        (
            "OBS-22",
            "request-fraction",
            f"{RAW}/requestJson -> /limits/timeoutMs",
            _text("requestJson", lambda t: t.replace("30000", "30000.0")),
            TEXTS,
        ),
        (
            "OBS-22",
            "request-duplicate",
            f"{RAW}/requestJson -> /question",
            _text("requestJson", lambda t: t.replace("{", '{"question": "x",', 1)),
            TEXTS,
        ),
        ("OBS-23", "receipt-empty", f"{RAW}/receiptJson", _edit(f"{RAW}/receiptJson", ""), TEXTS),
        (
            "OBS-23",
            "receipt-sha-mismatch",
            f"{RAW}/receiptSha256",
            _edit(f"{RAW}/receiptSha256", "sha256:" + "4" * 64),
            {"raw_shas"},
        ),
        (
            "OBS-24",
            "receipt-1e400",
            f"{RAW}/receiptJson -> /evidence/0/byteCount",
            _text("receiptJson", lambda t: t.replace('"byteCount": 5', '"byteCount": 1e400')),
            TEXTS,
        ),
        (
            "OBS-24",
            "receipt-unsafe-integer",
            f"{RAW}/receiptJson -> /summary/evidenceBytes",
            _text("receiptJson", lambda t: t.replace('"evidenceBytes": 5', '"evidenceBytes": 9007199254740993')),
            TEXTS,
        ),
        (
            "OBS-24",
            "receipt-lone-surrogate",
            f"{RAW}/receiptJson -> /evidence/0/snippet",
            _text("receiptJson", lambda t: t.replace('"snippet": "alpha"', '"snippet": "\\ud800"')),
            TEXTS,
        ),
        (
            "OBS-24",
            "receipt-too-deep",
            f"{RAW}/receiptJson -> /limitations",
            _text("receiptJson", lambda t: t.replace('"limitations": []', '"limitations": ' + _deep(300))),
            TEXTS,
        ),
        (
            "OBS-24",
            "receipt-infinity",
            f"{RAW}/receiptJson -> character",
            _text("receiptJson", lambda t: t.replace('"byteCount": 5', '"byteCount": -Infinity')),
            TEXTS,
        ),
        (
            "OBS-25",
            "request-text-differs",
            f"{RAW}/requestJson",
            _request_text(lambda r: r["limits"].update(timeoutMs=20000)),
            TEXTS,
        ),
        (
            "OBS-25",
            "request-text-true-for-1",
            f"{RAW}/requestJson",
            _text("requestJson", lambda t: t.replace('"maxCandidatesPerFile": 5', '"maxCandidatesPerFile": true')),
            TEXTS,
        ),
        (
            "OBS-26",
            "receipt-complete-1-for-true",
            f"{RAW}/receiptJson",
            _text("receiptJson", lambda t: t.replace('"complete": true', '"complete": 1')),
            TEXTS,
        ),
        (
            "OBS-26",
            "receipt-text-other-receipt",
            f"{RAW}/receiptJson",
            _text("receiptJson", lambda t: t.replace('"evidence collected"', '"done"')),
            TEXTS,
        ),
        ("OBS-27", "stdout-empty", f"{RAW}/stdout", _edit(f"{RAW}/stdout", ""), TEXTS),
        (
            "OBS-27",
            "stdout-sha-mismatch",
            f"{RAW}/stdoutSha256",
            _edit(f"{RAW}/stdoutSha256", DIGESTS_11_2["requestSha256"]),
            {"raw_shas"},
        ),
        ("OBS-28", "stderr-null", f"{RAW}/stderr", _edit(f"{RAW}/stderr", None), ()),
        (
            "OBS-28",
            "stderr-sha-mismatch",
            f"{RAW}/stderrSha256",
            _edit(f"{RAW}/stderrSha256", raw_digest("x")),
            {"raw_shas"},
        ),
        ("OBS-29", "stdout-extra-newline", f"{RAW}/stdout", _text("stdout", lambda t: t + "\n"), TEXTS),
        (
            "OBS-29",
            "stdout-compact",
            f"{RAW}/stdout",
            lambda b: put(b, f"{RAW}/stdout", json.dumps(b["receipt"])),
            TEXTS,
        ),
        ("OBS-30", "stderr-warning", f"{RAW}/stderr", _edit(f"{RAW}/stderr", "warning: slow"), ()),
        (
            "OBS-31",
            "process-duplicate",
            f"{RAW}/processJson -> /exitCode",
            _text("processJson", lambda t: t.replace("{", '{"exitCode": 0,', 1)),
            TEXTS,
        ),
        ("OBS-31", "process-empty", f"{RAW}/processJson", _edit(f"{RAW}/processJson", ""), TEXTS),
        ("OBS-31", "process-not-string", f"{RAW}/processJson", _edit(f"{RAW}/processJson", None), TEXTS),
        (
            "OBS-31",
            "process-sha-mismatch",
            f"{RAW}/processSha256",
            _edit(f"{RAW}/processSha256", raw_digest("{}")),
            {"raw_shas"},
        ),
        (
            "OBS-31",
            "state-grammar",
            f"{RAW}/stateJson -> character",
            _text("stateJson", lambda t: t.rstrip("\n}")),
            TEXTS,
        ),
        (
            "OBS-31",
            "state-sha-mismatch",
            f"{RAW}/stateSha256",
            _edit(f"{RAW}/stateSha256", raw_digest("{}")),
            {"raw_shas"},
        ),
        (
            "OBS-32",
            "process-true-for-1",
            f"{RAW}/processJson",
            _text("processJson", lambda t: t.replace('"receiptCount": 1', '"receiptCount": true')),
            TEXTS,
        ),
        ("OBS-32", "process-empty-object", f"{RAW}/processJson", _edit(f"{RAW}/processJson", "{}"), TEXTS),
        (
            "OBS-33",
            "state-other-head",
            f"{RAW}/stateJson",
            _text("stateJson", lambda t: t.replace('"headAfter": "' + COMMIT, '"headAfter": "' + "b" * 40)),
            TEXTS,
        ),
        (
            "OBS-34",
            "transcript-grammar",
            f"{RAW}/transcriptJson -> character",
            _edit(f"{RAW}/transcriptJson", "["),
            {"transcript"},
        ),
        ("OBS-34", "transcript-empty", f"{RAW}/transcriptJson", _edit(f"{RAW}/transcriptJson", ""), {"transcript"}),
        (
            "OBS-34",
            "transcript-not-string",
            f"{RAW}/transcriptJson",
            _edit(f"{RAW}/transcriptJson", []),
            {"transcript"},
        ),
        (
            "OBS-34",
            "transcript-sha-mismatch",
            f"{RAW}/transcriptSha256",
            _edit(f"{RAW}/transcriptSha256", raw_digest("[]")),
            {"transcript_sha"},
        ),
        ("OBS-35", "transcript-extra", f'{RAW}/transcriptJson -> ""', _transcript(exitCode=0), {"transcript"}),
        ("OBS-35", "transcript-missing", f'{RAW}/transcriptJson -> ""', _transcript(stateSha256=None), {"transcript"}),
        (
            "OBS-35",
            "transcript-array",
            f'{RAW}/transcriptJson -> ""',
            _edit(f"{RAW}/transcriptJson", "[]"),
            {"transcript"},
        ),
        (
            "OBS-36",
            "transcript-stderr-sha",
            f"{RAW}/transcriptJson -> /stderrSha256",
            _transcript(stderrSha256=raw_digest("x")),
            {"transcript"},
        ),
        (
            "OBS-36",
            "transcript-command",
            f"{RAW}/transcriptJson -> /command",
            _transcript(command=["sci"]),
            {"transcript"},
        ),
        (
            "OBS-36",
            "transcript-command-digest",
            f"{RAW}/transcriptJson -> /commandDigest",
            _transcript(commandDigest=raw_digest("x")),
            {"transcript"},
        ),
        (
            "OBS-37",
            "request-artifact-sha",
            f"{OB}/requestArtifact/sha256",
            _edit(f"{OB}/requestArtifact/sha256", "sha256:" + "5" * 64),
            {"artifact_sha"},
        ),
    ]
)


def _append(b: Bundle, path: str, suffix: str) -> None:
    put(b, path, get(b, path) + suffix)


@pytest.mark.parametrize(("rule", "where", "mutation", "skip"), OBS_CASES)
def test_rule(rule: str, where: str, mutation: Callable[[Bundle], object], skip: Iterable[str]) -> None:
    assert_fails(mutated(mutation, skip), rule, where)


# ---------------------------------------------------------------- messages


def _message(mutation: Callable[[Bundle], object], skip: Iterable[str] = ()) -> str:
    b = mutated(mutation, skip)
    with pytest.raises(BundleInvalid) as info:
        validate(b)
    return str(info.value)


def test_message_1e400_in_receipt_text() -> None:
    message = _message(_text("receiptJson", lambda t: t.replace('"byteCount": 5', '"byteCount": 1e400')), TEXTS)
    assert message.startswith(
        "OBS-24 at executionObservation/rawEvidence/receiptJson -> /evidence/0/byteCount: "
        "expected a JSON text under the strict profile (TOP-2 … TOP-11); "
        "found TOP-7 (a number that does not overflow an IEEE-754 double) at character "
    )
    assert message.endswith(": 1e400")


def test_message_duplicate_name_in_process_text() -> None:
    message = _message(_text("processJson", lambda t: t.replace("{", '{"exitCode": 0,', 1)), TEXTS)
    assert message == (
        "OBS-31 at executionObservation/rawEvidence/processJson -> /exitCode: "
        "expected a JSON text under the strict profile (TOP-2 … TOP-11); "
        "found TOP-6 (member names pairwise distinct) at character 18: a second member 'exitCode'"
    )


def test_message_grammar_error_in_request_text() -> None:
    message = _message(_edit(f"{RAW}/requestJson", "{"), TEXTS)
    assert message == (
        "OBS-22 at executionObservation/rawEvidence/requestJson -> character 1: "
        "expected a JSON text under the strict profile (TOP-2 … TOP-11); "
        "found TOP-3 (a member name string): end of text"
    )


def test_message_inner_pointer_is_one_line() -> None:
    message = _message(_text("processJson", lambda t: t.replace("{", '{"a\\nb": 0, "a\\nb": 1,', 1)), TEXTS)
    assert message.startswith("OBS-31 at executionObservation/rawEvidence/processJson -> /a\\u000ab: ")
    assert "\n" not in message


def test_message_cleanup() -> None:
    assert _message(_edit(f"{OB}/cleanup/completed", False)) == (
        "OBS-19 at executionObservation/cleanup/completed: expected true; found false"
    )


def test_messages_spell_expected_constants_as_json() -> None:
    assert _message(_edit(f"{OB}/targetState/noIndex", False)) == (
        "OBS-17 at executionObservation/targetState/noIndex: expected true; found false"
    )
    assert _message(_edit(f"{OB}/targetState/indexRead", None)) == (
        "OBS-17 at executionObservation/targetState/indexRead: expected false; found null"
    )
    assert _message(_edit(f"{OB}/process/processGroupTerminationConfirmed", 1)) == (
        "OBS-18 at executionObservation/process/processGroupTerminationConfirmed: expected true; found 1"
    )
    assert _message(_edit(f"{OB}/targetState/ontologyBefore", True)) == (
        "OBS-17 at executionObservation/targetState/ontologyBefore: expected 'absent'; found true"
    )


def test_message_raw_text_too_large_counts_bytes() -> None:
    message = _message(_edit(f"{RAW}/requestJson", "\u00e9" * 8_388_609), TEXTS)
    assert message.endswith("found a string of 16777218 UTF-8 bytes")


# ---------------------------------------------------------------- valid variations


def test_raw_texts_need_only_canonical_equality() -> None:
    def mutation(b: Bundle) -> None:
        raw = b[OB]["rawEvidence"]
        raw["requestJson"] = json.dumps(b["receipt"]["request"], separators=(",", ":"))
        raw["receiptJson"] = raw["stdout"] = json.dumps(b["receipt"], ensure_ascii=True, sort_keys=True) + "\r\n"
        raw["processJson"] = ' {"processGroupTerminationConfirmed":true,"receiptCount":1,"exitCode":-0} '

    result = validate(mutated(mutation, TEXTS))
    b = mutated(mutation, TEXTS)
    assert result.raw_request_sha256 == raw_digest(b[OB]["rawEvidence"]["requestJson"])
    assert result.receipt_text_bytes == len(b[OB]["rawEvidence"]["receiptJson"].encode())


def test_stderr_may_be_empty_but_stdout_may_not() -> None:
    b = build_bundle()
    assert b[OB]["rawEvidence"]["stderr"] == ""
    validate(b)


def test_64_hex_commit() -> None:
    commit = "e" * 64
    b = build_bundle(commit=commit)
    b[OB]["sciArtifact"]["revision"] = "f" * 64
    b[OB]["observationDigest"] = canonical_digest({k: v for k, v in b[OB].items() if k != "observationDigest"})
    result = validate_bundle(
        b,
        question=b["expectedRequest"]["question"],
        repository_commit=commit,
        item_paths=frozenset({"src/alpha.js"}),
    )
    assert result.execution_observation_digest == b[OB]["observationDigest"]


def test_check_observation_directly() -> None:
    b = build_bundle()
    checked = check_observation(b[OB], check_receipt(b["receipt"]), repository_commit=COMMIT)
    assert checked.observation_digest == DIGESTS_11_2["observationDigest"]
    assert checked.raw_request_sha256 == DIGESTS_11_2["requestSha256"]
    assert checked.raw_receipt_sha256 == DIGESTS_11_2["receiptSha256"]
    assert checked.transcript_sha256 == DIGESTS_11_2["transcriptSha256"]
    assert checked.receipt_text_bytes == len(b[OB]["rawEvidence"]["receiptJson"].encode("utf-8"))


def test_other_repository_commit_fails_OBS_5() -> None:
    b = build_bundle()
    checked = check_receipt(b["receipt"])
    with pytest.raises(BundleInvalid) as info:
        check_observation(b[OB], checked, repository_commit="b" * 40)
    assert info.value.rule == "OBS-5"


# ---------------------------------------------------------------- OBS-13: every argv position


@pytest.mark.parametrize("k", range(5))
def test_OBS_13_every_argv_position(k: int) -> None:
    def change(b: Bundle) -> None:
        command = b[OB]["command"]
        command[k] = command[k] + "x"

    assert_fails(mutated(change), "OBS-13", f"{OB}/command")


def test_OBS_13_follows_the_artifact_paths() -> None:
    """The argv is built from sciArtifact.path and requestArtifact.path, not from constants."""

    def change(b: Bundle) -> None:
        put(b, f"{OB}/sciArtifact/path", "/opt/other/sci")
        put(b, f"{OB}/requestArtifact/path", "/evidence/other.json")
        b[OB]["command"][0] = "/opt/other/sci"
        b[OB]["command"][4] = "/evidence/other.json"

    validate(mutated(change))


# ---------------------------------------------------------------- OBS-16: every target-state member

OBS_16_MEMBERS = [
    ("headBefore", "b" * 40),
    ("headAfter", "b" * 40),
    ("statusBefore", " M src/a.js"),
    ("statusAfter", " M src/a.js"),
    ("cleanBefore", False),
    ("cleanAfter", False),
]


@pytest.mark.parametrize(("member", "value"), OBS_16_MEMBERS, ids=[m for m, _ in OBS_16_MEMBERS])
def test_OBS_16_each_target_state_member_is_compared(member: str, value: object) -> None:
    assert_fails(mutated(lambda b: put(b, f"{OB}/targetState/{member}", value)), "OBS-16", f"{OB}/targetState/{member}")


def test_OBS_16_status_before_compared() -> None:
    err = assert_fails(
        mutated(lambda b: put(b, f"{OB}/targetState/statusBefore", "?? x.js")),
        "OBS-16",
        f"{OB}/targetState/statusBefore",
    )
    assert str(err) == "OBS-16 at executionObservation/targetState/statusBefore: expected ''; found '?? x.js'"


# ---------------------------------------------------------------- raw text bounds, the shown command (mutmut)

EXPECTED = f"a non-empty string of at most {RAW_TEXT_MAX_BYTES} UTF-8 bytes"


def check_text(text: str) -> str:
    with pytest.raises(BundleInvalid) as caught:
        _check_text("OBS-21", {"requestJson": text, "requestSha256": "0" * 64}, "requestJson", "w")
    return str(caught.value)


def test_OBS_21_one_code_point_past_the_bound_is_counted_in_code_points() -> None:
    text = "x" * (RAW_TEXT_MAX_BYTES + 1)
    assert (
        check_text(text) == f"OBS-21 at w/requestJson: expected {EXPECTED}; found a string of {len(text)} code points"
    )


def test_OBS_21_at_the_bound_in_bytes_goes_on_and_one_byte_past_is_counted_in_bytes() -> None:
    assert check_text("x" * RAW_TEXT_MAX_BYTES).startswith("OBS-21 at w/requestSha256: expected a Digest")
    text = "é" + "x" * (RAW_TEXT_MAX_BYTES - 1)  # 2**24 code points, one byte more
    assert check_text(text) == (
        f"OBS-21 at w/requestJson: expected {EXPECTED}; found a string of {RAW_TEXT_MAX_BYTES + 1} UTF-8 bytes"
    )


def test_show_command_shows_240_characters_whole_and_cuts_241() -> None:
    fits = ["a" * 236]  # repr: ['aaa…'] = 240 characters
    assert show_command(fits) == repr(fits)
    longer = ["a" * 237]
    assert show_command(longer) == repr(longer)[:239] + "…"
    assert show_command(["a", 1]) == "an array of 2 elements"


# ---------------------------------------------------------------- whole messages (tests/rules/messages/obs.json)

MESSAGES = Snapshot("obs")


@pytest.mark.parametrize(("name", "case"), list(bundle_inputs(OBS_CASES)), ids=ids)
def test_bundle_messages(name: str, case: Any) -> None:
    MESSAGES.check(name, bundle_message(*case))


def test_zz_snapshot_covers_every_row() -> None:
    """Runs last: writes the file in write mode, else checks that it holds exactly this family's rows."""
    MESSAGES.finish(name for name, _ in bundle_inputs(OBS_CASES))
