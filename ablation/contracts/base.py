"""Shared helpers of the contracts: value display, predicates, closed objects, the two failure forms.

Two contract families share these helpers. The REJECT contracts (source
list, git index, preparation, staleness, cases) report through a
:class:`Reporter` (fail fast, or collect every violation); the structural
bundle contracts (request, receipt, execution observation, bundle) stop at the
first failure with :func:`fail`, which raises
:class:`~ablation.errors.BundleInvalid`. Both check closed objects with one
:class:`Shape` declared per object kind.

Spec: SPEC.md §2.5 (message form), §4.0 (``Closed``, ≡, consequences), §9.3.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NoReturn, TypeGuard

from ablation.errors import BundleInvalid, InputRejected, RejectedInput, format_where
from ablation.strictjson import child

__all__ = [
    "SHOW_LIMIT",
    "Reporter",
    "Shape",
    "child",
    "fail",
    "fail_unless_each",
    "fail_unless_same",
    "is_int",
    "same",
    "same_array",
    "show",
]


SHOW_LIMIT = 80
_JSON_CONSTANTS: dict[object, str] = {None: "null", True: "true", False: "false"}
_WHERE_LIMIT = 240


def show(value: object) -> str:
    """Show a parsed JSON value in a failure message: one line, at most about 80 characters.

    JSON spellings: ``null``, ``true``, ``false``, numbers as written (so
    ``true`` and ``1`` stay distinct); strings quoted as Python does, with
    every control character escaped (``'a\\nb'``); containers by their
    size. Use it for expected values too, so a message never mixes
    ``True`` and ``true``.

    >>> [show(None), show(True), show(False), show(1), show("a\\nb"), show([1, 2]), show({})]
    ['null', 'true', 'false', '1', "'a\\\\nb'", 'an array of 2 elements', 'an object with 0 members']
    """
    if isinstance(value, list):
        return f"an array of {len(value)} element{'' if len(value) == 1 else 's'}"
    if isinstance(value, dict):
        return f"an object with {len(value)} member{'' if len(value) == 1 else 's'}"
    if value is None or isinstance(value, bool):
        return _JSON_CONSTANTS[value]
    text = repr(value)
    if len(text) <= SHOW_LIMIT:
        return text
    size = f" ({len(value)} characters)" if isinstance(value, str) else ""
    return f"{text[: SHOW_LIMIT - 1]}…{size}"


def same(a: object, b: object) -> bool:
    """Type-strict ≡ of SPEC §4.0: same JSON type and value; containers are never ≡."""
    return type(a) is type(b) and not isinstance(a, dict | list) and a == b


def same_array(value: object, wanted: Sequence[object]) -> bool:
    """``value`` is an array of exactly ``wanted``'s elements, each ≡ (SPEC §4.0) in order."""
    return (
        isinstance(value, list)
        and len(value) == len(wanted)
        and all(same(a, b) for a, b in zip(value, wanted, strict=True))
    )


def is_int(value: object) -> TypeGuard[int]:
    """``Int``: a JSON integer, never a boolean (SPEC §9.3)."""
    return type(value) is int


# ------------------------------------------------------------------ the two failure forms


class Reporter:
    """Collects REJECT violations: fail fast (the default) or collect all (``--errors all``).

    :meth:`fail` raises :class:`InputRejected` at once in fail-fast mode; in
    collect mode it records the violation and returns, and :meth:`finish`
    raises :class:`RejectedInput` with every violation in the order found.
    Callers skip checks that depend on a failed one.
    """

    def __init__(self, *, collect_all: bool = False) -> None:
        self.collect_all = collect_all
        self.violations: list[InputRejected] = []

    def fail(self, rule: str, where: str, expected: str, found: str) -> None:
        """Report one violation of a REJECT rule (SPEC §2.5 parts)."""
        error = InputRejected(rule, where, expected, found)
        if not self.collect_all:
            raise error
        self.violations.append(error)

    def require_same(
        self, rule: str, obj: Mapping[str, object], member: str, where: str, wanted: object, expected: str
    ) -> None:
        """``obj[member]`` ≡ ``wanted`` (SPEC §4.0), else report ``rule`` at ``<where>/<member>``.

        ``expected`` is the message's expected part; the found part is :func:`show` of the member.

        Raises:
            InputRejected: ``rule``, in fail-fast mode (collected instead with ``--errors all``).
        """
        if not same(obj[member], wanted):
            self.fail(rule, child(where, member), expected, show(obj[member]))

    def finish(self) -> None:
        """Raise :class:`RejectedInput` when violations were collected."""
        if self.violations:
            raise RejectedInput(list(self.violations))


def _one_line(text: str) -> str:
    """Escape every non-printable character (newlines, U+2028, controls) and bound the length."""
    if not text.isprintable():
        text = "".join(ch if ch.isprintable() else f"\\u{ord(ch):04x}" for ch in text)
    if len(text) > _WHERE_LIMIT:
        text = text[: _WHERE_LIMIT - 1] + "…"
    return text


def fail(rule: str, where: str, expected: str, found: str) -> NoReturn:
    """Raise :class:`BundleInvalid` for ``rule`` with the detail ``at <where>: expected …; found …``.

    Args:
        rule: the rule ID, e.g. ``"REQ-7"``.
        where: a JSON Pointer relative to ``/cases/{c}/structuralEvidence``
            without its leading ``/`` (``"expectedRequest/seeds/1/value"``);
            ``""`` for the bundle itself; for an embedded text, the text's
            location, `` -> `` and an inner pointer or ``character N``.
        expected: what the rule requires.
        found: what was found (use :func:`show` for values).

    Raises:
        BundleInvalid: always.
    """
    raise BundleInvalid(rule, f"at {format_where(_one_line(where))}: expected {expected}; found {found}")


def fail_unless_same(
    rule: str, obj: Mapping[str, object], member: str, where: str, wanted: object, expected: str
) -> None:
    """``obj[member]`` ≡ ``wanted`` (SPEC §4.0), else :func:`fail` ``rule`` at ``<where>/<member>``.

    Raises:
        BundleInvalid: ``rule``, with ``expected`` and :func:`show` of the member.
    """
    if not same(obj[member], wanted):
        fail(rule, child(where, member), expected, show(obj[member]))


def fail_unless_each(
    rule: str, obj: Mapping[str, object], where: str, checks: Iterable[tuple[str, Callable[[object], bool], str]]
) -> None:
    """Each ``(member, predicate, expected)`` of ``checks`` in order: the first member that fails its predicate fails.

    Raises:
        BundleInvalid: ``rule`` at ``<where>/<member>``, with ``expected`` and :func:`show` of the member.
    """
    for member, holds, expected in checks:
        if not holds(obj[member]):
            fail(rule, child(where, member), expected, show(obj[member]))


# ------------------------------------------------------------------ closed objects


class Shape:
    """A ``Closed{…; optional …}`` predicate (SPEC §4.0), declared once per object kind.

    The first problem is the same for both contract families: for a
    non-object the value itself; else the first unknown member in document
    order; else the first missing member in the order of the spec. Each family
    words it as its messages always have: :meth:`check` (bundle rules)
    ``expected an object Closed{a, b; optional c}; found an unknown member 'x'``
    or ``… found no member 'x'``; :meth:`report` (REJECT rules)
    ``expected an object with exactly the members a, b; found unknown member 'x'``
    or ``… found missing member 'x'``.

    Args:
        names: every member name, required or optional, in the order of the spec.
        optional: the names that may be absent.
    """

    __slots__ = ("_all", "_closed", "_exactly", "_optional", "_required", "names")

    def __init__(self, names: Iterable[str], optional: Iterable[str] = ()) -> None:
        self.names = tuple(names)
        self._optional = frozenset(optional)
        self._all = frozenset(self.names)
        self._required = self._all - self._optional
        required = ", ".join(n for n in self.names if n not in self._optional)
        self._exactly = f"an object with exactly the members {required}"
        listed = required
        if self._optional:
            listed += "; optional " + ", ".join(n for n in self.names if n in self._optional)
        self._closed = f"an object Closed{{{listed}}}"

    def fits(self, value: object) -> bool:
        """Whether ``value`` satisfies the predicate (no message; the fast path of hot loops)."""
        if type(value) is not dict:
            return False
        keys = value.keys()
        return keys == self._all or bool(self._optional and keys >= self._required and keys <= self._all)

    def _first_problem(self, value: dict[str, object]) -> tuple[bool, str] | None:
        """(True, key) for the first unknown member, (False, key) for the first missing one; ``None`` if it fits."""
        keys = value.keys()
        if keys == self._all or (self._optional and keys >= self._required and keys <= self._all):
            return None
        for key in value:
            if key not in self._all:
                return True, key
        for key in self.names:
            if key not in value and key not in self._optional:
                return False, key
        return None  # pragma: no cover - the two loops cover every other key set

    def problem(self, value: object) -> str | None:
        """The first problem in the REJECT wording (``unknown member 'x'``), or ``None`` when ``value`` fits."""
        if not isinstance(value, dict):
            return show(value)
        found = self._first_problem(value)
        if found is None:
            return None
        unknown, key = found
        return f"{'unknown' if unknown else 'missing'} member {key!r}"

    def report(self, rep: Reporter, rule: str, value: object, where: str) -> bool:
        """Report REJECT ``rule`` through ``rep`` unless ``value`` fits; return whether it fits."""
        problem = self.problem(value)
        if problem is None:
            return True
        rep.fail(rule, where, self._exactly, problem)
        return False

    def check(self, rule: str, value: object, where: str) -> dict[str, object]:
        """Return ``value`` as a dict when it fits; otherwise fail bundle ``rule``.

        Raises:
            BundleInvalid: ``rule`` at ``where``.
        """
        if not isinstance(value, dict):
            fail(rule, where, self._closed, show(value))
        found = self._first_problem(value)
        if found is None:
            return value
        unknown, key = found
        fail(rule, where, self._closed, f"an unknown member {show(key)}" if unknown else f"no member {key!r}")
