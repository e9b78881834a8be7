"""The scanner of record: an iterative parser that locates every TOP-6 … TOP-11 violation.

It parses a text the fast path noticed trouble in (:mod:`ablation.strictjson.fast`)
and returns every strictness violation with its JSON Pointer segments and offset,
or raises :class:`~ablation.strictjson.values.JsonGrammarError` for the first
grammar violation (TOP-2 … TOP-5). No recursion, so no ``RecursionError``.
"""

from __future__ import annotations

import math
import re

from ablation.strictjson.values import (
    INVALID_NUMBER,
    MAX_DEPTH,
    MAX_SAFE_INTEGER,
    JsonGrammarError,
    ParsedText,
    Segment,
    Violation,
)

_WS = re.compile(r"[ \t\n\r]*")


_PLAIN = re.compile(r'[^"\\\x00-\x1f]*')


_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")


_HEX4 = re.compile(r"[0-9a-fA-F]{4}")


_LONE = re.compile("[\ud800-\udfff]")


_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _show(text: str, pos: int) -> str:
    if pos >= len(text):
        return "end of text"
    return repr(text[pos : pos + 12])


def _literal_shown(literal: str) -> str:
    if len(literal) <= 40:
        return literal
    return f"{literal[:20]}… ({len(literal)} characters)"


def _classify_number(literal: str, has_fraction_or_exponent: bool) -> tuple[str, str] | None:
    """Return (rule, expected) for a violating number literal, the lowest rule first."""
    if math.isinf(float(literal)):
        return "TOP-7", "a number that does not overflow an IEEE-754 double"
    if has_fraction_or_exponent:
        return "TOP-8", "an integer literal (no fraction, no exponent)"
    if len(literal) >= 16 and abs(int(literal)) > MAX_SAFE_INTEGER:
        return "TOP-9", "an integer n with |n| <= 9007199254740991"
    return None


class _Frame:
    __slots__ = ("container", "index", "is_object", "key", "names")

    def __init__(self, container: list[object] | dict[str, object], *, is_object: bool) -> None:
        self.container = container
        self.is_object = is_object
        self.key: str = ""
        self.names: set[str] = set()
        self.index = 0


def _scan_string(text: str, pos: int) -> tuple[str, int, list[tuple[int, int]]]:
    """Scan a string starting at the opening quote; return (value, end, lone surrogates).

    The value keeps lone surrogates as they are (so that two names differing
    only there stay different); they are returned as (offset, code point) for
    the caller to record TOP-10 and to replace by U+FFFD in what it keeps.
    """
    pos += 1
    parts: list[str] = []
    lone: list[tuple[int, int]] = []
    n = len(text)
    while True:
        m = _PLAIN.match(text, pos)
        assert m is not None
        parts.append(m.group())
        pos = m.end()
        if pos >= n:
            raise JsonGrammarError("TOP-3", pos, "a closing '\"'", "end of text")
        ch = text[pos]
        if ch == '"':
            return "".join(parts), pos + 1, lone
        if ch != "\\":
            raise JsonGrammarError("TOP-3", pos, "no unescaped control character in a string", f"U+{ord(ch):04X}")
        esc = text[pos + 1 : pos + 2]
        if esc in _ESCAPES:
            parts.append(_ESCAPES[esc])
            pos += 2
            continue
        if esc != "u" or _HEX4.fullmatch(text, pos + 2, pos + 6) is None:
            raise JsonGrammarError(
                "TOP-3", pos, 'a JSON escape (\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)', _show(text, pos)
            )
        cp = int(text[pos + 2 : pos + 6], 16)
        if 0xD800 <= cp <= 0xDBFF and text[pos + 6 : pos + 8] == "\\u" and _HEX4.fullmatch(text, pos + 8, pos + 12):
            low = int(text[pos + 8 : pos + 12], 16)
            if 0xDC00 <= low <= 0xDFFF:
                parts.append(chr(0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)))
                pos += 12
                continue
        if 0xD800 <= cp <= 0xDFFF:
            lone.append((pos, cp))
        parts.append(chr(cp))
        pos += 6


def _replace_lone(value: str) -> str:
    """U+FFFD in place of each lone surrogate (what values and pointers keep)."""
    return _LONE.sub("\ufffd", value)


class _Scanner:
    """The state of one scan: the text, the position, the open containers and the path to the current value."""

    __slots__ = ("n", "path", "pos", "root", "stack", "text", "too_deep_at", "violations")

    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)
        self.pos = 0
        self.violations: list[Violation] = []
        self.stack: list[_Frame] = []
        self.path: list[Segment] = []
        self.too_deep_at = 0  # depth at which TOP-11 was reported on the current branch (0: none)
        self.root: object = None

    def run(self) -> ParsedText:
        """Parse the whole text: one value after another until the top-level value is closed."""
        if self.text.startswith("\ufeff"):
            raise JsonGrammarError("TOP-2", 0, "no byte-order mark (U+FEFF) before the JSON text", "U+FEFF")
        self.pos = _WS.match(self.text, 0).end()  # type: ignore[union-attr]  # _WS matches the empty string: never None
        while True:
            if self._value():
                continue
            parsed = self._after_value()
            if parsed is not None:
                return parsed

    def _attach(self, value: object) -> None:
        if not self.stack:
            self.root = value
            return
        top = self.stack[-1]
        if top.is_object:
            top.container[top.key] = value  # type: ignore[call-overload]  # is_object: the container is a dict
        else:
            top.container.append(value)  # type: ignore[union-attr]  # not is_object: the container is a list

    def _value(self) -> bool:
        """Parse one value at ``pos``; whether it opened a container that has a first element to parse."""
        text, pos = self.text, self.pos
        if pos >= self.n:
            raise JsonGrammarError("TOP-3", pos, "a JSON value", "end of text")
        ch = text[pos]
        if ch in "[{":
            return self._open(ch)
        if ch == '"':
            value, end, lone = _scan_string(text, pos)
            for offset, cp in lone:
                self.violations.append(
                    Violation("TOP-10", tuple(self.path), offset, "no lone surrogate", f"\\u{cp:04x}")
                )
            self._attach(_replace_lone(value) if lone else value)
            self.pos = end
        elif ch == "-" or "0" <= ch <= "9":
            self._number()
        else:
            self._word(ch)
        return False

    def _open(self, ch: str) -> bool:
        """An object or array opened at ``pos`` (TOP-11 once per branch); whether it has a first element."""
        text = self.text
        container: list[object] | dict[str, object] = {} if ch == "{" else []
        self._attach(container)
        depth = len(self.stack) + 1
        if depth > MAX_DEPTH and not self.too_deep_at:
            self.too_deep_at = depth
            self.violations.append(
                Violation("TOP-11", tuple(self.path), self.pos, "nesting depth <= 256", f"depth {depth}")
            )
        frame = _Frame(container, is_object=ch == "{")
        self.stack.append(frame)
        pos = _WS.match(text, self.pos + 1).end()  # type: ignore[union-attr]  # _WS matches the empty string: never None
        if text.startswith("}" if frame.is_object else "]", pos):
            self.pos = pos + 1
            self.stack.pop()
            if self.too_deep_at > len(self.stack):
                self.too_deep_at = 0
            return False
        if frame.is_object:
            self.pos = _member_name(text, pos, frame, self.path, self.violations)
        else:
            self.path.append(0)
            self.pos = pos
        return True

    def _number(self) -> None:
        """A number at ``pos``: an int, or INVALID_NUMBER with its TOP-7/8/9 violation."""
        text, pos = self.text, self.pos
        m = _NUMBER.match(text, pos)
        if m is None:
            if text.startswith("-Infinity", pos):
                raise JsonGrammarError("TOP-4", pos, "a JSON value (-Infinity is not JSON)", "'-Infinity'")
            raise JsonGrammarError("TOP-3", pos, "a JSON number", _show(text, pos))
        literal = m.group()
        bad = _classify_number(literal, m.group(1) is not None or m.group(2) is not None)
        if bad is None:
            self._attach(int(literal))
        else:
            self.violations.append(Violation(bad[0], tuple(self.path), pos, bad[1], _literal_shown(literal)))
            self._attach(INVALID_NUMBER)
        self.pos = m.end()

    def _word(self, ch: str) -> None:
        """``true``, ``false`` or ``null`` at ``pos``; anything else is TOP-4 (NaN, Infinity) or TOP-3."""
        text, pos = self.text, self.pos
        if text.startswith("true", pos):
            self._attach(True)
            self.pos = pos + 4
        elif text.startswith("false", pos):
            self._attach(False)
            self.pos = pos + 5
        elif text.startswith("null", pos):
            self._attach(None)
            self.pos = pos + 4
        elif text.startswith("NaN", pos) or text.startswith("Infinity", pos):
            word = "NaN" if ch == "N" else "Infinity"
            raise JsonGrammarError("TOP-4", pos, f"a JSON value ({word} is not JSON)", repr(word))
        else:
            raise JsonGrammarError("TOP-3", pos, "a JSON value", _show(text, pos))

    def _after_value(self) -> ParsedText | None:
        """Close containers or move to the next element; the result once the top-level value is closed."""
        text, n, stack, path = self.text, self.n, self.stack, self.path
        pos = self.pos
        while True:
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]  # _WS matches the empty string: never None
            if not stack:
                if pos != n:
                    raise JsonGrammarError("TOP-5", pos, "only whitespace after the top-level value", _show(text, pos))
                return ParsedText(self.root, tuple(self.violations))
            frame = stack[-1]
            close = "}" if frame.is_object else "]"
            if pos < n and text[pos] == ",":
                pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]  # _WS matches the empty string: never None
                if frame.is_object:
                    path.pop()
                    pos = _member_name(text, pos, frame, path, self.violations)
                else:
                    frame.index += 1
                    path[-1] = frame.index
                self.pos = pos
                return None
            if pos < n and text[pos] == close:
                pos += 1
                stack.pop()
                path.pop()
                if self.too_deep_at > len(stack):
                    self.too_deep_at = 0
                continue
            raise JsonGrammarError("TOP-3", pos, f"',' or '{close}'", _show(text, pos))


def _scan(text: str) -> ParsedText:
    """The scanner of record: iterative recursive descent with pointer tracking."""
    return _Scanner(text).run()


def _member_name(text: str, pos: int, frame: _Frame, path: list[Segment], violations: list[Violation]) -> int:
    """Parse ``"name" :`` at pos; record TOP-6/TOP-10 for it; push its path segment."""
    if not text.startswith('"', pos):
        raise JsonGrammarError("TOP-3", pos, "a member name string", _show(text, pos))
    exact, end, lone = _scan_string(text, pos)
    name = _replace_lone(exact) if lone else exact
    path.append(name)
    for offset, cp in lone:
        violations.append(Violation("TOP-10", tuple(path), offset, "no lone surrogate", f"\\u{cp:04x}"))
    if exact in frame.names:  # compared as decoded, lone surrogates included
        violations.append(
            Violation("TOP-6", tuple(path), pos, "member names pairwise distinct", f"a second member {name!r}")
        )
    frame.names.add(exact)
    frame.key = name
    end = _WS.match(text, end).end()  # type: ignore[union-attr]  # _WS matches the empty string: never None
    if not text.startswith(":", end):
        raise JsonGrammarError("TOP-3", end, "':' after a member name", _show(text, end))
    return _WS.match(text, end + 1).end()  # type: ignore[union-attr]  # _WS matches the empty string: never None
