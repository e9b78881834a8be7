"""TOML spelled by preparation: basic strings, keys, and locations in an experiment file.

A location is a dotted key path with 0-based array indexes, as PREPARE.md §2
writes it: ``case[2].sci.pattern``, ``tools.sci.extra_pins[1].sha256``. A key
that is not a bare TOML key is written as a basic string (``tools."my tool"``).

Strings are written as TOML basic strings, so a value shown in a message (a
normalised question, say) can be pasted back into the file as it is.

Spec: TOML 1.0 ("Keys", "String"); PREPARE.md §2, §3.
"""

from __future__ import annotations

import re

__all__ = ["toml_key", "toml_string", "where"]

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_SHORT_ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r", '"': '\\"', "\\": "\\\\"}
_NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f\x7f]')


def toml_string(text: str) -> str:
    r"""``text`` as a TOML basic string: quotes, backslashes and control characters escaped.

    >>> toml_string('a "b"\\c'), toml_string("tab\there\x7f")
    ('"a \\"b\\"\\\\c"', '"tab\\there\\u007f"')
    """

    def escape(match: re.Match[str]) -> str:
        ch = match.group()
        return _SHORT_ESCAPES.get(ch) or f"\\u{ord(ch):04x}"

    return '"' + _NEEDS_ESCAPE.sub(escape, text) + '"'


def toml_key(key: str) -> str:
    """A key as TOML writes it: bare when it can be, else a basic string.

    >>> toml_key("max_items"), toml_key("my tool"), toml_key("")
    ('max_items', '"my tool"', '""')
    """
    return key if _BARE_KEY.fullmatch(key) else toml_string(key)


def where(*parts: str | int) -> str:
    """The location of a table, key or array element: keys joined by ``.``, indexes as ``[k]``.

    >>> where("case", 2, "sci", "pattern"), where("tools", "sci", "extra_pins", 0, "sha256"), where("experiment")
    ('case[2].sci.pattern', 'tools.sci.extra_pins[0].sha256', 'experiment')
    >>> where()
    '(top level)'
    """
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + toml_key(part)
    return text or "(top level)"
