"""A recorded folder, file or link replaced by an entry of another kind under the same name is a problem.

The whole-tree inventories compare names. A folder the manifest records, replaced by a
symbolic link to a folder holding the same names (a copy anyone can change later), or
by a file, and a recorded file or link replaced by a folder (whose contents no listing
then sees), keep every name as recorded. The run-time check
(:func:`ablation.closure.trees.tree_problems`) and ``tools/closure-check.sh`` name each.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ablation.closure.trees import collect_tree, tree_problems
from tests.closure.env_vectors import REPOSITORY, ablation, base_env, refusal, site_of


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "sub" / "m.py").write_text("")
    (root / "pkg" / "__init__.py").write_text("")
    (root / "activate").write_text("")
    (root / "python").symlink_to("/bin/true")
    return root


def _problems(root: Path, tree: dict[str, str]) -> list[str]:
    return sorted(p.render() for p in tree_problems(str(root), tree, {"pkg/__init__.py", "pkg/sub/m.py"}, "package"))


def test_a_tree_as_recorded_has_no_problem(tmp_path: Path) -> None:
    root = _root(tmp_path)
    tree = collect_tree(root, ["pkg/__init__.py", "pkg/sub/m.py"])
    assert tree == {"pkg": "dir", "pkg/sub": "dir", "activate": "file", "python": "link"}
    assert _problems(root, tree) == []


def test_a_recorded_folder_replaced_by_a_link_to_a_copy_is_a_problem(tmp_path: Path) -> None:
    root = _root(tmp_path)
    tree = collect_tree(root, ["pkg/__init__.py", "pkg/sub/m.py"])
    shutil.move(root / "pkg" / "sub", tmp_path / "copy")
    (root / "pkg" / "sub").symlink_to(tmp_path / "copy")
    assert _problems(root, tree) == [
        "pkg/sub is a symbolic link, where the closure manifest records a folder (layer package)",
        "pkg/sub/m.py is missing (it is in the closure manifest) (layer package)",
    ]


def test_a_recorded_file_or_link_replaced_by_a_folder_is_a_problem(tmp_path: Path) -> None:
    root = _root(tmp_path)
    tree = collect_tree(root, ["pkg/__init__.py", "pkg/sub/m.py"])
    (root / "activate").unlink()
    (root / "activate").mkdir()
    (root / "python").unlink()
    (root / "python").write_text("")
    assert _problems(root, tree) == [
        "activate is a folder, where the closure manifest records a file (layer package)",
        "python is a file, where the closure manifest records a symbolic link (layer package)",
    ]


@contextmanager
def _replaced(path: Path, by: str, tmp_path: Path) -> Iterator[None]:
    """``path`` (a folder or a file) replaced by a link to a copy, a file or an empty folder; put back after."""
    saved = tmp_path / "saved"
    shutil.move(path, saved)
    try:
        if by == "link":
            shutil.copytree(saved, tmp_path / "copy", symlinks=True)
            path.symlink_to(tmp_path / "copy")
        elif by == "file":
            path.write_text("")
        else:
            path.mkdir()
        yield
    finally:
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.is_dir():
            path.rmdir()
        shutil.move(saved, path)


@pytest.mark.parametrize(
    ("where", "by", "said"),
    [
        ("include/python3.11", "link", "{venv}/include/python3.11 is a link; the manifest records a dir"),
        ("include/python3.11", "file", "{venv}/include/python3.11 is a file; the manifest records a dir"),
        ("bin/activate", "dir", "{venv}/bin/activate is a dir; the manifest records a file"),
        ("site:cffi", "link", "site-packages/cffi is a link; the manifest records a dir"),
    ],
)
def test_both_checks_name_an_entry_of_another_kind(
    sealed_copy: Path, tmp_path: Path, where: str, by: str, said: str
) -> None:
    path = site_of(sealed_copy) / where.removeprefix("site:") if where.startswith("site:") else sealed_copy / where
    with _replaced(path, by, tmp_path):
        line = refusal(ablation(sealed_copy, "identity"))
        outside = subprocess.run(
            ["bash", str(REPOSITORY / "tools" / "closure-check.sh"), str(sealed_copy)],
            capture_output=True,
            text=True,
            check=False,
            env=base_env(),
        )
    assert where.removeprefix("site:") in line
    assert outside.returncode == 1, outside.stdout
    assert "closure-check: " + said.format(venv=sealed_copy) in outside.stdout.splitlines(), outside.stdout
