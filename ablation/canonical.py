"""Canonical JSON, raw and canonical digests, JavaScript number text (SPEC §3, §9.1).

Values handled here are the parsed values of :mod:`ablation.strictjson`:
``None``, ``bool``, ``int`` (safe integers), ``str`` (no lone surrogates),
``list`` and ``dict`` — never ``float``.
"""

from __future__ import annotations

import hashlib
import json
import re

__all__ = [
    "DIGEST_PREFIX",
    "canon",
    "canonical_digest",
    "canonically_equal",
    "is_digest",
    "js_number",
    "raw_digest",
    "sha256_hex",
]

DIGEST_PREFIX = "sha256:"
_INFINITY = float("inf")
_DIGEST_RE = re.compile(r"sha256:[0-9a-f]{64}")

_canon_encoder = json.JSONEncoder(
    ensure_ascii=False,
    allow_nan=False,
    sort_keys=True,
    separators=(",", ":"),
    check_circular=False,
)


def canon(value: object) -> str:
    """Return ``Canon(value)``: no whitespace, members in UTF-8 order, strings as §3.2.

    Python's string order is code-point order, which equals UTF-8 byte order for
    strings without lone surrogates (SPEC §9.5); ``json`` with
    ``ensure_ascii=False`` escapes exactly as ECMAScript ``JSON.stringify``
    (SPEC §3.2: ``\\u001f`` lowercase, U+007F and U+2028 raw).

    Args:
        value: a parsed JSON value (no floats).

    Returns:
        The canonical JSON text.

    Spec: SPEC.md §3.1, §3.2; test vectors §3.5.

    >>> canon({"b": 1, "a": [True, None, "é"]})
    '{"a":[true,null,"é"],"b":1}'
    """
    return _canon_encoder.encode(value)


def sha256_hex(data: bytes) -> str:
    """Bare lowercase hex SHA-256 of ``data`` (the output file's ``inputSha256`` form)."""
    return hashlib.sha256(data).hexdigest()


def raw_digest(data: str | bytes) -> str:
    """Return ``R(x)``: ``sha256:`` + hex over the exact UTF-8 bytes of a string, or over bytes.

    Spec: SPEC.md §3.3.

    >>> raw_digest("")
    'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    return DIGEST_PREFIX + hashlib.sha256(data).hexdigest()


def canonical_digest(value: object) -> str:
    """Return ``D(value) = R(Canon(value))`` (SPEC §3.3)."""
    return raw_digest(canon(value))


def canonically_equal(a: object, b: object) -> bool:
    """Type-strict structural equality: ``Canon(a) == Canon(b)`` (SPEC §3.3, §9.4).

    ``True`` is never canonically equal to ``1``.
    """
    return canon(a) == canon(b)


def is_digest(value: object) -> bool:
    """The ``Digest`` predicate: exactly ``sha256:`` and 64 lowercase hex digits (SPEC §3.3)."""
    return isinstance(value, str) and _DIGEST_RE.fullmatch(value) is not None


def js_number(x: float) -> str:
    """Format a finite double as ECMAScript ``Number.prototype.toString`` does (SPEC §9.1).

    Args:
        x: a finite float.

    Returns:
        The shortest round-tripping decimal text in ECMAScript layout.

    Raises:
        ValueError: for NaN or an infinity (never written, SPEC §7.8).

    >>> [js_number(v) for v in (1.0, -0.0, 0.00005, 1.5e-6, 1e-7, 1e20, 1e21, -8.0)]
    ['1', '0', '0.00005', '0.0000015', '1e-7', '100000000000000000000', '1e+21', '-8']
    """
    if x != x or abs(x) == _INFINITY:
        msg = f"cannot write {x!r} as a JSON number"
        raise ValueError(msg)
    if x == 0:
        return "0"
    if x < 0:
        return "-" + js_number(-x)
    mantissa, _, exponent = repr(x).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    n = len(whole) + (int(exponent) if exponent else 0)
    stripped = digits.lstrip("0")
    n -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    sign = "+" if e >= 0 else "-"
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{head}e{sign}{abs(e)}"
