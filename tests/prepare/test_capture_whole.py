"""The preparation directory the asserted fault matrix left, as a whole: layout, ledger, sources, what assemble needs.

The matrix (``capture_background.py``) ran two repositories (a checkout and a bare
repository), four ``tool-version`` steps and 20 SCI cases. Checked here: D holds
only regular files with safe names, laid out as PREPARE.md §5 says; every ledger
entry has exactly the members of its kind; the sources are unchanged; the pieces
built from D by :mod:`ablation.prepare.build` and :mod:`ablation.prepare.build_case`
pass (or fail with the recorded rule) the evaluator's validation, as ``assemble``
will find them; ``--resume`` skips every step and ``--retry`` refuses an
``unavailable`` one; and no stand-in process is left on the machine.

Spec: PREPARE.md §4, §5, §9.5; §11 criteria 5, 6, 21, 26.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

from ablation.contracts.base import Reporter
from ablation.contracts.preparation import validate_preparation
from ablation.contracts.source_list import validate_source_list_artifact
from ablation.contracts.structural import validate_bundle
from ablation.errors import BundleInvalid
from ablation.prepare.build import (
    preparation_observation,
    read_repository_attempt,
    source_list_artifact,
    staleness_pick,
    target_state_members,
)
from ablation.prepare.build_case import case_bundle, read_case_attempt
from ablation.prepare.checks import read_experiment
from tests.prepare.capfixtures import TOOL_REVISION, capture, ends, ledger
from tests.prepare.capture_background import Background, asserted_table
from tests.prepare.doubles import standins
from tests.prepare.gitfixtures import snapshot
from tests.prepare.prepfixtures import errors_of

_SAFE = re.compile(r"[A-Za-z0-9._-]+")
_COMMON = ("seq", "entry")
MEMBERS = {
    "capture": (
        *_COMMON,
        "invocation",
        "prepare",
        "experimentSha256",
        "casesReviewSha256",
        "fileAccess",
        "allowUnavailableStructural",
        "resume",
        "retry",
        "workRoot",
        "tools",
    ),
    "file": (*_COMMON, "step", "attempt", "file", "bytes", "sha256"),
    "begin": (*_COMMON, "step", "attempt", "kind", "folder", "runFolder"),
    "started": (*_COMMON, "step", "attempt", "spawn", "pid"),
    "spawn": (
        *_COMMON,
        "step",
        "attempt",
        "spawn",
        "kind",
        "argv",
        "cwd",
        "environment",
        "environmentSha256",
        "toolSha256",
        "startNs",
        "endNs",
        "exitCode",
        "signal",
        "timedOut",
        "outputCapExceeded",
        "interrupted",
        "orphans",
        "killed",
        "groupConfirmed",
        "graceS",
        "notStarted",
        "stdout",
        "stderr",
    ),
    "request": (*_COMMON, "step", "attempt", "file", "sha256", "reused"),
    "end": (*_COMMON, "step", "attempt", "outcome", "rule", "message"),
    "retry": (*_COMMON, "step", "attempt", "reason"),
}
STATE = ["head", "lsFilesStage", "status", "statusIgnored"]
SPAWN_FILES = sorted(
    f"state-{w}.{n}.{s}"
    for w in ("before", "after")
    for n in ("head", "status", "status-ignored", "ls-files-stage")
    for s in ("stdout", "stderr")
)


def test_d_holds_only_regular_files_with_safe_names(sci_matrix: Background) -> None:
    d = sci_matrix.made.dir
    for top, folders, files in os.walk(d):
        for name in folders + files:
            path = Path(top) / name
            assert _SAFE.fullmatch(name) and name not in (".", ".."), path
            mode = os.lstat(path).st_mode
            assert stat.S_ISDIR(mode) if name in folders else stat.S_ISREG(mode), path
    assert sorted(p.name for p in d.iterdir()) == [
        "attempts.jsonl",
        "cases-review.toml",
        "experiment.toml",
        "raw",
        "staleness-sheet.md",
    ]
    assert sorted(p.name for p in (d / "raw").iterdir()) == ["cases", "clones", "repositories", "tools"]
    assert sorted(p.name for p in (d / "raw/tools").iterdir()) == ["backend", "git", "node", "sci"]


def test_each_attempt_folder_holds_what_prepare_section_5_lists(sci_matrix: Background) -> None:
    d = sci_matrix.made.dir
    assert sorted(p.name for p in (d / "raw/tools/node/attempt-1").iterdir()) == [
        "extras.json",
        "version.stderr",
        "version.stdout",
    ]
    clone = sorted(p.name for p in (d / "raw/clones/0001/attempt-1").iterdir())
    assert clone == sorted(
        [
            "extras.json",
            "git-checkout.stderr",
            "git-checkout.stdout",
            "git-clone.stderr",
            "git-clone.stdout",
            "source-after.json",
            "source-before.json",
        ]
        + [
            f"source-{w}.{n}.{s}"
            for w in ("before", "after")
            for n in ("rev-parse", "for-each-ref")
            for s in ("stdout", "stderr")
        ]
    )
    repository = sorted(p.name for p in (d / "raw/repositories/0000/attempt-1").iterdir())
    assert repository == sorted(
        [
            *SPAWN_FILES,
            "extras.json",
            "git-ls-files-stage.bin",
            "git-ls-files-stage.stderr",
            "source-list.stderr",
            "source-list.stdout",
            "state-after.json",
            "state-before.json",
        ]
    )
    case = sorted(p.name for p in (d / "raw/cases/0000/attempt-1").iterdir())
    assert case == sorted(
        [
            *SPAWN_FILES,
            "extras.json",
            "process.json",
            "request.json",
            "state.json",
            "stderr",
            "stdout",
            "transcript.json",
        ]
    )


def test_every_ledger_entry_has_exactly_the_members_of_its_kind(sci_matrix: Background) -> None:
    entries = ledger(sci_matrix.made)
    assert [e["seq"] for e in entries] == list(range(1, len(entries) + 1))
    for e in entries:
        assert tuple(e) == MEMBERS[e["entry"]], e
    first = entries[0]
    assert first["entry"] == "capture" and first["fileAccess"] == "asserted"
    assert first["tools"]["sci"]["revision"] == TOOL_REVISION
    assert [e["file"] for e in entries if e["entry"] == "file" and e["step"] is None] == [
        "experiment.toml",
        "cases-review.toml",
        "staleness-sheet.md",
    ]
    owners = {e["kind"] for e in entries if e["entry"] == "spawn" and e["kind"] != "git"}
    assert owners == {"tool-version", "source-list", "sci"}
    started = [(e["step"], e["spawn"]) for e in entries if e["entry"] == "started"]
    spawned = [(e["step"], e["spawn"]) for e in entries if e["entry"] == "spawn" and e["kind"] != "git"]
    assert started == spawned
    for e in entries:
        if e["entry"] == "spawn" and e["kind"] == "sci":
            assert list(e["environment"]) == [
                "PATH",
                "HOME",
                "TMPDIR",
                "TMP",
                "TEMP",
                "LANG",
                "LC_ALL",
                "TZ",
                "GIT_CONFIG_NOSYSTEM",
                "GIT_CONFIG_GLOBAL",
                "GIT_OPTIONAL_LOCKS",
                "GIT_TERMINAL_PROMPT",
            ]
            assert e["environment"]["PATH"].startswith(f"{standins.BACKEND_DIR}:")
            assert e["argv"][1:4] == ["experimental", "structural-evidence-receipt", "--request-file"]


def test_the_sources_are_unchanged(sci_matrix: Background) -> None:
    assert {path: snapshot(Path(path)) for path in sci_matrix.sources_before} == sci_matrix.sources_before


def test_request_files_are_private_and_the_empty_private_folders_are_gone(sci_matrix: Background) -> None:
    work = sci_matrix.made.work_root
    for request in (work / "requests").iterdir():
        assert stat.S_IMODE(request.stat().st_mode) == 0o600
    left = sorted(str(p.relative_to(work)) for p in (work / "run").glob("*/attempt-1/*"))
    leftover = {v.name: k for k, v in asserted_table().items() if v.name in ("tmpdir-leftover", "home-leftover")}
    assert left == sorted(
        [
            f"run/case-{leftover['home-leftover']:04d}-sci/attempt-1/home",
            f"run/case-{leftover['tmpdir-leftover']:04d}-sci/attempt-1/tmp",
        ]
    )


def _universe(d: Path, r: int) -> Any:
    capture_files = read_repository_attempt(str(d / f"raw/repositories/{r:04d}/attempt-1"))
    checked = validate_source_list_artifact(source_list_artifact(capture_files.stdout), "/a", Reporter())
    assert checked is not None
    return capture_files, checked


def test_the_preparation_observations_built_from_d_pass_the_evaluator(sci_matrix: Background) -> None:
    made = sci_matrix.made
    experiment = read_experiment(str(made.experiment))
    for repo in experiment.repositories:
        files, checked = _universe(made.dir, repo.index)
        observation = preparation_observation(
            experiment,
            repo.commit,
            revision=TOOL_REVISION,
            raw_sha256=checked.raw_sha256,
            exit_code=0,
            target_state=target_state_members(files.state_before, files.state_after),
            evidence=files.evidence,
        )
        result = validate_preparation(
            observation,
            "/p",
            commit=repo.commit,
            raw_sha256=checked.raw_sha256,
            universe=checked.universe,
            rep=Reporter(),
        )
        assert result is not None and result.tracked_path_count == 11
        present = [p for p, t in zip(checked.universe.paths, checked.universe.metadata_texts, strict=True) if t]
        sheet = (made.dir / "staleness-sheet.md").read_text(encoding="utf-8")
        sampled = staleness_pick("spread", 3, checked.raw_sha256, present)
        assert "sampled = [" + ", ".join(f'"{p}"' for p in sampled) + "]" in sheet


def test_every_case_bundle_built_from_d_gets_the_verdict_capture_recorded(sci_matrix: Background) -> None:
    made = sci_matrix.made
    experiment = read_experiment(str(made.experiment))
    recorded = ends(made)
    for case in experiment.cases:
        if case.sci is None:
            continue
        repo = next(r for r in experiment.repositories if r.id == case.repository)
        _, checked = _universe(made.dir, repo.index)
        texts = read_case_attempt(str(made.dir / f"raw/cases/{case.index:04d}/attempt-1"))
        bundle, _ = case_bundle(experiment, case, repo.commit, sci_revision=TOOL_REVISION, texts=texts)
        rule: str | None = "SB-1"
        if bundle is not None:
            try:
                validate_bundle(
                    bundle,
                    question=case.question,
                    repository_commit=repo.commit,
                    item_paths=frozenset(checked.universe.paths),
                )
                rule = None
            except BundleInvalid as exc:
                rule = exc.rule
        assert rule == recorded[(f"case:{case.index:04d}:sci", 1)]["rule"], case.index


def test_resume_skips_every_step_and_retry_refuses_an_unavailable_one(sci_matrix: Background) -> None:
    made = sci_matrix.made
    before = (made.dir / "attempts.jsonl").read_bytes()
    ran = capture(made, "--resume")
    assert ran.code == 0, ran.err
    assert ran.out.splitlines()[-1] == "capture complete: 0 attempts run, 28 steps skipped, 0 unavailable"
    after = (made.dir / "attempts.jsonl").read_bytes()
    assert after.startswith(before)
    assert [e["entry"] for e in ledger(made)][-1:] == ["capture"]
    unavailable = next(k for k, v in asserted_table().items() if v.name == "capped")
    ran = capture(made, "--retry", f"case:{unavailable:04d}:sci", "--reason", "another try")
    assert (ran.code, errors_of(ran)) == (
        4,
        [
            f"CAP-7 at --retry case:{unavailable:04d}:sci: expected a step whose last attempt failed or is open (one "
            "with a usable attempt is never run again); found attempt 1 unavailable"
        ],
    )
    assert (made.dir / "attempts.jsonl").read_bytes() == after


def test_no_stand_in_process_survives(sci_matrix: Background, traced_matrix: Background) -> None:
    marker = str(standins.DOUBLES_DIR).encode()
    survivors, zombies = [], []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace").rsplit(")", 1)[1].split()
        except OSError:
            continue
        if marker in cmdline:
            survivors.append((pid, cmdline))
        if fields[0] == "Z" and int(fields[1]) == os.getpid():
            zombies.append(pid)  # a child of this process nobody reaped
    assert (survivors, zombies) == ([], [])
