"""The staleness review (``staleness-review.toml``): bound to ``staleness-sheet.md``, one verdict per repository.

.. code-block:: toml

    [[repository]]
    id = "engineering-core"                 # the experiment's repository id, exactly
    reviewer = "R. Roe"
    decision = "ACCEPT"                     # or "REJECT"
    sheet_sha256 = "<64 hex>"               # the SHA-256 of D/staleness-sheet.md
    sampled = ["src/a.py", "src/b.py"]      # the sheet's sampled paths for this repository, in its order
    stale = ["src/b.py"]                    # the stale ones among them, each once

:func:`read_staleness_review` checks, in this order, and raises the first failure:

1. ASM-4: UTF-8 TOML; only ``[[repository]]`` tables with exactly the keys above
   (strings; ``sampled`` and ``stale`` arrays of strings); ``reviewer`` nonblank;
2. ASM-5: exactly one entry per repository of the experiment, and no other;
3. ASM-6 (exit 3): every ``sheet_sha256`` is the SHA-256 of D's ``staleness-sheet.md``;
   a review of other bytes says nothing about this sample;
4. ASM-7: ``sampled`` is the sheet's list for the repository, in its order, and
   ``stale`` names each of its paths once, all of them sampled;
5. ASM-8: every decision is ``ACCEPT`` (a REJECT stops ``assemble``, nothing written).

``<where>`` is the review file as given, `` -> `` and the TOML location.

Spec: PREPARE.md §3 ("Review files", ``staleness-review.toml``), §6, §8.
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ablation.contracts.base import show
from ablation.prepare.findings import EXIT_INTEGRITY, Finding, Findings, PrepareRejected
from ablation.prepare.schema import Table
from ablation.prepare.tomltext import where

__all__ = ["STALENESS_KEYS", "StalenessEntry", "StalenessReview", "read_staleness_review"]

STALENESS_KEYS = ("id", "reviewer", "decision", "sheet_sha256", "sampled", "stale")
"""The closed key list of a staleness review's ``[[repository]]`` entry, all required."""


@dataclass(frozen=True, slots=True)
class StalenessEntry:
    """One ``[[repository]]`` entry of the staleness review."""

    index: int
    id: str
    reviewer: str
    decision: str
    sheet_sha256: str
    sampled: tuple[str, ...]
    stale: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class StalenessReview:
    """A staleness review that binds to the sheet and ACCEPTs every repository; entries by repository id."""

    path: str
    sha256: str
    entries: dict[str, StalenessEntry]


def _refuse(path: str, rule: str, at: str, expected: str, found: str, *, exit_code: int = 4) -> PrepareRejected:
    return PrepareRejected([Finding(rule, f"{path} -> {at}", expected, found, exit_code=exit_code)])


def _entry(k: int, table: Table) -> StalenessEntry | None:
    texts = [table.string(key) for key in STALENESS_KEYS[:4]]
    lists = [table.strings(key) for key in STALENESS_KEYS[4:]]
    if any(v is None for v in texts) or any(v is None for v in lists):
        return None
    repo_id, reviewer, decision, sheet = (str(v) for v in texts)
    sampled, stale = (tuple(v or ()) for v in lists)
    return StalenessEntry(k, repo_id, reviewer, decision, sheet, sampled, stale)


def _entries(path: str, data: bytes) -> list[StalenessEntry]:
    """ASM-4: the file's shape; the entries."""
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise _refuse(path, "ASM-4", "(top level)", "a UTF-8 TOML 1.0 document", str(exc)) from None
    findings = Findings()
    tables = Table(document, (), ("repository",), findings).tables("repository", STALENESS_KEYS) or []
    entries = [entry for k, table in enumerate(tables) if (entry := _entry(k, table)) is not None]
    if findings.errors:
        first = findings.errors[0]
        raise _refuse(path, "ASM-4", first.where, first.expected, first.found)
    for entry in entries:
        if not entry.reviewer.strip():
            raise _refuse(
                path, "ASM-4", where("repository", entry.index, "reviewer"), "the reviewer's name", show(entry.reviewer)
            )
    return entries


def _one_per_repository(path: str, entries: list[StalenessEntry], ids: Sequence[str]) -> dict[str, StalenessEntry]:
    """ASM-5: exactly one entry per repository; the entries by id."""
    by_id: dict[str, StalenessEntry] = {}
    for entry in entries:
        at = where("repository", entry.index, "id")
        if entry.id not in ids:
            raise _refuse(path, "ASM-5", at, "the id of a repository of the experiment", show(entry.id))
        if entry.id in by_id:
            found = f"a second entry for {show(entry.id)} (first: {where('repository', by_id[entry.id].index)})"
            raise _refuse(path, "ASM-5", at, "one entry per repository", found)
        by_id[entry.id] = entry
    for repository_id in ids:
        if repository_id not in by_id:
            expected = f"an entry for every repository of the experiment ({show(repository_id)} too)"
            raise _refuse(path, "ASM-5", "repository", expected, f"no entry with id {show(repository_id)}")
    return by_id


def _listed(paths: Sequence[str]) -> str:
    return "[" + ", ".join(show(p) for p in paths) + "]"


def _check_lists(path: str, entry: StalenessEntry, sample: Sequence[str]) -> None:
    """ASM-7: ``sampled`` is the sheet's list, in its order; ``stale`` a subset of it, each path once."""
    if list(entry.sampled) != list(sample):
        at = where("repository", entry.index, "sampled")
        expected = f"the sheet's sampled paths of {show(entry.id)}, in its order: {_listed(sample)}"
        raise _refuse(path, "ASM-7", at, expected, _listed(entry.sampled))
    seen: set[str] = set()
    for k, stale in enumerate(entry.stale):
        at = where("repository", entry.index, "stale", k)
        if stale not in sample:
            raise _refuse(path, "ASM-7", at, "a sampled path of this repository", show(stale))
        if stale in seen:
            raise _refuse(path, "ASM-7", at, "each stale path once", f"{show(stale)} a second time")
        seen.add(stale)


def read_staleness_review(
    path: str, data: bytes, *, sheet_sha256: str, samples: Mapping[str, Sequence[str]]
) -> StalenessReview:
    """Read and check a staleness review (the module docstring's five steps).

    Args:
        path: the file as named on the command line (messages name it).
        data: its bytes.
        sheet_sha256: the SHA-256 of D's ``staleness-sheet.md`` (bare hex).
        samples: each repository's sampled paths in UTF-8 order, by id, in the experiment's order.

    Raises:
        PrepareRejected: ASM-4, ASM-5, ASM-7, ASM-8 (exit 4), ASM-6 (exit 3).
    """
    entries = _entries(path, data)
    by_id = _one_per_repository(path, entries, list(samples))
    for entry in entries:
        if entry.sheet_sha256 != sheet_sha256:
            at = where("repository", entry.index, "sheet_sha256")
            expected = f"the SHA-256 of staleness-sheet.md, {sheet_sha256}"
            found = f"{show(entry.sheet_sha256)}: the review is of other bytes"
            raise _refuse(path, "ASM-6", at, expected, found, exit_code=EXIT_INTEGRITY)
    for entry in entries:
        _check_lists(path, entry, samples[entry.id])
    for entry in entries:
        if entry.decision != "ACCEPT":
            at = where("repository", entry.index, "decision")
            what = "a REJECT" if entry.decision == "REJECT" else f"{show(entry.decision)}, not a decision"
            raise _refuse(
                path, "ASM-8", at, "'ACCEPT' (assemble builds the input only when every sample is accepted)", what
            )
    return StalenessReview(path, hashlib.sha256(data).hexdigest(), {rid: by_id[rid] for rid in samples})
