"""Where a preparation puts things: ``<nnn>`` names, step ids, paths under ``work_root`` and ``D``.

Entries are named by their 0-based index into the experiment's ``[[repository]]``
or ``[[case]]`` array, zero-padded to :func:`ablation.bundle.layout.pad_width`
of that array (at least 4 digits), never by id. A request path is therefore fixed
by ``work_root`` and the case's index, and so is every digest that covers it.

::

    <work_root>/targets/<nnn>/                   the clones
    <work_root>/requests/<nnn>.json              the request files the observations name
    <work_root>/run/<step>/attempt-<k>/          home/, tmp/, [cwd/] of one invocation
    D/raw/<kind>/<nnn>/attempt-<k>/              what one attempt of a step captured

Spec: PREPARE.md §5.
"""

from __future__ import annotations

import posixpath

from ablation.bundle.layout import pad_width

__all__ = [
    "attempt_folder",
    "indexed",
    "request_path",
    "run_folder",
    "step_folder_name",
    "step_id",
    "target_path",
]


def indexed(index: int, count: int) -> str:
    """``<nnn>``: ``index`` zero-padded to ``pad_width(count)`` digits.

    >>> indexed(3, 24), indexed(12, 10_001)
    ('0003', '00012')
    """
    return f"{index:0{pad_width(count)}d}"


def request_path(work_root: str, case_index: int, case_count: int) -> str:
    """``<work_root>/requests/<nnn>.json``, the request file of a case (frozen into its observation).

    >>> request_path("/evidence/x", 0, 24)
    '/evidence/x/requests/0000.json'
    """
    return posixpath.join(work_root, "requests", f"{indexed(case_index, case_count)}.json")


def target_path(work_root: str, repository_index: int, repository_count: int) -> str:
    """``<work_root>/targets/<nnn>``, the clone of a repository."""
    return posixpath.join(work_root, "targets", indexed(repository_index, repository_count))


def step_id(kind: str, index: int, count: int, action: str) -> str:
    """A ledger step id: ``repo:0000:clone``, ``repo:0000:source-list``, ``case:0016:sci``.

    >>> step_id("case", 16, 24, "sci")
    'case:0016:sci'
    """
    return f"{kind}:{indexed(index, count)}:{action}"


def step_folder_name(step: str) -> str:
    """A step id as a folder name: each ``:`` written as ``-`` (``case-0016-sci``)."""
    return step.replace(":", "-")


def run_folder(work_root: str, step: str, attempt: int) -> str:
    """``<work_root>/run/<step>/attempt-<k>``: the per-invocation HOME, TMPDIR and version-run cwd live here."""
    return posixpath.join(work_root, "run", step_folder_name(step), f"attempt-{attempt}")


def attempt_folder(kind: str, index: int, count: int, attempt: int) -> str:
    """``raw/<kind>/<nnn>/attempt-<k>``, relative to D (``kind``: ``clones``, ``repositories``, ``cases``)."""
    return posixpath.join("raw", kind, indexed(index, count), f"attempt-{attempt}")
