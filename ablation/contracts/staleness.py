"""The metadata-staleness sample (STALE-1 … STALE-11): echoed, never used for ranking.

Spec: SPEC.md §4.6, §8.2; preregistration "Metadata staleness".
"""

from __future__ import annotations

from dataclasses import dataclass

from ablation.canonical import canonical_digest
from ablation.contracts.base import Reporter, Shape, child, same, show
from ablation.contracts.source_list import CandidateUniverse
from ablation.text import is_nbtext, is_normalized, is_safe_path

__all__ = ["StalenessSample", "validate_staleness"]

_SAMPLE = Shape(("commit", "rawArtifactSha256", "method", "sampledPaths", "stalePaths", "sampleDigest"))


@dataclass(frozen=True, slots=True)
class StalenessSample:
    """A validated staleness sample (SPEC §8.2 ``metadataStalenessSample``)."""

    commit: str
    raw_artifact_sha256: str
    sample_digest: str
    method: str
    sampled_paths: tuple[str, ...]
    stale_paths: tuple[str, ...]


def _path_list(rep: Reporter, rule: str, value: object, where: str) -> list[str] | None:
    """STALE-5/6 (an array) and STALE-7 (SafePath elements, strictly increasing)."""
    if not isinstance(value, list):
        rep.fail(rule, where, "an array", show(value))
        return None
    ok = True
    previous: str | None = None
    for k, path in enumerate(value):
        if type(path) is not str or not is_safe_path(path):
            rep.fail("STALE-7", f"{where}/{k}", "a SafePath", show(path))
            ok, previous = False, None
            continue
        if previous is not None and not previous < path:
            rep.fail("STALE-7", f"{where}/{k}", f"a path after {previous!r} in UTF-8 order (unique)", show(path))
            ok = False
        previous = path
    return value if ok else None


def validate_staleness(
    sample: object,
    where: str,
    *,
    commit: object,
    raw_sha256: object,
    universe: CandidateUniverse | None,
    rep: Reporter,
) -> StalenessSample | None:
    """Validate ``/repositories/{r}/metadataStalenessSample``.

    Args:
        sample: the parsed sample.
        where: its pointer.
        commit: the repository's commit (STALE-2).
        raw_sha256: the repository's rawSha256 (STALE-3).
        universe: the candidate universe (STALE-9), or ``None`` when it failed.
        rep: the violation reporter.

    Raises:
        InputRejected: STALE-1 … STALE-11.

    Spec: SPEC.md §4.6.
    """
    if not _SAMPLE.report(rep, "STALE-1", sample, where):
        return None
    assert isinstance(sample, dict)
    start = len(rep.violations)
    rep.require_same("STALE-2", sample, "commit", where, commit, f"the repository commit {show(commit)}")
    rep.require_same(
        "STALE-3", sample, "rawArtifactSha256", where, raw_sha256, f"the artifact's rawSha256 {show(raw_sha256)}"
    )
    method = sample["method"]
    if not is_nbtext(method, 2000) or not is_normalized(method):
        rep.fail("STALE-4", child(where, "method"), "a normalized NBText(2000)", show(method))
    sampled = _path_list(rep, "STALE-5", sample["sampledPaths"], child(where, "sampledPaths"))
    stale = _path_list(rep, "STALE-6", sample["stalePaths"], child(where, "stalePaths"))
    _check_membership(sampled, stale, where, universe, rep)
    _check_sample_digest(sample, where, rep)
    if len(rep.violations) != start or sampled is None or stale is None:
        return None
    return StalenessSample(
        commit=sample["commit"],
        raw_artifact_sha256=sample["rawArtifactSha256"],
        sample_digest=sample["sampleDigest"],
        method=method,
        sampled_paths=tuple(sampled),
        stale_paths=tuple(stale),
    )


def _check_membership(
    sampled: list[str] | None, stale: list[str] | None, where: str, universe: CandidateUniverse | None, rep: Reporter
) -> None:
    """STALE-8 … STALE-10: a non-empty sample of metadata-present items, and stale paths among them."""
    if sampled is not None:
        if not sampled:
            rep.fail("STALE-8", child(where, "sampledPaths"), "at least one sampled path", "an empty array")
        if universe is not None:
            present = {p for p, t in zip(universe.paths, universe.metadata_texts, strict=True) if t is not None}
            for k, path in enumerate(sampled):
                if path not in present:
                    rep.fail("STALE-9", f"{where}/sampledPaths/{k}", "the path of a metadata-present item", show(path))
    if stale is not None and sampled is not None:
        sampled_set = set(sampled)
        for k, path in enumerate(stale):
            if path not in sampled_set:
                rep.fail("STALE-10", f"{where}/stalePaths/{k}", "a sampled path", show(path))


def _check_sample_digest(sample: dict[str, object], where: str, rep: Reporter) -> None:
    """STALE-11: ``sampleDigest`` is D(sample minus sampleDigest)."""
    body = {k: v for k, v in sample.items() if k != "sampleDigest"}
    try:
        want = canonical_digest(body)
    except TypeError:
        want = None
    if want is None or not same(sample["sampleDigest"], want):
        rep.fail(
            "STALE-11",
            child(where, "sampleDigest"),
            f"D(sample minus sampleDigest) = {want}",
            show(sample["sampleDigest"]),
        )
