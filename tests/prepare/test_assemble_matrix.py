"""``assemble`` on the fault matrices: availability as capture recorded, and what the record and the sheet say.

A copy of the D that the asserted SCI fault matrix left (``capture_background.py``:
two repositories, four ``tool-version`` steps, 20 SCI cases, one per variant, every
one allowed to be unavailable) is assembled. The self-check finds each case
available exactly when its attempt succeeded, and unavailable under the rule the
ledger recorded (SB-1 for a null bundle); the record and the pre-run sheet flag
every case "indexRead / indexBuilt asserted, not traced", show the ``.git/index``
change of the ``touch-tracked`` case, count the ``orphan-short`` orphan, restate
every spawn with its bytes and ``ceil(bytes/4)`` and carry each ``--version``
output. The traced matrix, where strace can trace, gives each case its trace summary.

Spec: PREPARE.md §6 items 1–3; §11 criteria 13, 21, 24.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ablation.prepare.prerun_sheet import render_pre_run_sheet
from tests.prepare.capfixtures import ends
from tests.prepare.capture_background import Background, asserted_table
from tests.prepare.chainfixtures import copy_d, staleness_review
from tests.prepare.prepfixtures import Ran, errors_of, run_prepare

ASSERTED = "indexRead / indexBuilt asserted, not traced"


def _assemble(background: Background, root: Path) -> tuple[Path, Ran, dict[str, Any]]:
    d = copy_d(background.made.dir, root / "D")
    review = root / "staleness-review.toml"
    review.write_text(staleness_review(d), encoding="utf-8")
    ran = run_prepare("assemble", "--dir", d, "--staleness-review", review)
    record = json.loads((d / "preparation-record.json").read_bytes()) if ran.code == 0 else {}
    return d, ran, record


@pytest.fixture(scope="module")
def matrix(sci_matrix: Background, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Ran, dict[str, Any]]:
    return _assemble(sci_matrix, tmp_path_factory.mktemp("assembled-matrix"))


def _index(name: str) -> int:
    return next(k for k, v in asserted_table().items() if v.name == name)


def test_the_self_check_finds_the_availability_capture_recorded(
    matrix: tuple[Path, Ran, dict[str, Any]], sci_matrix: Background
) -> None:
    _, ran, record = matrix
    assert (ran.code, errors_of(ran)) == (0, [])
    recorded = ends(sci_matrix.made)
    for case in record["cases"][:20]:
        k = int(case["attempt"]["folder"].split("/")[2])
        end = recorded[(f"case:{k:04d}:sci", 1)]
        assert case["attempt"]["outcome"] == end["outcome"]
        failure = case["structuralFailure"]
        found = None if failure is None else failure.split(":", 1)[1].split(" ", 1)[0]
        assert (case["structuralAvailable"], found) == (end["outcome"] == "succeeded", end["rule"]), case["id"]
    counts = record["counts"]
    available = sum(1 for e in recorded.values() if e["step"].startswith("case:") and e["outcome"] == "succeeded")
    assert (counts["cases"], counts["casesWithSci"], counts["structuralAvailable"]) == (20, 20, available)
    assert ran.out.splitlines()[-1] == (
        f"assemble complete: 2 repositories, 20 cases, structural evidence available for {available}; "
        "no ranking computed"
    )


def test_every_case_is_flagged_asserted_in_the_record_and_on_the_sheet(
    matrix: tuple[Path, Ran, dict[str, Any]],
) -> None:
    d, _, record = matrix
    assert {json.dumps(c["fileAccess"]) for c in record["cases"]} == {
        json.dumps({"mode": "asserted", "note": ASSERTED})
    }
    assert record["counts"]["assertedNotTraced"] == 20
    sheet = (d / "pre-run-sheet.md").read_text(encoding="utf-8")
    rows = [line for line in sheet.splitlines() if line.startswith("| `fixture")]
    assert len(rows) == 20 and all(f"| {ASSERTED} |" in row for row in rows)
    assert "- file access asserted, not traced, for 20 cases" in sheet


def test_a_changed_git_index_hash_is_recorded_and_shown(matrix: tuple[Path, Ran, dict[str, Any]]) -> None:
    """No observation rewrites ``.git/index`` (the touched file too); the sheet shows a change when there is one."""
    d, _, record = matrix
    states = [c["state"] for c in record["cases"]] + [r["state"] for r in record["repositories"]]
    assert [s["gitIndexChanged"] for s in states] == [False] * 22
    assert all(s["gitIndexSha256"]["before"] == s["gitIndexSha256"]["after"] for s in states)
    sheet = (d / "pre-run-sheet.md").read_text(encoding="utf-8")
    assert "## Changed `.git/index` hashes\n\n- none\n" in sheet
    case = record["cases"][_index("touch-tracked")]
    case["state"]["gitIndexChanged"] = True
    case["state"]["gitIndexSha256"]["after"] = "0" * 64
    hashes = {"prepared.json": "1" * 64}
    changed = render_pre_run_sheet(record, hashes)
    section = changed.split("## Changed `.git/index` hashes\n\n", 1)[1].split("\n\n", 1)[0]
    before = case["state"]["gitIndexSha256"]["before"]
    assert section == f"- case `{case['id']}`: `{before}` → `{'0' * 64}` (recorded; not a failure)"
    row = next(line for line in changed.splitlines() if line.startswith(f"| `{case['id']}` |"))
    assert row.endswith("| changed |")


def test_the_record_restates_every_spawn_with_bytes_and_ceil4(matrix: tuple[Path, Ran, dict[str, Any]]) -> None:
    _, _, record = matrix
    assert record["cases"][_index("orphan-short")]["cost"]["orphans"] == 1
    spawns = [s for step in record["steps"] for a in step["attempts"] for s in a["spawns"]]
    assert {s["kind"] for s in spawns} == {"git", "tool-version", "source-list", "sci"}
    for spawn in spawns:
        assert spawn["durationNs"] >= 0 and isinstance(spawn["argv"], list) and spawn["environment"]
        for member in ("stdout", "stderr"):
            assert spawn[member]["tokensCeil4"] == -(-spawn[member]["bytes"] // 4)
    files = [f for step in record["steps"] for a in step["attempts"] for f in a["files"]]
    assert all(f["tokensCeil4"] == -(-f["bytes"] // 4) for f in files)
    versions = {key: tool["version"]["stdout"].strip() for key, tool in record["tools"].items() if tool["version"]}
    assert sorted(versions) == ["backend", "git", "node", "sci"]
    assert versions["backend"] == "stand-in-grep-cli 0.42.1"
    assert set(record["tools"]["node"]) == {"path", "realpath", "size", "sha256", "version"}


def test_the_traced_matrix_records_each_trace_summary(traced_matrix: Background, tmp_path: Path) -> None:
    d, ran, record = _assemble(traced_matrix, tmp_path)
    assert (ran.code, errors_of(ran)) == (0, [])
    sci = [c for c in record["cases"] if c["sci"]]
    assert {c["fileAccess"]["mode"] for c in sci} == {"traced"}
    assert all(set(c["fileAccess"]["summary"]) >= {"calls", "reads", "created", "offending"} for c in sci)
    assert record["counts"]["assertedNotTraced"] == 0
    assert f"| {ASSERTED} |" not in (d / "pre-run-sheet.md").read_text(encoding="utf-8")
