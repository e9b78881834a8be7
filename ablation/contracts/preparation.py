"""The source-list preparation observation (PREP-1 … PREP-18) and its git evidence (GIT).

Spec: SPEC.md §4.4, §4.5; preregistration "Source-list preparation observation".
"""

from __future__ import annotations

from dataclasses import dataclass

from ablation.canonical import canonical_digest, is_digest
from ablation.contracts.base import Reporter, Shape, child, same, same_array, show
from ablation.contracts.git_index import validate_git_evidence
from ablation.contracts.source_list import CandidateUniverse
from ablation.text import is_abs_path, is_commit

__all__ = ["GIT_COMMAND", "PreparationObservation", "validate_preparation"]

SCHEMA = "pi-context-packer.source_list_preparation_observation.v1"
GIT_COMMAND = ("git", "-C", ".", "--literal-pathspecs", "ls-files", "--cached", "--stage", "-z", "--")
_OBSERVATION = Shape(
    (
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
)
_EXECUTABLE = Shape(("nodePath", "path", "revision", "artifactSha256"))
_TARGET_STATE = Shape(("headBefore", "headAfter", "statusBefore", "statusAfter", "cleanBefore", "cleanAfter"))
_INVENTORY = Shape(("command", "commandDigest", "stdoutBase64", "stdoutSha256", "exitCode"))


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
    if not _OBSERVATION.report(rep, "PREP-1", obs, where):
        return None
    assert isinstance(obs, dict)
    start = len(rep.violations)
    _check_digests_and_bindings(obs, where, commit, raw_sha256, rep)
    exe = obs["sourceListExecutable"]
    exe_ok = _check_executable(exe, child(where, "sourceListExecutable"), rep)
    _check_command(obs, exe if exe_ok else None, where, rep)
    _check_target_state(obs["targetState"], child(where, "targetState"), commit, rep)
    git = _check_inventory(obs["trackedPathInventory"], child(where, "trackedPathInventory"), universe, rep)
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


def _check_digests_and_bindings(
    obs: dict[str, object], where: str, commit: object, raw_sha256: object, rep: Reporter
) -> None:
    """PREP-2 … PREP-5: schema, own digest, and the repository's commit and artifact digest."""
    rep.require_same("PREP-2", obs, "schema", where, SCHEMA, repr(SCHEMA))
    want = canonical_digest({k: v for k, v in obs.items() if k != "observationDigest"})
    rep.require_same(
        "PREP-3", obs, "observationDigest", where, want, f"D(observation minus observationDigest) = {want}"
    )
    rep.require_same("PREP-4", obs, "repositoryCommit", where, commit, f"the repository commit {show(commit)}")
    rep.require_same(
        "PREP-5", obs, "rawArtifactSha256", where, raw_sha256, f"the artifact's rawSha256 {show(raw_sha256)}"
    )


def _check_executable(exe: object, exe_where: str, rep: Reporter) -> bool:
    """PREP-6 … PREP-10 on ``sourceListExecutable``; return whether it passed them."""
    exe_ok = _EXECUTABLE.report(rep, "PREP-6", exe, exe_where)
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
    return exe_ok


def _check_command(obs: dict[str, object], exe: object, where: str, rep: Reporter) -> None:
    """PREP-11 … PREP-13: the source-list argv (when ``exe`` passed PREP-6 … PREP-10), its digest, its exit code."""
    command = obs["command"]
    if exe is not None:
        assert isinstance(exe, dict)
        want_cmd = [exe["nodePath"], exe["path"], "--repo", ".", "--full-list", "--json"]
        if not same_array(command, want_cmd):
            rep.fail("PREP-11", child(where, "command"), f"the argv {want_cmd!r}", show(command))
    if not same(obs["commandDigest"], _digest_or_none(command)):
        rep.fail("PREP-12", child(where, "commandDigest"), "D(command)", show(obs["commandDigest"]))
    rep.require_same("PREP-13", obs, "exitCode", where, 0, "0")


def _check_target_state(state: object, state_where: str, commit: object, rep: Reporter) -> None:
    """PREP-14: the repository was at ``commit`` and clean before and after."""
    if _TARGET_STATE.report(rep, "PREP-14", state, state_where):
        assert isinstance(state, dict)
        for member, want_value in (
            ("headBefore", commit),
            ("headAfter", commit),
            ("statusBefore", ""),
            ("statusAfter", ""),
            ("cleanBefore", True),
            ("cleanAfter", True),
        ):
            rep.require_same("PREP-14", state, member, state_where, want_value, show(want_value))


def _check_inventory(
    inventory: object, inv_where: str, universe: CandidateUniverse | None, rep: Reporter
) -> tuple[int, int] | None:
    """PREP-15 … PREP-18 on ``trackedPathInventory``, then its git evidence (GIT-1 … GIT-11)."""
    git = None
    if _INVENTORY.report(rep, "PREP-15", inventory, inv_where):
        assert isinstance(inventory, dict)
        inv_cmd = inventory["command"]
        if not same_array(inv_cmd, GIT_COMMAND):
            rep.fail("PREP-16", child(inv_where, "command"), f"the argv {list(GIT_COMMAND)!r}", show(inv_cmd))
        if not same(inventory["commandDigest"], _digest_or_none(inv_cmd)):
            rep.fail("PREP-17", child(inv_where, "commandDigest"), "D(command)", show(inventory["commandDigest"]))
        rep.require_same("PREP-18", inventory, "exitCode", inv_where, 0, "0")
        git = validate_git_evidence(inventory, inv_where, universe, rep)
    return git


def _digest_or_none(value: object) -> str | None:
    """D(value) for a value that canonicalises; ``None`` when it holds an invalid number."""
    try:
        return canonical_digest(value)
    except TypeError:
        return None
