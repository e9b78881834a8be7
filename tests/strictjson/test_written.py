"""Pins found by mutation testing of the written-file profile and the fast path it shares (issue 14).

``parse_written`` reads results files and ``identity.json`` back. Its own
checks (number sizes, duplicate members and how they are shown) and the
helpers it borrows from :mod:`ablation.strictjson.fast` (the recursion budget,
the nesting walk of the fallback path, the lone-surrogate check) are pinned
here at their boundaries, with the exact message each refusal gives.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ablation.strictjson import MAX_DEPTH, WrittenJsonError, fast, parse_written


def refusal(text: str) -> tuple[str, str]:
    with pytest.raises(WrittenJsonError) as caught:
        parse_written(text)
    return caught.value.kind, str(caught.value)


# ---------------------------------------------------------------- numbers


def test_a_too_large_number_of_40_characters_is_shown_whole() -> None:
    literal = "1" + "0" * 35 + "e999"
    assert len(literal) == 40
    assert refusal(f"[{literal}]") == ("unwritten", f"the number {literal}, too large for a double")


def test_a_too_large_number_of_41_characters_is_cut_to_39_and_an_ellipsis() -> None:
    literal = "1" + "0" * 36 + "e999"
    assert len(literal) == 41
    assert refusal(f"[{literal}]") == ("unwritten", f"the number {literal[:39]}…, too large for a double")


def test_an_integer_of_309_digits_is_read_and_310_refused() -> None:
    assert parse_written("[" + "9" * 309 + "]") == [int("9" * 309)]
    assert parse_written("[-" + "9" * 309 + "]") == [-int("9" * 309)]
    assert refusal("[-" + "9" * 310 + "]") == ("unwritten", "an integer of 310 digits, beyond any double")


# ---------------------------------------------------------------- duplicate members


def test_the_duplicated_member_is_named_not_the_first_one() -> None:
    assert refusal('{"a": 1, "b": 2, "b": 3}') == ("unwritten", 'an object with the member "b" twice')


def test_a_duplicated_member_is_shown_as_written_not_escaped() -> None:
    assert refusal('{"é": 1, "é": 2}') == ("unwritten", 'an object with the member "é" twice')


def test_a_duplicated_member_name_is_shown_whole_up_to_80_characters_with_quotes() -> None:
    name = "n" * 78
    assert refusal(f'{{"{name}": 1, "{name}": 2}}') == ("unwritten", f'an object with the member "{name}" twice')


def test_a_longer_duplicated_member_name_is_cut_to_79_characters_and_an_ellipsis() -> None:
    name = "n" * 79
    shown = ('"' + name + '"')[:79] + "…"
    assert refusal(f'{{"{name}": 1, "{name}": 2}}') == ("unwritten", f"an object with the member {shown} twice")


# ---------------------------------------------------------------- nesting beyond the recursion budget

_TOO_DEEP = ("shape", f"containers nested deeper than {MAX_DEPTH} levels; ablation never writes that")


def _objects(depth: int, inner: str = "1") -> str:
    return '{"k": ' * depth + inner + "}" * depth


def _object_depth(value: object) -> int:
    depth = 0
    while isinstance(value, dict):
        depth += 1
        value = value["k"]
    return depth


def test_the_budget_bounds_nesting_on_the_sealed_interpreter() -> None:
    """On CPython 3.11 the C scanner spends recursion budget per container: nesting is bounded for free."""
    assert fast._budget_bounds_nesting() is True
    assert fast._DEPTH_BUDGET < MAX_DEPTH


@pytest.mark.parametrize("root", ["object", "array"])
def test_objects_nested_to_the_limit_are_read_past_the_budget(root: str) -> None:
    """Deeper than the budget, so the value is decoded again and walked: objects must be descended too."""
    text = _objects(MAX_DEPTH) if root == "object" else "[" + _objects(MAX_DEPTH - 1) + "]"
    value = parse_written(text)
    if root == "array":
        assert isinstance(value, list)
        value = value[0]
    assert _object_depth(value) == (MAX_DEPTH if root == "object" else MAX_DEPTH - 1)


@pytest.mark.parametrize("root", ["object", "array"])
def test_objects_nested_one_past_the_limit_are_refused(root: str) -> None:
    text = _objects(MAX_DEPTH + 1) if root == "object" else "[" + _objects(MAX_DEPTH) + "]"
    assert refusal(text) == _TOO_DEEP


def test_scalars_at_the_deepest_level_are_not_walked_into() -> None:
    text = "[" * MAX_DEPTH + '"deep", 7' + "]" * MAX_DEPTH
    value = parse_written(text)
    for _ in range(MAX_DEPTH - 1):
        assert isinstance(value, list)
        value = value[0]
    assert value == ["deep", 7]


def _at_stack_depth(frames: int, text: str) -> tuple[str, str] | None:
    if frames > 0:
        return _at_stack_depth(frames - 1, text)
    try:
        parse_written(text)
    except WrittenJsonError as exc:
        return exc.kind, str(exc)
    return None


@pytest.mark.parametrize("frames", [0, 150, 400])
def test_the_budget_is_counted_from_the_callers_real_stack_depth(frames: int) -> None:
    """The budget is the frames in use plus 200 units: counted wrongly, a deep caller would lift the bound."""
    assert _at_stack_depth(frames, _objects(MAX_DEPTH + 1)) == _TOO_DEEP
    assert _at_stack_depth(frames, "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)) == _TOO_DEEP


# ---------------------------------------------------------------- surrogates


def test_an_escaped_surrogate_pair_is_a_character_not_a_lone_surrogate() -> None:
    assert parse_written('["\\ud83d\\ude00", "\\uD83D\\uDE00"]') == ["😀", "😀"]


def test_a_lone_surrogate_escape_is_refused() -> None:
    assert refusal('["\\ud83d"]') == ("shape", "a string holds a lone surrogate escape, which UTF-8 cannot hold")


def test_hooked_decoder_hands_each_kind_of_literal_to_its_hook() -> None:
    """Both profiles' decoders are built by hooked_decoder at import: each hook must get its own literals."""
    seen: list[tuple[str, object]] = []

    def hook(kind: str) -> Callable[[object], object]:
        def record(value: object) -> object:
            seen.append((kind, value))
            return (kind, value)

        return record

    decoder = fast.hooked_decoder(hook("pairs"), hook("float"), hook("int"), hook("constant"))
    value = decoder.decode('{"a": 1.5, "b": 2, "c": NaN}')
    assert value == ("pairs", [("a", ("float", "1.5")), ("b", ("int", "2")), ("c", ("constant", "NaN"))])
    assert [kind for kind, _ in seen] == ["float", "int", "constant", "pairs"]
