"""A case's structural bundle built from what ``capture`` wrote into D, exactly as ``assemble`` builds it.

The raw texts of a case (PREPARE.md §4 "Raw texts of a case") are read from its
usable ``raw/cases/<nnn>/attempt-<k>/`` folder (:func:`read_case_attempt`) and
carried as written: ``request.json``, the exporter's ``stdout`` (= ``receiptJson``)
and ``stderr``, ``process.json``, ``state.json``, ``transcript.json``; the
observed ``cleanup`` comes from ``extras.json``. :func:`case_bundle` builds
SB-1's members, the execution observation with its ``observationDigest`` last;
the receipt is stdout's first JSON value parsed by :mod:`ablation.strictjson`
(member order of the text), and none (a ``null`` bundle) when stdout gives no
complete value or that value breaks the strict profile (:func:`first_receipt`).
Every digest comes from :mod:`ablation.canonical`. Nothing here runs a process or writes.

Spec: PREPARE.md §4 ("Raw texts of a case"), §6; SPEC.md §3.4, §4.8 … §4.11.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ablation.canonical import canonical_digest, raw_digest
from ablation.contracts.execution import OBSERVATION_SCHEMA
from ablation.prepare.build import read_bytes, read_json, sci_command
from ablation.prepare.experiment_file import Case, Experiment
from ablation.strictjson import JsonGrammarError, parse_text

__all__ = [
    "CaseTexts",
    "case_bundle",
    "execution_observation",
    "expected_provenance",
    "first_receipt",
    "read_case_attempt",
    "receipt_count",
]

_JSON_WHITESPACE = " \t\n\r"


def _constant(literal: str) -> object:
    raise ValueError(f"{literal} is not JSON (RFC 8259)")


_DECODER = json.JSONDecoder(parse_constant=_constant)


def _value_ends(text: str) -> list[int]:
    ends: list[int] = []
    at = 0
    while True:
        while at < len(text) and text[at] in _JSON_WHITESPACE:
            at += 1
        if at == len(text):
            return ends
        try:
            _, at = _DECODER.raw_decode(text, at)
        except ValueError:
            return ends
        ends.append(at)


def receipt_count(text: str) -> int:
    """``receiptCount``: complete JSON values (RFC 8259) one after another from the start, only JSON whitespace between.

    Counting stops at the first character that does not begin a complete value.

    >>> receipt_count(""), receipt_count('{"a": 1}\\n'), receipt_count('{}\\ndone\\n')
    (0, 1, 1)
    >>> receipt_count("{} []"), receipt_count("{"), receipt_count("NaN")
    (2, 0, 0)
    """
    return len(_value_ends(text))


def first_receipt(text: str) -> tuple[object, str | None]:
    """The receipt: stdout's first JSON value under the strict profile, or why there is none.

    Returns:
        ``(value, None)``, or ``(None, why)`` when stdout holds no complete value or its
        first value breaks the strict profile (TOP-2 … TOP-4, TOP-6 … TOP-11): the case's bundle is then ``null``.
    """
    ends = _value_ends(text)
    if not ends:
        return None, "an empty stdout" if not text.strip(_JSON_WHITESPACE) else "no complete JSON value on stdout"
    try:
        parsed = parse_text(text[: ends[0]])
    except JsonGrammarError as exc:
        return None, f"stdout's first JSON value breaks {exc.rule} at character {exc.offset}"
    if parsed.violations:
        v = parsed.violations[0]
        return None, f"stdout's first JSON value breaks {v.rule} at {v.pointer or '/'}: {v.found}"
    return parsed.value, None


def expected_provenance(experiment: Experiment) -> dict[str, object]:
    """``expectedProvenance`` (SB-9's members) from ``[tools.sci]`` and ``[tools.backend]``."""
    sci, backend = experiment.tools["sci"], experiment.tools["backend"]
    return {
        "producerName": sci.name,
        "producerVersion": sci.version,
        "producerWorkflow": sci.workflow,
        "backendName": backend.name,
        "backendVersion": backend.version,
        "executableName": backend.executable_name,
        "executableVersion": backend.executable_version,
    }


@dataclass(frozen=True, slots=True)
class CaseTexts:
    """The raw files of one ``raw/cases/<nnn>/attempt-<k>/`` folder, and the observed cleanup."""

    request: bytes
    stdout: bytes
    stderr: bytes
    process: bytes
    state: bytes
    transcript: bytes
    cleanup: dict[str, object]


def read_case_attempt(folder: str) -> CaseTexts:
    """Read ``request.json``, ``stdout``, ``stderr``, ``process.json``, ``state.json``, ``transcript.json``
    and the ``cleanup`` member of ``extras.json``.

    Raises:
        OSError: a file cannot be read. ValueError: ``extras.json`` holds no ``cleanup`` object.
    """
    cleanup = read_json(folder, "extras.json").get("cleanup")
    if not isinstance(cleanup, dict):
        raise ValueError("extras.json holds no cleanup object")
    names = ("request.json", "stdout", "stderr", "process.json", "state.json", "transcript.json")
    request, stdout, stderr, process, state, transcript = (read_bytes(folder, name) for name in names)
    return CaseTexts(request, stdout, stderr, process, state, transcript, cleanup)


def _raw_evidence(texts: dict[str, str]) -> dict[str, object]:
    """``rawEvidence`` (OBS-20's members in order), each digest ``R(text)``."""
    raw: dict[str, object] = {}
    for member, text in (
        ("request", texts["request"]),
        ("receipt", texts["stdout"]),
        ("stdout", texts["stdout"]),
        ("stderr", texts["stderr"]),
        ("transcript", texts["transcript"]),
        ("process", texts["process"]),
        ("state", texts["state"]),
    ):
        raw[member if member in ("stdout", "stderr") else f"{member}Json"] = text
        raw[f"{member}Sha256"] = raw_digest(text)
    return raw


def execution_observation(
    *,
    command: list[str],
    repository_commit: str,
    receipt_digest: object,
    sci_artifact: dict[str, object],
    backend_artifact: dict[str, object],
    texts: dict[str, str],
    cleanup: dict[str, object],
) -> dict[str, object]:
    """``executionObservation`` (OBS-1's members in order, ``observationDigest`` = D(the rest) last).

    Args:
        command: OBS-13's argv; its last element is the request path (``requestArtifact.path``).
        repository_commit: the repository's commit.
        receipt_digest: the receipt's ``receiptDigest`` (``None`` when it has none).
        sci_artifact, backend_artifact: ``sciArtifact`` (OBS-9's members) and ``backendArtifact`` (OBS-11's).
        texts: the raw texts decoded as UTF-8: ``request``, ``stdout``, ``stderr``, ``process``,
            ``state``, ``transcript``; the members ``targetState`` and ``process`` are the parsed
            ``state`` and ``process`` texts.
        cleanup: the observed ``{completed, temporaryRootsRemoved}``.
    """
    raw = _raw_evidence(texts)
    observation: dict[str, object] = {
        "schema": OBSERVATION_SCHEMA,
        "receiptDigest": receipt_digest,
        "repositoryCommit": repository_commit,
        "requestArtifact": {"path": command[-1], "sha256": raw["requestSha256"]},
        "command": command,
        "commandDigest": canonical_digest(command),
        "sciArtifact": sci_artifact,
        "backendArtifact": backend_artifact,
        "rawEvidence": raw,
        "targetState": parse_text(texts["state"]).value,
        "process": parse_text(texts["process"]).value,
        "cleanup": {"completed": cleanup["completed"], "temporaryRootsRemoved": cleanup["temporaryRootsRemoved"]},
    }
    observation["observationDigest"] = canonical_digest(observation)
    return observation


def case_bundle(
    experiment: Experiment, case: Case, commit: str, *, sci_revision: str, texts: CaseTexts
) -> tuple[dict[str, object] | None, str | None]:
    """The case's ``structuralEvidence`` as ``assemble`` builds it, or ``(None, why)`` without a receipt.

    Raises:
        ValueError: a text prepare wrote (request, process, state, transcript) is not a JSON object.
    """
    decoded = {}
    for name in ("request", "stdout", "stderr", "process", "state", "transcript"):
        try:
            decoded[name] = getattr(texts, name).decode("utf-8")
        except UnicodeDecodeError as exc:
            return None, f"the exporter's {name} is not UTF-8 (byte {exc.start})"
    receipt, why = first_receipt(decoded["stdout"])
    if why is not None:
        return None, why
    tools = experiment.tools
    request = parse_text(decoded["request"]).value
    observation = execution_observation(
        command=sci_command(experiment, case.index),
        repository_commit=commit,
        receipt_digest=receipt.get("receiptDigest") if isinstance(receipt, dict) else None,
        sci_artifact={
            "name": tools["sci"].name,
            "version": tools["sci"].version,
            "path": tools["sci"].path,
            "revision": sci_revision,
            "sha256": "sha256:" + tools["sci"].sha256,
        },
        backend_artifact={
            "name": tools["backend"].executable_name,
            "version": tools["backend"].executable_version,
            "path": tools["backend"].path,
            "sha256": "sha256:" + tools["backend"].sha256,
        },
        texts=decoded,
        cleanup=texts.cleanup,
    )
    bundle = {
        "expectedRequest": request,
        "expectedRequestDigest": canonical_digest(request),
        "expectedProvenance": expected_provenance(experiment),
        "receipt": receipt,
        "executionObservation": observation,
    }
    return bundle, None
