"""The source revision's parts (issue 22 item 6): the source tree, git blob ids, the comparison, the manifest member,
``--version``.

Git itself is the reference: every object id compared here is the one ``git
hash-object`` or ``git ls-tree`` prints, in private repositories under the
test's own folder (no system or user configuration).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from ablation.closure.manifest import ManifestUnusable, read_manifest, render_manifest
from ablation.closure.source import SourceTree, _blob_id, installed_sources, parse_source_tree, source_revision
from ablation.errors import IntegrityError
from ablation.identity import source_revision as recorded_revision
from ablation.identity import version_text
from tests.builders.run import run_ablation

COMMIT = "0123456789abcdef0123456789abcdef01234567"
_GIT_ENV = {
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
}
CONTENTS = [b"", b"print('x')\n", b"a\r\nb\r\n", "é ✓\n".encode(), bytes(range(256))]


def git(repo: Path, *args: str, data: bytes | None = None) -> bytes:
    """``git -C repo <args>`` with no system or user configuration; stdout."""
    return subprocess.run(
        ["git", "-C", str(repo), *args], input=data, capture_output=True, check=True, env=_GIT_ENV
    ).stdout


def listing(repo: Path) -> bytes:
    """The source tree of ``repo``'s HEAD, as tools/seal.py and tools/image.sh list it."""
    commit = git(repo, "rev-parse", "HEAD").strip()
    return commit + b"\n" + git(repo, "ls-tree", "-r", "-z", "--full-tree", commit.decode(), "--", "ablation")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose one commit holds ``ablation/`` with two files and a file beside it."""
    root = tmp_path / "repo"
    (root / "ablation" / "sub").mkdir(parents=True)
    git(root, "init", "--quiet", "--initial-branch=main")
    (root / "ablation" / "__init__.py").write_bytes(CONTENTS[1])
    (root / "ablation" / "sub" / "data.cnf").write_bytes(CONTENTS[2])
    (root / "README.md").write_bytes(b"not the package\n")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "one")
    return root


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "ablation").rglob("*")) if p.is_file()
    }


# ---------------------------------------------------------------- blob ids and the comparison


@pytest.mark.parametrize("data", CONTENTS, ids=["empty", "source", "crlf", "utf8", "every-byte"])
def test_blob_ids_are_the_ones_git_computes(tmp_path: Path, data: bytes) -> None:
    sha1 = tmp_path / "sha1"
    sha256 = tmp_path / "sha256"
    git(tmp_path, "init", "--quiet", str(sha1))
    git(tmp_path, "init", "--quiet", "--object-format=sha256", str(sha256))
    assert _blob_id(data, 40) == git(sha1, "hash-object", "--stdin", data=data).decode().strip()
    assert _blob_id(data, 64) == git(sha256, "hash-object", "--stdin", data=data).decode().strip()


def test_the_commit_s_own_files_name_the_commit(repo: Path) -> None:
    tree = parse_source_tree(listing(repo))
    commit = git(repo, "rev-parse", "HEAD").decode().strip()
    assert tree.commit == commit and tree.other == ()
    assert sorted(tree.blobs) == ["ablation/__init__.py", "ablation/sub/data.cnf"]
    assert source_revision(tree, _files(repo)) == commit


@pytest.mark.parametrize(
    "change",
    [
        lambda files: files.update({"ablation/__init__.py": b"print('y')\n"}),
        lambda files: files.update({"ablation/new.py": b""}),
        lambda files: files.pop("ablation/sub/data.cnf"),
        lambda files: files.update({"ablation/sub/data.cnf": b"a\nb\n"}),
    ],
    ids=["edited", "added", "missing", "line-endings"],
)
def test_any_difference_from_the_commit_is_dirty(repo: Path, change: Callable[[dict[str, bytes]], object]) -> None:
    tree = parse_source_tree(listing(repo))
    files = _files(repo)
    change(files)
    assert source_revision(tree, files) == tree.commit + "-dirty"


def test_an_executable_file_is_a_file_and_a_symbolic_link_is_not(repo: Path) -> None:
    (repo / "ablation" / "__init__.py").chmod(0o755)
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", "executable")
    tree = parse_source_tree(listing(repo))
    assert source_revision(tree, _files(repo)) == tree.commit
    (repo / "ablation" / "link.py").symlink_to("__init__.py")
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", "link")
    tree = parse_source_tree(listing(repo))
    assert tree.other == ("ablation/link.py",)
    files = _files(repo)  # the link installed as the file it points to
    assert "ablation/link.py" in files
    assert source_revision(tree, files) == tree.commit + "-dirty"


def test_a_sha256_repository_gives_a_64_digit_revision(tmp_path: Path) -> None:
    root = tmp_path / "repo256"
    (root / "ablation").mkdir(parents=True)
    git(tmp_path, "init", "--quiet", "--object-format=sha256", str(root))
    (root / "ablation" / "x.py").write_bytes(b"x = 1\n")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "one")
    tree = parse_source_tree(listing(root))
    assert len(tree.commit) == 64
    assert source_revision(tree, _files(root)) == tree.commit
    assert source_revision(tree, {"ablation/x.py": b"x = 2\n"}) == tree.commit + "-dirty"


def test_the_installed_sources_are_the_package_files_of_record_without_bytecode(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    for relative in ("ablation/a.py", "ablation/closure/openssl.cnf", "ablation/__pycache__/a.cpython-311.pyc"):
        (site / relative).parent.mkdir(parents=True, exist_ok=True)
        (site / relative).write_bytes(relative.encode())
    owned = [
        "ablation/a.py",
        "ablation/closure/openssl.cnf",
        "ablation/__pycache__/a.cpython-311.pyc",
        "ablation/gone.py",
        "ablation-0.1.0.dist-info/RECORD",
        "../../../bin/ablation",
    ]
    assert installed_sources(site, owned) == {
        "ablation/a.py": b"ablation/a.py",
        "ablation/closure/openssl.cnf": b"ablation/closure/openssl.cnf",
    }


# ---------------------------------------------------------------- a malformed source tree


RECORD = b"100644 blob " + b"b" * 40 + b"\tablation/x.py\0"


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"", "does not start with a commit id on its own line"),
        (COMMIT.upper().encode() + b"\n", "does not start with a commit id on its own line"),
        (COMMIT.encode(), "does not start with a commit id on its own line"),
        (COMMIT.encode() + b"\n" + RECORD[:-1], "does not end with a NUL-terminated ls-tree record"),
        (
            COMMIT.encode() + b"\n100644 blob " + b"b" * 64 + b"\tablation/x.py\0",
            "holds a record that is not git ls-tree -r -z output: b'100644 blob " + "b" * 64 + "\\tablation/x.py'",
        ),
        (
            COMMIT.encode() + b"\n100644 blob " + b"b" * 40 + b"\tREADME.md\0",
            "lists 'README.md', which is not one path below ablation/",
        ),
        (COMMIT.encode() + b"\n" + RECORD + RECORD, "lists 'ablation/x.py', which is not one path below ablation/"),
        (
            COMMIT.encode() + b"\n100644 blob " + b"b" * 40 + b"\tablation/\xff.py\0",
            "names a path that is not UTF-8: b'ablation/\\xff.py'",
        ),
    ],
    ids=["empty", "uppercase", "no-newline", "no-nul", "id-length", "outside", "twice", "not-utf8"],
)
def test_a_malformed_source_tree_is_refused(data: bytes, why: str) -> None:
    with pytest.raises(IntegrityError) as caught:
        parse_source_tree(data)
    assert str(caught.value) == f"closure: the source tree {why}; list it again (tools/seal.py --help)"
    assert caught.value.exit_code == 3


def test_a_commit_with_nothing_below_ablation_is_a_tree_without_files() -> None:
    assert parse_source_tree(COMMIT.encode() + b"\n") == SourceTree(COMMIT, {})


# ---------------------------------------------------------------- the manifest member and --version


def _manifest(folder: Path, package: dict[str, str | None]) -> Path:
    layers: dict[str, dict[str, str | None]] = {"package": {}, "dependencies": {}, "stdlib": {}, "interpreter": {}}
    folder.mkdir(parents=True)
    (folder / "CLOSURE.json").write_bytes(render_manifest(package=package, distributions=[], layers=layers, local={}))
    return folder


@pytest.mark.parametrize("revision", [COMMIT, COMMIT + "-dirty", "e" * 64, None])
def test_the_manifest_records_the_revision_and_version_shows_it(tmp_path: Path, revision: str | None) -> None:
    package_dir = _manifest(tmp_path / "ablation", {"name": "ablation", "sourceRevision": revision})
    assert read_manifest(package_dir / "CLOSURE.json", "CLOSURE.json").source_revision == revision
    assert recorded_revision(package_dir) == revision
    shown = "(source revision unknown: sealed without a git checkout)" if revision is None else revision
    assert version_text("ablation", package_dir) == f"ablation {shown}"


@pytest.mark.parametrize(
    "package",
    [
        {"name": "ablation", "version": "0.1.0"},
        {"name": "ablation", "sourceRevision": "main"},
        {"name": "ablation", "sourceRevision": COMMIT.upper()},
        {"name": "ablation", "sourceRevision": COMMIT + "-modified"},
        {"name": "other", "sourceRevision": None},
        {"name": "ablation", "sourceRevision": None, "version": "0.1.0"},
    ],
    ids=["old-version-member", "branch-name", "uppercase", "other-suffix", "other-name", "extra-member"],
)
def test_a_malformed_package_member_is_refused(tmp_path: Path, package: dict[str, str | None]) -> None:
    path = _manifest(tmp_path / "ablation", package) / "CLOSURE.json"
    with pytest.raises(ManifestUnusable) as caught:
        read_manifest(path, "ablation/CLOSURE.json")
    assert str(caught.value) == (
        "closure: ablation/CLOSURE.json has a malformed package member; "
        "rebuild the environment (make venv) or the image"
    )


def test_a_manifest_of_the_format_before_the_revision_is_refused(tmp_path: Path) -> None:
    path = _manifest(tmp_path / "ablation", {"name": "ablation", "sourceRevision": None}) / "CLOSURE.json"
    path.write_bytes(path.read_bytes().replace(b"ablation-closure/4", b"ablation-closure/3"))
    with pytest.raises(ManifestUnusable) as caught:
        read_manifest(path, "ablation/CLOSURE.json")
    assert caught.value.why == "is not a closure manifest of format ablation-closure/4"


def test_version_of_an_unsealed_checkout_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert version_text("ablation", tmp_path) == "ablation (unsealed: a development checkout; no source revision)"
    assert recorded_revision(tmp_path) is None
    capsys.readouterr()
    assert run_ablation("--version") == 0
    assert capsys.readouterr().out == "ablation (unsealed: a development checkout; no source revision)\n"
