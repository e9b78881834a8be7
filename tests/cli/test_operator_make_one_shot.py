"""``make run ATTEMPT_RECORD=… [PRE_RUN_MANIFEST_SHA256=…]`` passes the one-shot flags (PREPARE.md §7, criterion 16).

With ``RUNNER=image`` only OUTPUT's folder is writable in the container, so a
marker elsewhere is refused on the host (exit 2) before Docker is asked
anything. The real runs use the sealed ``.venv`` that ``make test`` builds.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "prepared-input.json"
SHA = hashlib.sha256(EXAMPLE.read_bytes()).hexdigest()
MANIFEST = "cd" * 32

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _make(*args: str) -> subprocess.CompletedProcess[str]:
    drop = ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "SOURCE_DATE_EPOCH")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    return subprocess.run(
        ["make", "--no-print-directory", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=1800,
        check=False,
    )


def test_both_variables_are_known() -> None:
    """Neither is refused as a typo."""
    completed = _make("-n", "help", "ATTEMPT_RECORD=x", f"PRE_RUN_MANIFEST_SHA256={MANIFEST}")
    assert completed.returncode == 0, completed.stderr


def test_run_passes_the_flags(tmp_path: Path) -> None:
    """RUNNER=venv: the paths as given."""
    completed = _make(
        "-n",
        "run",
        f"OUTPUT={tmp_path}/r.json",
        f"ATTEMPT_RECORD={tmp_path}/attempt.json",
        f"PRE_RUN_MANIFEST_SHA256={MANIFEST}",
    )
    assert completed.returncode == 0, completed.stderr
    line = next(x for x in completed.stdout.splitlines() if "/bin/ablation run " in x)
    assert line.endswith(
        f'--output "{tmp_path}/r.json" --attempt-record "{tmp_path}/attempt.json" --pre-run-manifest-sha256 {MANIFEST} '
    )


def test_the_image_gets_the_marker_in_its_output_folder(tmp_path: Path) -> None:
    """RUNNER=image: the container's path of the marker, in the writable /out."""
    completed = _make("-n", "run", "RUNNER=image", f"OUTPUT={tmp_path}/r.json", f"ATTEMPT_RECORD={tmp_path}/a.json")
    assert completed.returncode == 0, completed.stderr
    assert '--output "/out/r.json" --attempt-record "/out/a.json"' in completed.stdout


def test_the_image_refuses_a_marker_outside_the_output_folder(tmp_path: Path) -> None:
    """Exit 2 on the host, naming both places; nothing is made."""
    (tmp_path / "out").mkdir()
    marker = tmp_path / "elsewhere" / "a.json"
    completed = _make("run", "RUNNER=image", f"OUTPUT={tmp_path}/out/r.json", f"ATTEMPT_RECORD={marker}")
    assert completed.returncode == 2
    assert completed.stderr.splitlines()[0] == (
        f"make run: ATTEMPT_RECORD '{marker}' is not in OUTPUT's folder '{tmp_path}/out/'; with RUNNER=image only "
        "that folder is writable: put the marker there (freeze --attempt-record names it)"
    )
    assert not marker.parent.exists() and list((tmp_path / "out").iterdir()) == []


def test_make_run_once_then_never_again(tmp_path: Path) -> None:
    """The sealed run makes the marker; a second ``make run`` with it stops on the command's exit 5."""
    marker = tmp_path / "attempt.json"
    first = _make(
        "run",
        f"INPUT={EXAMPLE}",
        f"INPUT_SHA256={SHA}",
        f"OUTPUT={tmp_path}/r.json",
        f"ATTEMPT_RECORD={marker}",
        f"PRE_RUN_MANIFEST_SHA256={MANIFEST}",
    )
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines()[-1].endswith(f"  {tmp_path}/r.json")
    assert f'"preRunManifestSha256": "{MANIFEST}"' in marker.read_text(encoding="utf-8")
    second = _make(
        "run", f"INPUT={EXAMPLE}", f"INPUT_SHA256={SHA}", f"OUTPUT={tmp_path}/r2.json", f"ATTEMPT_RECORD={marker}"
    )
    assert second.returncode == 2
    assert f"ablation: attempt record {str(marker)!r} already exists: " in second.stderr
    assert not (tmp_path / "r2.json").exists()
