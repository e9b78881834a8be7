"""Frozen, typed records of a JSON file that ablation wrote, each with ``from_json`` and ``to_json``.

A record is a frozen dataclass whose fields name their JSON members
(:func:`member`); :meth:`Record.from_json` checks a parsed value against them
once — an object with exactly those members (an ``optional`` one may be
absent), each of its kind (:class:`Kind`) — and :meth:`Record.to_json` gives
the object back, members in declaration order (the order ``ablation run``
writes them), so ``to_json(from_json(v)) == v`` for every value ``from_json``
accepts. JSON that a record keeps without modelling (an identity's
``measured``) is frozen: objects as read-only mappings, arrays as tuples.

A value of the wrong shape raises :class:`ShapeError` naming its JSON Pointer,
what was found and what was wanted, e.g. ``/result/cases/0/arms/paths/metrics/hits
is the number -1, not a count``. Issue 22 item 4 (the shape of python-tuf's
``Metadata`` API and packaging's typed parsers: parse once, then typed fields).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Generic, Self, TypeVar

from ablation.canonical import js_number
from ablation.strictjson import MAX_SAFE_INTEGER, child

__all__ = [
    "COUNT",
    "EXACT",
    "FLAG",
    "INTEGER",
    "JSON_OBJECT",
    "NUMBER",
    "TEXT",
    "TEXTS",
    "Kind",
    "Record",
    "ShapeError",
    "array_of",
    "dump",
    "freeze",
    "json_kind",
    "member",
    "nullable",
    "object_of",
    "record",
]

T = TypeVar("T")
_ABSENT = object()
# An ``exact`` string as ablation writes it: an integer or n/d with d > 0 (SPEC §9; :func:`ablation.rates.exact_text`).
FRACTION = re.compile(r"-?(?:0|[1-9][0-9]{0,399})(?:/[1-9][0-9]{0,399})?")


def json_kind(value: object) -> str:
    """A parsed JSON value in words, for a message (``null``, ``the number -1``, ``the string "x"``, ``an array``).

    >>> json_kind(None), json_kind(True), json_kind(-1), json_kind(0.5), json_kind("1/0"), json_kind([])
    ('null', 'true', 'the number -1', 'the number 0.5', 'the string "1/0"', 'an array')
    """
    if value is _ABSENT:
        return "absent"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"the number {js_number(float(value)) if isinstance(value, float) else value}"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        return f"the string {text if len(text) <= 40 else text[:39] + '…'}"
    return "an array" if isinstance(value, list | tuple) else "an object"


class ShapeError(ValueError):
    """A value of a file ablation wrote is not the shape ablation writes.

    Attributes:
        where: the JSON Pointer of the value (``""`` for the whole file).
        found: the value (``absent`` when a required member is missing).
        wanted: what it should be, with its article (``a count``).
        detail: the whole explanation, when it is not ``<where> is <found>, not <wanted>``.
    """

    def __init__(self, where: str, found: object, wanted: str, detail: str | None = None) -> None:
        super().__init__(where, wanted)
        self.where, self.found, self.wanted, self.detail = where, found, wanted, detail

    def __str__(self) -> str:
        if self.detail is not None:
            return self.detail
        return f"{self.where or 'the file'} is {json_kind(self.found)}, not {self.wanted}"


@dataclass(frozen=True, slots=True)
class Kind(Generic[T]):
    """One JSON kind a member may have: what it is called in messages and how a parsed value is checked.

    Attributes:
        wanted: the kind in words, with its article (``a count``).
        check: ``(value, pointer) -> typed value``; raises :class:`ShapeError`.
    """

    wanted: str
    check: Callable[[object, str], T]

    def __call__(self, value: object, where: str) -> T:
        """The typed value of ``value`` found at ``where``."""
        return self.check(value, where)


def _simple(wanted: str, test: Callable[[object], bool]) -> Kind[Any]:
    def check(value: object, where: str) -> object:
        if not test(value):
            raise ShapeError(where, value, wanted)
        return value

    return Kind(wanted, check)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER


TEXT: Kind[str] = _simple("a string", lambda v: isinstance(v, str))
FLAG: Kind[bool] = _simple("a boolean", lambda v: isinstance(v, bool))
INTEGER: Kind[int] = _simple("an integer", _is_int)
COUNT: Kind[int] = _simple("a count", lambda v: _is_int(v) and v >= 0)  # type: ignore[operator]  # _is_int: an int
NUMBER: Kind[int | float] = _simple("a number", lambda v: _is_int(v) or (isinstance(v, float) and v == v))
EXACT: Kind[str] = _simple(
    "an exact fraction n or n/d with d > 0", lambda v: isinstance(v, str) and FRACTION.fullmatch(v) is not None
)


def nullable(kind: Kind[T]) -> Kind[T | None]:
    """``kind`` or ``null``."""
    return Kind(f"{kind.wanted} or null", lambda v, w: None if v is None else kind(v, w))


def array_of(kind: Kind[T]) -> Kind[tuple[T, ...]]:
    """An array whose every element is of ``kind``, as a tuple."""

    def check(value: object, where: str) -> tuple[T, ...]:
        if not isinstance(value, list):
            raise ShapeError(where, value, "an array")
        return tuple(kind(element, child(where, k)) for k, element in enumerate(value))

    return Kind("an array", check)


def object_of(kind: Kind[T]) -> Kind[Mapping[str, T]]:
    """An object whose every member is of ``kind``, as a read-only mapping in file order."""

    def check(value: object, where: str) -> Mapping[str, T]:
        if not isinstance(value, dict):
            raise ShapeError(where, value, "an object")
        return MappingProxyType({name: kind(v, child(where, name)) for name, v in value.items()})

    return Kind("an object", check)


def freeze(value: object) -> object:
    """A parsed JSON value made immutable: objects as read-only mappings, arrays as tuples."""
    if isinstance(value, dict):
        return MappingProxyType({name: freeze(v) for name, v in value.items()})
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    return value


def _json_object(value: object, where: str) -> Mapping[str, object]:
    if not isinstance(value, dict):
        raise ShapeError(where, value, "an object")
    frozen = freeze(value)
    assert isinstance(frozen, Mapping)  # freeze keeps an object an object
    return frozen


JSON_OBJECT: Kind[Mapping[str, object]] = Kind("an object", _json_object)
TEXTS: Kind[tuple[str, ...]] = array_of(TEXT)


def dump(value: object) -> object:
    """The JSON value of a typed one: records by :meth:`Record.to_json`, tuples as lists, mappings as dicts."""
    if isinstance(value, Record):
        return value.to_json()
    if isinstance(value, tuple):
        return [dump(v) for v in value]
    if isinstance(value, Mapping):
        return {name: dump(v) for name, v in value.items()}
    return value


def member(name: str, kind: Kind[Any], *, optional: bool = False) -> Any:
    """A record field holding the JSON member ``name`` of ``kind``; an ``optional`` one may be absent (``None``)."""
    return dataclasses.field(metadata={"json": name, "kind": kind, "optional": optional})


@dataclass(frozen=True, slots=True)
class _Member:
    attribute: str
    name: str
    kind: Kind[Any]
    optional: bool


class Record:
    """Base of the typed records: :meth:`from_json` and :meth:`to_json` from the fields' :func:`member` data."""

    __slots__ = ()
    _members: ClassVar[dict[type, tuple[_Member, ...]]] = {}

    @classmethod
    def _spec(cls) -> tuple[_Member, ...]:
        spec = Record._members.get(cls)
        if spec is None:
            spec = tuple(
                _Member(f.name, f.metadata["json"], f.metadata["kind"], f.metadata["optional"])
                for f in dataclasses.fields(cls)  # type: ignore[arg-type]  # every Record is a dataclass
            )
            Record._members[cls] = spec
        return spec

    @classmethod
    def from_json(cls, value: object, where: str = "") -> Self:
        """The record of a parsed JSON object found at ``where`` (a JSON Pointer).

        Raises:
            ShapeError: not an object, a member ablation never writes, a missing member, or a member of another kind.
        """
        if not isinstance(value, dict):
            raise ShapeError(where, value, "an object")
        spec = cls._spec()
        names = {m.name for m in spec}
        for name in value:
            if name not in names:
                shown = json.dumps(name, ensure_ascii=False)
                detail = f"{where or 'the file'} has the member {shown}, which ablation never writes"
                raise ShapeError(where, value, "", detail)
        fields: dict[str, object] = {}
        for m in spec:
            if m.name in value:
                fields[m.attribute] = m.kind(value[m.name], child(where, m.name))
            elif m.optional:
                fields[m.attribute] = None
            else:
                raise ShapeError(child(where, m.name), _ABSENT, m.kind.wanted)
        return cls(**fields).checked(where)

    def checked(self, where: str) -> Self:
        """This record once the checks across its members passed (none here; a subclass may add some).

        Raises:
            ShapeError: a subclass's check failed (``where`` names the record).
        """
        return self

    def to_json(self) -> dict[str, object]:
        """The JSON object of this record (optional members that are ``None`` left out)."""
        out: dict[str, object] = {}
        for m in self._spec():
            value = getattr(self, m.attribute)
            if value is None and m.optional:
                continue
            out[m.name] = dump(value)
        return out


def record(cls: type[T]) -> Kind[T]:
    """The kind of a :class:`Record` subclass."""
    assert issubclass(cls, Record)
    return Kind("an object", cls.from_json)
