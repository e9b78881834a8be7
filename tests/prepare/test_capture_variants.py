"""Every fault variant of PREPARE.md §10 gives its expected outcome at capture, driven by ``standins.VARIANTS``.

SCI variants: one allowed case each in the background matrices (asserted and,
where strace can trace, traced): the outcome and the rule the ledger records are
the table's (``rule``, ``traced_rule``; a null bundle is SB-1, the evaluator's rule
for a ``null`` bundle). Source-list variants: one capture each, in this process;
each stops before any SCI run, naming the CAP rule of its gate or the evaluator's
rule at ``D/raw/repositories/0000/attempt-1/<file> -> <inner>``. After every
failure every file the ledger names is still there with its SHA-256.

Spec: PREPARE.md §10, §11 criteria 5, 6, 21, 24, 26.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ablation.prepare.build_case import case_bundle, read_case_attempt
from tests.prepare.capfixtures import (
    Made,
    assert_ledger_files_intact,
    attempt_json,
    capture,
    ends,
    ledger,
    standin_experiment,
)
from tests.prepare.capture_background import SCI_VARIANTS, TRACED_NAMES, Background, asserted_table, traced_table
from tests.prepare.doubles import standins

SL_FAILING = tuple(v for v in standins.VARIANTS if v.tool == "source-list" and not v.passes)
GATE_RULES = {"exit": "CAP-13", "source-list-stderr": "CAP-14", "strict-utf8": "CAP-15", "zero-present": "CAP-17"}


def _case(table: dict[int, standins.Variant], name: str) -> int:
    return next(k for k, v in table.items() if v.name == name)


def _expected(variant: standins.Variant, *, traced: bool) -> tuple[str, str | None]:
    rule = variant.traced_rule if traced and variant.traced_rule else variant.rule
    if variant.passes and not (traced and variant.traced_rule):
        return "succeeded", None
    return "unavailable", "SB-1" if variant.null_bundle else rule


def _end(background: Background, index: int) -> dict[str, Any]:
    return ends(background.made)[(f"case:{index:04d}:sci", 1)]


# ------------------------------------------------------------------ source-list, in this process
# (first in the file: the background matrices run meanwhile)


@pytest.fixture(scope="module")
def sl_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("sl-variants")


@pytest.mark.parametrize("variant", SL_FAILING, ids=lambda v: v.name)
def test_each_source_list_variant_stops_capture_before_any_sci_run(sl_root: Path, variant: standins.Variant) -> None:
    made = standin_experiment(sl_root / variant.name, source_list=variant.name, sci_cases=2)
    ran = capture(made)
    assert ran.code == 4, ran.err
    rule = GATE_RULES.get(variant.gate or "", variant.rule)
    error = [line for line in ran.err.splitlines() if not line.startswith("ablation-prepare: warning:")]
    assert len(error) == 1 and error[0].startswith(f"{rule} at "), error
    folder = made.dir / "raw/repositories/0000/attempt-1"
    if variant.inner:
        assert error[0].startswith(f"{rule} at {folder}/source-list.stdout -> {variant.inner}: ")
    end = ends(made)[("repo:0000:source-list", 1)]
    assert (end["outcome"], end["rule"], end["message"]) == ("failed", rule, error[0])
    assert not [e for e in ledger(made) if e.get("step", "") and str(e.get("step")).startswith("case:")]
    assert not (made.dir / "staleness-sheet.md").exists()
    assert (folder / "source-list.stdout").is_file() and (folder / "source-list.stderr").is_file()
    assert_ledger_files_intact(made)
    if variant.name == "untracked-file":
        assert (made.work_root / "targets/0000" / standins.SOURCE_LIST_UNTRACKED_NAME).is_file()  # target kept


# ------------------------------------------------------------------ SCI, asserted


def test_the_asserted_matrix_runs_every_step_once(sci_matrix: Background) -> None:
    ran = sci_matrix.wait()
    assert ran.code == 0, ran.err
    assert ran.out.splitlines()[-1] == "capture complete: 28 attempts run, 0 steps skipped, 14 unavailable"
    assert_ledger_files_intact(sci_matrix.made)


@pytest.mark.parametrize("variant", SCI_VARIANTS, ids=lambda v: v.name)
def test_each_sci_variant_ends_as_the_table_says(sci_matrix: Background, variant: standins.Variant) -> None:
    index = _case(asserted_table(), variant.name)
    end = _end(sci_matrix, index)
    assert (end["outcome"], end["rule"]) == _expected(variant, traced=False)
    if end["rule"] is not None:
        line = f"case:{index:04d}:sci attempt 1: unavailable (allowed): {end['message']}"
        assert line in sci_matrix.wait().out.splitlines()


def test_a_short_lived_orphan_is_reaped_and_confirmed(sci_matrix: Background) -> None:
    folder = f"raw/cases/{_case(asserted_table(), 'orphan-short'):04d}/attempt-1"
    run = attempt_json(sci_matrix.made, folder, "extras.json")["sci"]
    assert (run["orphans"], run["killed"], run["groupConfirmed"], run["timedOut"]) == (1, False, True, False)
    assert attempt_json(sci_matrix.made, folder, "process.json")["processGroupTerminationConfirmed"] is True


def test_a_long_lived_orphan_is_killed_after_the_grace_and_fails_the_case(sci_matrix: Background) -> None:
    index = _case(asserted_table(), "orphan-long")
    folder = f"raw/cases/{index:04d}/attempt-1"
    run = attempt_json(sci_matrix.made, folder, "extras.json")["sci"]
    assert (run["exitCode"], run["killed"], run["groupConfirmed"], run["timedOut"], run["graceS"]) == (
        0,
        True,
        False,
        False,
        5.0,
    )
    assert run["orphans"] == 1
    assert attempt_json(sci_matrix.made, folder, "process.json") == {
        "exitCode": 0,
        "receiptCount": 1,
        "processGroupTerminationConfirmed": False,
    }
    assert _end(sci_matrix, index)["message"] == (
        f"OBS-18 at {sci_matrix.made.dir}/{folder}/process.json -> /processGroupTerminationConfirmed: "
        "expected true; found false"
    )


def test_a_hang_is_a_timeout_with_a_null_bundle(sci_matrix: Background) -> None:
    index = _case(asserted_table(), "hang")
    folder = f"raw/cases/{index:04d}/attempt-1"
    run = attempt_json(sci_matrix.made, folder, "extras.json")["sci"]
    assert (run["exitCode"], run["signal"], run["timedOut"], run["killed"], run["groupConfirmed"]) == (
        None,
        9,
        True,
        True,
        False,
    )
    assert _end(sci_matrix, index)["message"] == (
        f"SB-1 at {sci_matrix.made.dir}/{folder}/stdout: expected a receipt: stdout's first JSON value (without one "
        "the case's bundle is null); found an empty stdout; the exporter ran past process_timeout_s (6 s) and its "
        "process group was killed"
    )


@pytest.mark.parametrize(("name", "count"), [("two-receipts", 2), ("trailing-text", 1), ("empty-stdout", 0)])
def test_receipt_count_counts_complete_values(sci_matrix: Background, name: str, count: int) -> None:
    folder = f"raw/cases/{_case(asserted_table(), name):04d}/attempt-1"
    assert attempt_json(sci_matrix.made, folder, "process.json")["receiptCount"] == count


@pytest.mark.parametrize("name", ["empty-stdout", "duplicate-key", "hang"])
def test_no_receipt_gives_a_null_bundle_and_nothing_is_fabricated(sci_matrix: Background, name: str) -> None:
    made = sci_matrix.made
    index = _case(asserted_table(), name)
    case = next(c for c in _experiment_cases(made) if c.index == index)
    experiment = _loaded(made)
    texts = read_case_attempt(str(made.dir / f"raw/cases/{index:04d}/attempt-1"))
    bundle, why = case_bundle(experiment, case, experiment.repositories[0].commit, sci_revision="c" * 40, texts=texts)
    assert bundle is None and why


@pytest.mark.parametrize(("name", "kept"), [("tmpdir-leftover", "tmp"), ("home-leftover", "home")])
def test_a_folder_left_non_empty_is_kept_as_evidence(sci_matrix: Background, name: str, kept: str) -> None:
    folder = f"raw/cases/{_case(asserted_table(), name):04d}/attempt-1"
    private = attempt_json(sci_matrix.made, folder, "extras.json")["privateFolders"]
    assert private[kept]["removed"] is False
    assert private[kept]["listing"] == [
        f"{standins.SCI_LEFTOVER_NAME} (file of {len(f'left behind by the {name} variant') + 1} bytes)"
    ]
    assert (Path(private[kept]["path"]) / standins.SCI_LEFTOVER_NAME).is_file()
    other = "home" if kept == "tmp" else "tmp"
    assert (private[other]["removed"], Path(private[other]["path"]).exists()) == (True, False)


def test_touching_a_tracked_file_passes_and_no_observation_rewrites_the_index(sci_matrix: Background) -> None:
    folder = f"raw/cases/{_case(asserted_table(), 'touch-tracked'):04d}/attempt-1"
    extras = attempt_json(sci_matrix.made, folder, "extras.json")
    assert extras["gitIndexChanged"] is False
    assert extras["stateBefore"]["gitIndexSha256"] == extras["stateAfter"]["gitIndexSha256"]
    assert extras["stateBefore"]["lsFilesStageSha256"] == extras["stateAfter"]["lsFilesStageSha256"]


def test_asserted_mode_records_every_case_as_asserted_not_traced(sci_matrix: Background) -> None:
    for index in asserted_table():
        access = attempt_json(sci_matrix.made, f"raw/cases/{index:04d}/attempt-1", "extras.json")["fileAccess"]
        assert access == {"mode": "asserted", "note": "indexRead / indexBuilt asserted, not traced"}


def test_the_reordered_receipt_keeps_the_member_order_of_its_text(sci_matrix: Background) -> None:
    made = sci_matrix.made
    index = _case(asserted_table(), "reordered")
    experiment = _loaded(made)
    case = experiment.cases[index]
    texts = read_case_attempt(str(made.dir / f"raw/cases/{index:04d}/attempt-1"))
    bundle, _ = case_bundle(experiment, case, experiment.repositories[0].commit, sci_revision="c" * 40, texts=texts)
    assert bundle is not None
    receipt = bundle["receipt"]
    assert isinstance(receipt, dict)
    assert next(iter(receipt)) == "receiptDigest"
    assert list(receipt) == list(json.loads(texts.stdout))


# ------------------------------------------------------------------ SCI, traced


@pytest.mark.parametrize("variant", [standins.variant("sci", n) for n in TRACED_NAMES], ids=lambda v: v.name)
def test_each_traced_variant_ends_as_the_table_says(traced_matrix: Background, variant: standins.Variant) -> None:
    index = _case(traced_table(), variant.name)
    end = _end(traced_matrix, index)
    assert (end["outcome"], end["rule"]) == _expected(variant, traced=True)
    access = attempt_json(traced_matrix.made, f"raw/cases/{index:04d}/attempt-1", "extras.json")["fileAccess"]
    assert access["mode"] == "traced"
    assert (traced_matrix.made.dir / f"raw/cases/{index:04d}/attempt-1/trace.txt").is_file()


def test_traced_the_home_cache_is_read_and_built_below_home(traced_matrix: Background) -> None:
    folder = f"raw/cases/{_case(traced_table(), 'home-cache'):04d}/attempt-1"
    summary = attempt_json(traced_matrix.made, folder, "extras.json")["fileAccess"]["summary"]
    assert summary["reads"]["a"] == 0 and summary["reads"]["b"] > 0 and summary["created"]["b"] == 3
    state = attempt_json(traced_matrix.made, folder, "state.json")
    assert (state["indexRead"], state["indexBuilt"]) == (True, True)
    normal = f"raw/cases/{_case(traced_table(), 'normal'):04d}/attempt-1"
    summary = attempt_json(traced_matrix.made, normal, "extras.json")["fileAccess"]["summary"]
    assert (summary["reads"], summary["created"], summary["offending"]) == ({"a": 0, "b": 0}, {"a": 0, "b": 0}, [])


def test_traced_a_long_lived_orphan_keeps_strace_alive_until_the_timeout(traced_matrix: Background) -> None:
    folder = f"raw/cases/{_case(traced_table(), 'orphan-long'):04d}/attempt-1"
    run = attempt_json(traced_matrix.made, folder, "extras.json")["sci"]
    assert (run["timedOut"], run["killed"], run["groupConfirmed"], run["exitCode"]) == (True, True, False, None)


def _loaded(made: Made) -> Any:
    from ablation.prepare.checks import read_experiment  # noqa: PLC0415

    return read_experiment(str(made.experiment))


def _experiment_cases(made: Made) -> Any:
    return _loaded(made).cases
