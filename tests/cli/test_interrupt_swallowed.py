"""A SIGINT or SIGTERM that lands where the interpreter only reports exceptions still ends the command.

The handler of :func:`ablation.interrupts.interruptible` raises where the signal
lands. In a weak reference's callback (the import system's module locks have
one) or a ``__del__``, the interpreter prints ``Exception ignored in: …`` and
goes on; the command used to finish and exit 0 (seen about once in 250 runs of
``timeout -s TERM … ablation archive``). The block now raises the signal again
when it ends.
"""

from __future__ import annotations

import signal
import sys
import weakref
from collections.abc import Iterator

import pytest

from ablation.interrupts import Interrupted, deferred, interruptible


class _Thing:
    pass


@pytest.fixture(autouse=True)
def _sigint_handled() -> Iterator[None]:
    """SIGINT as a foreground job has it: a test run in the background (nohup, CI) inherits it ignored,
    and :func:`interruptible` leaves an ignored signal alone."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _swallowing(signum: int) -> tuple[_Thing, weakref.ref[_Thing]]:
    """An object whose weak reference's callback raises ``signum`` (in the callback, so it is only reported)."""
    thing = _Thing()
    return thing, weakref.ref(thing, lambda _ref: signal.raise_signal(signum))


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_swallowed_signal_is_raised_when_the_block_ends(signum: int, monkeypatch: pytest.MonkeyPatch) -> None:
    reported: list[BaseException | None] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: reported.append(unraisable.exc_value))
    finished = False
    with pytest.raises(Interrupted) as raised, interruptible():
        thing, ref = _swallowing(signum)
        del thing  # the callback runs here; its Interrupted is only reported
        finished = True
    assert (finished, raised.value.signum, ref() is None) == (True, signum, True)
    assert [type(error) for error in reported] == [Interrupted]


def test_a_signal_that_propagates_is_raised_once() -> None:
    with pytest.raises(Interrupted), interruptible():
        signal.raise_signal(signal.SIGTERM)
    with interruptible():  # nothing left over for the next block
        pass


def test_a_held_signal_is_not_raised_twice() -> None:
    with pytest.raises(Interrupted) as raised, interruptible(), deferred():
        signal.raise_signal(signal.SIGINT)
    assert raised.value.signum == signal.SIGINT
    with interruptible():
        pass
