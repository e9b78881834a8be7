"""PRODUCT exit codes on standard output: a closed pipe exits 0 quietly, a full disk is exit 5.

What ``verify``, ``identity``, ``notes`` … print is block-buffered when stdout is
not a terminal, so it may first be written at interpreter exit, where a failure
used to become exit 120 ("Exception ignored … BrokenPipeError") or, on a full
disk, a traceback (exit 1). The sealed console script runs with ``-I``, which
ignores ``PYTHONUNBUFFERED``; these tests drop it too, so they see what an
operator sees.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builders import prepared
from tests.builders.paths import ROOT

_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
_UNSEALED = b"ablation: note: unsealed environment (no closure manifest); the evaluator identity says so\n"


@pytest.fixture(scope="module")
def prepared_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("stdout") / "prepared.json"
    path.write_bytes(prepared.dumps(prepared.valid_minimal()))
    return path


def _args(command: str, prepared_file: Path) -> list[str]:
    if command in ("identity", "--help"):
        return [command]
    return ["verify", "--input", str(prepared_file), "--json"]


def _run(args: list[str], stdout: int) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "ablation", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=_ENV,
        check=False,
    )


@pytest.mark.parametrize("command", ["identity", "verify", "--help"])
def test_closed_pipe_on_stdout_exits_0_quietly(command: str, prepared_file: Path) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before anything is written (`| head` that exited)
    try:
        proc = _run(_args(command, prepared_file), write_end)
    finally:
        os.close(write_end)
    assert proc.returncode == 0, proc.stderr
    assert b"Broken pipe" not in proc.stderr
    assert b"Traceback" not in proc.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("command", ["identity", "verify", "--help"])
def test_full_disk_on_stdout_is_an_output_refusal(command: str, prepared_file: Path) -> None:
    with open("/dev/full", "wb") as full:
        proc = _run(_args(command, prepared_file), full.fileno())
    assert proc.returncode == 5, proc.stderr
    lines = [line for line in proc.stderr.splitlines(keepends=True) if line != _UNSEALED]
    assert lines[-1] == b"ablation: cannot write standard output: No space left on device\n"
    assert b"Traceback" not in proc.stderr


def _closed(stream: str, args: list[str]) -> subprocess.CompletedProcess[bytes]:
    """``python -m ablation ARGS`` with stdout (``>&-``) or stderr (``2>&-``) closed by the shell."""
    redirect = ">&-" if stream == "stdout" else "2>&-"
    return subprocess.run(
        ["/bin/sh", "-c", f'exec "$0" -m ablation "$@" {redirect}', sys.executable, *args],
        capture_output=True,
        cwd=ROOT,
        env=_ENV,
        check=False,
    )


def test_closed_stderr_keeps_warnings_out_of_verify_json(prepared_file: Path) -> None:
    proc = _closed("stderr", ["verify", "--input", str(prepared_file), "--json"])
    assert proc.returncode == 0
    summary = json.loads(proc.stdout)  # the unpinned-hash warning did not fall back to stdout
    assert summary["inputSha256Pinned"] is False


def test_closed_stderr_run_writes_its_output(prepared_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    proc = _closed("stderr", ["run", "--input", str(prepared_file), "--output", str(out)])
    assert proc.returncode == 0
    assert proc.stdout == hashlib.sha256(out.read_bytes()).hexdigest().encode() + b"  " + bytes(out) + b"\n"


def test_closed_stdout_notes_exits_0_like_a_closed_pipe(prepared_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    assert _closed("stdout", ["run", "--input", str(prepared_file), "--output", str(out)]).returncode == 0
    proc = _closed("stdout", ["notes", "--results", str(out)])
    assert proc.returncode == 0, proc.stderr
    assert b"Traceback" not in proc.stderr
