"""What the ``notes`` tests of issue 22 start from: runs, bundles and edited results files.

Not a test module: the ``test_review_notes_*`` files import it. Everything is
made with the project's own CLI, in process.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from ablation.cli import main

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "prepared-input.json"
EXAMPLE_SHA256 = (REPO / "examples" / "prepared-input.json.sha256").read_text(encoding="utf-8").split()[0]
SHARED_INPUTS = REPO.parent / "shared" / "inputs"


def captured(*args: object) -> tuple[int, str, str]:
    """``ablation <args>`` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def make_example(folder: Path) -> dict[str, Path]:
    """The example run (pinned), a key pair, and a signed bundle ``b.tar.gz``."""
    f = {name: folder / name for name in ("in.json", "results.json", "k.pem", "k.pub", "b.tar.gz")}
    f["in.json"].write_bytes(EXAMPLE.read_bytes())
    assert (
        captured("run", "--input", f["in.json"], "--input-sha256", EXAMPLE_SHA256, "--output", f["results.json"])[0]
        == 0
    )
    assert captured("keygen", "--private-key", f["k.pem"], "--public-key", f["k.pub"])[0] == 0
    assert (
        captured(
            "archive",
            "--input",
            f["in.json"],
            "--results",
            f["results.json"],
            "--bundle",
            f["b.tar.gz"],
            "--sign-key",
            f["k.pem"],
        )[0]
        == 0
    )
    return f


def run_input(folder: Path, data: bytes, name: str = "in.json") -> Path:
    """``run`` of an input given as bytes; the results file."""
    (folder / name).write_bytes(data)
    assert captured("run", "--input", folder / name, "--output", folder / f"{name}.results.json")[0] == 0
    return folder / f"{name}.results.json"


def shared_input(name: str) -> bytes:
    """A real-repository input of ``../shared/inputs`` (skips when ``../shared`` is absent)."""
    path = SHARED_INPUTS / name
    if not path.is_file():
        pytest.skip(f"{path} is not available (../shared is absent)")
    return path.read_bytes()


def edited(results: Path, target: Path, change: Callable[[dict[str, object]], object]) -> Path:
    """A copy of a results file with ``change`` applied to its parsed value, written as ``run`` would."""
    value = json.loads(results.read_bytes())
    change(value)
    target.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return target
