"""The Makefile's image plumbing (PRODUCT.md "Sealed environment", Makefile and
"Reproducible image"), read with ``make -n``: nothing is built or run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.builders.paths import ROOT

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _make(*args: str, env_extra: dict[str, str] | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("SOURCE_DATE_EPOCH", "MAKEFLAGS", "MAKELEVEL")}
    env.update(env_extra or {})
    result = subprocess.run(
        ["make", "--no-print-directory", *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def _commit_time() -> str:
    result = subprocess.run(
        ["git", "log", "-1", "--format=%ct", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    return result.stdout.strip()


def _line(output: str, needle: str) -> str:
    lines = [line for line in output.splitlines() if needle in line]
    assert len(lines) == 1, output
    return lines[0]


def test_run_with_the_image_resolves_the_id_once_and_runs_by_it(tmp_path: Path) -> None:
    output = _make("-n", "run", "RUNNER=image", f"OUTPUT={tmp_path}/x.results.json")
    line = _line(output, "docker run")
    assert line.count("docker image inspect") == 1
    assert line.startswith("image_id=$(docker image inspect --format '{{.Id}}' \"ablation:latest\") && docker run ")
    assert '-e ABLATION_IMAGE_DIGEST="$image_id"' in line
    assert (
        f'--mount type=bind,source="{tmp_path}",target="/out" "$image_id" run --input "/in/prepared-input.json"' in line
    )


def test_image_builds_take_the_commit_time_as_source_date_epoch() -> None:
    line = _line(_make("-n", "image"), "tools/image.sh image")
    assert f'EPOCH="{_commit_time()}"' in line
    line = _line(_make("-n", "image", env_extra={"SOURCE_DATE_EPOCH": "1700000000"}), "tools/image.sh image")
    assert 'EPOCH="1700000000"' in line


def test_the_derived_epoch_is_not_exported_to_recipes() -> None:
    # `make archive` reads SOURCE_DATE_EPOCH for the bundle's mtimes; the value the
    # Makefile derives for image builds must not reach it (or any other recipe).
    probe = '--eval=probe-epoch: ; @echo "[$${SOURCE_DATE_EPOCH-unset}]"'
    assert _make(probe, "probe-epoch") == "[unset]\n"
    assert _make(probe, "probe-epoch", env_extra={"SOURCE_DATE_EPOCH": "5"}) == "[5]\n"


def test_image_check_passes_the_id_and_needs_one() -> None:
    line = _line(_make("-n", "image-check", "IMAGE_ID=sha256:" + "a" * 64), "tools/image.sh check")
    assert line.endswith('tools/image.sh check "sha256:' + "a" * 64 + '"')
