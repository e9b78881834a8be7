"""Whole-input validation: prepared input bytes → :class:`ValidatedExperiment`.

Steps (SPEC §2, §4): (1) strict UTF-8 (TOP-1); (2) the strict JSON profile on
the file (TOP-2 … TOP-11), deciding each strictness violation by its location
(§2.4: inside ``/cases/{c}/structuralEvidence`` it is SB-0 for case c, elsewhere
it rejects); (3) TOP-13/14; (4) every repository (REPO, SL, PREP, GIT, STALE);
(5) every case (CASE); (6) every structural bundle (SB/REQ/RCPT/OBS → the
case's structural and fusion arms, never a rejection). Nothing here reads truth
for anything but CASE rules, and nothing later re-parses the input.
"""

from __future__ import annotations

from dataclasses import dataclass

from ablation.contracts.base import Reporter, Shape, child, show
from ablation.contracts.cases import CaseRecord, RepositoryRef, validate_cases
from ablation.contracts.preparation import PreparationObservation, validate_preparation
from ablation.contracts.source_list import SourceListArtifact, validate_source_list_artifact
from ablation.contracts.staleness import StalenessSample, validate_staleness
from ablation.contracts.structural import StructuralEvidence, validate_bundle
from ablation.errors import BundleInvalid
from ablation.strictjson import JsonGrammarError, ParsedText, Utf8Error, Violation, decode_utf8, parse_text
from ablation.text import is_commit, is_nbtext, is_normalized

__all__ = [
    "BUNDLE_FAILURE_PREFIX",
    "PROTOCOL",
    "Case",
    "Repository",
    "ValidatedExperiment",
    "parse_input",
    "validate_experiment",
    "validate_parsed",
]

PROTOCOL = "pi-context-packer-source-selection-ablation/v2"
BUNDLE_FAILURE_PREFIX = "structural_evidence_validation_failed:"
_REPOSITORY = Shape(("id", "commit", "sourceListArtifact", "sourceListPreparation", "metadataStalenessSample"))
_TOP_LEVEL = Shape(("protocol", "repositories", "cases"))


@dataclass(frozen=True, slots=True)
class Repository:
    """A validated declared repository and what later stages need of it (SPEC §4.2, §8.2).

    ``source_list.universe`` is the candidate universe shared by all arms.
    """

    index: int
    id: str
    commit: str
    source_list: SourceListArtifact
    preparation: PreparationObservation
    staleness: StalenessSample

    @property
    def item_count(self) -> int:
        """Number of source-list items (candidateCount)."""
        return self.source_list.universe.item_count

    @property
    def present_count(self) -> int:
        """Items whose metadataStatus is ``present``."""
        return self.source_list.universe.present_count

    @property
    def source_list_eligible(self) -> bool:
        """``5 × presentCount ≥ 3 × itemCount`` — coverage ≥ 60 % exactly (SPEC §4.2)."""
        return 5 * self.present_count >= 3 * self.item_count


@dataclass(frozen=True, slots=True)
class Case:
    """A validated case with the outcome of its structural bundle (SPEC §4.7, §4.8, §6).

    Attributes:
        record: the validated case fields (truth included; only metrics read it).
        structural: the validated structural evidence, or ``None`` when the bundle failed.
        structural_failure: ``None``, or the failure string
            ``structural_evidence_validation_failed:<RULE-ID> …``.
    """

    record: CaseRecord
    structural: StructuralEvidence | None
    structural_failure: str | None


@dataclass(frozen=True, slots=True)
class ValidatedExperiment:
    """An admissible prepared input: repositories in declaration order, cases in input order."""

    repositories: tuple[Repository, ...]
    cases: tuple[Case, ...]


def _grammar_where(text: str, offset: int) -> str:
    return f"byte {len(text[:offset].encode('utf-8'))}"


def _in_bundle(v: Violation) -> int | None:
    """The case index when the violation lies inside ``/cases/{c}/structuralEvidence`` (§2.4)."""
    path = v.path
    if len(path) >= 3 and path[0] == "cases" and type(path[1]) is int and path[2] == "structuralEvidence":
        return path[1]
    return None


def _describe(v: Violation, text: str) -> tuple[str, str]:
    """(expected, found) of a file violation; TOP-6 names the second occurrence's byte offset."""
    if v.rule == "TOP-6":
        return v.expected, f"{v.found} at {_grammar_where(text, v.offset)}"
    return v.expected, v.found


def _parse_file(data: bytes, rep: Reporter) -> ParsedText:
    """Steps 1–2: decode and parse; every violation outside a structural bundle is reported."""
    try:
        text = decode_utf8(data)
    except Utf8Error as exc:
        rep.fail("TOP-1", f"byte {exc.offset}", "well-formed UTF-8", exc.found)
        rep.finish()
        raise AssertionError from None  # unreachable: finish() raised
    try:
        parsed = parse_text(text)
    except JsonGrammarError as exc:
        rep.fail(exc.rule, _grammar_where(text, exc.offset), exc.expected, exc.found)
        rep.finish()
        raise AssertionError from None
    for v in parsed.violations:
        if _in_bundle(v) is None:
            expected, found = _describe(v, text)
            rep.fail(v.rule, v.pointer, expected, found)
    rep.finish()
    return parsed


def parse_input(data: bytes, *, collect_all: bool = False) -> ParsedText:
    """Steps 1–2 of :func:`validate_experiment` alone: the input decoded and parsed, once.

    Returns:
        The parsed value and its strictness violations, every one of them
        inside a ``/cases/{c}/structuralEvidence`` (each makes that case's
        bundle fail SB-0); :func:`validate_parsed` takes it on.

    Raises:
        InputRejected / RejectedInput: TOP-1 … TOP-11 outside the structural bundles.

    Spec: SPEC.md §2.3, §2.4.
    """
    return _parse_file(data, Reporter(collect_all=collect_all))


def _validate_repository(repo: object, r: int, rep: Reporter) -> Repository | None:
    """REPO-2 … REPO-5 with SL, PREP, GIT and STALE for ``/repositories/{r}``."""
    w = f"/repositories/{r}"
    if not _REPOSITORY.report(rep, "REPO-2", repo, w):
        artifact = repo.get("sourceListArtifact") if isinstance(repo, dict) else None
        if isinstance(artifact, dict):  # the source-list text is examined regardless (§2.4)
            validate_source_list_artifact(artifact, child(w, "sourceListArtifact"), rep)
        return None
    assert isinstance(repo, dict)
    start = len(rep.violations)
    repo_id = repo["id"]
    if not is_nbtext(repo_id, 128) or not is_normalized(repo_id):
        rep.fail("REPO-3", child(w, "id"), "a normalized NBText(128)", show(repo_id))
    commit = repo["commit"]
    if not is_commit(commit):
        rep.fail("REPO-4", child(w, "commit"), "a Commit (40 or 64 lowercase hex)", show(commit))
    artifact = validate_source_list_artifact(repo["sourceListArtifact"], child(w, "sourceListArtifact"), rep)
    universe = artifact.universe if artifact is not None else None
    if universe is not None and universe.item_count == 0:
        rep.fail("REPO-5", child(w, "sourceListArtifact") + "/rawJson -> /items", "at least one item", "no items")
    raw_sha = repo["sourceListArtifact"].get("rawSha256") if isinstance(repo["sourceListArtifact"], dict) else None
    # Both owner observations are bound to the same repository commit, artifact digest and universe.
    prep, stale = "sourceListPreparation", "metadataStalenessSample"
    preparation = validate_preparation(
        repo[prep], child(w, prep), commit=commit, raw_sha256=raw_sha, universe=universe, rep=rep
    )
    staleness = validate_staleness(
        repo[stale], child(w, stale), commit=commit, raw_sha256=raw_sha, universe=universe, rep=rep
    )
    if len(rep.violations) != start or artifact is None or preparation is None or staleness is None:
        return None
    return Repository(
        index=r,
        id=repo_id,
        commit=commit,
        source_list=artifact,
        preparation=preparation,
        staleness=staleness,
    )


def _structural_outcome(
    record: CaseRecord, repository: RepositoryRef, sb0: Violation | None
) -> tuple[StructuralEvidence | None, str | None]:
    """SB-0, then SB-1 … SB-17 in the §4.12 order: evidence, or the single failure string."""
    if sb0 is not None:
        where = sb0.pointer
        return None, f"{BUNDLE_FAILURE_PREFIX}SB-0 {sb0.rule} at {where}: expected {sb0.expected}; found {sb0.found}"
    try:
        evidence = validate_bundle(
            record.bundle,
            question=record.question,
            repository_commit=repository.commit,
            item_paths=repository.item_paths,
        )
    except BundleInvalid as exc:
        return None, f"{BUNDLE_FAILURE_PREFIX}{exc}"
    return evidence, None


def _check_unique_ids(repositories: list[Repository | None], rep: Reporter) -> None:
    """REPO-6: every validated repository's id is unique in the input (a later one names the first)."""
    seen: dict[str, int] = {}
    for r, repo in enumerate(repositories):
        if repo is not None and seen.setdefault(repo.id, r) != r:
            rep.fail(
                "REPO-6",
                f"/repositories/{r}/id",
                "a repository id unique in the input",
                f"the id of /repositories/{seen[repo.id]}",
            )


def validate_experiment(data: bytes, *, collect_all: bool = False) -> ValidatedExperiment:
    """Validate a whole prepared input: :func:`validate_parsed` of :func:`parse_input`.

    Args:
        data: the exact input bytes (already hash-checked; decompressed for ``.json.gz``).
        collect_all: report every violation found (``--errors all``) instead of the first.

    Returns:
        The validated experiment with per-case structural outcomes.

    Raises:
        InputRejected: the first violated REJECT rule (TOP, REPO, SL, PREP, GIT, STALE, CASE).
        RejectedInput: with ``collect_all``, every violation found.

    Spec: SPEC.md §2, §4 (consequences §4.0, order §4.12).
    """
    return validate_parsed(parse_input(data, collect_all=collect_all), collect_all=collect_all)


def validate_parsed(parsed: ParsedText, *, collect_all: bool = False) -> ValidatedExperiment:
    """Steps 3–6 of :func:`validate_experiment` on the parse :func:`parse_input` returned.

    Raises:
        InputRejected / RejectedInput: as :func:`validate_experiment`, for TOP-13 onwards.
    """
    rep = Reporter(collect_all=collect_all)
    value = parsed.value
    sb0: dict[int, Violation] = {}
    for v in parsed.violations:
        c = _in_bundle(v)
        if c is not None:
            sb0.setdefault(c, v)
    if not _TOP_LEVEL.report(rep, "TOP-13", value, ""):
        rep.finish()
    assert isinstance(value, dict)
    if not (type(value["protocol"]) is str and value["protocol"] == PROTOCOL):
        rep.fail("TOP-14", "/protocol", repr(PROTOCOL), show(value["protocol"]))
    repositories_value = value["repositories"]
    if not isinstance(repositories_value, list) or not repositories_value:
        rep.fail("REPO-1", "/repositories", "an array with at least one repository", show(repositories_value))
        rep.finish()
    assert isinstance(repositories_value, list)
    repositories = [_validate_repository(repo, r, rep) for r, repo in enumerate(repositories_value)]
    _check_unique_ids(repositories, rep)
    if None in repositories:
        rep.finish()  # cases cannot be checked against a repository that failed
        msg = "a repository failed validation without a reported violation"
        raise AssertionError(msg)  # a bug: never drop a declared repository silently
    valid = [repo for repo in repositories if repo is not None]
    refs = [
        RepositoryRef(
            id=repo.id,
            commit=repo.commit,
            raw_sha256=repo.source_list.raw_sha256,
            item_count=repo.item_count,
            item_paths=frozenset(repo.source_list.universe.paths),
        )
        for repo in valid
    ]
    records = validate_cases(value["cases"], refs, rep)
    rep.finish()
    if records is None:
        msg = "cases failed validation without a reported violation"
        raise AssertionError(msg)
    cases = []
    for record in records:
        structural, failure = _structural_outcome(record, refs[record.repository_index], sb0.get(record.index))
        cases.append(Case(record=record, structural=structural, structural_failure=failure))
    return ValidatedExperiment(repositories=tuple(valid), cases=tuple(cases))
