"""TOP — the strict JSON profile and the top level (SPEC §2.3, §2.4, §4.1): every rule, on both parsers.

The rows of :data:`MUTATIONS` and :data:`BYTES` break one rule each in SPEC
§11.1's valid input. The strict profile has two parsers — the standard
library's C scanner with hooks that only notice trouble, and the scanner of
record that decides (``docs/decisions/0002-strict-json-in-two-layers.md``) —
so every grammar error and violation is asserted whole (rule, offset or
pointer, expected and found) through both. TOP-12 places a violation: inside
a source-list text it rejects with an inner pointer, inside a structural
bundle it is SB-0 (``test_sb.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ablation.errors import InputRejected
from ablation.experiment import validate_experiment
from ablation.strictjson import INVALID_NUMBER, MAX_SAFE_INTEGER, JsonGrammarError, ParsedText, _scan, child, parse_text
from ablation.strictjson.values import Utf8Error, decode_utf8
from tests.builders.messages import Snapshot, ids, reject_inputs, reject_messages
from tests.builders.prepared import dumps, rehash_input, valid_minimal
from tests.builders.reject import (
    Mutation,
    assert_first_rule,
    rejected,
    repo0,
    rows,
    rule_of,
    set_path,
    with_payload,
)

MUTATIONS: list[tuple[str, Mutation]] = [
    ("TOP-13-unknown-member", set_path(("extra",), 1)),
    ("TOP-14-protocol-v1", set_path(("protocol",), "pi-context-packer-source-selection-ablation/v1")),
]


@pytest.mark.parametrize("mutate", rows(MUTATIONS))
def test_rule(mutate: Mutation, request: pytest.FixtureRequest) -> None:
    assert_first_rule(mutate, rule_of(request))


def _bytes_case(transform: Callable[[bytes], bytes]) -> InputRejected:
    return rejected(transform(dumps(valid_minimal())))


BYTES: list[tuple[str, Callable[[bytes], bytes], str]] = [
    ("TOP-1-invalid-utf8", lambda d: d.replace(b"Locate alpha", b"Locate \xffalpha", 1), "byte "),
    ("TOP-2-bom", lambda d: b"\xef\xbb\xbf" + d, "byte 0"),
    ("TOP-3-truncated", lambda d: d[:-3], "byte "),
    ("TOP-4-nan", lambda d: d.replace(b'"maxItems": 2', b'"maxItems": NaN', 1), "byte "),
    ("TOP-5-trailing-garbage", lambda d: d + b"x", "byte "),
    (
        "TOP-6-duplicate-protocol",
        lambda d: d.replace(b'"protocol": ', b'"protocol": "x", "protocol": ', 1),
        "/protocol",
    ),
    (
        "TOP-6-escaped-duplicate",
        lambda d: d.replace(b'"protocol": ', b'"protocol": "x", "\\u0070rotocol": ', 1),
        "/protocol",
    ),
    ("TOP-7-1e400", lambda d: d.replace(b'"maxItems": 2', b'"maxItems": 1e400', 1), "/cases/0/maxItems"),
    ("TOP-8-float", lambda d: d.replace(b'"maxItems": 2', b'"maxItems": 2.0', 1), "/cases/0/maxItems"),
    ("TOP-9-unsafe", lambda d: d.replace(b'"maxItems": 2', b'"maxItems": 9007199254740993', 1), "/cases/0/maxItems"),
    (
        "TOP-9-4301-digits-reports-overflow-first",
        lambda d: d.replace(b'"maxItems": 2', b'"maxItems": ' + b"1" * 4301, 1),
        "/cases/0/maxItems",
    ),
    ("TOP-10-lone-surrogate", lambda d: d.replace(b"Locate alpha", b"Locate \\ud800alpha", 1), "/cases/0/question"),
    (
        "TOP-11-deep",
        lambda d: d.replace(b'"maxItems": 2', b'"maxItems": ' + b"[" * 300 + b"]" * 300, 1),
        "/cases/0/maxItems" + "/0" * 253 + ":",
    ),
    ("TOP-13-top-level-array", lambda d: b"[" + d + b"]", '""'),
]


@pytest.mark.parametrize(("transform", "where"), [b[1:] for b in BYTES], ids=[b[0] for b in BYTES])
def test_file_rule(transform: Callable[[bytes], bytes], where: str, request: pytest.FixtureRequest) -> None:
    name = request.node.callspec.id
    rule = "-".join(name.split("-")[:2])
    if name.startswith("TOP-9-4301"):
        rule = "TOP-7"  # the value breaks TOP-7 and TOP-9; the lowest rule is named (SPEC §2.4)
    error = _bytes_case(transform)
    assert error.rule == rule, str(error)
    assert str(error).startswith(f"{rule} at {where}"), str(error)


def test_TOP_6_names_the_byte_offset_of_the_second_member() -> None:
    data = dumps(valid_minimal()).replace(b'"protocol": ', b'"protocol": "x", "protocol": ', 1)
    error = rejected(data)
    offset = data.index(b'"protocol"', data.index(b'"protocol"') + 1)
    assert (
        str(error) == "TOP-6 at /protocol: expected member names pairwise distinct; "
        f"found a second member 'protocol' at byte {offset}"
    )


def test_TOP_12_scope_source_list_text_rejects_with_inner_pointer() -> None:
    """SL-4/TOP-12: a strictness violation inside a source-list text rejects, located outer -> inner."""
    obj = valid_minimal()
    raw = repo0(obj)["sourceListArtifact"]["rawJson"]
    repo0(obj)["sourceListArtifact"]["rawJson"] = raw.replace('"ok": true', '"ok": true, "ok": true')
    rehash_input(obj)
    error = rejected(dumps(obj))
    assert error.rule == "TOP-6"
    assert error.where == "/repositories/0/sourceListArtifact/rawJson -> /ok"


def test_TOP_12_scope_bundle_violations_never_reject() -> None:
    """Inside /cases/{c}/structuralEvidence a strictness violation is SB-0, not a rejection."""
    data = dumps(valid_minimal())
    at = data.index(b'"structuralEvidence": {') + len(b'"structuralEvidence": {')
    data = data[:at] + b'"x": 1.5, "x": 2, ' + data[at:]
    experiment = validate_experiment(data)
    failure = experiment.cases[0].structural_failure
    assert failure is not None
    assert failure.startswith("structural_evidence_validation_failed:SB-0 TOP-8 at /cases/0/structuralEvidence/x")
    assert all(c.structural_failure is None for c in experiment.cases[1:])


# ---------------------------------------------------------------- TOP-5: JSON whitespace only


TRAILING = ["\f", "\u00a0", "\v", "\u2028", "\u3000", "\x85", "\ufeff"]


@pytest.mark.parametrize("tail", TRAILING, ids=[f"U+{ord(t):04X}" for t in TRAILING])
def test_TOP_5_trailing_non_json_whitespace(tail: str) -> None:
    for text in ("{}" + tail, "{} \n" + tail, "[1]\t" + tail):
        for parse in (parse_text, _scan):
            with pytest.raises(JsonGrammarError) as info:
                parse(text)
            assert (info.value.rule, info.value.offset) == ("TOP-5", text.index(tail)), (parse, text)


@pytest.mark.parametrize("tail", ["\f", "\u00a0"], ids=["form-feed", "no-break-space"])
def test_TOP_5_trailing_form_feed_or_nbsp_in_the_file(tail: str) -> None:
    data = dumps(valid_minimal())
    error = rejected(data + tail.encode())
    assert error.rule == "TOP-5", str(error)
    assert str(error).startswith(f"TOP-5 at byte {len(data)}"), str(error)


def test_TOP_5_json_whitespace_is_allowed_after_the_value() -> None:
    for parse in (parse_text, _scan):
        assert parse("{} \t\r\n ").value == {}


def test_TOP_5_leading_form_feed_is_TOP_3() -> None:
    with pytest.raises(JsonGrammarError) as info:
        parse_text("\f{}")
    assert (info.value.rule, info.value.offset) == ("TOP-3", 0)


# ---------------------------------------------------------------- both parsers: the fast path and the scanner of record

#: ``parse_text`` decodes with hooks that give up (and fall back to the scanner of record) on anything the
#: profile may reject; ``_scan`` decides. A hook that accepts too much would make ``parse_text`` accept
#: what ``_scan`` rejects, so every value below goes through both (SPEC §2.3, §2.4).
Parser = Callable[[str], ParsedText]
PARSERS: list[Parser] = [parse_text, _scan]


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
def test_grammar_errors_are_located_and_worded(
    parse: Parser, text: str, rule: str, offset: int, expected: str, found: str
) -> None:
    with pytest.raises(JsonGrammarError) as caught:
        parse(text)
    error = caught.value
    assert (error.rule, error.offset, error.expected, error.found) == (rule, offset, expected, found)


def violations(parse: Parser, text: str) -> list[tuple[object, ...]]:
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
def test_TOP_10_surrogate_pairs_at_their_boundaries(parse: Parser, text: str, value: str, found: list[object]) -> None:
    assert parse(text).value == value
    assert violations(parse, text) == found


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
def test_TOP_10_a_lone_surrogate_is_kept_as_U_FFFD_in_values_and_names(parse: Parser) -> None:
    assert parse('["\\udc00x"]').value == ["\ufffdx"]
    assert violations(parse, '["\\udc00x"]') == [("TOP-10", (0,), 2, "no lone surrogate", "\\udc00")]
    assert parse('{"\\ud800": 1}').value == {"\ufffd": 1}
    assert violations(parse, '{"\\ud800": 1}') == [("TOP-10", ("\ufffd",), 2, "no lone surrogate", "\\ud800")]


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
def test_TOP_9_a_literal_of_40_characters_is_shown_whole_and_41_cut(parse: Parser) -> None:
    forty, forty_one = "1" + "0" * 39, "1" + "0" * 40
    expected = "an integer n with |n| <= 9007199254740991"
    assert parse(f"[{forty}]").value == [INVALID_NUMBER]
    assert violations(parse, f"[{forty}]") == [("TOP-9", (0,), 1, expected, forty)]
    assert violations(parse, f"[{forty_one}]") == [("TOP-9", (0,), 1, expected, forty_one[:20] + "… (41 characters)")]


DEEP = "nesting depth <= 256"


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
@pytest.mark.parametrize("inner", ["[],[]", "[1],[1]"], ids=["empty", "filled"])
def test_TOP_11_once_per_branch_children_of_the_too_deep_container_are_not_reported(parse: Parser, inner: str) -> None:
    text = "[" * 257 + inner + "]" * 257
    assert violations(parse, text) == [("TOP-11", (0,) * 256, 256, DEEP, "depth 257")]


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
@pytest.mark.parametrize(("leaf", "second"), [("[]", 769), ("[1]", 770)], ids=["empty", "filled"])
def test_TOP_11_a_second_branch_is_reported_again(parse: Parser, leaf: str, second: int) -> None:
    branch = "[" * 255 + leaf + "]" * 255
    assert violations(parse, "[" + branch + "," + branch + "]") == [
        ("TOP-11", (0,) * 256, 256, DEEP, "depth 257"),
        ("TOP-11", (1,) + (0,) * 255, second, DEEP, "depth 257"),
    ]


def found(parse: Parser, text: str) -> list[tuple[str, str, int]]:
    return [(v.rule, v.pointer, v.offset) for v in parse(text).violations]


INTEGERS = [
    ("9" * 15, True),
    ("-" + "9" * 15, True),
    ("1" + "0" * 15, True),
    (str(MAX_SAFE_INTEGER), True),
    (str(-MAX_SAFE_INTEGER), True),
    (str(MAX_SAFE_INTEGER + 1), False),
    (str(-MAX_SAFE_INTEGER - 1), False),
    ("9" * 17, False),
    ("-" + "9" * 16, False),
    ("1" + "0" * 17, False),
    ("-" + "1" + "0" * 17, False),
    ("0", True),
    ("-0", True),
    ("8" * 16, True),
    ("-" + "8" * 16, True),
    ("9" * 16, False),
]


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
@pytest.mark.parametrize(("literal", "safe"), INTEGERS, ids=[i[0][:20] + f"-{len(i[0])}" for i in INTEGERS])
def test_TOP_9_safe_integer_bound_on_both_paths(parse: Parser, literal: str, safe: bool) -> None:
    text = '{"n": [1, ' + literal + "]}"
    if safe:
        assert found(parse, text) == []
        assert parse(text).value == {"n": [1, int(literal)]}
    else:
        assert found(parse, text) == [("TOP-9", "/n/1", 10)]


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
@pytest.mark.parametrize(
    ("literal", "rule"),
    [
        ("1.5", "TOP-8"),
        ("1e2", "TOP-8"),
        ("1E+2", "TOP-8"),
        ("-0.0", "TOP-8"),
        ("1e309", "TOP-7"),
        ("-1e309", "TOP-7"),
        ("1.7976931348623157e308", "TOP-8"),
        ("1" * 400, "TOP-7"),
    ],
    ids=[
        "fraction",
        "exponent",
        "exponent-upper",
        "negative-zero",
        "overflow",
        "negative-overflow",
        "max-double",
        "400-digits",
    ],
)
def test_TOP_7_TOP_8_on_both_paths(parse: Parser, literal: str, rule: str) -> None:
    assert found(parse, "[0, " + literal + "]") == [(rule, "/1", 4)]


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
@pytest.mark.parametrize("word", ["NaN", "Infinity", "-Infinity"])
def test_TOP_4_on_both_paths(parse: Parser, word: str) -> None:
    with pytest.raises(JsonGrammarError) as info:
        parse('{"a": ' + word + "}")
    assert (info.value.rule, info.value.offset) == ("TOP-4", 6)


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
def test_TOP_6_on_both_paths(parse: Parser) -> None:
    assert found(parse, '{"a": {"b": 1, "c": 2, "b": 3}}') == [("TOP-6", "/a/b", 23)]
    assert found(parse, '{"a": {"b": 1, "B": 2}}') == []


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
def test_TOP_10_on_both_paths(parse: Parser) -> None:
    assert found(parse, '["\\udbff\\udfff", "\\udfff"]') == [("TOP-10", "/1", 18)]
    assert parse('["\\ud83d\\ude00"]').value == ["\U0001f600"]


@pytest.mark.parametrize("parse", PARSERS, ids=["parse_text", "scan"])
@pytest.mark.parametrize(("open_", "close"), [("[", "]"), ('{"a":', "}")], ids=["arrays", "objects"])
def test_TOP_11_depth_256_accepted_257_rejected_on_both_paths(parse: Parser, open_: str, close: str) -> None:
    assert found(parse, open_ * 256 + "0" + close * 256) == []
    assert [v[0] for v in found(parse, open_ * 257 + "0" + close * 257)] == ["TOP-11"]


# ---------------------------------------------------------------- pointers and UTF-8 messages (values.py survivors)


@pytest.mark.parametrize(
    ("key", "expected"),
    [("b/c~d", "/a/b~1c~0d"), ("~1", "/a/~01"), ("//", "/a/~1~1"), (3, "/a/3"), ("", "/a/")],
    ids=["slash-and-tilde", "tilde-before-one", "two-slashes", "index", "empty-name"],
)
def test_pointer_segments_escape_tilde_then_slash(key: str | int, expected: str) -> None:
    assert child("/a", key) == expected


@pytest.mark.parametrize(
    ("data", "offset", "found"),
    [(b'"\xe2\x82A"', 1, "bytes E2 82"), (b"\xff", 0, "bytes FF"), (b'["\xf0\x9f\x98"]', 2, "bytes F0 9F 98")],
    ids=["truncated-three-byte", "invalid-start", "truncated-four-byte"],
)
def test_top1_names_the_offset_and_the_ill_formed_bytes(data: bytes, offset: int, found: str) -> None:
    with pytest.raises(Utf8Error) as caught:
        decode_utf8(data)
    assert (caught.value.offset, caught.value.found) == (offset, found)


# ---------------------------------------------------------------- TOP rules inside the source-list text (TOP-12)

RAW_JSON = "/repositories/0/sourceListArtifact/rawJson"


def test_TOP_8_inside_raw_json_is_located_without_a_character_offset() -> None:
    obj = valid_minimal()

    def change(payload: dict[str, Any]) -> None:
        payload["page"] = 1.5

    with_payload(change)(obj)
    assert str(rejected(dumps(obj))) == (
        f"TOP-8 at {RAW_JSON} -> /page: expected an integer literal (no fraction, no exponent); found 1.5"
    )


def test_TOP_8_at_the_root_of_raw_json_is_located_at_the_empty_pointer() -> None:
    obj = valid_minimal()
    repo0(obj)["sourceListArtifact"]["rawJson"] = "1.5"
    rehash_input(obj)
    assert str(rejected(dumps(obj))) == (
        f'TOP-8 at {RAW_JSON} -> "": expected an integer literal (no fraction, no exponent); found 1.5'
    )


def _inputs() -> Iterator[tuple[str, bytes]]:
    """Every row's input: the mutations, then the byte-level edits of :data:`BYTES`."""
    yield from reject_inputs(MUTATIONS)
    for name, transform, _ in BYTES:
        yield name, transform(dumps(valid_minimal()))


# ---------------------------------------------------------------- whole messages (tests/rules/messages/top.json)

MESSAGES = Snapshot("top")


@pytest.mark.parametrize(("name", "data"), list(_inputs()), ids=ids)
def test_reject_messages(name: str, data: bytes) -> None:
    MESSAGES.check(name, reject_messages(data))


def test_zz_snapshot_covers_every_row() -> None:
    """Runs last: writes the file in write mode, else checks that it holds exactly this family's rows."""
    MESSAGES.finish(name for name, _ in _inputs())
