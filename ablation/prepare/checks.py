"""``check``: every static check of PREPARE.md §3, in one pass, before anything runs.

:func:`read_experiment` reads and loads the file (exit 2 when it cannot be read,
4 when its shape is wrong: PRE-1 … PRE-4). :func:`run_check` then records, in
this order:

1. the file's own values (:mod:`ablation.prepare.check_values`);
2. the cases (:mod:`ablation.prepare.check_cases`), computing every intent signature;
3. seed/truth overlaps (the PRE-25 warning);
4. the tool pins (PRE-20, exit 3), the pinned git's version (PRE-21) and the
   revisions derived from a checkout (PRE-12);
5. the source repositories, read through the audited git helper
   (:mod:`ablation.prepare.check_sources`), when the pinned git may run.

The first error decides the exit code (4, or 3 for a pin), as with
``ablation run``; ``--errors all`` reports every error.

Spec: PREPARE.md §3 ("check performs"), §2 (exit codes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ablation.contracts.base import show
from ablation.output import read_file
from ablation.prepare.check_cases import CaseIdentities, check_cases
from ablation.prepare.check_sources import RepositoryView, check_sources
from ablation.prepare.check_values import check_experiment_values
from ablation.prepare.experiment_file import Case, Experiment, load_experiment
from ablation.prepare.findings import Findings
from ablation.prepare.gitread import MINIMUM_GIT, GitFailed, GitReader, parse_version
from ablation.prepare.pins import check_pins, derive_revision
from ablation.prepare.tomltext import where

__all__ = ["CheckReport", "Overlap", "read_experiment", "run_check", "seed_truth_overlaps", "warn_overlaps"]


@dataclass(frozen=True, slots=True)
class Overlap:
    """A path seed that names a truth path (``exact``) or a folder holding one.

    Attributes:
        seed: the index of the path seed in ``[case.sci].paths``.
        truth: the index of the truth path in ``truth``.
        exact: the seed is the truth path itself (a warning), not a folder holding it.
    """

    seed: int
    truth: int
    exact: bool


def seed_truth_overlaps(case: Case) -> list[Overlap]:
    """Every pair of a path seed and a truth path it names or holds, seeds first, in the file's order."""
    found = []
    for k, seed in enumerate(case.sci.paths if case.sci else ()):
        for j, truth in enumerate(case.truth):
            if truth == seed or truth.startswith(seed + "/"):
                found.append(Overlap(k, j, truth == seed))
    return found


@dataclass(slots=True)
class CheckReport:
    """What ``check`` found and computed.

    Attributes:
        experiment: the loaded file.
        findings: every error and warning, in the order of the checks.
        identities: intent signatures (per case index) and SCI requests that passed.
        git_version: the pinned git's ``git version`` line, when it ran.
        views: what was read of each source repository (empty when the pinned git may not run).
        revisions: the revision derived for each ``revision_from_checkout`` tool (by key).
    """

    experiment: Experiment
    findings: Findings
    identities: CaseIdentities
    git_version: str | None = None
    views: list[RepositoryView] = field(default_factory=list)
    revisions: dict[str, str] = field(default_factory=dict)


def read_experiment(path: str, *, collect_all: bool = False) -> Experiment:
    """Read and load an experiment file (its shape only; :func:`run_check` checks its values).

    Raises:
        UsageError: (exit 2) the file cannot be read.
        PrepareRejected: (exit 4) the first of PRE-1 … PRE-4 found (every one with ``collect_all``).
    """
    data = read_file(path, "experiment file")
    findings = Findings()
    experiment = load_experiment(data, path, findings)
    if experiment is None:
        findings.raise_errors(collect_all=collect_all)
    assert experiment is not None
    return experiment


def _usable_git(experiment: Experiment, report: CheckReport, git_for: Callable[[str], GitReader]) -> GitReader | None:
    """The pinned git, when its pin held and it is 2.32 or later (PRE-21); else ``None``."""
    findings = report.findings
    if any(f.where.startswith("tools.git.") for f in findings.errors):
        return None  # its path, pin or bytes are wrong: it must not run
    git = git_for(experiment.tools["git"].path)
    at = where("tools", "git", "path")
    expected = f"git {MINIMUM_GIT[0]}.{MINIMUM_GIT[1]} or later (an older git ignores GIT_CONFIG_GLOBAL)"
    try:
        text = git.version()
    except GitFailed as exc:
        findings.error("PRE-21", at, expected, exc.why)
        return None
    version = parse_version(text)
    report.git_version = text.strip()
    if version is None or version[:2] < MINIMUM_GIT:
        findings.error("PRE-21", at, expected, show(text.strip()))
        return None
    return git


def _derive_revisions(git: GitReader, experiment: Experiment, report: CheckReport) -> None:
    """PRE-12: each ``revision_from_checkout = true`` tool is tracked and unmodified in a clean checkout."""
    for key, tool in experiment.tools.items():
        if tool.revision_from_checkout is True and tool.revision is None:
            revision, why = derive_revision(git, tool.path)
            if revision is None:
                at = where("tools", key, "revision_from_checkout")
                report.findings.error("PRE-12", at, "a file tracked and unmodified in a clean git checkout", why)
            else:
                report.revisions[key] = revision


def warn_overlaps(experiment: Experiment, findings: Findings) -> None:
    """PRE-25: a path seed that is a truth path (the structural arm would be sent to the answer)."""
    for case in experiment.cases:
        for overlap in seed_truth_overlaps(case):
            if overlap.exact:
                at = where("case", case.index, "sci", "paths", overlap.seed)
                truth = where("case", case.index, "truth", overlap.truth)
                findings.warn("PRE-25", at, "a path seed that names no truth path", f"the truth path {truth}")


def run_check(experiment: Experiment, *, git_for: Callable[[str], GitReader] = GitReader) -> CheckReport:
    """Run every check of PREPARE.md §3 on a loaded experiment; raise nothing for a finding.

    Args:
        experiment: from :func:`read_experiment`.
        git_for: makes the read-only git helper for the pinned git's path (tests pass stubs).

    Returns:
        The report; its findings hold every error and warning.
    """
    findings = Findings()
    check_experiment_values(experiment, findings)
    identities = check_cases(experiment, findings)
    report = CheckReport(experiment, findings, identities)
    warn_overlaps(experiment, findings)
    check_pins(experiment, findings)
    git = _usable_git(experiment, report, git_for)
    if git is not None:
        _derive_revisions(git, experiment, report)
        report.views = check_sources(git, experiment, findings)
    return report
