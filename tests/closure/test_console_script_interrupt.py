"""Ctrl-C while the sealed console script reads its two start-up modules, before the start holds the signals:
one line and exit 130, as :func:`ablation.closure.boot.hold_start_signals` gives later, never a traceback.

The console script is rendered from :data:`ablation.closure.seal.CONSOLE_SCRIPT` with its first module a FIFO,
so the read blocks until the SIGINT arrives; the test waits until the script holds the FIFO open.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from ablation.closure.seal import CONSOLE_SCRIPT

LINE = "ablation: interrupted by SIGINT; stopped (an output file is written completely or not at all)\n"


def _script(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    os.mkfifo(site / "boot.pyc")
    values = {
        "@COMMAND@": "ablation",
        "@PYTHON@": sys.executable,
        "@PREFIX@": str(tmp_path),
        "@SITE@": str(site),
        "@BOOT@": "boot.pyc",
        "@VERIFIED@": "verified.pyc",
        "@BOOT_SHA256@": "0" * 64,
        "@VERIFIED_SHA256@": "0" * 64,
    }
    text = CONSOLE_SCRIPT
    for key, value in values.items():
        text = text.replace(key, value)
    script = tmp_path / "ablation"
    script.write_text(text, encoding="utf-8")
    return script


def _writer_when_read(fifo: Path) -> int:
    """Open ``fifo`` for writing once a reader holds it (ENXIO until then)."""
    for _ in range(6000):
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as error:
            if error.errno != errno.ENXIO:
                raise
        time.sleep(0.01)
    raise AssertionError("the console script never opened its first module")


def test_a_sigint_while_the_console_script_reads_its_modules_is_one_line(tmp_path: Path) -> None:
    script = _script(tmp_path)
    child = subprocess.Popen(  # SIGINT as a terminal's foreground job has it, also when the tests run in the background
        [sys.executable, "-IBS", str(script)],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    writer = _writer_when_read(tmp_path / "site" / "boot.pyc")
    try:
        child.send_signal(signal.SIGINT)
        _, stderr = child.communicate(timeout=60)
    finally:
        os.close(writer)
    assert (child.returncode, stderr) == (130, LINE)
