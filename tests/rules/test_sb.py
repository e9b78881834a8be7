"""SB — the structural bundle (SPEC §4.8, §4.12: SB-0 … SB-17, the §4.12 order, path statistics).

Checked by ``ablation.contracts.structural``.

Every row of :data:`SB_CASES` breaks one rule of SPEC §11.1's bundle (built
by ``tests/builders/bundle.py``, every other digest resealed) and asserts
the first failing rule and its location; the other tests pin every binding,
the §4.12 order, the path statistics, SB-0 (strictness inside a bundle),
whole messages, and agreement with the shared corpus's references.
"""

from __future__ import annotations

import copy
import gzip
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
from ablation.experiment import validate_experiment
from ablation.strictjson import parse_text
from tests.builders import prepared
from tests.builders.bundle import (
    ALL_STEPS,
    COMMIT,
    DIGESTS_11_2,
    ITEM_PATHS,
    Bundle,
    assert_fails,
    build_bundle,
    drop,
    make_entry,
    mutated,
    put,
    reseal,
    rule_cases,
    set_evidence,
    validate,
)
from tests.builders.messages import Snapshot, bundle_inputs, bundle_message, ids
from tests.builders.paths import CONFORMANCE, INPUTS

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
        result.path_statistics["src/beta.js"] = (0,) * 7  # type: ignore[index]  # read-only on purpose


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
    not_stable = mutated(
        lambda b: (put(b, "receipt/repository/stableAcrossExecution", False), put(b, "receipt/summary/complete", False))
    )
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
    stats = path_statistics(evidence)
    assert dict(stats) == {
        "a": (2, 1, 1, 1, 0, 0, 0),
        "b": (3, 0, 0, 0, 0, 1, 2),
        "c": (1, 1, 0, 0, 1, 0, 0),
    }
    assert dict(path_statistics(evidence[::-1])) == dict(stats)


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
    | st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=12)
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


# ---------------------------------------------------------------- ten thousand entries (speed: make bench)


def test_ten_thousand_entries_validate() -> None:
    paths = sorted(ITEM_PATHS)
    entries = [make_entry(paths[k % len(paths)], k, f"alpha {k}") for k in range(10_000)]

    def mutation(b: Bundle) -> None:
        for where in ("expectedRequest", "receipt/request"):
            put(b, f"{where}/limits/maxCandidates", 10_000)
            put(b, f"{where}/limits/maxCandidatesPerFile", 10_000)
            put(b, f"{where}/limits/maxEvidenceBytes", 1_000_000)
        set_evidence(b, entries)

    b = mutated(mutation)
    result = validate(b)
    assert len(result.candidate_ids) == 10_000
    assert sum(row[0] for row in result.path_statistics.values()) == 10_000


def _corpus_inputs() -> list[Any]:
    found = []
    conformance = CONFORMANCE
    if conformance.is_dir():
        for folder in sorted(conformance.iterdir()):
            if (folder / "reference-output.json").is_file():
                found.append(pytest.param(folder / "input.json", folder / "reference-output.json", id=folder.name))
    inputs = INPUTS
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


# ---------------------------------------------------------------- SB-0: strictness inside a bundle (TOP-12)


def test_SB_0_strictness_inside_a_bundle_names_the_first_violation_in_text_order() -> None:
    """SB-0: several violations in one bundle → the first in text order; one value → its lowest rule."""
    data = prepared.dumps(prepared.valid_minimal())
    at = data.index(b'"structuralEvidence": {', data.index(b'"repo-2"')) + len(b'"structuralEvidence": {')
    data = data[:at] + b'"y": 1e400, "x": 2.5, "x": 1, ' + data[at:]
    experiment = validate_experiment(data)
    assert [c.structural_failure is None for c in experiment.cases] == [True, False] + [True] * 8
    assert experiment.cases[1].structural_failure == (
        "structural_evidence_validation_failed:SB-0 TOP-7 at /cases/1/structuralEvidence/y: "
        "expected a number that does not overflow an IEEE-754 double; found 1e400"
    )


def test_SB_0_duplicated_structural_evidence_member_counts_as_inside() -> None:
    data = prepared.dumps(prepared.valid_minimal())
    at = data.index(b'"structuralEvidence": {')
    data = data[:at] + b'"structuralEvidence": null, ' + data[at:]
    experiment = validate_experiment(data)
    failure = experiment.cases[0].structural_failure
    assert failure is not None
    assert failure.startswith("structural_evidence_validation_failed:SB-0 TOP-6 at /cases/0/structuralEvidence:")


# ---------------------------------------------------------------- SB-10: every producer binding


@pytest.mark.parametrize(
    ("member", "value"),
    [
        ("producerName", "other-producer"),
        ("producerVersion", "2.0.1"),
        ("producerWorkflow", "structural-evidence-export-v2"),
    ],
    ids=["name", "version", "workflow"],
)
def test_SB_10_each_producer_binding(member: str, value: str) -> None:
    """A provenance member that differs from the receipt's producer is SB-10, before SB-12's posture check."""
    assert_fails(
        mutated(lambda b: put(b, f"expectedProvenance/{member}", value)), "SB-10", f"expectedProvenance/{member}"
    )


def test_SB_10_producer_workflow_binding() -> None:
    err = assert_fails(
        mutated(lambda b: put(b, "expectedProvenance/producerWorkflow", "structural-evidence-export-v2")),
        "SB-10",
        "expectedProvenance/producerWorkflow",
    )
    assert "receipt/producer/workflow 'structural-evidence-export-v1'" in str(err)


R = "receipt"
OB = "executionObservation"


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
    assert_fails(
        mutated(lambda b: put(b, f"expectedProvenance/{member}", "other")), "SB-11", f"expectedProvenance/{member}"
    )


def test_SB_11_binds_to_the_receipt_not_to_constants() -> None:
    """Receipt and provenance both name another backend version: SB-11 holds, OBS-11 names the artifact."""

    def change(b: Bundle) -> None:
        put(b, f"{R}/backend/version", "0.41.0")
        put(b, f"{R}/backend/executable/version", "0.41.0")
        put(b, "expectedProvenance/backendVersion", "0.41.0")
        put(b, "expectedProvenance/executableVersion", "0.41.0")
        put(b, f"{OB}/backendArtifact/version", "0.41.0")

    validate(mutated(change))


def test_valid_bundle_is_valid_for_its_commit_only() -> None:
    b = build_bundle()
    validate(b)
    assert COMMIT == "a" * 40
    reseal(b)


# ---------------------------------------------------------------- whole failure texts (mutation testing)


def failure(call: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(BundleInvalid) as caught:
        call(*args, **kwargs)
    return str(caught.value)


def test_SB_7_message_names_the_request_comparison() -> None:
    b = build_bundle()
    assert (
        failure(
            check_receipt_binding, b, check_receipt(b["receipt"]), expected_request_text="{}", repository_commit=COMMIT
        )
        == "SB-7 at receipt/request: expected a request canonically equal to expectedRequest; found a different request"
    )


@pytest.mark.parametrize(
    ("member", "value", "message"),
    [
        (
            "backendName",
            "x",
            "SB-11 at expectedProvenance/backendName: expected receipt/backend/name 'ast-grep'; found 'x'",
        ),
        (
            "executableVersion",
            "9",
            "SB-11 at expectedProvenance/executableVersion: expected receipt/backend/executable/version '0.40.5'; "
            "found '9'",
        ),
    ],
)
def test_SB_11_message_names_the_receipt_member(member: str, value: str, message: str) -> None:
    bundle = mutated(lambda b: put(b, f"expectedProvenance/{member}", value))
    assert failure(validate, bundle) == message


def test_SB_16_message_shows_the_path_and_the_symbol() -> None:
    evidence = [make_entry(), _edge("src/graph.js", "walk", "src/graph.js", "walk")]
    assert failure(check_evidence_paths, evidence, ITEM_PATHS) == (
        "SB-16 at receipt/evidence/1/identity: expected a graph_edge that is not a self-edge; "
        "found path and relatedPath 'src/graph.js', symbol and relatedSymbol 'walk'"
    )


def test_SB_17_message_shows_the_related_path() -> None:
    assert failure(check_evidence_paths, [_edge("src/graph.js", "f", "src/missing.js", "g")], ITEM_PATHS) == (
        "SB-17 at receipt/evidence/0/identity/relatedPath: expected the path of an item of the repository; "
        "found 'src/missing.js'"
    )


def test_two_edges_into_one_path_count_two_related() -> None:
    statistics = path_statistics(
        [_edge("src/a.js", "f", "src/graph.js", "g"), _edge("src/b.js", "f", "src/graph.js", "g")]
    )
    assert dict(statistics) == {
        "src/a.js": (1, 0, 0, 0, 0, 0, 1),
        "src/b.js": (1, 0, 0, 0, 0, 0, 1),
        "src/graph.js": (0, 2, 0, 0, 0, 0, 0),
    }


# ---------------------------------------------------------------- whole messages (tests/rules/messages/sb.json)

MESSAGES = Snapshot("sb")


@pytest.mark.parametrize(("name", "case"), list(bundle_inputs(SB_CASES)), ids=ids)
def test_bundle_messages(name: str, case: Any) -> None:
    MESSAGES.check(name, bundle_message(*case))


def test_zz_snapshot_covers_every_row() -> None:
    """Runs last: writes the file in write mode, else checks that it holds exactly this family's rows."""
    MESSAGES.finish(name for name, _ in bundle_inputs(SB_CASES))
