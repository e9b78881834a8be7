"""``make prepare-example``'s script, run twice from two copies of the checkout at different paths, in the background.

What the example needs of a checkout (``examples/prepare/``, the stand-ins of
``tests/prepare/doubles/`` and ``tests/prepare/gitfixtures.py``) is copied to two
folders at different depths, and ``examples/prepare/run_example.py`` runs from
each in turn with this checkout's sealed ``.venv`` and one ``--fixed`` folder, as
two fresh clones on one machine would: the second run finds the first one's
``work_root`` and moves it aside itself. Both runs take a while (37 owner runs
each), so they start as one child process as soon as collection finds a test that
needs them (``tests/prepare/conftest.py``), and the tests only wait.

Spec: issue 21 item 4 and acceptance ("run twice in two fresh clones, the prepared
input's SHA-256 is the same").
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SEALED = ROOT / ".venv" / "bin" / "ablation"
COPIED = ("examples/prepare", "tests/prepare/doubles", "tests/prepare/gitfixtures.py")
CLONES = ("one/checkout", "elsewhere/at/another/depth/checkout")

_DRIVER = r"""
import subprocess, sys
venv, fixed, *checkouts = sys.argv[1:]
for n, checkout in enumerate(checkouts):
    with open(f"{checkout}.log", "w") as log:
        done = subprocess.run([sys.executable, f"{checkout}/examples/prepare/run_example.py", "--venv", venv,
                               "--fixed", fixed], cwd=checkout, stdout=log, stderr=subprocess.STDOUT)
    with open(f"{checkout}.code", "w") as code:
        code.write(str(done.returncode))
"""


def copy_checkout(to: Path) -> Path:
    """The files the example needs, copied from this checkout to ``to`` (generated files left out)."""
    ignore = shutil.ignore_patterns("__pycache__", "experiment.toml", "cases-review.toml", "*.pyc")
    for relative in COPIED:
        source, target = ROOT / relative, to / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=ignore)
        else:
            shutil.copy2(source, target)
    return to


@dataclass
class ExampleRuns:
    """The two runs: their checkouts, the fixed folder, the driver process (``None`` when skipped) and why."""

    checkouts: list[Path]
    fixed: Path
    proc: subprocess.Popen[bytes] | None
    skipped: str = ""

    def wait(self) -> list[tuple[int, str]]:
        """Each run's exit code and output, once both ended."""
        assert self.proc is not None
        self.proc.wait(timeout=900)
        return [
            (int(Path(f"{c}.code").read_text()), Path(f"{c}.log").read_text(encoding="utf-8")) for c in self.checkouts
        ]


def start(root: Path) -> ExampleRuns:
    """Copy the two checkouts under ``root`` and start the driver (skipped without the sealed ``.venv``)."""
    checkouts = [copy_checkout(root / clone) for clone in CLONES]
    fixed = root / "fixed"
    if not SEALED.is_file():
        return ExampleRuns(checkouts, fixed, None, f"{SEALED} is not built (make venv)")
    argv = [sys.executable, "-c", _DRIVER, str(ROOT / ".venv"), str(fixed), *map(str, checkouts)]
    proc = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    # Reaped the moment it ends, so it is never a zombie child of the test process meanwhile.
    threading.Thread(target=proc.wait, name="example-runs-reaper", daemon=True).start()
    return ExampleRuns(checkouts, fixed, proc)
