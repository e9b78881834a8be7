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
from collections import Counter
from collections.abc import Container, Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import chain

from ablation.contracts.source_list import CandidateUniverse
from ablation.contracts.structural import StructuralEvidence
from ablation.text import ranking_tokens

__all__ = ["ARMS", "RepositoryIndex", "Scores", "index_repository", "score_case", "select_arms"]

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


# Bytes of the lowercased UTF-8 text: a-z and 0-9 stay, NUL (the item break) stays, all
# else (every byte of a non-ASCII character included) separates tokens.
_TOKEN_BYTES = bytes.maketrans(
    bytes(range(256)), bytes(b if (0x30 <= b <= 0x39 or 0x61 <= b <= 0x7A or b == 0) else 0x20 for b in range(256))
)
_MIN_QUERY_TOKEN = 3


def _postings(texts: Iterable[str | None], wanted: AbstractSet[str] | None = None) -> dict[str, tuple[int, ...]]:
    """Token → positions of the texts holding it (each position once), for tokens of ≥ 3 characters.

    The texts are joined with NUL (no path or metadata text can hold a control
    character: SL-13, SL-19/20) and lowercased once. tokens() keeps maximal
    ``a-z0-9`` runs of the lowercased text, and lowercasing the joined text
    gives the same runs as lowercasing each text (only U+212A and U+0130
    lowercase to ASCII, both without context); so the runs are found as bytes:
    every byte outside ``a-z0-9`` and NUL becomes a space (UTF-8 encodes
    non-ASCII characters with bytes ≥ 0x80 only), and ``split`` does the rest
    at C speed. Shorter tokens can never equal a ranking token (SPEC §5.1).
    With ``wanted``, only those tokens (the repository's query tokens) are kept.
    """
    joined = "\x00".join("" if text is None else text for text in texts).lower().encode("utf-8")
    found = joined.translate(_TOKEN_BYTES).replace(b"\x00", b" \x00 ").split()
    if wanted is None:
        keep = [t for t in found if len(t) >= _MIN_QUERY_TOKEN or t == b"\x00"]
    else:  # drop unwanted tokens at C speed, keeping the item breaks
        keep = list(filter(frozenset(t.encode("ascii") for t in wanted).union((b"\x00",)).__contains__, found))
    postings: dict[bytes, list[int]] = {}
    k = 0
    for token in keep:
        if token == b"\x00":
            k += 1
        else:
            positions = postings.get(token)
            if positions is None:
                postings[token] = [k]
            elif positions[-1] != k:
                positions.append(k)
    return {token.decode("ascii"): tuple(positions) for token, positions in postings.items()}


def index_repository(universe: CandidateUniverse, questions: Iterable[str] | None = None) -> RepositoryIndex:
    """Tokenise every item once: path tokens for all items, metadata tokens for ``present`` ones.

    Args:
        universe: the repository's candidate universe.
        questions: the questions of the repository's cases; when given, only
            their ranking tokens are indexed (no other token can score).

    Spec: SPEC.md §5.2 (each token counts at most once per item).
    """
    wanted = None if questions is None else frozenset().union(*(ranking_tokens(q) for q in questions))
    return RepositoryIndex(
        paths=universe.paths,
        position={path: k for k, path in enumerate(universe.paths)},
        path_postings=_postings(universe.paths, wanted),
        metadata_postings=_postings(universe.metadata_texts, wanted),
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
    # Each posting list holds an item once, so counting positions over the query's
    # lists counts the distinct query tokens per item (Counter counts in C).
    path = {k: 2 * n for k, n in Counter(chain.from_iterable(index.path_postings.get(t, ()) for t in query)).items()}
    metadata = dict(Counter(chain.from_iterable(index.metadata_postings.get(t, ()) for t in query)))
    structural: dict[int, tuple[int, ...]] = {}
    if evidence is not None:
        for item_path, counts in evidence.path_statistics.items():
            structural[index.position[item_path]] = counts
    return Scores(path=path, metadata=metadata, structural=structural)


def _backfill(chosen: list[int], scored: Container[int], max_items: int, item_count: int) -> list[int]:
    """Append zero-score items in artifact order (= UTF-8 path order) until the budget is met."""
    k = 0
    while len(chosen) < max_items and k < item_count:
        if k not in scored:
            chosen.append(k)
        k += 1
    return chosen


def _lexical_top(p: Mapping[int, int], m: Mapping[int, int], scored: AbstractSet[int], count: int) -> list[int]:
    """The first ``count`` positions of the ``source_list`` order among the lexically scored items.

    Only items whose total (path + metadata) reaches the ``count``-th largest
    total can be among them, so only those are keyed and sorted.
    """
    totals = {k: p.get(k, 0) + m.get(k, 0) for k in scored}
    threshold = 0
    seen = 0
    for total, n in sorted(Counter(totals.values()).items(), reverse=True):
        threshold = total
        seen += n
        if seen >= count:
            break
    keys = [(-total, -m.get(k, 0), -p.get(k, 0), k) for k, total in totals.items() if total >= threshold]
    return [key[-1] for key in heapq.nsmallest(count, keys)]


def select_arms(scores: Scores, arms: Iterable[str], max_items: int, item_count: int) -> dict[str, list[int]]:
    """The first ``max_items`` positions of each requested arm's ordering (SPEC §5.3, §5.4).

    Keys are the ascending tuples of SPEC §5.3 ending with the item position,
    which stands for the UTF-8 path tie-break (artifact order is UTF-8 order),
    so every order is total. Only candidates that can score above zero are
    keyed; zero-score items back-fill in artifact order.

    ``fusion`` is the structural order with the whole ``source_list`` cascade as
    tie-break: every item with structural evidence precedes every item without,
    and the items without keep their ``source_list`` order — so fusion takes the
    evidence items first and then continues down the ``source_list`` ranking.

    Args:
        scores: the case's scores.
        arms: the available arms to select for (a subset of :data:`ARMS`).
        max_items: the budget, 1 ≤ max_items ≤ item_count.
        item_count: size of the candidate universe.

    Returns:
        arm → item positions in selection order, exactly ``max_items`` each.
    """
    p, m, s = scores.path, scores.metadata, scores.structural
    wanted = set(arms)
    selections: dict[str, list[int]] = {}
    if "paths" in wanted:
        top = heapq.nsmallest(max_items, [(-score, k) for k, score in p.items()])
        selections["paths"] = _backfill([k for _, k in top], p, max_items, item_count)
    lexical_scored = p.keys() | m.keys()
    lexical_top: list[int] = []
    if "source_list" in wanted or "fusion" in wanted:
        lexical_top = _lexical_top(p, m, lexical_scored, max_items + len(s))
    if "source_list" in wanted:
        selections["source_list"] = _backfill(lexical_top[:max_items], lexical_scored, max_items, item_count)
    if "structural" in wanted:
        structural_top = heapq.nsmallest(max_items, [(*(-c for c in counts), k) for k, counts in s.items()])
        selections["structural"] = _backfill([key[-1] for key in structural_top], s, max_items, item_count)
    if "fusion" in wanted:
        keys = []
        for k, counts in s.items():
            pk, mk = p.get(k, 0), m.get(k, 0)
            keys.append((*(-c for c in counts), -(pk + mk), -mk, -pk, k))
        chosen = [key[-1] for key in heapq.nsmallest(max_items, keys)]
        for k in lexical_top:
            if len(chosen) == max_items:
                break
            if k not in s:
                chosen.append(k)
        selections["fusion"] = _backfill(chosen, lexical_scored | s.keys(), max_items, item_count)
    return selections
