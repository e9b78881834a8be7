"""Case fields, preregistered identity and clone gates (CASE-1 … CASE-19).

Spec: SPEC.md §4.7, §3.4, §5.1; preregistration "Question identity and clone gate".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ablation.canonical import canonical_digest
from ablation.contracts.base import Reporter, Shape, child, is_int, show
from ablation.text import identity_tokens, is_nbtext, is_normalized

__all__ = ["CaseRecord", "RepositoryRef", "question_id", "target_basis_digest", "validate_cases"]

MIN_CASES_PER_REPOSITORY = 10
_CASE = Shape(
    (
        "id",
        "repositoryId",
        "repositoryCommit",
        "sourceListArtifactSha256",
        "question",
        "questionId",
        "intentSignature",
        "targetBasisDigest",
        "maxItems",
        "truth",
        "structuralEvidence",
    )
)


@dataclass(frozen=True, slots=True)
class RepositoryRef:
    """What case validation needs of a validated repository."""

    id: str
    commit: str
    raw_sha256: str
    item_count: int
    item_paths: frozenset[str]


@dataclass(frozen=True, slots=True)
class CaseRecord:
    """A validated case (the structural bundle is validated later, SPEC §4.8).

    Attributes:
        index: position in ``/cases``.
        repository_index: position of its repository in ``/repositories``.
        truth: the truth paths in input order (only metrics read them).
        bundle: the raw ``structuralEvidence`` value (any JSON value).
    """

    index: int
    id: str
    repository_index: int
    repository_id: str
    repository_commit: str
    source_list_artifact_sha256: str
    question: str
    question_id: str
    intent_signature: str
    target_basis_digest: str
    max_items: int
    truth: tuple[str, ...]
    bundle: object


def target_basis_digest(commit: str, raw_sha256: str, truth: Sequence[str]) -> str:
    """``D({repositoryCommit, sourceListArtifactSha256, truth sorted in UTF-8 order})`` (§3.4)."""
    return canonical_digest(
        {"repositoryCommit": commit, "sourceListArtifactSha256": raw_sha256, "truth": sorted(truth)}
    )


def question_id(repository_id: str, intent_signature: str, basis: str) -> str:
    """``question:`` + ``D({repositoryId, intentSignature, targetBasisDigest})`` (§3.4)."""
    return "question:" + canonical_digest(
        {"repositoryId": repository_id, "intentSignature": intent_signature, "targetBasisDigest": basis}
    )


def validate_cases(cases: object, repositories: Sequence[RepositoryRef], rep: Reporter) -> list[CaseRecord] | None:
    """Validate ``/cases`` against the validated repositories.

    Args:
        cases: the parsed ``/cases`` value.
        repositories: the validated repositories, declaration order.
        rep: the violation reporter.

    Returns:
        The case records in input order, or ``None`` when a violation was collected.

    Raises:
        InputRejected: CASE-1 … CASE-19.

    Spec: SPEC.md §4.7.
    """
    if not isinstance(cases, list) or not cases:
        rep.fail("CASE-1", "/cases", "an array with at least one case", show(cases))
        return None
    by_id = {r.id: k for k, r in enumerate(repositories)}
    start = len(rep.violations)
    records: list[CaseRecord] = []
    for c, case in enumerate(cases):
        record = _validate_case(c, case, repositories, by_id, rep)
        if record is not None:
            records.append(record)
    _check_uniqueness(records, rep)
    if len(rep.violations) == start:
        _check_case_counts(records, repositories, rep)
    if len(rep.violations) != start:
        return None
    return records


def _validate_case(
    c: int, case: object, repositories: Sequence[RepositoryRef], by_id: dict[str, int], rep: Reporter
) -> CaseRecord | None:
    """CASE-2 … CASE-14 on ``/cases/{c}``; the record, or ``None`` when a violation was collected."""
    w = f"/cases/{c}"
    if not _CASE.report(rep, "CASE-2", case, w):
        return None
    assert isinstance(case, dict)
    before = len(rep.violations)
    case_id = case["id"]
    if not is_nbtext(case_id, 128):
        rep.fail("CASE-3", child(w, "id"), "an NBText(128)", show(case_id))
    repo_id = case["repositoryId"]
    r = by_id.get(repo_id) if type(repo_id) is str else None
    if r is None:
        rep.fail("CASE-4", child(w, "repositoryId"), "the id of a declared repository", show(repo_id))
        return None
    repo = repositories[r]
    question_ok, truth_ok = _check_fields(case, w, repo, rep)
    if not question_ok:
        return None
    identity = _check_identity(case, w, repo, rep, truth_ok=truth_ok)
    if identity is None or len(rep.violations) != before:
        return None
    intent, basis, qid = identity
    return CaseRecord(
        index=c,
        id=case_id,
        repository_index=r,
        repository_id=repo.id,
        repository_commit=repo.commit,
        source_list_artifact_sha256=repo.raw_sha256,
        question=case["question"],
        question_id=qid,
        intent_signature=intent,
        target_basis_digest=basis,
        max_items=case["maxItems"],
        truth=tuple(case["truth"]),
        bundle=case["structuralEvidence"],
    )


def _check_fields(case: dict[str, object], w: str, repo: RepositoryRef, rep: Reporter) -> tuple[bool, bool]:
    """CASE-5 … CASE-10: the case's own members against its repository; return (question ok, truth ok)."""
    question = case["question"]
    question_ok = is_nbtext(question, 4000) and is_normalized(question)
    if not question_ok:
        rep.fail("CASE-5", child(w, "question"), "a normalized NBText(4000)", show(question))
    rep.require_same("CASE-6", case, "repositoryCommit", w, repo.commit, f"the repository commit {repo.commit!r}")
    rep.require_same(
        "CASE-7", case, "sourceListArtifactSha256", w, repo.raw_sha256, f"the repository's rawSha256 {repo.raw_sha256}"
    )
    max_items = case["maxItems"]
    if not is_int(max_items) or not 1 <= max_items <= repo.item_count:
        rep.fail(
            "CASE-8",
            child(w, "maxItems"),
            f"an integer from 1 to {repo.item_count} (the item count)",
            show(max_items),
        )
    return question_ok, _check_truth(case["truth"], w, repo, rep)


def _check_truth(truth: object, w: str, repo: RepositoryRef, rep: Reporter) -> bool:
    """CASE-9, CASE-10: at least one truth path, each an item of the repository, none twice."""
    if not isinstance(truth, list) or not truth:
        rep.fail("CASE-9", child(w, "truth"), "an array with at least one path", show(truth))
        return False
    truth_ok = True
    seen: set[str] = set()
    for k, path in enumerate(truth):
        if type(path) is not str or path not in repo.item_paths:
            rep.fail("CASE-10", f"{w}/truth/{k}", "the path of an item of the repository", show(path))
            truth_ok = False
        elif path in seen:
            rep.fail("CASE-10", f"{w}/truth/{k}", "a path not listed before", show(path))
            truth_ok = False
        else:
            seen.add(path)
    return truth_ok


def _check_identity(
    case: dict[str, object], w: str, repo: RepositoryRef, rep: Reporter, *, truth_ok: bool
) -> tuple[str, str, str] | None:
    """CASE-11 … CASE-14 on a case whose question passed CASE-5.

    Returns:
        (intent signature, target basis digest, question id), or ``None``
        when CASE-11 failed or the truth failed CASE-9/CASE-10.
    """
    tokens = identity_tokens(case["question"])  # type: ignore[arg-type]  # CASE-5 passed: a string
    if not tokens:
        rep.fail("CASE-11", child(w, "question"), "at least one identity token", "none")
        return None
    intent = canonical_digest(tokens)
    rep.require_same("CASE-12", case, "intentSignature", w, intent, f"D(identity tokens) = {intent}")
    if not truth_ok:
        return None
    basis = target_basis_digest(repo.commit, repo.raw_sha256, case["truth"])  # type: ignore[arg-type]  # truth_ok: a list of paths
    rep.require_same("CASE-13", case, "targetBasisDigest", w, basis, f"the recomputed target basis {basis}")
    qid = question_id(repo.id, intent, basis)
    rep.require_same("CASE-14", case, "questionId", w, qid, f"the recomputed {qid}")
    return intent, basis, qid


def _check_case_counts(records: list[CaseRecord], repositories: Sequence[RepositoryRef], rep: Reporter) -> None:
    """CASE-19: every repository has at least :data:`MIN_CASES_PER_REPOSITORY` valid cases."""
    counts = [0] * len(repositories)
    for record in records:
        counts[record.repository_index] += 1
    for r, repo in enumerate(repositories):
        if counts[r] < MIN_CASES_PER_REPOSITORY:
            rep.fail(
                "CASE-19",
                f"/repositories/{r}",
                f"at least {MIN_CASES_PER_REPOSITORY} cases for {repo.id!r}",
                f"{counts[r]} cases",
            )


# CASE-15 … CASE-18 in the order they are checked per case: rule, member, expected, found.
_UNIQUE = (
    ("CASE-15", "intentSignature", "an intent signature unique in {repository!r}", "the same as /cases/{first}"),
    ("CASE-16", "targetBasisDigest", "a truth set unique in {repository!r}", "the same as /cases/{first}"),
    ("CASE-17", "id", "a case id unique in the input", "the id of /cases/{first}"),
    ("CASE-18", "questionId", "a question id unique in the input", "the same as /cases/{first}"),
)


def _check_uniqueness(records: list[CaseRecord], rep: Reporter) -> None:
    """CASE-15, CASE-16 (per repository), CASE-17, CASE-18 (across all cases); each names the first case it repeats."""
    firsts: tuple[dict[object, int], ...] = ({}, {}, {}, {})
    for record in records:
        keys = (
            (record.repository_index, record.intent_signature),
            (record.repository_index, record.target_basis_digest),
            record.id,
            record.question_id,
        )
        for (rule, member, expected, found), first_of, key in zip(_UNIQUE, firsts, keys, strict=True):
            first = first_of.setdefault(key, record.index)
            if first != record.index:
                where = child(f"/cases/{record.index}", member)
                rep.fail(rule, where, expected.format(repository=record.repository_id), found.format(first=first))
