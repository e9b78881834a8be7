"""A Ctrl-C while :func:`ablation.closure.verified.run` ends the start's hashing thread is one line and exit 130.

Commands that never reach the run-time check (``--help``, ``--version``, a usage error) return from ``main``
while the thread may still hash the mapped libraries; ``run`` then stops it and waits, after ``main``'s own SIGINT
handling has ended. The contract (:mod:`ablation.interrupts`, ``tests/closure/test_start_signals.py``): one
line, exit 130, never a ``KeyboardInterrupt`` traceback.

The child below runs the real ``run`` with the start and the command replaced: a command that returns 0 at once,
and a hashing thread held until the SIGINT has been sent.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINE = "ablation: interrupted by SIGINT; stopped (an output file is written completely or not at all)\n"

_CHILD = """
import hashlib, os, signal, sys, threading, types
sys.path.insert(0, {root!r})
signal.signal(signal.SIGINT, signal.default_int_handler)  # what restore_start_signals gives back
from ablation.closure import verified

sent = threading.Event()

def held_hash():
    sent.wait()  # the thread ends only once the SIGINT is on its way
    return hashlib.sha256()

def start_closure(site, sha256):
    closure = verified.Closure(site, site, b"", held_hash)
    verified.CLOSURE = closure
    library = os.path.realpath(sys.executable)
    closure.hash_in_background([library])
    return closure

def interrupt():
    os.kill(os.getpid(), signal.SIGINT)
    threading.Timer(1.0, sent.set).start()

command = types.ModuleType("stub_command")
def main():  # --help: nothing checked, nothing to wait for in main
    threading.Timer(0.5, interrupt).start()
    return 0
command.main = main
sys.modules["stub_command"] = command
verified._start_closure = start_closure
verified._MAIN_MODULES = {{"ablation": "stub_command"}}
sys.exit(verified.run(sys.prefix, {root!r}, hashlib.sha256, "ablation"))
"""


def test_a_sigint_while_run_waits_for_the_hashing_thread_is_one_line_not_a_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-B", "-c", _CHILD.format(root=str(ROOT))],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in done.stderr
    assert (done.returncode, done.stderr) == (130, LINE)
