"""What ``capture`` left in D, checked against its ledger before anything is built from it (ASM-1, ASM-2).

``assemble`` and ``check-freeze`` read D only after this passes, so a file
changed after capture is never laundered into the input:

- ASM-1 (exit 3): D is a preparation directory ``capture`` wrote: its ledger
  ``attempts.jsonl`` reads back (every line a complete entry, in sequence, every
  attempt in order), and every ``capture`` entry names the SHA-256 of D's
  ``experiment.toml`` and ``cases-review.toml``;
- ASM-2 (exit 3): every file the ledger records (each spawn's stdout and stderr,
  every ``file`` entry) is in D as a regular file with the recorded SHA-256, and D
  holds no other file, except the ledger itself, the files of the later steps
  (``assemble``'s and ``freeze``'s outputs, which their manifests cover) and files in
  the folder of an attempt that failed or was left open (``capture`` ended
  before it could record them; they are listed in the preparation record).

``<where>`` is the file as messages name it: D as given on the command line, then
the path relative to D.

Spec: PREPARE.md §6 ("First it checks every raw file against its ledger SHA-256"), §7, §8.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Collection
from dataclasses import dataclass

from ablation.prepare.capture_setup import EXPERIMENT_COPY, REVIEW_COPY
from ablation.prepare.findings import EXIT_INTEGRITY, Finding, PrepareRejected
from ablation.prepare.ledger import LEDGER_NAME, USABLE, LedgerDamaged, LedgerView, read_ledger
from ablation.prepare.manifest import recorded_difference, walk_files

__all__ = ["CapturedFiles", "check_captured_files", "ledger_files", "read_preparation_ledger"]


def _refuse(rule: str, where: str, expected: str, found: str) -> PrepareRejected:
    return PrepareRejected([Finding(rule, where, expected, found, exit_code=EXIT_INTEGRITY)])


def ledger_files(view: LedgerView) -> dict[str, str]:
    """Every file the ledger records in D (path relative to D → SHA-256): spawn outputs and ``file`` entries."""
    found: dict[str, str] = {}
    for entry in view.entries:
        if entry["entry"] == "spawn":
            for member in ("stdout", "stderr"):
                output = entry[member]
                assert isinstance(output, dict)
                found[str(output["file"])] = str(output["sha256"])
        elif entry["entry"] == "file":
            found[str(entry["file"])] = str(entry["sha256"])
    return found


def read_preparation_ledger(folder: str, shown: str) -> LedgerView:
    """D's ledger read back (ASM-1).

    Args:
        folder: D (absolute).
        shown: D as messages name it.

    Raises:
        PrepareRejected: ASM-1 (exit 3): the ledger cannot be read or is not one ``capture`` wrote.
    """
    where = posixpath.join(shown, LEDGER_NAME)
    try:
        view = read_ledger(os.path.join(folder, LEDGER_NAME))
    except (OSError, LedgerDamaged) as exc:
        found = exc.strerror or str(exc) if isinstance(exc, OSError) else str(exc)
        raise _refuse("ASM-1", where, "the ledger capture wrote, every line complete", found) from None
    if not view.captures():
        raise _refuse("ASM-1", where, "the ledger capture wrote", "no capture entry")
    return view


@dataclass(frozen=True, slots=True)
class CapturedFiles:
    """What :func:`check_captured_files` found besides the recorded files."""

    unrecorded: tuple[str, ...]
    """Files in the folders of failed or open attempts that the ledger does not record (relative to D)."""


def _open_or_failed_folders(view: LedgerView) -> list[str]:
    return [a.folder + "/" for h in view.steps.values() for a in h.attempts if a.outcome not in USABLE]


def check_captured_files(folder: str, shown: str, view: LedgerView, *, later: Collection[str]) -> CapturedFiles:
    """ASM-1 (the copies' SHA-256 in every ``capture`` entry) and ASM-2 (the module docstring).

    Args:
        folder: D (absolute).
        shown: D as messages name it.
        view: the ledger (:func:`read_preparation_ledger`).
        later: the files of the later steps D may hold (paths relative to D), never checked here.

    Raises:
        PrepareRejected: ASM-1 or ASM-2 (exit 3), naming the first file that fails.
    """
    recorded = ledger_files(view)
    for name, member in ((EXPERIMENT_COPY, "experimentSha256"), (REVIEW_COPY, "casesReviewSha256")):
        for capture in view.captures():
            if name in recorded and capture.get(member) != recorded[name]:
                where = posixpath.join(shown, LEDGER_NAME)
                expected = f"every capture entry's {member} the SHA-256 of {name} ({recorded[name]})"
                raise _refuse(
                    "ASM-1", where, expected, f"{capture.get(member)!r} in invocation {capture['invocation']}"
                )
    walk = walk_files(folder)
    if walk.problem is not None:
        path, what = walk.problem
        raise _refuse("ASM-2", posixpath.join(shown, path), "only regular files with safe names in D", what)
    difference = recorded_difference(folder, set(walk.files), recorded)
    if difference is not None:
        relative, sha, found = difference
        where = posixpath.join(shown, relative)
        if found is None:
            raise _refuse("ASM-2", where, f"the file the ledger records (SHA-256 {sha})", "no such regular file")
        raise _refuse("ASM-2", where, f"the SHA-256 the ledger records, {sha}", f"{found}: the file changed")
    loose = _open_or_failed_folders(view)
    unrecorded = []
    for relative in walk.files:
        if relative in recorded or relative == LEDGER_NAME or relative in later:
            continue
        if not any(relative.startswith(prefix) for prefix in loose):
            where = posixpath.join(shown, relative)
            raise _refuse("ASM-2", where, "only files the ledger records in D", "a file the ledger does not record")
        unrecorded.append(relative)
    return CapturedFiles(tuple(unrecorded))
