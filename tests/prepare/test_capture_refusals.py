"""``capture`` refuses before anything runs: usage (2), integrity (3), rules (4), a D in use (5).

The experiment's source-list and SCI are tripwires: executables that append a line
to a log when run. After every refusal the log is empty, and the ledger, where
one exists, holds no spawn at all.

Spec: PREPARE.md §2, §3 ("Review files"), §8; §11 criterion 3.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from tests.prepare.capfixtures import Made, capture, ledger, listing, standin_experiment, write_review
from tests.prepare.prepfixtures import dump_toml, errors_of, pin_table, run_prepare

_TRIPWIRE = '#!/bin/sh\necho "$0 ran" >> {log}\nexit 0\n'


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("refusals")


def _tripwired(root: Path, **keys: object) -> Made:
    """A valid stand-in experiment whose source-list and SCI are tripwires logging to ``root/tripwire.log``."""
    made = standin_experiment(root, sci_cases=2, **keys)  # type: ignore[arg-type]
    log = root / "tripwire.log"
    for key in ("source_list", "sci"):
        path = root / f"tripwire-{key}"
        path.write_text(_TRIPWIRE.format(log=log), encoding="utf-8")
        path.chmod(0o755)
        made.doc["tools"][key] |= pin_table(path)
        made.doc["tools"][key].pop("extra_pins", None)
    rewrite(made)
    return made


def rewrite(made: Made) -> None:
    """Write the experiment dict again and a review bound to the new bytes."""
    made.experiment.write_text(dump_toml(made.doc), encoding="utf-8")
    write_review(made)


def _nothing_ran(made: Made) -> None:
    log = made.root / "tripwire.log"
    assert not log.exists() or log.read_text(encoding="utf-8") == ""
    if (made.dir / "attempts.jsonl").exists():
        assert [e for e in ledger(made) if e["entry"] in ("spawn", "started", "begin")] == []


def _refused(made: Made, code: int, *extra: str | Path, traced: bool = False) -> list[str]:
    ran = capture(made, *extra, traced=traced)
    assert ran.code == code, ran.err
    _nothing_ran(made)
    return errors_of(ran)


def test_without_execute_owners_nothing_runs(shared: Path) -> None:
    made = _tripwired(shared / "no-execute")
    args = [str(a) for a in made.args() if a != "--execute-owners"]
    ran = run_prepare("capture", *args)
    assert (ran.code, ran.out) == (2, "")
    assert ran.err == "ablation-prepare: capture runs the pinned owners only with --execute-owners (nothing was run)\n"
    assert not made.dir.exists()
    _nothing_ran(made)


@pytest.mark.parametrize(
    ("drop", "add", "tail"),
    [
        (
            "--assert-no-index-access",
            (),
            "error: one of the arguments --file-access-trace --assert-no-index-access is required\n",
        ),
        (
            None,
            ("--file-access-trace", "strace"),
            "error: argument --file-access-trace: not allowed with argument --assert-no-index-access\n",
        ),
        (None, ("--retry", "case:0000:sci"), "ablation-prepare: --retry STEP and --reason TEXT go together\n"),
        (
            None,
            ("--retry", "case:0000:sci", "--reason", " "),
            "ablation-prepare: --reason: say why the step runs again (a nonblank text)\n",
        ),
    ],
)
def test_usage_errors_exit_2_before_anything(shared: Path, drop: str | None, add: tuple[str, ...], tail: str) -> None:
    made = _tripwired(shared / f"usage-{len(add)}-{drop is None}-{len(tail)}")
    args = [str(a) for a in made.args() if a != drop] + list(add)
    ran = run_prepare("capture", *args)
    assert (ran.code, ran.out) == (2, "")
    assert ran.err.endswith(tail)
    assert not made.dir.exists()
    _nothing_ran(made)


def test_PRE_20_a_tool_whose_bytes_differ_from_its_pin_is_exit_3(shared: Path) -> None:
    made = _tripwired(shared / "pin")
    tool = made.root / "tripwire-sci"
    tool.write_text(tool.read_text(encoding="utf-8") + "# changed after pinning\n", encoding="utf-8")
    errors = _refused(made, 3)
    sha = hashlib.sha256(tool.read_bytes()).hexdigest()
    assert errors == [
        f"PRE-20 at tools.sci.sha256: expected the bytes at '{tool}' to have the pinned SHA-256 "
        f"{made.doc['tools']['sci']['sha256']}; found {sha} ({tool.stat().st_size} bytes)"
    ]
    assert not made.dir.exists()


def test_CAP_2_a_review_of_other_bytes_is_exit_3_naming_both_hashes(shared: Path) -> None:
    made = _tripwired(shared / "bound")
    write_review(made, sha256="0" * 64)
    sha = hashlib.sha256(made.experiment.read_bytes()).hexdigest()
    assert _refused(made, 3) == [
        f"CAP-2 at {made.review} -> repository[0].reviewed_experiment_sha256: expected the SHA-256 of the experiment "
        f"file, {sha}; found '{'0' * 64}': the review is of other bytes"
    ]


def test_CAP_4_a_reject_refuses_capture(shared: Path) -> None:
    made = _tripwired(shared / "reject")
    write_review(made, decisions={"fixture": "REJECT"})
    assert _refused(made, 4) == [
        f"CAP-4 at {made.review} -> repository[0].decision: expected 'ACCEPT' (capture runs only when every "
        "repository is accepted); found a REJECT"
    ]


@pytest.mark.parametrize(
    ("edit", "line"),
    [
        (
            lambda t: t.replace("notes =", "note ="),
            "CAP-1 at {review} -> repository[0].note: expected one of the keys "
            "id, decision, reviewer, reviewed_experiment_sha256, notes in repository[0]; found an unknown key 'note'",
        ),
        (
            lambda t: t.replace('reviewer = "R. Roe"', 'reviewer = " "'),
            "CAP-1 at {review} -> repository[0].reviewer: expected the reviewer's name; found ' '",
        ),
        (
            lambda t: t.replace('decision = "ACCEPT"', "decision = 1"),
            "CAP-1 at {review} -> repository[0].decision: expected a string; found an integer 1",
        ),
        (
            lambda t: t + "[[",
            "CAP-1 at {review} -> (top level): expected a UTF-8 TOML 1.0 document; found "
            "Invalid initial character for a key part (at end of document)",
        ),
    ],
)
def test_CAP_1_a_review_of_another_shape_is_refused(shared: Path, edit: object, line: str) -> None:
    made = _tripwired(shared / f"shape-{len(line)}")
    made.review.write_text(edit(made.review.read_text(encoding="utf-8")), encoding="utf-8")  # type: ignore[operator]
    assert _refused(made, 4) == [line.format(review=made.review)]


def test_CAP_3_one_entry_per_repository_and_no_other(shared: Path) -> None:
    made = _tripwired(shared / "entries", repositories=2)
    text = made.review.read_text(encoding="utf-8")
    first, second = text.split("[[repository]]")[1:]
    made.review.write_text("[[repository]]" + first, encoding="utf-8")
    assert _refused(made, 4) == [
        f"CAP-3 at {made.review} -> repository: expected an entry for every repository of the experiment "
        "('fixture-bare' too); found no entry with id 'fixture-bare'"
    ]
    made.review.write_text("[[repository]]" + first + "[[repository]]" + first, encoding="utf-8")
    assert _refused(made, 4) == [
        f"CAP-3 at {made.review} -> repository[1].id: expected one entry per repository; "
        "found a second entry for 'fixture' (first: repository[0])"
    ]
    made.review.write_text(text.replace('id = "fixture-bare"', 'id = "elsewhere"'), encoding="utf-8")
    assert _refused(made, 4) == [
        f"CAP-3 at {made.review} -> repository[1].id: expected the id of a repository of "
        "the experiment; found 'elsewhere'"
    ]
    assert second


def test_a_check_refusal_stops_capture_with_the_rule_at_its_toml_location(shared: Path) -> None:
    made = _tripwired(shared / "check")
    made.doc["case"] = made.doc["case"][:9]
    rewrite(made)
    assert _refused(made, 4) == ["CASE-19 at repository[0]: expected at least 10 cases for 'fixture'; found 9 cases"]


def test_a_d_that_is_not_empty_is_exit_5_and_untouched(shared: Path) -> None:
    made = _tripwired(shared / "busy")
    made.dir.mkdir()
    (made.dir / "sheet.md").write_text("a sheet written where it should not be\n", encoding="utf-8")
    before = listing(made.dir)
    ran = capture(made)
    assert ran.code == 5
    assert ran.err.splitlines()[-1] == (
        f"ablation-prepare: the preparation directory '{made.dir}' is not empty (or not a folder); give --resume to "
        "go on with it"
    )
    assert listing(made.dir) == before
    _nothing_ran(made)


def test_PRE_27_a_d_inside_work_root_or_a_source_or_holding_work_root(shared: Path) -> None:
    made = _tripwired(shared / "places")
    made.doc["experiment"]["work_root"] = work = str(made.root / "outer" / "work")
    rewrite(made)
    source = made.doc["repository"][0]["source"]
    expected = (
        "expected a preparation directory outside work_root and every source repository (it holds only regular files)"
    )
    for folder, found in (
        (Path(work), f"it is work_root ('{work}')"),
        (Path(work) / "D", f"it lies inside work_root ('{work}')"),
        (made.root / "outer", f"it holds work_root ('{work}')"),
        (Path(source) / "prep", f"inside repository[0] at '{source}'"),
    ):
        ran = run_prepare("capture", *[str(a) if a != made.dir else str(folder) for a in made.args()])
        assert (ran.code, errors_of(ran)) == (4, [f"PRE-27 at {folder}: {expected}; found {found}"])
        assert not (folder / "attempts.jsonl").exists()
    _nothing_ran(made)


def test_PRE_26_traced_capture_needs_a_strace_table(shared: Path) -> None:
    made = _tripwired(shared / "strace")
    assert _refused(made, 4, traced=True) == [
        "PRE-26 at tools.strace: expected a [tools.strace] table pinning the strace that --file-access-trace strace "
        "runs; found no such table"
    ]


@pytest.mark.parametrize(("case_id", "shown"), [("fixture-09", "'fixture-09'"), ("nobody", "'nobody'")])
def test_CAP_5_allowed_cases_are_cases_with_sci_seeds(shared: Path, case_id: str, shown: str) -> None:
    made = _tripwired(shared / f"allow-{case_id}")
    assert _refused(made, 4, "--allow-unavailable-structural", case_id) == [
        f"CAP-5 at --allow-unavailable-structural: expected the id of a case with [case.sci]; found {shown}"
    ]


def test_CAP_8_a_new_preparation_needs_a_work_root_without_old_targets(shared: Path) -> None:
    made = _tripwired(shared / "old-work")
    (made.work_root / "targets" / "0000").mkdir(parents=True)
    errors = _refused(made, 4)
    assert errors == [
        f"CAP-8 at experiment.work_root: expected a work_root without another preparation's targets, "
        f"requests and run folders; found {made.work_root}/targets holds 1 entries: name a new "
        "work_root, or move it aside"
    ]
    assert not made.dir.exists()


def test_resume_needs_a_preparation_in_d(shared: Path) -> None:
    made = _tripwired(shared / "resume")
    ran = capture(made, "--resume")
    assert (ran.code, errors_of(ran)) == (
        2,
        [f"ablation-prepare: --resume: the preparation directory '{made.dir}' does not exist"],
    )
    made.dir.mkdir()
    ran = capture(made, "--resume")
    assert ran.code == 3
    assert errors_of(ran) == [
        f"CAP-6 at {made.dir}/experiment.toml: expected D's copy of {made.experiment}; found "
        "cannot read it: No such file or directory"
    ]
    shutil.copy(made.experiment, made.dir / "experiment.toml")
    (made.dir / "prepared.json").write_text("{}\n", encoding="utf-8")
    ran = capture(made, "--resume")
    assert (ran.code, errors_of(ran)) == (
        5,
        [f"ablation-prepare: '{made.dir}' holds prepared.json already: this preparation is assembled"],
    )
    _nothing_ran(made)


def test_CAP_6_resume_refuses_a_changed_experiment_review_or_ledger(shared: Path) -> None:
    made = _tripwired(shared / "changed")
    made.dir.mkdir()
    old = made.experiment.read_bytes()
    older = old + b"# an older version\n"
    (made.dir / "experiment.toml").write_bytes(older)
    (made.dir / "cases-review.toml").write_bytes(made.review.read_bytes())
    errors = errors_of(capture(made, "--resume"))
    assert errors == [
        f"CAP-6 at {made.dir}/experiment.toml: expected the bytes of {made.experiment} (SHA-256 "
        f"{hashlib.sha256(old).hexdigest()}); found SHA-256 "
        f"{hashlib.sha256(older).hexdigest()}: a changed experiment is a new "
        "preparation in a new D"
    ]
    (made.dir / "experiment.toml").unlink()
    (made.dir / "experiment.toml").write_bytes(old)
    torn = b'{"seq":1,"entry":"capture"}\n{"seq":2,'
    (made.dir / "attempts.jsonl").write_bytes(torn)
    ran = capture(made, "--resume")
    assert (ran.code, errors_of(ran)) == (
        3,
        [
            f"CAP-6 at {made.dir}/attempts.jsonl: expected the ledger capture "
            "wrote, every line complete; found its last line is incomplete "
            "(capture ended while writing it)"
        ],
    )
    assert (made.dir / "attempts.jsonl").read_bytes() == torn  # untouched
    assert not (made.root / "tripwire.log").exists()
