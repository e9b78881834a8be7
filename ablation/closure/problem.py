"""One closure problem, its remedy, and the order problems are reported in (PRODUCT.md "Run-time check")."""

from __future__ import annotations

from collections.abc import Iterable

from ablation.closure import LAYERS
from ablation.closure.boot import REMEDY as _REMEDY
from ablation.closure.boot import shown
from ablation.closure.record import Record
from ablation.errors import IntegrityError

__all__ = ["REMEDY", "Problem", "raise_first"]

REMEDY = _REMEDY
"""What to do about a problem of each kind (:data:`ablation.closure.boot.REMEDY`): how the process was
started (``isolation``, ``environment``, ``system``, ``shadow``, ``outside``), then the four layers."""

_ORDER = tuple(REMEDY)


class Problem(Record):
    """One closure problem: the file (relative to its layer's root, or what is wrong), its kind, what differs.

    ``layer`` is one of the four layers, or ``isolation``, ``environment``,
    ``system``, ``shadow`` or ``outside`` for problems with how the process was started.
    """

    path: str
    layer: str
    what: str

    def render(self) -> str:
        """``<path> <what> (layer <layer>)``; without the layer for a problem of how the process was started
        (the path on one line, :func:`ablation.closure.boot.shown`)."""
        path = shown(self.path)
        return f"{path} {self.what} (layer {self.layer})" if self.layer in LAYERS else f"{path} {self.what}"

    def order(self) -> tuple[int, str]:
        """How problems are sorted: how the process was started first, then by layer and path
        (problems of one file keep the order they were found in)."""
        return _ORDER.index(self.layer), self.path


def raise_first(problems: Iterable[Problem]) -> None:
    """Raise for the first problem, with the count of the others; nothing when there is none.

    Raises:
        IntegrityError: ``closure: <problem>; <remedy> (and N more closure problems)`` (exit 3).
    """
    ordered = sorted(dict.fromkeys(problems), key=Problem.order)
    if not ordered:
        return
    first = ordered[0]
    more = len(ordered) - 1
    suffix = f" (and {more} more closure problem{'s' if more > 1 else ''})" if more else ""
    raise IntegrityError(f"closure: {first.render()}; {REMEDY[first.layer]}{suffix}")
