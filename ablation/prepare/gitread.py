"""The audited read-only git helper: the only process ``pin``, ``check`` and ``sheet`` start.

Every git command of these three subcommands goes through :class:`GitReader`.
It runs one git executable (the pinned ``[tools.git].path`` for ``check`` and
``sheet``, after its pin was checked; the ``git`` that ``PATH`` finds for
``pin``), and only the read-only subcommands of :data:`READ_ONLY_SUBCOMMANDS`.
A repository is read where it is: nothing is written into it, and its HEAD,
refs, status and ``.git/index`` stay byte-for-byte unchanged.

What keeps a read from changing or being changed by the repository or the user:

- a fixed environment (:data:`GIT_ENVIRONMENT`), nothing inherited: no system or
  user configuration (``GIT_CONFIG_NOSYSTEM=1``, ``GIT_CONFIG_GLOBAL=/dev/null``;
  git 2.32 or later honours the second, ``check`` refuses an older pinned git),
  no system attributes, no replace refs (a clone copies none, so the commit is
  read as a clone will see it), no optional locks (``GIT_OPTIONAL_LOCKS=0``: a
  ``status`` does not rewrite the index), no prompt, ``C.UTF-8``, ``TZ=UTC``, and
  no ``HOME`` (so no per-user ignore or attributes file either);
- ``-c core.fsmonitor=false -c core.untrackedCache=false`` on every command, so a
  repository's own configuration starts no monitor and writes no cache;
- ``GIT_CEILING_DIRECTORIES`` set to the folder holding the repository, so git
  never reads a repository above the folder it was given;
- standard input from the null device, the working directory ``/``, the
  repository named with ``-C``.

Spec: PREPARE.md §2 ("The audited read-only git helper"), §4 ("Clean environment"), §9.2, §9.5.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass

__all__ = [
    "CONFIG_OPTIONS",
    "GIT_ENVIRONMENT",
    "MINIMUM_GIT",
    "READ_ONLY_SUBCOMMANDS",
    "GitFailed",
    "GitReader",
    "TreeEntry",
    "parse_version",
]

READ_ONLY_SUBCOMMANDS = frozenset({"rev-parse", "ls-tree", "ls-files", "status", "cat-file", "for-each-ref", "version"})
"""The only git subcommands the helper runs (PREPARE.md §2)."""

GIT_ENVIRONMENT: dict[str, str] = {
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TZ": "UTC",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_NO_REPLACE_OBJECTS": "1",
}
"""The whole environment of every read (plus ``GIT_CEILING_DIRECTORIES`` per repository)."""

CONFIG_OPTIONS = ("-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false")
"""Given before the subcommand on every read."""

MINIMUM_GIT = (2, 32)
"""The oldest git that honours ``GIT_CONFIG_GLOBAL`` (PREPARE.md §3 check 10)."""

_TIMEOUT_S = 600
_VERSION = re.compile(r"git version (\d+)\.(\d+)(?:\.(\d+))?(?:[.\s].*)?\n?", re.DOTALL)


class GitFailed(Exception):
    """A read failed: git could not start, timed out, or exited non-zero.

    Attributes:
        argv: what ran.
        why: one line: git's first line of stderr and its exit status, or why it did not run.
    """

    def __init__(self, argv: tuple[str, ...], why: str) -> None:
        super().__init__(f"git {' '.join(argv[1 + len(CONFIG_OPTIONS) :])}: {why}")
        self.argv = argv
        self.why = why


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """One path tracked at a commit (``ls-tree -r``): mode, object type and id, and the path (UTF-8 bytes)."""

    mode: str
    kind: str
    object_id: str
    path: bytes


def parse_version(text: str) -> tuple[int, int, int] | None:
    """``(major, minor, patch)`` from ``git version`` output, or ``None`` when it is not that.

    >>> parse_version("git version 2.39.5\\n"), parse_version("git version 2.31.0.windows.1"), parse_version("x")
    ((2, 39, 5), (2, 31, 0), None)
    """
    match = _VERSION.fullmatch(text)
    if match is None:
        return None
    major, minor, patch = match.groups()
    return int(major), int(minor), int(patch or 0)


def _first_line(data: bytes) -> str:
    lines = data.decode("utf-8", "backslashreplace").strip().splitlines()
    return lines[0] if lines else ""


class GitReader:
    """Read-only git commands with one git executable, in the fixed environment above.

    Args:
        git: the absolute path of the git executable to run.
    """

    def __init__(self, git: str) -> None:
        self.git = git

    def _spawn(self, argv: tuple[str, ...], environment: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
        """The one place that starts a process (audited: tests allow spawns from here only)."""
        return subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            cwd="/",
            env=environment,
            timeout=_TIMEOUT_S,
            check=False,
        )

    def run(self, repository: str | None, subcommand: str, *args: str, discover: bool = False) -> bytes:
        """Run ``git [-C repository] <subcommand> <args>`` and return its stdout bytes.

        ``discover``: let git look for the repository in the folders above
        ``repository`` too (``pin`` finds a tool's checkout so); otherwise git
        reads only the repository at ``repository`` itself.

        Raises:
            ValueError: ``subcommand`` is not one of :data:`READ_ONLY_SUBCOMMANDS` (a bug, never input).
            GitFailed: git could not start, ran past the time limit, or exited non-zero.
        """
        if subcommand not in READ_ONLY_SUBCOMMANDS:
            msg = f"the read-only git helper does not run {subcommand!r}"
            raise ValueError(msg)
        environment = dict(GIT_ENVIRONMENT)
        place: tuple[str, ...] = ()
        if repository is not None:
            absolute = os.path.realpath(repository)
            if not discover:
                environment["GIT_CEILING_DIRECTORIES"] = os.path.dirname(absolute)
            place = ("-C", absolute)
        argv = (self.git, *CONFIG_OPTIONS, *place, subcommand, *args)
        try:
            completed = self._spawn(argv, environment)
        except subprocess.TimeoutExpired:
            raise GitFailed(argv, f"no answer within {_TIMEOUT_S} s") from None
        except OSError as exc:
            raise GitFailed(argv, f"cannot run {self.git}: {exc.strerror or exc}") from None
        if completed.returncode != 0:
            raise GitFailed(argv, f"{_first_line(completed.stderr) or 'no message'} (exit {completed.returncode})")
        return completed.stdout

    # ------------------------------------------------------------------ what the checks read

    def version(self) -> str:
        """``git version``'s output, decoded (``git version 2.39.5``)."""
        return self.run(None, "version").decode("utf-8", "backslashreplace")

    def locate(self, repository: str) -> tuple[bool, bool]:
        """Whether ``repository`` is a bare repository, and whether it is the top folder of a checkout.

        Git reads only ``repository`` itself (no folder above it), so a
        subfolder of a checkout is no repository at all, and a checkout's
        ``.git`` folder is neither bare nor a top folder.

        Raises:
            GitFailed: not a git repository.
        """
        out = self.run(repository, "rev-parse", "--is-bare-repository", "--is-inside-work-tree", "--show-cdup")
        lines = out.decode("utf-8", "backslashreplace").split("\n")
        bare, inside = lines[0] == "true", len(lines) > 1 and lines[1] == "true"
        return bare, not bare and inside and len(lines) > 2 and lines[2] == ""

    def object_type(self, repository: str, object_id: str) -> str | None:
        """The type of an object (``commit``, ``tag``, …), or ``None`` when the repository does not hold it."""
        try:
            return self.run(repository, "cat-file", "-t", object_id).decode("ascii", "replace").strip()
        except GitFailed:
            return None

    def refs_containing(self, repository: str, commit: str, *patterns: str) -> list[str]:
        """The refs under ``patterns`` from which ``commit`` is reachable (``for-each-ref --contains``)."""
        out = self.run(repository, "for-each-ref", "--format=%(refname)", "--contains", commit, *patterns)
        return out.decode("utf-8", "backslashreplace").splitlines()

    def tree(self, repository: str, commit: str) -> list[TreeEntry]:
        """Every path tracked at ``commit`` (``ls-tree -r -z --full-tree``), gitlinks included, in git's order."""
        out = self.run(repository, "ls-tree", "-r", "-z", "--full-tree", commit)
        entries = []
        for record in out.split(b"\0")[:-1]:
            head, _, path = record.partition(b"\t")
            mode, kind, object_id = head.decode("ascii").split(" ")
            entries.append(TreeEntry(mode, kind, object_id, path))
        return entries

    def head(self, repository: str) -> str:
        """``rev-parse HEAD`` without its line feed."""
        return self.run(repository, "rev-parse", "HEAD").decode("ascii", "replace").rstrip("\n")

    def status(self, repository: str, *paths: str) -> bytes:
        """``status --porcelain=v1 -z --untracked-files=all``, optionally limited to ``paths`` (literal)."""
        spec = ("--", *paths) if paths else ()
        return self.run(repository, "status", "--porcelain=v1", "-z", "--untracked-files=all", *spec)

    def refs(self, repository: str) -> bytes:
        """``for-each-ref`` with object ids and names: every ref, as git lists them."""
        return self.run(repository, "for-each-ref", "--format=%(objectname) %(refname)")

    def tracked(self, repository: str, path: str) -> bool:
        """Whether ``path`` (relative to the top level; taken literally) is tracked in the index."""
        out = self.run(repository, "ls-files", "-z", "--", f":(literal){path}")
        return bool(out)
