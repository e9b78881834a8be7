"""Captures that run in the background while other tests run: the SCI fault matrix, asserted and traced.

Most of an SCI fault variant's time is waiting (an orphan's 2 s, the 5 s grace, a
hang's ``process_timeout_s``), so the two matrices run as ``ablation-prepare``
child processes started once per session (``tests/prepare/conftest.py`` starts them
when collection finds a test that needs them), and the tests read what they
left in D. Every SCI variant of ``standins.VARIANTS`` is one case of one capture:
a test-only SCI (:func:`tests.prepare.capfixtures.sci_dispatcher`) runs the
variant its case's request file names, with OBS-13's argv unchanged. Every SCI
case is in ``--allow-unavailable-structural``, so one failing case does not hide
the next; the two variants that change the target (``ontology-dir``,
``edit-tracked``) are the last case of each repository.

Spec: PREPARE.md §10 ("Fault variants", "Traced mode"), §11 criteria 5, 6, 24, 26.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tests.prepare.capfixtures import Made, standin_experiment, strace_or_reason
from tests.prepare.doubles import standins
from tests.prepare.gitfixtures import snapshot
from tests.prepare.prepfixtures import Ran

ROOT = Path(__file__).resolve().parents[2]
SCI_VARIANTS = tuple(v for v in standins.VARIANTS if v.tool == "sci")
_LAST_OF_REPOSITORY = {"ontology-dir": 9, "edit-tracked": 19}
#: The traced matrix: the variants whose traced outcome differs or that strace must not break.
TRACED_NAMES = ("normal", "home-leftover", "home-cache", "orphan-long", "touch-tracked", "orphan-short")


def asserted_table() -> dict[int, standins.Variant]:
    """Case index → SCI variant of the asserted matrix (20 cases over two repositories; one normal case spare)."""
    table = {index: standins.variant("sci", name) for name, index in _LAST_OF_REPOSITORY.items()}
    free = [k for k in range(20) if k not in table]
    for k, v in zip(free, (v for v in SCI_VARIANTS if v.name not in _LAST_OF_REPOSITORY), strict=False):
        table[k] = v
    for k in free:
        table.setdefault(k, standins.variant("sci", "normal"))
    return table


def traced_table() -> dict[int, standins.Variant]:
    """Case index → SCI variant of the traced matrix (one repository)."""
    return {k: standins.variant("sci", name) for k, name in enumerate(TRACED_NAMES)}


@dataclass
class Background:
    """One background capture: its experiment, its process, and the sources as they were before it."""

    made: Made
    table: dict[int, standins.Variant]
    proc: subprocess.Popen[str] | None
    sources_before: dict[str, dict[str, object]] = field(default_factory=dict)
    skipped: str = ""
    _ran: Ran | None = None

    def wait(self) -> Ran:
        """The capture's exit code and output, once it ended."""
        if self._ran is None:
            assert self.proc is not None
            out, err = self.proc.communicate(timeout=600)
            self._ran = Ran(self.proc.returncode, out, err)
        return self._ran


def start(root: Path, *, traced: bool) -> Background:
    """Make the matrix experiment under ``root`` and start its capture in a child process."""
    table = traced_table() if traced else asserted_table()
    strace, why = strace_or_reason()
    if traced and strace is None:
        made = standin_experiment(root, sci_cases=len(table))
        return Background(made, table, None, skipped=why)
    made = standin_experiment(
        root,
        sci_cases=len(table) if traced else 10,
        repositories=1 if traced else 2,
        sci_table={k: v.file for k, v in table.items()},
        process_timeout_s=6,
        timeout_ms=5000,
        record_version=() if traced else ("git", "node", "sci", "backend"),
        strace=strace if traced else None,
    )
    sources = [Path(r["source"]) for r in made.doc["repository"]]
    before = {str(s): snapshot(s) for s in sources}
    allowed = [c["id"] for c in made.doc["case"] if "sci" in c]
    argv = [sys.executable, "-m", "ablation.prepare", "capture"]
    argv += [str(a) for a in made.args("--allow-unavailable-structural", *allowed, traced=traced)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    proc = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    return Background(made, table, proc, before)
