"""Real git repositories for the stand-in tests (PREPARE.md §10 "Fixtures"), and the SCI request of §4.

:func:`make_repo` commits given files, symlinks and gitlinks with a fixed author,
committer and date under an isolated git configuration, so the commit id depends
only on the content. :data:`FILES`, :data:`SYMLINKS` and :data:`GITLINKS` are the
repository the stand-in tests use: extensions with and without a ``summary:``
header, a symlink, a gitlink, non-ASCII and space paths, a ``..js`` path, TAB and
newline paths only with ``.md``, and ``src/alpha.pyi`` (not an item).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

FIXED_DATE = "2026-01-01T00:00:00+0000"
GITLINK_OID = "5" * 40
#: The commit :func:`make_repo` makes of the defaults below: the same on every machine and every run.
FIXTURE_COMMIT = "110aec9067701887717eea197d891f38d77acbf2"

FILES: dict[str, bytes] = {
    "src/alpha.py": b"# summary: Alpha request parsing\n# read-when: changing parsing; debugging requests\n"
    b"def build_alpha(request):\n    return request\n",
    "src/alpha.pyi": b"def build_alpha(request: str) -> str: ...\n",
    "src/beta.js": b"// summary: Beta request helpers\nfunction beta() {}\n",
    "src/gamma.py": "def build_gamma():\n    return '\U0001f600é'; def build_delta(): pass\n".encode(),
    "src/invalid.rb": b"# summary: two  spaces\nputs 1\n",
    "src/twice.sh": b"# summary: first\n# summary: second\necho 2\n",
    "src/hints.lua": b"-- summary: Lua hints\n-- read-when: a; b; c; d; e; f\nprint(3)\n",
    "src/Upper.JS": b"// summary: Upper-case extension\nvar u;\n",
    "lib/café ü.go": "// summary: Café helpers\nfunc cafeHelpers() {}\n".encode(),
    "..js": b"// summary: Dot dot js\nvar d;\n",
    "scripts/.bashrc": b"# summary: not an item\n",
    "README.md": b"# Fixture\n",
    "docs/tab\there.md": b"tab\n",
    "docs/new\nline.md": b"newline\n",
}
SYMLINKS: dict[str, str] = {"link.sh": "src/twice.sh"}
GITLINKS: dict[str, str] = {"vendor/sub.go": GITLINK_OID}

#: The items of :data:`FILES` + :data:`SYMLINKS` + :data:`GITLINKS`, in UTF-8 order, as
#: ``(path, indexKind, worktreeKind, metadataStatus, summary, readWhen, metadataError)`` in a clone.
ITEMS: tuple[tuple[str, str, str, str, str | None, tuple[str, ...], str | None], ...] = (
    ("..js", "regular", "regular", "present", "Dot dot js", (), None),
    ("lib/café ü.go", "regular", "regular", "present", "Café helpers", (), None),
    ("link.sh", "symlink", "symlink", "not_applicable", None, (), None),
    ("src/Upper.JS", "regular", "regular", "present", "Upper-case extension", (), None),
    (
        "src/alpha.py",
        "regular",
        "regular",
        "present",
        "Alpha request parsing",
        ("changing parsing", "debugging requests"),
        None,
    ),
    ("src/beta.js", "regular", "regular", "present", "Beta request helpers", (), None),
    ("src/gamma.py", "regular", "regular", "absent", None, (), None),
    ("src/hints.lua", "regular", "regular", "invalid", None, (), "invalid_read_when"),
    ("src/invalid.rb", "regular", "regular", "invalid", None, (), "invalid_summary"),
    ("src/twice.sh", "regular", "regular", "invalid", None, (), "duplicate_summary"),
    ("vendor/sub.go", "gitlink", "gitlink", "not_applicable", None, (), None),
)


def git_env(home: Path) -> dict[str, str]:
    """An isolated environment for the fixture's own git commands (no user or system configuration)."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_AUTHOR_NAME": "Stand-in Fixture",
        "GIT_AUTHOR_EMAIL": "fixture@example.invalid",
        "GIT_AUTHOR_DATE": FIXED_DATE,
        "GIT_COMMITTER_NAME": "Stand-in Fixture",
        "GIT_COMMITTER_EMAIL": "fixture@example.invalid",
        "GIT_COMMITTER_DATE": FIXED_DATE,
    }


def git(cwd: Path, *args: str, home: Path | None = None) -> bytes:
    """Run git in ``cwd`` with :func:`git_env` (``home`` defaults to ``cwd``); return stdout.

    Raises:
        subprocess.CalledProcessError: git failed.
    """
    env = git_env(home if home is not None else cwd)
    argv = ["git", "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", *args]
    return subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, check=True).stdout


def make_repo(
    root: Path,
    files: Mapping[str, bytes] = FILES,
    symlinks: Mapping[str, str] = SYMLINKS,
    gitlinks: Mapping[str, str] = GITLINKS,
) -> str:
    """Create a git repository at ``root`` holding one commit of the given entries; return its id.

    Args:
        root: an absent or empty folder.
        files: path → content of the regular files.
        symlinks: path → link target.
        gitlinks: path → commit id, added with ``update-index --cacheinfo 160000,…``.
    """
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "--quiet", "--initial-branch=main")
    for path, content in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(content)
    for path, target in symlinks.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, root / path)
    git(root, "add", "--all")
    for path, oid in gitlinks.items():
        git(root, "update-index", "--add", "--cacheinfo", f"160000,{oid},{path}")
    git(root, "commit", "--quiet", "--no-verify", "--message", "fixture")
    return git(root, "rev-parse", "HEAD").decode("ascii").strip()


def clone(source: Path, target: Path) -> Path:
    """Clone ``source`` into ``target`` as capture does (``--no-local --no-hardlinks``); return ``target``."""
    git(source.parent, "clone", "--quiet", "--no-local", "--no-hardlinks", str(source), str(target))
    return target


def copy_tree(source: Path, target: Path) -> Path:
    """A byte copy of a checkout, ``.git`` included (faster than a clone for many targets)."""
    shutil.copytree(source, target, symlinks=True)
    return target


def sci_request(
    question: str, language: str, pattern: str, paths: Sequence[str], limits: Mapping[str, int] | None = None
) -> dict[str, object]:
    """The SCI request of PREPARE.md §4 "SCI request" (REQ-1's member order; path seeds ``seed:path-0001``, …)."""
    seeds: list[dict[str, str]] = [
        {"id": "seed:language", "kind": "text", "value": language},
        {"id": "seed:pattern", "kind": "text", "value": pattern},
    ]
    seeds += [{"id": f"seed:path-{k:04d}", "kind": "path", "value": p} for k, p in enumerate(paths, start=1)]
    default = {"maxCandidates": 2000, "maxCandidatesPerFile": 200, "maxEvidenceBytes": 1048576, "timeoutMs": 60000}
    return {
        "question": question,
        "seeds": seeds,
        "operations": ["structural_search"],
        "limits": dict(limits or default),
    }


def request_text(request: Mapping[str, object]) -> str:
    """The request file's text: ``json.dumps(request, indent=2, ensure_ascii=False) + "\\n"``."""
    return json.dumps(request, indent=2, ensure_ascii=False) + "\n"
