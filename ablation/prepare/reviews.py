"""The cases review (``cases-review.toml``): bound to the experiment file's bytes, one decision per repository.

.. code-block:: toml

    [[repository]]
    id = "engineering-core"                  # the experiment's repository id, exactly
    decision = "ACCEPT"                      # or "REJECT"
    reviewer = "R. Roe"
    reviewed_experiment_sha256 = "<64 hex>"  # the experiment file's SHA-256, as check prints it
    notes = "questions independent of the truth files' names"

:func:`read_cases_review` checks, in this order, and raises the first failure:

1. CAP-1: UTF-8 TOML; only ``[[repository]]`` tables, each with exactly the keys
   above, each a string; ``reviewer`` nonblank (exit 4);
2. CAP-3: exactly one entry per repository of the experiment, and no other (exit 4);
3. CAP-2: every ``reviewed_experiment_sha256`` is the experiment file's SHA-256;
   a review of other bytes says nothing about these (exit 3, naming both hashes);
4. CAP-4: every decision is ``ACCEPT``: ``capture`` runs only then (exit 4).

``<where>`` is the review file as given, `` -> `` and the TOML location.

Spec: PREPARE.md §3 ("Review files are TOML too"), §4, §8.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass

from ablation.contracts.base import show
from ablation.prepare.findings import EXIT_INTEGRITY, Finding, Findings, PrepareRejected
from ablation.prepare.schema import Table
from ablation.prepare.tomltext import where

__all__ = ["DECISIONS", "REVIEW_KEYS", "CasesReview", "ReviewEntry", "read_cases_review"]

REVIEW_KEYS = ("id", "decision", "reviewer", "reviewed_experiment_sha256", "notes")
"""The closed key list of a cases review's ``[[repository]]`` entry, all required."""
DECISIONS = ("ACCEPT", "REJECT")


@dataclass(frozen=True, slots=True)
class ReviewEntry:
    """One ``[[repository]]`` entry of the review."""

    index: int
    id: str
    decision: str
    reviewer: str
    reviewed_experiment_sha256: str
    notes: str


@dataclass(frozen=True, slots=True)
class CasesReview:
    """A cases review that binds to the experiment and ACCEPTs every repository."""

    path: str
    sha256: str
    entries: tuple[ReviewEntry, ...]


def _refuse(rule: str, path: str, at: str, expected: str, found: str, *, exit_code: int = 4) -> PrepareRejected:
    return PrepareRejected([Finding(rule, f"{path} -> {at}", expected, found, exit_code=exit_code)])


def _entries(path: str, data: bytes) -> list[ReviewEntry]:
    """CAP-1: the file's shape; the entries."""
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise _refuse("CAP-1", path, "(top level)", "a UTF-8 TOML 1.0 document", str(exc)) from None
    findings = Findings()
    top = Table(document, (), ("repository",), findings)
    tables = top.tables("repository", REVIEW_KEYS) or []
    entries = []
    for k, table in enumerate(tables):
        values = [table.string(key) for key in REVIEW_KEYS]
        if all(v is not None for v in values):
            entries.append(ReviewEntry(k, *(str(v) for v in values)))
    if findings.errors:
        first = findings.errors[0]
        raise _refuse("CAP-1", path, first.where, first.expected, first.found)
    for entry in entries:
        if not entry.reviewer.strip():
            at = where("repository", entry.index, "reviewer")
            raise _refuse("CAP-1", path, at, "the reviewer's name", show(entry.reviewer))
    return entries


def read_cases_review(path: str, data: bytes, *, experiment_sha256: str, repository_ids: list[str]) -> CasesReview:
    """Read and check a cases review (the module docstring's four steps).

    Args:
        path: the file as named on the command line (messages name it).
        data: its bytes.
        experiment_sha256: the experiment file's SHA-256 (bare hex).
        repository_ids: the experiment's repository ids, in order.

    Raises:
        PrepareRejected: CAP-1, CAP-3, CAP-4 (exit 4), CAP-2 (exit 3).
    """
    entries = _entries(path, data)
    by_id: dict[str, ReviewEntry] = {}
    for entry in entries:
        at = where("repository", entry.index, "id")
        if entry.id not in repository_ids:
            raise _refuse("CAP-3", path, at, "the id of a repository of the experiment", show(entry.id))
        if entry.id in by_id:
            found = f"a second entry for {show(entry.id)} (first: {where('repository', by_id[entry.id].index)})"
            raise _refuse("CAP-3", path, at, "one entry per repository", found)
        by_id[entry.id] = entry
    for repository_id in repository_ids:
        if repository_id not in by_id:
            expected = f"an entry for every repository of the experiment ({show(repository_id)} too)"
            raise _refuse("CAP-3", path, "repository", expected, f"no entry with id {show(repository_id)}")
    for entry in entries:
        if entry.reviewed_experiment_sha256 != experiment_sha256:
            at = where("repository", entry.index, "reviewed_experiment_sha256")
            expected = f"the SHA-256 of the experiment file, {experiment_sha256}"
            found = f"{show(entry.reviewed_experiment_sha256)}: the review is of other bytes"
            raise _refuse("CAP-2", path, at, expected, found, exit_code=EXIT_INTEGRITY)
    for entry in entries:
        if entry.decision != "ACCEPT":
            at = where("repository", entry.index, "decision")
            what = "a REJECT" if entry.decision == "REJECT" else f"{show(entry.decision)}, not a decision"
            raise _refuse("CAP-4", path, at, "'ACCEPT' (capture runs only when every repository is accepted)", what)
    return CasesReview(path, hashlib.sha256(data).hexdigest(), tuple(entries))
