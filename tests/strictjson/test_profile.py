"""The strict JSON profile: every fault kind of SPEC §2.3, §9.15 and §10 with a concrete input."""

from __future__ import annotations

import pytest

from ablation.strictjson import INVALID_NUMBER, JsonGrammarError, Utf8Error, decode_utf8, parse_text


def violations(text: str) -> list[tuple[str, str, int, str]]:
    return [(v.rule, v.pointer, v.offset, v.found) for v in parse_text(text).violations]


STRICTNESS = [
    ("TOP-6-duplicate", '{"a":1,"a":2}', [("TOP-6", "/a", 7, "a second member 'a'")]),
    ("TOP-6-escaped-duplicate", '{"a":1,"\\u0061":2}', [("TOP-6", "/a", 7, "a second member 'a'")]),
    ("TOP-6-nested", '[{"x":{"y":0,"y":0}}]', [("TOP-6", "/0/x/y", 13, "a second member 'y'")]),
    ("TOP-7-1e400", "[1e400]", [("TOP-7", "/0", 1, "1e400")]),
    ("TOP-7-negative", '{"n":-1e400}', [("TOP-7", "/n", 5, "-1e400")]),
    ("TOP-7-400-digits", "[" + "9" * 400 + "]", [("TOP-7", "/0", 1, "99999999999999999999… (400 characters)")]),
    ("TOP-7-4301-digits", "[" + "1" * 4301 + "]", [("TOP-7", "/0", 1, "11111111111111111111… (4301 characters)")]),
    ("TOP-8-fraction", "[1.0]", [("TOP-8", "/0", 1, "1.0")]),
    ("TOP-8-exponent", "[1e0]", [("TOP-8", "/0", 1, "1e0")]),
    ("TOP-8-negative-zero-float", "[-0.0]", [("TOP-8", "/0", 1, "-0.0")]),
    ("TOP-9-2^53", "[9007199254740992]", [("TOP-9", "/0", 1, "9007199254740992")]),
    ("TOP-9-negative", "[-9007199254740992]", [("TOP-9", "/0", 1, "-9007199254740992")]),
    ("TOP-10-lone-high", '["\\ud800"]', [("TOP-10", "/0", 2, "\\ud800")]),
    ("TOP-10-lone-low", '{"k":"x\\udc00"}', [("TOP-10", "/k", 7, "\\udc00")]),
    ("TOP-10-in-name", '{"a\\udc00":1}', [("TOP-10", "/a\ufffd", 3, "\\udc00")]),
    ("TOP-11-257", "[" * 257 + "]" * 257, [("TOP-11", "/0" * 256, 256, "depth 257")]),
]


@pytest.mark.parametrize(("text", "expected"), [s[1:] for s in STRICTNESS], ids=[s[0] for s in STRICTNESS])
def test_strictness_violations_are_located(text: str, expected: list[tuple[str, str, int, str]]) -> None:
    assert violations(text) == expected


def test_top11_100000_nested_arrays_do_not_crash() -> None:
    text = "[" * 100_000 + "]" * 100_000
    found = parse_text(text).violations
    assert [(v.rule, v.offset) for v in found] == [("TOP-11", 256)]


def test_depth_256_is_allowed() -> None:
    assert violations("[" * 256 + "]" * 256) == []
    assert violations('{"a":' * 256 + "0" + "}" * 256) == []


def test_violations_are_all_recorded_in_text_order() -> None:
    text = '{"a":1.5,"b":{"c":1,"c":2},"d":"\\ud800"}'
    assert [v.rule for v in parse_text(text).violations] == ["TOP-8", "TOP-6", "TOP-10"]


def test_values_at_violating_numbers_are_placeholders() -> None:
    assert parse_text("[1.5, 2]").value == [INVALID_NUMBER, 2]


GRAMMAR = [
    ("TOP-2-bom", "\ufeff{}", "TOP-2", 0),
    ("TOP-3-trailing-comma", "[1,]", "TOP-3", 3),
    ("TOP-3-comment", "[1 /* x */]", "TOP-3", 3),
    ("TOP-3-single-quotes", "['a']", "TOP-3", 1),
    ("TOP-3-bad-escape", '["\\x"]', "TOP-3", 2),
    ("TOP-3-control-character", '["a\x01"]', "TOP-3", 3),
    ("TOP-3-plus", "[+1]", "TOP-3", 1),
    ("TOP-3-empty", "", "TOP-3", 0),
    ("TOP-3-unicode-digit", "[\u0661]", "TOP-3", 1),
    ("TOP-4-nan", "[NaN]", "TOP-4", 1),
    ("TOP-4-infinity", '{"a":Infinity}', "TOP-4", 5),
    ("TOP-4-minus-infinity", "[-Infinity]", "TOP-4", 1),
    ("TOP-5-trailing-data", "{} x", "TOP-5", 3),
    ("TOP-5-second-value", "[] []", "TOP-5", 3),
]


@pytest.mark.parametrize(("text", "rule", "offset"), [g[1:] for g in GRAMMAR], ids=[g[0] for g in GRAMMAR])
def test_grammar_violations_raise_with_offset(text: str, rule: str, offset: int) -> None:
    with pytest.raises(JsonGrammarError) as info:
        parse_text(text)
    assert (info.value.rule, info.value.offset) == (rule, offset)


def test_valid_text_keeps_values_and_surrogate_pairs() -> None:
    parsed = parse_text(' {"a": [1, -0, true, null, "\\ud83d\\ude00", "\\\\ud800"]} \n')
    assert parsed.violations == ()
    assert parsed.value == {"a": [1, 0, True, None, "😀", "\\ud800"]}


@pytest.mark.parametrize(
    ("data", "offset"),
    [
        (b'["\xff"]', 2),
        (b'["\xc0\xaf"]', 2),
        (b'["\xed\xa0\x80"]', 2),
        (b'["\xf4\x90\x80\x80"]', 2),
        (b'["\xe2\x82"]', 2),
    ],
    ids=["invalid-byte", "overlong", "encoded-surrogate", "above-10ffff", "truncated"],
)
def test_top1_invalid_utf8(data: bytes, offset: int) -> None:
    with pytest.raises(Utf8Error) as info:
        decode_utf8(data)
    assert info.value.offset == offset


def test_top6_is_not_reported_for_a_lone_surrogate_name_beside_its_replacement() -> None:
    """`"\\ufffd"` and `"\\ud800"` are different names: only TOP-10 applies."""
    assert [v.rule for v in parse_text('{"\\ufffd":1,"\\ud800":2}').violations] == ["TOP-10"]
    assert [v.rule for v in parse_text('{"\\ud800":1,"\\ud800":2}').violations] == ["TOP-10", "TOP-10", "TOP-6"]
