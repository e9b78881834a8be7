"""Build valid prepared inputs (protocol v2) as plain dicts, with every digest computed.

This is the project's own fixture builder. Tests of every validation rule start
from a valid input made here, change one field, call the matching ``rehash_*``
helper so that every *other* digest stays valid, and then break the one thing
they target. The benchmarks and ``examples/`` use it too.

Layers, from small to large (each returns a fresh ``dict`` in the member order
of the contract, so serialized bytes are stable):

- :func:`source_list_item` → :func:`source_list_payload` → :func:`source_list_artifact`;
- :func:`tracked_path_records` / :func:`tracked_path_bytes`, :func:`preparation`,
  :func:`staleness_sample` → :func:`repository`;
- :func:`match` (one evidence entry) → :func:`structural_bundle` → :func:`case`;
- :func:`prepared_input`, serialized by :func:`dumps`;
- presets: :func:`valid_minimal` (SPEC §11.1), :func:`valid_two_repo` (§11.5) and
  the seeded generator :func:`synthetic`.

Re-hash helpers (:func:`rehash_repository`, :func:`rehash_case`,
:func:`rehash_bundle`, :func:`rehash_input`) recompute dependent digests in place
after a mutation.

Embedded raw JSON texts (source-list ``rawJson`` and the five bundle texts) are
``json.dumps(value, indent=2, ensure_ascii=False)`` followed by one LF — the
digests of SPEC §11.2 fix that trailing newline.

Spec: SPEC.md §3.4 (digest recipes), §4 (rules), §11 (worked example).
"""

from __future__ import annotations

import base64
import binascii
import copy
import functools
import json
import random
from collections.abc import Iterable, Sequence
from typing import Any, Final, cast

from ablation.canonical import canonical_digest, raw_digest
from ablation.text import extname, identity_tokens

__all__ = [
    "AUTO",
    "PROTOCOL",
    "SUPPORTED_EXTENSIONS",
    "case",
    "dumps",
    "item_paths",
    "match",
    "payload",
    "preparation",
    "prepared_input",
    "raw_text",
    "rehash_bundle",
    "rehash_case",
    "rehash_input",
    "rehash_repository",
    "repository",
    "source_list_artifact",
    "source_list_item",
    "source_list_payload",
    "staleness_sample",
    "structural_bundle",
    "synthetic",
    "tracked_path_bytes",
    "tracked_path_records",
    "valid_minimal",
    "valid_two_repo",
]

Json = Any  # a parsed JSON value: dict, list, str, int, bool or None (never float)
Record = tuple[str, str, int, str]  # (mode, object id, stage, path) of one git ls-files line


class _Auto:
    """Sentinel type: "derive this value from the other arguments"."""

    def __repr__(self) -> str:
        return "AUTO"


#: Default of optional builder arguments whose valid value depends on the others.
AUTO: Final = _Auto()

# --- constants of the contract (SPEC §4, §11.1) -------------------------------------------

PROTOCOL: Final = "pi-context-packer-source-selection-ablation/v2"

#: SL-10: the default extension list, in contract order.
SUPPORTED_EXTENSIONS: Final = (
    ".bash",
    ".c",
    ".cc",
    ".cjs",
    ".cpp",
    ".cs",
    ".go",
    ".h",
    ".hpp",
    ".java",
    ".js",
    ".jsx",
    ".kt",
    ".lua",
    ".mjs",
    ".php",
    ".py",
    ".rb",
    ".rs",
    ".sh",
    ".swift",
    ".ts",
    ".tsx",
    ".zsh",
)
_SUPPORTED: Final = frozenset(SUPPORTED_EXTENSIONS)

PREPARATION_SCHEMA: Final = "pi-context-packer.source_list_preparation_observation.v1"
NODE_PATH: Final = "/usr/bin/node"
SOURCE_LIST_PATH: Final = "/opt/pinned/agent-scripts/scripts/source-list.mjs"
SOURCE_LIST_REVISION: Final = "b" * 40
SOURCE_LIST_ARTIFACT_SHA256: Final = raw_digest("source-list executable")
GIT_COMMAND: Final = ("git", "-C", ".", "--literal-pathspecs", "ls-files", "--cached", "--stage", "-z", "--")
GIT_OBJECT_ID: Final = "a" * 40
STALENESS_METHOD: Final = "deterministic first metadata-present path review"

RECEIPT_SCHEMA: Final = "semantic-code-intelligence.structural_evidence_receipt.v1"
OBSERVATION_SCHEMA: Final = "pi-context-packer.structural_evidence_execution_observation.v2"
PRODUCER: Final = {
    "name": "semantic-code-intelligence",
    "version": "2.0.0",
    "workflow": "structural-evidence-export-v1",
}
BACKEND: Final = {"name": "ast-grep", "version": "0.40.5"}
REQUEST_PATH: Final = "/evidence/prepared-request.json"
SCI_PATH: Final = "/opt/pinned/semantic-code-intelligence"
SCI_REVISION: Final = "c" * 40
SCI_ARTIFACT_SHA256: Final = raw_digest("sci artifact")
BACKEND_PATH: Final = "/opt/pinned/ast-grep"
BACKEND_ARTIFACT_SHA256: Final = raw_digest("backend artifact")
#: Request limits of SPEC §11.1; :func:`structural_bundle` raises them to fit larger receipts.
DEFAULT_LIMITS: Final = {"maxCandidates": 20, "maxCandidatesPerFile": 5, "maxEvidenceBytes": 65536, "timeoutMs": 30000}

_GIT_MODES: Final = {"regular": "100644", "symlink": "120000", "gitlink": "160000", "other": "040000"}
_DEFAULT_METADATA_ERRORS: Final = {"invalid": "invalid_summary", "unreadable": "ENOENT: file vanished during listing"}

# (text member, digest member) of rawEvidence, in OBS-20 order
_RAW_TEXTS: Final = (
    ("requestJson", "requestSha256"),
    ("receiptJson", "receiptSha256"),
    ("stdout", "stdoutSha256"),
    ("stderr", "stderrSha256"),
    ("transcriptJson", "transcriptSha256"),
    ("processJson", "processSha256"),
    ("stateJson", "stateSha256"),
)

# --- serialization ---------------------------------------------------------------------


def raw_text(value: Json) -> str:
    """The embedded raw JSON text of ``value``: 2-space indent, raw UTF-8, one trailing LF.

    >>> raw_text({"a": [1]})
    '{\\n  "a": [\\n    1\\n  ]\\n}\\n'
    """
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def dumps(obj: Json) -> bytes:
    """Serialize a prepared input as SPEC §11.1 does: ``raw_text(obj)`` encoded as UTF-8."""
    return raw_text(obj).encode("utf-8")


def _minus(obj: dict[str, Json], key: str) -> dict[str, Json]:
    """ "X minus K" of SPEC §3.3 (a shallow copy without member ``key``)."""
    return {k: v for k, v in obj.items() if k != key}


# --- source-list artifact (SPEC §4.3) ----------------------------------------------------


def source_list_item(
    path: str,
    status: str = "present",
    summary: str | _Auto | None = AUTO,
    read_when: Iterable[str] = (),
    index_kind: str = "regular",
    worktree_kind: str | _Auto = AUTO,
    metadata_error: str | _Auto | None = AUTO,
) -> dict[str, Json]:
    """One item of the source-list payload, valid for its status (SL-12 … SL-30).

    Args:
        path: repository-relative path; ``extension`` is lower(extname(path)) (§9.9).
        status: ``metadataStatus``: present, absent, invalid, unreadable or not_applicable.
        summary: AUTO gives ``"owner record"`` when present, ``null`` otherwise.
        read_when: hints (present items only; at most five ``MetaScalar`` strings).
        index_kind: regular, symlink, gitlink, conflicted or other (not_applicable needs a
            non-regular kind).
        worktree_kind: AUTO gives ``index_kind`` for not_applicable, ``missing`` for
            unreadable, ``regular`` otherwise.
        metadata_error: AUTO gives ``invalid_summary`` (invalid), an ENOENT message
            (unreadable) or ``null``.

    Returns:
        The item object in SL-12 member order.
    """
    if isinstance(summary, _Auto):
        summary = "owner record" if status == "present" else None
    if isinstance(worktree_kind, _Auto):
        worktree_kind = {"not_applicable": index_kind, "unreadable": "missing"}.get(status, "regular")
    if isinstance(metadata_error, _Auto):
        metadata_error = _DEFAULT_METADATA_ERRORS.get(status)
    return {
        "path": path,
        "indexKind": index_kind,
        "extension": extname(path).lower(),
        "worktreeKind": worktree_kind,
        "metadataStatus": status,
        "summary": summary,
        "readWhen": list(read_when),
        "metadataError": metadata_error,
    }


def source_list_payload(items: Sequence[dict[str, Json]]) -> dict[str, Json]:
    """The parsed ``source-list.v1`` inventory payload holding ``items`` (SL-5 … SL-37)."""
    count = len(items)
    return {
        "contractVersion": "source-list.v1",
        "mode": "inventory",
        "repository": ".",
        "supportedExtensions": list(SUPPORTED_EXTENSIONS),
        "totalCount": count,
        "returnedCount": count,
        "page": 1,
        "pageSize": max(count, 1),
        "totalPages": 1,
        "truncated": False,
        "items": list(items),
        "violationCount": 0,
        "violations": [],
        "ok": True,
    }


def source_list_artifact(items: Sequence[dict[str, Json]]) -> dict[str, Json]:
    """``sourceListArtifact``: ``{rawJson, rawSha256}`` with rawSha256 = R(rawJson) (SL-1 … SL-3)."""
    text = raw_text(source_list_payload(items))
    return {"rawJson": text, "rawSha256": raw_digest(text)}


@functools.lru_cache(maxsize=16)
def _parsed_payload(raw_json: str) -> dict[str, Json]:
    payload: dict[str, Json] = json.loads(raw_json)
    return payload


def payload(repo: dict[str, Json]) -> dict[str, Json]:
    """A private, mutable copy of the repository's parsed source-list payload.

    Change it and pass it to ``rehash_repository(repo, payload=...)`` to write it back.
    """
    return copy.deepcopy(_parsed_payload(repo["sourceListArtifact"]["rawJson"]))


def item_paths(repo: dict[str, Json]) -> list[str]:
    """The item paths of a repository, in artifact order (the candidate universe)."""
    return [item["path"] for item in _parsed_payload(repo["sourceListArtifact"]["rawJson"])["items"]]


# --- preparation observation and tracked-path evidence (SPEC §4.4, §4.5) -------------------


def tracked_path_records(
    items: Sequence[dict[str, Json]], extra_paths: Iterable[str] = (), object_id: str = GIT_OBJECT_ID
) -> list[Record]:
    """The ``git ls-files --stage`` records that yield exactly ``items`` (GIT-10, GIT-11).

    Each item's ``indexKind`` picks the mode (regular 100644, symlink 120000, gitlink
    160000, other 040000); ``conflicted`` gives three records at stages 1, 2, 3.
    ``extra_paths`` are tracked files the extension filter drops (``README.md``); they
    must not have a supported extension. Records come out sorted by path bytes.
    """
    records: list[Record] = []
    for item in items:
        path, kind = item["path"], item["indexKind"]
        if kind == "conflicted":
            records.extend(("100644", object_id, stage, path) for stage in (1, 2, 3))
        else:
            records.append((_GIT_MODES[kind], object_id, 0, path))
    for path in extra_paths:
        if extname(path).lower() in _SUPPORTED:
            msg = f"extra tracked path {path!r} has a supported extension and would become an item"
            raise ValueError(msg)
        records.append(("100644", object_id, 0, path))
    records.sort(key=lambda r: (r[3], r[2]))  # str order is UTF-8 byte order (§9.5)
    return records


def tracked_path_bytes(records: Iterable[Record]) -> bytes:
    """NUL-terminated ``<mode> <oid> <stage>\\t<path>`` records as git writes them (§4.5)."""
    return b"".join(f"{mode} {oid} {stage}\t{path}\0".encode() for mode, oid, stage, path in records)


def preparation(commit: str, raw_sha256: str, stdout: bytes) -> dict[str, Json]:
    """``sourceListPreparation`` with every digest computed (PREP-1 … PREP-18).

    Args:
        commit: the repository commit (both heads and ``repositoryCommit``).
        raw_sha256: the source-list artifact's ``rawSha256``.
        stdout: the exact git ls-files output bytes (see :func:`tracked_path_bytes`).
    """
    command = [NODE_PATH, SOURCE_LIST_PATH, "--repo", ".", "--full-list", "--json"]
    git_command = list(GIT_COMMAND)
    observation = {
        "schema": PREPARATION_SCHEMA,
        "repositoryCommit": commit,
        "rawArtifactSha256": raw_sha256,
        "sourceListExecutable": {
            "nodePath": NODE_PATH,
            "path": SOURCE_LIST_PATH,
            "revision": SOURCE_LIST_REVISION,
            "artifactSha256": SOURCE_LIST_ARTIFACT_SHA256,
        },
        "command": command,
        "commandDigest": canonical_digest(command),
        "exitCode": 0,
        "targetState": {
            "headBefore": commit,
            "headAfter": commit,
            "statusBefore": "",
            "statusAfter": "",
            "cleanBefore": True,
            "cleanAfter": True,
        },
        "trackedPathInventory": {
            "command": git_command,
            "commandDigest": canonical_digest(git_command),
            "stdoutBase64": base64.b64encode(stdout).decode("ascii"),
            "stdoutSha256": raw_digest(stdout),
            "exitCode": 0,
        },
    }
    observation["observationDigest"] = canonical_digest(observation)
    return observation


def staleness_sample(
    commit: str, raw_sha256: str, sampled: Iterable[str], stale: Iterable[str] = (), method: str = STALENESS_METHOD
) -> dict[str, Json]:
    """``metadataStalenessSample`` with ``sampleDigest`` (STALE-1 … STALE-11).

    ``sampled`` and ``stale`` are sorted into UTF-8 order without duplicates (STALE-7).
    """
    sample = {
        "commit": commit,
        "rawArtifactSha256": raw_sha256,
        "method": method,
        "sampledPaths": sorted(set(sampled)),
        "stalePaths": sorted(set(stale)),
    }
    sample["sampleDigest"] = canonical_digest(sample)
    return sample


def repository(
    id: str,
    commit: str,
    items: Sequence[dict[str, Json]],
    *,
    staleness_sampled: Iterable[str] | None = None,
    stale: Iterable[str] = (),
    git_records: Iterable[Record] | None = None,
    extra_tracked: Iterable[str] = (),
    method: str = STALENESS_METHOD,
) -> dict[str, Json]:
    """One declared repository with artifact, preparation observation and staleness sample.

    Args:
        id: repository id (``NBText(128)``, normalized).
        commit: 40 or 64 lowercase hex digits.
        items: source-list items (:func:`source_list_item`), already strictly UTF-8 sorted.
        staleness_sampled: sampled paths (present items); None samples the first present item.
        stale: the stale subset of the sample.
        git_records: tracked-path records to use instead of the derived ones.
        extra_tracked: tracked non-source paths that git lists and the filter drops.
        method: the staleness sample's method text.

    Returns:
        The repository object in REPO-2 member order.

    Raises:
        ValueError: no present item to sample, or an extra path with a supported extension.
    """
    artifact = source_list_artifact(items)
    raw_sha256 = artifact["rawSha256"]
    if git_records is None:
        git_records = tracked_path_records(items, extra_tracked)
    if staleness_sampled is None:
        present = [item["path"] for item in items if item["metadataStatus"] == "present"]
        if not present:
            msg = f"repository {id!r} has no metadata-present item to sample (STALE-8, STALE-9)"
            raise ValueError(msg)
        staleness_sampled = present[:1]
    return {
        "id": id,
        "commit": commit,
        "sourceListArtifact": artifact,
        "sourceListPreparation": preparation(commit, raw_sha256, tracked_path_bytes(git_records)),
        "metadataStalenessSample": staleness_sample(commit, raw_sha256, staleness_sampled, stale, method),
    }


# --- structural bundle (SPEC §4.8 … §4.11) ----------------------------------------------


def match(
    path: str, line: int = 0, snippet: str = "alpha", *, column: int = 0, operation: str = "structural_search"
) -> dict[str, Json]:
    """One ``match`` evidence entry (RCPT-18), its id computed (RCPT-24).

    The range runs from (line, column) to (line, column + len(snippet)); ``byteCount`` is
    the snippet's UTF-8 length. Provenance names the default backend and workflow.

    >>> match("src/alpha.js")["id"]
    'candidate:sha256:66430d70df6d03a2e042b45e6033c58fdd9897fa5e6194d332c2afe109829858'
    """
    identity = {
        "path": path,
        "kind": "match",
        "range": {"start": {"line": line, "column": column}, "end": {"line": line, "column": column + len(snippet)}},
    }
    return {
        "id": "candidate:" + canonical_digest(identity),
        "identity": identity,
        "operation": operation,
        "snippet": snippet,
        "byteCount": len(snippet.encode("utf-8")),
        "provenance": {"backend": BACKEND["name"], "workflow": PRODUCER["workflow"]},
    }


def _fitting_limits(evidence: Sequence[dict[str, Json]]) -> dict[str, int]:
    """DEFAULT_LIMITS, raised just enough for ``evidence`` (RCPT-35 … RCPT-37, REQ-14)."""
    per_path: dict[str, int] = {}
    for entry in evidence:
        path = entry["identity"]["path"]
        per_path[path] = per_path.get(path, 0) + 1
    max_candidates = max(DEFAULT_LIMITS["maxCandidates"], len(evidence))
    max_per_file = max([DEFAULT_LIMITS["maxCandidatesPerFile"], *per_path.values()])
    return {
        "maxCandidates": max_candidates,
        "maxCandidatesPerFile": min(max_per_file, max_candidates),
        "maxEvidenceBytes": max(DEFAULT_LIMITS["maxEvidenceBytes"], sum(e["byteCount"] for e in evidence)),
        "timeoutMs": DEFAULT_LIMITS["timeoutMs"],
    }


def structural_bundle(
    repository: dict[str, Json],
    question: str,
    evidence_specs: Iterable[str | dict[str, Json]],
    *,
    language: str = "JavaScript",
    pattern: str = "$MATCH",
    path_seeds: Sequence[str] = ("src",),
    limits: dict[str, int] | None = None,
    message: str = "evidence collected",
) -> dict[str, Json]:
    """A valid SCI structural bundle for one case (SB-1 … SB-17, REQ, RCPT, OBS).

    Args:
        repository: the case's repository (its commit is bound by SB-8, OBS-5, OBS-16).
        question: the case question (SB-3; must be ``Portable`` for REQ-2).
        evidence_specs: evidence entries in receipt order: a path string means
            ``match(path)``; a dict (e.g. from :func:`match`) is used as given.
        language: value of the ``seed:language`` seed.
        pattern: value of the ``seed:pattern`` seed.
        path_seeds: values of the path seeds ``seed:path``, ``seed:path-2``, ….
        limits: request limits; None takes DEFAULT_LIMITS raised to fit the evidence.
        message: the backend outcome message.

    Returns:
        ``{expectedRequest, expectedRequestDigest, expectedProvenance, receipt,
        executionObservation}`` with every digest and raw text computed.
    """
    evidence = [match(spec) if isinstance(spec, str) else copy.deepcopy(spec) for spec in evidence_specs]
    commit = repository["commit"]
    seeds = [
        {"id": "seed:language", "kind": "text", "value": language},
        {"id": "seed:pattern", "kind": "text", "value": pattern},
    ]
    seeds += [
        {"id": "seed:path" if k == 0 else f"seed:path-{k + 1}", "kind": "path", "value": value}
        for k, value in enumerate(path_seeds)
    ]
    request = {
        "question": question,
        "seeds": seeds,
        "operations": ["structural_search"],
        "limits": dict(limits) if limits is not None else _fitting_limits(evidence),
    }
    evidence_bytes = sum(entry["byteCount"] for entry in evidence)
    fingerprint = "git:" + commit
    receipt = {
        "schema": RECEIPT_SCHEMA,
        "request": copy.deepcopy(request),
        "requestDigest": "",
        "repository": {
            "snapshotId": fingerprint,
            "baseFingerprint": fingerprint,
            "observedFingerprint": fingerprint,
            "stableAcrossExecution": True,
        },
        "producer": dict(PRODUCER),
        "backend": {
            "name": BACKEND["name"],
            "version": BACKEND["version"],
            "executable": {"name": BACKEND["name"], "version": BACKEND["version"]},
            "outcome": {"status": "succeeded", "exitCode": 0, "message": message},
        },
        "evidence": evidence,
        "summary": {
            "returnedCount": len(evidence),
            "totalObservedCount": len(evidence),
            "evidenceBytes": evidence_bytes,
            "capped": False,
            "complete": True,
        },
        "limitations": [],
        "receiptDigest": "",
    }
    command = [SCI_PATH, "experimental", "structural-evidence-receipt", "--request-file", REQUEST_PATH]
    observation = {
        "schema": OBSERVATION_SCHEMA,
        "receiptDigest": "",
        "repositoryCommit": commit,
        "requestArtifact": {"path": REQUEST_PATH, "sha256": ""},
        "command": command,
        "commandDigest": "",
        "sciArtifact": {
            "name": PRODUCER["name"],
            "version": PRODUCER["version"],
            "path": SCI_PATH,
            "revision": SCI_REVISION,
            "sha256": SCI_ARTIFACT_SHA256,
        },
        "backendArtifact": {
            "name": BACKEND["name"],
            "version": BACKEND["version"],
            "path": BACKEND_PATH,
            "sha256": BACKEND_ARTIFACT_SHA256,
        },
        "rawEvidence": {member: "" for pair in _RAW_TEXTS for member in pair},
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
        "expectedRequest": request,
        "expectedRequestDigest": "",
        "expectedProvenance": {
            "producerName": PRODUCER["name"],
            "producerVersion": PRODUCER["version"],
            "producerWorkflow": PRODUCER["workflow"],
            "backendName": BACKEND["name"],
            "backendVersion": BACKEND["version"],
            "executableName": BACKEND["name"],
            "executableVersion": BACKEND["version"],
        },
        "receipt": receipt,
        "executionObservation": observation,
    }
    return rehash_bundle(bundle)


# --- cases and the whole input (SPEC §4.7, §3.4) -------------------------------------------


def _target_basis_digest(commit: Json, raw_sha256: Json, truth: Json) -> str:
    truth_sorted = sorted(truth) if isinstance(truth, list) and all(isinstance(t, str) for t in truth) else truth
    basis = {"repositoryCommit": commit, "sourceListArtifactSha256": raw_sha256, "truth": truth_sorted}
    return canonical_digest(basis)


def case(
    repository: dict[str, Json],
    id: str,
    question: str,
    truth: Sequence[str],
    max_items: int,
    *,
    evidence: Iterable[str | dict[str, Json]] | None = None,
    bundle: dict[str, Json] | _Auto | None = AUTO,
    **bundle_options: Any,
) -> dict[str, Json]:
    """One case of ``repository`` with its identity digests (CASE-2 … CASE-14).

    Args:
        repository: the repository dict (from :func:`repository`).
        id: case id.
        question: the question (normalized; at least one identity token).
        truth: truth paths, kept in the given order (the target basis sorts them).
        max_items: the budget, 1 … item count.
        evidence: evidence specs for :func:`structural_bundle`; None means one ``match``
            on the repository's first item.
        bundle: the ``structuralEvidence`` value to use as given (``None`` writes
            ``null``); AUTO builds one from ``evidence`` and ``bundle_options``.
        **bundle_options: keyword arguments of :func:`structural_bundle`.

    Returns:
        The case object in CASE-2 member order.
    """
    if isinstance(bundle, _Auto):
        if evidence is None:
            evidence = [item_paths(repository)[0]]
        bundle = structural_bundle(repository, question, evidence, **bundle_options)
    result = {
        "id": id,
        "repositoryId": repository["id"],
        "repositoryCommit": repository["commit"],
        "sourceListArtifactSha256": repository["sourceListArtifact"]["rawSha256"],
        "question": question,
        "questionId": "",
        "intentSignature": "",
        "targetBasisDigest": "",
        "maxItems": max_items,
        "truth": list(truth),
        "structuralEvidence": bundle,
    }
    return rehash_case(result, repository)


def prepared_input(repositories: Iterable[dict[str, Json]], cases: Iterable[dict[str, Json]]) -> dict[str, Json]:
    """The whole prepared input ``{protocol, repositories, cases}`` (TOP-13, TOP-14)."""
    return {"protocol": PROTOCOL, "repositories": list(repositories), "cases": list(cases)}


# --- re-hash helpers -------------------------------------------------------------------


def _follow(obj: Json, key: str, old: Json, new: Json) -> None:
    """Set ``obj[key] = new`` when it still holds ``old`` (a binding a test did not break)."""
    if isinstance(obj, dict) and key in obj and obj[key] == old and type(obj[key]) is type(old):
        obj[key] = new


def rehash_repository(
    repo: dict[str, Json], *, payload: dict[str, Json] | None = None, regenerate_git: bool = False
) -> dict[str, Json]:
    """Recompute a repository's digests in place after a mutation; returns ``repo``.

    Steps: (1) with ``payload``, rewrite ``rawJson`` as its raw text; (2) ``rawSha256`` =
    R(rawJson), and the ``rawArtifactSha256`` bindings of the preparation and the
    staleness sample follow it if they held the old value; (3) with ``regenerate_git``,
    ``stdoutBase64`` is rebuilt from the payload's items; (4) ``stdoutSha256`` (when the
    base64 decodes), both ``commandDigest`` values, ``observationDigest`` and
    ``sampleDigest`` are recomputed. Members a test removed or retyped are skipped.

    Spec: SPEC §3.4.
    """
    artifact = repo.get("sourceListArtifact")
    prep = repo.get("sourceListPreparation")
    sample = repo.get("metadataStalenessSample")
    if isinstance(artifact, dict):
        if payload is not None:
            artifact["rawJson"] = raw_text(payload)
        if isinstance(artifact.get("rawJson"), str):
            old = artifact.get("rawSha256")
            artifact["rawSha256"] = new = raw_digest(artifact["rawJson"])
            _follow(prep, "rawArtifactSha256", old, new)
            _follow(sample, "rawArtifactSha256", old, new)
    if isinstance(prep, dict):
        if isinstance(prep.get("command"), list):
            prep["commandDigest"] = canonical_digest(prep["command"])
        inventory = prep.get("trackedPathInventory")
        if isinstance(inventory, dict):
            if regenerate_git:
                items = json.loads(cast(dict[str, Any], artifact)["rawJson"])["items"]
                inventory["stdoutBase64"] = base64.b64encode(tracked_path_bytes(tracked_path_records(items))).decode()
            if isinstance(inventory.get("command"), list):
                inventory["commandDigest"] = canonical_digest(inventory["command"])
            if isinstance(inventory.get("stdoutBase64"), str):
                try:
                    stdout = base64.b64decode(inventory["stdoutBase64"], validate=True)
                except (binascii.Error, ValueError):
                    pass
                else:
                    inventory["stdoutSha256"] = raw_digest(stdout)
        prep["observationDigest"] = canonical_digest(_minus(prep, "observationDigest"))
    if isinstance(sample, dict):
        sample["sampleDigest"] = canonical_digest(_minus(sample, "sampleDigest"))
    return repo


def rehash_case(case_dict: dict[str, Json], repo_dict: dict[str, Json]) -> dict[str, Json]:
    """Recompute ``intentSignature``, ``targetBasisDigest`` and ``questionId`` in place.

    They are computed as the validator recomputes them (CASE-12 … CASE-14): from the
    case's question, truth and repositoryId and the repository's commit and rawSha256.
    The structural bundle is left alone (see :func:`rehash_bundle`). Returns ``case_dict``.
    """
    question = case_dict.get("question")
    if isinstance(question, str):
        case_dict["intentSignature"] = canonical_digest(identity_tokens(question))
    artifact = repo_dict.get("sourceListArtifact")
    raw_sha256 = artifact.get("rawSha256") if isinstance(artifact, dict) else None
    case_dict["targetBasisDigest"] = _target_basis_digest(repo_dict.get("commit"), raw_sha256, case_dict.get("truth"))
    body = {
        "repositoryId": case_dict.get("repositoryId"),
        "intentSignature": case_dict.get("intentSignature"),
        "targetBasisDigest": case_dict["targetBasisDigest"],
    }
    case_dict["questionId"] = "question:" + canonical_digest(body)
    return case_dict


def rehash_bundle(bundle_dict: dict[str, Json], *, keep: Iterable[str] = ()) -> dict[str, Json]:
    """Recompute every digest and raw text of a structural bundle in place; returns it.

    Steps, each depending on the previous: (1) ``expectedRequestDigest`` = D(expectedRequest);
    (2) ``receipt.requestDigest`` = D(receipt.request); (3) each evidence ``id`` =
    ``candidate:`` + D(identity); (4) ``receiptDigest`` = D(receipt minus receiptDigest), copied
    to the observation; (5) ``commandDigest`` = D(command); (6) raw texts regenerated from
    the structured values — requestJson from receipt.request, receiptJson and stdout from the
    receipt, processJson from process, stateJson from targetState (stderr is kept) — except
    the members named in ``keep``, which stay as they are; (7) every raw sha256 =
    R(text), ``requestArtifact.sha256`` = requestSha256; (8) the transcript (unless kept)
    from command, commandDigest and the six digests, then transcriptSha256; (9)
    ``observationDigest`` = D(observation minus observationDigest).

    Args:
        bundle_dict: a structural bundle (possibly mutated); members that are missing or
            of the wrong type are skipped.
        keep: rawEvidence text members (``"requestJson"``, ``"stdout"``, …) not to regenerate,
            e.g. after a test wrote a malformed text there.

    Spec: SPEC §3.4, §4.11.
    """
    keep = frozenset(keep)
    request = bundle_dict.get("expectedRequest")
    if "expectedRequest" in bundle_dict:
        bundle_dict["expectedRequestDigest"] = canonical_digest(request)
    receipt = bundle_dict.get("receipt")
    if isinstance(receipt, dict):
        if "request" in receipt:
            receipt["requestDigest"] = canonical_digest(receipt["request"])
        evidence = receipt.get("evidence")
        for entry in evidence if isinstance(evidence, list) else ():
            if isinstance(entry, dict) and "identity" in entry:
                entry["id"] = "candidate:" + canonical_digest(entry["identity"])
        receipt["receiptDigest"] = canonical_digest(_minus(receipt, "receiptDigest"))
    observation = bundle_dict.get("executionObservation")
    if not isinstance(observation, dict):
        return bundle_dict
    if isinstance(receipt, dict):
        observation["receiptDigest"] = receipt["receiptDigest"]
    if "command" in observation:
        observation["commandDigest"] = canonical_digest(observation["command"])
    raw = observation.get("rawEvidence")
    if isinstance(raw, dict):
        sources = {
            "requestJson": receipt.get("request") if isinstance(receipt, dict) else None,
            "receiptJson": receipt,
            "stdout": receipt,
            "processJson": observation.get("process"),
            "stateJson": observation.get("targetState"),
        }
        texts: dict[int, str] = {}  # the receipt is written once for receiptJson and stdout
        for member, source in sources.items():
            if member not in keep and source is not None:
                if id(source) not in texts:
                    texts[id(source)] = raw_text(source)
                raw[member] = texts[id(source)]
        for text_member, sha_member in _RAW_TEXTS:
            if text_member != "transcriptJson" and isinstance(raw.get(text_member), str):
                raw[sha_member] = raw_digest(raw[text_member])
        artifact = observation.get("requestArtifact")
        if isinstance(artifact, dict) and "requestSha256" in raw:
            artifact["sha256"] = raw["requestSha256"]
        if "transcriptJson" not in keep:
            transcript = {"command": observation.get("command"), "commandDigest": observation.get("commandDigest")}
            for _, sha_member in _RAW_TEXTS:
                if sha_member != "transcriptSha256":
                    transcript[sha_member] = raw.get(sha_member)
            raw["transcriptJson"] = raw_text(transcript)
        if isinstance(raw.get("transcriptJson"), str):
            raw["transcriptSha256"] = raw_digest(raw["transcriptJson"])
    observation["observationDigest"] = canonical_digest(_minus(observation, "observationDigest"))
    return bundle_dict


def rehash_input(obj: dict[str, Json]) -> dict[str, Json]:
    """Re-hash a whole prepared input in place: repositories, then cases and their bundles.

    A case's ``sourceListArtifactSha256`` follows its repository's new ``rawSha256`` when
    it held the old one. Returns ``obj``.
    """
    repos: dict[str, dict[str, Json]] = {}
    moved: dict[str, tuple[Json, Json]] = {}
    for repo in obj.get("repositories", []):
        if not isinstance(repo, dict):
            continue
        artifact = repo.get("sourceListArtifact")
        old = artifact.get("rawSha256") if isinstance(artifact, dict) else None
        rehash_repository(repo)
        new = artifact.get("rawSha256") if isinstance(artifact, dict) else None
        if isinstance(repo.get("id"), str):
            repos.setdefault(repo["id"], repo)
            moved.setdefault(repo["id"], (old, new))
    for item in obj.get("cases", []):
        if not isinstance(item, dict) or item.get("repositoryId") not in repos:
            continue
        old, new = moved[item["repositoryId"]]
        _follow(item, "sourceListArtifactSha256", old, new)
        rehash_case(item, repos[item["repositoryId"]])
        if isinstance(item.get("structuralEvidence"), dict):
            rehash_bundle(item["structuralEvidence"])
    return obj


# --- SPEC §11 presets ------------------------------------------------------------------

#: The stems of the twelve item paths of SPEC §11.1, in artifact order.
MINIMAL_NAMES: Final = (
    "alpha",
    "beta",
    "cache",
    "config",
    "exporter",
    "graph",
    "parser",
    "ranking",
    "receipt",
    "runner",
    "security",
    "zeta",
)
#: The twelve item paths of SPEC §11.1 (``src/<name>.js``), in artifact order.
MINIMAL_PATHS: Final = tuple(f"src/{name}.js" for name in MINIMAL_NAMES)
_MINIMAL_QUESTIONS: Final = (
    "Locate alpha request parsing and validation behavior.",
    "Trace beta candidate filtering and fallback behavior.",
    "Explain cache invalidation after tracked source edits.",
    "Review configuration defaults for selection budgets.",
    "Inspect exporter process cleanup after failed execution.",
    "Find graph edge normalization and self-reference handling.",
    "Audit parser rejection of malformed owner artifacts.",
    "Compare ranking tie breaks for equal structural counts.",
    "Verify receipt digest binding across raw evidence.",
    "Test runner hash checks before prepared input parsing.",
)


def _minimal_repository(repo_id: str) -> dict[str, Json]:
    items = [source_list_item(path, summary=f"owner record {n}") for n, path in enumerate(MINIMAL_PATHS, 1)]
    return repository(repo_id, "a" * 40, items)


def valid_minimal() -> dict[str, Json]:
    """SPEC §11.1 "valid-minimal": one repository, twelve items, ten cases.

    ``dumps(valid_minimal())`` is 161 960 bytes with SHA-256 2a36b1e4….
    """
    repo = _minimal_repository("repo")
    cases = [
        case(repo, f"repo-{n}", question, [MINIMAL_PATHS[n - 1]], 2) for n, question in enumerate(_MINIMAL_QUESTIONS, 1)
    ]
    return prepared_input([repo], cases)


def valid_two_repo() -> dict[str, Json]:
    """SPEC §11.5 "valid-two-repo": ``repo-a`` (OBS-19 fails for repo-a-1) and ``repo-b`` (coverage 0.25).

    ``dumps(valid_two_repo())`` is 382 837 bytes with SHA-256 8552d8c4….
    """
    repo_a = _minimal_repository("repo-a")
    cases = []
    for n, question in enumerate(_MINIMAL_QUESTIONS, 1):
        evidence = [match("src/beta.js", 0), match("src/alpha.js", 1)]
        cases.append(case(repo_a, f"repo-a-{n}", question, [MINIMAL_PATHS[n - 1]], 1, evidence=evidence))
    broken = cases[0]["structuralEvidence"]
    broken["executionObservation"]["cleanup"]["completed"] = False
    rehash_bundle(broken)

    items_b = [
        source_list_item("a.js", summary="alpha request parsing", read_when=["changing alpha"]),
        *(source_list_item(path, "absent") for path in ("b.js", "c.js", "d.js")),
    ]
    repo_b = repository("repo-b", "a" * 40, items_b)
    truths = ("a", "b", "c", "d", "ab", "ac", "ad", "bc", "bd", "cd")
    for n, (question, truth) in enumerate(zip(_MINIMAL_QUESTIONS, truths, strict=True), 1):
        evidence = [match("c.js", 0), match("a.js", 1), match("c.js", 2)]
        paths = [f"{name}.js" for name in truth]
        cases.append(case(repo_b, f"repo-b-{n}", question, paths, 2, evidence=evidence))
    return prepared_input([repo_a, repo_b], cases)


# --- seeded synthetic inputs (benchmarks, scale tests) ------------------------------------

_TOP_DIRS: Final = ("src", "lib", "pkg", "internal", "app", "cmd", "services", "packages")
_DIR_WORDS: Final = (
    "accounts",
    "adapters",
    "admin",
    "api",
    "auth",
    "backup",
    "billing",
    "cache",
    "cli",
    "codecs",
    "common",
    "compiler",
    "components",
    "config",
    "core",
    "crypto",
    "editor",
    "gateway",
    "graph",
    "handlers",
    "hooks",
    "indexing",
    "inventory",
    "jobs",
    "layout",
    "lexer",
    "logging",
    "metrics",
    "middleware",
    "migrations",
    "models",
    "network",
    "notifications",
    "orders",
    "parsers",
    "payments",
    "plugins",
    "proxy",
    "queue",
    "render",
    "reports",
    "router",
    "runtime",
    "scheduler",
    "schema",
    "search",
    "session",
    "shipping",
    "storage",
    "store",
    "sync",
    "telemetry",
    "transport",
    "ui",
    "utils",
    "validation",
    "workers",
)
_NON_ASCII_DIR_WORDS: Final = ("données", "übersicht", "zürich", "café", "résumé", "naïve")
_FILE_WORDS: Final = (
    "account",
    "adapter",
    "audit",
    "backoff",
    "batch",
    "bridge",
    "buffer",
    "builder",
    "button",
    "cache",
    "cart",
    "channel",
    "chunk",
    "cipher",
    "client",
    "column",
    "compiler",
    "config",
    "controller",
    "counter",
    "cursor",
    "decoder",
    "dialog",
    "diff",
    "digest",
    "edge",
    "emitter",
    "encoder",
    "event",
    "factory",
    "field",
    "filter",
    "form",
    "gateway",
    "gauge",
    "graph",
    "handler",
    "hash",
    "health",
    "histogram",
    "index",
    "input",
    "invoice",
    "key",
    "layout",
    "lexer",
    "limiter",
    "limits",
    "listener",
    "loader",
    "logger",
    "manager",
    "matcher",
    "merger",
    "metrics",
    "migration",
    "model",
    "node",
    "options",
    "order",
    "page",
    "parser",
    "patch",
    "payment",
    "permission",
    "plugin",
    "policy",
    "probe",
    "profile",
    "proxy",
    "query",
    "queue",
    "quota",
    "ranking",
    "rate",
    "reader",
    "receipt",
    "record",
    "registry",
    "request",
    "resolver",
    "response",
    "retry",
    "role",
    "route",
    "router",
    "runtime",
    "schema",
    "score",
    "select",
    "selector",
    "server",
    "service",
    "session",
    "settings",
    "signature",
    "snapshot",
    "socket",
    "span",
    "status",
    "store",
    "stream",
    "table",
    "theme",
    "timeout",
    "token",
    "tracer",
    "tree",
    "user",
    "validator",
    "view",
    "visitor",
    "walker",
    "widget",
    "worker",
    "writer",
)
_SUMMARY_VERBS: Final = (
    "Parses",
    "Builds",
    "Validates",
    "Caches",
    "Routes",
    "Encodes",
    "Decodes",
    "Schedules",
    "Renders",
    "Tracks",
    "Merges",
    "Filters",
    "Signs",
    "Loads",
    "Stores",
    "Retries",
    "Normalizes",
    "Exports",
)
_QUESTION_VERBS: Final = ("Locate", "Explain", "Trace", "Review", "Find", "Audit", "Inspect", "Fix", "Where is")
_REPOSITORY_NAMES: Final = (
    "billing-service",
    "web-console",
    "search-indexer",
    "mobile-gateway",
    "data-pipeline",
    "auth-server",
    "infra-tools",
    "media-encoder",
    "ledger-core",
    "notification-hub",
)
_LANGUAGES: Final = (  # (seed:language value, primary extensions, file-name style)
    ("Python", (".py",), "snake"),
    ("TypeScript", (".ts", ".tsx"), "camel"),
    ("JavaScript", (".js", ".mjs", ".jsx"), "kebab"),
    ("Go", (".go",), "snake"),
    ("Rust", (".rs",), "snake"),
    ("Java", (".java",), "pascal"),
)
_EXTRA_TRACKED: Final = (
    ".gitignore",
    "LICENSE",
    "Makefile",
    "README.md",
    "docs/architecture.md",
    "docs/runbook.md",
    "package.json",
    "settings.yaml",
)


def _file_stem(words: Sequence[str], style: str) -> str:
    if style == "snake":
        return "_".join(words)
    if style == "kebab":
        return "-".join(words)
    if style == "pascal":
        return "".join(w.capitalize() for w in words)
    return words[0] + "".join(w.capitalize() for w in words[1:])


def _synthetic_paths(
    rng: random.Random, n_items: int, path_bytes: tuple[int, int], language: tuple[str, tuple[str, ...], str]
) -> list[tuple[str, list[str]]]:
    """``n_items`` distinct paths with their words, in UTF-8 order, each of path_bytes[0]…[1] bytes."""
    lo, hi = path_bytes
    _, primary, style = language
    n_dirs = max(4, n_items // 40)
    dirs: list[tuple[str, list[str]]] = []
    attempts = 0
    while len(dirs) < n_dirs:
        attempts += 1
        if attempts > 100 * n_dirs:
            msg = f"cannot make directories for paths of {lo}-{hi} bytes"
            raise ValueError(msg)
        words = [rng.choice(_TOP_DIRS)]
        words += [
            rng.choice(_NON_ASCII_DIR_WORDS) if rng.random() < 0.01 else rng.choice(_DIR_WORDS)
            for _ in range(rng.randint(1, 4))
        ]
        text = "/".join(words)
        if len(text.encode()) <= hi - 6:
            dirs.append((text, words))
    paths: dict[str, list[str]] = {}
    attempts = 0
    while len(paths) < n_items:
        attempts += 1
        if attempts > 50 * n_items + 1000:
            msg = f"cannot make {n_items} distinct paths of {lo}-{hi} bytes"
            raise ValueError(msg)
        directory, dir_words = rng.choice(dirs)
        stem_words = [rng.choice(_FILE_WORDS) for _ in range(rng.randint(1, 3))]
        ext = rng.choice(primary) if rng.random() < 0.75 else rng.choice(SUPPORTED_EXTENSIONS)
        path = f"{directory}/{_file_stem(stem_words, style)}{ext}"
        if lo <= len(path.encode()) <= hi and path not in paths:
            paths[path] = dir_words + stem_words
    return sorted(paths.items())


def _synthetic_items(
    rng: random.Random, paths: Sequence[tuple[str, list[str]]], n_present: int
) -> list[dict[str, Json]]:
    """Items for ``paths``: exactly ``n_present`` present ones with word-made metadata."""
    present = set(rng.sample(range(len(paths)), n_present))
    items = []
    for index, (path, words) in enumerate(paths):
        if index in present:
            summary = " ".join([rng.choice(_SUMMARY_VERBS), *words[-2:], rng.choice(("for", "in", "of")), words[1]])
            hints = [f"changing {rng.choice(_FILE_WORDS)} {rng.choice(words)}" for _ in range(rng.randint(0, 2))]
            items.append(source_list_item(path, summary=summary, read_when=hints))
            continue
        roll = rng.random()
        if roll < 0.80:
            items.append(source_list_item(path, "absent"))
        elif roll < 0.88:
            error = rng.choice(("duplicate_summary", "invalid_summary", "invalid_read_when"))
            items.append(source_list_item(path, "invalid", metadata_error=error))
        elif roll < 0.92:
            items.append(source_list_item(path, "unreadable", worktree_kind=rng.choice(("missing", "directory"))))
        else:
            kind = rng.choice(("symlink", "gitlink", "conflicted", "other"))
            items.append(source_list_item(path, "not_applicable", index_kind=kind))
    return items


def _snippet(rng: random.Random, words: Sequence[str], ext: str) -> str:
    name_words = [rng.choice(words[-3:]), rng.choice(_FILE_WORDS)]
    arg = rng.choice(_FILE_WORDS)
    if ext == ".py":
        return f"def {_file_stem(name_words, 'snake')}(self, {arg}):"
    if ext == ".go":
        return f"func {_file_stem(name_words, 'pascal')}({arg} string) error {{"
    if ext == ".rs":
        return f"fn {_file_stem(name_words, 'snake')}({arg}: &str) -> Result<()> {{"
    if ext in {".ts", ".tsx", ".js", ".mjs", ".cjs", ".jsx"}:
        return f"export function {_file_stem(name_words, 'camel')}({arg}) {{"
    return f"{_file_stem(name_words, 'camel')}({arg});"


def _synthetic_evidence(
    rng: random.Random, paths: Sequence[tuple[str, list[str]]], truth_indexes: Sequence[int], count: int
) -> list[dict[str, Json]]:
    """``count`` match entries: truth paths first, then random paths, 1–4 entries per path.

    Only when the repository has too few paths for that are some paths given more entries
    (the request limits then grow to fit, see :func:`structural_bundle`).
    """
    plan: list[list[int]] = []  # [path index, entries]
    remaining = count
    for index in dict.fromkeys([*truth_indexes, *rng.sample(range(len(paths)), min(len(paths), count))]):
        if remaining == 0:
            break
        entries = min(rng.randint(1, 4), remaining)
        plan.append([index, entries])
        remaining -= entries
    for step in range(remaining):  # scarce paths: spread the rest round-robin
        plan[step % len(plan)][1] += 1
    evidence: list[dict[str, Json]] = []
    for index, entries in plan:
        path, words = paths[index]
        for line in sorted(rng.sample(range(1, 100_000), entries)):
            snippet = _snippet(rng, words, extname(path).lower())
            evidence.append(match(path, line, snippet, column=rng.randint(0, 8)))
    return evidence


def synthetic(
    n_repositories: int,
    n_items: int,
    n_cases: int,
    *,
    evidence_per_receipt: int = 5,
    present_fraction: float | tuple[float, float] = 0.75,
    seed: int = 0,
    path_bytes: tuple[int, int] = (40, 80),
) -> dict[str, Json]:
    """A valid prepared input made deterministically from ``seed`` (``random.Random(seed)``).

    Every repository has ``n_items`` items whose paths are plausible directory and file
    words with supported extensions (``path_bytes`` UTF-8 bytes long, strictly UTF-8
    sorted, a few non-ASCII directory names), a primary language, a share of present
    metadata with word-made summaries and read-when hints, other statuses and index kinds
    for the rest, and tracked non-source files where the 20 000-path bound leaves room.
    Each repository gets ``n_cases`` cases (CASE-19 needs ≥ 10) with distinct intent
    signatures and distinct truth sets of one to three paths, questions made of the truth
    paths' words plus noise, and a valid structural bundle with ``evidence_per_receipt``
    ``match`` entries whose limits admit them.

    Args:
        n_repositories: number of repositories (at most 10).
        n_items: items per repository (1 … 20 000).
        n_cases: cases per repository.
        evidence_per_receipt: match entries in every receipt (0 … 10 000).
        present_fraction: share of present metadata, or a (low, high) range drawn per
            repository; the count is rounded.
        seed: the random seed; the same arguments give the same bytes.
        path_bytes: inclusive (minimum, maximum) UTF-8 length of every path.

    Returns:
        The prepared input dict (serialize with :func:`dumps`).

    Raises:
        ValueError: arguments no valid input can satisfy.
    """
    if not 1 <= n_repositories <= len(_REPOSITORY_NAMES) or not 1 <= n_items <= 20_000 or n_cases < 1:
        msg = f"unsupported shape {n_repositories} x {n_items} x {n_cases}"
        raise ValueError(msg)
    rng = random.Random(seed)
    repositories, cases = [], []
    for repo_id in rng.sample(_REPOSITORY_NAMES, n_repositories):
        language = rng.choice(_LANGUAGES)
        commit = f"{rng.getrandbits(160):040x}"
        paths = _synthetic_paths(rng, n_items, path_bytes, language)
        fraction = present_fraction if isinstance(present_fraction, float | int) else rng.uniform(*present_fraction)
        n_present = max(1, min(n_items, round(fraction * n_items)))
        items = _synthetic_items(rng, paths, n_present)
        present_paths = [item["path"] for item in items if item["metadataStatus"] == "present"]
        sampled = rng.sample(present_paths, min(20, len(present_paths)))
        stale = rng.sample(sampled, len(sampled) // 7)
        extra = [p for p in _EXTRA_TRACKED if language[0] == "JavaScript" or p != "package.json"]
        repo = repository(
            repo_id,
            commit,
            items,
            staleness_sampled=sampled,
            stale=stale,
            extra_tracked=extra[: max(0, 20_000 - n_items)],
        )
        repositories.append(repo)
        top_dirs = sorted({path.partition("/")[0] for path, _ in paths})
        signatures: set[str] = set()
        truths: set[frozenset[int]] = set()
        for number in range(1, n_cases + 1):
            truth_indexes: list[int] = []
            for _ in range(1000):
                truth_indexes = rng.sample(range(n_items), min(n_items, rng.choice((1, 1, 2, 3))))
                if frozenset(truth_indexes) not in truths:
                    break
            else:
                msg = f"cannot make {n_cases} distinct truth sets from {n_items} items (CASE-16)"
                raise ValueError(msg)
            truths.add(frozenset(truth_indexes))
            words = []
            for index in truth_indexes:
                path_words = paths[index][1][1:]  # without the top directory
                words += rng.sample(path_words, min(2, len(path_words)))
            words += rng.sample(_FILE_WORDS, 2)
            question = f"{rng.choice(_QUESTION_VERBS)} {' '.join(words)}."
            while canonical_digest(identity_tokens(question)) in signatures:
                question = f"{question[:-1]} {rng.choice(_FILE_WORDS)}."
            signatures.add(canonical_digest(identity_tokens(question)))
            evidence = _synthetic_evidence(rng, paths, truth_indexes, evidence_per_receipt)
            cases.append(
                case(
                    repo,
                    f"{repo_id}-{number}",
                    question,
                    [paths[i][0] for i in truth_indexes],
                    min(n_items, rng.choice((5, 10, 20))),
                    evidence=evidence,
                    language=language[0],
                    pattern="$NAME($$$ARGS)",
                    path_seeds=top_dirs[:2],
                )
            )
    return prepared_input(repositories, cases)
