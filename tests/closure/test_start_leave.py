""":func:`ablation.closure.boot.leave`: the sealed process ends with the command's code and every byte written.

The sealed start ends without the interpreter's teardown (decision 20), so
what is still buffered in ``sys.stdout`` and ``sys.stderr`` must be flushed by
``leave`` itself; a stream that cannot be flushed makes the code 120, as an
ordinary exit does.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(body: str, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    code = f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nfrom ablation.closure import boot\n{body}"
    return subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, check=False, **kwargs)  # type: ignore[call-overload, no-any-return]


@pytest.mark.parametrize("code", [0, 2, 3, 130])
def test_leave_flushes_both_streams_and_keeps_the_code(code: int) -> None:
    body = f"sys.stdout.write('out ' * 5000)\nsys.stderr.write('err')\nboot.leave({code})\nprint('never')"
    done = _run(body)
    assert (done.returncode, done.stdout, done.stderr) == (code, b"out " * 5000, b"err")


def test_leave_skips_exit_handlers() -> None:
    done = _run("import atexit\natexit.register(print, 'handler ran')\nboot.leave(0)")
    assert (done.returncode, done.stdout) == (0, b"")


def test_a_stream_that_cannot_be_flushed_is_exit_120() -> None:
    done = _run("import os\nsys.stdout.write('x')\nos.close(1)\nboot.leave(0)")
    assert done.returncode == 120


def test_a_failure_code_becomes_120_when_a_stream_cannot_be_flushed() -> None:
    done = _run("import os\nsys.stdout.write('x')\nos.close(1)\nboot.leave(4)")
    assert done.returncode == 120  # as sys.exit(4) would (tests/closure/test_leave_as_exit.py)


def test_a_missing_stream_is_left_alone() -> None:
    done = _run("sys.stdout = None\nboot.leave(5)")
    assert (done.returncode, done.stderr) == (5, b"")
