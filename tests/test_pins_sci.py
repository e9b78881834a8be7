"""Rule by rule pins for the structural bundle families (SB, RCPT, OBS): SPEC §4.8 … §4.12.

Limits at the limit and one past, every member a binding names, each row of
the operation/kind table, and the exact first-reported rule. A mutation that
the receipt rules accept is shown accepted by the next failing rule being a
later one (Phase-B REQ-15 … REQ-18 run after every RCPT rule).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.test_structural import (
    COMMIT,
    assert_fails,
    build_bundle,
    make_entry,
    mutated,
    put,
    reseal,
    set_evidence,
    validate,
)

Bundle = dict[str, Any]
R = "receipt"
OB = "executionObservation"


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


@pytest.mark.parametrize(("total", "capped", "rule"), [(4, False, "RCPT-38"), (3, True, "RCPT-38"), (4, True, "RCPT-41")],
                         ids=["more-observed-not-capped", "equal-but-capped", "capped-but-complete"])  # fmt: skip
def test_RCPT_38_capped_iff_more_observed(total: int, capped: bool, rule: str) -> None:
    def change(b: Bundle) -> None:
        three_entries(b)
        put(b, f"{R}/summary/totalObservedCount", total)
        put(b, f"{R}/summary/capped", capped)

    where = "receipt/summary/capped" if rule == "RCPT-38" else "receipt/summary/complete"
    assert_fails(mutated(change), rule, where)


@pytest.mark.parametrize(
    "change",
    [lambda b: put(b, f"{R}/limitations", [{"code": "partial", "message": "m", "affectsCompleteness": True}]),
     lambda b: put(b, f"{R}/backend/outcome", {"status": "timed_out", "exitCode": None, "message": ""}),
     lambda b: put(b, f"{R}/backend/outcome", {"status": "unavailable", "exitCode": None, "message": ""}),
     lambda b: (put(b, f"{R}/summary/totalObservedCount", 2), put(b, f"{R}/summary/capped", True))],
    ids=["limitation-affects", "timed-out", "unavailable", "capped"],
)
def test_RCPT_41_each_conjunct_of_complete(change: Callable[[Bundle], object]) -> None:
    assert_fails(mutated(change), "RCPT-41", "receipt/summary/complete")


def test_RCPT_41_limitation_not_affecting_completeness_keeps_complete() -> None:
    validate(mutated(lambda b: put(b, f"{R}/limitations",
                                   [{"code": "note", "message": "m", "affectsCompleteness": False}] * 128)))  # fmt: skip


def test_RCPT_39_128_limitations_accepted() -> None:
    validate(mutated(lambda b: put(b, f"{R}/limitations", [{"code": "n", "message": "m", "affectsCompleteness": False}] * 128)))


# ---------------------------------------------------------------- RCPT-7, RCPT-9


@pytest.mark.parametrize(
    ("value", "ok"),
    [("git:" + "a" * 12, True), ("git:" + "a" * 11, False), ("x" * 256, True), ("x" * 257, False),
     ("A-z_0.9:" * 2, True), ("git:" + "a" * 11 + "/", False), ("git:" + "a" * 11 + " ", False), (None, False)],
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
    assert_fails(mutated(lambda b: put(b, f"{R}/repository/observedFingerprint", other)), "RCPT-9",
                 "receipt/repository")  # fmt: skip


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
    [("structural_search", "match", True), ("ast_query", "match", True), ("find_definition", "definition", True),
     ("find_references", "reference", True), ("graph_expand", "graph_node", True),
     ("structural_search", "definition", False), ("ast_query", "reference", False), ("find_definition", "match", False),
     ("find_references", "definition", False), ("graph_expand", "match", False), ("find_definition", "reference", False),
     ("ast_query", "graph_node", False)],
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


# ---------------------------------------------------------------- SB-8, SB-11: every member


@pytest.mark.parametrize("member", ["snapshotId", "baseFingerprint", "observedFingerprint"])
def test_SB_8_each_fingerprint_is_the_commit(member: str) -> None:
    other = "git:" + "b" * 40

    def change(b: Bundle) -> None:
        if member == "snapshotId":
            put(b, f"{R}/repository/snapshotId", other)
        else:  # both fingerprints move together so that RCPT-9 holds
            put(b, f"{R}/repository/baseFingerprint", other)
            put(b, f"{R}/repository/observedFingerprint", other)

    where = "receipt/repository/snapshotId" if member == "snapshotId" else "receipt/repository/baseFingerprint"
    assert_fails(mutated(change), "SB-8", where)


@pytest.mark.parametrize("member", ["backendName", "backendVersion", "executableName", "executableVersion"])
def test_SB_11_each_backend_binding(member: str) -> None:
    assert_fails(mutated(lambda b: put(b, f"expectedProvenance/{member}", "other")), "SB-11",
                 f"expectedProvenance/{member}")  # fmt: skip


def test_SB_11_binds_to_the_receipt_not_to_constants() -> None:
    """Receipt and provenance both name another backend version: SB-11 holds, OBS-11 names the artifact."""

    def change(b: Bundle) -> None:
        put(b, f"{R}/backend/version", "0.41.0")
        put(b, f"{R}/backend/executable/version", "0.41.0")
        put(b, "expectedProvenance/backendVersion", "0.41.0")
        put(b, "expectedProvenance/executableVersion", "0.41.0")
        put(b, f"{OB}/backendArtifact/version", "0.41.0")

    validate(mutated(change))


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


def test_valid_bundle_is_valid_for_its_commit_only() -> None:
    b = build_bundle()
    validate(b)
    assert COMMIT == "a" * 40
    reseal(b)
