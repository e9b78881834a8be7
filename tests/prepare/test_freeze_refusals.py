"""Every refusal of ``freeze``: its rule, its exit code, its whole message, and nothing written.

Each test copies an assembled D (the session's capture, assembled once here) and
breaks one thing: the pre-review manifest (FRZ-1), a file it lists (FRZ-2), a file it
does not list (FRZ-3: a results file in D), the pre-run review (FRZ-4 … FRZ-7),
an existing manifest or marker (exit 5), the signing key (exit 2). ``--attempt-record``
is made absolute, links not resolved.

Spec: PREPARE.md §7; §11 criteria 12, 16.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from tests.prepare.capfixtures import Made, listing
from tests.prepare.chainfixtures import copy_d, pre_run_review, staleness_review
from tests.prepare.prepfixtures import Ran, errors_of, run_prepare

IDENTITY = "sha256:" + "ab" * 32


@pytest.fixture(scope="module")
def assembled(captured_base: Made, tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = copy_d(captured_base.dir, tmp_path_factory.mktemp("assembled") / "D")
    review = d.parent / "staleness-review.toml"
    review.write_text(staleness_review(d), encoding="utf-8")
    assert run_prepare("assemble", "--dir", d, "--staleness-review", review).code == 0
    return d


@pytest.fixture
def d(assembled: Path, tmp_path: Path) -> Path:
    return copy_d(assembled, tmp_path / "D")


def _freeze(d: Path, review: str | None = None, *extra: str | Path) -> Ran:
    path = d.parent / "pre-run-review.toml"
    path.write_text(pre_run_review(d, IDENTITY) if review is None else review, encoding="utf-8")
    return run_prepare("freeze", "--dir", d, "--pre-run-review", path, *extra)


def _refused(d: Path, code: int, line: str, review: str | None = None, *extra: str | Path) -> None:
    before = listing(d)
    ran = _freeze(d, review, *extra)
    assert (ran.code, errors_of(ran), ran.out) == (code, [line], "")
    assert listing(d) == before


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_freeze_writes_the_record_and_the_manifest_with_a_marker_made_absolute(d: Path, tmp_path: Path) -> None:
    os.symlink(tmp_path, tmp_path.parent / f"{tmp_path.name}-link")
    marker = Path(f"{tmp_path.name}-link") / "out" / "attempt.json"
    cwd = Path.cwd()
    os.chdir(tmp_path.parent)
    try:
        ran = _freeze(d, None, "--attempt-record", marker)
    finally:
        os.chdir(cwd)
    assert (ran.code, errors_of(ran)) == (0, [])
    absolute = f"{tmp_path.parent}/{marker}"
    assert json.loads((d / "freeze-record.json").read_bytes())["attemptRecord"] == absolute
    assert ran.out.splitlines() == [
        f"{_sha(d / 'prepared.json')}  prepared.json",
        f"{_sha(d / 'SHA256SUMS.pre-run')}  SHA256SUMS.pre-run",
        f"attempt marker: {absolute} (ablation run --attempt-record; make run ATTEMPT_RECORD=)",
    ]
    assert not (d / "SHA256SUMS.pre-run.sig").exists()


def test_freeze_twice_is_exit_5(d: Path) -> None:
    assert _freeze(d).code == 0
    before = listing(d)
    ran = _freeze(d)
    assert (ran.code, ran.err) == (
        5,
        f"ablation-prepare: '{d}/SHA256SUMS.pre-run' exists: this preparation is frozen already\n",
    )
    assert listing(d) == before


def test_an_existing_marker_is_exit_5(d: Path) -> None:
    (d.parent / "attempt.json").write_text("{}\n", encoding="utf-8")
    before = listing(d)
    ran = _freeze(d, None, "--attempt-record", d.parent / "attempt.json")
    assert (ran.code, ran.err) == (
        5,
        f"ablation-prepare: the attempt marker '{d.parent}/attempt.json' exists "
        "already: the one run was attempted; a new freeze needs a new marker\n",
    )
    assert listing(d) == before


def test_a_weak_or_unreadable_signing_key_is_exit_2_and_nothing_is_written(d: Path) -> None:
    before = listing(d)
    ran = _freeze(d, None, "--sign-key", d.parent / "none.pem")
    assert (ran.code, ran.err) == (
        2,
        f"ablation-prepare: cannot read signing key '{d.parent}/none.pem': No such file or directory\n",
    )
    assert listing(d) == before


def test_FRZ_1_a_d_that_is_not_assembled(captured_base: Made, tmp_path: Path) -> None:
    d = copy_d(captured_base.dir, tmp_path / "D")
    _refused(
        d,
        3,
        f"FRZ-1 at {d}/SHA256SUMS.pre-review: expected the manifest SHA256SUMS.pre-review of this step; "
        "found no such readable file",
        "",
    )


def test_FRZ_1_a_manifest_out_of_order(d: Path) -> None:
    manifest = d / "SHA256SUMS.pre-review"
    lines = manifest.read_text(encoding="utf-8").splitlines(keepends=True)
    manifest.write_text("".join([lines[1], lines[0], *lines[2:]]), encoding="utf-8")
    path = lines[0].split("  ", 1)[1].strip()
    _refused(
        d,
        3,
        f"FRZ-1 at {manifest}: expected '<64 lowercase hex>  <path>' lines in UTF-8 order of the path; "
        f"found line 2 ({path!r}) is out of UTF-8 order",
        "",
    )


def test_FRZ_2_a_changed_file_the_manifest_lists(d: Path) -> None:
    sheet = d / "pre-run-sheet.md"
    listed = _sha(sheet)
    sheet.write_bytes(sheet.read_bytes() + b"\n")
    _refused(
        d,
        3,
        f"FRZ-2 at {sheet}: expected the SHA-256 SHA256SUMS.pre-review lists, {listed}; found "
        f"{_sha(sheet)}: the file changed",
    )


def test_FRZ_3_a_file_the_manifest_does_not_list(d: Path) -> None:
    (d / "results.json").write_text("{}\n", encoding="utf-8")
    _refused(
        d,
        3,
        f"FRZ-3 at {d}/results.json: expected only files SHA256SUMS.pre-review lists; found a file it does not list",
    )


@pytest.mark.parametrize(
    ("edit", "line"),
    [
        (
            lambda r: r + 'extra = "x"\n',
            "FRZ-4 at {p} -> extra: expected one of the keys decision, reviewer, "
            "pre_review_manifest_sha256, evaluator_identity_digest, ranking_executed, notes in (top level); found an "
            "unknown key 'extra'",
        ),
        (
            lambda r: r.replace('notes = "checked"\n', ""),
            "FRZ-4 at {p} -> notes: expected a key notes (a string); found no such key",
        ),
        (
            lambda r: r.replace("ranking_executed = false", 'ranking_executed = "no"'),
            "FRZ-4 at {p} -> ranking_executed: expected a boolean; found a string 'no'",
        ),
        (
            lambda r: r.replace('reviewer = "I. Reviewer"', 'reviewer = "  "'),
            "FRZ-4 at {p} -> reviewer: expected the reviewer's name; found '  '",
        ),
        (
            lambda r: r.replace('decision = "ACCEPT"', 'decision = "REJECT"'),
            "FRZ-6 at {p} -> decision: expected 'ACCEPT' (freeze binds only an accepted preparation); found a REJECT",
        ),
        (
            lambda r: r.replace("ranking_executed = false", "ranking_executed = true"),
            "FRZ-6 at {p} -> ranking_executed: expected false (no ranking may run before the freeze); found true",
        ),
        (
            lambda r: r.replace(IDENTITY, IDENTITY[7:]),
            "FRZ-7 at {p} -> evaluator_identity_digest: expected a Digest, "
            "'sha256:' and 64 lowercase hex, as ablation identity prints the identityDigest; found '" + "ab" * 32 + "'",
        ),
    ],
    ids=["unknown-key", "missing-key", "type", "blank-reviewer", "reject", "ranking", "not-a-digest"],
)
def test_FRZ_4_6_7_the_review(edit: object, line: str, d: Path) -> None:
    assert callable(edit)
    review = edit(pre_run_review(d, IDENTITY))
    _refused(d, 4, line.format(p=d.parent / "pre-run-review.toml"), review)


def test_FRZ_5_a_review_of_another_manifest_is_exit_3(d: Path) -> None:
    sha = _sha(d / "SHA256SUMS.pre-review")
    _refused(
        d,
        3,
        f"FRZ-5 at {d.parent}/pre-run-review.toml -> pre_review_manifest_sha256: expected the SHA-256 of "
        f"SHA256SUMS.pre-review, {sha}; found '{'0' * 64}': the review is of other bytes",
        pre_run_review(d, IDENTITY, manifest="0" * 64),
    )


def test_a_marker_given_as_an_absolute_path_inside_d_is_the_one_unlisted_file(d: Path) -> None:
    marker = d / "run-once.json"
    assert _freeze(d, None, "--attempt-record", marker).code == 0
    assert json.loads((d / "freeze-record.json").read_bytes())["attemptRecord"] == str(marker)
    record = {
        "schema": "ablation.attempt_record.v1",
        "inputSha256": _sha(d / "prepared.json"),
        "preRunManifestSha256": None,
        "output": "out.json",
        "identityDigest": IDENTITY,
    }
    marker.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    ran = run_prepare("check-freeze", "--dir", d)
    assert (ran.code, errors_of(ran)) == (0, [])
    assert f"attempt marker: {marker} exists: the one run was attempted, with the frozen input" in ran.out
