"""``contracts.base``: what every rule family shares — ``show``, ``same``, ``fail``, ``Reporter`` and ``Shape``.

``Shape`` is the one closed-object check, in two wordings: the REJECT
contracts report through a :class:`Reporter` (``Shape.report``,
``Shape.problem``), the bundle contracts raise :class:`BundleInvalid`
(``Shape.check``); the first problem is the same in both. ``show`` is how
every message spells a found value (SPEC §2.5). The last test drops a member
of a closed object of each REJECT family, end to end.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ablation.contracts.base import SHOW_LIMIT, Reporter, Shape, fail, same, show
from ablation.errors import BundleInvalid
from tests.builders.prepared import valid_minimal
from tests.builders.reject import SAMPLE, Obj, first

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


def test_an_absent_optional_member_listed_first_is_not_the_missing_one() -> None:
    """The first *required* member absent is named, though an absent optional one comes before it in the spec."""
    shape = Shape(["a", "o", "b"], ["o"])
    assert shape.problem({"a": 1}) == "missing member 'b'"
    with pytest.raises(BundleInvalid) as info:
        shape.check("RCPT-19", {"a": 1}, "x")
    assert str(info.value) == "RCPT-19 at x: expected an object Closed{a, b; optional o}; found no member 'b'"


def test_a_long_unknown_member_is_cut_in_the_bundle_wording_only() -> None:
    name = "k" * 100
    value = {name: 0}
    assert _bundle_message(value).endswith("found an unknown member '" + "k" * 78 + "… (100 characters)")
    assert _reject_messages(value) == [
        f"SL-12 at /w: expected an object with exactly the members path, kind, symbol; found unknown member {name!r}"
    ]


# ---------------------------------------------------------------- show, same, fail and Shape (contracts/base.py)


def test_show_counts_with_singular_and_plural() -> None:
    assert [show([]), show([1]), show([1, 2]), show({}), show({"a": 1}), show({"a": 1, "b": 2})] == [
        "an array of 0 elements",
        "an array of 1 element",
        "an array of 2 elements",
        "an object with 0 members",
        "an object with 1 member",
        "an object with 2 members",
    ]


def test_show_cuts_at_80_characters_and_names_the_length_of_strings_only() -> None:
    exact = "s" * (SHOW_LIMIT - 2)  # repr adds two quotes: exactly 80 characters
    assert show(exact) == repr(exact)
    longer = "s" * (SHOW_LIMIT - 1)
    assert show(longer) == "'" + "s" * (SHOW_LIMIT - 2) + f"… ({SHOW_LIMIT - 1} characters)"
    big = 10**100
    assert show(big) == str(big)[: SHOW_LIMIT - 1] + "…"


def test_shape_problem_of_a_non_object_shows_it() -> None:
    assert Shape(["a"]).problem(5) == "5"
    assert Shape(["a"]).problem([1]) == "an array of 1 element"
    assert Shape(["a", "o"], ["o"]).problem({"a": 1, "o": 2}) is None
    assert Shape(["a"]).problem({"a": 1, "o": 2}) == "unknown member 'o'"


def test_shape_report_reports_the_members_and_the_problem() -> None:
    rep = Reporter(collect_all=True)
    assert Shape(["a", "o"], ["o"]).report(rep, "X-1", {"a": 1, "o": 2}, "/w") is True
    assert Shape(["a", "b"]).report(rep, "X-1", {"a": 1}, "/w") is False
    assert Shape(["a"]).report(rep, "X-2", {"a": 1, "o": 2}, "/v") is False
    assert [str(v) for v in rep.violations] == [
        "X-1 at /w: expected an object with exactly the members a, b; found missing member 'b'",
        "X-2 at /v: expected an object with exactly the members a; found unknown member 'o'",
    ]


# ---------------------------------------------------------------- shared helpers


def test_same_is_type_strict() -> None:
    assert same(1, 1)
    assert not same(True, 1)
    assert not same(1, True)
    assert not same(0, False)
    assert not same(None, False)
    assert not same({}, {})
    assert not same([1], [1])
    assert same("a", "a")


def test_show_spells_json_constants_as_json() -> None:
    assert [show(None), show(True), show(False), show(0), show(-1), show("null")] == [
        "null",
        "true",
        "false",
        "0",
        "-1",
        "'null'",
    ]


def test_show_truncates_and_stays_on_one_line() -> None:
    assert show("x" * 500) == "'" + "x" * 78 + "… (500 characters)"
    assert show("a\u2028b\nc") == "'a\\u2028b\\nc'"
    assert show([1]) == "an array of 1 element"
    assert show({"a": 1, "b": 2}) == "an object with 2 members"


def test_fail_escapes_the_location() -> None:
    with pytest.raises(BundleInvalid) as info:
        fail("OBS-31", "executionObservation/rawEvidence/processJson -> /a\nb", "x", "y")
    assert (
        str(info.value) == "OBS-31 at executionObservation/rawEvidence/processJson -> /a\\u000ab: expected x; found y"
    )
    with pytest.raises(BundleInvalid) as info:
        fail("SB-1", "", "x", "y")
    assert str(info.value) == 'SB-1 at "": expected x; found y'


def test_shape_optional_member() -> None:
    shape = Shape(("path", "kind", "symbol", "range"), optional=("range",))
    assert shape.fits({"path": 1, "kind": 2, "symbol": 3})
    assert shape.fits({"path": 1, "kind": 2, "symbol": 3, "range": 4})
    assert not shape.fits({"path": 1, "kind": 2})
    assert not shape.fits({"path": 1, "kind": 2, "symbol": 3, "other": 4})
    assert not shape.fits([])
    with pytest.raises(BundleInvalid) as info:
        shape.check("RCPT-19", {"path": 1, "kind": 2}, "x")
    assert (
        str(info.value)
        == "RCPT-19 at x: expected an object Closed{path, kind, symbol; optional range}; found no member 'symbol'"
    )


# ---------------------------------------------------------------- a closed object with a member missing, end to end


def _drop(path: tuple[object, ...], *, reseal: Callable[[Obj], None] | None = None) -> Callable[[Obj], None]:
    def change(obj: Obj) -> None:
        target: Any = obj
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
        if reseal is not None:
            reseal(obj)

    return change


@pytest.mark.parametrize(
    ("path", "rule", "where"),
    [
        (("cases",), "TOP-13", ""),
        (("repositories", 0, "metadataStalenessSample"), "REPO-2", "/repositories/0"),
        (("repositories", 0, "sourceListArtifact", "rawSha256"), "SL-1", "/repositories/0/sourceListArtifact"),
        (("repositories", 0, "metadataStalenessSample", "stalePaths"), "STALE-1", SAMPLE),
        (("cases", 3, "structuralEvidence"), "CASE-2", "/cases/3"),
    ],
    ids=["TOP-13", "REPO-2", "SL-1", "STALE-1", "CASE-2"],
)
def test_closed_object_missing_member(path: tuple[object, ...], rule: str, where: str) -> None:
    obj = valid_minimal()
    _drop(path)(obj)
    assert first(obj) == (rule, where)
