"""The preparation record's account of what ran: every step, attempt, spawn and file, from the ledger.

Nothing is measured here: every value was recorded by ``capture`` (the ledger
``attempts.jsonl``, each attempt's ``extras.json``) and is restated in one place,
so that the cost disclosure of gate G7 and a reviewer need no other file:

- :func:`steps_record`: per step (plan order) every attempt with its outcome and
  failing rule, whether it is the usable one, and per spawn its argv, cwd label,
  environment and digest, the pinned files' SHA-256 at spawn, duration, exit,
  signal, process-group outcome (orphans, killed, confirmed), and the bytes,
  ``ceil(bytes/4)`` and SHA-256 of stdout and stderr; per file written into the
  attempt folder its bytes, ``ceil(bytes/4)`` and SHA-256;
- :func:`ledger_events`: retries with their reasons, failed and open attempts,
  request files written or reused, and the ``--allow-unavailable-structural``
  lists of every invocation.

``ceil(bytes/4)`` is a rough size, not a tokenizer; durations are monotonic
nanoseconds on the capturing host.

Spec: PREPARE.md §4 ("Ledger", "cost disclosure"), §6 item 2; §11 criterion 13.
"""

from __future__ import annotations

from collections.abc import Iterable

from ablation.prepare.attempts import tokens
from ablation.prepare.capture_setup import Step
from ablation.prepare.ledger import USABLE, LedgerView

__all__ = ["ledger_events", "steps_record"]

_SPAWN_MEMBERS = (
    "kind",
    "argv",
    "cwd",
    "environment",
    "environmentSha256",
    "toolSha256",
    "exitCode",
    "signal",
    "timedOut",
    "outputCapExceeded",
    "interrupted",
    "orphans",
    "killed",
    "groupConfirmed",
    "graceS",
    "notStarted",
)


def _output(entry: object) -> dict[str, object]:
    assert isinstance(entry, dict)
    size = entry["bytes"]
    assert isinstance(size, int)
    return {"file": entry["file"], "bytes": size, "tokensCeil4": tokens(size), "sha256": entry["sha256"]}


def _spawn(entry: dict[str, object]) -> dict[str, object]:
    start, end = entry["startNs"], entry["endNs"]
    assert isinstance(start, int) and isinstance(end, int)
    found: dict[str, object] = {"spawn": entry["spawn"]}
    found.update((member, entry[member]) for member in _SPAWN_MEMBERS)
    found["durationNs"] = end - start
    found["stdout"] = _output(entry["stdout"])
    found["stderr"] = _output(entry["stderr"])
    return found


def _of(entries: Iterable[dict[str, object]], kind: str, step: str, attempt: int) -> list[dict[str, object]]:
    return [e for e in entries if e["entry"] == kind and e.get("step") == step and e.get("attempt") == attempt]


def steps_record(steps: list[Step], view: LedgerView) -> list[dict[str, object]]:
    """Every step of the plan with every attempt the ledger holds (module docstring), in plan order."""
    found = []
    for step in steps:
        history = view.history(step.id)
        usable = history.usable
        attempts = []
        for attempt in history.attempts:
            files = [_output(e) for e in _of(view.entries, "file", step.id, attempt.number)]
            attempts.append(
                {
                    "attempt": attempt.number,
                    "folder": attempt.folder,
                    "outcome": attempt.outcome or "open",
                    "rule": attempt.rule,
                    "message": attempt.message,
                    "usable": usable is not None and usable.number == attempt.number,
                    "spawns": [_spawn(e) for e in _of(view.entries, "spawn", step.id, attempt.number)],
                    "files": files,
                }
            )
        entry: dict[str, object] = {"step": step.id, "kind": step.kind, "attempts": attempts}
        found.append(entry)
    return found


def ledger_events(view: LedgerView) -> dict[str, object]:
    """Retries, failed or open attempts, request files and the allowed-unavailable lists, in ledger order."""
    entries = view.entries
    retries = [
        {"step": e["step"], "attempt": e["attempt"], "reason": e["reason"]} for e in entries if e["entry"] == "retry"
    ]
    failed = [
        {
            "step": h.step,
            "attempt": a.number,
            "folder": a.folder,
            "outcome": a.outcome or "open",
            "rule": a.rule,
            "message": a.message,
        }
        for h in view.steps.values()
        for a in h.attempts
        if a.outcome not in USABLE
    ]
    requests = [
        {"step": e["step"], "attempt": e["attempt"], "file": e["file"], "sha256": e["sha256"], "reused": e["reused"]}
        for e in entries
        if e["entry"] == "request"
    ]
    lists = [{"invocation": e["invocation"], "cases": e["allowUnavailableStructural"]} for e in view.captures()]
    return {"retries": retries, "failedAttempts": failed, "requestFiles": requests, "allowUnavailableStructural": lists}
