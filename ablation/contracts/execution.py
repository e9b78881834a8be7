"""The execution observation, its raw evidence and transcript (OBS-1 … OBS-37).

Root: ``/cases/{c}/structuralEvidence/executionObservation``. The five embedded
raw JSON texts (``requestJson``, ``receiptJson``, ``processJson``,
``stateJson``, ``transcriptJson``) are parsed here, at their own steps of the
SPEC §4.12 order, under the whole strict profile: a grammar violation
(TOP-2 … TOP-5) or a strictness violation (TOP-6 … TOP-11) fails that text's
OBS rule (OBS-22, OBS-24, OBS-31, OBS-34) and names the TOP rule and the inner
location. Each raw text is encoded and hashed once.

Spec: SPEC.md §2.4, §3.4, §4.11, §4.12, §9.4, §9.7.
"""

from __future__ import annotations

from dataclasses import dataclass

from ablation.canonical import canon, canonical_digest, is_digest, raw_digest
from ablation.contracts.sci_receipt import CheckedReceipt
from ablation.contracts.sci_request import Shape, fail, same, show
from ablation.errors import format_where
from ablation.strictjson import JsonGrammarError, child, parse_text
from ablation.text import is_abs_path, is_commit

__all__ = [
    "EXPORTER_ARGUMENTS",
    "OBSERVATION_SCHEMA",
    "RAW_TEXT_MAX_BYTES",
    "CheckedObservation",
    "check_observation",
]

OBSERVATION_SCHEMA = "pi-context-packer.structural_evidence_execution_observation.v2"
#: Upper bound of every raw text, in UTF-8 bytes (OBS-21, OBS-23, OBS-27, OBS-28, OBS-31, OBS-34).
RAW_TEXT_MAX_BYTES = 16_777_216
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
_RAW = Shape(
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
    )
)
_TRANSCRIPT_DIGESTS = (
    "requestSha256",
    "receiptSha256",
    "stdoutSha256",
    "stderrSha256",
    "processSha256",
    "stateSha256",
)
_TRANSCRIPT = Shape(("command", "commandDigest", *_TRANSCRIPT_DIGESTS))

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
    if not same(obs["schema"], OBSERVATION_SCHEMA):
        fail("OBS-2", child(where, "schema"), repr(OBSERVATION_SCHEMA), show(obs["schema"]))
    digest = canonical_digest({name: value for name, value in obs.items() if name != "observationDigest"})
    if not same(obs["observationDigest"], digest):
        fail(
            "OBS-3",
            child(where, "observationDigest"),
            f"D(observation minus observationDigest) = {digest!r}",
            show(obs["observationDigest"]),
        )
    if not same(obs["receiptDigest"], receipt["receiptDigest"]):
        fail(
            "OBS-4",
            child(where, "receiptDigest"),
            f"receipt.receiptDigest {receipt['receiptDigest']!r}",
            show(obs["receiptDigest"]),
        )
    if not same(obs["repositoryCommit"], repository_commit):
        fail(
            "OBS-5",
            child(where, "repositoryCommit"),
            f"the repository commit {repository_commit!r}",
            show(obs["repositoryCommit"]),
        )
    request_artifact, sci_artifact = _check_artifacts(obs, receipt, where)
    _check_command(obs, request_artifact, sci_artifact, where)
    _check_state(obs, repository_commit, where)
    raw = _RAW.check("OBS-20", obs["rawEvidence"], child(where, "rawEvidence"))
    receipt_text_bytes = _check_raw(raw, obs, checked, child(where, "rawEvidence"))
    if not same(request_artifact["sha256"], raw["requestSha256"]):
        fail(
            "OBS-37",
            child(child(where, "requestArtifact"), "sha256"),
            f"rawEvidence.requestSha256 {raw['requestSha256']!r}",
            show(request_artifact["sha256"]),
        )
    return CheckedObservation(
        observation_digest=digest,
        raw_request_sha256=raw["requestSha256"],  # type: ignore[arg-type]  # a Digest, checked by _check_raw (OBS-21 …)
        raw_receipt_sha256=raw["receiptSha256"],  # type: ignore[arg-type]  # a Digest, checked by _check_raw (OBS-21 …)
        transcript_sha256=raw["transcriptSha256"],  # type: ignore[arg-type]  # a Digest, checked by _check_raw (OBS-21 …)
        receipt_text_bytes=receipt_text_bytes,
    )


def _check_artifacts(
    obs: dict[str, object], receipt: dict[str, object], where: str
) -> tuple[dict[str, object], dict[str, object]]:
    """OBS-6 … OBS-12; return the request and SCI artifacts."""
    ra_where = child(where, "requestArtifact")
    request_artifact = _REQUEST_ARTIFACT.check("OBS-6", obs["requestArtifact"], ra_where)
    if not is_abs_path(request_artifact["path"]):
        fail("OBS-6", child(ra_where, "path"), "an AbsPath", show(request_artifact["path"]))
    if not is_digest(request_artifact["sha256"]):
        fail("OBS-6", child(ra_where, "sha256"), "a Digest", show(request_artifact["sha256"]))

    producer = receipt["producer"]
    assert isinstance(producer, dict)
    sci_where = child(where, "sciArtifact")
    sci = _SCI_ARTIFACT.check("OBS-7", obs["sciArtifact"], sci_where)
    for name in ("name", "version"):
        if not same(sci[name], producer[name]):
            fail("OBS-8", child(sci_where, name), f"receipt.producer.{name} {producer[name]!r}", show(sci[name]))
    if not is_abs_path(sci["path"]):
        fail("OBS-9", child(sci_where, "path"), "an AbsPath", show(sci["path"]))
    if not is_commit(sci["revision"]):
        fail("OBS-9", child(sci_where, "revision"), "a Commit (40 or 64 of [0-9a-f])", show(sci["revision"]))
    if not is_digest(sci["sha256"]):
        fail("OBS-9", child(sci_where, "sha256"), "a Digest", show(sci["sha256"]))

    backend = receipt["backend"]
    assert isinstance(backend, dict)
    executable = backend["executable"]
    be_where = child(where, "backendArtifact")
    be = _BACKEND_ARTIFACT.check("OBS-10", obs["backendArtifact"], be_where)
    for name in ("name", "version"):
        if not same(be[name], executable[name]):
            fail(
                "OBS-11",
                child(be_where, name),
                f"receipt.backend.executable.{name} {executable[name]!r}",
                show(be[name]),
            )
    if not is_abs_path(be["path"]):
        fail("OBS-12", child(be_where, "path"), "an AbsPath", show(be["path"]))
    if not is_digest(be["sha256"]):
        fail("OBS-12", child(be_where, "sha256"), "a Digest", show(be["sha256"]))
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
            _show_command(command),
        )
    command_digest = canonical_digest(command)
    if not same(obs["commandDigest"], command_digest):
        fail("OBS-14", child(where, "commandDigest"), f"D(command) = {command_digest!r}", show(obs["commandDigest"]))


def _show_command(command: object) -> str:
    if isinstance(command, list) and all(isinstance(a, str) for a in command):
        text = repr(command)
        return text if len(text) <= 240 else text[:239] + "…"
    return show(command)


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


def _check_text(
    rule: str,
    raw: dict[str, object],
    name: str,
    where: str,
    *,
    may_be_empty: bool = False,
    digest: str | None = None,
) -> tuple[str, int]:
    """The OBS-21 pattern for one raw text: a bounded string whose digest member ≡ R(text).

    Args:
        rule: the OBS rule to fail.
        raw: the ``rawEvidence`` object.
        name: the text member, e.g. ``"requestJson"``; its digest member is
            the name with ``Json`` replaced by ``Sha256`` (``stdout`` →
            ``stdoutSha256``).
        where: the ``rawEvidence`` pointer.
        may_be_empty: allow ``""`` (only ``stderr``).
        digest: ``R(text)`` when already known (saves hashing the same text twice).

    Returns:
        The text and its UTF-8 byte length.
    """
    text = raw[name]
    kind = "a string" if may_be_empty else "a non-empty string"
    expected = f"{kind} of at most {RAW_TEXT_MAX_BYTES} UTF-8 bytes"
    if not isinstance(text, str) or (not text and not may_be_empty):
        fail(rule, child(where, name), expected, show(text))
    if len(text) > RAW_TEXT_MAX_BYTES:  # more code points than the bound: more bytes too
        fail(rule, child(where, name), expected, f"a string of {len(text)} code points")
    data = text.encode("utf-8")
    if len(data) > RAW_TEXT_MAX_BYTES:
        fail(rule, child(where, name), expected, f"a string of {len(data)} UTF-8 bytes")
    digest_name = name.removesuffix("Json") + "Sha256"
    stated = raw[digest_name]
    if not is_digest(stated):
        fail(rule, child(where, digest_name), "a Digest", show(stated))
    actual = digest if digest is not None else raw_digest(data)
    if stated != actual:
        fail(rule, child(where, digest_name), f"R({name}) = {actual!r}", show(stated))
    return text, len(data)


def _parse(rule: str, text: str, where: str) -> object:
    """Parse an embedded bundle text under the whole strict profile (SPEC §2.4), or fail ``rule``."""
    expected = "a JSON text under the strict profile (TOP-2 … TOP-11)"
    try:
        parsed = parse_text(text)
    except JsonGrammarError as exc:
        fail(rule, f"{where} -> character {exc.offset}", expected, f"{exc.rule} ({exc.expected}): {exc.found}")
    if parsed.violations:
        v = parsed.violations[0]
        fail(
            rule,
            f"{where} -> {format_where(v.pointer)}",
            expected,
            f"{v.rule} ({v.expected}) at character {v.offset}: {v.found}",
        )
    return parsed.value


def _check_raw(raw: dict[str, object], obs: dict[str, object], checked: CheckedReceipt, where: str) -> int:
    """OBS-21 … OBS-36; return the UTF-8 byte length of ``receiptJson``."""
    request_text, _ = _check_text("OBS-21", raw, "requestJson", where)
    parsed_request = _parse("OBS-22", request_text, child(where, "requestJson"))
    receipt_text, receipt_bytes = _check_text("OBS-23", raw, "receiptJson", where)
    parsed_receipt = _parse("OBS-24", receipt_text, child(where, "receiptJson"))
    if canon(parsed_request) != checked.request_canonical_text:
        fail(
            "OBS-25",
            child(where, "requestJson"),
            "a text whose value is canonically equal to receipt.request",
            f"D(value) = {canonical_digest(parsed_request)!r}",
        )
    if canon(parsed_receipt) != checked.canonical_text:
        fail(
            "OBS-26",
            child(where, "receiptJson"),
            "a text whose value is canonically equal to receipt",
            f"D(value) = {canonical_digest(parsed_receipt)!r}",
        )
    stdout = raw["stdout"]
    reuse = raw["receiptSha256"] if isinstance(stdout, str) and stdout == receipt_text else None
    _check_text("OBS-27", raw, "stdout", where, digest=reuse)  # type: ignore[arg-type]  # receiptSha256: a Digest (checked by _check_text for receiptJson)
    stderr, _ = _check_text("OBS-28", raw, "stderr", where, may_be_empty=True)
    if stdout != receipt_text:
        fail("OBS-29", child(where, "stdout"), "exactly receiptJson", f"{show(stdout)} (differs from receiptJson)")
    if stderr != "":
        fail("OBS-30", child(where, "stderr"), "''", show(stderr))
    process_text, _ = _check_text("OBS-31", raw, "processJson", where)
    parsed_process = _parse("OBS-31", process_text, child(where, "processJson"))
    state_text, _ = _check_text("OBS-31", raw, "stateJson", where)
    parsed_state = _parse("OBS-31", state_text, child(where, "stateJson"))
    for rule, name, parsed, member in (
        ("OBS-32", "processJson", parsed_process, "process"),
        ("OBS-33", "stateJson", parsed_state, "targetState"),
    ):
        if canon(parsed) != canon(obs[member]):
            fail(
                rule,
                child(where, name),
                f"a text whose value is canonically equal to {member}",
                f"D(value) = {canonical_digest(parsed)!r}",
            )
    transcript_text, _ = _check_text("OBS-34", raw, "transcriptJson", where)
    transcript_where = child(where, "transcriptJson")
    parsed_transcript = _parse("OBS-34", transcript_text, transcript_where)
    transcript = _TRANSCRIPT.check("OBS-35", parsed_transcript, f"{transcript_where} -> {format_where('')}")
    _check_transcript(transcript, raw, obs, transcript_where)
    return receipt_bytes


def _check_transcript(
    transcript: dict[str, object], raw: dict[str, object], obs: dict[str, object], where: str
) -> None:
    """OBS-36: the transcript repeats the command, its digest and the raw digests."""
    if canon(transcript["command"]) != canon(obs["command"]):
        fail(
            "OBS-36",
            f"{where} -> /command",
            "canonically the observation's command",
            _show_command(transcript["command"]),
        )
    if not same(transcript["commandDigest"], obs["commandDigest"]):
        fail(
            "OBS-36",
            f"{where} -> /commandDigest",
            f"the observation's commandDigest {obs['commandDigest']!r}",
            show(transcript["commandDigest"]),
        )
    for name in _TRANSCRIPT_DIGESTS:
        if not same(transcript[name], raw[name]):
            fail("OBS-36", f"{where} -> /{name}", f"rawEvidence.{name} {raw[name]!r}", show(transcript[name]))
