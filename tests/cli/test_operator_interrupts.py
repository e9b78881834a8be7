"""Ctrl-C and SIGTERM: one line, no traceback, exit 130 or 143, no partial output (issue 23 Why 8).

Each command runs in its own process, which sends itself the signal at a
fixed point (no timing involved): while the input is evaluated, or while the
output is being published (after its temporary is written, before it is
linked into place).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "prepared-input.json"
LINE = "interrupted by {name}; stopped (an output file is written completely or not at all)"

# Runs ablation with argv, after making {target} send {name} to the process first.
# SIGINT is set to its default first: a caller that started the test run in the background (nohup,
# `&` in a script) hands every child an ignored SIGINT, which the command rightly keeps ignoring.
HOOK = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
import {module} as where
real = where.{target}
def hooked(*args, **kwargs):
    os.kill(os.getpid(), signal.{name})
    return real(*args, **kwargs)
where.{target} = hooked
from ablation.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _interrupted(tmp_path: Path, name: str, module: str, target: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "in.json").write_bytes(EXAMPLE.read_bytes())
    code = HOOK.format(module=module, target=target, name=name)
    argv = ["run", "--input", str(tmp_path / "in.json"), "--output", str(tmp_path / "out" / "r.json")]
    (tmp_path / "out").mkdir()
    return subprocess.run(
        [sys.executable, "-c", code, *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
        check=False,
    )


@pytest.mark.parametrize(("name", "code"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_while_evaluating_stops_with_one_line_and_no_output(tmp_path: Path, name: str, code: int) -> None:
    """Why 8: no traceback (SIGINT) and no silent death (SIGTERM); nothing is written."""
    proc = _interrupted(tmp_path, name, "ablation.pipeline", "evaluate")
    assert proc.returncode == code, proc.stderr
    assert proc.stderr.splitlines()[-1] == f"ablation: {LINE.format(name=name)}"
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""
    assert list((tmp_path / "out").iterdir()) == []


@pytest.mark.parametrize(("name", "code"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_while_publishing_leaves_no_temporary(tmp_path: Path, name: str, code: int) -> None:
    """The signal is held until the output is in place and its temporary removed, then stops the command."""
    proc = _interrupted(tmp_path, name, "os", "link")
    assert proc.returncode == code, proc.stderr
    assert proc.stderr.splitlines()[-1] == f"ablation: {LINE.format(name=name)}"
    assert "Traceback" not in proc.stderr
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["r.json"]
    written = (tmp_path / "out" / "r.json").read_bytes()
    assert written.endswith(b"}\n") and written.startswith(b'{\n  "inputSha256": ')


def test_an_ignored_signal_stays_ignored(tmp_path: Path) -> None:
    """A caller that ignores SIGINT (``nohup``, a background job) gets a finished run."""
    code = "import signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); " + HOOK.format(
        module="ablation.pipeline", target="evaluate", name="SIGINT"
    ).replace("\nimport os, signal, sys\n", "\nimport os\n").replace(
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n", ""
    )
    (tmp_path / "in.json").write_bytes(EXAMPLE.read_bytes())
    argv = ["run", "--input", str(tmp_path / "in.json"), "--output", str(tmp_path / "r.json")]
    proc = subprocess.run(
        [sys.executable, "-c", code, *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "r.json").is_file()
