"""The execution observation of a structural bundle (OBS-1 … OBS-37).

Root: ``/cases/{c}/structuralEvidence/executionObservation``. The rules run in
the order of SPEC §4.12 step 6: the observation's members, digests and
bindings to the receipt and the repository (OBS-1 … OBS-19), its raw evidence
and transcript (OBS-20 … OBS-36, :mod:`~ablation.contracts.raw_evidence`),
and OBS-37.

Spec: SPEC.md §3.4, §4.11, §4.12, §9.4, §9.7.
"""

from __future__ import annotations

from dataclasses import dataclass

from ablation.canonical import canon, canonical_digest, is_digest
from ablation.contracts.base import Shape, child, fail, fail_unless_each, fail_unless_same, same, show
from ablation.contracts.raw_evidence import RAW_EVIDENCE, check_raw_evidence, show_command
from ablation.contracts.sci_receipt import CheckedReceipt
from ablation.text import is_abs_path, is_commit

__all__ = [
    "EXPORTER_ARGUMENTS",
    "OBSERVATION_SCHEMA",
    "CheckedObservation",
    "check_observation",
]

OBSERVATION_SCHEMA = "pi-context-packer.structural_evidence_execution_observation.v2"
#: The exporter arguments between the SCI executable and the request file (OBS-13).
EXPORTER_ARGUMENTS = ("experimental", "structural-evidence-receipt", "--request-file")

_OBSERVATION = Shape(
    (
        "schema",
        "receiptDigest",
        "repositoryCommit",
        "requestArtifact",
        "command",
        "commandDigest",
        "sciArtifact",
        "backendArtifact",
        "rawEvidence",
        "targetState",
        "process",
        "cleanup",
        "observationDigest",
    )
)
_REQUEST_ARTIFACT = Shape(("path", "sha256"))
_SCI_ARTIFACT = Shape(("name", "version", "path", "revision", "sha256"))
_BACKEND_ARTIFACT = Shape(("name", "version", "path", "sha256"))
_TARGET_STATE = Shape(
    (
        "headBefore",
        "headAfter",
        "statusBefore",
        "statusAfter",
        "cleanBefore",
        "cleanAfter",
        "noIndex",
        "indexRead",
        "indexBuilt",
        "ontologyBefore",
        "ontologyAfter",
    )
)
_PROCESS = Shape(("exitCode", "receiptCount", "processGroupTerminationConfirmed"))
_CLEANUP = Shape(("completed", "temporaryRootsRemoved"))
#: OBS-17: the index and ontology posture, member by member.
_INDEX_POSTURE: tuple[tuple[str, object], ...] = (
    ("noIndex", True),
    ("indexRead", False),
    ("indexBuilt", False),
    ("ontologyBefore", "absent"),
    ("ontologyAfter", "absent"),
)
_PROCESS_VALUES: tuple[tuple[str, object], ...] = (
    ("exitCode", 0),
    ("receiptCount", 1),
    ("processGroupTerminationConfirmed", True),
)


@dataclass(frozen=True, slots=True)
class CheckedObservation:
    """What the result needs from an observation that satisfies OBS-1 … OBS-37.

    Attributes:
        observation_digest: ``observationDigest``.
        raw_request_sha256: ``rawEvidence.requestSha256``.
        raw_receipt_sha256: ``rawEvidence.receiptSha256``.
        transcript_sha256: ``rawEvidence.transcriptSha256``.
        receipt_text_bytes: the UTF-8 byte length of ``rawEvidence.receiptJson``.
    """

    observation_digest: str
    raw_request_sha256: str
    raw_receipt_sha256: str
    transcript_sha256: str
    receipt_text_bytes: int


def check_observation(
    observation: object,
    checked: CheckedReceipt,
    *,
    repository_commit: str,
    where: str = "executionObservation",
) -> CheckedObservation:
    """Check OBS-1 … OBS-37 on one execution observation, in the order of SPEC §4.12 step 6.

    Args:
        observation: the parsed value at
            ``/cases/{c}/structuralEvidence/executionObservation``.
        checked: the bundle's receipt, already checked (RCPT-1 … RCPT-41).
        repository_commit: the case repository's commit (OBS-5, OBS-16).
        where: the observation's pointer relative to the bundle.

    Returns:
        The digests and the receipt text size the result reports.

    Raises:
        BundleInvalid: OBS-1 … OBS-37.

    Spec: SPEC.md §4.11.
    """
    obs = _OBSERVATION.check("OBS-1", observation, where)
    receipt = checked.receipt
    digest = _check_digests_and_bindings(obs, receipt, repository_commit, where)
    request_artifact, sci_artifact = _check_artifacts(obs, receipt, where)
    _check_command(obs, request_artifact, sci_artifact, where)
    _check_state(obs, repository_commit, where)
    raw = RAW_EVIDENCE.check("OBS-20", obs["rawEvidence"], child(where, "rawEvidence"))
    receipt_text_bytes = check_raw_evidence(raw, obs, checked, child(where, "rawEvidence"))
    if not same(request_artifact["sha256"], raw["requestSha256"]):
        fail(
            "OBS-37",
            child(child(where, "requestArtifact"), "sha256"),
            f"rawEvidence.requestSha256 {raw['requestSha256']!r}",
            show(request_artifact["sha256"]),
        )
    return CheckedObservation(
        observation_digest=digest,
        raw_request_sha256=raw["requestSha256"],  # type: ignore[arg-type]  # a Digest, checked by check_raw_evidence (OBS-21 …)
        raw_receipt_sha256=raw["receiptSha256"],  # type: ignore[arg-type]  # a Digest, checked by check_raw_evidence (OBS-21 …)
        transcript_sha256=raw["transcriptSha256"],  # type: ignore[arg-type]  # a Digest, checked by check_raw_evidence (OBS-21 …)
        receipt_text_bytes=receipt_text_bytes,
    )


# (member, predicate, expected) of the artifact members OBS-6, OBS-9 and OBS-12 check.
_ABS_PATH = ("path", is_abs_path, "an AbsPath")
_COMMIT = ("revision", is_commit, "a Commit (40 or 64 of [0-9a-f])")
_DIGEST = ("sha256", is_digest, "a Digest")


def _check_digests_and_bindings(
    obs: dict[str, object], receipt: dict[str, object], repository_commit: str, where: str
) -> str:
    """OBS-2 … OBS-5: schema, own digest, receipt digest and commit; return ``D(observation minus its digest)``."""
    fail_unless_same("OBS-2", obs, "schema", where, OBSERVATION_SCHEMA, repr(OBSERVATION_SCHEMA))
    digest = canonical_digest({name: value for name, value in obs.items() if name != "observationDigest"})
    fail_unless_same(
        "OBS-3", obs, "observationDigest", where, digest, f"D(observation minus observationDigest) = {digest!r}"
    )
    receipt_digest = receipt["receiptDigest"]
    fail_unless_same("OBS-4", obs, "receiptDigest", where, receipt_digest, f"receipt.receiptDigest {receipt_digest!r}")
    fail_unless_same(
        "OBS-5", obs, "repositoryCommit", where, repository_commit, f"the repository commit {repository_commit!r}"
    )
    return digest


def _check_artifacts(
    obs: dict[str, object], receipt: dict[str, object], where: str
) -> tuple[dict[str, object], dict[str, object]]:
    """OBS-6 … OBS-12; return the request and SCI artifacts."""
    ra_where = child(where, "requestArtifact")
    request_artifact = _REQUEST_ARTIFACT.check("OBS-6", obs["requestArtifact"], ra_where)
    fail_unless_each("OBS-6", request_artifact, ra_where, (_ABS_PATH, _DIGEST))

    producer = receipt["producer"]
    assert isinstance(producer, dict)
    sci_where = child(where, "sciArtifact")
    sci = _SCI_ARTIFACT.check("OBS-7", obs["sciArtifact"], sci_where)
    for name in ("name", "version"):
        fail_unless_same("OBS-8", sci, name, sci_where, producer[name], f"receipt.producer.{name} {producer[name]!r}")
    fail_unless_each("OBS-9", sci, sci_where, (_ABS_PATH, _COMMIT, _DIGEST))

    backend = receipt["backend"]
    assert isinstance(backend, dict)
    executable = backend["executable"]
    be_where = child(where, "backendArtifact")
    be = _BACKEND_ARTIFACT.check("OBS-10", obs["backendArtifact"], be_where)
    for name in ("name", "version"):
        wanted = executable[name]
        fail_unless_same("OBS-11", be, name, be_where, wanted, f"receipt.backend.executable.{name} {wanted!r}")
    fail_unless_each("OBS-12", be, be_where, (_ABS_PATH, _DIGEST))
    return request_artifact, sci


def _check_command(
    obs: dict[str, object], request_artifact: dict[str, object], sci: dict[str, object], where: str
) -> None:
    """OBS-13, OBS-14."""
    expected = [sci["path"], *EXPORTER_ARGUMENTS, request_artifact["path"]]
    command = obs["command"]
    if canon(command) != canon(expected):
        fail(
            "OBS-13",
            child(where, "command"),
            "canonically [sciArtifact.path, 'experimental', 'structural-evidence-receipt', '--request-file', "
            "requestArtifact.path]",
            show_command(command),
        )
    command_digest = canonical_digest(command)
    if not same(obs["commandDigest"], command_digest):
        fail("OBS-14", child(where, "commandDigest"), f"D(command) = {command_digest!r}", show(obs["commandDigest"]))


def _check_state(obs: dict[str, object], repository_commit: str, where: str) -> None:
    """OBS-15 … OBS-19 (target state, process, cleanup)."""
    ts_where = child(where, "targetState")
    state = _TARGET_STATE.check("OBS-15", obs["targetState"], ts_where)
    gates: tuple[tuple[str, object], ...] = (
        ("headBefore", repository_commit),
        ("headAfter", repository_commit),
        ("statusBefore", ""),
        ("statusAfter", ""),
        ("cleanBefore", True),
        ("cleanAfter", True),
    )
    for rule, members in (("OBS-16", gates), ("OBS-17", _INDEX_POSTURE)):
        for name, wanted in members:
            if not same(state[name], wanted):
                fail(rule, child(ts_where, name), show(wanted), show(state[name]))
    process_where = child(where, "process")
    process = _PROCESS.check("OBS-18", obs["process"], process_where)
    for name, wanted in _PROCESS_VALUES:
        if not same(process[name], wanted):
            fail("OBS-18", child(process_where, name), show(wanted), show(process[name]))
    cleanup_where = child(where, "cleanup")
    cleanup = _CLEANUP.check("OBS-19", obs["cleanup"], cleanup_where)
    for name in ("completed", "temporaryRootsRemoved"):
        if not same(cleanup[name], True):
            fail("OBS-19", child(cleanup_where, name), show(True), show(cleanup[name]))
