"""``check`` and ``sheet`` leave every repository they read byte-for-byte unchanged (PREPARE.md §9.5).

For a checkout (``alpha``), a bare repository (``beta``) and the checkout a tool's
revision is derived from: HEAD, every ref (``for-each-ref``), the ``packed-refs``
SHA-256 and, for the checkouts, the status and the ``.git/index`` SHA-256 are
equal before and after. Tracked files are touched first, so a plain
``git status`` would rewrite the index; a control shows that it does.

Spec: PREPARE.md §2 (the audited read-only git helper), §9.5; issue 19 acceptance.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from tests.prepare.gitfixtures import Executable, git_environment, make_repository, snapshot
from tests.prepare.prepfixtures import pin_table, run_prepare, valid_experiment, write_experiment

_TOOL_FILES: dict[str | bytes, object] = {"bin/sci": Executable("#!/bin/sh\n"), "lib/cli.js": "// cli\n"}


def _touch(*paths: Path) -> None:
    """Give tracked files a new modification time, as an editor saving the same bytes would."""
    for path in paths:
        os.utime(path, ns=(1_900_000_000_000_000_000, 1_900_000_000_000_000_000))


def _index_sha256(repo: Path) -> str:
    return hashlib.sha256((repo / ".git" / "index").read_bytes()).hexdigest()


def test_a_plain_git_status_would_rewrite_the_index_of_a_touched_checkout(tmp_path: Path) -> None:
    control = make_repository(tmp_path / "control", _TOOL_FILES)  # type: ignore[arg-type]
    before = _index_sha256(control.path)
    _touch(control.path / "bin" / "sci")
    environment = {k: v for k, v in git_environment().items() if k != "GIT_OPTIONAL_LOCKS"}
    subprocess.run(["git", "-C", str(control.path), "status", "--porcelain"], env=environment, check=True)
    assert _index_sha256(control.path) != before


def test_check_and_sheet_change_nothing_in_the_repositories_they_read(tmp_path: Path) -> None:
    made = valid_experiment(tmp_path, two=True, bare_beta=True)
    tool = make_repository(tmp_path / "sci-checkout", _TOOL_FILES)  # type: ignore[arg-type]
    doc = made.doc
    doc["tools"]["sci"] |= pin_table(tool.path / "bin" / "sci", revision_from_checkout=True)
    del doc["tools"]["sci"]["revision"]
    experiment = write_experiment(tmp_path / "experiment.toml", doc)
    alpha = made.repos["alpha"].path
    _touch(alpha / "src" / "alpha" / "fees.py", tool.path / "bin" / "sci", tool.path / "lib" / "cli.js")
    repositories = [alpha, made.repos["beta"].path, tool.path]
    before = [snapshot(path) for path in repositories]
    assert "index sha256" in before[0] and "index sha256" not in before[1]

    checked = run_prepare("check", experiment)
    sheet = run_prepare("sheet", "cases", experiment, "--out", tmp_path / "sheet.md")

    assert (checked.code, sheet.code) == (0, 0)
    assert f"tools.sci revision {tool.commit} (revision_from_checkout)" in checked.out
    assert [snapshot(path) for path in repositories] == before
