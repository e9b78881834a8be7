"""The boundaries of the new steps: ``assemble``, ``freeze`` and ``check-freeze`` spawn nothing and rank nothing.

- Process creation patched to raise everywhere (``subprocess.Popen``, ``os.fork``,
  ``os.posix_spawn``, ``os.system``, the ``exec`` family): all three still succeed
  (PREPARE.md §9.2, §11 criterion 11);
- every function of :mod:`ablation.selection` and :mod:`ablation.metrics`, and every
  name other modules imported from them, replaced by a raising stub: ``assemble`` and
  ``check-freeze`` still succeed (the blind self-check, §9.3);
- the evaluator commands with the one-shot flags, on a prepared input ``assemble``
  made, and ``archive --evidence D``: a child process has loaded neither
  ``subprocess`` nor ``ablation.prepare`` (§9.1, §11 criterion 10).

Spec: PREPARE.md §9; §11 criteria 10, 11.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import ablation.metrics
import ablation.selection
from tests.prepare.capfixtures import Made
from tests.prepare.chainfixtures import Chain, copy_d, pre_run_review, staleness_review
from tests.prepare.prepfixtures import errors_of, run_prepare

ROOT = Path(__file__).resolve().parents[2]
IDENTITY = "sha256:" + "cd" * 32


class Refused(AssertionError):
    """A process was started, or a ranking or metric function was called."""


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise Refused(f"not allowed here: {args!r}")


def _three_steps(d: Path) -> list[tuple[str, int, list[str]]]:
    """``assemble``, ``freeze`` and ``check-freeze`` on ``d``: each one's name, exit code and errors."""
    review = d.parent / "staleness-review.toml"
    review.write_text(staleness_review(d), encoding="utf-8")
    found = []
    ran = run_prepare("assemble", "--dir", d, "--staleness-review", review)
    found.append(("assemble", ran.code, errors_of(ran)))
    (d.parent / "pre-run.toml").write_text(pre_run_review(d, IDENTITY), encoding="utf-8")
    ran = run_prepare("freeze", "--dir", d, "--pre-run-review", d.parent / "pre-run.toml")
    found.append(("freeze", ran.code, errors_of(ran)))
    ran = run_prepare("check-freeze", "--dir", d)
    found.append(("check-freeze", ran.code, errors_of(ran)))
    return found


def test_the_patch_refuses_a_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(subprocess, "Popen", _refuse)
    with pytest.raises(Refused):
        subprocess.run(["true"], check=False)


def test_assemble_freeze_and_check_freeze_spawn_nothing(
    captured_base: Made, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    d = copy_d(captured_base.dir, tmp_path / "D")
    monkeypatch.setattr(subprocess, "Popen", _refuse)
    for name in (
        "fork",
        "forkpty",
        "posix_spawn",
        "posix_spawnp",
        "system",
        "popen",
        "spawnv",
        "spawnve",
        "execv",
        "execve",
        "execvp",
        "execvpe",
    ):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, _refuse)
    assert _three_steps(d) == [("assemble", 0, []), ("freeze", 0, []), ("check-freeze", 0, [])]


def test_the_self_check_never_ranks(captured_base: Made, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = copy_d(captured_base.dir, tmp_path / "D")
    stubbed = []
    for module in (ablation.selection, ablation.metrics):
        for name, value in vars(module).items():
            if callable(value) and getattr(value, "__module__", None) == module.__name__:
                monkeypatch.setattr(module, name, _refuse)
                stubbed.append(f"{module.__name__}.{name}")
    for loaded in [m for name, m in sys.modules.items() if name.startswith("ablation") and m is not None]:
        for name, value in list(vars(loaded).items()):
            if callable(value) and getattr(value, "__module__", None) in ("ablation.selection", "ablation.metrics"):
                monkeypatch.setattr(loaded, name, _refuse)
    assert len(stubbed) > 10
    assert _three_steps(d) == [("assemble", 0, []), ("freeze", 0, []), ("check-freeze", 0, [])]


_CHILD = r"""
import contextlib, io, json, sys
from ablation.cli import main

folder, prepared, sha, manifest, d = sys.argv[1:]
commands = [
    ("verify", ["verify", "--input", prepared, "--input-sha256", sha, "--json"]),
    ("run", ["run", "--input", prepared, "--input-sha256", sha, "--output", f"{folder}/out.json", "--attempt-record",
             f"{folder}/attempt.json", "--pre-run-manifest-sha256", manifest]),
    ("run again", ["run", "--input", prepared, "--input-sha256", sha, "--output", f"{folder}/out2.json",
                   "--attempt-record", f"{folder}/attempt.json"]),
    ("archive", ["archive", "--input", prepared, "--results", f"{folder}/out.json", "--bundle", f"{folder}/b.tar.gz",
                 "--evidence", d]),
    ("verify-archive", ["verify-archive", f"{folder}/b.tar.gz"]),
    ("notes", ["notes", "--results", f"{folder}/out.json", "--bundle", f"{folder}/b.tar.gz"]),
    ("identity", ["identity"]),
]
found = []
for name, argv in commands:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(argv)
    loaded = sorted(m for m in sys.modules if m == "subprocess" or m.startswith("ablation.prepare"))
    found.append([name, code, loaded])
print(json.dumps(found))
"""


def test_the_evaluator_on_a_prepared_input_loads_neither_subprocess_nor_preparation(
    chain: Chain, tmp_path: Path
) -> None:
    manifest = hashlib.sha256((chain.d / "SHA256SUMS.pre-run").read_bytes()).hexdigest()
    argv = [
        sys.executable,
        "-c",
        _CHILD,
        str(tmp_path),
        str(chain.d / "prepared.json"),
        chain.prepared_sha256,
        manifest,
        str(chain.d),
    ]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == [
        ["verify", 0, []],
        ["run", 0, []],
        ["run again", 5, []],
        ["archive", 0, []],
        ["verify-archive", 0, []],
        ["notes", 0, []],
        ["identity", 0, []],
    ]
