"""Fixtures of the stand-in tests: one fixture repository per session, a fresh target per test."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.prepare.doubles import standin_fixture


@pytest.fixture(scope="session")
def environment_path() -> str:
    """The ``environment_path`` the tests give owners: a ``python3`` (this interpreter's folder) and ``git``."""
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    folders = [os.path.dirname(sys.executable), os.path.dirname(git)]
    return os.pathsep.join(dict.fromkeys(folders))


@pytest.fixture(scope="session")
def pristine_clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clone of the fixture repository (:data:`standin_fixture.FILES` …), never handed to a stand-in."""
    root = tmp_path_factory.mktemp("standin-fixture")
    standin_fixture.make_repo(root / "source")
    return standin_fixture.clone(root / "source", root / "clone")


@pytest.fixture
def target(pristine_clone: Path, tmp_path: Path) -> Iterator[Path]:
    """A fresh copy of the clone for one test (a stand-in may change it)."""
    yield standin_fixture.copy_tree(pristine_clone, tmp_path / "target")
