"""Ctrl-C while the sealed console script reads its two start-up modules, before the start holds the signals:
one line and exit 130, as :func:`ablation.closure.boot.hold_start_signals` gives later, never a traceback.

The console script is rendered from :data:`ablation.closure.seal.CONSOLE_SCRIPT` and run in a child whose
``open`` raises ``KeyboardInterrupt``, which is what a SIGINT during that read raises (a real signal needs a
read that blocks, and Python may start that read after the signal arrived but before it acted on it).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ablation.closure.seal import CONSOLE_SCRIPT

LINE = "ablation: interrupted by SIGINT; stopped (an output file is written completely or not at all)\n"

_CHILD = """
import builtins, sys
def interrupted(*args, **kwargs):
    raise KeyboardInterrupt
builtins.open = interrupted
sys.argv = [{script!r}]
text = {text!r}
exec(compile(text, {script!r}, "exec"), {{"__name__": "__main__"}})
"""


def _rendered(tmp_path: Path) -> str:
    values = {
        "@COMMAND@": "ablation",
        "@PYTHON@": sys.executable,
        "@PREFIX@": str(tmp_path),
        "@SITE@": str(tmp_path / "site"),
        "@BOOT@": "boot.pyc",
        "@LINES@": "layerlines.pyc",
        "@VERIFIED@": "verified.pyc",
        "@BOOT_SHA256@": "0" * 64,
        "@LINES_SHA256@": "0" * 64,
        "@VERIFIED_SHA256@": "0" * 64,
    }
    text = CONSOLE_SCRIPT
    for key, value in values.items():
        text = text.replace(key, value)
    return text


def test_a_sigint_while_the_console_script_reads_its_modules_is_one_line(tmp_path: Path) -> None:
    child = _CHILD.format(script=str(tmp_path / "ablation"), text=_rendered(tmp_path))
    done = subprocess.run(
        [sys.executable, "-I", "-B", "-c", child], capture_output=True, text=True, timeout=120, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (130, "", LINE)
