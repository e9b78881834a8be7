"""Fixtures every test folder shares: the repository, ``../shared``, the sealed CLI, prepared inputs.

The builders themselves are modules under ``tests/builders/`` (``from
tests.builders import prepared``); the paths are in ``tests/builders/paths.py``
for the module-level uses a fixture cannot serve.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ablation.cli import main
from tests.builders import paths, prepared


@pytest.fixture(scope="session")
def root() -> Path:
    """The repository."""
    return paths.ROOT


@pytest.fixture(scope="session")
def shared() -> Path:
    """``../shared`` beside the repository; the test is skipped, saying so, when it is absent."""
    if not paths.SHARED.is_dir():
        pytest.skip(paths.SHARED_ABSENT)
    return paths.SHARED


@pytest.fixture(scope="session")
def sealed_venv() -> Path:
    """The sealed ``.venv`` (``make test`` builds it first); skipped, saying so, when it is not sealed."""
    if not paths.is_sealed():
        pytest.skip(paths.SEALED_ABSENT)
    return paths.VENV


@pytest.fixture(scope="session")
def sealed_cli(sealed_venv: Path) -> Path:
    """The sealed console script, ``.venv/bin/ablation``."""
    return sealed_venv / "bin" / "ablation"


@pytest.fixture(scope="session")
def cli() -> Callable[..., int]:
    """The command line run in-process on the checkout: ``cli("verify", "--input", path)`` gives the exit code."""

    def run(*args: object) -> int:
        return main([str(a) for a in args])

    return run


@pytest.fixture(scope="session")
def minimal_bytes() -> bytes:
    """SPEC §11.1's valid input, as the bytes of a prepared input file."""
    return prepared.dumps(prepared.valid_minimal())


@pytest.fixture
def prepared_file(tmp_path: Path, minimal_bytes: bytes) -> Path:
    """SPEC §11.1's valid input written to ``prepared.json`` in the test's own folder."""
    path = tmp_path / "prepared.json"
    path.write_bytes(minimal_bytes)
    return path
