"""Hypothesis properties: canonical JSON, UTF-8 ordering, JS number text, tokenizers."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ablation.canonical import canon, js_number
from ablation.contracts.base import Reporter
from ablation.contracts.git_index import _checked_records, _whole_buffer_records
from ablation.contracts.source_list_items import _ASCII_SAFE_PATH
from ablation.errors import InputRejected
from ablation.selection import ARMS, Scores, _postings, select_arms
from ablation.strictjson import JsonGrammarError, _scan, parse_text
from ablation.text import extname, identity_tokens, is_safe_path, ranking_tokens, tokens

scalar_text = st.text(st.characters(blacklist_categories=["Cs"]))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | scalar_text,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(scalar_text, children, max_size=4),
    max_leaves=20,
)


@given(st.lists(scalar_text, max_size=12))
def test_utf8_order_is_python_string_order(strings: list[str]) -> None:
    assert sorted(strings) == sorted(strings, key=lambda s: s.encode("utf-8"))


@given(json_values)
def test_canon_round_trips_through_the_strict_parser(value: object) -> None:
    text = canon(value)
    parsed = parse_text(text)
    assert parsed.violations == ()
    assert canon(parsed.value) == text


@given(st.dictionaries(scalar_text, st.integers(0, 9), max_size=8))
def test_canon_members_sorted_by_utf8_bytes(obj: dict[str, int]) -> None:
    names = list(json.loads(canon(obj)))
    assert names == sorted(obj, key=lambda s: s.encode("utf-8"))


@given(json_values)
def test_strict_parser_agrees_with_stdlib_on_valid_text(value: object) -> None:
    text = json.dumps(value, ensure_ascii=True, indent=1)
    assert canon(parse_text(text).value) == canon(value)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_js_number_round_trips(x: float) -> None:
    text = js_number(x)
    assert float(text) == x or (x == 0 and text == "0")
    assert re.fullmatch(r"-?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?(e[+-][1-9][0-9]*)?|-?0\.[0-9]*[1-9]", text) or text == "0"


@given(st.text())
def test_tokens_are_ascii_runs_of_the_lowercased_text(text: str) -> None:
    result = tokens(text)
    assert all(re.fullmatch(r"[a-z0-9]+", t) for t in result)
    assert "".join(result) == re.sub(r"[^a-z0-9]", "", text.lower())


@given(st.text())
def test_identity_and_ranking_tokens_are_subsets(text: str) -> None:
    all_tokens = set(tokens(text))
    ident = identity_tokens(text)
    assert ident == sorted(set(ident))
    assert set(ident) <= all_tokens
    assert not any(re.search(r"[0-9]", t) for t in ident)
    assert ranking_tokens(text) <= all_tokens
    assert all(len(t) >= 3 for t in ranking_tokens(text))


_record_parts = st.tuples(
    st.sampled_from(["100644", "120000", "160000", "100755", "040000", "10064", "1006440", "١٠٠٦٤٤"]),
    st.sampled_from(["e69de29b", "a", "", "E69", "0"]),
    st.sampled_from(["0", "1", "3", "4", "٠"]),
    st.sampled_from(["\t", " ", "\t\t"]),
    st.text(st.sampled_from("ab.js/\t\n \ufeffé"), max_size=8),
)


@given(st.lists(_record_parts, max_size=6), st.sampled_from([b"", b"\0", b"\xef\xbb\xbf", b"\xff"]))
def test_git_fast_scan_agrees_with_record_by_record_check(parts: list[tuple[str, ...]], tail: bytes) -> None:
    data = b"".join(f"{m} {o} {s}{sep}{p}".encode() + b"\0" for m, o, s, sep, p in parts) + tail
    if not data or data[-1] != 0:
        return
    fast = _whole_buffer_records(data)
    try:
        checked = _checked_records(data, "", Reporter())
    except InputRejected:
        checked = None
    assert fast == checked


@given(
    st.lists(
        st.one_of(st.none(), st.text(st.sampled_from("aB9-/._ \u212a\u0130\u03a3\u017fxyzé"), max_size=12)), max_size=8
    )
)
def test_joined_postings_equal_per_item_tokenization(texts: list[str | None]) -> None:
    expected: dict[str, list[int]] = {}
    for k, text in enumerate(texts):
        for token in sorted({t for t in tokens(text or "") if len(t) >= 3}):
            expected.setdefault(token, []).append(k)
    assert _postings(texts) == {t: tuple(p) for t, p in expected.items()}


_json_fragments = st.lists(
    st.sampled_from(
        [
            '{"a":',
            '{"a":1,"a":',
            "[",
            "]",
            "}",
            ",",
            "1",
            "1.5",
            "1e400",
            "-0",
            '"x"',
            '"\\ud800"',
            '"\\ud83d\\ude00"',
            "true",
            "null",
            "9007199254740993",
            " ",
            "NaN",
            '"\\u0061"',
        ]
    ),
    max_size=12,
)


@given(_json_fragments)
def test_fast_path_agrees_with_the_scanner_of_record(fragments: list[str]) -> None:
    text = "".join(fragments)
    try:
        fast = parse_text(text)
    except JsonGrammarError as exc:
        fast_outcome: object = ("grammar", exc.rule)
    else:
        fast_outcome = (
            "ok",
            [(v.rule, v.path) for v in fast.violations],
            canon(fast.value) if not fast.violations else None,
        )
    try:
        slow = _scan(text)
    except JsonGrammarError as exc:
        slow_outcome: object = ("grammar", exc.rule)
    else:
        slow_outcome = (
            "ok",
            [(v.rule, v.path) for v in slow.violations],
            canon(slow.value) if not slow.violations else None,
        )
    assert fast_outcome == slow_outcome


def _naive_selection(
    p: dict[int, int], m: dict[int, int], s: dict[int, tuple[int, ...]], arm: str, max_items: int, n: int
) -> list[int]:
    """SPEC §5.3 literally: sort every item by the arm's full key, take the first maxItems."""
    zero = (0,) * 7

    def key(k: int) -> tuple[int, ...]:
        pk, mk, sk = p.get(k, 0), m.get(k, 0), tuple(-c for c in s.get(k, zero))
        lexical = (-(pk + mk), -mk, -pk)
        return {"paths": (-pk,), "source_list": lexical, "structural": sk, "fusion": sk + lexical}[arm] + (k,)

    return sorted(range(n), key=key)[:max_items]


@given(
    st.integers(1, 12).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.dictionaries(st.integers(0, n - 1), st.integers(1, 3).map(lambda x: 2 * x), max_size=n),
            st.dictionaries(st.integers(0, n - 1), st.integers(1, 3), max_size=n),
            st.dictionaries(st.integers(0, n - 1), st.tuples(*[st.integers(0, 2)] * 7).filter(any), max_size=n),
            st.integers(1, n),
        )
    )
)
def test_selection_equals_a_full_sort_by_the_spec_keys(case: tuple[Any, ...]) -> None:
    n, p, m, s, max_items = case
    selections = select_arms(Scores(path=p, metadata=m, structural=s), ARMS, max_items, n)
    for arm in ARMS:
        assert selections[arm] == _naive_selection(p, m, s, arm, max_items, n), arm


@given(
    st.lists(
        st.sampled_from(["a", "b", ".", "/", " ", "\\", ":", "C", "-", "~", "\t", "\n", "é", "ab", ".."]), max_size=10
    ).map("".join)
)
def test_ascii_safe_path_fast_match_equals_the_predicate(path: str) -> None:
    if path.isascii():
        assert (_ASCII_SAFE_PATH.fullmatch(path) is not None) == is_safe_path(path)


@given(st.lists(st.sampled_from(["a", ".", "/", "..", "js", "é", "K"]), max_size=8).map("".join))
def test_extname_follows_the_last_segment_rule(path: str) -> None:
    base = path.rpartition("/")[2]
    dot = base.rfind(".")
    expected = "" if dot <= 0 or base == ".." else base[dot:]
    assert extname(path) == expected
