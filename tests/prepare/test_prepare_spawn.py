"""``pin``, ``check`` and ``sheet`` start no process but the audited read-only git helper (PREPARE.md §9.2).

Process creation is patched to raise: ``subprocess.Popen`` unless it is called
from :meth:`ablation.prepare.gitread.GitReader._spawn` with a read-only git
subcommand, and ``os.fork``, ``os.posix_spawn``, ``os.system`` and the
``exec`` family always. The three subcommands still succeed; every process
they started is listed and checked.

Spec: PREPARE.md §9.2, §11 criteria 2 and 11.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ablation.prepare.gitread import CONFIG_OPTIONS, READ_ONLY_SUBCOMMANDS, GitReader
from tests.prepare.gitfixtures import Executable, make_repository
from tests.prepare.prepfixtures import pin_table, real_git, run_prepare, valid_experiment, write_experiment

_REAL_POPEN = subprocess.Popen
_AUDITED = GitReader._spawn.__code__


class SpawnRefused(AssertionError):
    """A process was started outside the audited read-only git helper."""


def _from_the_helper() -> bool:
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code is _AUDITED:
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


def _patch_spawns(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """From here on, every process start raises unless the audited helper makes it; returns the list of those."""
    started: list[tuple[str, ...]] = []

    def popen(argv: Any, *args: Any, **kwargs: Any) -> Any:
        argv = tuple(argv)
        if not _from_the_helper():
            raise SpawnRefused(f"started outside the audited git helper: {argv}")
        started.append(argv)
        return _REAL_POPEN(argv, *args, **kwargs)

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise SpawnRefused(f"process creation outside subprocess: {args}")

    monkeypatch.setattr(subprocess, "Popen", popen)
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
            monkeypatch.setattr(os, name, refuse)
    return started


def _subcommand(argv: tuple[str, ...]) -> str:
    rest = argv[1 + len(CONFIG_OPTIONS) :]
    return rest[2] if rest[:1] == ("-C",) else rest[0]


def test_the_patch_refuses_any_other_process(monkeypatch: pytest.MonkeyPatch) -> None:
    _patch_spawns(monkeypatch)
    with pytest.raises(SpawnRefused):
        subprocess.run(["true"], check=False)
    with pytest.raises(SpawnRefused):
        os.system("true")  # refused before anything runs


def test_pin_check_and_sheet_spawn_only_read_only_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    made = valid_experiment(tmp_path)  # before the patch: the fixture builder runs git itself
    tool = make_repository(tmp_path / "sci-checkout", {"bin/sci": Executable("#!/bin/sh\n")})
    spawned = _patch_spawns(monkeypatch)
    doc = made.doc
    doc["tools"]["sci"] |= pin_table(tool.path / "bin" / "sci", revision_from_checkout=True)
    del doc["tools"]["sci"]["revision"]
    experiment = write_experiment(tmp_path / "experiment.toml", doc)

    assert run_prepare("pin", tool.path / "bin" / "sci").code == 0
    pin_spawns = list(spawned)
    assert run_prepare("check", experiment).code == 0
    assert run_prepare("sheet", "cases", experiment, "--out", tmp_path / "sheet.md").code == 0

    assert pin_spawns and len(spawned) > len(pin_spawns)
    assert {_subcommand(argv) for argv in spawned} <= READ_ONLY_SUBCOMMANDS
    assert all(argv[1 : 1 + len(CONFIG_OPTIONS)] == CONFIG_OPTIONS for argv in spawned)
    assert {argv[0] for argv in spawned[len(pin_spawns) :]} == {real_git()}  # check and sheet: the pinned git
