"""The gates of the clone and source-list steps that no stand-in variant reaches, and a tool changed mid-run.

A git that fails its clone (CAP-11), a git whose clone changes the source (CAP-12),
a source-list stdout whose SHA-256 is not the one expected (CAP-16), a
``max_items`` above the item count (CASE-8, checked after capture), and a
source-list that changes the pinned SCI file: the SCI step is refused with exit
3 before its attempt begins (PRE-20).

Spec: PREPARE.md §4 ("target tree", "immediate gates", "tool identity"), §8.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.prepare.capfixtures import (
    Made,
    assert_ledger_files_intact,
    capture,
    ends,
    ledger,
    standin_experiment,
    write_review,
)
from tests.prepare.doubles import standins
from tests.prepare.prepfixtures import dump_toml, errors_of, pin_table, real_git


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("gates")


def _rewrite(made: Made) -> None:
    made.experiment.write_text(dump_toml(made.doc), encoding="utf-8")
    write_review(made)


def _with_git(made: Made, clone_body: str) -> None:
    """Pin a git wrapper: ``clone`` runs ``clone_body``; everything else is the real git."""
    wrapper = made.root / "git"
    wrapper.write_text(
        f'#!/bin/sh\nif [ "$1" = clone ]; then\n{clone_body}\nfi\nexec {real_git()} "$@"\n', encoding="utf-8"
    )
    wrapper.chmod(0o755)
    made.doc["tools"]["git"] = pin_table(wrapper)
    _rewrite(made)


def test_CAP_11_a_failing_git_command_fails_the_step(shared: Path) -> None:
    made = standin_experiment(shared / "clone-fails")
    _with_git(made, "  echo 'fatal: no room for a clone' >&2\n  exit 7")
    ran = capture(made)
    assert ran.code == 4
    folder = made.dir / "raw/clones/0000/attempt-1"
    assert errors_of(ran) == [
        f"CAP-11 at {folder}/git-clone.stderr: expected git clone --quiet --no-local to exit 0; "
        "found exit 7: fatal: no room for a clone"
    ]
    assert (folder / "source-before.json").is_file() and (folder / "source-after.json").is_file()
    assert ends(made)[("repo:0000:clone", 1)]["rule"] == "CAP-11"
    assert_ledger_files_intact(made)


def test_CAP_12_a_source_changed_by_its_clone_fails_the_step(shared: Path) -> None:
    made = standin_experiment(shared / "clone-touches")
    _with_git(
        made, f'  {real_git()} "$@" || exit $?\n  {real_git()} -C "$5" update-ref refs/heads/touched HEAD\n  exit 0'
    )
    ran = capture(made)
    assert ran.code == 4
    folder = made.dir / "raw/clones/0000/attempt-1"
    assert errors_of(ran) == [
        f"CAP-12 at {folder}/source-after.json: expected the source repository unchanged by "
        "its clone; found refsSha256 changed (compare source-before.json)"
    ]
    assert (made.work_root / "targets/0000/.git").is_dir()  # the target is kept


def test_CAP_16_the_expected_source_list_sha256_must_reproduce(shared: Path) -> None:
    made = standin_experiment(shared / "expect")
    made.doc["repository"][0]["expect_source_list_sha256"] = "0" * 64
    _rewrite(made)
    ran = capture(made)
    stdout = made.dir / "raw/repositories/0000/attempt-1/source-list.stdout"
    sha = hashlib.sha256(stdout.read_bytes()).hexdigest()
    assert (ran.code, errors_of(ran)) == (
        4,
        [f"CAP-16 at {stdout}: expected the SHA-256 {'0' * 64} (repository[0].expect_source_list_sha256); found {sha}"],
    )


def test_CASE_8_max_items_above_the_item_count_is_refused_after_capture(shared: Path) -> None:
    made = standin_experiment(shared / "max-items")
    made.doc["case"][3]["max_items"] = 12
    _rewrite(made)
    ran = capture(made)
    stdout = made.dir / "raw/repositories/0000/attempt-1/source-list.stdout"
    assert (ran.code, errors_of(ran)) == (
        4,
        [f"CASE-8 at case[3].max_items: expected at most the item count of {stdout} (11); found 12"],
    )
    assert not [e for e in ledger(made) if str(e.get("step", "")).startswith("case:")]


def test_PRE_20_a_tool_changed_during_capture_refuses_the_next_step(shared: Path) -> None:
    made = standin_experiment(shared / "mid-run", sci_table={})
    sci = Path(made.doc["tools"]["sci"]["path"])
    wrapper = made.root / "source-list-that-edits-sci.py"
    wrapper.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(standins.DOUBLES_DIR)!r})\n"
        "import fake_source_list\n"
        f"open({str(sci)!r}, 'a').write('# changed while capture ran\\n')\n"
        f"sys.exit(fake_source_list.main([{str(standins.SOURCE_LIST)!r}, *sys.argv[1:]]))\n",
        encoding="utf-8",
    )
    made.doc["tools"]["source_list"] = pin_table(wrapper, revision=made.doc["tools"]["source_list"]["revision"])
    _rewrite(made)
    ran = capture(made)
    sha = hashlib.sha256(sci.read_bytes()).hexdigest()
    assert (ran.code, errors_of(ran)) == (
        3,
        [
            f"PRE-20 at tools.sci.sha256: expected the bytes at '{sci}' to have the pinned SHA-256 "
            f"{made.doc['tools']['sci']['sha256']}; found {sha} ({sci.stat().st_size} bytes)"
        ],
    )
    assert ends(made)[("repo:0000:source-list", 1)]["outcome"] == "succeeded"
    assert not [e for e in ledger(made) if e.get("step") == "case:0000:sci"]  # no attempt begun
