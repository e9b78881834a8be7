"""Prepared-input pieces built from what ``capture`` wrote into D, exactly as ``assemble`` builds them.

``capture`` calls these to check each repository and each case at once, with the
evaluator's own validation; ``assemble`` (PREPARE.md §6) calls the same
functions on the same files, so what was checked at capture is what is frozen.
Nothing here runs a process or writes a file. Every digest comes from the
evaluator's own functions (:func:`ablation.canonical.canonical_digest`,
:func:`~ablation.canonical.raw_digest`), every parse from
:mod:`ablation.strictjson`, and raw texts are carried as written, never re-serialised.

- A repository: :func:`source_list_artifact` (``rawJson``, ``rawSha256``) and
  :func:`preparation_observation` (PREP-1's members, ``observationDigest`` last),
  from the usable ``raw/repositories`` attempt (:func:`read_repository_attempt`).
- The staleness sample: :func:`staleness_pick` (``spread`` or ``first``, PREPARE.md §4),
  :func:`staleness_method` (the ``method`` text) and :func:`staleness_sample` (STALE-1's members).
- A case: :func:`case_entry` (CASE-2's members: the identity triple, the bindings) and its
  bundle (:mod:`ablation.prepare.build_case`).

Spec: PREPARE.md §4 ("Raw texts of a case", "Staleness sample"), §6; SPEC.md §3.4, §4.3 … §4.11.
"""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass

from ablation.canonical import canonical_digest, raw_digest
from ablation.contracts.cases import question_id, target_basis_digest
from ablation.contracts.execution import EXPORTER_ARGUMENTS
from ablation.contracts.preparation import GIT_COMMAND
from ablation.contracts.preparation import SCHEMA as PREPARATION_SCHEMA
from ablation.prepare.experiment_file import Case, Experiment
from ablation.prepare.layout import request_path
from ablation.strictjson import parse_text
from ablation.text import identity_tokens

__all__ = [
    "RepositoryCapture",
    "case_entry",
    "preparation_observation",
    "read_bytes",
    "read_json",
    "read_repository_attempt",
    "sci_command",
    "source_list_artifact",
    "source_list_command",
    "staleness_method",
    "staleness_pick",
    "staleness_sample",
    "target_state_members",
]

_HOW = {
    "spread": "ordered by SHA-256 of the artifact digest, a line feed and the path",
    "first": "first in artifact order",
}


# ------------------------------------------------------------------ commands


def source_list_command(experiment: Experiment) -> list[str]:
    """PREP-11's argv: ``[tools.node.path, tools.source_list.path, --repo, ., --full-list, --json]``."""
    tools = experiment.tools
    return [tools["node"].path, tools["source_list"].path, "--repo", ".", "--full-list", "--json"]


def sci_command(experiment: Experiment, case_index: int) -> list[str]:
    """OBS-13's argv: ``[tools.sci.path, experimental, structural-evidence-receipt, --request-file, <request>]``."""
    request = request_path(experiment.work_root, case_index, len(experiment.cases))
    return [experiment.tools["sci"].path, *EXPORTER_ARGUMENTS, request]


# ------------------------------------------------------------------ a repository


def source_list_artifact(stdout: bytes) -> dict[str, object]:
    """``sourceListArtifact``: ``{rawJson: stdout as strict UTF-8, rawSha256: R(stdout)}``.

    Raises:
        UnicodeDecodeError: stdout is not UTF-8 (capture's CAP-15; ``assemble`` refuses it).
    """
    raw = stdout.decode("utf-8")
    return {"rawJson": raw, "rawSha256": raw_digest(stdout)}


def target_state_members(before: dict[str, object], after: dict[str, object]) -> dict[str, object]:
    """PREP-14's six members from two state files (``{head, status}`` each)."""
    return {
        "headBefore": before["head"],
        "headAfter": after["head"],
        "statusBefore": before["status"],
        "statusAfter": after["status"],
        "cleanBefore": before["status"] == "",
        "cleanAfter": after["status"] == "",
    }


def preparation_observation(
    experiment: Experiment,
    commit: str,
    *,
    revision: str,
    raw_sha256: str,
    exit_code: int | None,
    target_state: dict[str, object],
    evidence: bytes,
) -> dict[str, object]:
    """``sourceListPreparation`` (PREP-1's members in order, ``observationDigest`` = D(the rest)).

    Args:
        experiment: the experiment file (tool paths and pins).
        commit: the repository's commit.
        revision: the source-list revision (declared, or derived from its checkout at capture).
        raw_sha256: the artifact's ``rawSha256``.
        exit_code: source-list's exit status (``None`` when a signal ended it).
        target_state: :func:`target_state_members`.
        evidence: the evidence command's stdout bytes (``git-ls-files-stage.bin``).
    """
    tools = experiment.tools
    command = source_list_command(experiment)
    observation: dict[str, object] = {
        "schema": PREPARATION_SCHEMA,
        "repositoryCommit": commit,
        "rawArtifactSha256": raw_sha256,
        "sourceListExecutable": {
            "nodePath": tools["node"].path,
            "path": tools["source_list"].path,
            "revision": revision,
            "artifactSha256": "sha256:" + tools["source_list"].sha256,
        },
        "command": command,
        "commandDigest": canonical_digest(command),
        "exitCode": exit_code,
        "targetState": target_state,
        "trackedPathInventory": {
            "command": list(GIT_COMMAND),
            "commandDigest": canonical_digest(list(GIT_COMMAND)),
            "stdoutBase64": base64.b64encode(evidence).decode("ascii"),
            "stdoutSha256": raw_digest(evidence),
            "exitCode": 0,
        },
    }
    observation["observationDigest"] = canonical_digest(observation)
    return observation


@dataclass(frozen=True, slots=True)
class RepositoryCapture:
    """The files of one ``raw/repositories/<nnn>/attempt-<k>/`` folder that the input is built from."""

    stdout: bytes
    evidence: bytes
    state_before: dict[str, object]
    state_after: dict[str, object]


def read_bytes(folder: str, name: str) -> bytes:
    """The bytes of the file ``name`` in ``folder`` (raises ``OSError``)."""
    with open(os.path.join(folder, name), "rb") as stream:
        return stream.read()


def read_json(folder: str, name: str) -> dict[str, object]:
    """A JSON object prepare wrote into ``folder`` (raises ``OSError``, ``ValueError`` when it is not one)."""
    value = parse_text(read_bytes(folder, name).decode("utf-8")).value
    if not isinstance(value, dict):
        raise ValueError(f"{name} is not a JSON object")
    return value


def read_repository_attempt(folder: str) -> RepositoryCapture:
    """Read ``source-list.stdout``, ``git-ls-files-stage.bin``, ``state-before.json``, ``state-after.json``.

    Raises:
        OSError: a file cannot be read. ValueError: a state file is not a JSON object.
    """
    return RepositoryCapture(
        stdout=read_bytes(folder, "source-list.stdout"),
        evidence=read_bytes(folder, "git-ls-files-stage.bin"),
        state_before=read_json(folder, "state-before.json"),
        state_after=read_json(folder, "state-after.json"),
    )


# ------------------------------------------------------------------ the staleness sample


def staleness_pick(rule: str, size: int, raw_sha256: str, present: list[str]) -> list[str]:
    """The sampled paths (PREPARE.md §4), in UTF-8 order.

    Args:
        rule: ``spread`` (the present paths ordered by SHA-256 of the UTF-8 bytes of
            ``raw_sha256 + "\\n" + path``, ascending, ties by UTF-8 path order) or
            ``first`` (artifact order); the first ``size`` are taken.
        size: at least 1; fewer present paths than ``size`` are all taken.
        raw_sha256: the artifact's ``rawSha256`` (with its ``sha256:`` prefix).
        present: the metadata-present item paths, in artifact order.

    >>> staleness_pick("first", 2, "sha256:x", ["a", "b", "c"]), staleness_pick("first", 5, "sha256:x", ["b", "a"])
    (['a', 'b'], ['a', 'b'])
    """
    if rule == "first":
        picked = present[:size]
    elif rule == "spread":

        def key(path: str) -> tuple[bytes, bytes]:
            return hashlib.sha256(f"{raw_sha256}\n{path}".encode()).digest(), path.encode("utf-8")

        picked = sorted(present, key=key)[:size]
    else:
        raise ValueError(f"no staleness rule {rule!r}")
    return sorted(picked, key=lambda path: path.encode("utf-8"))


def staleness_method(rule: str, sampled: int, present: int, raw_sha256: str, reviewer: str) -> str:
    """The ``method`` text (PREPARE.md §6): composed by prepare, never typed; ``assemble`` checks STALE-4 on it.

    >>> staleness_method("first", 2, 7, "sha256:ab", "R. Roe")
    'first sample of 2 of 7 metadata-present paths (first in artifact order); source-list artifact sha256:ab; \
staleness review by R. Roe: ACCEPT'
    """
    return (
        f"{rule} sample of {sampled} of {present} metadata-present paths ({_HOW[rule]}); "
        f"source-list artifact {raw_sha256}; staleness review by {reviewer}: ACCEPT"
    )


def staleness_sample(
    commit: str, raw_sha256: str, method: str, sampled: list[str], stale: list[str]
) -> dict[str, object]:
    """``metadataStalenessSample`` (STALE-1's members; ``sampleDigest`` = D(the rest)); both lists in UTF-8 order."""
    sample: dict[str, object] = {
        "commit": commit,
        "rawArtifactSha256": raw_sha256,
        "method": method,
        "sampledPaths": sorted(sampled, key=lambda path: path.encode("utf-8")),
        "stalePaths": sorted(stale, key=lambda path: path.encode("utf-8")),
    }
    sample["sampleDigest"] = canonical_digest(sample)
    return sample


# ------------------------------------------------------------------ a case


def case_entry(case: Case, commit: str, raw_sha256: str, bundle: dict[str, object] | None) -> dict[str, object]:
    """A case of the input (CASE-2's members in order): the experiment's values, the bindings, the identity triple.

    ``intentSignature`` = D(identity tokens of the question), ``targetBasisDigest`` =
    D({repositoryCommit, sourceListArtifactSha256, truth sorted}), ``questionId`` =
    ``question:`` + D({repositoryId, intentSignature, targetBasisDigest}) (SPEC §3.4), each
    by the evaluator's own function; ``truth`` stays in the author's order.

    Args:
        case: the ``[[case]]`` entry.
        commit: its repository's commit.
        raw_sha256: its repository's ``sourceListArtifact.rawSha256``.
        bundle: the structural bundle, or ``None`` (``null``: no ``[case.sci]``, or no receipt).
    """
    intent = canonical_digest(identity_tokens(case.question))
    basis = target_basis_digest(commit, raw_sha256, list(case.truth))
    return {
        "id": case.id,
        "repositoryId": case.repository,
        "repositoryCommit": commit,
        "sourceListArtifactSha256": raw_sha256,
        "question": case.question,
        "questionId": question_id(case.repository, intent, basis),
        "intentSignature": intent,
        "targetBasisDigest": basis,
        "maxItems": case.max_items,
        "truth": list(case.truth),
        "structuralEvidence": bundle,
    }
