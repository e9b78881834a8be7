"""The identity's package digest is the checked folder's, or the run stops (exit 3).

The run-time check compares the package folder with the closure manifest once,
before any evaluator module runs; the identity walked the folder again later and
hashed whatever it found. A watcher swapping ``gates.pyc`` through a temporary
(vector 5, ``test_env_race.py``) could put ``__pycache__/.swap`` into that second
walk: the run exited 0 with ``fileCount`` 227 and an identity digest no other run
of the environment records (seen once in six runs of that test here). Now the
second walk must find exactly the manifest's files, or the identity is refused.
Each case measures a copy of the sealed package folder.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from ablation import identity
from ablation.closure.check import sealed_manifest
from ablation.errors import IntegrityError
from tests.closure.env_vectors import SEALED, VENV

PACKAGE = VENV / "lib" / "python3.11" / "site-packages" / "ablation"
REMEDY = "rebuild the environment (make venv) or the image"


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """A copy of the sealed ``.venv``'s package folder, manifest included."""
    if not SEALED:
        pytest.skip("needs the sealed .venv that `make test` builds first (make venv)")
    copy = tmp_path / "site-packages" / "ablation"
    shutil.copytree(PACKAGE, copy)
    return copy


def test_the_copy_measures_as_the_manifest_says(package: Path) -> None:
    measured = identity.measure(package)["package"]
    assert measured == identity.measure(PACKAGE)["package"]


def test_a_file_that_appeared_after_the_check_is_refused(package: Path) -> None:
    (package / "__pycache__" / ".swap").write_bytes(b"edited bytecode")
    with pytest.raises(IntegrityError) as caught:
        identity.measure(package)
    assert str(caught.value) == (
        "closure: ablation/__pycache__/.swap appeared while the evaluator ran (it is not in the closure manifest) "
        f"(layer package); {REMEDY}"
    )


def test_a_file_changed_after_the_check_is_refused(package: Path) -> None:
    gates = package / "__pycache__" / "gates.cpython-311.pyc"
    recorded = sealed_manifest(package).layers["package"]["ablation/__pycache__/gates.cpython-311.pyc"]
    gates.write_bytes(b"edited")
    with pytest.raises(IntegrityError) as caught:
        identity.measure(package)
    message = str(caught.value)
    assert message.startswith("closure: ablation/__pycache__/gates.cpython-311.pyc changed while the evaluator ran ")
    assert message.endswith(
        f"(sha256 {hashlib.sha256(b'edited').hexdigest()}, manifest {recorded}) (layer package); {REMEDY}"
    )


def test_a_file_gone_after_the_check_is_refused(package: Path) -> None:
    (package / "gates.py").unlink()
    with pytest.raises(IntegrityError) as caught:
        identity.measure(package)
    assert (
        str(caught.value) == f"closure: ablation/gates.py went away while the evaluator ran (layer package); {REMEDY}"
    )
