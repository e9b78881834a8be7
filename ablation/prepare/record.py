"""``preparation-record.json``: everything the protocol has no field for, hashed with the rest of D.

Schema ``ablation.preparation_record.v1``, written like ``prepared.json``
(``json.dumps(v, indent=2, ensure_ascii=False)`` and a line feed), members in this
order:

- ``schema``; ``experiment`` (id, SHA-256, authority, ``work_root``,
  ``environment_path``, the cases review's SHA-256); ``prepare`` (the program and
  its evaluator ``identityDigest``: prepare computes with the evaluator's modules);
- ``prepared``: the SHA-256 and size of ``prepared.json`` (and of
  ``prepared.json.gz`` with ``--gzip``);
- ``stalenessReview``: its SHA-256, the sheet's, and per repository the reviewer,
  the decision and the stale paths;
- ``tools``: per ``[tools.*]`` key as the first ``capture`` hashed it (path, real
  path, size, SHA-256, extra pins, revision) and, for ``record_version`` tools, the
  ``--version`` output; ``environment``: the owners' variables (every spawn's own
  environment is under ``steps``);
- ``captures``: each ``capture`` invocation's choices;
- ``steps``: every attempt of every step with its spawns and files, durations, bytes
  and ``ceil(bytes/4)`` (:mod:`ablation.prepare.record_steps`);
- ``repositories``: per repository the usable attempt, counts from validation
  (items, tracked paths, metadata-present, eligibility), the staleness sample, and
  the target's state extras (``.git/index`` SHA-256 before and after and whether it
  changed, the ``ls-files --stage`` hash, the ``--ignored`` status);
- ``cases``: per case its usable attempt and outcome, structural availability and
  failure as validation found them, why a bundle is ``null``, the file-access
  evidence (the trace summary, or "indexRead / indexBuilt asserted, not traced"),
  the state extras, and its cost (duration, stdout and stderr bytes and ``ceil/4``);
- ``retries``, ``failedAttempts``, ``requestFiles`` (``reused`` marks a reuse),
  ``allowUnavailableStructural``, ``unrecordedFiles`` (in failed or open attempts),
  ``superseded`` (``null``, or every attempt of ``--supersedes OLD_D``);
- ``warnings`` (``check``'s warnings that need no process: machine paths, a path
  seed that is a truth path), ``seedTruthOverlaps`` (every path seed that is a truth
  path or a folder holding one); ``counts``; ``limitations``.

No wall-clock time is recorded. Gate G7 (cost disclosure) takes its figures from
``steps`` and ``cases``; latency stays out of the v2 ``result``.

Spec: PREPARE.md §6 item 2; §11 criteria 13, 24, 25.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ablation.experiment import ValidatedExperiment
from ablation.identity import version_text
from ablation.prepare.assemble_input import BuiltRepository, Expectation
from ablation.prepare.build import read_json
from ablation.prepare.capture_sci import ASSERTED
from ablation.prepare.capture_setup import plan_steps
from ablation.prepare.experiment_file import Experiment
from ablation.prepare.ledger import LedgerView
from ablation.prepare.record_steps import ledger_events, steps_record
from ablation.prepare.staleness_review import StalenessReview

__all__ = ["LIMITATIONS", "RECORD_NAME", "SCHEMA", "RecordInputs", "preparation_record"]

SCHEMA = "ablation.preparation_record.v1"
RECORD_NAME = "preparation-record.json"
LIMITATIONS = (
    "Hashes are not authentication and a pinned revision is a claim: nothing here proves who made a file.",
    "A file-access trace (strace) is corroboration, not proof; in assertion mode indexRead and indexBuilt are "
    "the operator's claim, backed only by presence checks before and after each run.",
    "Durations are monotonic nanoseconds on the capturing host: host-local, not comparable across machines.",
    "ceil(bytes/4) is a rough size, not a tokenizer.",
    "The stand-ins of tests/prepare/doubles test the harness, not the owners.",
    "With user and system git configuration off, LFS and smudge filters do not run (targets hold pointer files), "
    "and submodules are not initialised (gitlinks are empty folders).",
)
"""What the record cannot prove, as the protocol says it (PREPARE.md §6 item 2, §12)."""


@dataclass(frozen=True, slots=True)
class RecordInputs:
    """Everything ``assemble`` established that the record restates."""

    experiment: Experiment
    view: LedgerView
    folder: str
    repositories: list[BuiltRepository]
    expectations: list[Expectation]
    validated: ValidatedExperiment
    review: StalenessReview
    sheet_sha256: str
    prepared: dict[str, object]
    identity_digest: str
    warnings: list[str]
    overlaps: list[dict[str, object]]
    unrecorded: tuple[str, ...]
    superseded: dict[str, object] | None


def _extras(inputs: RecordInputs, folder: str) -> dict[str, object]:
    return read_json(os.path.join(inputs.folder, folder), "extras.json")


def _text(inputs: RecordInputs, folder: str, name: str) -> str:
    with open(os.path.join(inputs.folder, folder, name), "rb") as stream:
        return stream.read().decode("utf-8", "backslashreplace")


def _tools(inputs: RecordInputs) -> dict[str, object]:
    """The first ``capture``'s tool record, each with its ``--version`` output (``null`` without ``record_version``)."""
    first = inputs.view.captures()[0]["tools"]
    assert isinstance(first, dict)
    found: dict[str, object] = {}
    for key, entry in first.items():
        assert isinstance(entry, dict)
        usable = inputs.view.history(f"tool:{key}:version").usable
        version = None
        if usable is not None:
            version = {name: _text(inputs, usable.folder, f"version.{name}") for name in ("stdout", "stderr")}
        found[key] = {**entry, "version": version}
    return found


def _environment(inputs: RecordInputs) -> dict[str, object]:
    """The owners' environment: its variables in order, and those whose value is the same for every owner run."""
    owners = [e["environment"] for e in inputs.view.entries if e["entry"] == "spawn" and e["kind"] != "git"]
    first = owners[0] if owners else {}
    assert isinstance(first, dict)
    fixed = {k: v for k, v in first.items() if all(isinstance(o, dict) and o.get(k) == v for o in owners)}
    return {"environmentPath": inputs.experiment.environment_path, "variables": list(first), "fixed": fixed}


def _state(extras: dict[str, object]) -> dict[str, object]:
    before, after = extras["stateBefore"], extras["stateAfter"]
    assert isinstance(before, dict) and isinstance(after, dict)
    return {
        "gitIndexSha256": {"before": before["gitIndexSha256"], "after": after["gitIndexSha256"]},
        "gitIndexChanged": extras["gitIndexChanged"],
        "lsFilesStageSha256": {"before": before["lsFilesStageSha256"], "after": after["lsFilesStageSha256"]},
        "statusIgnored": {"before": before["statusIgnored"], "after": after["statusIgnored"]},
    }


def _repositories(inputs: RecordInputs) -> list[dict[str, object]]:
    found = []
    for built, validated in zip(inputs.repositories, inputs.validated.repositories, strict=True):
        entry = inputs.review.entries[built.repository.id]
        found.append(
            {
                "id": built.repository.id,
                "commit": built.repository.commit,
                "attemptFolder": built.folder,
                "rawSha256": built.raw_sha256,
                "itemCount": validated.item_count,
                "trackedPathCount": validated.preparation.tracked_path_count,
                "metadataPresentCount": validated.present_count,
                "sourceListEligible": validated.source_list_eligible,
                "staleness": {
                    "rule": inputs.experiment.staleness_rule,
                    "sampled": built.sampled,
                    "stale": sorted(entry.stale, key=lambda p: p.encode("utf-8")),
                    "reviewer": entry.reviewer,
                },
                "state": _state(_extras(inputs, built.folder)),
            }
        )
    return found


def _cost(extras: dict[str, object]) -> dict[str, object]:
    run = extras["sci"]
    assert isinstance(run, dict)
    keys = ("durationNs", "stdoutBytes", "stdoutTokensCeil4", "stderrBytes", "stderrTokensCeil4", "orphans")
    return {key: run[key] for key in keys}


def _case(inputs: RecordInputs, expectation: Expectation, validated: object) -> dict[str, object]:
    case, attempt = expectation.case, expectation.attempt
    structural = getattr(validated, "structural", None)
    entry: dict[str, object] = {
        "id": case.id,
        "repositoryId": case.repository,
        "sci": case.sci is not None,
        "attempt": None
        if attempt is None
        else {"folder": attempt.folder, "number": attempt.number, "outcome": attempt.outcome, "rule": attempt.rule},
        "structuralAvailable": structural is not None,
        "structuralFailure": getattr(validated, "structural_failure", None),
        "nullBundle": expectation.why,
    }
    if attempt is not None:
        extras = _extras(inputs, attempt.folder)
        access = extras["fileAccess"]
        entry["fileAccess"] = access
        entry["asserted"] = isinstance(access, dict) and access.get("mode") == "asserted"
        entry["state"] = _state(extras)
        entry["cleanup"] = extras["cleanup"]
        entry["cost"] = _cost(extras)
    return entry


def _counts(inputs: RecordInputs) -> dict[str, object]:
    validated = inputs.validated
    available = sum(1 for c in validated.cases if c.structural is not None)
    return {
        "repositories": len(validated.repositories),
        "sourceListEligible": sum(1 for r in validated.repositories if r.source_list_eligible),
        "cases": len(validated.cases),
        "casesWithSci": sum(1 for c in inputs.experiment.cases if c.sci is not None),
        "structuralAvailable": available,
        "structuralUnavailable": len(validated.cases) - available,
        "assertedNotTraced": sum(1 for e in inputs.expectations if e.attempt is not None and _asserted(inputs, e)),
    }


def _asserted(inputs: RecordInputs, expectation: Expectation) -> bool:
    assert expectation.attempt is not None
    access = _extras(inputs, expectation.attempt.folder)["fileAccess"]
    return isinstance(access, dict) and access.get("note") == ASSERTED


def preparation_record(inputs: RecordInputs) -> dict[str, object]:
    """The record's value (module docstring), members in order."""
    experiment, view = inputs.experiment, inputs.view
    first = view.captures()[0]
    events = ledger_events(view)
    return {
        "schema": SCHEMA,
        "experiment": {
            "id": experiment.id,
            "sha256": experiment.sha256,
            "authority": experiment.authority,
            "workRoot": experiment.work_root,
            "environmentPath": experiment.environment_path,
            "casesReviewSha256": first["casesReviewSha256"],
        },
        "prepare": {"program": version_text("ablation-prepare"), "identityDigest": inputs.identity_digest},
        "prepared": inputs.prepared,
        "stalenessReview": {
            "sha256": inputs.review.sha256,
            "sheetSha256": inputs.sheet_sha256,
            "repositories": [
                {"id": e.id, "reviewer": e.reviewer, "decision": e.decision, "stale": list(e.stale)}
                for e in inputs.review.entries.values()
            ],
        },
        "tools": _tools(inputs),
        "environment": _environment(inputs),
        "captures": [
            {k: e[k] for k in ("invocation", "prepare", "fileAccess", "allowUnavailableStructural", "resume", "retry")}
            for e in view.captures()
        ],
        "steps": steps_record(plan_steps(experiment), view),
        "repositories": _repositories(inputs),
        "cases": [_case(inputs, e, v) for e, v in zip(inputs.expectations, inputs.validated.cases, strict=True)],
        **events,
        "unrecordedFiles": list(inputs.unrecorded),
        "superseded": inputs.superseded,
        "warnings": inputs.warnings,
        "seedTruthOverlaps": inputs.overlaps,
        "counts": _counts(inputs),
        "limitations": list(LIMITATIONS),
    }
