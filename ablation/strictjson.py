"""The strict JSON profile: bytes or text → values, with every TOP violation located.

Two layers, one verdict (SPEC §2.3, §2.4):

* the *fast path* parses with the standard library's C scanner and hooks that
  only notice trouble (a non-integer or unsafe number, a duplicate name, a
  non-JSON constant); a regex pre-check spots possible lone surrogates and a
  bracket count bounds nesting. When nothing is noticed the value is returned;
* otherwise the *scanner of record* (:func:`_scan`, iterative, no recursion)
  parses the same text again and returns every strictness violation
  (TOP-6 … TOP-11) with its JSON Pointer segments and offset, or raises
  :class:`JsonGrammarError` for the first grammar violation (TOP-2 … TOP-5).

The fast path accepts a text only when the scanner of record would report no
violation; the scanner of record decides everything else. Neither ever raises
``RecursionError`` or ``ValueError``: every outcome is a rule violation.
"""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import FrameType

__all__ = [
    "INVALID_NUMBER",
    "MAX_DEPTH",
    "MAX_SAFE_INTEGER",
    "JsonGrammarError",
    "ParsedText",
    "Violation",
    "WrittenJsonError",
    "child",
    "decode_utf8",
    "parse_text",
    "parse_written",
    "pointer",
]

MAX_SAFE_INTEGER = 9_007_199_254_740_991
MAX_DEPTH = 256


class _InvalidNumber:
    """Placeholder value for a number that violates TOP-7/TOP-8/TOP-9 (never canonicalised)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "INVALID_NUMBER"


INVALID_NUMBER = _InvalidNumber()

Segment = str | int


def child(ptr: str, key: Segment) -> str:
    """Extend a JSON Pointer by one segment, escaping ``~`` and ``/`` (RFC 6901).

    >>> child("/a", "b/c~d")
    '/a/b~1c~0d'
    """
    return f"{ptr}/{str(key).replace('~', '~0').replace('/', '~1')}"


def pointer(segments: tuple[Segment, ...] | list[Segment]) -> str:
    """Write segments as a JSON Pointer (the empty tuple is the empty pointer ``""``)."""
    out = ""
    for seg in segments:
        out = child(out, seg)
    return out


@dataclass(frozen=True, slots=True)
class Violation:
    """One strictness violation (TOP-6 … TOP-11) found by the scanner of record.

    Attributes:
        rule: ``TOP-6`` … ``TOP-11``.
        path: JSON Pointer segments of the offending value or member (for a
            lone surrogate in a member name, the name with U+FFFD in its place).
        offset: 0-based character offset in the text where it was found.
        expected: what the rule requires.
        found: what was found.
    """

    rule: str
    path: tuple[Segment, ...]
    offset: int
    expected: str
    found: str

    @property
    def pointer(self) -> str:
        """The JSON Pointer of :attr:`path`."""
        return pointer(self.path)


@dataclass(frozen=True, slots=True)
class ParsedText:
    """A parsed JSON text: its value and its strictness violations in text order.

    ``violations`` is empty for a text that satisfies the whole profile. Values
    at a violating number are :data:`INVALID_NUMBER`; with duplicated names the
    last value is kept.
    """

    value: object
    violations: tuple[Violation, ...]


class JsonGrammarError(Exception):
    """A grammar violation (TOP-2 … TOP-5): the text is not one JSON value.

    Attributes:
        rule: ``TOP-2`` … ``TOP-5``.
        offset: 0-based character offset of the problem.
        expected, found: the message parts of SPEC §2.5.
    """

    def __init__(self, rule: str, offset: int, expected: str, found: str) -> None:
        super().__init__(rule, offset, expected, found)
        self.rule = rule
        self.offset = offset
        self.expected = expected
        self.found = found


class Utf8Error(Exception):
    """The file bytes are not well-formed UTF-8 (TOP-1); ``offset`` is a byte offset."""

    def __init__(self, offset: int, found: str) -> None:
        super().__init__(offset, found)
        self.offset = offset
        self.found = found


def decode_utf8(data: bytes) -> str:
    """Decode file bytes with strict UTF-8 (TOP-1): no replacement, no surrogates.

    Raises:
        Utf8Error: with the byte offset of the first ill-formed sequence (TOP-1).
    """
    try:
        return data.decode("utf-8", "strict")
    except UnicodeDecodeError as exc:
        bad = data[exc.start : min(exc.end, exc.start + 4)]
        raise Utf8Error(exc.start, "bytes " + " ".join(f"{b:02X}" for b in bad)) from None


# ---------------------------------------------------------------- fast path

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class _Noticed(Exception):
    """Raised inside a hook to abandon the fast path."""


def _notice_float(_literal: str) -> object:
    raise _Noticed


def _notice_constant(_literal: str) -> object:
    raise _Noticed


def _safe_int(literal: str) -> int:
    if len(literal) < 16:
        return int(literal)
    if len(literal) > 17:
        raise _Noticed
    n = int(literal)
    if -MAX_SAFE_INTEGER <= n <= MAX_SAFE_INTEGER:
        return n
    raise _Noticed


def _unique_pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Noticed
    return obj


_fast_decoder = json.JSONDecoder(
    object_pairs_hook=_unique_pairs,
    parse_float=_notice_float,
    parse_int=_safe_int,
    parse_constant=_notice_constant,
)


def _nesting_within_limit(value: object) -> bool:
    """Walk the parsed containers iteratively: is no container deeper than 256?"""
    if type(value) is not dict and type(value) is not list:
        return True
    stack: list[tuple[object, int]] = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        if depth > MAX_DEPTH:
            return False
        for element in node.values() if type(node) is dict else node:  # type: ignore[attr-defined]  # a dict or a list
            if type(element) is dict or type(element) is list:
                push((element, depth + 1))
    return True


# The interpreter's recursion budget can bound nesting for free: the C scanner
# spends one unit per open container, so with at most _DEPTH_BUDGET units left
# a text nested deeper than that raises RecursionError (and goes to the scanner
# of record). Whether this holds is checked once at import (Python 3.12 moved C
# recursion to a separate counter); when it does not, the parsed value is walked.
_DEPTH_BUDGET = 200


def _frame_depth() -> int:
    depth = 0
    frame: FrameType | None = sys._getframe()  # noqa: SLF001 - the only way to read the current depth
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth


def _decode_within_budget(text: str, decoder: json.JSONDecoder | None = None) -> object:
    """Decode with at most _DEPTH_BUDGET recursion units left (RecursionError beyond)."""
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(_frame_depth() + _DEPTH_BUDGET)
    try:
        return (decoder or _fast_decoder).decode(text)
    finally:
        sys.setrecursionlimit(previous)


def _budget_bounds_nesting() -> bool:
    try:
        _decode_within_budget("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    except RecursionError:
        return True
    return False


_BUDGET_BOUNDS_NESTING = _budget_bounds_nesting()


def _no_lone_surrogate(text: str, value: object) -> bool:
    if _SURROGATE_ESCAPE.search(text) is None:
        return True
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def parse_text(text: str) -> ParsedText:
    """Parse one JSON text under the strict profile (TOP-2 … TOP-11).

    Args:
        text: the decoded text (the file after :func:`decode_utf8`, or an
            embedded raw JSON string value).

    Returns:
        The value and the strictness violations (TOP-6 … TOP-11) in text order;
        the caller decides by location what they mean (SPEC §2.4).

    Raises:
        JsonGrammarError: TOP-2 … TOP-5, with a character offset.

    Spec: SPEC.md §2.3, §2.4.
    """
    try:
        value = _decode_within_budget(text) if _BUDGET_BOUNDS_NESTING else _fast_decoder.decode(text)
    except (_Noticed, ValueError, RecursionError):
        return _scan(text)
    if (_BUDGET_BOUNDS_NESTING or _nesting_within_limit(value)) and _no_lone_surrogate(text, value):
        return ParsedText(value, ())
    return _scan(text)


# ---------------------------------------------------------- scanner of record

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


def _scan(text: str) -> ParsedText:  # one state machine
    """The scanner of record: iterative recursive descent with pointer tracking."""
    violations: list[Violation] = []
    stack: list[_Frame] = []
    path: list[Segment] = []
    too_deep_at = 0  # depth at which TOP-11 was reported on the current branch (0: none)
    n = len(text)
    if text.startswith("\ufeff"):
        raise JsonGrammarError("TOP-2", 0, "no byte-order mark (U+FEFF) before the JSON text", "U+FEFF")
    pos = _WS.match(text, 0).end()  # type: ignore[union-attr]  # _WS matches the empty string: never None
    root: object = None

    def attach(value: object) -> None:
        nonlocal root
        if not stack:
            root = value
            return
        top = stack[-1]
        if top.is_object:
            top.container[top.key] = value  # type: ignore[call-overload]  # is_object: the container is a dict
        else:
            top.container.append(value)  # type: ignore[union-attr]  # not is_object: the container is a list

    while True:
        # ---- parse one value at pos
        if pos >= n:
            raise JsonGrammarError("TOP-3", pos, "a JSON value", "end of text")
        ch = text[pos]
        if ch in "[{":
            container: list[object] | dict[str, object] = {} if ch == "{" else []
            attach(container)
            depth = len(stack) + 1
            if depth > MAX_DEPTH and not too_deep_at:
                too_deep_at = depth
                violations.append(Violation("TOP-11", tuple(path), pos, "nesting depth <= 256", f"depth {depth}"))
            frame = _Frame(container, is_object=ch == "{")
            stack.append(frame)
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]  # _WS matches the empty string: never None
            close = "}" if frame.is_object else "]"
            if text.startswith(close, pos):
                pos += 1
                stack.pop()
                if too_deep_at > len(stack):
                    too_deep_at = 0
            elif frame.is_object:
                pos = _member_name(text, pos, frame, path, violations)
                continue
            else:
                path.append(0)
                continue
        elif ch == '"':
            value, end, lone = _scan_string(text, pos)
            for offset, cp in lone:
                violations.append(Violation("TOP-10", tuple(path), offset, "no lone surrogate", f"\\u{cp:04x}"))
            attach(_replace_lone(value) if lone else value)
            pos = end
        elif ch == "-" or "0" <= ch <= "9":
            m = _NUMBER.match(text, pos)
            if m is None:
                if text.startswith("-Infinity", pos):
                    raise JsonGrammarError("TOP-4", pos, "a JSON value (-Infinity is not JSON)", "'-Infinity'")
                raise JsonGrammarError("TOP-3", pos, "a JSON number", _show(text, pos))
            literal = m.group()
            bad = _classify_number(literal, m.group(1) is not None or m.group(2) is not None)
            if bad is None:
                attach(int(literal))
            else:
                violations.append(Violation(bad[0], tuple(path), pos, bad[1], _literal_shown(literal)))
                attach(INVALID_NUMBER)
            pos = m.end()
        elif text.startswith("true", pos):
            attach(True)
            pos += 4
        elif text.startswith("false", pos):
            attach(False)
            pos += 5
        elif text.startswith("null", pos):
            attach(None)
            pos += 4
        elif text.startswith("NaN", pos) or text.startswith("Infinity", pos):
            word = "NaN" if ch == "N" else "Infinity"
            raise JsonGrammarError("TOP-4", pos, f"a JSON value ({word} is not JSON)", repr(word))
        else:
            raise JsonGrammarError("TOP-3", pos, "a JSON value", _show(text, pos))

        # ---- after a value: close containers or move to the next element
        while True:
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]  # _WS matches the empty string: never None
            if not stack:
                if pos != n:
                    raise JsonGrammarError("TOP-5", pos, "only whitespace after the top-level value", _show(text, pos))
                return ParsedText(root, tuple(violations))
            frame = stack[-1]
            close = "}" if frame.is_object else "]"
            if pos < n and text[pos] == ",":
                pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]  # _WS matches the empty string: never None
                if frame.is_object:
                    path.pop()
                    pos = _member_name(text, pos, frame, path, violations)
                else:
                    frame.index += 1
                    path[-1] = frame.index
                break
            if pos < n and text[pos] == close:
                pos += 1
                stack.pop()
                path.pop()
                if too_deep_at > len(stack):
                    too_deep_at = 0
                continue
            raise JsonGrammarError("TOP-3", pos, f"',' or '{close}'", _show(text, pos))


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


# ------------------------------------------------------ the written-file profile
#
# Files ablation wrote and reads back (a results file, identity.json) hold finite
# doubles as well as integers; anything ablation never writes is refused with
# what it is. The same C scanner, recursion budget and surrogate check as above.

_MAX_WRITTEN_INT_DIGITS = 309  # no integer literal ablation writes has more digits than the largest double
_TOO_DEEP = f"containers nested deeper than {MAX_DEPTH} levels; ablation never writes that"


class WrittenJsonError(ValueError):
    """A text that is not what ablation writes; ``str()`` says what.

    ``kind``: ``grammar`` (not one JSON value; ``str()`` is the parser's message),
    ``unwritten`` (a value ablation never writes, e.g. ``NaN``) or ``shape``
    (too deep, a lone surrogate).
    """

    def __init__(self, message: str, kind: str = "unwritten") -> None:
        super().__init__(message)
        self.kind = kind


def _written_float(literal: str) -> float:
    value = float(literal)
    if math.isinf(value):
        shown = literal[:39] + "…" if len(literal) > 40 else literal
        raise WrittenJsonError(f"the number {shown}, too large for a double")
    return value


def _written_int(literal: str) -> int:
    digits = len(literal.lstrip("-"))
    if digits > _MAX_WRITTEN_INT_DIGITS:
        raise WrittenJsonError(f"an integer of {digits} digits, beyond any double")
    return int(literal)


def _written_constant(literal: str) -> object:
    raise WrittenJsonError(f"{literal}, which is not JSON")


def _written_pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                shown = json.dumps(name, ensure_ascii=False)
                shown = shown[:79] + "…" if len(shown) > 80 else shown
                raise WrittenJsonError(f"an object with the member {shown} twice")
            seen.add(name)
    return obj


_written_decoder = json.JSONDecoder(
    object_pairs_hook=_written_pairs,
    parse_float=_written_float,
    parse_int=_written_int,
    parse_constant=_written_constant,
)


def parse_written(text: str) -> object:
    """Parse a JSON text that ablation wrote (a results file, ``identity.json``).

    Allowed: what ablation writes, finite doubles included. Refused with
    :class:`WrittenJsonError`: text that is not one JSON value (``kind``
    ``grammar``); ``NaN``/``Infinity``; a number too large for a double (an
    integer literal over 309 digits included); a member name twice in one
    object; containers nested deeper than :data:`MAX_DEPTH`; a lone surrogate.
    Never a ``RecursionError``.
    """
    try:
        value = _decode_within_budget(text, _written_decoder)
    except RecursionError:  # deeper than the budget: decode again without it and walk
        try:
            value = _written_decoder.decode(text)
        except RecursionError:
            value = None
        if value is None or not _nesting_within_limit(value):
            raise WrittenJsonError(_TOO_DEEP, "shape") from None
    except WrittenJsonError:
        raise
    except ValueError as exc:
        raise WrittenJsonError(str(exc), "grammar") from None
    if not _BUDGET_BOUNDS_NESTING and not _nesting_within_limit(value):
        raise WrittenJsonError(_TOO_DEEP, "shape")
    if not _no_lone_surrogate(text, value):
        raise WrittenJsonError("a string holds a lone surrogate escape, which UTF-8 cannot hold", "shape")
    return value
