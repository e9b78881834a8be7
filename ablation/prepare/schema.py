"""Reading a parsed TOML table against its closed key list (PRE-2 … PRE-4).

Each TOML table of the experiment file is read through one :class:`Table`,
declared with every key the format allows there. Declaring it reports each key
that is not one of them (PRE-2); the typed getters report a missing required key
(PRE-3) and a value of the wrong type (PRE-4), and return ``None`` then, so
one pass collects every schema problem of the file. An integer is never a
boolean (TOML keeps them apart; so does SPEC §9.3).

Spec: PREPARE.md §3 ("Every table and key is closed"), check 1.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from ablation.contracts.base import show
from ablation.prepare.findings import Findings
from ablation.prepare.tomltext import toml_key, where

__all__ = ["Table", "describe"]

Location = tuple[str | int, ...]


def describe(value: object) -> str:
    """A TOML value's type and, for a scalar, the value, for a message's found part.

    >>> describe("x"), describe(True), describe(3), describe([1, 2]), describe({"a": 1})
    ("a string 'x'", 'a boolean true', 'an integer 3', 'an array of 2 elements', 'a table')
    """
    if isinstance(value, bool):
        return f"a boolean {'true' if value else 'false'}"
    if isinstance(value, int):
        return f"an integer {value}"
    if isinstance(value, float):
        return f"a float {value!r}"
    if isinstance(value, str):
        return f"a string {show(value)}"
    if isinstance(value, list):
        return f"an array of {len(value)} element{'' if len(value) == 1 else 's'}"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return f"a date or time {value.isoformat()}"
    return type(value).__name__  # pragma: no cover - tomllib makes no other type


class Table:
    """One TOML table being read: its closed keys, and typed getters that report what is wrong.

    Args:
        value: the parsed table.
        location: its location (``("case", 2, "sci")``; ``()`` for the whole document).
        keys: every key the format allows in it, in the order the format lists them.
        findings: where PRE-2 … PRE-4 are recorded.
    """

    def __init__(self, value: dict[str, object], location: Location, keys: Sequence[str], findings: Findings) -> None:
        self.value = value
        self.location = location
        self.keys = tuple(keys)
        self.findings = findings
        allowed = frozenset(self.keys)
        listed = ", ".join(toml_key(k) for k in self.keys)
        for key in value:
            if key not in allowed:
                findings.error(
                    "PRE-2",
                    where(*location, key),
                    f"one of the keys {listed} in {where(*location)}",
                    f"an unknown key {show(key)}",
                )

    def _get(self, key: str, *, required: bool, what: str) -> object | None:
        """The value of ``key``; ``None`` when it is absent (PRE-3 when it is required)."""
        if key in self.value:
            return self.value[key]
        if required:
            self.findings.error("PRE-3", where(*self.location, key), f"a key {toml_key(key)} ({what})", "no such key")
        return None

    def _typed(self, key: str, value: object, ok: bool, what: str) -> bool:
        if not ok:
            self.findings.error("PRE-4", where(*self.location, key), what, describe(value))
        return ok

    def string(self, key: str, *, required: bool = True) -> str | None:
        """A string value (PRE-3 when a required one is absent, PRE-4 for another type)."""
        value = self._get(key, required=required, what="a string")
        if value is None or not self._typed(key, value, isinstance(value, str), "a string"):
            return None
        assert isinstance(value, str)
        return value

    def integer(self, key: str, *, required: bool = True) -> int | None:
        """An integer value, never a boolean (PRE-3, PRE-4)."""
        value = self._get(key, required=required, what="an integer")
        if value is None or not self._typed(key, value, type(value) is int, "an integer"):
            return None
        assert isinstance(value, int)
        return value

    def boolean(self, key: str, *, required: bool = False) -> bool | None:
        """A boolean value (PRE-3, PRE-4)."""
        value = self._get(key, required=required, what="a boolean")
        if value is None or not self._typed(key, value, isinstance(value, bool), "a boolean"):
            return None
        assert isinstance(value, bool)
        return value

    def strings(self, key: str, *, required: bool = True) -> list[str] | None:
        """An array of strings (PRE-3, PRE-4 naming the first element that is not a string)."""
        value = self._get(key, required=required, what="an array of strings")
        if value is None or not self._typed(key, value, isinstance(value, list), "an array of strings"):
            return None
        assert isinstance(value, list)
        for k, element in enumerate(value):
            if not isinstance(element, str):
                self.findings.error("PRE-4", where(*self.location, key, k), "a string", describe(element))
                return None
        return value

    def table(self, key: str, keys: Sequence[str], *, required: bool = True) -> Table | None:
        """A sub-table, read against its own closed key list (PRE-3, PRE-4)."""
        value = self._get(key, required=required, what="a table")
        if value is None or not self._typed(key, value, isinstance(value, dict), "a table"):
            return None
        assert isinstance(value, dict)
        return Table(value, (*self.location, key), keys, self.findings)

    def tables(self, key: str, keys: Sequence[str], *, required: bool = True) -> list[Table] | None:
        """An array of tables (``[[key]]``), at least one when required, each read against ``keys``."""
        what = "an array of tables" + (" (at least one)" if required else "")
        value = self._get(key, required=required, what=what)
        if value is None:
            return None
        ok = isinstance(value, list) and (bool(value) or not required)
        if not self._typed(key, value, ok, what):
            return None
        assert isinstance(value, list)
        found: list[Table] = []
        for k, element in enumerate(value):
            if not isinstance(element, dict):
                self.findings.error("PRE-4", where(*self.location, key, k), "a table", describe(element))
                return None
            found.append(Table(element, (*self.location, key, k), keys, self.findings))
        return found
