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

Modules, in import order: :mod:`~ablation.strictjson.values` (pointers,
violations, errors, UTF-8), :mod:`~ablation.strictjson.scanner` (the scanner of
record), :mod:`~ablation.strictjson.fast` (the input profile, :func:`parse_text`)
and :mod:`~ablation.strictjson.written` (the written-file profile,
:func:`parse_written`).
"""

from __future__ import annotations

from ablation.strictjson.fast import parse_text

# The scanner of record under the name the property tests use.
from ablation.strictjson.scanner import _scan as _scan
from ablation.strictjson.values import (
    INVALID_NUMBER,
    MAX_DEPTH,
    MAX_SAFE_INTEGER,
    JsonGrammarError,
    ParsedText,
    Utf8Error,
    Violation,
    child,
    decode_utf8,
    pointer,
)
from ablation.strictjson.written import WrittenJsonError, parse_written

__all__ = [
    "INVALID_NUMBER",
    "MAX_DEPTH",
    "MAX_SAFE_INTEGER",
    "JsonGrammarError",
    "ParsedText",
    "Utf8Error",
    "Violation",
    "WrittenJsonError",
    "child",
    "decode_utf8",
    "parse_text",
    "parse_written",
    "pointer",
]
