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
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ablation.contracts.source_list import CandidateUniverse
from ablation.contracts.structural import StructuralEvidence
from ablation.text import ranking_tokens

__all__ = ["ARMS", "RepositoryIndex", "Scores", "index_repository", "score_case", "select"]

#: The four arms, in result order (SPEC §8.1).
ARMS = ("paths", "source_list", "structural", "fusion")


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


_TOKEN_OR_ITEM_BREAK = re.compile("[a-z0-9]{3,}|\x00")


def _postings(texts: Iterable[str | None]) -> dict[str, tuple[int, ...]]:
    """Token → positions of the texts holding it (each position once), for tokens of ≥ 3 characters.

    The texts are joined with NUL (no path or metadata text can hold a control
    character: SL-13, SL-19/20), lowercased once and scanned once; shorter
    tokens can never equal a ranking token (SPEC §5.1). Lowercasing the joined
    text gives the same ASCII runs as lowercasing each text: only U+212A and
    U+0130 lowercase to ASCII, both without context.
    """
    joined = "\x00".join("" if text is None else text for text in texts).lower()
    postings: dict[str, list[int]] = {}
    k = 0
    for token in _TOKEN_OR_ITEM_BREAK.findall(joined):
        if token == "\x00":
            k += 1
            continue
        positions = postings.get(token)
        if positions is None:
            postings[token] = [k]
        elif positions[-1] != k:
            positions.append(k)
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


def _keys(scores: Scores, arm: str) -> list[tuple[int, ...]]:
    """Sort keys of SPEC §5.3 for the arm's candidates that can score above zero.

    Each key is ascending and ends with the item position, which stands for the
    UTF-8 path tie-break (artifact order is UTF-8 order).
    """
    p, m, s = scores.path, scores.metadata, scores.structural
    if arm == "paths":
        return [(-score, k) for k, score in p.items()]
    if arm == "source_list":
        return [(-(p.get(k, 0) + m.get(k, 0)), -m.get(k, 0), -p.get(k, 0), k) for k in p.keys() | m.keys()]
    if arm == "structural":
        return [(*(-c for c in counts), k) for k, counts in s.items()]
    keys = []
    for k in s.keys() | p.keys() | m.keys():
        pk, mk = p.get(k, 0), m.get(k, 0)
        keys.append((*(-c for c in s.get(k, _ZERO_STRUCTURAL)), -(pk + mk), -mk, -pk, k))
    return keys


def select(scores: Scores, arm: str, max_items: int, item_count: int) -> list[int]:
    """The first ``max_items`` positions of the arm's ordering (SPEC §5.3, §5.4).

    Candidates with a non-zero key are ordered by the arm's key (position last,
    so the order is total); zero-score items back-fill in artifact order.

    Args:
        scores: the case's scores.
        arm: one of :data:`ARMS`.
        max_items: the budget, 1 ≤ max_items ≤ item_count.
        item_count: size of the candidate universe.

    Returns:
        Item positions in selection order, exactly ``max_items`` of them.
    """
    keys = _keys(scores, arm)
    chosen = [key[-1] for key in heapq.nsmallest(max_items, keys)]
    if len(chosen) < max_items:
        scored = {key[-1] for key in keys}
        for k in range(item_count):
            if k not in scored:
                chosen.append(k)
                if len(chosen) == max_items:
                    break
    return chosen
