"""Hypothesis properties: canonical JSON, UTF-8 ordering, JS number text, tokenizers."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from ablation.canonical import canon, js_number
from ablation.strictjson import parse_text
from ablation.text import identity_tokens, ranking_tokens, tokens

scalar_text = st.text(st.characters(blacklist_categories=("Cs",)))
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
