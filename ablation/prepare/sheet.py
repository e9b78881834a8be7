"""``sheet cases``: the case-review sheet, one section per repository, for the cases reviewer.

It shows what the reviewer decides on and nothing that could bias the review:
per case the question, its intent signature, ``max_items``, the truth paths
(tracked at the commit, and how), the SCI seeds and the request file they go to,
the seed/truth overlaps, and every finding of ``check`` at that case; per
repository its source, commit and tracked-path counts; and the experiment file's
SHA-256, which the cases review must repeat. Nothing has run, so there are no
scores and no rankings.

Every value from the experiment file or a repository is rendered inert
(:mod:`ablation.notes.markdown`): a question or a path cannot start a Markdown
construct, break a line or hide text.

Spec: PREPARE.md §2 (``sheet``), §3 ("Review files").
"""

from __future__ import annotations

from ablation.notes.markdown import _code, _text
from ablation.prepare.check_sources import RepositoryView
from ablation.prepare.checks import CheckReport, seed_truth_overlaps
from ablation.prepare.experiment_file import Case, Experiment
from ablation.prepare.findings import Finding
from ablation.prepare.layout import request_path
from ablation.prepare.requests import path_seed_id
from ablation.prepare.tomltext import where

__all__ = ["render_cases_sheet"]

_KINDS = {"120000": "symlink", "160000": "gitlink"}


def _inside(finding: Finding, *parts: str | int) -> bool:
    at = where(*parts)
    return finding.where == at or finding.where.startswith((at + ".", at + "["))


def _finding_lines(findings: list[Finding]) -> list[str]:
    if not findings:
        return ["- findings: none"]
    return ["- findings:"] + [f"  - {f.severity}: {_code(f.line(), cell=False)}" for f in findings]


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _truth_lines(case: Case, view: RepositoryView | None) -> list[str]:
    lines = [f"- truth ({_count(len(case.truth), 'path')}):"]
    for path in case.truth:
        entry = view.tracked.get(path) if view is not None and view.tracked is not None else None
        if view is None or view.tracked is None:
            state = "repository not read"
        elif entry is None:
            state = "**not tracked at the commit**"
        else:
            kind = _KINDS.get(entry.mode, "regular" if entry.mode.startswith("100") else "other")
            state = f"tracked, {kind}"
        lines.append(f"  - {_code(path, cell=False)} ({state})")
    return lines


def _seed_state(seed: str, view: RepositoryView | None) -> str:
    if view is None or view.tracked is None:
        return "repository not read"
    if seed in view.tracked:
        return "a tracked path"
    inside = sum(1 for path in view.tracked if path.startswith(seed + "/"))
    return f"a folder, {_count(inside, 'tracked path')}" if inside else "**not found at the commit**"


def _seed_lines(case: Case, experiment: Experiment, view: RepositoryView | None) -> list[str]:
    if case.sci is None:
        return ["- SCI seeds: none (no `[case.sci]`: no request; the structural and fusion arms will be unavailable)"]
    path = request_path(experiment.work_root, case.index, len(experiment.cases))
    lines = [
        "- SCI seeds:",
        f"  - `seed:language`: {_code(case.sci.language, cell=False)}",
        f"  - `seed:pattern`: {_code(case.sci.pattern, cell=False)}",
    ]
    for k, seed in enumerate(case.sci.paths):
        lines.append(f"  - `{path_seed_id(k)}`: {_code(seed, cell=False)} ({_seed_state(seed, view)})")
    lines.append(f"- request file: {_code(path, cell=False)}")
    overlaps = seed_truth_overlaps(case)
    if not overlaps:
        lines.append("- seed/truth overlaps: none")
        return lines
    lines.append("- seed/truth overlaps:")
    for o in overlaps:
        how = "**is** truth path" if o.exact else "holds truth path"
        lines.append(f"  - `{path_seed_id(o.seed)}` {how} {_code(case.truth[o.truth], cell=False)}")
    return lines


def _case_section(case: Case, report: CheckReport, view: RepositoryView | None) -> list[str]:
    intent = report.identities.intents.get(case.index)
    lines = [
        "",
        f"### {where('case', case.index)} {_code(case.id, cell=False)}",
        "",
        f"- question: {_text(case.question)}",
        f"- intentSignature: {_code(intent, cell=False) if intent else '(none: the question fails a check)'}",
        f"- max_items: {case.max_items}",
    ]
    lines += _truth_lines(case, view)
    lines += _seed_lines(case, report.experiment, view)
    lines += _finding_lines([f for f in report.findings.items if _inside(f, "case", case.index)])
    return lines


def _repository_section(r: int, report: CheckReport) -> list[str]:
    experiment = report.experiment
    repo = experiment.repositories[r]
    view = report.views[r] if r < len(report.views) else None
    cases = [c for c in experiment.cases if c.repository == repo.id]
    if view is not None and view.tracked is not None:
        tracked = f"{_count(len(view.tracked), 'tracked path')}, {view.default_paths()} with a default extension"
        kind = "bare repository" if view.bare else "checkout"
    else:
        tracked, kind = "not read", "not read"
    lines = [
        "",
        f"## {where('repository', r)} {_code(repo.id, cell=False)}",
        "",
        f"- source: {_code(repo.source, cell=False)} ({kind})",
        f"- commit: {_code(repo.commit, cell=False)}",
        f"- at the commit: {tracked}",
        f"- cases: {len(cases)}",
    ]
    lines += _finding_lines([f for f in report.findings.items if _inside(f, "repository", r)])
    for case in cases:
        lines += _case_section(case, report, view)
    return lines


def render_cases_sheet(report: CheckReport) -> str:
    """The case-review sheet as Markdown text (ends with one line feed).

    Cases appear under the repository they name, in the file's order; a case
    naming no declared repository is listed at the end with its findings.
    """
    experiment = report.experiment
    errors, warnings = len(report.findings.errors), len(report.findings.warnings)
    declared = {r.id for r in experiment.repositories}
    lines = [
        f"# Case-review sheet: {_code(experiment.id, cell=False)}",
        "",
        f"- experiment file: {_code(experiment.path, cell=False)}",
        f"- experiment SHA-256: `{experiment.sha256}` (the cases review repeats it as `reviewed_experiment_sha256`)",
        f"- authority: {_text(experiment.authority)}",
        f"- work root: {_code(experiment.work_root, cell=False)}",
        f"- pinned git: {_code(report.git_version or 'did not run', cell=False)}",
        f"- check: {_count(errors, 'error')}, {_count(warnings, 'warning')}"
        + (" (**check refuses this experiment**)" if errors else ""),
        "",
        "Nothing has run: no owner output, no scores, no rankings.",
    ]
    top = [f for f in report.findings.items if not _inside(f, "case") and not _inside(f, "repository")]
    if top:
        lines += ["", "## The experiment file", ""]
        lines += _finding_lines(top)
    for r in range(len(experiment.repositories)):
        lines += _repository_section(r, report)
    orphans = [c for c in experiment.cases if c.repository not in declared]
    if orphans:
        lines += ["", "## Cases naming no declared repository"]
        for case in orphans:
            lines += _case_section(case, report, None)
    return "\n".join(lines) + "\n"
