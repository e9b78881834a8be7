"""Real git repositories for the preparation tests and the example, with stable commit ids.

Every commit is written by ``git fast-import`` from a description (path → content),
with a fixed author, committer and date, so the same description gives the same
commit id on every machine and in every clone. Git runs with an isolated
configuration (no system or user file, no hooks, no templates from elsewhere), a
fixed branch name and ``TZ=UTC``. Only the standard library is used, so
``examples/prepare/make_repos.py`` can use this module too.

A description maps a path (``str``, or ``bytes`` for a path that is not UTF-8) to:

- ``str`` or ``bytes``: a regular file (mode 100644) with that content;
- :class:`Executable`: a regular file with mode 100755;
- :class:`Symlink`: a symlink (mode 120000) to the target;
- :class:`Gitlink`: a gitlink (mode 160000) to a commit id (a submodule that is not initialised).

Paths are written C-quoted, so TABs, newlines, spaces and any byte are allowed.

Typical use::

    repo = make_repository(tmp_path / "alpha", {"src/a.py": "# summary: A.\\n", "README.md": "x\\n"})
    repo.commit            # '…40 hex…', the same every run
    before = snapshot(repo.path)
    ...
    assert snapshot(repo.path) == before

Spec: PREPARE.md §10 "Fixtures".
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "AUTHOR",
    "BRANCH",
    "FIXED_EPOCH",
    "Executable",
    "FileSpec",
    "Gitlink",
    "Repo",
    "Symlink",
    "add_commit",
    "git",
    "git_environment",
    "make_repository",
    "snapshot",
    "tree_paths",
    "unreachable_commit",
]

AUTHOR = "Fixture Author <fixture@example.invalid>"
"""Author and committer of every fixture commit."""
FIXED_EPOCH = 1_767_225_600
"""2026-01-01T00:00:00Z, the date of the first commit; later commits add a minute each."""
BRANCH = "main"
"""The branch every fixture repository is made on."""


@dataclass(frozen=True, slots=True)
class Executable:
    """A regular file with the executable bit (mode 100755)."""

    content: str | bytes


@dataclass(frozen=True, slots=True)
class Symlink:
    """A symlink (mode 120000) whose target is ``target``."""

    target: str


@dataclass(frozen=True, slots=True)
class Gitlink:
    """A gitlink (mode 160000): a submodule entry at ``commit`` (which need not exist here)."""

    commit: str


FileSpec = str | bytes | Executable | Symlink | Gitlink


@dataclass(frozen=True, slots=True)
class Repo:
    """A fixture repository: where it is, whether it is bare, and the commit its branch points at."""

    path: Path
    commit: str
    bare: bool


def git_environment(home: Path | None = None) -> dict[str, str]:
    """The isolated environment of every fixture git command (nothing inherited but ``PATH``)."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home) if home is not None else "/nonexistent",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_OPTIONAL_LOCKS": "0",
    }


def git(repo: Path | None, *args: str, stdin: bytes | None = None) -> bytes:
    """Run ``git [-C repo] args`` isolated and return its stdout.

    Raises:
        RuntimeError: git exited non-zero (its stderr in the message).
    """
    place = ["-C", str(repo)] if repo is not None else []
    argv = ["git", "-c", "core.hooksPath=/dev/null", "-c", "commit.gpgSign=false", *place, *args]
    completed = subprocess.run(
        argv,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        env=git_environment(),
        check=False,
    )
    if completed.returncode != 0:
        msg = f"{' '.join(argv)} exited {completed.returncode}: {completed.stderr.decode('utf-8', 'replace')}"
        raise RuntimeError(msg)
    return completed.stdout


def _quoted(path: str | bytes) -> bytes:
    """A path in fast-import's C-quoted form: printable ASCII as it is, every other byte in octal."""
    raw = path.encode("utf-8") if isinstance(path, str) else path
    out = bytearray(b'"')
    for byte in raw:
        if byte in (0x22, 0x5C):
            out += b"\\" + bytes([byte])
        elif 0x20 <= byte < 0x7F:
            out.append(byte)
        else:
            out += f"\\{byte:03o}".encode("ascii")
    return bytes(out + b'"')


def _data(content: str | bytes) -> bytes:
    raw = content.encode("utf-8") if isinstance(content, str) else content
    return b"data %d\n" % len(raw) + raw + b"\n"


def _file_command(path: str | bytes, spec: FileSpec) -> bytes:
    if isinstance(spec, Gitlink):
        return b"M 160000 " + spec.commit.encode("ascii") + b" " + _quoted(path) + b"\n"
    if isinstance(spec, Symlink):
        return b"M 120000 inline " + _quoted(path) + b"\n" + _data(spec.target)
    if isinstance(spec, Executable):
        return b"M 100755 inline " + _quoted(path) + b"\n" + _data(spec.content)
    return b"M 100644 inline " + _quoted(path) + b"\n" + _data(spec)


def _import(
    repo: Path, ref: str, files: Mapping[str | bytes, FileSpec], message: str, when: int, parent: str | None
) -> str:
    """One commit of exactly ``files`` on ``ref`` (``deleteall`` first); its commit id."""
    stamp = f"{AUTHOR} {when} +0000".encode()
    stream = [b"commit " + ref.encode("utf-8") + b"\n"]
    stream.append(b"author " + stamp + b"\ncommitter " + stamp + b"\n" + _data(message))
    if parent is not None:
        stream.append(b"from " + parent.encode("ascii") + b"\n")
    stream.append(b"deleteall\n")
    for path in sorted(files, key=lambda p: p.encode("utf-8") if isinstance(p, str) else p):
        stream.append(_file_command(path, files[path]))
    stream.append(b"done\n")
    git(repo, "fast-import", "--quiet", "--done", stdin=b"".join(stream))
    return git(repo, "rev-parse", ref).decode("ascii").strip()


def make_repository(
    path: Path,
    files: Mapping[str | bytes, FileSpec],
    *,
    bare: bool = False,
    message: str = "fixture",
    when: int = FIXED_EPOCH,
    object_format: str = "sha1",
) -> Repo:
    """Make a repository at ``path`` whose branch ``main`` holds exactly ``files`` in one commit.

    A checkout (``bare=False``) has its work tree and index at that commit, so
    ``git status`` is empty. ``object_format="sha256"`` makes 64-hex object ids.
    Returns the repository and the commit id.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    options = ["--bare"] if bare else []
    options.append(f"--object-format={object_format}")
    git(None, "init", "--quiet", "--template=", f"--initial-branch={BRANCH}", *options, str(path))
    commit = _import(path, f"refs/heads/{BRANCH}", files, message, when, None)
    if not bare:
        git(path, "reset", "--quiet", "--hard", commit)
    return Repo(path, commit, bare)


def add_commit(
    repo: Repo,
    files: Mapping[str | bytes, FileSpec],
    *,
    message: str = "fixture",
    when: int | None = None,
    ref: str = f"refs/heads/{BRANCH}",
) -> Repo:
    """Commit exactly ``files`` on ``ref`` (default: the branch), on top of ``repo.commit``.

    The date is a minute after the parent's unless given. For a checkout on the
    branch, the work tree and index follow. Returns the repository at the new commit.
    """
    parent_time = int(git(repo.path, "log", "-1", "--format=%ct", repo.commit).decode("ascii"))
    commit = _import(repo.path, ref, files, message, parent_time + 60 if when is None else when, repo.commit)
    if not repo.bare and ref == f"refs/heads/{BRANCH}":
        git(repo.path, "reset", "--quiet", "--hard", commit)
    return Repo(repo.path, commit, repo.bare)


def unreachable_commit(repo: Repo, files: Mapping[str | bytes, FileSpec], *, message: str = "unreachable") -> str:
    """A commit object that exists in ``repo`` but that no ref reaches (made on a ref, which is then deleted)."""
    ref = "refs/fixture/unreachable"
    commit = add_commit(repo, files, message=message, ref=ref).commit
    git(repo.path, "update-ref", "-d", ref)
    return commit


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def snapshot(path: Path) -> dict[str, object]:
    """What must not change when a repository is only read (PREPARE.md §9.5).

    HEAD (the file's bytes and the commit it names), every ref (``for-each-ref``),
    the ``packed-refs`` SHA-256 and, for a checkout, the porcelain status and the
    ``.git/index`` SHA-256. Read with optional locks off, so taking it changes nothing.
    """
    git_dir = Path(git(path, "rev-parse", "--absolute-git-dir").decode("utf-8").rstrip("\n"))
    bare = git(path, "rev-parse", "--is-bare-repository").strip() == b"true"
    found: dict[str, object] = {
        "HEAD file": (git_dir / "HEAD").read_bytes(),
        "HEAD": git(path, "rev-parse", "HEAD"),
        "refs": git(path, "for-each-ref", "--format=%(objectname) %(refname)"),
        "packed-refs sha256": _sha256(git_dir / "packed-refs"),
    }
    if not bare:
        found["status"] = git(path, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignored")
        found["index sha256"] = _sha256(git_dir / "index")
    return found


def tree_paths(repo: Repo) -> Sequence[bytes]:
    """Every path tracked at the repository's commit, as git lists them (``ls-tree -r -z``)."""
    return [line.split(b"\t", 1)[1] for line in git(repo.path, "ls-tree", "-r", "-z", repo.commit).split(b"\0")[:-1]]
