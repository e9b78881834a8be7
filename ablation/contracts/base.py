"""Shared helpers of the REJECT contracts: the violation reporter, closed-object and type checks.

Spec: SPEC.md §2.5 (message form), §4.0 (``Closed``, ≡, consequences), §9.3.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeGuard

from ablation.errors import InputRejected, RejectedInput
from ablation.strictjson import child

__all__ = ["SHOW_LIMIT", "Reporter", "child", "closed_problem", "is_int", "same", "show"]


SHOW_LIMIT = 80
_JSON_CONSTANTS: dict[object, str] = {None: "null", True: "true", False: "false"}


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


def is_int(value: object) -> TypeGuard[int]:
    """``Int``: a JSON integer, never a boolean (SPEC §9.3)."""
    return type(value) is int


def closed_problem(value: object, required: Iterable[str], optional: Iterable[str] = ()) -> str | None:
    """Describe why ``value`` is not ``Closed{required; optional}``, or ``None`` when it is.

    Unknown members are reported in document order first, then missing ones in
    the listed order, so the first problem is the same on every run.
    """
    if not isinstance(value, dict):
        return show(value)
    req = tuple(required)
    allowed = set(req) | set(optional)
    for key in value:
        if key not in allowed:
            return f"unknown member {key!r}"
    for key in req:
        if key not in value:
            return f"missing member {key!r}"
    return None


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

    def check_closed(
        self, rule: str, value: object, where: str, required: Iterable[str], optional: Iterable[str] = ()
    ) -> bool:
        """Report ``rule`` unless ``value`` is ``Closed{required; optional}``; return whether it is."""
        req = tuple(required)
        problem = closed_problem(value, req, optional)
        if problem is None:
            return True
        self.fail(rule, where, f"an object with exactly the members {', '.join(req)}", problem)
        return False

    def finish(self) -> None:
        """Raise :class:`RejectedInput` when violations were collected."""
        if self.violations:
            raise RejectedInput(list(self.violations))
