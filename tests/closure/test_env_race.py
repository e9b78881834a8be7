"""Vector 5 (issue 18): a watcher swaps a package ``.pyc`` between the check and the import.

Before, the start-up check hashed ``ablation/__pycache__/gates.cpython-311.pyc``
and the import read the file again, so a watcher could swap an edited copy in
between and back afterwards. Now the sealed start's loaders execute exactly the
bytes they hashed: whatever the watcher does, a run exits 0 with the clean
results file, or exits 3 (one line).
"""

from __future__ import annotations

import hashlib
import os
import py_compile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from ablation.closure.verified import Closure, ClosureViolation
from tests.closure.env_vectors import Evaluation, ablation, refusal, site_of

_GATES = "ablation/__pycache__/gates.cpython-311.pyc"


@pytest.fixture
def gates(sealed_copy: Path, tmp_path: Path) -> Iterator[tuple[Path, bytes, bytes]]:
    """``(the sealed gates .pyc, its bytes, an edited .pyc that makes every Fraction >= true)``; restored after."""
    site = site_of(sealed_copy)
    target = site / _GATES
    original = target.read_bytes()
    source = tmp_path / "gates.py"
    source.write_text(
        (site / "ablation" / "gates.py").read_text(encoding="utf-8")
        + "\nimport fractions as _f\n_f.Fraction.__ge__ = lambda a, b: True\n",
        encoding="utf-8",
    )
    edited = tmp_path / "gates.pyc"
    py_compile.compile(
        str(source),
        cfile=str(edited),
        dfile="ablation/gates.py",
        doraise=True,
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
    )
    yield target, original, edited.read_bytes()
    target.write_bytes(original)


def _swap(target: Path, versions: tuple[bytes, bytes], stop: threading.Event) -> None:
    """Swap the two versions in, alternately, by rename and by rewriting in place, until stopped."""
    staging = target.with_name(".swap")
    turn = 0
    while not stop.is_set():
        data = versions[turn % 2]
        if turn % 4 < 2:
            staging.write_bytes(data)
            os.replace(staging, target)
        else:
            with open(target, "r+b") as stream:
                stream.write(data)
                stream.truncate()
        turn += 1
    target.write_bytes(versions[0])


def test_an_edited_pyc_in_place_is_refused(sealed_copy: Path, gates: tuple[Path, bytes, bytes]) -> None:
    target, _, edited = gates
    target.write_bytes(edited)
    line = refusal(ablation(sealed_copy, "identity"))
    assert line.startswith(f"ablation: closure: {_GATES} changed (sha256 ")
    assert line.endswith("(layer package); rebuild the environment (make venv) or the image")


def test_a_watcher_swapping_the_pyc_cannot_change_the_result(
    sealed_copy: Path, clean_results: bytes, evaluation: Evaluation, gates: tuple[Path, bytes, bytes], tmp_path: Path
) -> None:
    target, original, edited = gates
    stop = threading.Event()
    watcher = threading.Thread(target=_swap, args=(target, (original, edited), stop))
    watcher.start()
    outcomes = []
    try:
        for run in range(8):
            out = tmp_path / f"results-{run}.json"
            completed = evaluation.run(sealed_copy, out)
            if completed.returncode == 0:
                assert out.read_bytes() == clean_results
                outcomes.append("same")
            else:
                assert refusal(completed).startswith("ablation: closure: ")
                assert not out.exists()
                outcomes.append("refused")
    finally:
        stop.set()
        watcher.join()
    assert len(outcomes) == 8


def test_the_loader_runs_the_bytes_it_hashed(tmp_path: Path) -> None:
    """In process: the file changes after the check; the loader hashes what it reads and refuses it."""
    site = tmp_path / "site"
    (site / "pkg").mkdir(parents=True)
    module = site / "pkg" / "m.py"
    first = b"x = 1\n"
    module.write_bytes(first)
    digest = hashlib.sha256(first).hexdigest()
    manifest = f' "layers": {{\n  "package": [\n  ["pkg/m.py", "{digest}"]\n  ],\n'.encode()
    closure = Closure(str(site), str(tmp_path / "stdlib"), manifest, hashlib.sha256)
    assert closure.read(str(module)) == b"x = 1\n"
    assert str(module) in closure.verified
    module.write_bytes(b"x = 2\n")
    with pytest.raises(ClosureViolation) as caught:
        closure.read(str(module))
    assert str(caught.value).startswith("closure: pkg/m.py changed (sha256 ")
    assert closure.violations == [str(caught.value)]
    elsewhere = tmp_path / "elsewhere.py"
    elsewhere.write_bytes(b"")
    with pytest.raises(ClosureViolation, match="is outside the sealed environment"):
        closure.read(str(elsewhere))
