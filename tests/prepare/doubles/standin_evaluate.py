"""The evaluator's side of the stand-in tests: captured bytes → prepared-input pieces → ``ablation.contracts``.

A small, test-only version of what capture does with an owner's output
(PREPARE.md §4): observe the target's state, build the source-list artifact and
preparation observation, or an SCI case's structural bundle with its execution
observation, from the bytes the stand-in wrote, and run the evaluator's own
validation on them. The stand-ins never import ``ablation``; this module does,
so a stand-in and the evaluator agree only when both follow SPEC.
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ablation.canonical import canonical_digest, raw_digest
from ablation.contracts.base import Reporter
from ablation.contracts.preparation import GIT_COMMAND, validate_preparation
from ablation.contracts.source_list import CandidateUniverse, validate_source_list_artifact
from ablation.contracts.structural import validate_bundle
from ablation.errors import BundleInvalid
from ablation.strictjson import JsonGrammarError, parse_text
from tests.prepare.doubles import standins
from tests.prepare.doubles.standin_runs import OwnerRun

REPOSITORY = "/repositories/0"
TOOL_REVISION = "c0ffee" + "0" * 34
PREPARATION_SCHEMA = "pi-context-packer.source_list_preparation_observation.v1"
OBSERVATION_SCHEMA = "pi-context-packer.structural_evidence_execution_observation.v2"
_CLASS_A = (".sci", ".semantic-graph", ".ontology")
_STATE_GIT = ["git", "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false"]


def pin(path: Path) -> str:
    """``sha256:`` + the SHA-256 of a file's bytes (what an experiment file pins, with the prefix)."""
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def text_of(value: object) -> str:
    """A raw JSON text as prepare writes one: ``json.dumps(v, indent=2, ensure_ascii=False) + "\\n"``."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True, slots=True)
class TargetState:
    """One observation of a target (PREPARE.md §4 "target state"), without rewriting its index."""

    head: str
    status: str
    index_sha256: str
    stage_listing: bytes
    ontology: bool
    class_a: bool

    @classmethod
    def observe(cls, target: Path, env: Mapping[str, str]) -> TargetState:
        """HEAD, porcelain status (untracked files included), ``.git/index`` hash, ``ls-files --stage``, presences."""

        def git(*args: str) -> bytes:
            done = subprocess.run([*_STATE_GIT, *args], cwd=target, env=dict(env), capture_output=True, check=True)
            return done.stdout

        return cls(
            head=git("rev-parse", "HEAD").decode("ascii").rstrip("\n"),
            status=git("status", "--porcelain=v1", "--untracked-files=all").decode("utf-8"),
            index_sha256=hashlib.sha256((target / ".git" / "index").read_bytes()).hexdigest(),
            stage_listing=git(*GIT_COMMAND[1:]),
            ontology=(target / ".ontology").is_symlink() or (target / ".ontology").exists(),
            class_a=any((target / name).is_symlink() or (target / name).exists() for name in _CLASS_A),
        )


# ------------------------------------------------------------------ source list (SL, PREP, GIT)


def source_list_repository(
    stdout: bytes, *, interpreter: str, script: Path, exit_code: int, before: TargetState, after: TargetState
) -> tuple[str, dict[str, object], dict[str, object]]:
    """``(commit, sourceListArtifact, sourceListPreparation)`` from a source-list run (PREPARE.md §6's table).

    Raises:
        UnicodeDecodeError: stdout is not strict UTF-8 (a capture gate, not an evaluator rule).
    """
    raw = stdout.decode("utf-8")
    artifact: dict[str, object] = {"rawJson": raw, "rawSha256": raw_digest(raw)}
    command = standins.source_list_argv(interpreter, script)
    evidence = before.stage_listing
    observation: dict[str, object] = {
        "schema": PREPARATION_SCHEMA,
        "repositoryCommit": before.head,
        "rawArtifactSha256": artifact["rawSha256"],
        "sourceListExecutable": {
            "nodePath": interpreter,
            "path": str(script),
            "revision": TOOL_REVISION,
            "artifactSha256": pin(script),
        },
        "command": command,
        "commandDigest": canonical_digest(command),
        "exitCode": exit_code,
        "targetState": {
            "headBefore": before.head,
            "headAfter": after.head,
            "statusBefore": before.status,
            "statusAfter": after.status,
            "cleanBefore": before.status == "",
            "cleanAfter": after.status == "",
        },
        "trackedPathInventory": {
            "command": list(GIT_COMMAND),
            "commandDigest": canonical_digest(list(GIT_COMMAND)),
            "stdoutBase64": base64.b64encode(evidence).decode("ascii"),
            "stdoutSha256": raw_digest(evidence),
            "exitCode": 0,
        },
    }
    observation["observationDigest"] = canonical_digest(observation)
    return before.head, artifact, observation


def check_source_list(commit: str, artifact: object, observation: object) -> CandidateUniverse:
    """The evaluator's SL, PREP and GIT rules on one repository, failing fast.

    Raises:
        InputRejected: the first violation, ``where`` under ``/repositories/0``.
    """
    rep = Reporter()
    checked = validate_source_list_artifact(artifact, f"{REPOSITORY}/sourceListArtifact", rep)
    assert checked is not None  # fail-fast: a violation raised
    validate_preparation(
        observation,
        f"{REPOSITORY}/sourceListPreparation",
        commit=commit,
        raw_sha256=checked.raw_sha256,
        universe=checked.universe,
        rep=rep,
    )
    return checked.universe


# ------------------------------------------------------------------ SCI (SB, REQ, RCPT, OBS)


def json_value_ends(text: str) -> list[int]:
    """End offsets of the complete JSON values that follow one another from the start (``receiptCount``)."""
    decoder, ends, at = json.JSONDecoder(), list[int](), 0
    while True:
        while at < len(text) and text[at] in " \t\n\r":
            at += 1
        if at == len(text):
            return ends
        try:
            _, at = decoder.raw_decode(text, at)
        except ValueError:
            return ends
        ends.append(at)


def first_receipt(stdout: str) -> object | None:
    """The first JSON value of stdout under the strict profile, or ``None`` when there is none (a null bundle)."""
    ends = json_value_ends(stdout)
    if not ends:
        return None
    try:
        parsed = parse_text(stdout[: ends[0]])
    except JsonGrammarError:
        return None
    return None if parsed.violations else parsed.value


@dataclass(frozen=True, slots=True)
class SciCase:
    """What the bundle of one SCI run is built from (besides the run itself)."""

    request_file: Path
    script: Path
    before: TargetState
    after: TargetState
    home_empty: bool
    tmp_empty: bool


def target_state(before: TargetState, after: TargetState) -> dict[str, object]:
    """OBS-15's eleven members, in order; ``indexRead`` is asserted false (assertion mode)."""
    return {
        "headBefore": before.head,
        "headAfter": after.head,
        "statusBefore": before.status,
        "statusAfter": after.status,
        "cleanBefore": before.status == "",
        "cleanAfter": after.status == "",
        "noIndex": not before.class_a,
        "indexRead": False,
        "indexBuilt": after.class_a,
        "ontologyBefore": "present" if before.ontology else "absent",
        "ontologyAfter": "present" if after.ontology else "absent",
    }


def raw_evidence(texts: dict[str, str], command: list[str]) -> dict[str, object]:
    """OBS-20's members from the raw texts (``request``, ``stdout``, ``stderr``, ``process``, ``state``)."""
    digests = {name: raw_digest(text) for name, text in texts.items()}
    transcript = {
        "command": command,
        "commandDigest": canonical_digest(command),
        "requestSha256": digests["request"],
        "receiptSha256": digests["stdout"],
        "stdoutSha256": digests["stdout"],
        "stderrSha256": digests["stderr"],
        "processSha256": digests["process"],
        "stateSha256": digests["state"],
    }
    texts = dict(texts, receipt=texts["stdout"], transcript=text_of(transcript))
    members = ("request", "receipt", "stdout", "stderr", "transcript", "process", "state")
    raw: dict[str, object] = {}
    for name in members:
        text_member = name if name in {"stdout", "stderr"} else f"{name}Json"
        raw[text_member] = texts[name]
        raw[f"{name}Sha256"] = raw_digest(texts[name])
    return raw


def expected_provenance() -> dict[str, object]:
    """SB-9's members from the stand-ins' provenance constants (as an experiment file would give them)."""
    sci, backend = standins.SCI_PROVENANCE, standins.BACKEND_PROVENANCE
    return {
        "producerName": sci["name"],
        "producerVersion": sci["version"],
        "producerWorkflow": sci["workflow"],
        "backendName": backend["name"],
        "backendVersion": backend["version"],
        "executableName": backend["executable_name"],
        "executableVersion": backend["executable_version"],
    }


def sci_bundle(run: OwnerRun, case: SciCase) -> dict[str, object] | None:
    """The case's structural bundle as assemble would build it (asserted mode), or ``None`` without a receipt."""
    stdout = run.stdout.decode("utf-8")
    receipt = first_receipt(stdout)
    if receipt is None:
        return None
    request_json = case.request_file.read_text(encoding="utf-8")
    request = parse_text(request_json).value
    process = {
        "exitCode": run.exit_code,
        "receiptCount": len(json_value_ends(stdout)),
        "processGroupTerminationConfirmed": run.confirmed,
    }
    state = target_state(case.before, case.after)
    command = standins.sci_argv(case.request_file, case.script)
    texts = {"request": request_json, "stdout": stdout, "stderr": run.stderr.decode("utf-8")}
    raw = raw_evidence(dict(texts, process=text_of(process), state=text_of(state)), command)
    completed = run.exit_code == 0 and run.confirmed and case.tmp_empty and case.home_empty
    sci, backend = standins.SCI_PROVENANCE, standins.BACKEND_PROVENANCE
    observation: dict[str, object] = {
        "schema": OBSERVATION_SCHEMA,
        "receiptDigest": receipt.get("receiptDigest") if isinstance(receipt, dict) else None,
        "repositoryCommit": case.before.head,
        "requestArtifact": {"path": str(case.request_file), "sha256": raw["requestSha256"]},
        "command": command,
        "commandDigest": canonical_digest(command),
        "sciArtifact": {
            "name": sci["name"],
            "version": sci["version"],
            "path": str(case.script),
            "revision": TOOL_REVISION,
            "sha256": pin(case.script),
        },
        "backendArtifact": {
            "name": backend["executable_name"],
            "version": backend["executable_version"],
            "path": str(standins.BACKEND),
            "sha256": pin(standins.BACKEND),
        },
        "rawEvidence": raw,
        "targetState": state,
        "process": process,
        "cleanup": {"completed": completed, "temporaryRootsRemoved": case.tmp_empty},
    }
    observation["observationDigest"] = canonical_digest(observation)
    return {
        "expectedRequest": request,
        "expectedRequestDigest": canonical_digest(request),
        "expectedProvenance": expected_provenance(),
        "receipt": receipt,
        "executionObservation": observation,
    }


def bundle_rule(bundle: object, *, question: str, commit: str, item_paths: frozenset[str]) -> str | None:
    """The first rule ``ablation.contracts.structural.validate_bundle`` reports, or ``None`` when it accepts."""
    try:
        validate_bundle(bundle, question=question, repository_commit=commit, item_paths=item_paths)
    except BundleInvalid as exc:
        return exc.rule
    return None
