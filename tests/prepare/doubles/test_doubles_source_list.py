"""The source-list stand-in on a real git repository, checked with the evaluator's SL, PREP and GIT rules.

The normal stand-in's output must be accepted and list exactly the fixture's
items; each fault variant of PREPARE.md §10 must produce its fault: the
rule the evaluator reports (with the inner location for the parse faults), or
the capture gate that catches it.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from ablation.contracts.source_list import CandidateUniverse
from ablation.errors import InputRejected
from tests.prepare.doubles import standin_fixture, standins
from tests.prepare.doubles.standin_evaluate import (
    REPOSITORY,
    TargetState,
    check_source_list,
    source_list_repository,
)
from tests.prepare.doubles.standin_runs import OwnerRun, run_owner

RAW_WHERE = f"{REPOSITORY}/sourceListArtifact/rawJson"
PREP = f"{REPOSITORY}/sourceListPreparation"
#: The whole messages the evaluator gives on the fixture (capture's ``<where>`` replaces the part before `` -> ``).
MESSAGES = {
    "duplicate-key": f"TOP-6 at {RAW_WHERE} -> /mode: expected member names pairwise distinct; "
    "found a second member 'mode' at character 66",
    "float-count": f"TOP-8 at {RAW_WHERE} -> /totalCount: expected an integer literal (no fraction, no exponent); "
    "found 11.0",
    "bom-in-summary": f"SL-19 at {RAW_WHERE} -> /items/0/summary: "
    "expected a MetaScalar (normalized nonblank text of at most 240); found '\\ufeffDot dot js'",
    "omit-path": f"GIT-10 at {PREP}/trackedPathInventory/stdoutBase64: "
    "expected 10 tracked source paths (one per item); found 11 tracked source paths",
    "untracked-file": f"PREP-14 at {PREP}/targetState/statusAfter: expected ''; found '?? fake-source-list.cache\\n'",
    "exit-3": f"PREP-13 at {PREP}/exitCode: expected 0; found 3",
}


@dataclass(frozen=True)
class Captured:
    """One source-list run and the target's state around it."""

    run: OwnerRun
    before: TargetState
    after: TargetState
    home: Path
    tmp: Path


def capture(
    script: Path, target: Path, work: Path, environment_path: str, argv_tail: list[str] | None = None
) -> Captured:
    """Run ``script`` as the source-list owner in ``target`` under the clean environment."""
    home, tmp = work / "home", work / "tmp"
    home.mkdir(parents=True)
    tmp.mkdir()
    env = standins.owner_env(path=environment_path, home=home, tmpdir=tmp)
    argv = standins.source_list_argv(sys.executable, script)
    if argv_tail is not None:
        argv = argv[:2] + argv_tail
    before = TargetState.observe(target, env)
    run = run_owner(argv, cwd=target, env=env, out_dir=work / "out", timeout=60)
    return Captured(run, before, TargetState.observe(target, env), home, tmp)


def evaluate(c: Captured, script: Path) -> CandidateUniverse:
    """The evaluator's verdict on the captured bytes (raises InputRejected, or UnicodeDecodeError)."""
    exit_code = c.run.exit_code
    assert exit_code is not None
    commit, artifact, observation = source_list_repository(
        c.run.stdout, interpreter=sys.executable, script=script, exit_code=exit_code, before=c.before, after=c.after
    )
    return check_source_list(commit, artifact, observation)


def test_normal_output_is_accepted_and_lists_the_fixture_items(
    target: Path, tmp_path: Path, environment_path: str
) -> None:
    """The normal stand-in passes SL, PREP and GIT and lists exactly the fixture's items."""
    c = capture(standins.SOURCE_LIST, target, tmp_path / "work", environment_path)
    assert (c.run.exit_code, c.run.stderr, c.run.confirmed, c.run.orphans_seen) == (0, b"", True, False)
    universe = evaluate(c, standins.SOURCE_LIST)
    assert universe.paths == tuple(item[0] for item in standin_fixture.ITEMS)
    assert universe.index_kinds == tuple(item[1] for item in standin_fixture.ITEMS)
    assert universe.present_count == 5
    text = c.run.stdout.decode("utf-8")
    payload = json.loads(text)
    assert text == json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    assert "lib/café ü.go" in text  # raw, not \u-escaped
    got = [
        (
            i["path"],
            i["indexKind"],
            i["worktreeKind"],
            i["metadataStatus"],
            i["summary"],
            tuple(i["readWhen"]),
            i["metadataError"],
        )
        for i in payload["items"]
    ]
    assert got == list(standin_fixture.ITEMS)
    assert [i["extension"] for i in payload["items"]] == [
        ".js",
        ".go",
        ".sh",
        ".js",
        ".py",
        ".js",
        ".py",
        ".lua",
        ".rb",
        ".sh",
        ".go",
    ]
    assert c.before == c.after  # HEAD, status, .git/index, ls-files listing, no .ontology
    assert list(c.home.iterdir()) == [] and list(c.tmp.iterdir()) == []


SOURCE_LIST_FAULTS = [v for v in standins.VARIANTS if v.tool == "source-list" and v.name != "normal"]


@pytest.mark.parametrize("variant", SOURCE_LIST_FAULTS, ids=lambda v: v.name)
def test_fault_variant_gives_its_expected_outcome(
    variant: standins.Variant, target: Path, tmp_path: Path, environment_path: str
) -> None:
    """Each variant gives the outcome its table row names."""
    c = capture(variant.path, target, tmp_path / "work", environment_path)
    assert c.run.confirmed and not c.run.orphans_seen
    assert c.run.exit_code == (3 if variant.name == "exit-3" else 0)
    assert (c.run.stderr != b"") == (variant.gate == "source-list-stderr")
    if variant.gate == "strict-utf8":
        with pytest.raises(UnicodeDecodeError):
            c.run.stdout.decode("utf-8")
        return
    if variant.rule is None:
        universe = evaluate(c, variant.path)
        assert (universe.present_count == 0) == (variant.gate == "zero-present")
        return
    with pytest.raises(InputRejected) as caught:
        evaluate(c, variant.path)
    assert caught.value.rule == variant.rule
    if variant.inner is not None:
        assert caught.value.where == f"{RAW_WHERE} -> {variant.inner}"
    if variant.name in MESSAGES:
        assert str(caught.value) == MESSAGES[variant.name]


@pytest.mark.parametrize(
    "tail",
    [
        [],
        ["--repo", ".", "--full-list"],
        ["--repo", "..", "--full-list", "--json"],
        [*standins.source_list_argv("x")[2:], "-v"],
    ],
)
def test_any_other_argv_is_refused(tail: list[str], target: Path, tmp_path: Path, environment_path: str) -> None:
    """Only PREP-11's argv is accepted; anything else is exit 2 with a usage line."""
    c = capture(standins.SOURCE_LIST, target, tmp_path / "work", environment_path, argv_tail=tail)
    assert c.run.exit_code == 2
    assert c.run.stdout == b""
    assert c.run.stderr.startswith(b"usage: fake_source_list[--<variant>].py --repo . --full-list --json")


def test_outside_a_git_checkout_it_fails(tmp_path: Path, environment_path: str) -> None:
    """Outside a git checkout the source-list stand-in fails with a one-line message."""
    (tmp_path / "plain").mkdir()
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    env = standins.owner_env(path=environment_path, home=home, tmpdir=tmp)
    argv = standins.source_list_argv(sys.executable)
    run = run_owner(argv, cwd=tmp_path / "plain", env=env, out_dir=tmp_path / "out")
    assert (run.exit_code, run.stdout, run.stderr) == (1, b"", b"fake_source_list: git ls-files exited 128\n")


def test_fixture_commit_is_fixed(pristine_clone: Path, tmp_path: Path) -> None:
    """The fixture repository's commit id depends only on its content (fixed author, committer and date)."""
    assert standin_fixture.make_repo(tmp_path / "again") == standin_fixture.FIXTURE_COMMIT
    assert standin_fixture.git(pristine_clone, "rev-parse", "HEAD") == standin_fixture.FIXTURE_COMMIT.encode() + b"\n"
