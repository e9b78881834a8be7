"""PRODUCT exit codes on standard output: a closed pipe exits 0 quietly, a full disk is exit 5.

What ``verify``, ``identity``, ``notes`` … print is block-buffered when stdout is
not a terminal, so it may first be written at interpreter exit, where a failure
used to become exit 120 ("Exception ignored … BrokenPipeError") or, on a full
disk, a traceback (exit 1). The sealed console script runs with ``-I``, which
ignores ``PYTHONUNBUFFERED``; these tests drop it too, so they see what an
operator sees.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import builder

ROOT = Path(__file__).resolve().parents[1]
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
_UNSEALED = b"ablation: note: unsealed environment (no closure manifest); the evaluator identity says so\n"


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("stdout") / "prepared.json"
    path.write_bytes(builder.dumps(builder.valid_minimal()))
    return path


def _args(command: str, prepared: Path) -> list[str]:
    if command == "identity":
        return ["identity"]
    return ["verify", "--input", str(prepared), "--json"]


def _run(args: list[str], stdout: int) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "ablation", *args], stdout=stdout, stderr=subprocess.PIPE,
                          cwd=ROOT, env=_ENV, check=False)  # fmt: skip


@pytest.mark.parametrize("command", ["identity", "verify"])
def test_closed_pipe_on_stdout_exits_0_quietly(command: str, prepared: Path) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before anything is written (`| head` that exited)
    try:
        proc = _run(_args(command, prepared), write_end)
    finally:
        os.close(write_end)
    assert proc.returncode == 0, proc.stderr
    assert b"Broken pipe" not in proc.stderr
    assert b"Traceback" not in proc.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("command", ["identity", "verify"])
def test_full_disk_on_stdout_is_an_output_refusal(command: str, prepared: Path) -> None:
    with open("/dev/full", "wb") as full:
        proc = _run(_args(command, prepared), full.fileno())
    assert proc.returncode == 5, proc.stderr
    lines = [line for line in proc.stderr.splitlines(keepends=True) if line != _UNSEALED]
    assert lines[-1] == b"ablation: cannot write standard output: No space left on device\n"
    assert b"Traceback" not in proc.stderr
