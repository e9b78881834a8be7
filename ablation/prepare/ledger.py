"""The ledger ``D/attempts.jsonl``: every invocation, attempt, spawn and file of a preparation, append-only.

One JSON object per line (``json.dumps(entry, ensure_ascii=False,
separators=(",", ":"))`` and a line feed), written with ``O_APPEND`` and
fsynced line by line, so a crash loses at most the line being written. Nothing
is ever rewritten. Every entry starts with ``seq`` (1, 2, … in file order) and
``entry`` (its kind); the other members by kind:

- ``capture``: one per invocation: ``invocation``, ``prepare`` (the program and
  its version), ``experimentSha256``, ``casesReviewSha256``, ``fileAccess``
  (``traced`` or ``asserted``), ``allowUnavailableStructural`` (the list in force),
  ``resume``, ``retry``, ``workRoot``, ``tools`` (per ``[tools.*]`` key: ``path``,
  ``realpath``, ``size``, ``sha256``, ``extraPins`` (the same of each extra pin) when it
  has any, and ``revision`` for ``source_list`` and ``sci``);
- ``retry``: ``step``, ``attempt`` (the new one), ``reason``;
- ``begin``: ``step``, ``attempt``, ``kind`` (``tool-version``, ``clone``,
  ``source-list``, ``sci``), ``folder`` (the attempt folder, relative to D),
  ``runFolder`` (its HOME/TMPDIR folder under ``work_root``);
- ``started``: ``step``, ``attempt``, ``spawn``, ``pid`` (an owner's process group, written
  before ``capture`` waits for it);
- ``spawn``: ``step``, ``attempt``, ``spawn`` (its name), ``kind`` (``git``,
  ``source-list``, ``sci``, ``tool-version``), ``argv`` (what ran), ``cwd`` (a label),
  ``environment``, ``environmentSha256``, ``toolSha256`` (each pinned file hashed right
  before the spawn), ``startNs``, ``endNs``, ``exitCode``, ``signal``, ``timedOut``,
  ``outputCapExceeded``, ``interrupted``, ``orphans``, ``killed``, ``groupConfirmed``,
  ``graceS``, ``notStarted``, ``stdout`` and ``stderr`` (each ``{file, bytes, sha256}``);
- ``request``: ``step``, ``attempt``, ``file`` (the request file under ``work_root``),
  ``sha256``, ``reused`` (an existing file with identical bytes);
- ``file``: ``step`` and ``attempt`` (``null`` for a file of D itself), ``file``
  (relative to D), ``bytes``, ``sha256``: every file written into D other than a
  spawn's stdout and stderr;
- ``end``: ``step``, ``attempt``, ``outcome`` (``succeeded``, ``unavailable``,
  ``failed``), ``rule`` and ``message`` (the failing rule and its one-line message,
  else ``null``).

An attempt whose ``begin`` has no ``end`` is *open*: ``capture`` ended during it
(a crash, ``kill -9``). ``--resume`` treats it as failed.

Spec: PREPARE.md §4 ("Ledger", "Attempts, resume and retry"), §5.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = [
    "LEDGER_NAME",
    "OUTCOMES",
    "USABLE",
    "Attempt",
    "Ledger",
    "LedgerDamaged",
    "LedgerView",
    "StepHistory",
    "read_ledger",
]

LEDGER_NAME = "attempts.jsonl"
"""The ledger's file name in D."""
OUTCOMES = ("succeeded", "unavailable", "failed")
"""How an attempt ends."""
USABLE = frozenset({"succeeded", "unavailable"})
"""The outcomes that make an attempt its step's usable attempt (at most one per step)."""


class LedgerDamaged(Exception):
    """The ledger is not what ``capture`` writes: a line that is not a JSON object, a broken sequence, a torn end."""


@dataclass(slots=True)
class Attempt:
    """One attempt of a step, as the ledger tells it.

    Attributes:
        number: ``k``, from 1.
        kind: the step's kind.
        folder: the attempt folder, relative to D.
        outcome: ``succeeded``, ``unavailable``, ``failed``, or ``None`` while open.
        rule, message: the failing rule and message of an attempt that did not succeed.
        pids: the owner process groups ``started`` entries recorded.
    """

    number: int
    kind: str
    folder: str
    outcome: str | None = None
    rule: str | None = None
    message: str | None = None
    pids: list[int] = field(default_factory=list)


@dataclass(slots=True)
class StepHistory:
    """Every attempt of one step, in order."""

    step: str
    attempts: list[Attempt] = field(default_factory=list)

    @property
    def usable(self) -> Attempt | None:
        """The attempt that succeeded or ended ``unavailable``, if any."""
        return next((a for a in self.attempts if a.outcome in USABLE), None)

    @property
    def last(self) -> Attempt | None:
        """The latest attempt, if any."""
        return self.attempts[-1] if self.attempts else None


def _lines(data: bytes) -> Iterator[tuple[int, dict[str, object]]]:
    if data and not data.endswith(b"\n"):
        raise LedgerDamaged("its last line is incomplete (capture ended while writing it)")
    for n, line in enumerate(data.split(b"\n")[:-1], start=1):
        try:
            entry = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise LedgerDamaged(f"line {n} is not a JSON text") from None
        if not isinstance(entry, dict) or entry.get("seq") != n or not isinstance(entry.get("entry"), str):
            raise LedgerDamaged(f"line {n} is not entry {n} of a ledger")
        yield n, entry


def _apply(steps: dict[str, StepHistory], n: int, entry: dict[str, object]) -> None:
    kind = entry["entry"]
    step = entry.get("step")
    if kind == "begin":
        history = steps.setdefault(str(step), StepHistory(str(step)))
        if entry.get("attempt") != len(history.attempts) + 1:
            raise LedgerDamaged(f"line {n} begins attempt {entry.get('attempt')} of {step}, out of order")
        history.attempts.append(Attempt(len(history.attempts) + 1, str(entry["kind"]), str(entry["folder"])))
        return
    if kind not in ("end", "started"):
        return
    known = steps.get(str(step))
    attempt = known.last if known is not None else None
    if attempt is None or entry.get("attempt") != attempt.number or attempt.outcome is not None:
        raise LedgerDamaged(f"line {n} ({kind}) names no open attempt of {step}")
    if kind == "started":
        pid = entry.get("pid")
        if isinstance(pid, int):
            attempt.pids.append(pid)
        return
    if entry.get("outcome") not in OUTCOMES:
        raise LedgerDamaged(f"line {n} ends {step} with an unknown outcome")
    attempt.outcome = str(entry["outcome"])
    rule, message = entry.get("rule"), entry.get("message")
    attempt.rule = rule if isinstance(rule, str) else None
    attempt.message = message if isinstance(message, str) else None


@dataclass(slots=True)
class LedgerView:
    """A ledger read back: its entries and every step's attempts."""

    entries: list[dict[str, object]]
    steps: dict[str, StepHistory]

    def history(self, step: str) -> StepHistory:
        """The attempts of ``step`` (none yet: an empty history)."""
        return self.steps.get(step) or StepHistory(step)

    def captures(self) -> list[dict[str, object]]:
        """The ``capture`` entries, one per invocation, in order."""
        return [e for e in self.entries if e["entry"] == "capture"]


def read_ledger(path: str) -> LedgerView:
    """Read a ledger back (``--resume``, ``assemble``).

    Raises:
        OSError: it cannot be read.
        LedgerDamaged: a line is not an entry of a ledger, or the attempts do not add up.
    """
    with open(path, "rb") as stream:
        data = stream.read()
    steps: dict[str, StepHistory] = {}
    entries = []
    for n, entry in _lines(data):
        _apply(steps, n, entry)
        entries.append(entry)
    return LedgerView(entries, steps)


class Ledger:
    """The ledger open for appending: each :meth:`append` writes one line and fsyncs it.

    Attributes:
        fd: the open file (``capture`` locks it, so two invocations never write one ledger).
        seq: the ``seq`` of the next entry.

    Args:
        path: ``D/attempts.jsonl``.
        next_seq: the ``seq`` of the next entry (1 for a new ledger).
        create: create the file exclusively (a new preparation) instead of opening it.
    """

    def __init__(self, path: str, *, next_seq: int = 1, create: bool = False) -> None:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW
        self.fd = os.open(path, flags | (os.O_CREAT | os.O_EXCL if create else 0), 0o644)
        self.seq = next_seq

    def append(self, entry: str, **members: object) -> None:
        """Write ``{"seq": …, "entry": entry, **members}`` as one fsynced line."""
        line = json.dumps({"seq": self.seq, "entry": entry, **members}, ensure_ascii=False, separators=(",", ":"))
        data = (line + "\n").encode("utf-8")
        written = 0
        while written < len(data):
            written += os.write(self.fd, data[written:])
        os.fsync(self.fd)
        self.seq += 1

    def close(self) -> None:
        """Close the file (every line is already on disk)."""
        os.close(self.fd)
