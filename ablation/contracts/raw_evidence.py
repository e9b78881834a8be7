"""The raw evidence of an execution observation and its transcript (OBS-20 … OBS-36).

Root: ``/cases/{c}/structuralEvidence/executionObservation/rawEvidence``. The
five embedded raw JSON texts (``requestJson``, ``receiptJson``,
``processJson``, ``stateJson``, ``transcriptJson``) are parsed here, at their
own steps of the SPEC §4.12 order, under the whole strict profile: a grammar
violation (TOP-2 … TOP-5) or a strictness violation (TOP-6 … TOP-11) fails
that text's OBS rule (OBS-22, OBS-24, OBS-31, OBS-34) and names the TOP rule
and the inner location. Each raw text is encoded and hashed once.

Spec: SPEC.md §2.4, §3.4, §4.11, §4.12 step 6, §9.4, §9.7.
"""

from __future__ import annotations

from ablation.canonical import canon, canonical_digest, is_digest, raw_digest
from ablation.contracts.base import Shape, child, fail, same, show
from ablation.contracts.sci_receipt import CheckedReceipt
from ablation.errors import format_where
from ablation.strictjson import JsonGrammarError, parse_text

__all__ = ["RAW_EVIDENCE", "RAW_TEXT_MAX_BYTES", "check_raw_evidence", "show_command"]

#: Upper bound of every raw text, in UTF-8 bytes (OBS-21, OBS-23, OBS-27, OBS-28, OBS-31, OBS-34).
RAW_TEXT_MAX_BYTES = 16_777_216

#: OBS-20: ``rawEvidence``.
RAW_EVIDENCE = Shape(
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


def show_command(command: object) -> str:
    """Show an argv in a failure message: an array of strings in full up to 240 characters, else :func:`show`."""
    if isinstance(command, list) and all(isinstance(a, str) for a in command):
        text = repr(command)
        return text if len(text) <= 240 else text[:239] + "…"
    return show(command)


def check_raw_evidence(raw: dict[str, object], obs: dict[str, object], checked: CheckedReceipt, where: str) -> int:
    """Check OBS-21 … OBS-36 on a ``rawEvidence`` object that satisfies OBS-20.

    Args:
        raw: the ``rawEvidence`` object.
        obs: the observation that holds it (OBS-1 … OBS-19 passed).
        checked: the bundle's receipt, already checked (RCPT-1 … RCPT-41).
        where: the ``rawEvidence`` pointer relative to the bundle.

    Returns:
        The UTF-8 byte length of ``receiptJson``.

    Raises:
        BundleInvalid: OBS-21 … OBS-36.
    """
    receipt_text, receipt_bytes = _check_request_and_receipt(raw, checked, where)
    _check_output(raw, receipt_text, where)
    _check_process_and_state(raw, obs, where)
    transcript_text, _ = _check_text("OBS-34", raw, "transcriptJson", where)
    transcript_where = child(where, "transcriptJson")
    parsed_transcript = _parse("OBS-34", transcript_text, transcript_where)
    transcript = _TRANSCRIPT.check("OBS-35", parsed_transcript, f"{transcript_where} -> {format_where('')}")
    _check_transcript(transcript, raw, obs, transcript_where)
    return receipt_bytes


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


def _check_request_and_receipt(raw: dict[str, object], checked: CheckedReceipt, where: str) -> tuple[str, int]:
    """OBS-21 … OBS-26: the raw request and receipt texts; return ``receiptJson`` and its UTF-8 byte length."""
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
    return receipt_text, receipt_bytes


def _check_output(raw: dict[str, object], receipt_text: str, where: str) -> None:
    """OBS-27 … OBS-30: the exporter's stdout is exactly ``receiptJson`` and its stderr is empty."""
    stdout = raw["stdout"]
    reuse = raw["receiptSha256"] if isinstance(stdout, str) and stdout == receipt_text else None
    _check_text("OBS-27", raw, "stdout", where, digest=reuse)  # type: ignore[arg-type]  # receiptSha256: a Digest (checked by _check_text for receiptJson)
    stderr, _ = _check_text("OBS-28", raw, "stderr", where, may_be_empty=True)
    if stdout != receipt_text:
        fail("OBS-29", child(where, "stdout"), "exactly receiptJson", f"{show(stdout)} (differs from receiptJson)")
    if stderr != "":
        fail("OBS-30", child(where, "stderr"), "''", show(stderr))


def _check_process_and_state(raw: dict[str, object], obs: dict[str, object], where: str) -> None:
    """OBS-31 … OBS-33: the raw process and state texts repeat ``process`` and ``targetState``."""
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


def _check_transcript(
    transcript: dict[str, object], raw: dict[str, object], obs: dict[str, object], where: str
) -> None:
    """OBS-36: the transcript repeats the command, its digest and the raw digests."""
    if canon(transcript["command"]) != canon(obs["command"]):
        fail(
            "OBS-36",
            f"{where} -> /command",
            "canonically the observation's command",
            show_command(transcript["command"]),
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
