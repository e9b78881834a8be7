"""Ctrl-C (SIGINT) and SIGTERM: one line on stderr, no traceback, exit 130 or 143, no partial output.

:func:`interruptible` turns either signal into :class:`Interrupted` for the
length of a command; :mod:`ablation.cli` reports it (one line, exit 130 or 143). A file
being published (:func:`ablation.output.write_exclusive`: the temporary
written, linked into place, removed, the folder fsynced) runs inside
:func:`deferred`, so a signal never leaves a temporary behind or cuts a
publication in half: it is held and raised at the end, and the command stops
there. A signal the caller
ignores (``SIG_IGN``, as ``nohup`` does) stays ignored. SIGKILL cannot be
caught: it may leave a temporary ``.<name>.tmp-<pid>-<random>``, never a
partial output.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Iterator
from types import FrameType

TYPE_CHECKING = False  # not typing's: the start-up modules do not import typing (ablation.closure.record)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Interrupted", "deferred", "interruptible", "report_stop"]

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived; a ``BaseException``, so that no ``except Exception`` can swallow it.

    Attributes:
        signum: the signal's number.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        """128 plus the signal's number, as a shell reports a command a signal ended: 130 or 143."""
        return 128 + self.signum

    def __str__(self) -> str:
        """``interrupted by SIGINT; …``: the line :mod:`ablation.cli` prints after ``ablation:``."""
        return (
            f"interrupted by {signal.Signals(self.signum).name}; stopped "
            "(an output file is written completely or not at all)"
        )


def report_stop(program: str, exc: Interrupted | KeyboardInterrupt) -> int:
    """Print ``<program>: interrupted by …`` on stderr for ``exc`` (a ``KeyboardInterrupt`` is SIGINT);
    return its exit code, 130 or 143. What both command lines do with a signal that ended a command."""
    stopped = exc if isinstance(exc, Interrupted) else Interrupted(signal.SIGINT)
    print(f"{program}: {stopped}", file=sys.stderr)  # noqa: T201 - the line both command lines print
    return stopped.exit_code


class _Held:
    """While ``depth`` > 0 a signal is only noted in ``pending``; :func:`deferred` raises it at the end.

    ``raised`` notes every signal raised as :class:`Interrupted`, so that :func:`interruptible` can
    raise it again when it was swallowed where it landed.
    """

    depth = 0
    pending: list[int] = []  # noqa: RUF012 - one process-wide record, never copied
    raised: list[int] = []  # noqa: RUF012 - one process-wide record, never copied


def _raise(signum: int, _frame: FrameType | None) -> None:
    if _Held.depth:
        _Held.pending.append(signum)
        return
    _Held.raised.append(signum)
    raise Interrupted(signum)


def _set_handlers() -> list[tuple[signal.Signals, Any]] | None:
    """Make :func:`_raise` the handler of SIGINT and SIGTERM (an ignored one left alone): the handlers it
    replaced, or ``None`` outside the main thread, where ``signal.signal`` raises ``ValueError`` (so the
    start need not import ``threading`` to ask which thread this is)."""
    previous: list[tuple[signal.Signals, Any]] = []
    for signum in _SIGNALS:
        handler = signal.getsignal(signum)
        if handler is signal.SIG_IGN:
            continue
        try:
            signal.signal(signum, _raise)
        except ValueError:  # not the main thread: only it can set a handler
            _restore(previous)
            return None
        previous.append((signum, handler))
    return previous


def _restore(previous: list[tuple[signal.Signals, Any]]) -> None:
    for signum, handler in previous:  # None: a handler not set from Python; the default stands for it
        signal.signal(signum, signal.SIG_DFL if handler is None else handler)


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM raise :class:`Interrupted`; the previous handlers are restored after.

    Only the main thread can set signal handlers: elsewhere (a command run
    from another thread) the block runs with the handlers as they are. A
    signal set to ``SIG_IGN`` is left alone.

    The handler raises where the signal lands. Where that is code whose exceptions
    the interpreter only reports (a weak reference's callback, such as the import
    system's module locks; a ``__del__``), ``Exception ignored in: …`` is printed and
    the block goes on; the signal is then raised again when the block ends, so a
    command that finishes after it still ends as interrupted, never with 0.
    """
    previous = _set_handlers()
    if previous is None:
        yield
        return
    _Held.raised.clear()
    try:
        yield
    finally:
        _restore(previous)
        swallowed = _Held.raised[:1]
        _Held.raised.clear()
    if swallowed:  # reached only when the block ended without an exception: the signal was swallowed
        raise Interrupted(swallowed[0])


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Within the block a SIGINT or SIGTERM is held; it raises :class:`Interrupted` as the block ends.

    For short steps that must not be cut in half, such as publishing a file.
    It holds what :func:`interruptible`'s handlers receive, whichever thread
    the kernel delivered the signal to.
    """
    _Held.depth += 1
    try:
        yield
    finally:
        _Held.depth -= 1
        if not _Held.depth and _Held.pending:
            signum = _Held.pending[0]
            _Held.pending.clear()
            raise Interrupted(signum)
