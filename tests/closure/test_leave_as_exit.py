""":func:`ablation.closure.boot.leave` ends the process as ``sys.exit(code)`` would: same code, same bytes.

The sealed start skips the interpreter's teardown (decision 20) but must not change
what a caller sees. When a standard stream cannot be flushed, the interpreter's own
exit writes ``Exception ignored in: <…stdout…>`` and the error on stderr, and exits
120 whatever the command's code was (``Py_Exit``); a stream already closed is left
alone. Each case runs the same body ending once in ``leave`` and once in ``sys.exit``
and compares exit code, stdout and stderr; two cases run the sealed console scripts.
Exit handlers (``atexit``) do not run: nothing of ours or of the runtime
dependencies registers one that a finished command needs.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.builders.run import run_checkout_python

CASES = {
    "written": ("sys.stdout.write('out ' * 3000)\nsys.stderr.write('err')", (0, 2, 130), None, None),
    "stdout descriptor closed": ("sys.stdout.write('x')\nos.close(1)", (0, 4), None, None),
    "stdout on a full disk": ("sys.stdout.write('x')", (0, 5), "/dev/full", None),
    "stderr on a full disk": ("sys.stderr.write('e')", (0, 2), None, "/dev/full"),
    "stdout closed by the program": ("sys.stdout.close()", (0, 3), None, None),
    "stdout gone": ("sys.stdout = None", (0, 5), None, None),
}


def _end(body: str, ending: str, stdout: str | None, stderr: str | None) -> tuple[int, bytes, bytes]:
    out = open(stdout, "wb") if stdout else subprocess.PIPE  # noqa: SIM115 - closed below
    err = open(stderr, "wb") if stderr else subprocess.PIPE  # noqa: SIM115 - closed below
    try:
        done = run_checkout_python(
            f"import os\nfrom ablation.closure import boot\n{body}\n{ending}", stdout=out, stderr=err
        )
    finally:
        for stream in (out, err):
            if not isinstance(stream, int):
                stream.close()
    return done.returncode, done.stdout or b"", done.stderr or b""


@pytest.mark.parametrize(("name", "code"), [(name, code) for name, (_, codes, _, _) in CASES.items() for code in codes])
def test_leave_ends_as_sys_exit_does(name: str, code: int) -> None:
    body, _, stdout, stderr = CASES[name]
    left = _end(body, f"boot.leave({code})", stdout, stderr)
    exited = _end(body, f"sys.exit({code})", stdout, stderr)
    assert left == exited


def test_leave_runs_no_exit_handler() -> None:
    done = run_checkout_python(
        "import atexit\nfrom ablation.closure import boot\natexit.register(print, 'ran')\nboot.leave(0)"
    )
    assert (done.returncode, done.stdout) == (0, b"")


def test_a_usage_error_whose_stderr_is_full_is_exit_120(sealed_cli: Path) -> None:
    """argparse drops the failed write; the interpreter's exit finds the unflushed stderr (e5aa05e: 120)."""
    with open("/dev/full", "wb") as full:
        done = subprocess.run([str(sealed_cli), "bogus"], stdout=subprocess.PIPE, stderr=full, check=False)
    assert (done.returncode, done.stdout) == (120, b"")


def test_prepare_help_on_a_full_disk_is_one_line_and_exit_5(sealed_cli: Path) -> None:
    """ablation-prepare flushes stdout itself, as ablation does (ablation.streams); e5aa05e exited 120."""
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [str(sealed_cli.with_name("ablation-prepare")), "--help"], stdout=full, stderr=subprocess.PIPE, check=False
        )
    assert (done.returncode, done.stderr.decode()) == (
        5,
        "ablation-prepare: cannot write standard output: No space left on device\n",
    )
