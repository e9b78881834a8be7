"""``ablation.closure.record.Record`` makes at run time the class ``typing.NamedTuple`` would make.

Each case defines one class body twice, once on ``Record`` and once on
``typing.NamedTuple``, and compares what they do. The start-up modules' own
records are checked for their fields and defaults
(``tests/closure/test_start_imports.py``: they import no ``typing``).
"""

from __future__ import annotations

import pickle
import typing

import pytest

from ablation.closure import check, layout, manifest, problem
from ablation.closure.record import Record

BODY = '''
class Entry(Base):
    """An entry."""

    path: str
    kind: str = "file"
    size: int = 0
    LIMIT = 10

    def label(self) -> str:
        return f"{self.path}:{self.kind}"

    @property
    def large(self) -> bool:
        return self.size > self.LIMIT
'''


def _make(base: type, body: str = BODY) -> type:
    space: dict[str, object] = {"Base": base, "__name__": "made"}
    exec(body, space)  # the test's own class body
    made = space["Entry"]
    assert isinstance(made, type)
    return made


def test_the_same_class_both_ways() -> None:
    ours, theirs = _make(Record), _make(typing.NamedTuple)
    assert ours._fields == theirs._fields == ("path", "kind", "size")  # type: ignore[attr-defined]
    assert ours._field_defaults == theirs._field_defaults == {"kind": "file", "size": 0}  # type: ignore[attr-defined]
    assert (ours.__name__, ours.__qualname__, ours.__module__, ours.__doc__) == (
        theirs.__name__,
        theirs.__qualname__,
        theirs.__module__,
        theirs.__doc__,
    )
    a, b = ours("x", size=11), theirs("x", size=11)
    assert repr(a) == repr(b) == "Entry(path='x', kind='file', size=11)"
    assert a == b == ("x", "file", 11)
    assert hash(a) == hash(b)
    assert (a.label(), a.large, a.LIMIT) == (b.label(), b.large, b.LIMIT) == ("x:file", True, 10)
    assert a._replace(kind="dir") == b._replace(kind="dir") == ("x", "dir", 11)
    assert a._asdict() == b._asdict()
    assert list(ours.__annotations__) == list(theirs.__annotations__)  # typing wraps the texts in ForwardRef
    assert isinstance(a, tuple)
    assert not hasattr(a, "__dict__")
    with pytest.raises(TypeError):
        ours()


def test_a_field_without_default_after_one_with_is_refused_both_ways() -> None:
    body = "class Entry(Base):\n    a: int = 1\n    b: int\n"
    for base in (Record, typing.NamedTuple):
        with pytest.raises(TypeError):
            _make(base, body)


@pytest.mark.parametrize("name", ["_replace", "_fields", "__new__", "__init__", "_asdict", "_make"])
def test_overwriting_the_tuples_own_members_is_refused_both_ways(name: str) -> None:
    body = f"class Entry(Base):\n    a: int\n    def {name}(self): pass\n"
    for base in (Record, typing.NamedTuple):
        with pytest.raises(AttributeError):
            _make(base, body)


@pytest.mark.parametrize(
    ("record", "fields", "defaults"),
    [
        (problem.Problem, ("path", "layer", "what"), {}),
        (layout.Layout, ("prefix", "site", "stdlib"), {}),
        (layout.TreeEntry, ("path", "kind", "sha256"), {}),
        (check.ClosureReport, ("state", "problems"), {}),
    ],
)
def test_the_start_up_records(record: type, fields: tuple[str, ...], defaults: dict[str, object]) -> None:
    assert record._fields == fields  # type: ignore[attr-defined]
    assert record._field_defaults == defaults  # type: ignore[attr-defined]
    assert tuple(record.__annotations__) == fields


def test_the_manifest_record_keeps_its_defaults() -> None:
    made = manifest.Manifest({}, {}, (), "sha256:x")
    assert (made.environment, dict(made.trees)) == ("other", {})
    assert made.absent == manifest.Manifest._field_defaults["absent"]
    assert pickle.loads(pickle.dumps(problem.Problem("a", "stdlib", "b"))) == ("a", "stdlib", "b")
