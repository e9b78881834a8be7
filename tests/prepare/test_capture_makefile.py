"""``make prepare-capture``: FILE_ACCESS required (strace or asserted), the flags it passes, a real run.

The target passes ``--execute-owners`` itself (naming it is the explicit act),
refuses a missing ``EXPERIMENT``, ``PREP_DIR``, ``CASES_REVIEW`` or ``FILE_ACCESS`` and
any other ``FILE_ACCESS`` value naming the variable (exit 2), turns
``ALLOW_UNAVAILABLE`` into ``--allow-unavailable-structural`` and runs the host's
``ablation-prepare`` whatever ``RUNNER`` says. With the sheet written where ``SHEET``
says, outside ``PREP_DIR``, ``capture`` accepts the still-empty ``PREP_DIR``.

Spec: PREPARE.md §2 ("Makefile"); §11 criterion 19.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.prepare.capfixtures import standin_experiment

ROOT = Path(__file__).resolve().parents[2]
GIVEN = ("EXPERIMENT=e.toml", "PREP_DIR=prep/x", "CASES_REVIEW=r.toml")

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _make(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "SOURCE_DATE_EPOCH")}
    return subprocess.run(
        ["make", "--no-print-directory", *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (GIVEN, "make prepare-capture: give FILE_ACCESS=<strace or asserted>"),
        ((*GIVEN, "FILE_ACCESS=trace"), "make prepare-capture: FILE_ACCESS must be strace or asserted, not 'trace'"),
        ((*GIVEN[1:], "FILE_ACCESS=strace"), "make prepare-capture: give EXPERIMENT=<experiment file .toml>"),
        (
            (GIVEN[0], GIVEN[2], "FILE_ACCESS=strace"),
            "make prepare-capture: give PREP_DIR=<preparation directory: absent or empty>",
        ),
        ((*GIVEN[:2], "FILE_ACCESS=asserted"), "make prepare-capture: give CASES_REVIEW=<cases review .toml>"),
    ],
)
def test_a_missing_or_other_variable_is_refused_naming_it(args: tuple[str, ...], line: str) -> None:
    completed = _make("prepare-capture", *args)
    assert completed.returncode == 2
    assert line in completed.stderr.splitlines()
    assert "ablation-prepare capture" not in completed.stdout


@pytest.mark.parametrize(
    ("extra", "flags"),
    [
        (("FILE_ACCESS=strace",), "--file-access-trace strace"),
        (("FILE_ACCESS=asserted",), "--assert-no-index-access"),
        (
            ("FILE_ACCESS=asserted", "ALLOW_UNAVAILABLE=case-01 case-02"),
            '--assert-no-index-access --allow-unavailable-structural "case-01" "case-02"',
        ),
        (("FILE_ACCESS=strace", "RUNNER=image"), "--file-access-trace strace"),
    ],
)
def test_the_recipe_passes_execute_owners_and_the_flags(extra: tuple[str, ...], flags: str) -> None:
    completed = _make("-n", "prepare-capture", *GIVEN, *extra)
    assert completed.returncode == 0, completed.stderr
    recipe = completed.stdout.replace("\\\n", " ")
    expected = '.venv/bin/ablation-prepare capture "e.toml" --dir "prep/x" --cases-review "r.toml" --execute-owners'
    assert expected in recipe
    assert " ".join(recipe.split(expected, 1)[1].split()) == flags
    assert "docker" not in completed.stdout


def test_the_sheet_outside_prep_dir_leaves_it_empty_and_capture_accepts_it(tmp_path: Path) -> None:
    made = standin_experiment(tmp_path / "make")
    sheet = tmp_path / "review" / "cases-sheet.md"
    prep = tmp_path / "prep"
    sheet_run = _make("prepare-sheet", f"EXPERIMENT={made.experiment}", f"SHEET={sheet}", f"PREP_DIR={prep}")
    assert sheet_run.returncode == 0, sheet_run.stderr
    prep.mkdir()
    run = _make(
        "prepare-capture",
        f"EXPERIMENT={made.experiment}",
        f"PREP_DIR={prep}",
        f"CASES_REVIEW={made.review}",
        "FILE_ACCESS=asserted",
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-1] == "capture complete: 3 attempts run, 0 steps skipped, 0 unavailable"
    assert sorted(p.name for p in prep.iterdir()) == [
        "attempts.jsonl",
        "cases-review.toml",
        "experiment.toml",
        "raw",
        "staleness-sheet.md",
    ]
