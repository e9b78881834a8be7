"""Text predicates and tokenizers shared by every contract (SPEC §4.0, §5.1, §9.6–§9.9).

Every predicate takes ``object`` and returns ``bool``; none raises. Patterns are
matched against the whole string (``fullmatch``, SPEC §9.10), digit classes are
ASCII ``[0-9]`` (§9.8) and the whitespace set is W of §9.6, never Python's
``str.isspace``.
"""

from __future__ import annotations

import re
from typing import TypeGuard

__all__ = [
    "W",
    "extname",
    "identity_tokens",
    "is_abs_path",
    "is_commit",
    "is_meta_scalar",
    "is_nbtext",
    "is_normalized",
    "is_portable",
    "is_safe_path",
    "is_text",
    "is_token",
    "ranking_tokens",
    "tokens",
]

#: The 25 whitespace code points of SPEC §9.6.
W = frozenset(
    "\t\n\x0b\x0c\r \xa0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_W_CLASS = "\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_W_OTHER_THAN_SPACE = re.compile("[\t\n\x0b\x0c\r\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]")
_NOT_W = re.compile(f"[^{_W_CLASS}]")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_DRIVE = re.compile("[A-Za-z]:")
_PATH_CHARS_BAD = re.compile("[\\\\\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_BAD_SEGMENT = re.compile(r"(?:^|/)(?:\.\.?)?(?:/|$)")
_PORTABLE_BAD = re.compile(
    f"(?<![^{_W_CLASS}'\"(=])/(?:home/|Users/|tmp/|private/tmp/|var/folders/|usr/|etc/|opt/|root/|srv/|mnt/|media/)"
    f"|(?<![^{_W_CLASS}'\"(=])[A-Za-z]:[/\\\\]"
    "|[fF][iI][lL][eE]://"
)
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+\-]{0,127}")
_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_RUNS = re.compile(r"[a-z0-9]+")
_HAS_DIGIT = re.compile(r"[0-9]")

_LABEL_WORDS = frozenset({"case", "example", "number", "question", "scenario"})
_STOP_WORDS = frozenset({"and", "the", "for", "its", "with", "change", "focused", "test", "tests", "behavior"})


def is_normalized(s: object) -> bool:
    """``Normalized``: only U+0020 from W, no leading/trailing space, no double space (§4.0)."""
    return (
        isinstance(s, str)
        and not s.startswith(" ")
        and not s.endswith(" ")
        and "  " not in s
        and _W_OTHER_THAN_SPACE.search(s) is None
    )


def is_text(s: object, n: int) -> TypeGuard[str]:
    """``Text(n)``: a string without lone surrogates of at most n code points (§4.0, §9.7)."""
    return isinstance(s, str) and len(s) <= n and _LONE_SURROGATE.search(s) is None


def is_nbtext(s: object, n: int) -> TypeGuard[str]:
    """``NBText(n)``: ``Text(n)`` with at least one code point outside W (§4.0)."""
    return is_text(s, n) and _NOT_W.search(s) is not None


def is_abs_path(s: object) -> bool:
    """``AbsPath``: ``NBText(4096)`` starting with ``/`` (§4.0)."""
    return is_nbtext(s, 4096) and s.startswith("/")


def is_safe_path(s: object) -> bool:
    """``SafePath`` (SPEC §4.0, conditions 1–9): a context-safe repository-relative path.

    >>> [is_safe_path(p) for p in ("src/a.js", "..js", "./a.js", "a//b", "C:x", " a")]
    [True, True, False, False, False, False]
    """
    if not isinstance(s, str) or not s:
        return False
    if len(s) > 1024 and len(s.encode("utf-8", "surrogatepass")) > 4096:
        return False
    if s[0] in W or s[-1] in W or s[0] == "/":
        return False
    if _PATH_CHARS_BAD.search(s) is not None or _DRIVE.match(s) is not None:
        return False
    return _BAD_SEGMENT.search(s) is None


def is_portable(s: object) -> bool:
    """``Portable``: no absolute home/system path, drive path or ``file://`` URL (§4.0, §9.8)."""
    return isinstance(s, str) and _PORTABLE_BAD.search(s) is None


_META_ASCII = re.compile(r"[!-~](?:[ -~]*[!-~])?")


def is_meta_scalar(s: object) -> bool:
    """``MetaScalar``: ≤ 240 code points and UTF-16 units, nonblank, normalized, no controls.

    >>> [is_meta_scalar(v) for v in ("owner record", " x", "a  b", "a\u0085b", "\U0001f600" * 121)]
    [True, False, False, False, False]
    """
    if type(s) is str and s.isascii():  # fast path: printable ASCII, no edge or double spaces
        return len(s) <= 240 and _META_ASCII.fullmatch(s) is not None and "  " not in s
    if not is_nbtext(s, 240) or not is_normalized(s):
        return False
    assert isinstance(s, str)
    if _CONTROL.search(s) is not None:
        return False
    return len(s) + sum(1 for ch in s if ch > "\uffff") <= 240


def is_token(s: object) -> bool:
    """``Token``: a string of 1–128 chars, ASCII letter/digit first, then ``[A-Za-z0-9._+-]``."""
    return isinstance(s, str) and _TOKEN.fullmatch(s) is not None


def is_commit(s: object) -> bool:
    """``Commit``: exactly 40 or 64 lowercase hex digits (§4.0)."""
    return isinstance(s, str) and _COMMIT.fullmatch(s) is not None


def extname(path: str) -> str:
    """Node's ``path.extname`` on the last ``/``-segment (SPEC §9.9), not lowercased.

    >>> [extname(p) for p in ("src/a.js", "..js", "x/...js", ".a.js", "...", "a.", ".bashrc", "..")]
    ['.js', '.js', '.js', '.js', '.', '.', '', '']
    """
    dot = path.rfind(".")
    if dot <= path.rfind("/") + 1 or path.endswith("/..") or path == "..":
        return ""  # no dot in the last segment, a leading dot, or the segment ".."
    return path[dot:]


def tokens(text: str) -> list[str]:
    """tokens(text) of SPEC §5.1: full Unicode lowercase, then maximal ``[a-z0-9]`` runs.

    >>> tokens("\\u212a9 \\u0130STANBUL \\u017fcript")
    ['k9', 'i', 'stanbul', 'cript']
    """
    return _RUNS.findall(text.lower())


def identity_tokens(question: str) -> list[str]:
    """Identity (intent) tokens of SPEC §5.1, sorted ascending, without duplicates.

    Tokens containing an ASCII digit and the label words are dropped; stop words
    and one-character tokens are kept.

    >>> identity_tokens("Case 2: locate ALPHA request, parsing & validation behavior!")
    ['alpha', 'behavior', 'locate', 'parsing', 'request', 'validation']
    """
    return sorted({t for t in tokens(question) if t not in _LABEL_WORDS and _HAS_DIGIT.search(t) is None})


def ranking_tokens(question: str) -> frozenset[str]:
    """Ranking (query) tokens of SPEC §5.1: length ≥ 3, stop words removed, digits kept.

    >>> sorted(ranking_tokens("Fix utf8 v2 decoder for x86 and the ARM64 tests"))
    ['arm64', 'decoder', 'fix', 'utf8', 'x86']
    """
    return frozenset(t for t in tokens(question) if len(t) >= 3 and t not in _STOP_WORDS)
