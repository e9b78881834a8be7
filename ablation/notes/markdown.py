r"""Inert Markdown for the review notes: every string from a results file, a bundle or a flag.

Prose and table cells escape Markdown and HTML (:func:`_text`), code spans use a
fence longer than any backtick run inside (:func:`_code`), and characters a
reader cannot see, or that reorder or break the text around them, are shown
escaped (:func:`_visible`; issue 22 item 6):

- C0 controls (U+0000–U+001F) and DEL as their Unicode control pictures
  (``␊`` for a line feed, ``␛``, ``␡``);
- as ``\uXXXX`` (or ``\UXXXXXXXX`` above U+FFFF), lowercase hex, every other
  character of the general categories Cc (C1 controls), Cf (format: zero-width
  spaces and joiners, U+00AD, U+FEFF, the bidirectional controls U+061C,
  U+200E/F, U+202A–U+202E, U+2066–U+2069, the tag characters U+E0000–U+E007F),
  Cs, Co (private use), Cn (unassigned in this Python's Unicode database), Zl
  and Zp (U+2028, U+2029), and Zs other than U+0020 (no-break and other
  spaces); and every Default_Ignorable_Code_Point outside those categories
  (:data:`_IGNORABLE`: the variation selectors, Hangul fillers, U+034F, …).

A backslash in a value is shown as it is, so ``\u200b`` in the notes may also
be those six characters in the value: the results file is the authority.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence

from ablation.canonical import js_number

_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]*")


_NONE = "—"


# Every string that comes from a results file, a bundle or a flag is rendered inert (issue 11 item 5):
# prose and table cells escape Markdown and HTML (:func:`_text`), code spans use a
# fence longer than any backtick run inside (:func:`_code`), and control or
# bidirectional-formatting characters are replaced by visible stand-ins (:func:`_visible`).
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}


# Escaped only where they could start a construct: "_" unless between letters or digits (CommonMark
# never reads an intraword "_" as emphasis), ":" in "://" (an autolink), "." after "www" (GFM's www autolink).
_ESCAPED = re.compile(r"[\\`*\[\]{}#!|~$@]|(?<![^\W_])_|_(?![^\W_])|:(?=//)|(?<=[Ww]{3})\.|[&<>\"]")


_C0 = re.compile("[\x00-\x1f\x7f]")
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})
# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties) outside the categories above: combining
# grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian and other variation selectors.
_IGNORABLE = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)


_BACKTICKS = re.compile(r"`+")


_ASCII_SPACE = re.compile(r"[ \t\n\r\f\v]+")  # collapsed in prose; other spaces are shown escaped


_PIPE = re.compile(r"(\\*)\|")


def escaped(c: str) -> bool:
    r"""Whether :func:`_visible` shows the character ``c`` as an escape (C0 and DEL excluded: they get pictures).

    >>> [escaped(c) for c in ("a", " ", "\u00a0", "\u200b", "\u202e", "\U000e0041", "\ufe0f", "é")]
    [False, False, True, True, True, True, True, False]
    """
    if c == " ":
        return False
    if unicodedata.category(c) in _ESCAPED_CATEGORIES:
        return True
    code = ord(c)
    return any(low <= code <= high for low, high in _IGNORABLE)


def _escape_one(c: str) -> str:
    code = ord(c)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _visible(text: str) -> str:
    r"""``text`` with what a reader cannot see, or what would reorder or break it, shown (module docstring):
    nothing in a value can break a line, a table row or the reading order of the text around it.

    >>> _visible("a\nb\x1b[0m\u202e")
    'a␊b␛[0m\\u202e'
    >>> _visible("repo\u200b\U000e0041\u00a0x")
    'repo\\u200b\\U000e0041\\u00a0x'
    """
    if text.isascii():
        return _C0.sub(lambda m: _escape_one(m.group()), text)
    return "".join(_escape_one(c) if c < " " or c == "\x7f" or escaped(c) else c for c in text)


def _escape(text: str) -> str:
    r"""Markdown and HTML made literal: entities for ``& < > "``, a backslash before Markdown punctuation.

    >>> _escape('**x** <img src=x> [a](https://e.invalid/) `c` # _y_ a&b')
    '\\*\\*x\\*\\* &lt;img src=x&gt; \\[a\\](https\\://e.invalid/) \\`c\\` \\# \\_y\\_ a&amp;b'
    """
    return _ESCAPED.sub(lambda m: _HTML.get(m.group()) or "\\" + m.group(), text)


def _pipes_escaped(text: str) -> str:
    r"""``|`` escaped for a GFM table cell inside a code span: an odd number of backslashes before it.

    GFM splits a row at every pipe not escaped by a backslash, code spans
    included, and then removes that one backslash.

    >>> _pipes_escaped("a|b"), _pipes_escaped("a\\|b")
    ('a\\|b', 'a\\\\\\|b')
    """
    return _PIPE.sub(lambda m: m.group(1) + ("\\" if len(m.group(1)) % 2 == 0 else "\\\\") + "|", text)


def _code(value: object, *, cell: bool = True) -> str:
    """A value as one inline code span that nothing inside can close or break.

    Strings as they are (control characters made visible), anything else in
    its JSON spelling. The fence is one backtick longer than the longest run
    inside; content that starts or ends with a backtick is padded with a
    space (CommonMark strips one). ``cell``: the span is in a table cell, so
    pipes are escaped (:func:`_pipes_escaped`). An empty string is ``(empty)``.

    >>> _code("sha256:ab"), _code("a`b"), _code("`x``"), _code(None), _code("")
    ('`sha256:ab`', '``a`b``', '``` `x`` ```', '`null`', '(empty)')
    """
    text = _visible(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if text == "":
        return "(empty)"
    if cell:
        text = _pipes_escaped(text)
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(text)), default=0) + 1)
    padded = text[0] == "`" or text[-1] == "`" or (text[0] == " " and text[-1] == " " and text.strip(" ") != "")
    pad = " " if padded else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _name(value: object, *, cell: bool = True) -> str:
    """An id or other string as inline code; anything unusual is shown as a JSON string.

    >>> _name("dspx"), _name("a b|c"), _name("x`y")
    ('`dspx`', '`"a b\\\\|c"`', '``"x`y"``')
    """
    if isinstance(value, str) and _PLAIN.fullmatch(value):
        return f"`{value}`"
    return _code(json.dumps(value, ensure_ascii=False), cell=cell)


def _text(value: object) -> str:
    """Free text for prose or a table cell: whitespace collapsed, Markdown and HTML escaped.

    Other values are shown as :func:`_value`.

    >>> _text("a\\n\\n<b>  *c*|d")
    'a &lt;b&gt; \\\\*c\\\\*\\\\|d'
    """
    if not isinstance(value, str):
        return _value(value)
    return _escape(_visible(" ".join(_ASCII_SPACE.split(value)).strip(" ")))


def _value(value: object) -> str:
    """A recorded value for the text: strings as :func:`_text`, anything else in its JSON spelling.

    >>> _value(None), _value(True), _value(3), _value(0.5), _value("a  b"), _value([1, None])
    ('null', 'true', '3', '0.5', 'a b', '\\\\[1, null\\\\]')
    """
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, float):
        return js_number(value)
    if isinstance(value, dict | list):
        return _text(json.dumps(value, ensure_ascii=False))
    return json.dumps(value)


def _repositories_text(n: int) -> str:
    """``1 repository`` / ``2 repositories``."""
    return f"{n} repository" if n == 1 else f"{n} repositories"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines
