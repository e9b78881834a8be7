"""Typed records that cost no ``typing`` import at run time.

``class Problem(Record)`` with annotated fields is, for the type checker,
exactly a ``typing.NamedTuple`` subclass: there ``Record`` *is*
``typing.NamedTuple``. At run time ``Record`` makes the same class the way
``typing.NamedTuple`` does, from :func:`collections.namedtuple`: one field per
annotation, in order; a value given to a field is its default; the docstring,
methods, properties and constants are kept.

Why: the sealed evaluator's start-up modules (the closure check, the command
line) used nothing else of :mod:`typing`, whose import cost 2.5 to 4.5 ms of every
start (decision 20). ``tests/closure/test_record.py`` makes each record both
ways and compares them.
"""

import collections

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: not importing typing is the point
if TYPE_CHECKING:
    from typing import NamedTuple as Record
else:
    _REFUSED = frozenset(
        {"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults", "_make", "_replace"}
        | {"_asdict", "_source"}
    )
    _MADE_HERE = frozenset({"__module__", "__annotations__"})

    class _Making(type):
        """Turns a class body with annotated fields into a named tuple (what ``typing.NamedTupleMeta`` does)."""

        def __new__(cls, name, bases, namespace):
            if not bases:  # Record itself
                return super().__new__(cls, name, bases, namespace)
            annotations = namespace.get("__annotations__", {})
            fields = list(annotations)
            defaults = [namespace[field] for field in fields if field in namespace]
            if fields[len(fields) - len(defaults) :] != [field for field in fields if field in namespace]:
                raise TypeError(f"{name}: a field without a default follows one with a default")
            record = collections.namedtuple(name, fields, defaults=defaults, module=namespace["__module__"])
            record.__annotations__ = dict(annotations)
            for key, value in namespace.items():
                if key in _REFUSED:
                    raise AttributeError(f"{name}: cannot overwrite the named tuple's {key}")
                if key not in _MADE_HERE and key not in fields:
                    setattr(record, key, value)
            return record

    class Record(metaclass=_Making):
        """The base of a typed record (see the module)."""


__all__ = ["Record"]
