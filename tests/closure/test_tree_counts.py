"""A recorded tree is taken as unchanged only when every name is recorded and none is missing.

:func:`ablation.closure.trees.tree_problems` first asks whether each listed path is
recorded and counts them (decision 20); anything else is compared as two sets.
These are the cases where the count alone could mislead.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ablation.closure.trees import collect_tree, tree_problems


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "lib"
    (root / "pkg").mkdir(parents=True)
    for name in ("os.py", "pkg/__init__.py", "pkg/a.py"):
        (root / name).write_text("", encoding="utf-8")
    return root


def _rendered(root: Path, tree: dict[str, str], files: list[str]) -> list[str]:
    return [problem.render() for problem in tree_problems(str(root), tree, files, "stdlib")]


def test_one_name_swapped_for_another_is_both_added_and_missing(tmp_path: Path) -> None:
    root = _root(tmp_path)
    files = ["os.py", "pkg/__init__.py", "pkg/a.py"]
    tree = collect_tree(root, files)
    (root / "pkg" / "a.py").rename(root / "pkg" / "b.py")
    assert _rendered(root, tree, files) == [
        "pkg/b.py is not in the closure manifest (layer stdlib)",
        "pkg/a.py is missing (it is in the closure manifest) (layer stdlib)",
    ]


def test_a_path_both_in_the_tree_and_a_layer_is_not_counted_twice(tmp_path: Path) -> None:
    root = _root(tmp_path)
    files = ["os.py", "pkg/__init__.py", "pkg/a.py"]
    tree = {**collect_tree(root, files), "os.py": "file"}  # a manifest listing os.py twice
    assert _rendered(root, tree, files) == []
    (root / "pkg" / "a.py").unlink()
    assert _rendered(root, tree, files) == ["pkg/a.py is missing (it is in the closure manifest) (layer stdlib)"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root lists a folder whatever its mode")
def test_a_folder_that_cannot_be_listed_is_named_and_the_rest_compared(tmp_path: Path) -> None:
    root = _root(tmp_path)
    files = ["os.py", "pkg/__init__.py", "pkg/a.py"]
    tree = collect_tree(root, files)
    (root / "new.py").write_text("", encoding="utf-8")
    (root / "pkg").chmod(0)
    try:
        rendered = _rendered(root, tree, files)
    finally:
        (root / "pkg").chmod(0o755)
    assert rendered[0] == "pkg cannot be listed (Permission denied) (layer stdlib)"
    assert "new.py is not in the closure manifest (layer stdlib)" in rendered


def test_a_folder_replaced_by_a_file_of_the_same_name(tmp_path: Path) -> None:
    root = _root(tmp_path)
    files = ["os.py", "pkg/__init__.py", "pkg/a.py"]
    tree = collect_tree(root, files)
    for name in ("__init__.py", "a.py"):
        (root / "pkg" / name).unlink()
    (root / "pkg").rmdir()
    (root / "pkg").write_text("", encoding="utf-8")
    assert _rendered(root, tree, files)[0] == "pkg cannot be listed (Not a directory) (layer stdlib)"
