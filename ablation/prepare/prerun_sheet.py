"""``pre-run-sheet.md``: what the integrity reviewer reads before writing ``pre-run-review.toml``.

A pure function of the preparation record and the SHA-256 of D's files:
every hash, the counts, per repository its sample, per case its structural
availability and file-access evidence ("indexRead / indexBuilt asserted, not
traced" in assertion mode), every retry, failed and superseded attempt, every
request-file reuse, every changed ``.git/index`` hash, the warnings, and the
statement that no ranking was computed. What the review must name
(``pre_review_manifest_sha256``, ``evaluator_identity_digest``) is said at the
top. Every value from the experiment, a repository or an owner is rendered inert
(:mod:`ablation.notes.markdown`).

Spec: PREPARE.md §6 item 3, §3 ("pre-run-review.toml"); §11 criteria 24, 25.
"""

from __future__ import annotations

from collections.abc import Mapping

from ablation.notes.markdown import _code, _table, _text
from ablation.prepare.capture_sci import ASSERTED
from ablation.prepare.manifest import PRE_REVIEW

__all__ = ["PRE_RUN_SHEET", "render_pre_run_sheet"]

PRE_RUN_SHEET = "pre-run-sheet.md"
_NONE = "- none"


def _dicts(value: object) -> list[dict[str, object]]:
    assert isinstance(value, list)
    return [v for v in value if isinstance(v, dict)]


def _get(value: object, *keys: str) -> object:
    for key in keys:
        assert isinstance(value, dict)
        value = value[key]
    return value


def _head(record: Mapping[str, object], hashes: Mapping[str, str]) -> list[str]:
    experiment = record["experiment"]
    lines = [
        f"# Pre-run sheet: {_code(_get(experiment, 'id'), cell=False)}",
        "",
        "For the integrity reviewer, before the experiment is frozen. **No ranking computed**: `assemble`",
        "ran the evaluator's validation only (no selection, no metrics).",
        "",
        "The pre-run review (`pre-run-review.toml`: `decision`, `reviewer`, `pre_review_manifest_sha256`,",
        "`evaluator_identity_digest`, `ranking_executed = false`, `notes`) names the SHA-256 of",
        f"`{PRE_REVIEW}` (written last; it lists every file below) and the `identityDigest` that",
        "`ablation identity` prints in the environment that will run the experiment.",
        "",
        "## Hashes",
        "",
    ]
    rows = [[_code(name), f"`{sha}`"] for name, sha in hashes.items()]
    return lines + _table(["file", "SHA-256"], rows)


def _repositories(record: Mapping[str, object]) -> list[str]:
    lines = ["", "## Repositories", ""]
    for repo in _dicts(record["repositories"]):
        staleness, state = repo["staleness"], repo["state"]
        stale = _get(staleness, "stale")
        assert isinstance(stale, list)
        eligible = (
            "source-list eligible" if repo["sourceListEligible"] else "source-list ineligible: coverage below 60 %"
        )
        lines += [
            f"- {_code(repo['id'], cell=False)} at `{repo['commit']}`: {repo['itemCount']} items, "
            f"{repo['trackedPathCount']} tracked paths, {repo['metadataPresentCount']} metadata-present, {eligible}; "
            f"source-list artifact `{repo['rawSha256']}`",
            f"  - staleness sample: {len(_dicts_or_list(_get(staleness, 'sampled')))} sampled, {len(stale)} stale, "
            f"reviewed by {_text(_get(staleness, 'reviewer'))}",
            f"  - `.git/index` {'changed' if _get(state, 'gitIndexChanged') else 'unchanged'} by source-list",
        ]
    return lines


def _count(n: object, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def _overlaps(record: Mapping[str, object]) -> list[str]:
    lines = ["", "## Seed/truth overlaps", ""]
    for o in _dicts(record["seedTruthOverlaps"]):
        how = "is the truth path" if o["exact"] else "is a folder holding the truth path"
        lines.append(
            f"- {_code(o['case'], cell=False)}: path seed {_code(o['seed'], cell=False)} {how} "
            f"{_code(o['truth'], cell=False)}"
        )
    return lines if len(lines) > 3 else [*lines, _NONE]


def _dicts_or_list(value: object) -> list[object]:
    assert isinstance(value, list)
    return value


def _cases(record: Mapping[str, object]) -> list[str]:
    rows = []
    for case in _dicts(record["cases"]):
        if case["structuralAvailable"]:
            structural = "available"
        else:
            failure = str(case["structuralFailure"] or "")
            structural = "unavailable: " + _text(failure.split(":", 1)[-1].split(" ", 1)[0])
        access = "no SCI run" if not case["sci"] else ASSERTED if case.get("asserted") else "traced"
        state = case.get("state")
        index = "—" if state is None else "changed" if _get(state, "gitIndexChanged") else "unchanged"
        rows.append([_code(case["id"]), _code(case["repositoryId"]), structural, _text(access), index])
    header = ["case", "repository", "structural evidence", "file access", "`.git/index`"]
    return ["", "## Cases", "", *_table(header, rows)]


def _event_lines(title: str, entries: list[dict[str, object]], render: str) -> list[str]:
    lines = ["", f"## {title}", ""]
    if not entries:
        return [*lines, _NONE]
    return lines + ["- " + render.format(**{k: _text(v) for k, v in e.items()}) for e in entries]


def _attempts(record: Mapping[str, object]) -> list[str]:
    reused = [e for e in _dicts(record["requestFiles"]) if e["reused"]]
    lines = _event_lines("Retries", _dicts(record["retries"]), "{step} attempt {attempt}: {reason}")
    lines += _event_lines(
        "Failed and open attempts", _dicts(record["failedAttempts"]), "{step} attempt {attempt}: {outcome} {rule}"
    )
    lines += _event_lines("Request files reused", reused, "{step} attempt {attempt}: {file} (sha256 {sha256})")
    superseded = record["superseded"]
    lines += ["", "## Superseded preparation", ""]
    if superseded is None:
        lines.append(_NONE)
    else:
        lines.append(
            f"- {_code(_get(superseded, 'dir'), cell=False)}: ledger `{_get(superseded, 'ledgerSha256')}`, "
            f"experiment `{_get(superseded, 'experimentSha256')}`"
        )
        for e in _dicts(_get(superseded, "attempts")):
            lines.append(f"  - {_text(e['step'])} attempt {e['attempt']}: {_text(e['outcome'])} {_text(e['rule'])}")
    unrecorded = _dicts_or_list(record["unrecordedFiles"])
    lines += ["", "## Files of failed attempts the ledger does not record", ""]
    lines += [f"- {_code(f, cell=False)}" for f in unrecorded] or [_NONE]
    return lines


def _index_changes(record: Mapping[str, object]) -> list[str]:
    lines = ["", "## Changed `.git/index` hashes", ""]
    for kind, key in (("repositories", "id"), ("cases", "id")):
        for entry in _dicts(record[kind]):
            state = entry.get("state")
            if state is not None and _get(state, "gitIndexChanged"):
                before, after = _get(state, "gitIndexSha256", "before"), _get(state, "gitIndexSha256", "after")
                lines.append(
                    f"- {kind[:-1] if kind == 'cases' else 'repository'} {_code(entry[key], cell=False)}: "
                    f"`{before}` → `{after}` (recorded; not a failure)"
                )
    return lines if len(lines) > 3 else [*lines, _NONE]


def render_pre_run_sheet(record: Mapping[str, object], hashes: Mapping[str, str]) -> str:
    """The sheet's Markdown (ends with one line feed).

    Args:
        record: the preparation record (:func:`ablation.prepare.record.preparation_record`).
        hashes: file name → SHA-256 of the files the sheet lists, in the order shown.
    """
    counts = record["counts"]
    assert isinstance(counts, dict)
    lines = _head(record, hashes)
    lines += [
        "",
        "## Counts",
        "",
        f"- {_count(counts['repositories'], 'repository', 'repositories')} ({counts['sourceListEligible']} "
        f"source-list eligible), {_count(counts['cases'], 'case')}, {counts['casesWithSci']} with SCI; "
        "structural evidence available for "
        f"{counts['structuralAvailable']}, unavailable for {counts['structuralUnavailable']}",
        f"- file access asserted, not traced, for {_count(counts['assertedNotTraced'], 'case')}",
    ]
    lines += _repositories(record) + _cases(record) + _attempts(record) + _index_changes(record) + _overlaps(record)
    warnings = _dicts_or_list(record["warnings"])
    lines += ["", "## Warnings", "", *([f"- {_code(w, cell=False)}" for w in warnings] or [_NONE])]
    limits = _dicts_or_list(record["limitations"])
    lines += ["", "## Limits", "", *[f"- {_text(item)}" for item in limits]]
    return "\n".join(lines) + "\n"
