"""Every refusal of ``assemble``: its rule, its exit code, its whole message, and nothing written.

Each test copies the session's captured D (tests/prepare/chainfixtures.py) and
breaks one thing: the ledger (ASM-1), a file of D (ASM-2), the completeness of the
capture (ASM-3), the staleness review (ASM-4 … ASM-8, STALE-4), the input bound
(ASM-9, with the evaluator's bound lowered), the availability capture recorded
(ASM-10), ``--supersedes`` (ASM-11), an existing output (exit 5). A ledger edited by
the test stands for a capture that recorded something else. After every refusal
D holds exactly what it held before.

Spec: PREPARE.md §6, §8; §11 criteria 8 (iii), 22, 23.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ablation import pipeline
from ablation.contracts.base import show
from ablation.errors import clip
from ablation.prepare.build import staleness_method
from tests.prepare.capfixtures import Made, listing
from tests.prepare.chainfixtures import copy_d, sheet_samples, staleness_review
from tests.prepare.prepfixtures import Ran, errors_of, run_prepare


@pytest.fixture
def d(captured_base: Made, tmp_path: Path) -> Path:
    return copy_d(captured_base.dir, tmp_path / "D")


def _assemble(d: Path, review: str | None = None, *extra: str | Path) -> Ran:
    path = d.parent / "staleness-review.toml"
    path.write_text(staleness_review(d) if review is None else review, encoding="utf-8")
    return run_prepare("assemble", "--dir", d, "--staleness-review", path, *extra)


def _refused(d: Path, code: int, line: str, review: str | None = None, *extra: str | Path) -> None:
    before = listing(d)
    ran = _assemble(d, review, *extra)
    assert (ran.code, errors_of(ran), ran.out) == (code, [line], "")
    assert listing(d) == before


def _ledger(d: Path, edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> None:
    path = d / "attempts.jsonl"
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    lines = [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in edit(entries)]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_assemble_twice_is_exit_5(d: Path) -> None:
    assert _assemble(d).code == 0
    before = listing(d)
    ran = _assemble(d)
    assert (ran.code, ran.err) == (
        5,
        f"ablation-prepare: '{d}/staleness-review.toml' exists: this preparation is assembled already\n",
    )
    assert listing(d) == before


def test_a_folder_that_capture_did_not_fill_is_exit_2(tmp_path: Path) -> None:
    ran = run_prepare("assemble", "--dir", tmp_path, "--staleness-review", tmp_path / "s.toml")
    assert (ran.code, ran.err) == (
        2,
        f"ablation-prepare: --dir '{tmp_path}' is not a preparation directory (no attempts.jsonl): run capture first\n",
    )


def test_ASM_1_a_ledger_whose_last_line_is_torn(d: Path) -> None:
    path = d / "attempts.jsonl"
    path.write_bytes(path.read_bytes()[:-1])
    _refused(
        d,
        3,
        f"ASM-1 at {d}/attempts.jsonl: expected the ledger capture wrote, every line complete; found its "
        "last line is incomplete (capture ended while writing it)",
    )


def test_ASM_2_a_missing_an_extra_and_a_linked_file(d: Path) -> None:
    extras = d / "raw/clones/0000/attempt-1/extras.json"
    sha = _sha(extras)
    extras.rename(d / "moved.json")
    _refused(
        d, 3, f"ASM-2 at {extras}: expected the file the ledger records (SHA-256 {sha}); found no such regular file"
    )
    (d / "moved.json").rename(extras)
    (d / "raw/results.json").write_text("{}\n", encoding="utf-8")
    _refused(
        d,
        3,
        f"ASM-2 at {d}/raw/results.json: expected only files the ledger records in D; found a file the "
        "ledger does not record",
    )
    (d / "raw/results.json").unlink()
    os.symlink("experiment.toml", d / "link.toml")
    _refused(d, 3, f"ASM-2 at {d}/link.toml: expected only regular files with safe names in D; found a symbolic link")


def test_ASM_3_a_capture_that_ended_during_a_step(d: Path) -> None:
    def cut(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        last = next(k for k, e in enumerate(entries) if e["entry"] == "begin" and e["step"] == "case:0002:sci")
        return entries[: last + 1]

    _ledger(d, cut)
    _refused(
        d,
        4,
        "ASM-3 at case:0002:sci: expected a usable attempt (succeeded, or unavailable under "
        "--allow-unavailable-structural): capture complete; found attempt 1 open (capture ended during it)",
    )


@pytest.mark.parametrize(
    ("review", "line"),
    [
        ("[[repository]]\nid = 1\n", "ASM-4 at {s} -> repository[0].id: expected a string; found an integer 1"),
        ("[x]\n", "ASM-4 at {s} -> x: expected one of the keys repository in (top level); found an unknown key 'x'"),
        (
            "= 1",
            "ASM-4 at {s} -> (top level): expected a UTF-8 TOML 1.0 document; found Invalid statement (at line 1, "
            "column 1)",
        ),
    ],
    ids=["type", "unknown", "toml"],
)
def test_ASM_4_the_review_s_shape(review: str, line: str, d: Path) -> None:
    _refused(d, 4, line.format(s=d.parent / "staleness-review.toml"), review)


def test_ASM_4_a_blank_reviewer_and_a_missing_key(d: Path) -> None:
    s = d.parent / "staleness-review.toml"
    _refused(
        d,
        4,
        f"ASM-4 at {s} -> repository[0].reviewer: expected the reviewer's name; found ' '",
        staleness_review(d, reviewer=" "),
    )
    review = staleness_review(d).replace("stale = []\n", "")
    _refused(
        d,
        4,
        f"ASM-4 at {s} -> repository[0].stale: expected a key stale (an array of strings); found no such key",
        review,
    )


def test_ASM_5_one_entry_per_repository(d: Path) -> None:
    s = d.parent / "staleness-review.toml"
    review = staleness_review(d)
    _refused(
        d,
        4,
        f"ASM-5 at {s} -> repository[0].id: expected the id of a repository of the experiment; found 'other'",
        review.replace('id = "fixture"', 'id = "other"'),
    )
    _refused(
        d,
        4,
        f"ASM-5 at {s} -> repository[1].id: expected one entry per repository; found a second entry for "
        "'fixture' (first: repository[0])",
        review + "\n" + review,
    )
    _refused(
        d,
        4,
        f"ASM-4 at {s} -> repository: expected an array of tables (at least one); found an array of 0 elements",
        "repository = []\n",
    )


def test_ASM_6_a_review_of_another_sheet_is_exit_3(d: Path) -> None:
    s = d.parent / "staleness-review.toml"
    sheet = _sha(d / "staleness-sheet.md")
    _refused(
        d,
        3,
        f"ASM-6 at {s} -> repository[0].sheet_sha256: expected the SHA-256 of staleness-sheet.md, {sheet}; "
        f"found '{'0' * 64}': the review is of other bytes",
        staleness_review(d, sheet_sha256="0" * 64),
    )


def test_ASM_7_sampled_and_stale(d: Path) -> None:
    s = d.parent / "staleness-review.toml"
    sampled = sheet_samples(d)["fixture"]
    review = staleness_review(d)
    listed = "[" + ", ".join(f'"{p}"' for p in sampled) + "]"
    _refused(
        d,
        4,
        f"ASM-7 at {s} -> repository[0].sampled: expected the sheet's sampled paths of 'fixture', in its "
        f"order: {sampled!r}; found {sampled[::-1]!r}",
        review.replace(listed, "[" + ", ".join(f'"{p}"' for p in sampled[::-1]) + "]"),
    )
    _refused(
        d,
        4,
        f"ASM-7 at {s} -> repository[0].stale[0]: expected a sampled path of this repository; found 'src/gamma.py'",
        staleness_review(d, stale={"fixture": ["src/gamma.py"]}),
    )
    _refused(
        d,
        4,
        f"ASM-7 at {s} -> repository[0].stale[1]: expected each stale path once; found '{sampled[0]}' a second time",
        staleness_review(d, stale={"fixture": [sampled[0], sampled[0]]}),
    )


def test_ASM_8_a_reject_stops_assemble_and_nothing_is_written(d: Path) -> None:
    s = d.parent / "staleness-review.toml"
    _refused(
        d,
        4,
        f"ASM-8 at {s} -> repository[0].decision: expected 'ACCEPT' (assemble builds the input only when "
        "every sample is accepted); found a REJECT",
        staleness_review(d, decision="REJECT"),
    )


def test_STALE_4_a_method_text_that_is_not_normalized_is_refused_never_normalised(d: Path) -> None:
    s = d.parent / "staleness-review.toml"
    sampled = sheet_samples(d)["fixture"]
    review = staleness_review(d, reviewer="R. Roe\nsecond line")
    ran = _assemble(d, review)
    assert ran.code == 4
    [line] = errors_of(ran)
    raw_sha256 = "sha256:" + _sha(d / "raw/repositories/0000/attempt-1/source-list.stdout")
    method = staleness_method("spread", len(sampled), 5, raw_sha256, "R. Roe\nsecond line")
    assert method.endswith("staleness review by R. Roe\nsecond line: ACCEPT")
    found = f"{len(method)} code points, not normalized, naming the reviewer 'R. Roe\\nsecond line': {show(method)}"
    assert line == (
        f"STALE-4 at {s} -> repository[0].reviewer: expected a method text that is a normalized NBText(2000) (it "
        f"names the reviewer; it is never normalised); found {clip(found)}"
    )
    long = staleness_review(d, reviewer="R" * 1800)
    ran = _assemble(d, long)
    assert ran.code == 4 and errors_of(ran)[0].startswith(
        f"STALE-4 at {s} -> repository[0].reviewer: expected a "
        "method text that is a normalized NBText(2000) (it names "
        "the reviewer; it is never normalised); found 2040 code "
        "points, too long, naming the reviewer 'RRR"
    )
    assert not (d / "prepared.json").exists()


def test_ASM_9_an_input_over_the_evaluator_s_bound_is_not_written(d: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _assemble(copy_d(d, d.parent / "measure")).code == 0
    size = (d.parent / "measure" / "prepared.json").stat().st_size
    monkeypatch.setattr(pipeline, "DEFAULT_MAX_INPUT_BYTES", size - 1)
    _refused(
        d,
        4,
        f"ASM-9 at {d}/prepared.json: expected at most the evaluator's input bound, {size - 1} bytes "
        f"(nothing was written); found {size} bytes",
    )
    monkeypatch.setattr(pipeline, "DEFAULT_MAX_INPUT_BYTES", size)
    assert _assemble(d).code == 0


def test_ASM_10_availability_other_than_capture_recorded(d: Path) -> None:
    def unavailable(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for e in entries:
            if e["entry"] == "end" and e["step"] == "case:0001:sci":
                e.update(outcome="unavailable", rule="SB-15", message="SB-15 at …")
        return entries

    _ledger(d, unavailable)
    _refused(
        d,
        4,
        "ASM-10 at case[1] (fixture-01): expected structural evidence unavailable under SB-15 (capture "
        "recorded attempt 1 unavailable under SB-15); found available",
    )


def test_a_captured_artifact_the_evaluator_rejects_names_its_rule_and_raw_file(d: Path) -> None:
    stdout = d / "raw/repositories/0000/attempt-1/source-list.stdout"
    data = stdout.read_bytes().replace(b'"extension": ".js"', b'"extension": ".JS"', 1)
    stdout.write_bytes(data)

    def resealed(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for e in entries:
            if e["entry"] == "spawn" and e["stdout"]["file"].endswith("/source-list.stdout"):
                e["stdout"]["sha256"] = hashlib.sha256(data).hexdigest()
        return entries

    _ledger(d, resealed)
    _refused(
        d,
        4,
        f"SL-16 at {stdout} -> /items/0/extension: expected lower(extname(path)) = '.js', one of the "
        "default extensions; found '.JS'",
    )


def test_ASM_11_supersedes_needs_another_readable_preparation(d: Path, captured_base: Made, tmp_path: Path) -> None:
    ran = _assemble(d, None, "--supersedes", d)
    assert (ran.code, ran.err) == (
        2,
        f"ablation-prepare: --supersedes '{d}': another preparation directory (a folder that is not --dir)\n",
    )
    old = copy_d(captured_base.dir, tmp_path / "old")
    (old / "attempts.jsonl").write_bytes((old / "attempts.jsonl").read_bytes() + b"{")
    _refused(
        d,
        3,
        f"ASM-11 at {old}/attempts.jsonl: expected the ledger capture wrote, every line complete; found "
        "its last line is incomplete (capture ended while writing it)",
        None,
        "--supersedes",
        old,
    )
