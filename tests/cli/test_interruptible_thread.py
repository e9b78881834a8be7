""":func:`ablation.interrupts.interruptible` in the main thread and in another one.

Only the main thread can set signal handlers. The start no longer imports
``threading`` to ask which thread it runs in (decision 20): ``signal.signal``
raises ``ValueError`` elsewhere, and the block then runs with the handlers as
they are, as before.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator

import pytest

from ablation import interrupts
from ablation.interrupts import Interrupted, interruptible


@pytest.fixture(autouse=True)
def _sigint_handled() -> Iterator[None]:
    """SIGINT as a foreground job has it (a background test run inherits it ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _handlers() -> tuple[object, object]:
    return signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)


def test_in_the_main_thread_both_signals_raise_and_the_handlers_come_back() -> None:
    before = _handlers()
    with interruptible():
        inside = _handlers()
    assert inside == (interrupts._raise, interrupts._raise)
    assert _handlers() == before
    with pytest.raises(Interrupted) as raised, interruptible():
        signal.raise_signal(signal.SIGTERM)
    assert raised.value.exit_code == 143


def test_in_another_thread_the_block_runs_with_the_handlers_as_they_are() -> None:
    before = _handlers()
    seen: list[object] = []

    def body() -> None:
        try:
            with interruptible():
                seen.append(_handlers())
                seen.append("ran")
        except BaseException as error:  # whatever escaped the block is the finding
            seen.append(error)

    worker = threading.Thread(target=body)
    worker.start()
    worker.join()
    assert seen == [before, "ran"]
    assert _handlers() == before


def test_an_exception_in_another_thread_s_block_is_not_chained_to_the_refusal() -> None:
    caught: list[BaseException] = []

    def body() -> None:
        try:
            with interruptible():
                raise KeyError("x")
        except KeyError as error:
            caught.append(error)

    worker = threading.Thread(target=body)
    worker.start()
    worker.join()
    assert [(type(error), error.__context__) for error in caught] == [(KeyError, None)]
