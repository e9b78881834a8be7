"""Pins for the strict JSON profile on both parsers: the fast decoder path and the scanner of record.

``parse_text`` decodes with hooks that give up (and fall back to the scanner)
on anything the profile may reject; ``_scan`` decides. A hook that accepts too
much makes ``parse_text`` accept what ``_scan`` rejects, so every value here is
checked through both (SPEC §2.3, §2.4: TOP-5 … TOP-11).
"""

from __future__ import annotations

import pytest

from ablation.strictjson import MAX_SAFE_INTEGER, JsonGrammarError, _scan, parse_text

PARSERS = [parse_text, _scan]


def found(parse, text: str) -> list[tuple[str, str, int]]:  # type: ignore[no-untyped-def]
    return [(v.rule, v.pointer, v.offset) for v in parse(text).violations]


INTEGERS = [
    ("9" * 15, True), ("-" + "9" * 15, True), ("1" + "0" * 15, True), (str(MAX_SAFE_INTEGER), True),
    (str(-MAX_SAFE_INTEGER), True), (str(MAX_SAFE_INTEGER + 1), False), (str(-MAX_SAFE_INTEGER - 1), False),
    ("9" * 17, False), ("-" + "9" * 16, False), ("1" + "0" * 17, False), ("-" + "1" + "0" * 17, False),
    ("0", True), ("-0", True), ("8" * 16, True), ("-" + "8" * 16, True), ("9" * 16, False),
]  # fmt: skip


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
@pytest.mark.parametrize(("literal", "safe"), INTEGERS, ids=[i[0][:20] + f"-{len(i[0])}" for i in INTEGERS])
def test_TOP_9_safe_integer_bound_on_both_paths(parse, literal: str, safe: bool) -> None:  # type: ignore[no-untyped-def]
    text = '{"n": [1, ' + literal + "]}"
    if safe:
        assert found(parse, text) == []
        assert parse(text).value == {"n": [1, int(literal)]}
    else:
        assert found(parse, text) == [("TOP-9", "/n/1", 10)]


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
@pytest.mark.parametrize(("literal", "rule"), [("1.5", "TOP-8"), ("1e2", "TOP-8"), ("1E+2", "TOP-8"), ("-0.0", "TOP-8"),
                                               ("1e309", "TOP-7"), ("-1e309", "TOP-7"), ("1.7976931348623157e308", "TOP-8"),
                                               ("1" * 400, "TOP-7")],
                         ids=["fraction", "exponent", "exponent-upper", "negative-zero", "overflow", "negative-overflow",
                              "max-double", "400-digits"])  # fmt: skip
def test_TOP_7_TOP_8_on_both_paths(parse, literal: str, rule: str) -> None:  # type: ignore[no-untyped-def]
    assert found(parse, "[0, " + literal + "]") == [(rule, "/1", 4)]


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
@pytest.mark.parametrize("word", ["NaN", "Infinity", "-Infinity"])
def test_TOP_4_on_both_paths(parse, word: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(JsonGrammarError) as info:
        parse('{"a": ' + word + "}")
    assert (info.value.rule, info.value.offset) == ("TOP-4", 6)


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
def test_TOP_6_on_both_paths(parse) -> None:  # type: ignore[no-untyped-def]
    assert found(parse, '{"a": {"b": 1, "c": 2, "b": 3}}') == [("TOP-6", "/a/b", 23)]
    assert found(parse, '{"a": {"b": 1, "B": 2}}') == []


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
def test_TOP_10_on_both_paths(parse) -> None:  # type: ignore[no-untyped-def]
    assert found(parse, '["\\udbff\\udfff", "\\udfff"]') == [("TOP-10", "/1", 18)]
    assert parse('["\\ud83d\\ude00"]').value == ["\U0001f600"]


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
@pytest.mark.parametrize(("open_", "close"), [("[", "]"), ('{"a":', "}")], ids=["arrays", "objects"])
def test_TOP_11_depth_256_accepted_257_rejected_on_both_paths(parse, open_: str, close: str) -> None:  # type: ignore[no-untyped-def]
    assert found(parse, open_ * 256 + "0" + close * 256) == []
    assert [v[0] for v in found(parse, open_ * 257 + "0" + close * 257)] == ["TOP-11"]


# ---------------------------------------------------------------- pointers and UTF-8 messages (values.py survivors)


@pytest.mark.parametrize(
    ("key", "expected"),
    [("b/c~d", "/a/b~1c~0d"), ("~1", "/a/~01"), ("//", "/a/~1~1"), (3, "/a/3"), ("", "/a/")],
    ids=["slash-and-tilde", "tilde-before-one", "two-slashes", "index", "empty-name"],
)
def test_pointer_segments_escape_tilde_then_slash(key: str | int, expected: str) -> None:
    from ablation.strictjson import child

    assert child("/a", key) == expected


@pytest.mark.parametrize(
    ("data", "offset", "found"),
    [(b'"\xe2\x82A"', 1, "bytes E2 82"), (b"\xff", 0, "bytes FF"), (b'["\xf0\x9f\x98"]', 2, "bytes F0 9F 98")],
    ids=["truncated-three-byte", "invalid-start", "truncated-four-byte"],
)
def test_top1_names_the_offset_and_the_ill_formed_bytes(data: bytes, offset: int, found: str) -> None:
    from ablation.strictjson.values import Utf8Error, decode_utf8

    with pytest.raises(Utf8Error) as caught:
        decode_utf8(data)
    assert (caught.value.offset, caught.value.found) == (offset, found)
