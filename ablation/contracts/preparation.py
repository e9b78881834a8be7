"""The source-list preparation observation (PREP-1 … PREP-18) and its git evidence (GIT).

Spec: SPEC.md §4.4, §4.5; preregistration "Source-list preparation observation".
"""

from __future__ import annotations

from dataclasses import dataclass

from ablation.canonical import canonical_digest, is_digest
from ablation.contracts.base import Reporter, child, same, show
from ablation.contracts.git_index import validate_git_evidence
from ablation.contracts.source_list import CandidateUniverse
from ablation.text import is_abs_path, is_commit

__all__ = ["GIT_COMMAND", "PreparationObservation", "validate_preparation"]

SCHEMA = "pi-context-packer.source_list_preparation_observation.v1"
GIT_COMMAND = ("git", "-C", ".", "--literal-pathspecs", "ls-files", "--cached", "--stage", "-z", "--")
_MEMBERS = (
    "schema",
    "repositoryCommit",
    "rawArtifactSha256",
    "sourceListExecutable",
    "command",
    "commandDigest",
    "exitCode",
    "targetState",
    "trackedPathInventory",
    "observationDigest",
)
_EXECUTABLE = ("nodePath", "path", "revision", "artifactSha256")
_TARGET_STATE = ("headBefore", "headAfter", "statusBefore", "statusAfter", "cleanBefore", "cleanAfter")
_INVENTORY = ("command", "commandDigest", "stdoutBase64", "stdoutSha256", "exitCode")


@dataclass(frozen=True, slots=True)
class PreparationObservation:
    """What the result echoes of a validated preparation observation (SPEC §8.2).

    Attributes:
        observation_digest: ``observationDigest``.
        revision: ``sourceListExecutable.revision``.
        artifact_sha256: ``sourceListExecutable.artifactSha256``.
        tracked_path_count: kept tracked entries (§4.5).
        git_evidence_bytes: byte length of the decoded git evidence.
    """

    observation_digest: str
    revision: str
    artifact_sha256: str
    tracked_path_count: int
    git_evidence_bytes: int


def validate_preparation(
    obs: object,
    where: str,
    *,
    commit: object,
    raw_sha256: object,
    universe: CandidateUniverse | None,
    rep: Reporter,
) -> PreparationObservation | None:
    """Validate ``/repositories/{r}/sourceListPreparation``.

    Args:
        obs: the parsed observation.
        where: its pointer.
        commit: the repository's ``commit`` (PREP-4, PREP-14).
        raw_sha256: the repository's ``sourceListArtifact.rawSha256`` (PREP-5).
        universe: the validated candidate universe (GIT-10/11), or ``None``.
        rep: the violation reporter.

    Returns:
        The echoed values, or ``None`` when a violation was collected.

    Raises:
        InputRejected: PREP-1 … PREP-18, GIT-1 … GIT-11.

    Spec: SPEC.md §4.4, §4.5, §3.4.
    """
    if not rep.check_closed("PREP-1", obs, where, _MEMBERS):
        return None
    assert isinstance(obs, dict)
    start = len(rep.violations)
    if not same(obs["schema"], SCHEMA):
        rep.fail("PREP-2", child(where, "schema"), repr(SCHEMA), show(obs["schema"]))
    body = {k: v for k, v in obs.items() if k != "observationDigest"}
    want = canonical_digest(body)
    if not same(obs["observationDigest"], want):
        rep.fail(
            "PREP-3",
            child(where, "observationDigest"),
            f"D(observation minus observationDigest) = {want}",
            show(obs["observationDigest"]),
        )
    if not same(obs["repositoryCommit"], commit):
        rep.fail(
            "PREP-4",
            child(where, "repositoryCommit"),
            f"the repository commit {show(commit)}",
            show(obs["repositoryCommit"]),
        )
    if not same(obs["rawArtifactSha256"], raw_sha256):
        rep.fail(
            "PREP-5",
            child(where, "rawArtifactSha256"),
            f"the artifact's rawSha256 {show(raw_sha256)}",
            show(obs["rawArtifactSha256"]),
        )
    exe = obs["sourceListExecutable"]
    exe_where = child(where, "sourceListExecutable")
    exe_ok = rep.check_closed("PREP-6", exe, exe_where, _EXECUTABLE)
    if exe_ok:
        assert isinstance(exe, dict)
        for rule, member, check, want_text in (
            ("PREP-7", "nodePath", is_abs_path, "an AbsPath"),
            ("PREP-8", "path", is_abs_path, "an AbsPath"),
            ("PREP-9", "revision", is_commit, "a Commit (40 or 64 lowercase hex)"),
            ("PREP-10", "artifactSha256", is_digest, "a Digest"),
        ):
            if not check(exe[member]):
                rep.fail(rule, child(exe_where, member), want_text, show(exe[member]))
                exe_ok = False
    command = obs["command"]
    if exe_ok:
        assert isinstance(exe, dict)
        want_cmd = [exe["nodePath"], exe["path"], "--repo", ".", "--full-list", "--json"]
        if not (
            isinstance(command, list)
            and len(command) == 6
            and all(same(a, b) for a, b in zip(command, want_cmd, strict=True))
        ):
            rep.fail("PREP-11", child(where, "command"), f"the argv {want_cmd!r}", show(command))
    if not isinstance(command, list) or not same(obs["commandDigest"], _digest_or_none(command)):
        rep.fail("PREP-12", child(where, "commandDigest"), "D(command)", show(obs["commandDigest"]))
    if not same(obs["exitCode"], 0):
        rep.fail("PREP-13", child(where, "exitCode"), "0", show(obs["exitCode"]))
    state = obs["targetState"]
    state_where = child(where, "targetState")
    if rep.check_closed("PREP-14", state, state_where, _TARGET_STATE):
        assert isinstance(state, dict)
        for member, want_value in (
            ("headBefore", commit),
            ("headAfter", commit),
            ("statusBefore", ""),
            ("statusAfter", ""),
            ("cleanBefore", True),
            ("cleanAfter", True),
        ):
            if not same(state[member], want_value):
                rep.fail("PREP-14", child(state_where, member), show(want_value), show(state[member]))
    inventory = obs["trackedPathInventory"]
    inv_where = child(where, "trackedPathInventory")
    git = None
    if rep.check_closed("PREP-15", inventory, inv_where, _INVENTORY):
        assert isinstance(inventory, dict)
        inv_cmd = inventory["command"]
        if not (
            isinstance(inv_cmd, list)
            and len(inv_cmd) == len(GIT_COMMAND)
            and all(same(a, b) for a, b in zip(inv_cmd, GIT_COMMAND, strict=True))
        ):
            rep.fail("PREP-16", child(inv_where, "command"), f"the argv {list(GIT_COMMAND)!r}", show(inv_cmd))
        if not isinstance(inv_cmd, list) or not same(inventory["commandDigest"], _digest_or_none(inv_cmd)):
            rep.fail("PREP-17", child(inv_where, "commandDigest"), "D(command)", show(inventory["commandDigest"]))
        if not same(inventory["exitCode"], 0):
            rep.fail("PREP-18", child(inv_where, "exitCode"), "0", show(inventory["exitCode"]))
        git = validate_git_evidence(inventory, inv_where, universe, rep)
    if len(rep.violations) != start or git is None:
        return None
    assert isinstance(exe, dict)
    return PreparationObservation(
        observation_digest=obs["observationDigest"],
        revision=exe["revision"],
        artifact_sha256=exe["artifactSha256"],
        tracked_path_count=git[0],
        git_evidence_bytes=git[1],
    )


def _digest_or_none(value: object) -> str | None:
    """D(value) for a value that canonicalises; ``None`` when it holds an invalid number."""
    try:
        return canonical_digest(value)
    except TypeError:
        return None
