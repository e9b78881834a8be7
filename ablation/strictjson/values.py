"""What both JSON profiles share: JSON Pointers, located violations, the grammar error, UTF-8 decoding."""

from __future__ import annotations

from dataclasses import dataclass

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
