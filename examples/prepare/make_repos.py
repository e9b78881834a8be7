"""Make the example experiment's git repositories, its tool checkout, its experiment file and its cases review.

Usage, from the repository root (needs git and Python 3.11)::

    python3 examples/prepare/make_repos.py
    .venv/bin/ablation-prepare check examples/prepare/experiment.toml
    make prepare-capture EXPERIMENT=examples/prepare/experiment.toml PREP_DIR=<new folder> \\
        CASES_REVIEW=examples/prepare/cases-review.toml FILE_ACCESS=asserted

What it makes, every byte fixed by what is committed here:

- one git repository per folder of ``examples/prepare/repos/`` (``ledger-service``
  and ``route-planner`` as checkouts, ``edge-proxy`` as a bare repository), under
  ``build/prepare-example/repos/`` (``--build``). Each is one commit of exactly the
  folder's files, made with a fixed author, committer, date and branch and an
  isolated git configuration (:mod:`tests.prepare.gitfixtures`), so its commit id is
  the same on every machine; it must equal the commit ``experiment.toml.in`` names;
- the tool checkout ``/var/tmp/ablation-prepare-example/tools-<commit>`` (``--fixed``):
  the owner stand-ins of ``tests/prepare/doubles/`` (the source-list stand-in, the SCI
  stand-in with its variant launcher ``fake_sci--reordered.py``, and the backend
  ``backend/stand-in-grep-cli``), one commit of their bytes, pinned with
  ``revision_from_checkout`` (the launcher is the SCI tool, the stand-in it runs an
  extra pin, as the stand-ins' README shows);
- ``examples/prepare/experiment.toml`` (``--experiment``; not committed): the
  template ``experiment.toml.in`` with the paths and SHA-256 pins of this machine,
  and a ``[tools.strace]`` table pinning the ``strace`` on ``PATH`` when there is one;
- ``cases-review.toml`` beside it (not committed): ``cases-review.toml.in`` bound to
  the SHA-256 of the experiment file just written.

Why a fixed folder outside the checkout: ``work_root`` and every tool path are
frozen into the prepared input (request paths, executables), so two clones at
different paths must name the same ones to prepare byte-identical inputs; the
source repositories are not frozen (only their ids and commits are), so they stay
in the clone. ``/var/tmp`` is writable without privileges, kept across reboots,
and ``Portable`` (``/tmp/`` is not, SPEC §4.0), so ``check`` draws no warning.
Existing repositories and tool checkouts are reused when they hold the expected
commit and refused otherwise; nothing is deleted but the script's own staging copy.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.prepare.gitfixtures import Executable, FileSpec, Repo, git, make_repository  # noqa: E402

HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "experiment.toml.in"
REVIEW_TEMPLATE = HERE / "cases-review.toml.in"
_STRACE_LINE = "# @STRACE@ (make_repos.py puts the [tools.strace] table here)\n"
FIXED = "/var/tmp/ablation-prepare-example"
REPOSITORIES = (("ledger-service", False), ("route-planner", False), ("edge-proxy", True))
"""Each folder of ``repos/`` and whether its repository is bare."""
DOUBLES = "tests/prepare/doubles"
TOOLS = {
    "fake_source_list.py": ("SOURCE_LIST", f"{DOUBLES}/fake_source_list.py"),
    "fake_sci--reordered.py": ("SCI", f"{DOUBLES}/fake_sci--reordered.py"),
    "fake_sci.py": ("SCI_IMPLEMENTATION", f"{DOUBLES}/fake_sci.py"),
    "backend/stand-in-grep-cli": ("BACKEND", f"{DOUBLES}/backend/stand-in-grep-cli"),
}
"""Each file of the tool checkout: its placeholder in the template, and the stand-in it is copied from."""


class Refused(Exception):
    """Something on disk is not what this script would make; it changes nothing and says what to do."""


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")


def read_tree(folder: Path) -> dict[str | bytes, FileSpec]:
    """Every file below ``folder`` by its path relative to it (regular files only; symlinks are refused)."""
    files: dict[str | bytes, FileSpec] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() or not (path.is_file() or path.is_dir()):
            raise Refused(f"{path} is not a regular file or folder")
        if path.is_file():
            files[path.relative_to(folder).as_posix()] = path.read_bytes()
    return files


def _branch_commit(path: Path) -> str:
    return git(path, "rev-parse", "--verify", "refs/heads/main").decode("ascii").strip()


def ensure_repository(path: Path, files: dict[str | bytes, FileSpec], *, bare: bool, expected: str) -> str:
    """The repository at ``path`` holding ``files`` in one commit, made unless it is already there."""
    if path.exists():
        found = _branch_commit(path)
        if found != expected:
            raise Refused(f"{path} holds {found}, not {expected}; move it aside and run this again")
        return found
    made = make_repository(path, files, bare=bare)
    if made.commit != expected:
        raise Refused(
            f"{path} was made at {made.commit}, but experiment.toml.in names {expected}: the files of "
            f"examples/prepare/repos/{path.name.removesuffix('.git')} changed; put the new commit into the template"
        )
    return made.commit


def ensure_tools(fixed: Path) -> Repo:
    """The tool checkout ``<fixed>/tools-<commit 12>``, made from the stand-ins unless it is already there."""
    files: dict[str | bytes, FileSpec] = {name: Executable((ROOT / s).read_bytes()) for name, (_, s) in TOOLS.items()}
    fixed.mkdir(parents=True, exist_ok=True)
    staging = fixed / f".staging-{os.getpid()}"
    try:
        made = make_repository(staging, files)
        final = fixed / f"tools-{made.commit[:12]}"
        if final.exists():
            if _branch_commit(final) != made.commit or git(final, "status", "--porcelain"):
                raise Refused(f"{final} is not a clean checkout of {made.commit}; move it aside and run this again")
        else:
            staging.rename(final)
            git(final, "status", "--porcelain")  # the index learns the new folder's file times
        return Repo(final, made.commit, False)
    finally:
        if staging.exists():
            shutil.rmtree(staging)


def _sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def strace_table(found: str | None) -> str:
    """The ``[tools.strace]`` table for the ``strace`` on ``PATH`` (its real path and pin), or a comment."""
    if found is None:
        return "# [tools.strace]: no strace on PATH here; capture --file-access-trace strace needs one\n\n"
    path = os.path.realpath(found)
    if '"' in path or "\\" in path:
        raise Refused(f"strace {path!r} holds a quote or a backslash")
    head = "[tools.strace]      # for capture --file-access-trace strace"
    return f'{head}\npath = "{path}"\nsha256 = "{_sha256(path)}"\n\n'


def fill_template(values: dict[str, str], template: Path = TEMPLATE) -> str:
    """A template with each ``@NAME@`` replaced by its value (a value never holds a quote)."""
    text = template.read_text(encoding="utf-8")
    for name, value in values.items():
        if '"' in value or "\\" in value:
            raise Refused(f"{name} {value!r} holds a quote or a backslash; choose another folder")
        text = text.replace(f"@{name}@", value)
    return text


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Make everything (see the module docstring); 0 when done, 1 with one line when refused."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--build", type=Path, default=ROOT / "build" / "prepare-example", help="folder of the repositories"
    )
    parser.add_argument("--fixed", type=Path, default=Path(FIXED), help=f"folder of the tools and work_root ({FIXED})")
    parser.add_argument(
        "--experiment", type=Path, default=HERE / "experiment.toml", help="the experiment file to write"
    )
    parser.add_argument(
        "--review", type=Path, default=None, help="the cases review to write (default: cases-review.toml beside it)"
    )
    python = "/usr/bin/python3" if os.path.isfile("/usr/bin/python3") else os.path.realpath(sys.executable)
    parser.add_argument("--python", default=python, help=f"the interpreter in the node slot (default {python})")
    args = parser.parse_args(argv)
    found_git = shutil.which("git")
    try:
        if found_git is None:
            raise Refused("git is not on PATH")
        build, fixed = args.build.resolve(), Path(os.path.abspath(args.fixed))
        template = tomllib.loads(TEMPLATE.read_text(encoding="utf-8"))
        expected = {r["id"]: r["commit"] for r in template["repository"]}
        for name, bare in REPOSITORIES:
            path = build / "repos" / (f"{name}.git" if bare else name)
            commit = ensure_repository(path, read_tree(HERE / "repos" / name), bare=bare, expected=expected[name])
            _say(f"repository {name}: {path} at {commit}")
        tools = ensure_tools(fixed)
        _say(f"tools: {tools.path} at {tools.commit}")
        values = {
            "GIT": os.path.abspath(found_git),
            "GIT_SHA256": _sha256(found_git),
            "PYTHON": args.python,
            "PYTHON_SHA256": _sha256(args.python),
            "TOOLS": str(tools.path),
            **{f"{slot}_SHA256": _sha256(tools.path / name) for name, (slot, _) in TOOLS.items()},
            "REPOS": str(build / "repos"),
            "FIXED": str(fixed),
        }
        text = fill_template(values).replace(_STRACE_LINE, strace_table(shutil.which("strace")))
        _write_if_changed(args.experiment, text)
        _say(f"experiment: {args.experiment} (sha256 {_sha256(args.experiment)})")
        review = args.review or args.experiment.with_name("cases-review.toml")
        _write_if_changed(review, fill_template({"EXPERIMENT_SHA256": _sha256(args.experiment)}, REVIEW_TEMPLATE))
        _say(f"cases review: {review} (bound to the experiment file's sha256)")
    except (Refused, RuntimeError, OSError) as error:
        sys.stderr.write(f"make_repos: {error}\n")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
