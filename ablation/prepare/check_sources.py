"""Checks that read the source repositories, through the audited read-only git helper.

Per repository (PREPARE.md §3 checks 2, 12, 14): the source is a git repository
(a bare one, or the top folder of a checkout: PRE-15); the commit is a commit
object there (PRE-16) reachable from a branch or tag, which is all a clone
copies (PRE-17); at most 20,000 tracked paths (GIT-9), each UTF-8 (GIT-7), each
with a default extension a ``SafePath`` (PRE-18). Per case (checks 6, 8): each
truth path is tracked at the commit in any mode (CASE-10, a preview: capture
checks it against the items again), and each path seed names a tracked path or
a folder holding tracked paths (PRE-19). Where things lie (check 12): no source
inside ``work_root``, and ``work_root`` not inside a source repository (PRE-22).

Nothing here writes; every git command is one of the helper's read-only ones.

Spec: PREPARE.md §3; SPEC.md §4.5 (GIT-7, GIT-9).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ablation.contracts.base import show
from ablation.prepare.check_cases import has_default_extension
from ablation.prepare.check_values import is_within
from ablation.prepare.experiment_file import Experiment, Repository
from ablation.prepare.findings import Findings
from ablation.prepare.gitread import GitFailed, GitReader, TreeEntry
from ablation.prepare.tomltext import where
from ablation.text import is_abs_path, is_commit, is_safe_path

__all__ = ["MAX_TRACKED_PATHS", "RepositoryView", "check_sources", "read_repository"]

MAX_TRACKED_PATHS = 20_000
"""GIT-9: distinct tracked paths at the commit, counted before extension filtering."""

_CLONED_REFS = ("refs/heads/", "refs/tags/")


@dataclass(slots=True)
class RepositoryView:
    """What ``check`` read of one source repository.

    Attributes:
        repository: the ``[[repository]]`` entry.
        bare: whether the source is a bare repository (``None`` when unread).
        extent: the folder it occupies: its git dir when bare, else its top level.
        tracked: every path tracked at the commit (decoded), with its ``ls-tree`` entry;
            ``None`` when the commit could not be read.
        folders: every folder that holds a tracked path (for path seeds).
    """

    repository: Repository
    bare: bool | None = None
    extent: str | None = None
    tracked: dict[str, TreeEntry] | None = None
    folders: set[str] = field(default_factory=set)

    def default_paths(self) -> int:
        """How many tracked paths have a default extension (the paths source-list lists)."""
        return sum(1 for path in self.tracked or {} if has_default_extension(path))


def _read_tree(git: GitReader, view: RepositoryView, findings: Findings) -> None:
    """GIT-9, GIT-7 and PRE-18 on the paths tracked at the commit; fills ``view.tracked``."""
    repo = view.repository
    at = where("repository", repo.index, "commit")
    entries = git.tree(repo.source, repo.commit)
    if len(entries) > MAX_TRACKED_PATHS:
        findings.error("GIT-9", at, f"at most {MAX_TRACKED_PATHS} tracked paths at the commit", f"{len(entries)}")
        return
    tracked: dict[str, TreeEntry] = {}
    for entry in entries:
        try:
            path = entry.path.decode("utf-8")
        except UnicodeDecodeError:
            findings.error("GIT-7", at, "every tracked path in UTF-8", f"the path {entry.path!r}")
            return
        if has_default_extension(path) and not is_safe_path(path):
            expected = "every tracked path with a default extension a SafePath (else SL-13 or GIT-10 at capture)"
            findings.error("PRE-18", at, expected, f"the tracked path {show(path)}")
        tracked[path] = entry
    view.tracked = tracked
    for path in tracked:
        parts = path.split("/")[:-1]
        view.folders.update("/".join(parts[: k + 1]) for k in range(len(parts)))


def read_repository(git: GitReader, repo: Repository, findings: Findings) -> RepositoryView:
    """PRE-15, PRE-16, PRE-17, then :func:`_read_tree`; what was read, even after a finding."""
    view = RepositoryView(repo)
    if not is_abs_path(repo.source) or not is_commit(repo.commit):
        return view  # already reported by the value checks
    at_source = where("repository", repo.index, "source")
    try:
        bare, top = git.locate(repo.source)
    except GitFailed as exc:
        findings.error("PRE-15", at_source, "a git repository the pinned git can read", exc.why)
        return view
    if not (bare or top):
        expected = "a bare repository or the top folder of a checkout"
        findings.error("PRE-15", at_source, expected, "a folder inside a checkout (its .git folder?)")
        return view
    view.bare, view.extent = bare, os.path.realpath(repo.source)
    at = where("repository", repo.index, "commit")
    kind = git.object_type(repo.source, repo.commit)
    if kind != "commit":
        findings.error(
            "PRE-16", at, "a commit object in the source", "no such object" if kind is None else f"a {kind} object"
        )
        return view
    try:
        refs = git.refs_containing(repo.source, repo.commit, *_CLONED_REFS)
        if not refs:
            expected = "a commit reachable from a branch or tag of the source (a clone copies nothing else)"
            findings.error("PRE-17", at, expected, "no branch or tag reaches it")
            return view
        _read_tree(git, view, findings)
    except GitFailed as exc:
        findings.error("PRE-16", at, "a commit the pinned git can read", exc.why)
    return view


def _check_case_paths(experiment: Experiment, views: list[RepositoryView], findings: Findings) -> None:
    """CASE-10 (truth tracked at the commit) and PRE-19 (path seeds), for cases of a repository that was read."""
    by_id = {view.repository.id: view for view in views}
    for case in experiment.cases:
        view = by_id.get(case.repository)
        if view is None or view.tracked is None:
            continue
        for k, path in enumerate(case.truth):
            if is_safe_path(path) and has_default_extension(path) and path not in view.tracked:
                at = where("case", case.index, "truth", k)
                findings.error("CASE-10", at, "a path tracked at the repository's commit", show(path))
        for k, path in enumerate(case.sci.paths if case.sci else ()):
            if is_safe_path(path) and path not in view.tracked and path not in view.folders:
                at = where("case", case.index, "sci", "paths", k)
                expected = "a path tracked at the commit, or a folder holding tracked paths"
                findings.error("PRE-19", at, expected, show(path))


def _check_places(experiment: Experiment, views: list[RepositoryView], findings: Findings) -> None:
    """PRE-22: no source inside ``work_root``; ``work_root`` inside no source repository."""
    if not is_abs_path(experiment.work_root):
        return
    work_root = os.path.realpath(experiment.work_root)
    for view in views:
        if view.extent is None:
            continue
        extent = os.path.realpath(view.extent)
        r = view.repository.index
        if is_within(extent, work_root):
            findings.error(
                "PRE-22",
                where("repository", r, "source"),
                "a repository outside work_root",
                f"{show(extent)}, inside {show(work_root)}",
            )
        elif is_within(work_root, extent):
            expected = "a work_root outside every source repository (clones and request files would dirty it)"
            findings.error(
                "PRE-22",
                where("experiment", "work_root"),
                expected,
                f"inside {where('repository', r)} at {show(extent)}",
            )


def check_sources(git: GitReader, experiment: Experiment, findings: Findings) -> list[RepositoryView]:
    """Read every source repository and check what needs it (PRE-15 … PRE-19, PRE-22, GIT-7, GIT-9, CASE-10).

    Returns:
        One view per repository, in the file's order (``tracked`` is ``None`` where it could not be read).
    """
    views = [read_repository(git, repo, findings) for repo in experiment.repositories]
    _check_case_paths(experiment, views, findings)
    _check_places(experiment, views, findings)
    return views
