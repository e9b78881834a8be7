"""The written-file JSON profile (``strictjson.parse_written``) that reads results files and identity.json back."""

from __future__ import annotations

import pytest

from ablation.errors import IntegrityError, UsageError
from ablation.results_file import parse_json_file
from ablation.strictjson import MAX_DEPTH, WrittenJsonError, parse_written


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_finite_doubles_and_integers_are_what_ablation_writes() -> None:
    assert parse_written('{"a": 0.12500000000000006, "b": 1e21, "c": -3, "d": [true, null, "x"]}') == {
        "a": 0.12500000000000006, "b": 1e21, "c": -3, "d": [True, None, "x"],
    }  # fmt: skip


@pytest.mark.parametrize("depth", [MAX_DEPTH - 1, MAX_DEPTH])
def test_nesting_up_to_the_limit_is_accepted(depth: int) -> None:
    value = parse_written(_nested(depth))
    for _ in range(depth - 1):
        assert isinstance(value, list)
        value = value[0]
    assert value == []


@pytest.mark.parametrize(
    ("text", "kind", "message"),
    [
        (_nested(MAX_DEPTH + 1), "shape", "containers nested deeper than 256 levels; ablation never writes that"),
        (_nested(100_000), "shape", "containers nested deeper than 256 levels; ablation never writes that"),
        ("[NaN]", "unwritten", "NaN, which is not JSON"),
        ("[-Infinity]", "unwritten", "-Infinity, which is not JSON"),
        ("[1e400]", "unwritten", "the number 1e400, too large for a double"),
        ("[" + "9" * 310 + "]", "unwritten", "an integer of 310 digits, beyond any double"),
        ('{"a": 1, "a": 2}', "unwritten", 'an object with the member "a" twice'),
        ('["\\udc00"]', "shape", "a string holds a lone surrogate escape, which UTF-8 cannot hold"),
        ("[1,]", "grammar", "Expecting value: line 1 column 4 (char 3)"),
    ],
    ids=["257-deep", "100000-deep", "nan", "infinity", "1e400", "310-digits", "duplicate", "surrogate", "grammar"],
)
def test_what_ablation_never_writes_is_refused(text: str, kind: str, message: str) -> None:
    with pytest.raises(WrittenJsonError) as caught:
        parse_written(text)
    assert caught.value.kind == kind
    assert str(caught.value) == message


def test_parse_json_file_names_the_file_and_picks_the_error() -> None:
    with pytest.raises(UsageError, match=r"^results file 'r\.json': holds NaN, which is not JSON; ablation never"):
        parse_json_file(b"[NaN]", "results file 'r.json'", UsageError)
    with pytest.raises(IntegrityError, match=r"^b/identity\.json: not JSON \(Expecting value"):
        parse_json_file(b"[1,]", "b/identity.json")
    with pytest.raises(IntegrityError, match=r"^b/identity\.json: not UTF-8 text \(byte 1\)$"):
        parse_json_file(b"[\xff]", "b/identity.json")
