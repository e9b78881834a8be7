"""The checkout (unsealed), run in-process or in a fresh interpreter, for tests that need only codes and output."""

from __future__ import annotations

import subprocess
import sys

from ablation.cli import main
from tests.builders.paths import ROOT


def run_ablation(*args: object) -> int:
    """``ablation <args>`` in this process (each argument as ``str``); returns the exit code, never raises for one."""
    return main([str(a) for a in args])


def run_checkout_python(code: str, *args: str, **streams: object) -> subprocess.CompletedProcess[bytes]:
    """``python -I -c <code> <args>`` in a fresh interpreter with the checkout first on ``sys.path``.

    For what only a new process shows: what it imports, how it exits, its streams.
    ``streams`` go to :func:`subprocess.run` (``stdout``, ``stderr``, ``preexec_fn``, …);
    by default both outputs are captured (bytes).
    """
    prelude = f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
    options: dict[str, object] = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **streams}
    return subprocess.run([sys.executable, "-I", "-c", prelude + code, *args], check=False, **options)  # type: ignore[call-overload, no-any-return]
