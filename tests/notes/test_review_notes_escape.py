"""Issue 22 Why 6: invisible and bidirectional characters from the input never reach the notes raw.

End to end: a staleness ``method`` spelling "APPROVE" in zero-width spaces and
tag characters, with U+202E, shows escaped (``\\u200b``, ``\\U000e0041``,
``\\u202e``). Property: whatever the text, what the notes show of it holds no
character of the escaped classes (Cc, Cf, Cs, Co, Cn, Zl, Zp, Zs but the space,
Default_Ignorable_Code_Point) and no line break, and each such character is
there as its escape.
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ablation.notes.markdown import _code, _name, _text, _value, escaped
from tests.builders import prepared as builder
from tests.notes.review_notes_made import captured, run_input

HIDDEN = "repo" + "".join("\u200b" + chr(0xE0000 + ord(c)) for c in "APPROVE") + "\u202edone"


def _input_with_method(method: str) -> bytes:
    value = builder.valid_minimal()
    repository = value["repositories"][0]
    sample = repository["metadataStalenessSample"]
    repository["metadataStalenessSample"] = builder.staleness_sample(
        sample["commit"], sample["rawArtifactSha256"], sample["sampledPaths"], sample["stalePaths"], method
    )
    data: bytes = builder.dumps(value)
    return data


def _unsafe(text: str) -> list[str]:
    """The characters of ``text`` a reader could not see, or that reorder or break it."""
    return [c for c in text if c != "\n" and (c < " " or c == "\x7f" or escaped(c))]


def test_tag_characters_zero_width_spaces_and_bidi_controls_are_escaped(tmp_path: Path) -> None:
    """The issue's hidden method: escaped end to end."""
    results = run_input(tmp_path, _input_with_method(HIDDEN))
    code, out, err = captured("notes", "--results", results)
    assert (code, err) == (0, "")
    assert _unsafe(out) == []
    for raw in ("\u200b", "\u202e", *(chr(0xE0000 + ord(c)) for c in "APPROVE")):
        assert raw not in out
    (row,) = [line for line in out.splitlines() if line.startswith("| `repo` | 1 | 0 |")]
    shown = "repo" + "".join(f"\\\\u200b\\\\U000e00{ord(c):02x}" for c in "APPROVE") + "\\\\u202edone"
    assert f" | {shown} | " in row


@pytest.mark.parametrize(
    ("character", "category"),
    [
        ("\u0085", "Cc"),
        ("\u00ad", "Cf"),
        ("\u061c", "Cf"),
        ("\u200b", "Cf"),
        ("\u200d", "Cf"),
        ("\u2066", "Cf"),
        ("\ufeff", "Cf"),
        ("\U000e0001", "Cf"),
        ("\U000e007f", "Cf"),
        ("\ue000", "Co"),
        ("\U0010fffd", "Co"),
        ("\u0378", "Cn"),
        ("\u2028", "Zl"),
        ("\u2029", "Zp"),
        ("\u00a0", "Zs"),
        ("\u3000", "Zs"),
        ("\u202f", "Zs"),
        ("\u034f", "Mn"),
        ("\u115f", "Lo"),
        ("\u3164", "Lo"),
        ("\ufe0f", "Mn"),
        ("\U000e0100", "Mn"),
        ("\uffa0", "Lo"),
    ],
)
def test_each_class_is_escaped(character: str, category: str) -> None:
    """A character of each escaped class is shown as its escape."""
    assert unicodedata.category(character) == category
    assert escaped(character)
    code = ord(character)
    escape = f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    assert _code(f"a{character}b") == f"`a{escape}b`"


@pytest.mark.parametrize("character", [" ", "a", "é", "ß", "中", "\u0301", "😀", "-", "\u2013", "\u2192"])
def test_visible_text_is_left_alone(character: str) -> None:
    """Letters, marks, spaces and symbols stay as they are."""
    assert not escaped(character)


def test_every_code_point_of_the_classes_is_escaped() -> None:
    """The classes, checked over every code point."""
    for code in range(sys.maxunicode + 1):
        c = chr(code)
        category = unicodedata.category(c)
        wanted = (code > 0x20 and code != 0x7F and (category[0] == "C" or category in ("Zl", "Zp", "Zs"))) or (
            code in (0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0)
            or 0x180B <= code <= 0x180F
            or 0xFE00 <= code <= 0xFE0F
            or 0xE0100 <= code <= 0xE01EF
            or 0x1D173 <= code <= 0x1D17A
        )
        if code > 0x20 and code != 0x7F:
            assert escaped(c) == wanted, hex(code)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=40))
def test_no_unsafe_character_survives_any_renderer(text: str) -> None:
    """No renderer lets an unsafe character or a line break through."""
    for shown in (_text(text), _code(text), _code(text, cell=False), _name(text), _value(text)):
        assert _unsafe(shown) == [], (text, shown)
        assert "\n" not in shown and "\r" not in shown
    shown = _code(text)
    for c in text:
        if escaped(c) and c >= " " and c != "\x7f":  # C0 and DEL are shown as control pictures
            code = ord(c)
            assert (f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}") in shown
