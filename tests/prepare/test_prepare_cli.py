"""The ``ablation-prepare`` console script: its own help, the product's exit codes, the sealed ``.venv``.

Spec: PREPARE.md §2, §11 criterion 1; PRODUCT.md "Command line".
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ablation.cli import main as ablation_main
from tests.prepare.prepfixtures import run_prepare, valid_experiment, write_experiment

ROOT = Path(__file__).resolve().parents[2]
SEALED = ROOT / ".venv" / "bin" / "ablation-prepare"


def test_help_lists_the_subcommands(capsys: pytest.CaptureFixture[str]) -> None:
    ran = run_prepare("--help")
    assert (ran.code, ran.err) == (0, "")
    assert ran.out.startswith("usage: ablation-prepare [-h] [--version] COMMAND ...\n")
    for line in ("    pin ", "    check ", "    sheet "):
        assert line in ran.out


def test_the_evaluator_help_does_not_list_preparation(capsys: pytest.CaptureFixture[str]) -> None:
    assert ablation_main(["--help"]) == 0
    out = capsys.readouterr().out
    section = out.split("positional arguments:")[1].split("options:")[0]
    listed = {line.split()[0] for line in section.splitlines() if line.startswith("    ") and line[4] != " "}
    assert listed == {"run", "verify", "identity", "archive", "verify-archive", "keygen", "notes"}
    assert "ablation-prepare" not in out


@pytest.mark.parametrize(
    ("args", "tail"),
    [
        ((), "ablation-prepare: error: the following arguments are required: COMMAND\n"),
        (
            ("archive",),
            "ablation-prepare: error: argument COMMAND: invalid choice: 'archive' (choose from 'pin', "
            "'check', 'sheet', 'capture', 'assemble', 'freeze', 'check-freeze')\n",
        ),
        (("sheet", "cases", "e.toml"), "ablation-prepare sheet: error: the following arguments are required: --out\n"),
        (
            ("sheet", "staleness", "e.toml", "--out", "s.md"),
            "ablation-prepare sheet: error: argument kind: invalid choice: 'staleness' (choose from 'cases')\n",
        ),
        (("check", ""), "ablation-prepare check: error: argument EXPERIMENT.toml: an empty path names no file\n"),
        (("pin",), "ablation-prepare pin: error: the following arguments are required: PATH\n"),
    ],
)
def test_usage_errors_exit_2(args: tuple[str, ...], tail: str) -> None:
    ran = run_prepare(*args)
    assert (ran.code, ran.out) == (2, "")
    assert ran.err.endswith(tail)


UNSEALED_VERSION = "ablation-prepare (unsealed: a development checkout; no source revision)\n"


def test_version() -> None:
    assert run_prepare("--version").out == UNSEALED_VERSION


def test_python_dash_m_runs_the_same_command_line() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "ablation.prepare", "--version"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert (completed.returncode, completed.stdout) == (0, UNSEALED_VERSION)


@pytest.mark.skipif(not SEALED.is_file(), reason=f"{SEALED} is not built (make venv)")
def test_the_sealed_environment_has_a_working_ablation_prepare(tmp_path: Path) -> None:
    assert SEALED.read_text(encoding="utf-8").startswith(f"#!{ROOT / '.venv' / 'bin' / 'python'} -IBS\n")
    experiment = write_experiment(tmp_path / "experiment.toml", valid_experiment(tmp_path).doc)
    completed = subprocess.run([SEALED, "check", experiment], capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines()[-1].endswith(f"  {experiment}")
    broken = subprocess.run([SEALED, "check", tmp_path / "none.toml"], capture_output=True, text=True, check=False)
    assert (broken.returncode, broken.stderr) == (
        2,
        f"ablation-prepare: cannot read experiment file '{tmp_path / 'none.toml'}': No such file or directory\n",
    )


@pytest.mark.skipif(not SEALED.is_file(), reason=f"{SEALED} is not built (make venv)")
def test_the_sealed_ablation_prepare_keeps_path_for_pin(tmp_path: Path) -> None:
    """The sealed start gives ablation-prepare PATH (pin finds git there), and nothing else of the caller's."""
    tool = tmp_path / "tool.sh"
    body = b"#!/bin/sh\n"
    tool.write_bytes(body)
    env = {"PATH": os.environ["PATH"], "LANG": "C", "OPENSSL_CONF": "/nonexistent"}
    completed = subprocess.run([SEALED, "pin", tool], capture_output=True, text=True, check=False, env=env)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines()[0].startswith("# git on PATH: ")
    assert f'sha256 = "{hashlib.sha256(body).hexdigest()}"' in completed.stdout.splitlines()
