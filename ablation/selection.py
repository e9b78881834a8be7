"""Selection: ranking tokens, path and metadata scores, the four orderings, the budget.

Truth never reaches this module: every function takes the candidate universe,
the question and the validated structural evidence, nothing else (SPEC §5,
§6; preregistration "Deterministic selection").

Speed: each repository is tokenised once into posting lists (token → item
positions); a case then touches only the items that share a token with its
question or carry structural evidence, sorts those, and back-fills the
zero-score rest in artifact order, which is already UTF-8 path order (SL-31).
Item positions stand in for the path tie-break for the same reason.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from ablation.contracts.source_list import CandidateUniverse
from ablation.contracts.structural import StructuralEvidence
from ablation.text import ranking_tokens, tokens

__all__ = ["ARMS", "RepositoryIndex", "Scores", "index_repository", "score_case", "select"]

#: The four arms, in result order (SPEC §8.1).
ARMS = ("paths", "source_list", "structural", "fusion")
_MIN_QUERY_TOKEN = 3  # shorter tokens never match a ranking token (SPEC §5.1)


@dataclass(frozen=True, slots=True)
class RepositoryIndex:
    """Posting lists of one repository's candidate universe, built once.

    Attributes:
        paths: the item paths in artifact order (position = tie-break rank).
        position: path → position.
        path_postings: token → positions of items whose path has the token.
        metadata_postings: token → positions of ``present`` items whose
            summary or read-when hints have the token.
    """

    paths: tuple[str, ...]
    position: Mapping[str, int]
    path_postings: Mapping[str, tuple[int, ...]]
    metadata_postings: Mapping[str, tuple[int, ...]]


def _postings(texts: Iterable[str | None]) -> dict[str, tuple[int, ...]]:
    postings: dict[str, list[int]] = {}
    for k, text in enumerate(texts):
        if text is None:
            continue
        for token in {t for t in tokens(text) if len(t) >= _MIN_QUERY_TOKEN}:
            postings.setdefault(token, []).append(k)
    return {token: tuple(positions) for token, positions in postings.items()}


def index_repository(universe: CandidateUniverse) -> RepositoryIndex:
    """Tokenise every item once: path tokens for all items, metadata tokens for ``present`` ones.

    Spec: SPEC.md §5.2 (each token counts at most once per item).
    """
    return RepositoryIndex(
        paths=universe.paths,
        position={path: k for k, path in enumerate(universe.paths)},
        path_postings=_postings(universe.paths),
        metadata_postings=_postings(universe.metadata_texts),
    )


@dataclass(frozen=True, slots=True)
class Scores:
    """The non-zero scores of one case, by item position (absent means 0).

    Attributes:
        path: pathScore = 2 × matching ranking tokens in the path.
        metadata: metadataScore = matching ranking tokens in present metadata.
        structural: (direct, related, definition, reference, match, graph_node,
            graph_edge) counts from the validated receipt (SPEC §5.2).
    """

    path: Mapping[int, int]
    metadata: Mapping[int, int]
    structural: Mapping[int, tuple[int, ...]]


def score_case(index: RepositoryIndex, question: str, evidence: StructuralEvidence | None) -> Scores:
    """Compute the case's scores from its question and structural evidence (never truth).

    Args:
        index: the repository's posting lists.
        question: the case question (ranking tokens are derived here, SPEC §5.1).
        evidence: the validated structural evidence, or ``None`` (all zero).

    Spec: SPEC.md §5.1, §5.2.
    """
    query = ranking_tokens(question)
    path: dict[int, int] = {}
    metadata: dict[int, int] = {}
    for token in query:
        for k in index.path_postings.get(token, ()):
            path[k] = path.get(k, 0) + 2
        for k in index.metadata_postings.get(token, ()):
            metadata[k] = metadata.get(k, 0) + 1
    structural: dict[int, tuple[int, ...]] = {}
    if evidence is not None:
        for item_path, counts in evidence.path_statistics.items():
            structural[index.position[item_path]] = counts
    return Scores(path=path, metadata=metadata, structural=structural)


_ZERO_STRUCTURAL = (0, 0, 0, 0, 0, 0, 0)


def _orderings(scores: Scores) -> dict[str, tuple[Callable[[int], tuple[int, ...]], Iterable[int]]]:
    """Per arm: the ascending sort key of SPEC §5.3 and the candidates that can score above zero."""
    p, m, s = scores.path, scores.metadata, scores.structural

    def lexical(k: int) -> tuple[int, int, int]:
        pk, mk = p.get(k, 0), m.get(k, 0)
        return (-(pk + mk), -mk, -pk)

    def structural(k: int) -> tuple[int, ...]:
        return tuple(-c for c in s.get(k, _ZERO_STRUCTURAL))

    return {
        "paths": (lambda k: (-p.get(k, 0), k), p.keys()),
        "source_list": (lambda k: (*lexical(k), k), p.keys() | m.keys()),
        "structural": (lambda k: (*structural(k), k), s.keys()),
        "fusion": (lambda k: (*structural(k), *lexical(k), k), s.keys() | p.keys() | m.keys()),
    }


def select(scores: Scores, arm: str, max_items: int, item_count: int) -> list[int]:
    """The first ``max_items`` positions of the arm's ordering (SPEC §5.3, §5.4).

    Candidates with a non-zero key are sorted by the arm's key (position last, so
    the order is total); zero-score items back-fill in artifact order.

    Args:
        scores: the case's scores.
        arm: one of :data:`ARMS`.
        max_items: the budget, 1 ≤ max_items ≤ item_count.
        item_count: size of the candidate universe.

    Returns:
        Item positions in selection order, exactly ``max_items`` of them.
    """
    key, candidates = _orderings(scores)[arm]
    scored = set(candidates)
    chosen = heapq.nsmallest(max_items, scored, key=key)
    if len(chosen) < max_items:
        for k in range(item_count):
            if k not in scored:
                chosen.append(k)
                if len(chosen) == max_items:
                    break
    return chosen
