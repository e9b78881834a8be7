"""Tool pins: ``pin`` prints lines that paste into a ``[tools.*]`` table; ``check`` holds every tool to its pin.

A tool whose bytes changed (or that is gone) is an integrity failure, exit 3
(PRE-20); the pinned git must be 2.32 or later (PRE-21, a stub that reports
``git version 2.31.0``); ``revision_from_checkout`` needs a clean checkout that
tracks the file (PRE-12).

Spec: PREPARE.md §2 (``pin``), §3 check 10, §11 criterion 20.
"""

from __future__ import annotations

import copy
import hashlib
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.prepare.gitfixtures import Executable, make_repository
from tests.prepare.prepfixtures import Made, Ran, errors_of, pin_table, run_prepare, valid_experiment, write_experiment


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Made:
    return valid_experiment(tmp_path_factory.mktemp("pins"))


def _check(tmp_path: Path, doc: dict[str, object]) -> Ran:
    return run_prepare("check", write_experiment(tmp_path / "experiment.toml", doc))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_PRE_20_a_tool_whose_bytes_changed_is_exit_3(made: Made, tmp_path: Path) -> None:
    tool, before, after = tmp_path / "sci", b"#!/bin/sh\n", b"#!/bin/sh\nexit 1\n"
    tool.write_bytes(before)
    doc = copy.deepcopy(made.doc)
    doc["tools"]["sci"] |= pin_table(tool)
    tool.write_bytes(after)
    ran = _check(tmp_path, doc)
    assert (ran.code, ran.out, errors_of(ran)) == (
        3,
        "",
        [
            f"PRE-20 at tools.sci.sha256: expected the bytes at '{tool}' to have the pinned SHA-256 "
            f"{_sha256(before)}; found {_sha256(after)} (17 bytes)"
        ],
    )


def test_PRE_20_a_tool_that_is_gone_is_exit_3(made: Made, tmp_path: Path) -> None:
    doc = copy.deepcopy(made.doc)
    doc["tools"]["backend"]["extra_pins"] = [{"path": str(tmp_path / "gone.so"), "sha256": "0" * 64}]
    ran = _check(tmp_path, doc)
    assert (ran.code, errors_of(ran)) == (
        3,
        [
            "PRE-20 at tools.backend.extra_pins[0].path: expected a readable regular file; found No "
            "such file or directory"
        ],
    )


def test_PRE_20_a_changed_git_is_never_run(made: Made, tmp_path: Path) -> None:
    git = tmp_path / "git"
    git.write_bytes(b"#!/bin/sh\necho 'git version 2.45.0'\n")
    git.chmod(0o755)
    doc = copy.deepcopy(made.doc)
    doc["tools"]["git"] = pin_table(git)
    trap = tmp_path / "ran"
    git.write_bytes(f"#!/bin/sh\ntouch {trap}\necho 'git version 2.45.0'\n".encode())
    ran = _check(tmp_path, doc)
    assert ran.code == 3
    assert errors_of(ran)[0].startswith("PRE-20 at tools.git.sha256: expected the bytes at ")
    assert not trap.exists()


def _stub_git(folder: Path, output: str) -> Path:
    git = folder / "stub-git"
    git.write_text(f"#!/bin/sh\n{output}\n", encoding="utf-8")
    git.chmod(0o755)
    return git


def test_PRE_21_a_pinned_git_older_than_2_32_is_refused(made: Made, tmp_path: Path) -> None:
    doc = copy.deepcopy(made.doc)
    doc["tools"]["git"] = pin_table(_stub_git(tmp_path, "echo 'git version 2.31.0'"))
    ran = _check(tmp_path, doc)
    assert (ran.code, ran.out, errors_of(ran)) == (
        4,
        "",
        [
            "PRE-21 at tools.git.path: expected git 2.32 or later (an older git ignores GIT_CONFIG_GLOBAL); "
            "found 'git version 2.31.0'"
        ],
    )


def test_PRE_21_a_pinned_git_that_fails(made: Made, tmp_path: Path) -> None:
    doc = copy.deepcopy(made.doc)
    doc["tools"]["git"] = pin_table(_stub_git(tmp_path, "echo 'no git here' >&2; exit 9"))
    ran = _check(tmp_path, doc)
    assert (ran.code, errors_of(ran)) == (
        4,
        [
            "PRE-21 at tools.git.path: expected git 2.32 or later (an older git ignores GIT_CONFIG_GLOBAL); "
            "found no git here (exit 9)"
        ],
    )


def test_PRE_12_revision_from_checkout_is_derived_from_a_clean_checkout(made: Made, tmp_path: Path) -> None:
    checkout = make_repository(tmp_path / "sci", {"bin/sci": Executable("#!/bin/sh\n"), ".gitignore": "bin/extra\n"})
    doc = copy.deepcopy(made.doc)
    doc["tools"]["sci"] |= pin_table(checkout.path / "bin" / "sci", revision_from_checkout=True)
    del doc["tools"]["sci"]["revision"]
    ran = _check(tmp_path, doc)
    assert (ran.code, errors_of(ran)) == (0, [])
    assert f"tools.sci revision {checkout.commit} (revision_from_checkout)\n" in ran.out

    (checkout.path / "bin" / "extra").write_bytes(b"ignored, so the checkout stays clean\n")
    doc["tools"]["sci"] |= pin_table(checkout.path / "bin" / "extra")
    assert errors_of(_check(tmp_path, doc)) == [
        "PRE-12 at tools.sci.revision_from_checkout: expected a file tracked and unmodified in a clean git "
        f"checkout; found 'bin/extra' is not tracked in the checkout '{checkout.path}'"
    ]

    (checkout.path / "notes.txt").write_bytes(b"untracked\n")
    doc["tools"]["sci"] |= pin_table(checkout.path / "bin" / "sci")
    assert errors_of(_check(tmp_path, doc)) == [
        "PRE-12 at tools.sci.revision_from_checkout: expected a file tracked and unmodified in a clean git "
        f"checkout; found the checkout '{checkout.path}' is not clean (git status lists 1 path)"
    ]


def test_PRE_12_a_file_outside_any_checkout(made: Made, tmp_path: Path) -> None:
    doc = copy.deepcopy(made.doc)
    doc["tools"]["source_list"] = {**doc["tools"]["source_list"], "revision_from_checkout": True}
    del doc["tools"]["source_list"]["revision"]
    line = errors_of(_check(tmp_path, doc))[0]
    path = os.path.realpath(doc["tools"]["source_list"]["path"])
    prefix = "PRE-12 at tools.source_list.revision_from_checkout: expected a file tracked and unmodified in a clean "
    assert line.startswith(f"{prefix}git checkout; found '{path}' is not in a git checkout (fatal: ")


def test_PRE_11_revision_from_checkout_false(made: Made, tmp_path: Path) -> None:
    doc = copy.deepcopy(made.doc)
    del doc["tools"]["sci"]["revision"]
    doc["tools"]["sci"]["revision_from_checkout"] = False
    assert errors_of(_check(tmp_path, doc)) == [
        "PRE-11 at tools.sci.revision_from_checkout: expected true (or a revision instead); found false"
    ]


def _git_line() -> str:
    found = shutil.which("git")
    assert found is not None
    git = os.path.abspath(found)
    version = subprocess.run([git, "version"], capture_output=True, text=True, check=True).stdout.strip()
    return f"# git on PATH: {git} sha256 {_sha256(Path(git).read_bytes())} ({version})"


def test_pin_prints_lines_that_paste_into_a_tools_table(tmp_path: Path) -> None:
    checkout = make_repository(tmp_path / "sci", {"bin/sci": Executable("#!/bin/sh\necho sci\n")})
    tool = checkout.path / "bin" / "sci"
    link = tmp_path / "sci-link"
    link.symlink_to(tool)
    ran = run_prepare("pin", link)
    assert (ran.code, ran.err) == (0, "")
    sha = _sha256(tool.read_bytes())
    assert ran.out.splitlines() == [
        _git_line(),
        f"# {link}",
        f'path = "{link}"',
        f'sha256 = "{sha}"',
        f'revision = "{checkout.commit}"',
        f'# realpath = "{tool}"',
        "# size = 19",
    ]
    table = tomllib.loads("[tools.sci]\n" + "\n".join(ran.out.splitlines()[1:]))
    assert table == {"tools": {"sci": {"path": str(link), "sha256": sha, "revision": checkout.commit}}}


def test_pin_says_why_there_is_no_revision(tmp_path: Path) -> None:
    plain = tmp_path / "plain tool"
    plain.write_bytes(b"x")
    ran = run_prepare("pin", plain, plain)
    lines = ran.out.splitlines()
    assert ran.code == 0
    assert lines[1:4] == [f"# {plain}", f'path = "{plain}"', f'sha256 = "{_sha256(b"x")}"']
    assert lines[4].startswith(f"# no revision: '{plain}' is not in a git checkout (fatal: ")
    assert lines[5:8] == [f'# realpath = "{plain}"', "# size = 1", ""]
    assert lines[8:] == lines[1:7]


@pytest.mark.parametrize(("name", "why"), [("missing", "No such file or directory"), (".", "not a regular file")])
def test_pin_of_a_file_that_cannot_be_read_is_a_usage_error(tmp_path: Path, name: str, why: str) -> None:
    ran = run_prepare("pin", tmp_path / name if name != "." else tmp_path)
    shown = tmp_path / name if name != "." else tmp_path
    assert (ran.code, ran.out, ran.err) == (2, "", f"ablation-prepare: cannot read '{shown}': {why}\n")
