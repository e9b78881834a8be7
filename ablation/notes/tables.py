"""The repository, population and per-repository sections of the review notes."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from ablation.notes.charts import _chart_labels, _charts
from ablation.notes.figures import _approx, _delta, _reduction, _Results, _shown
from ablation.notes.markdown import _NONE, _code, _name, _repositories_text, _table
from ablation.rates import RepositoryRates, equal_repository_rates
from ablation.recorded.result import AllFourPopulation, PairPopulation
from ablation.result import TREATMENTS
from ablation.selection import ARMS


def _repositories(r: _Results) -> list[str]:
    rows = []
    pins = []
    for repo in r.repositories:
        items, present = repo.candidate_count, repo.metadata_present_count
        coverage = Fraction(present, items) if items else None
        rows.append(
            [
                _name(repo.id),
                _code(repo.commit),
                str(items),
                str(repo.tracked_path_count),
                str(present),
                _approx(coverage),
                "yes" if repo.source_list_eligible else "no (ineligible control)",
                str(r.cases_of(repo.id)),
            ]
        )
        pins.append(
            [
                _name(repo.id),
                _code(repo.raw_source_list_artifact_sha256),
                _code(repo.preparation_observation_digest),
                _code(repo.source_list_revision),
                _code(repo.source_list_executable_sha256),
            ]
        )
    return [
        "## Repositories",
        "",
        *_table(
            [
                "Repository",
                "Commit",
                "Candidates",
                "Tracked paths",
                "Metadata present",
                "Coverage (exact)",
                "source_list eligible (≥ 3/5)",
                "Cases",
            ],
            rows,
        ),
        "",
        "Owner-artifact digests and pins as recorded in the prepared input (claims, not authenticated):",
        "",
        *_table(
            [
                "Repository",
                "Raw source-list artifact",
                "Preparation observation",
                "source-list revision",
                "source-list executable",
            ],
            pins,
        ),
    ]


def _populations(r: _Results) -> list[str]:
    rows = []
    for arm in ARMS:
        counts = r.result.availability.get(arm)
        shown = (
            [_NONE] * 3 if counts is None else [str(counts.eligible), str(counts.available), str(counts.unavailable)]
        )
        rows.append([f"`{arm}`", *shown])
    pop_rows = []
    for treatment in TREATMENTS:
        pairwise = r.result.pairwise.get(treatment)
        pop_rows.append(_population_row(f"paths ∩ `{treatment}`", pairwise))
    pop_rows.append(_population_row("all four arms", r.result.all_four))
    return [
        "## Populations and denominators",
        "",
        "Arm availability over all cases:",
        "",
        *_table(["Arm", "Eligible cases", "Available cases", "Unavailable cases"], rows),
        "",
        "Each treatment is compared with `paths` only on the cases where both are eligible and available; "
        "the all-four intersection is reported separately. Denominators as recorded in `result`:",
        "",
        *_table(
            [
                "Population",
                "Eligible repositories",
                "Available repositories",
                "Eligible cases",
                "Available cases",
                "Repositories in the equal-repository mean",
            ],
            pop_rows,
        ),
    ]


def _population_row(label: str, population: PairPopulation | AllFourPopulation | None) -> list[str]:
    if population is None:
        return [label, *([_NONE] * 5)]
    d = population.denominators
    counts = (d.eligible_repository_count, d.available_repository_count, d.eligible_case_count, d.available_case_count)
    return [label, *(str(n) for n in counts), str(population.macro.repository_count)]


def _pairwise(r: _Results, treatment: str, labels: Mapping[str, str]) -> list[str]:
    pairwise = r.result.pairwise.get(treatment)
    per_repository = {} if pairwise is None else pairwise.per_repository
    lines = [f"### paths vs `{treatment}`", ""]
    rows = []
    means: list[tuple[RepositoryRates, RepositoryRates | None]] = []
    charted: list[tuple[str, RepositoryRates, RepositoryRates | None]] = []
    for repo_id, entry in per_repository.items():
        base, other = r.rates(entry.case_ids, "paths"), r.rates(entry.case_ids, treatment)
        if base is not None:
            means.append((base, other))
            charted.append((labels[repo_id], base, other))
        rows.append(_pairwise_row(_name(repo_id), base, other))
    if not means:
        eligible = _NONE if pairwise is None else str(pairwise.denominators.eligible_case_count)
        lines.append(
            f"No case is available for both `paths` and `{treatment}` ({eligible} eligible cases): "
            "the population is empty and there is nothing to compare."
        )
        return lines
    # A treatment without metrics in a repository (never written by ``run``) is left out of its mean.
    macro = (
        equal_repository_rates([b for b, _ in means]),
        equal_repository_rates([o for _, o in means if o is not None]),
    )
    rows.append(_pairwise_row(f"**equal-repository mean** ({_repositories_text(len(means))})", *macro))
    lines += [*_charts(treatment, charted), "", "The authority, exact:", ""]
    lines += _table(
        [
            "Repository",
            "Cases",
            "Precision paths",
            f"Precision {treatment}",
            "Δ precision",
            "Recall paths",
            f"Recall {treatment}",
            "Unnecessary/case paths",
            f"Unnecessary/case {treatment}",
            "Unnecessary reduction",
            "Omissions/case paths",
            f"Omissions/case {treatment}",
        ],
        rows,
    )
    return lines


def _pairwise_row(label: str, base: RepositoryRates | None, other: RepositoryRates | None) -> list[str]:
    if base is None:
        return [label, "0", *([_NONE] * 10)]
    precision, recall, unnecessary, omissions = _shown(other)
    return [
        label,
        str(base.cases),
        _approx(base.precision),
        _approx(precision),
        _approx(_delta(base.precision, precision)),
        _approx(base.recall),
        _approx(recall),
        _approx(base.unnecessary_per_case),
        _approx(unnecessary),
        _reduction(base.unnecessary_per_case, unnecessary),
        _approx(base.omissions_per_case),
        _approx(omissions),
    ]


def _all_four(r: _Results) -> list[str]:
    population = r.result.all_four
    per_repository = population.per_repository
    lines = ["### All four arms (the all-four eligible-and-available intersection)", ""]
    rows = []
    by_arm: dict[str, list[RepositoryRates]] = {arm: [] for arm in ARMS}
    for repo_id, entry in per_repository.items():
        for arm in ARMS:
            rates = r.rates(entry.case_ids, arm)
            if rates is not None:
                by_arm[arm].append(rates)
                rows.append(
                    [
                        _name(repo_id),
                        f"`{arm}`",
                        str(rates.cases),
                        _approx(rates.precision),
                        _approx(rates.recall),
                        _approx(rates.unnecessary_per_case),
                        _approx(rates.omissions_per_case),
                    ]
                )
    if not rows:
        eligible = population.denominators.eligible_case_count
        lines.append(
            f"No case is available in all four arms ({eligible} eligible cases): the all-four intersection is empty."
        )
        return lines
    for arm in ARMS:
        macro = equal_repository_rates(by_arm[arm])
        rows.append(
            [
                f"**equal-repository mean** ({_repositories_text(len(by_arm[arm]))})",
                f"`{arm}`",
                str(0 if macro is None else macro.cases),
                *(_approx(value) for value in _shown(macro)),
            ]
        )
    lines += _table(["Repository", "Arm", "Cases", "Precision", "Recall", "Unnecessary/case", "Omissions/case"], rows)
    return lines


def _per_repository(r: _Results) -> list[str]:
    labels = _chart_labels(r)
    lines = [
        "## Per-repository results",
        "",
        "Exact values from the per-case counts recorded in `result` (precision = hits/selected, recall = "
        "hits/truth, unnecessary and omissions per case), averaged per repository, then with equal weight per "
        "repository. Unnecessary reduction = (paths − treatment) / paths. Each comparison starts with a chart "
        "(Mermaid `xychart-beta`: drawn by forges that render Mermaid, plain text elsewhere); the tables are the "
        "authority. The charts label repositories by index:",
        "",
        *_table(["Chart label", "Repository"], [[f"`{label}`", _name(repo_id)] for repo_id, label in labels.items()]),
    ]
    for treatment in TREATMENTS:
        lines += ["", *_pairwise(r, treatment, labels)]
    lines += ["", *_all_four(r)]
    return lines
