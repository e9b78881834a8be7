"""The written-file profile: files ablation wrote and reads back (a results file, ``identity.json``).

They hold finite doubles as well as integers; anything ablation never writes is
refused with what it is. The same C scanner, recursion budget and surrogate check
as the input profile (:mod:`ablation.strictjson.fast`).
"""

from __future__ import annotations

import json
import math

from ablation.strictjson.fast import (
    _BUDGET_BOUNDS_NESTING,
    _decode_within_budget,
    _nesting_within_limit,
    _no_lone_surrogate,
    hooked_decoder,
)
from ablation.strictjson.values import MAX_DEPTH

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


_written_decoder = hooked_decoder(_written_pairs, _written_float, _written_int, _written_constant)


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
