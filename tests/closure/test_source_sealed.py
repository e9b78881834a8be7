"""A sealed ``.venv`` names the commit it was built from (issue 22 item 6), end to end.

Everything happens in private copies under the test's folder, never in the
repository's own ``.venv`` or checkout:

- a private *checkout*: a new git repository holding this checkout's package
  (``ablation/``) and what ``make seal`` needs (the Makefile, ``pyproject.toml``,
  the locks, ``tools/seal.py``), committed once;
- copies of the sealed ``.venv``, each re-made by ``make seal VENV=<copy>`` in
  that checkout (the development environment ``.venv-dev`` builds the wheel):
  the package is re-installed from the checkout as it is, then sealed.

Acceptance: ``ablation identity`` names the commit; after an edit to
``ablation/`` (or an untracked file added there) and ``make seal`` it says
``-dirty``; without a checkout, without git, or below another checkout the
revision is ``null``; the image build's listing (``tools/image.sh``) gives the
same revision as the seal tool's own git reads.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.builders.paths import EXAMPLE, EXAMPLE_SHA256, ROOT, SEALED_ABSENT, VENV, is_sealed

DEV_VENV = ROOT / ".venv-dev"
SEAL = ROOT / "tools" / "seal.py"
PROJECT_FILES = (
    "Makefile",
    "pyproject.toml",
    "requirements.lock",
    "requirements-dev.lock",
    ".gitignore",
    "tools/seal.py",
    "examples/prepared-input.json.sha256",
)
_GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
}

pytestmark = [
    pytest.mark.skipif(not is_sealed(), reason=SEALED_ABSENT),
    pytest.mark.skipif(not (DEV_VENV / ".lock-installed").is_file(), reason="needs .venv-dev (make dev-venv)"),
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git to make the private checkout"),
]


def _env(**extra: str) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": "/nonexistent"}
    env.update(extra)
    return env


def git(repo: Path, *args: str) -> str:
    """``git -C repo <args>``, no system or user configuration; stdout."""
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True, env=_env(**_GIT_ENV)
    ).stdout


def copy_project(target: Path) -> None:
    """The package and what ``make seal`` needs, file times kept (so make rebuilds neither environment)."""
    for name in PROJECT_FILES:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target / name)
    shutil.copytree(ROOT / "ablation", target / "ablation", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def make_seal(checkout: Path, venv: Path) -> str:
    """``make seal VENV=venv`` in ``checkout``; the seal tool's line on the source revision."""
    completed = subprocess.run(
        ["make", "--no-print-directory", "-C", str(checkout), "seal", f"VENV={venv}", f"DEV_VENV={DEV_VENV}"],
        capture_output=True,
        text=True,
        check=False,
        env=_env(),
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return completed.stdout.splitlines()[-1]


def seal_tool(venv: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """``tools/seal.py`` run directly (as the image build does); the line on the source revision."""
    completed = subprocess.run(
        [str(venv / "bin" / "python"), "-I", "-B", str(SEAL), "--lock", str(ROOT / "requirements.lock"), *args],
        capture_output=True,
        text=True,
        check=False,
        env=env or _env(),
        cwd=venv,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.splitlines()[-1]


def ablation(venv: Path, *args: object, command: str = "ablation") -> str:
    completed = subprocess.run(
        [str(venv / "bin" / command), *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
        env=_env(),
        cwd=venv,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


def identity(venv: Path) -> Any:
    return json.loads(ablation(venv, "identity"))


@dataclass(frozen=True)
class Built:
    """The private checkout, its commit, and a copy of ``.venv`` sealed from it (clean)."""

    checkout: Path
    commit: str
    venv: Path
    identity: Any


def venv_copy(folder: Path) -> Path:
    target = folder / "venv"
    shutil.copytree(VENV, target, symlinks=True)
    return target


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    checkout = tmp_path_factory.mktemp("source-checkout") / "ablation-src"
    copy_project(checkout)
    git(checkout, "init", "--quiet", "--initial-branch=main")
    git(checkout, "add", "-A")
    git(checkout, "commit", "--quiet", "-m", "the package")
    commit = git(checkout, "rev-parse", "HEAD").strip()
    venv = venv_copy(tmp_path_factory.mktemp("source-venv"))
    assert make_seal(checkout, venv) == f"seal: source revision {commit} (the HEAD of {checkout})"
    return Built(checkout, commit, venv, identity(venv))


@pytest.fixture
def restored(built: Built) -> Iterator[Built]:
    """``built``, its checkout's ``ablation/`` restored and the venv sealed clean again after the test."""
    yield built
    git(built.checkout, "checkout", "--quiet", "--", "ablation")
    git(built.checkout, "clean", "--quiet", "-d", "--force", "--", "ablation")
    assert (
        make_seal(built.checkout, built.venv) == f"seal: source revision {built.commit} (the HEAD of {built.checkout})"
    )
    assert identity(built.venv) == built.identity  # the same commit, the same identity


def test_a_venv_sealed_from_a_clean_checkout_names_its_commit(built: Built, tmp_path: Path) -> None:
    assert built.identity["measured"]["package"]["sourceRevision"] == built.commit
    assert ablation(built.venv, "--version") == f"ablation {built.commit}\n"
    assert ablation(built.venv, "--version", command="ablation-prepare") == f"ablation-prepare {built.commit}\n"
    results = tmp_path / "results.json"
    ablation(built.venv, "run", "--input", EXAMPLE, "--input-sha256", EXAMPLE_SHA256, "--output", results)
    assert json.loads(results.read_bytes())["evaluator"] == built.identity
    notes = ablation(built.venv, "notes", "--results", results)
    assert (
        f"| Evaluator source revision | `{built.commit}` (the git commit the evaluator's package was built from; "
        "its files are that commit's) |"
    ) in notes.splitlines()


def test_an_edit_to_ablation_and_make_seal_say_dirty(restored: Built) -> None:
    canonical = restored.checkout / "ablation" / "canonical.py"
    canonical.write_bytes(canonical.read_bytes() + b"# an edit\n")
    assert make_seal(restored.checkout, restored.venv) == (
        f"seal: source revision {restored.commit}-dirty: the package files differ from that commit's "
        f"(the HEAD of {restored.checkout})"
    )
    measured = identity(restored.venv)["measured"]
    assert measured["package"]["sourceRevision"] == restored.commit + "-dirty"
    assert ablation(restored.venv, "--version") == f"ablation {restored.commit}-dirty\n"


def test_an_untracked_file_under_ablation_is_dirty(restored: Built) -> None:
    (restored.checkout / "ablation" / "closure" / "zz_untracked.py").write_text("VALUE = 1\n", encoding="utf-8")
    assert git(restored.checkout, "status", "--porcelain", "--", "ablation") == "?? ablation/closure/zz_untracked.py\n"
    line = make_seal(restored.checkout, restored.venv)
    assert line.startswith(f"seal: source revision {restored.commit}-dirty: ")
    assert (
        restored.venv / "lib" / "python3.11" / "site-packages" / "ablation" / "closure" / "zz_untracked.py"
    ).is_file()
    assert identity(restored.venv)["measured"]["package"]["sourceRevision"] == restored.commit + "-dirty"


def test_a_second_venv_from_the_same_commit_has_the_same_identity(built: Built, tmp_path: Path) -> None:
    other = venv_copy(tmp_path)
    assert make_seal(built.checkout, other) == f"seal: source revision {built.commit} (the HEAD of {built.checkout})"
    assert identity(other) == built.identity


def test_a_build_from_a_source_tarball_records_null(built: Built, tmp_path: Path) -> None:
    unpacked = tmp_path / "ablation-src"
    copy_project(unpacked)  # the same files, no .git: as a source tarball unpacks
    venv = venv_copy(tmp_path)
    line = make_seal(unpacked, venv)
    assert line.startswith(f"seal: source revision unknown (recorded as null): {unpacked} is not a git checkout ")
    found = identity(venv)
    assert found["measured"]["package"]["sourceRevision"] is None
    assert ablation(venv, "--version") == "ablation (source revision unknown: sealed without a git checkout)\n"
    # Only the revision (and with it the manifest's digest) differs from the clean build of the same files.
    expected = json.loads(json.dumps(built.identity["measured"]))
    expected["package"]["sourceRevision"] = None
    expected["closure"]["manifestDigest"] = found["measured"]["closure"]["manifestDigest"]
    assert found["measured"] == expected


@pytest.fixture(scope="module")
def direct(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the venv sealed clean from the private checkout, for ``tools/seal.py`` run directly."""
    target = tmp_path_factory.mktemp("source-direct") / "venv"
    shutil.copytree(built.venv, target, symlinks=True)
    return target


def test_without_git_the_revision_is_null(built: Built, direct: Path, tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "ldd").symlink_to(shutil.which("ldd") or "/usr/bin/ldd")  # sealing needs ldd, not git
    line = seal_tool(direct, "--source", str(built.checkout), env=_env(PATH=str(tmp_path / "bin")))
    assert line == "seal: source revision unknown (recorded as null): git is not installed (not on PATH)"
    assert identity(direct)["measured"]["package"]["sourceRevision"] is None


def test_a_folder_inside_a_checkout_is_not_taken_for_it(built: Built, direct: Path) -> None:
    inside = built.checkout / "ablation"
    line = seal_tool(direct, "--source", str(inside))
    assert line.startswith(
        f"seal: source revision unknown (recorded as null): {inside} is not a git checkout (fatal: not a git repository"
    )


def test_a_checkout_without_a_commit_records_null(direct: Path, tmp_path: Path) -> None:
    empty = tmp_path / "unborn"
    empty.mkdir()
    git(empty, "init", "--quiet")
    line = seal_tool(direct, "--source", str(empty))
    assert line == f"seal: source revision unknown (recorded as null): {empty} has no commit (its HEAD names none)"


def test_the_image_build_s_listing_gives_the_same_revision(built: Built, direct: Path, tmp_path: Path) -> None:
    # tools/image.sh's own functions, run in the private checkout as the image build runs them in the repository.
    script = (ROOT / "tools" / "image.sh").read_text(encoding="utf-8")
    functions = script[script.index("GIT=$(command -v git") : script.index("revision() {")]
    listing = tmp_path / "source-tree"
    with listing.open("wb") as out:
        subprocess.run(
            ["bash", "-c", f"set -euo pipefail\n{functions}\nsource_tree"],
            cwd=built.checkout,
            stdout=out,
            check=True,
            env=_env(),
        )
    assert listing.read_bytes().startswith(built.commit.encode() + b"\n100644 blob ")
    assert seal_tool(direct, "--source-tree", str(listing)) == (
        f"seal: source revision {built.commit} (listed in {listing})"
    )
    assert identity(direct) == built.identity
    listing.write_bytes(b"")
    assert seal_tool(direct, "--source-tree", str(listing)) == (
        f"seal: source revision unknown (recorded as null): {listing} is empty: no checkout was listed"
    )
    outside = tmp_path / "not-a-checkout"
    outside.mkdir()
    with listing.open("wb") as out:
        subprocess.run(
            ["bash", "-c", f"set -euo pipefail\n{functions}\nsource_tree"],
            cwd=outside,
            stdout=out,
            check=True,
            env=_env(),
        )
    assert listing.read_bytes() == b""
