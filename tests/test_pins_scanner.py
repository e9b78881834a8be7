"""Pins found by mutation testing of the scanner of record (TOP-3, TOP-4, TOP-9 … TOP-11), on both paths.

Every grammar error is asserted whole (rule, offset, expected, found: SPEC
§2.5), every violation with its path and offset, and the surrogate-pair and
depth bookkeeping at its boundaries. ``parse_text`` falls back to ``_scan`` on
anything it notices, so each text goes through both (SPEC §2.3, §2.4).
"""

from __future__ import annotations

import pytest

from ablation.strictjson import INVALID_NUMBER, JsonGrammarError, _scan, parse_text

PARSERS = [parse_text, _scan]
ESCAPE = 'a JSON escape (\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)'

GRAMMAR = [
    ('{"a" 1}', "TOP-3", 5, "':' after a member name", "'1}'"),
    ('{"a" 123456789012345}', "TOP-3", 5, "':' after a member name", "'123456789012'"),
    ('"abc', "TOP-3", 4, "a closing '\"'", "end of text"),
    ('"a\x01"', "TOP-3", 2, "no unescaped control character in a string", "U+0001"),
    ('"\\x"', "TOP-3", 1, ESCAPE, "'\\\\x\"'"),
    ('"\\u12"', "TOP-3", 1, ESCAPE, "'\\\\u12\"'"),
    ('"\\uZZZZ"', "TOP-3", 1, ESCAPE, "'\\\\uZZZZ\"'"),
    ("-", "TOP-3", 0, "a JSON number", "'-'"),
    ("[-x]", "TOP-3", 1, "a JSON number", "'-x]'"),
    ("x", "TOP-3", 0, "a JSON value", "'x'"),
    ("X", "TOP-3", 0, "a JSON value", "'X'"),
    ("Infinity", "TOP-4", 0, "a JSON value (Infinity is not JSON)", "'Infinity'"),
    ("[NaN]", "TOP-4", 1, "a JSON value (NaN is not JSON)", "'NaN'"),
]


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
@pytest.mark.parametrize(("text", "rule", "offset", "expected", "found"), GRAMMAR, ids=[g[0][:24] for g in GRAMMAR])
def test_grammar_errors_are_located_and_worded(parse, text: str, rule: str, offset: int, expected: str, found: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(JsonGrammarError) as caught:
        parse(text)
    error = caught.value
    assert (error.rule, error.offset, error.expected, error.found) == (rule, offset, expected, found)


def violations(parse, text: str) -> list[tuple[object, ...]]:  # type: ignore[no-untyped-def]
    return [(v.rule, v.path, v.offset, v.expected, v.found) for v in parse(text).violations]


STRINGS = [
    ('"\\ud800\\udc00"', "\U00010000", []),
    ('"\\udbff\\udfff"', "\U0010ffff", []),
    ('"\\ud7ff"', "\ud7ff", []),
    ('"\\ue000"', "\ue000", []),
    ('"\\u0041\\u0042"', "AB", []),
    (
        '"\\udc00\\udc00"',
        "\ufffd\ufffd",
        [("TOP-10", (), 1, "no lone surrogate", "\\udc00"), ("TOP-10", (), 7, "no lone surrogate", "\\udc00")],
    ),
    ('"\\ud800\\ue000"', "\ufffd\ue000", [("TOP-10", (), 1, "no lone surrogate", "\\ud800")]),
]


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
@pytest.mark.parametrize(("text", "value", "found"), STRINGS, ids=[s[0] for s in STRINGS])
def test_TOP_10_surrogate_pairs_at_their_boundaries(parse, text: str, value: str, found: list[object]) -> None:  # type: ignore[no-untyped-def]
    assert parse(text).value == value
    assert violations(parse, text) == found


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
def test_TOP_10_a_lone_surrogate_is_kept_as_U_FFFD_in_values_and_names(parse) -> None:  # type: ignore[no-untyped-def]
    assert parse('["\\udc00x"]').value == ["\ufffdx"]
    assert violations(parse, '["\\udc00x"]') == [("TOP-10", (0,), 2, "no lone surrogate", "\\udc00")]
    assert parse('{"\\ud800": 1}').value == {"\ufffd": 1}
    assert violations(parse, '{"\\ud800": 1}') == [("TOP-10", ("\ufffd",), 2, "no lone surrogate", "\\ud800")]


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
def test_TOP_9_a_literal_of_40_characters_is_shown_whole_and_41_cut(parse) -> None:  # type: ignore[no-untyped-def]
    forty, forty_one = "1" + "0" * 39, "1" + "0" * 40
    expected = "an integer n with |n| <= 9007199254740991"
    assert parse(f"[{forty}]").value == [INVALID_NUMBER]
    assert violations(parse, f"[{forty}]") == [("TOP-9", (0,), 1, expected, forty)]
    assert violations(parse, f"[{forty_one}]") == [("TOP-9", (0,), 1, expected, forty_one[:20] + "… (41 characters)")]


DEEP = "nesting depth <= 256"


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
@pytest.mark.parametrize("inner", ["[],[]", "[1],[1]"], ids=["empty", "filled"])
def test_TOP_11_once_per_branch_children_of_the_too_deep_container_are_not_reported(parse, inner: str) -> None:  # type: ignore[no-untyped-def]
    text = "[" * 257 + inner + "]" * 257
    assert violations(parse, text) == [("TOP-11", (0,) * 256, 256, DEEP, "depth 257")]


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
@pytest.mark.parametrize(("leaf", "second"), [("[]", 769), ("[1]", 770)], ids=["empty", "filled"])
def test_TOP_11_a_second_branch_is_reported_again(parse, leaf: str, second: int) -> None:  # type: ignore[no-untyped-def]
    branch = "[" * 255 + leaf + "]" * 255
    assert violations(parse, "[" + branch + "," + branch + "]") == [
        ("TOP-11", (0,) * 256, 256, DEEP, "depth 257"),
        ("TOP-11", (1,) + (0,) * 255, second, DEEP, "depth 257"),
    ]
