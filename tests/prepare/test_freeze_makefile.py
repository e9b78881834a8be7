"""``make prepare-assemble``, ``prepare-freeze``, ``prepare-check-freeze``, ``prepare-example``: variables and flags.

Each target refuses a missing required variable, naming it (exit 2); the recipes
(``make -n``) pass exactly the flags the variables ask for and run the host's
``ablation-prepare`` whatever ``RUNNER`` says; ``prepare-check-freeze`` passes
``--results $(OUTPUT)`` only when ``OUTPUT`` is given on the command line (not from
the environment, never ``make run``'s default).

Spec: PREPARE.md §2 "Makefile"; §11 criteria 1, 28.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PREPARE = ".venv/bin/ablation-prepare"

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _make(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "SOURCE_DATE_EPOCH", "OUTPUT")
    }
    return subprocess.run(
        ["make", "--no-print-directory", *args],
        cwd=ROOT,
        env=base | (env or {}),
        capture_output=True,
        text=True,
        check=False,
    )


def _recipe(*args: str, env: dict[str, str] | None = None) -> list[str]:
    done = _make("-n", *args, env=env)
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.replace("\\\n", " ").splitlines() if line.startswith(PREPARE)]


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ("prepare-assemble", "STALENESS_REVIEW=s.toml"),
            "make prepare-assemble: give PREP_DIR=<preparation directory capture filled>",
        ),
        (("prepare-assemble", "PREP_DIR=p"), "make prepare-assemble: give STALENESS_REVIEW=<staleness review .toml>"),
        (("prepare-freeze", "PREP_DIR=p"), "make prepare-freeze: give PRE_RUN_REVIEW=<pre-run review .toml>"),
        (
            ("prepare-freeze", "PRE_RUN_REVIEW=r.toml"),
            "make prepare-freeze: give PREP_DIR=<assembled preparation directory>",
        ),
        (("prepare-check-freeze",), "make prepare-check-freeze: give PREP_DIR=<frozen preparation directory>"),
    ],
)
def test_a_missing_variable_is_refused_naming_it(args: tuple[str, ...], line: str) -> None:
    done = _make(*args)
    assert done.returncode == 2
    assert line in done.stderr.splitlines()
    assert PREPARE not in done.stdout


def test_the_recipes_pass_the_flags_the_variables_ask_for() -> None:
    assert _recipe("prepare-assemble", "PREP_DIR=p", "STALENESS_REVIEW=s.toml") == [
        f'{PREPARE} assemble --dir "p" --staleness-review "s.toml"'
    ]
    assert _recipe("prepare-freeze", "PREP_DIR=p", "PRE_RUN_REVIEW=r.toml") == [
        f'{PREPARE} freeze --dir "p" --pre-run-review "r.toml"'
    ]
    flags = ("SIGN_KEY=k.pem", "ATTEMPT_RECORD=out/attempt.json", "RUNNER=image")
    assert _recipe("prepare-freeze", "PREP_DIR=p", "PRE_RUN_REVIEW=r.toml", *flags) == [
        f'{PREPARE} freeze --dir "p" --pre-run-review "r.toml" --attempt-record "out/attempt.json" --sign-key "k.pem"'
    ]
    assert _recipe("prepare-check-freeze", "PREP_DIR=p", "PUBLIC_KEY=k.pub", "RUNNER=image") == [
        f'{PREPARE} check-freeze --dir "p" --public-key "k.pub"'
    ]


def test_check_freeze_passes_results_only_for_an_output_given_on_the_command_line() -> None:
    assert _recipe("prepare-check-freeze", "PREP_DIR=p") == [f'{PREPARE} check-freeze --dir "p"']
    assert _recipe("prepare-check-freeze", "PREP_DIR=p", env={"OUTPUT": "out/env.json"}) == [
        f'{PREPARE} check-freeze --dir "p"'
    ]
    assert _recipe("prepare-check-freeze", "PREP_DIR=p", "OUTPUT=out/x.results.json") == [
        f'{PREPARE} check-freeze --dir "p" --results "out/x.results.json"'
    ]


def test_prepare_example_needs_no_variable_and_runs_the_example_script() -> None:
    done = _make("-n", "prepare-example", "RUNNER=image")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == 'python3 examples/prepare/run_example.py --venv ".venv"'
    assert "docker" not in done.stdout


def test_help_lists_the_new_targets() -> None:
    out = _make("help").stdout
    for target in ("prepare-assemble", "prepare-freeze", "prepare-check-freeze", "prepare-example"):
        assert f"  {target} " in out
