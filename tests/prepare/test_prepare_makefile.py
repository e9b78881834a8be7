"""The preparation targets of the Makefile (PREPARE.md §2 "Makefile", §11 criteria 1, 19, 28).

``prepare-check`` and ``prepare-sheet`` run ``$(VENV)/bin/ablation-prepare`` on the
host whatever ``RUNNER`` says; a missing ``EXPERIMENT`` or ``SHEET`` is refused
naming the variable; every preparation variable is known, and an unknown one is
still refused.

Spec: PREPARE.md §2 "Makefile".
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.prepare.prepfixtures import valid_experiment, write_experiment

ROOT = Path(__file__).resolve().parents[2]
PREPARATION_VARIABLES = (
    "EXPERIMENT",
    "PREP_DIR",
    "SHEET",
    "CASES_REVIEW",
    "FILE_ACCESS",
    "ALLOW_UNAVAILABLE",
    "STALENESS_REVIEW",
    "PRE_RUN_REVIEW",
    "ATTEMPT_RECORD",
    "PRE_RUN_MANIFEST_SHA256",
)

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _make(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "SOURCE_DATE_EPOCH")}
    return subprocess.run(
        ["make", "--no-print-directory", *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )


def test_every_preparation_variable_is_known_and_a_typo_is_not() -> None:
    assert _make("-n", "help", *(f"{name}=x" for name in PREPARATION_VARIABLES)).returncode == 0
    typo = _make("-n", "prepare-check", "EXPERIMNT=e.toml")
    assert typo.returncode == 2
    assert "*** unknown variable EXPERIMNT on the command line; the known ones are: INPUT " in typo.stderr


def test_make_help_lists_the_preparation_targets() -> None:
    out = _make("help").stdout
    assert "  prepare-check check EXPERIMENT before anything runs and print its SHA-256" in out
    assert "  prepare-sheet write the case-review sheet of EXPERIMENT to SHEET" in out


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (("prepare-check",), "make prepare-check: give EXPERIMENT=<experiment file .toml>"),
        (("prepare-sheet", "SHEET=s.md"), "make prepare-sheet: give EXPERIMENT=<experiment file .toml>"),
        (
            ("prepare-sheet", "EXPERIMENT=e.toml"),
            "make prepare-sheet: give SHEET=<new sheet file .md, outside PREP_DIR>",
        ),
        (
            ("prepare-sheet", "EXPERIMENT=e.toml", "SHEET=prep/x/sheet.md", "PREP_DIR=prep/x"),
            "make prepare-sheet: SHEET 'prep/x/sheet.md' lies inside PREP_DIR 'prep/x', which stays "
            "empty until capture",
        ),
    ],
)
def test_a_missing_variable_is_refused_naming_it(args: tuple[str, ...], line: str) -> None:
    completed = _make(*args)
    assert completed.returncode == 2
    assert line in completed.stderr.splitlines()
    assert "ablation-prepare " not in completed.stdout


def test_the_recipes_run_the_host_ablation_prepare_even_with_runner_image() -> None:
    for runner in ("venv", "image"):
        completed = _make("-n", "prepare-check", "EXPERIMENT=e.toml", f"RUNNER={runner}")
        assert completed.returncode == 0, completed.stderr
        assert '.venv/bin/ablation-prepare check "e.toml"' in completed.stdout.splitlines()
        assert "docker" not in completed.stdout


def test_prepare_check_and_prepare_sheet_run(tmp_path: Path) -> None:
    experiment = write_experiment(tmp_path / "experiment.toml", valid_experiment(tmp_path).doc)
    checked = _make("prepare-check", f"EXPERIMENT={experiment}")
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.splitlines()[-1].endswith(f"  {experiment}")
    sheet = tmp_path / "review" / "cases-sheet.md"
    written = _make("prepare-sheet", f"EXPERIMENT={experiment}", f"SHEET={sheet}", f"PREP_DIR={tmp_path / 'prep'}")
    assert written.returncode == 0, written.stderr
    assert sheet.read_text(encoding="utf-8").startswith("# Case-review sheet: `ctx-v2-test`\n")
    again = _make("prepare-sheet", f"EXPERIMENT={experiment}", f"SHEET={sheet}")
    assert again.returncode == 2
    assert "already exists; it is never overwritten" in again.stderr
