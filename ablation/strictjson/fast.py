"""The input profile (SPEC §2.3, §2.4): the C scanner with hooks that only notice trouble.

When nothing is noticed the value is returned; otherwise the scanner of record
(:mod:`ablation.strictjson.scanner`) parses the text again and decides. Also the
recursion-budget nesting bound and the lone-surrogate check that the written-file
profile reuses.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from ablation.strictjson.scanner import _scan
from ablation.strictjson.values import MAX_DEPTH, MAX_SAFE_INTEGER, ParsedText

if TYPE_CHECKING:
    from types import FrameType

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


def hooked_decoder(
    pairs: Callable[[list[tuple[str, object]]], object],
    floats: Callable[[str], object],
    ints: Callable[[str], object],
    constants: Callable[[str], object],
) -> json.JSONDecoder:
    """The standard library's C-scanner decoder with a profile's four hooks (objects, fractions, integers, NaN)."""
    return json.JSONDecoder(object_pairs_hook=pairs, parse_float=floats, parse_int=ints, parse_constant=constants)


_fast_decoder = hooked_decoder(_unique_pairs, _notice_float, _safe_int, _notice_constant)


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
