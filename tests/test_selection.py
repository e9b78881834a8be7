"""``selection``: tokenizers, posting lists and the four orderings (SPEC §5.1 … §5.4) at their edges.

The rankings of the worked examples are pinned in ``test_result.py`` and
every fast path against a full sort in ``tests/property/``; these pin what
mutation testing found free to change.
"""

from __future__ import annotations

from ablation.contracts.source_list import CandidateUniverse
from ablation.selection import ARMS, Scores, _postings, index_repository, select_arms


def test_postings_keep_tokens_of_three_or_more_characters_once_per_text() -> None:
    assert _postings(["ab abc", None, "ABC/xyz1 abc", "Abc-ab"]) == {"abc": (0, 2, 3), "xyz1": (2,)}


def test_postings_with_wanted_keep_only_wanted_tokens_and_item_breaks() -> None:
    assert _postings(["abc xyz", "xyz", None, "qqq xyz"], frozenset({"xyz"})) == {"xyz": (0, 1, 3)}
    assert _postings(["abc xyz", "xyz"], frozenset()) == {}


def _universe() -> CandidateUniverse:
    return CandidateUniverse(
        paths=("src/alpha.js", "src/beta.js", "src/gamma.py"),
        index_kinds=("regular", "regular", "regular"),
        metadata_texts=("alpha parser owner", None, "beta gamma notes"),
        present_count=2,
    )


def test_index_repository_without_questions_indexes_every_token() -> None:
    index = index_repository(_universe())
    assert index.path_postings == {"src": (0, 1, 2), "alpha": (0,), "beta": (1,), "gamma": (2,)}
    assert index.metadata_postings == {
        "alpha": (0,),
        "parser": (0,),
        "owner": (0,),
        "beta": (2,),
        "gamma": (2,),
        "notes": (2,),
    }
    assert index.position == {"src/alpha.js": 0, "src/beta.js": 1, "src/gamma.py": 2}


def test_index_repository_with_questions_indexes_only_their_ranking_tokens() -> None:
    index = index_repository(_universe(), ["Where is the beta parser?", "gamma"])
    assert index.path_postings == {"beta": (1,), "gamma": (2,)}
    assert index.metadata_postings == {"parser": (0,), "beta": (2,), "gamma": (2,)}


def test_select_arms_fusion_alone_equals_fusion_among_all_arms() -> None:
    """fusion continues down the source_list order even when source_list itself is not requested."""
    scores = Scores(path={0: 2, 3: 4}, metadata={1: 1, 3: 1}, structural={2: (1, 0, 0, 0, 1, 0, 0)})
    everything = select_arms(scores, ARMS, 4, 6)
    assert everything["fusion"] == [2, 3, 0, 1]
    assert select_arms(scores, ["fusion"], 4, 6) == {"fusion": [2, 3, 0, 1]}
    assert select_arms(scores, ["structural", "fusion"], 4, 6)["fusion"] == [2, 3, 0, 1]
