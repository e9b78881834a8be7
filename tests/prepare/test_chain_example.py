"""``make prepare-example``: from two copies of the checkout at different paths, the same prepared input.

The example script (``examples/prepare/run_example.py``) runs check → sheet →
capture (stand-ins, asserted) → assemble → freeze → check-freeze → sealed ``verify``
→ ``run`` with the one-shot marker → ``check-freeze --results`` from each copy in turn
(``example_background.py``), and prints last the prepared input's and the results
file's ``<sha256>  <path>``. Both runs exit 0; the second moves the first one's
``work_root`` aside itself; the prepared inputs are byte-identical; and the
example's prepared input with its preparation directory as evidence passes
``ablation archive`` and ``verify-archive``.

Spec: issue 21 item 4 and acceptance; PREPARE.md §11 criteria 4, 7, 14.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from tests.prepare.chainfixtures import sealed
from tests.prepare.example_background import ExampleRuns

PREPARED = "build/prepare-example/chain/prep/prepared.json"
RESULTS = "build/prepare-example/chain/out/example.results.json"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_both_runs_exit_0_and_print_the_two_hashes_last(example_runs: ExampleRuns) -> None:
    for (code, log), checkout in zip(example_runs.wait(), example_runs.checkouts, strict=True):
        assert code == 0, log[-3000:]
        assert log.splitlines()[-3:] == [
            "the example's prepared input and its results (the first line is what a preregistration cites):",
            f"{_sha(checkout / PREPARED)}  {PREPARED}",
            f"{_sha(checkout / RESULTS)}  {RESULTS}",
        ]
        assert "capture complete: 37 attempts run, 0 steps skipped, 0 unavailable" in log
        assert "input: admissible" in log and "check-freeze: every file, binding and review holds" in log
        assert (checkout / "build/prepare-example/chain/prep/attempt.json").is_file()


def test_two_checkouts_at_different_paths_prepare_the_same_bytes(example_runs: ExampleRuns) -> None:
    first, second = example_runs.checkouts
    assert (first / PREPARED).read_bytes() == (second / PREPARED).read_bytes()
    (_, first_log), (_, second_log) = example_runs.wait()
    assert "moved aside" not in first_log
    assert (
        f"moved aside: {example_runs.fixed}/work -> build/prepare-example/moved/1/work (preparation deletes nothing)"
        in second_log.splitlines()
    )
    assert (second / "build/prepare-example/moved/1/work/requests").is_dir()


def test_the_example_s_input_with_its_preparation_directory_archives_and_verifies(
    example_runs: ExampleRuns, tmp_path: Path
) -> None:
    checkout = example_runs.checkouts[0]
    d = checkout / "build/prepare-example/chain/prep"
    bundle = tmp_path / "example.bundle.tar.gz"
    archived = sealed(
        "archive", "--input", d / "prepared.json", "--results", checkout / RESULTS, "--bundle", bundle, "--evidence", d
    )
    assert archived.returncode == 0, archived.stderr
    verified = sealed("verify-archive", bundle)
    assert verified.returncode == 0, verified.stderr
    assert "input validates here; result and gateAssessment recomputed here equal results.json" in verified.stdout
