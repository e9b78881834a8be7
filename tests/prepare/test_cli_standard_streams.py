"""``ablation-prepare`` and its standard streams end as ``ablation``'s do (:mod:`ablation.streams`).

A closed stdout or stderr becomes the null device (no traceback); a reader
that went away is exit 0 with nothing more on stderr; stdout on a full disk is
exit 5 and one line. Before, a closed stdout was a traceback and a reader gone
was exit 120 with "Exception ignored".
"""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.builders.run import run_checkout_python


def _prepare(args: list[str], **streams: object) -> subprocess.CompletedProcess[bytes]:
    return run_checkout_python("from ablation.prepare.cli import main\nsys.exit(main())", *args, **streams)


@pytest.mark.parametrize("args", [["--help"], ["bogus"], ["sheet", "--help"]])
def test_a_closed_stdout_is_no_traceback(args: list[str]) -> None:
    done = _prepare(args, stdout=subprocess.DEVNULL)
    closed = _prepare(args, stdout=None, preexec_fn=_close_stdout)  # the child starts with descriptor 1 closed
    assert b"Traceback" not in closed.stderr
    assert closed.returncode == done.returncode
    assert closed.stderr == done.stderr


def _close_stdout() -> None:
    os.close(1)


def test_a_reader_gone_is_exit_0_and_nothing_on_stderr() -> None:
    reader = subprocess.Popen(["head", "-c", "1"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    assert reader.stdin is not None
    done = _prepare(["--help"], stdout=reader.stdin, stderr=subprocess.PIPE)
    reader.stdin.close()
    reader.wait()
    assert (done.returncode, done.stderr) == (0, b"")


def test_stdout_on_a_full_disk_is_exit_5_and_one_line() -> None:
    with open("/dev/full", "wb") as full:
        done = _prepare(["--help"], stdout=full, stderr=subprocess.PIPE)
    assert (done.returncode, done.stderr) == (
        5,
        b"ablation-prepare: cannot write standard output: No space left on device\n",
    )
