"""Ctrl-C or SIGTERM during the sealed start: one line and exit 130 or 143, never a traceback.

Before the command's ``main`` installs its own handling (:mod:`ablation.interrupts`),
the sealed start reads the manifest, checks the closure and imports the package
through the verified hook: a SIGINT there printed a ``KeyboardInterrupt`` traceback
(and once a ``TypeError`` with exit 1), a SIGTERM ended the process silently.
:func:`ablation.closure.boot.hold_start_signals` covers that stretch, and
:func:`~ablation.closure.boot.restore_start_signals` hands the signals back before
``main`` runs. Each case runs in its own interpreter, which signals itself.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINE = "ablation: interrupted by {}; stopped (an output file is written completely or not at all)\n"


def _child(code: str, *, ignore_sigint: bool = False) -> subprocess.CompletedProcess[str]:
    prelude = f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
    # As a shell's foreground job starts it: a test run in the background (nohup, CI) inherits SIGINT ignored.
    handler = "signal.SIG_IGN" if ignore_sigint else "signal.default_int_handler"
    prelude += f"import signal; signal.signal(signal.SIGINT, {handler})\n"
    return subprocess.run(
        [sys.executable, "-I", "-B", "-c", prelude + code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_during_the_start_is_one_line_and_its_exit_code(signum: signal.Signals, code: int) -> None:
    done = _child(
        "import os, time\n"
        "from ablation.closure import boot\n"
        "boot.hold_start_signals('ablation')\n"
        f"os.kill(os.getpid(), {int(signum)})\n"
        "time.sleep(30)\n"
        "print('not stopped')\n"
    )
    assert (done.returncode, done.stdout, done.stderr) == (code, "", LINE.format(signum.name))


def test_a_signal_the_caller_ignores_stays_ignored_during_the_start() -> None:
    done = _child(
        "import os\n"
        "from ablation.closure import boot\n"
        "boot.hold_start_signals('ablation')\n"
        "os.kill(os.getpid(), 2)\n"
        "boot.restore_start_signals()\n"
        "import signal; print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)\n",
        ignore_sigint=True,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "True\n", "")


def test_main_gets_the_interpreter_s_own_handlers_back() -> None:
    done = _child(
        "import signal\n"
        "from ablation.closure import boot\n"
        "boot.hold_start_signals('ablation-prepare')\n"
        "held = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)\n"
        "boot.restore_start_signals()\n"
        "print(held[0] is not signal.default_int_handler, held[1] is not signal.SIG_DFL)\n"
        "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)\n"
        "print(signal.getsignal(signal.SIGTERM) == signal.SIG_DFL)\n"
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "True True\nTrue\nTrue\n", "")


def test_the_prepare_command_names_itself() -> None:
    done = _child(
        "import os, time\n"
        "from ablation.closure import boot\n"
        "boot.hold_start_signals('ablation-prepare')\n"
        "os.kill(os.getpid(), 2)\n"
        "time.sleep(30)\n"
    )
    expected = "ablation-prepare" + LINE.format("SIGINT").removeprefix("ablation")
    assert (done.returncode, done.stderr) == (130, expected)


def test_the_verified_start_hands_the_signals_back_just_before_main() -> None:
    source = (ROOT / "ablation" / "closure" / "verified.py").read_text(encoding="utf-8")
    restore = source.index("        restore_start_signals()")
    assert source.index(".main  # through the verified hook") < restore < source.index("code: int = main()")
