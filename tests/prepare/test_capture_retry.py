"""Attempts, ``--resume`` and ``--retry``: nothing captured is overwritten, a failed step runs again only when asked.

One preparation is taken through a chain: an SCI case whose stand-in edits a
tracked file fails (OBS-16) and stops capture by default; ``--resume`` refuses the
failed step (CAP-7); ``--retry`` runs attempt 2 in a new folder, reusing the
byte-identical request file (recorded), and is refused before the exporter
starts because the target stays dirty (CAP-10); a request file with other bytes
refuses attempt 3 (CAP-9). At every step the earlier files are still there,
byte for byte. A stand-in that changes the ``ls-files --stage`` listing stops
capture even when its case is allowed to be unavailable (CAP-18).

Spec: PREPARE.md §4 ("Attempts, resume and retry", "SCI gates"), §8; §11 criteria 5, 18, 26.
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
    listing,
    standin_experiment,
    write_review,
)
from tests.prepare.prepfixtures import dump_toml, errors_of, pin_table

_REASON = "the target was restored by hand"


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> Made:
    root = tmp_path_factory.mktemp("retry")
    return standin_experiment(root / "chain", sci_cases=2, sci_table={0: "fake_sci--edit-tracked.py"})


def _both(made: Made) -> dict[str, str]:
    return listing(made.dir, made.work_root)


def _kept(before: dict[str, str], made: Made) -> None:
    """Every file of ``before`` is still there, byte for byte; the ledger only grew."""
    after = _both(made)
    ledger_path = str(made.dir / "attempts.jsonl")
    assert {p: sha for p, sha in after.items() if p in before and p != ledger_path} == {
        p: sha for p, sha in before.items() if p != ledger_path
    }


def test_a_failed_sci_case_stops_capture_by_default(chain: Made) -> None:
    ran = capture(chain)
    assert ran.code == 4
    folder = chain.dir / "raw/cases/0000/attempt-1"
    line = f"OBS-16 at {folder}/state.json -> /statusAfter: expected ''; found ' M ..js\\n'"
    assert errors_of(ran) == [line]
    assert ends(chain)[("case:0000:sci", 1)] | {"seq": 0} == {
        "seq": 0,
        "entry": "end",
        "step": "case:0000:sci",
        "attempt": 1,
        "outcome": "failed",
        "rule": "OBS-16",
        "message": line,
    }
    assert not [e for e in ledger(chain) if e.get("step") == "case:0001:sci"]
    assert_ledger_files_intact(chain)


def test_CAP_7_resume_refuses_a_failed_step_and_writes_nothing(chain: Made) -> None:
    before = _both(chain)
    ran = capture(chain, "--resume")
    assert (ran.code, errors_of(ran)) == (
        4,
        [
            "CAP-7 at case:0000:sci: expected a usable attempt, or none yet: a failed or open step "
            "runs again only with "
            "--retry STEP --reason TEXT; found attempt 1 failed (OBS-16)"
        ],
    )
    assert _both(chain) == before


@pytest.mark.parametrize(
    ("step", "found"),
    [
        (
            "case:0001:sci",
            "expected a step whose last attempt failed or is open (one with a usable attempt is never "
            "run again); found a step that has not run yet",
        ),
        (
            "repo:0000:clone",
            "expected a step whose last attempt failed or is open (one with a usable attempt is never "
            "run again); found attempt 1 succeeded",
        ),
        ("case:9999:sci", "expected the id of a step of this experiment; found 'case:9999:sci'"),
    ],
)
def test_CAP_7_a_retry_names_a_failed_step(chain: Made, step: str, found: str) -> None:
    before = _both(chain)
    ran = capture(chain, "--retry", step, "--reason", _REASON)
    assert (ran.code, errors_of(ran)) == (4, [f"CAP-7 at --retry {step}: {found}"])
    assert _both(chain) == before


def test_CAP_10_a_retry_reuses_the_request_and_refuses_a_changed_target(chain: Made) -> None:
    before = _both(chain)
    ran = capture(chain, "--retry", "case:0000:sci", "--reason", _REASON)
    assert ran.code == 4
    folder = chain.dir / "raw/cases/0000/attempt-2"
    assert errors_of(ran) == [
        f"CAP-10 at {folder}/state-before.status.stdout: expected a target at the commit, clean and without an index, "
        "before SCI; found a status that is not empty: ' M ..js\\n'"
    ]
    _kept(before, chain)
    entries = [e for e in ledger(chain) if e.get("step") == "case:0000:sci" and e.get("attempt") == 2]
    assert [e["entry"] for e in entries] == ["retry", "begin", "request", "file"] + ["spawn"] * 4 + ["end"]
    assert entries[0]["reason"] == _REASON
    request = chain.work_root / "requests/0000.json"
    assert entries[2] | {"seq": 0} == {
        "seq": 0,
        "entry": "request",
        "step": "case:0000:sci",
        "attempt": 2,
        "file": str(request),
        "sha256": hashlib.sha256(request.read_bytes()).hexdigest(),
        "reused": True,
    }
    assert (folder / "request.json").read_bytes() == request.read_bytes()
    assert not (folder / "stdout").exists()  # the exporter never started
    assert_ledger_files_intact(chain)


def test_CAP_9_a_request_file_with_other_bytes_refuses_the_spawn_and_both_are_kept(chain: Made) -> None:
    ledger_before = (chain.dir / "attempts.jsonl").read_bytes()
    before = _both(chain)
    request = chain.work_root / "requests/0000.json"
    request.write_bytes(request.read_bytes().replace(b"def build_", b"def make_"))
    other = request.read_bytes()
    ran = capture(chain, "--retry", "case:0000:sci", "--reason", _REASON)
    assert ran.code == 4
    assert errors_of(ran) == [
        f"CAP-9 at {request}: expected a regular request file holding the request's bytes; found an existing file "
        f"with other bytes, SHA-256 {hashlib.sha256(other).hexdigest()}"
    ]
    assert request.read_bytes() == other
    assert sorted(p.name for p in (chain.dir / "raw/cases/0000").iterdir()) == ["attempt-1", "attempt-2", "attempt-3"]
    assert list((chain.dir / "raw/cases/0000/attempt-3").iterdir()) == []
    assert (chain.dir / "raw/cases/0000/attempt-1/request.json").read_bytes() != other
    assert ends(chain)[("case:0000:sci", 3)]["rule"] == "CAP-9"
    assert (chain.dir / "attempts.jsonl").read_bytes().startswith(ledger_before)
    _kept({p: sha for p, sha in before.items() if p != str(request)}, chain)
    assert_ledger_files_intact(chain)


def test_CAP_18_a_changed_stage_listing_stops_capture_even_when_the_case_is_allowed(tmp_path: Path) -> None:
    made = standin_experiment(tmp_path / "listing", sci_cases=1)
    script = tmp_path / "stage-changer"
    script.write_text("#!/bin/sh\nexec git update-index --chmod=+x -- src/alpha.py\n", encoding="utf-8")
    script.chmod(0o755)
    made.doc["tools"]["sci"] |= pin_table(script)
    made.doc["tools"]["sci"].pop("extra_pins", None)
    made.experiment.write_text(dump_toml(made.doc), encoding="utf-8")
    write_review(made)
    ran = capture(made, "--allow-unavailable-structural", "fixture-00")
    assert ran.code == 4
    folder = made.dir / "raw/cases/0000/attempt-1"
    assert errors_of(ran) == [
        f"CAP-18 at {folder}/state-after.ls-files-stage.stdout: expected the ls-files --stage listing of before the "
        "run; found a changed listing"
    ]
    assert (ends(made)[("case:0000:sci", 1)]["outcome"]) == "failed"


def test_CAP_8_an_attempt_folder_that_exists_already_is_never_reused(chain: Made) -> None:
    squatter = chain.dir / "raw/cases/0000/attempt-4"
    squatter.mkdir()
    (squatter / "note.txt").write_text("put here by hand\n", encoding="utf-8")
    ran = capture(chain, "--retry", "case:0000:sci", "--reason", _REASON)
    assert (ran.code, errors_of(ran)) == (
        4,
        [f"CAP-8 at {squatter}: expected a new attempt folder; found it exists already"],
    )
    assert ends(chain)[("case:0000:sci", 4)]["rule"] == "CAP-8"
    assert [p.name for p in squatter.iterdir()] == ["note.txt"]
