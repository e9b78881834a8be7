"""Whole-tree inventories of the closure's folders: nothing may be added anywhere below them.

A layer lists its files with their SHA-256; the interpreter imports whatever it
finds below a ``sys.path`` entry, so a file or folder added next to them (a
``sitecustomize/`` package in the standard library, a module in ``lib-dynload``)
would run without ever being hashed. The manifest therefore also lists, for
each folder root — the environment's folder (``prefix``, a venv), its
``site-packages`` (``site``) and the standard library (``stdlib``) — every entry
that is not a layer file (:func:`collect_tree`, at sealing). At run time
:func:`tree_problems` lists each recorded folder once and compares the names it
holds with the recorded ones: an added or missing name is a problem, and so is a
recorded folder that is now a symbolic link (to a copy holding the same names) or a
recorded file or link of another kind. One directory listing per folder and no ``stat``
per file keeps this cheap (about 300 folders for CPython's standard library; a few
``stat`` for the venv's own files). See ``docs/explanation/threat-model.md``.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Mapping
from itertools import filterfalse

from ablation.closure.problem import Problem

__all__ = ["collect_tree", "tree_problems"]


def _kind(path: str) -> str:
    if os.path.islink(path):
        return "link"
    if os.path.isdir(path):
        return "dir"
    return "file" if os.path.isfile(path) else "other"


def collect_tree(root: str | os.PathLike[str], files: Iterable[str], *, skip: Iterable[str] = ()) -> dict[str, str]:
    """Every entry below ``root`` that is not one of ``files``: relative path → kind (sealing).

    Args:
        root: the folder.
        files: paths relative to ``root`` that a layer (or the local files) lists.
        skip: folders relative to ``root`` recorded as ``skip`` and not entered.

    Kinds: ``dir`` (entered), ``link`` (a symbolic link, never followed), ``file``
    (a regular file no layer lists), ``other`` (a fifo, socket or device), ``skip``.
    """
    listed, skipped = set(files), set(skip)
    entries: dict[str, str] = {}
    pending = [(os.fspath(root), "")]
    while pending:
        here, prefix = pending.pop()
        with os.scandir(here) as listing:
            for entry in listing:
                path = entry.path
                relative = prefix + entry.name
                if relative in skipped:
                    entries[relative] = "skip"
                elif relative not in listed:
                    entries[relative] = _kind(path)
                    if entries[relative] == "dir":
                        pending.append((path, relative + "/"))
    return entries


def tree_problems(
    root: str, tree: Mapping[str, str], files: Collection[str], layer: str, *, only_folders: bool = False
) -> list[Problem]:
    """Every name added to or missing from a recorded folder below ``root`` (run time).

    Each recorded folder is listed once. Usually every name found is recorded and
    there are as many as recorded (:func:`_as_recorded`): nothing more is made.
    Otherwise the paths found and the recorded ones are compared as two sets.

    Args:
        root: the folder's absolute path.
        tree: the manifest's entries of this root (:func:`collect_tree`).
        files: the layer files below it, relative to ``root`` (a mapping or a set: it is asked
            whether it holds a path).
        layer: the layer problems are reported under.
        only_folders: report only added folders and nothing missing (``site-packages``,
            whose files another check compares one by one).
    """
    problems = _kind_problems(root, tree, layer)
    listings: list[tuple[str, list[str]]] = []
    for folder in ["", *(path for path, kind in tree.items() if kind == "dir")]:
        try:
            listings.append((folder, _listing(os.path.join(root, folder)) if folder else os.listdir(root)))
        except OSError as error:
            linked = bool(folder) and os.path.islink(os.path.join(root, folder))
            what = _LINKED if linked else f"cannot be listed ({error.strerror})"
            problems.append(Problem(folder or ".", layer, what))
    if not problems and _as_recorded(listings, tree, files):
        return problems
    present: set[str] = set()
    for folder, names in listings:
        present.update(map(f"{folder}/".__add__, names) if folder else names)
    expected = set(tree)
    expected.update(files)
    for path in sorted(present - expected):
        if not only_folders or os.path.isdir(os.path.join(root, path)):
            problems.append(Problem(path, layer, "is not in the closure manifest"))
    if not only_folders:
        what = "is missing (it is in the closure manifest)"
        problems.extend(Problem(path, layer, what) for path in sorted(expected - present))
    return problems


_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_LINKED = "is a symbolic link, where the closure manifest records a folder"
_KIND_NAMES = {"dir": "a folder", "file": "a file", "link": "a symbolic link", "other": "another kind of entry"}


def _listing(folder: str) -> list[str]:
    """The names in a recorded folder, opened without following a symbolic link (an error when it is one):
    a link to a folder holding the same names is another folder."""
    descriptor = os.open(folder, _FOLDER)
    try:
        return os.listdir(descriptor)
    finally:
        os.close(descriptor)


def _kind_problems(root: str, tree: Mapping[str, str], layer: str) -> list[Problem]:
    """A recorded file, link or other entry that is now of another kind (a folder no listing enters); a
    missing one is left to the listing. A few entries of a venv; none below site-packages or the stdlib."""
    problems = []
    for path, kind in tree.items():
        if kind in ("file", "link", "other") and os.path.lexists(entry := os.path.join(root, path)):
            found = _kind(entry)
            if found != kind:
                what = f"is {_KIND_NAMES[found]}, where the closure manifest records {_KIND_NAMES[kind]}"
                problems.append(Problem(path, layer, what))
    return problems


def _as_recorded(listings: list[tuple[str, list[str]]], tree: Mapping[str, str], files: Collection[str]) -> bool:
    """Whether the names listed are exactly the recorded ones: each is in ``tree`` or ``files``, and there
    are as many as both hold (so none is missing, and the two share none). No set of 8,000 paths is made:
    each path is made, looked up and let go."""
    found = 0
    for folder, names in listings:
        found += len(names)
        paths = map(f"{folder}/".__add__, names) if folder else names
        if any(filterfalse(files.__contains__, filterfalse(tree.__contains__, paths))):
            return False
    return found == len(tree) + len(files)
