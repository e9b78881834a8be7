"""``ablation-prepare assemble``: build ``prepared.json`` from what capture kept in D, check it blind, write it once.

In this order, and nothing is written until every step passed:

1. exit 5 when D already holds an output of ``assemble`` (or of ``freeze``);
2. D's ledger reads back and every file it records is in D with its SHA-256 (ASM-1,
   ASM-2, exit 3: a raw file changed after capture is never laundered);
3. every step has its usable attempt (ASM-3); the input's pieces are built from them
   (:mod:`ablation.prepare.assemble_input`);
4. the staleness review binds to ``staleness-sheet.md`` and accepts every sample
   (ASM-4 … ASM-8, :mod:`ablation.prepare.staleness_review`); each ``method`` text is
   composed and checked (STALE-4), never normalised;
5. ``prepared.json`` = ``json.dumps(value, indent=2, ensure_ascii=False)`` and a line
   feed; the evaluator's input bound (ASM-9) and the blind self-check (the evaluator's
   validation, availability as capture recorded: ASM-10, :mod:`ablation.prepare.selfcheck`);
6. ``--supersedes OLD_D``: every attempt of OLD_D's ledger, read, never changed (ASM-11);
7. the sealed closure is checked again, then the outputs are written, each exclusively
   and completely or not at all: the staleness review's copy ``staleness-review.toml``,
   ``prepared.json``, ``prepared.json.sha256``, ``prepared.json.gz`` (``--gzip``: one
   gzip member, mtime 0, no file name), ``preparation-record.json``,
   ``pre-run-sheet.md`` and last ``SHA256SUMS.pre-review`` over every file of D.

``assemble`` starts no process: it reads D, the review and OLD_D only.

Spec: PREPARE.md §6, §8; §11 criteria 4, 7, 11, 13, 22, 23, 24, 25.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import posixpath
from collections.abc import Callable
from dataclasses import dataclass

from ablation.closure import check as closure_check
from ablation.errors import OutputRefused, UsageError
from ablation.identity import evaluator_identity
from ablation.output import read_file, write_exclusive
from ablation.prepare.assemble_input import (
    CaptureContext,
    build_input,
    read_repositories,
    recorded_revisions,
    usable_attempts,
)
from ablation.prepare.attempts import json_text
from ablation.prepare.capture_setup import EXPERIMENT_COPY, REVIEW_COPY
from ablation.prepare.check_cases import check_cases
from ablation.prepare.check_values import check_experiment_values
from ablation.prepare.checks import seed_truth_overlaps, warn_overlaps
from ablation.prepare.experiment_file import Experiment, load_experiment
from ablation.prepare.findings import EXIT_INTEGRITY, Finding, Findings, PrepareRejected
from ablation.prepare.integrity import check_captured_files, read_preparation_ledger
from ablation.prepare.ledger import LEDGER_NAME, LedgerDamaged, read_ledger
from ablation.prepare.manifest import PRE_REVIEW, PRE_RUN, SIGNATURE, file_sha256, render_manifest, walk_files
from ablation.prepare.prerun_sheet import PRE_RUN_SHEET, render_pre_run_sheet
from ablation.prepare.record import RECORD_NAME, RecordInputs, preparation_record
from ablation.prepare.selfcheck import self_check
from ablation.prepare.staleness import SHEET_NAME
from ablation.prepare.staleness_review import read_staleness_review

__all__ = ["ASSEMBLED", "FROZEN", "PREPARED", "STALENESS_REVIEW_COPY", "load_copy", "run_assemble"]

PREPARED = "prepared.json"
STALENESS_REVIEW_COPY = "staleness-review.toml"
ASSEMBLED = (
    STALENESS_REVIEW_COPY,
    PREPARED,
    f"{PREPARED}.sha256",
    f"{PREPARED}.gz",
    RECORD_NAME,
    PRE_RUN_SHEET,
    PRE_REVIEW,
)
"""What ``assemble`` writes into D, in the order it writes it."""
FROZEN = ("pre-run-review.toml", "freeze-record.json", PRE_RUN, SIGNATURE)
"""What ``freeze`` writes into D."""


def load_copy(folder: str, shown: str) -> Experiment:
    """D's ``experiment.toml`` (capture checked it; its bytes are the ledger's, ASM-2).

    Raises:
        PrepareRejected: ASM-1 (exit 3) when it does not load.
    """
    data = read_file(os.path.join(folder, EXPERIMENT_COPY), "experiment copy")
    findings = Findings()
    experiment = load_experiment(data, posixpath.join(shown, EXPERIMENT_COPY), findings)
    if experiment is None or findings.errors:
        first = findings.errors[0]
        raise PrepareRejected(
            [
                Finding(
                    "ASM-1", first.where, "the experiment file capture checked", first.found, exit_code=EXIT_INTEGRITY
                )
            ]
        )
    return experiment


def warnings_of(experiment: Experiment) -> list[str]:
    """``check``'s warnings that need no process: machine paths (PRE-23, PRE-24), a truth path as seed (PRE-25)."""
    findings = Findings()
    check_experiment_values(experiment, findings)
    check_cases(experiment, findings)
    warn_overlaps(experiment, findings)
    return [f.line() for f in findings.warnings]


def overlaps_of(experiment: Experiment) -> list[dict[str, object]]:
    """Every path seed that is a truth path or a folder holding one (as the case-review sheet shows them)."""
    return [
        {
            "case": case.id,
            "seed": case.sci.paths[o.seed] if case.sci else "",
            "truth": case.truth[o.truth],
            "exact": o.exact,
        }
        for case in experiment.cases
        for o in seed_truth_overlaps(case)
    ]


def _superseded(old: str, folder: str) -> dict[str, object]:
    """ASM-11: every attempt of OLD_D's ledger, with the SHA-256 of its ledger and experiment copy (read only)."""
    old_abs = os.path.abspath(old)
    if old_abs == folder or not os.path.isdir(old_abs):
        raise UsageError(f"--supersedes {old!r}: another preparation directory (a folder that is not --dir)")
    ledger_bytes = read_file(os.path.join(old_abs, LEDGER_NAME), "superseded ledger")
    experiment_bytes = read_file(os.path.join(old_abs, EXPERIMENT_COPY), "superseded experiment copy")
    try:
        view = read_ledger(os.path.join(old_abs, LEDGER_NAME))
    except LedgerDamaged as exc:
        at = posixpath.join(old, LEDGER_NAME)
        raise PrepareRejected(
            [Finding("ASM-11", at, "the ledger capture wrote, every line complete", str(exc), exit_code=EXIT_INTEGRITY)]
        ) from None
    attempts = [
        {"step": h.step, "attempt": a.number, "folder": a.folder, "outcome": a.outcome or "open", "rule": a.rule}
        for h in view.steps.values()
        for a in h.attempts
    ]
    return {
        "dir": old,
        "ledgerSha256": hashlib.sha256(ledger_bytes).hexdigest(),
        "experimentSha256": hashlib.sha256(experiment_bytes).hexdigest(),
        "attempts": attempts,
    }


def _refuse_outputs(folder: str, shown: str) -> None:
    for name in (*ASSEMBLED, *FROZEN):
        if os.path.lexists(os.path.join(folder, name)):
            raise OutputRefused(f"{posixpath.join(shown, name)!r} exists: this preparation is assembled already")


def _write(folder: str, outputs: list[tuple[str, bytes]], warn: Callable[[str], None]) -> None:
    for name, data in outputs:
        warning = write_exclusive(os.path.join(folder, name), data)
        if warning is not None:
            warn(warning)


@dataclass(frozen=True, slots=True)
class _Assembled:
    """What steps 2 … 6 produced: the input's bytes and the record's inputs."""

    data: bytes
    record: RecordInputs


def _assemble(args: argparse.Namespace, folder: str, shown: str, review_bytes: bytes) -> _Assembled:
    """Steps 2 … 6 of the module docstring: everything is checked, nothing is written."""
    superseded = _superseded(args.supersedes, folder) if args.supersedes is not None else None
    view = read_preparation_ledger(folder, shown)
    captured = check_captured_files(folder, shown, view, later=())
    experiment = load_copy(folder, shown)
    usable = usable_attempts(experiment, view)
    repositories = read_repositories(experiment, view, usable, (folder, shown))
    sheet_sha256 = file_sha256(os.path.join(folder, SHEET_NAME))
    samples = {built.repository.id: built.sampled for built in repositories}
    review = read_staleness_review(args.staleness_review, review_bytes, sheet_sha256=sheet_sha256, samples=samples)
    context = CaptureContext(usable, folder, recorded_revisions(view).get("sci"))
    value, expectations = build_input(experiment, repositories, review, context)
    data = json_text(value).encode("utf-8")
    validated = self_check(data, expectations, posixpath.join(shown, PREPARED))
    prepared: dict[str, object] = {
        "file": PREPARED,
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
        "gzip": None,
    }
    record = RecordInputs(
        experiment=experiment,
        view=view,
        folder=folder,
        repositories=repositories,
        expectations=expectations,
        validated=validated,
        review=review,
        sheet_sha256=sheet_sha256,
        prepared=prepared,
        identity_digest=str(evaluator_identity()["identityDigest"]),
        warnings=warnings_of(experiment),
        overlaps=overlaps_of(experiment),
        unrecorded=captured.unrecorded,
        superseded=superseded,
    )
    return _Assembled(data, record)


def _outputs(assembled: _Assembled, review_bytes: bytes, *, compress: bool) -> list[tuple[str, bytes]]:
    """Every output but the manifest, in the order written (the record and the sheet last)."""
    data, inputs = assembled.data, assembled.record
    sha = hashlib.sha256(data).hexdigest()
    outputs = [
        (STALENESS_REVIEW_COPY, review_bytes),
        (PREPARED, data),
        (f"{PREPARED}.sha256", f"{sha}  {PREPARED}\n".encode()),
    ]
    if compress:
        compressed = gzip.compress(data, compresslevel=9, mtime=0)
        inputs.prepared["gzip"] = {
            "file": f"{PREPARED}.gz",
            "sha256": hashlib.sha256(compressed).hexdigest(),
            "bytes": len(compressed),
        }
        outputs.append((f"{PREPARED}.gz", compressed))
    record = preparation_record(inputs)
    record_bytes = json_text(record).encode("utf-8")
    hashes = {name: hashlib.sha256(content).hexdigest() for name, content in outputs}
    for name in (EXPERIMENT_COPY, REVIEW_COPY, SHEET_NAME, LEDGER_NAME):
        hashes[name] = file_sha256(os.path.join(inputs.folder, name))
    hashes[RECORD_NAME] = hashlib.sha256(record_bytes).hexdigest()
    sheet = render_pre_run_sheet(record, hashes).encode("utf-8")
    return [*outputs, (RECORD_NAME, record_bytes), (PRE_RUN_SHEET, sheet)]


def run_assemble(args: argparse.Namespace, say: Callable[[str], None], warn: Callable[[str], None]) -> int:
    """Run ``assemble`` (module docstring); 0 when every output is written.

    Raises:
        UsageError (2), PrepareRejected (3: ASM-1, ASM-2, ASM-6, ASM-11; 4), OutputRefused (5).
    """
    folder, shown = os.path.abspath(args.dir), args.dir
    if not os.path.isdir(folder) or not os.path.exists(os.path.join(folder, LEDGER_NAME)):
        raise UsageError(f"--dir {args.dir!r} is not a preparation directory (no {LEDGER_NAME}): run capture first")
    _refuse_outputs(folder, shown)
    review_bytes = read_file(args.staleness_review, "staleness review")
    assembled = _assemble(args, folder, shown, review_bytes)
    outputs = _outputs(assembled, review_bytes, compress=args.gzip)
    closure_check.recheck()  # every module assemble used is loaded: the sealed closure still holds them
    _write(folder, outputs, warn)
    manifest = render_manifest({path: file_sha256(os.path.join(folder, path)) for path in walk_files(folder).files})
    _write(folder, [(PRE_REVIEW, manifest)], warn)
    for name, content in [*outputs, (PRE_REVIEW, manifest)]:
        if name != STALENESS_REVIEW_COPY:
            say(f"{hashlib.sha256(content).hexdigest()}  {posixpath.join(shown, name)}")
    cases = assembled.record.validated.cases
    available = sum(1 for c in cases if c.structural is not None)
    repositories = len(assembled.record.validated.repositories)
    say(
        f"assemble complete: {repositories} repositor{'y' if repositories == 1 else 'ies'}, {len(cases)} cases, "
        f"structural evidence available for {available}; no ranking computed"
    )
    return 0
