"""Pins of the one closed-object check, ``contracts.base.Shape``, in both of its wordings.

The REJECT contracts report through a :class:`Reporter` (``Shape.report``,
``Shape.problem``); the bundle contracts raise
:class:`BundleInvalid` (``Shape.check``). The first problem is the same in both
(a non-object, then the first unknown member in document order, then the
first missing member in the order of the spec); only the words differ, and
both are pinned here exactly. An optional member may be absent in every entry
point.
SPEC.md §4.0 ``Closed``, §2.5.
"""

from __future__ import annotations

import pytest

from ablation.contracts.base import Reporter, Shape
from ablation.errors import BundleInvalid

SHAPE = Shape(("path", "kind", "symbol", "range"), optional=("range",))


def _bundle_message(value: object) -> str:
    with pytest.raises(BundleInvalid) as info:
        SHAPE.check("RCPT-19", value, "x")
    return str(info.value)


def _reject_messages(value: object) -> list[str]:
    rep = Reporter(collect_all=True)
    assert SHAPE.report(rep, "SL-12", value, "/w") is False
    return [str(v) for v in rep.violations]


def test_an_absent_optional_member_fits_every_entry_point() -> None:
    value = {"path": 1, "kind": 2, "symbol": 3}
    assert SHAPE.fits(value)
    assert SHAPE.check("RCPT-19", value, "x") is value
    rep = Reporter(collect_all=True)
    assert SHAPE.report(rep, "SL-12", value, "/w") is True
    assert SHAPE.problem(value) is None
    assert Shape(["a", "o"], ["o"]).problem({"a": 1}) is None
    assert Shape(["a", "o"], ["o"]).report(rep, "X-1", {"a": 1}, "/w") is True
    assert rep.violations == []


def test_both_wordings_name_the_same_first_problem() -> None:
    unknown = {"zz": 0, "path": 1, "kind": 2, "symbol": 3, "other": 4}
    missing = {"path": 1, "range": 4}
    assert _bundle_message(unknown) == (
        "RCPT-19 at x: expected an object Closed{path, kind, symbol; optional range}; found an unknown member 'zz'"
    )
    assert _reject_messages(unknown) == [
        "SL-12 at /w: expected an object with exactly the members path, kind, symbol; found unknown member 'zz'"
    ]
    assert _bundle_message(missing) == (
        "RCPT-19 at x: expected an object Closed{path, kind, symbol; optional range}; found no member 'kind'"
    )
    assert _reject_messages(missing) == [
        "SL-12 at /w: expected an object with exactly the members path, kind, symbol; found missing member 'kind'"
    ]
    assert _bundle_message([1]) == (
        "RCPT-19 at x: expected an object Closed{path, kind, symbol; optional range}; found an array of 1 element"
    )
    assert _reject_messages(None) == [
        "SL-12 at /w: expected an object with exactly the members path, kind, symbol; found null"
    ]


def test_a_long_unknown_member_is_cut_in_the_bundle_wording_only() -> None:
    name = "k" * 100
    value = {name: 0}
    assert _bundle_message(value).endswith("found an unknown member '" + "k" * 78 + "… (100 characters)")
    assert _reject_messages(value) == [
        f"SL-12 at /w: expected an object with exactly the members path, kind, symbol; found unknown member {name!r}"
    ]
