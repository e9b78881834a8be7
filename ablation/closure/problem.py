"""One closure problem, its remedy, and the order problems are reported in (PRODUCT.md "Run-time check")."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ablation.closure import LAYERS
from ablation.errors import IntegrityError

__all__ = ["REMEDY", "Problem", "raise_first"]

_REBUILD = "rebuild the environment (make venv) or the image"
_RESEAL = (
    "the interpreter's files changed since sealing: re-seal (make seal) after a system update, or rebuild the image"
)
_ENTRY = "start the evaluator with the environment's bin/ablation (or python -IB -m ablation)"

REMEDY = {
    "isolation": _ENTRY,
    "environment": "unset it; the sealed evaluator runs with nothing injected",
    "shadow": "run the sealed environment's bin/ablation (isolated), not the checkout",
    "outside": _ENTRY + "; nothing outside the sealed environment may be imported",
    "package": _REBUILD,
    "dependencies": _REBUILD,
    "stdlib": _RESEAL,
    "interpreter": _RESEAL,
}
"""What to do about a problem of each kind: the four layers, and how the process was started."""

_ORDER = tuple(REMEDY)


@dataclass(frozen=True, slots=True)
class Problem:
    """One closure problem: the file (relative to its layer's root, or what is wrong), its kind, what differs.

    ``layer`` is one of the four layers, or ``isolation``, ``environment``,
    ``shadow`` or ``outside`` for problems with how the process was started.
    """

    path: str
    layer: str
    what: str

    def render(self) -> str:
        """``<path> <what> (layer <layer>)``; without the layer for a problem of how the process was started."""
        return f"{self.path} {self.what} (layer {self.layer})" if self.layer in LAYERS else f"{self.path} {self.what}"

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
