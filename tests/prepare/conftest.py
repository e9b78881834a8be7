"""Session fixtures of the preparation tests.

- the two background fault matrices (``capture_background.py``) and the example run
  twice (``example_background.py``): started as soon as collection is done when a
  collected test needs them, so their waiting overlaps the tests that run in this
  process; each fixture only waits for them to end, and they are ended at the end of
  the session if a test run stops early;
- ``captured_base`` and ``chain`` (``chainfixtures.py``): one capture of the stand-in
  experiment, and that capture taken through every later step, shared by many tests.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest

from tests.prepare import capture_background, example_background
from tests.prepare.capfixtures import Made
from tests.prepare.capture_background import Background
from tests.prepare.chainfixtures import Chain, captured, make_chain
from tests.prepare.example_background import ExampleRuns

_STARTED: dict[str, Background] = {}
_EXAMPLE: dict[str, ExampleRuns] = {}


def _start(name: str, factory: pytest.TempPathFactory) -> Background:
    if name not in _STARTED:
        root = factory.mktemp(name)
        _STARTED[name] = capture_background.start(root / "experiment", traced=name == "traced_matrix")
    return _STARTED[name]


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start each background matrix that a collected test uses."""
    wanted = {name for item in session.items for name in getattr(item, "fixturenames", ()) if name.endswith("_matrix")}
    factory = session.config._tmp_path_factory  # type: ignore[attr-defined]
    for name in sorted(wanted & {"sci_matrix", "traced_matrix"}):
        _start(name, factory)
    if "example_runs" in {name for item in session.items for name in getattr(item, "fixturenames", ())}:
        _start_example(factory)


def _start_example(factory: pytest.TempPathFactory) -> ExampleRuns:
    if "runs" not in _EXAMPLE:
        _EXAMPLE["runs"] = example_background.start(factory.mktemp("example-runs"))
    return _EXAMPLE["runs"]


@pytest.fixture(scope="session")
def example_runs(tmp_path_factory: pytest.TempPathFactory) -> ExampleRuns:
    """The example run twice from two copies of the checkout (example_background.py); both ended."""
    runs = _start_example(tmp_path_factory)
    if runs.proc is None:
        pytest.skip(runs.skipped)
    runs.wait()
    return runs


@pytest.fixture(scope="session")
def sci_matrix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Background]:
    """The asserted SCI fault matrix: two repositories, every SCI variant one allowed case; ended."""
    background = _start("sci_matrix", tmp_path_factory)
    background.wait()
    yield background


@pytest.fixture(scope="session")
def traced_matrix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Background]:
    """The traced SCI matrix (skipped, with the reason, where strace cannot trace); ended."""
    background = _start("traced_matrix", tmp_path_factory)
    if background.proc is None:
        pytest.skip(background.skipped)
    background.wait()
    yield background


@pytest.fixture(scope="session", autouse=True)
def _end_background() -> Iterator[None]:
    yield
    for background in _STARTED.values():
        if background.proc is not None and background.proc.poll() is None:
            background.proc.kill()
            background.proc.communicate()
    for runs in _EXAMPLE.values():
        if runs.proc is not None and runs.proc.poll() is None:
            os.killpg(runs.proc.pid, signal.SIGKILL)  # its own session: the example's children go with it
            runs.proc.wait()


@pytest.fixture(scope="session")
def captured_base(tmp_path_factory: pytest.TempPathFactory) -> Made:
    """The stand-in experiment captured once (tests/prepare/chainfixtures.py); copy its D before changing it."""
    return captured(tmp_path_factory.mktemp("captured") / "experiment")


@pytest.fixture(scope="session")
def chain(captured_base: Made, tmp_path_factory: pytest.TempPathFactory) -> Chain:
    """That capture assembled, frozen, verified, run once, checked and archived (every step's output kept)."""
    return make_chain(tmp_path_factory.mktemp("chain"), captured_base)
