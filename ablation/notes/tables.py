"""The repository, population and per-repository sections of the review notes."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from ablation.notes.charts import _chart, _chart_labels
from ablation.notes.figures import _ARMS, _TREATMENTS, _approx, _delta, _get, _MacroRates, _Rates, _reduction, _Results
from ablation.notes.markdown import _NONE, _code, _name, _repositories_text, _table, _value


def _repositories(r: _Results) -> list[str]:
    rows = []
    pins = []
    for repo in r.repositories:
        items = repo.get("candidateCount")
        present = repo.get("metadataPresentCount")
        coverage = Fraction(present, items) if isinstance(items, int) and isinstance(present, int) and items else None
        rows.append(
            [
                _name(repo.get("id")),
                _code(repo.get("commit")),
                _value(items),
                _value(repo.get("trackedPathCount")),
                _value(present),
                _approx(coverage),
                "yes" if repo.get("sourceListEligible") else "no (ineligible control)",
                str(r.cases_of(repo.get("id"))),
            ]
        )
        pins.append(
            [
                _name(repo.get("id")),
                _code(repo.get("rawSourceListArtifactSha256")),
                _code(repo.get("sourceListPreparationObservationDigest")),
                _code(repo.get("sourceListRevision")),
                _code(repo.get("sourceListExecutableArtifactSha256")),
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
    availability = r.result.get("availability")
    rows = []
    for arm in _ARMS:
        counts = _get(availability, arm)
        rows.append([f"`{arm}`", *(_value(_get(counts, k)) for k in ("eligible", "available", "unavailable"))])
    pop_rows = []
    for treatment in _TREATMENTS:
        pairwise = _get(r.result, "pairwise", treatment)
        pop_rows.append(_population_row(f"paths ∩ `{treatment}`", pairwise))
    pop_rows.append(_population_row("all four arms", r.result.get("allFour")))
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


def _population_row(label: str, population: object) -> list[str]:
    d = _get(population, "denominators")
    macro = _get(population, "equalRepositoryMacro", "repositoryCount")
    return [
        label,
        *(
            _value(_get(d, k))
            for k in ("eligibleRepositoryCount", "availableRepositoryCount", "eligibleCaseCount", "availableCaseCount")
        ),
        _value(macro),
    ]


def _pairwise(r: _Results, treatment: str, labels: Mapping[str, str]) -> list[str]:
    pairwise = _get(r.result, "pairwise", treatment)
    per_repository = _get(pairwise, "perRepository")
    per_repository = per_repository if isinstance(per_repository, dict) else {}
    lines = [f"### paths vs `{treatment}`", ""]
    rows = []
    means: list[tuple[_Rates, _Rates]] = []
    charted: list[tuple[str, _Rates, _Rates]] = []
    for repo_id, entry in per_repository.items():
        case_ids = _get(entry, "caseIds")
        base, other = r.rates(case_ids, "paths"), r.rates(case_ids, treatment)
        if base.cases:
            means.append((base, other))
            charted.append((labels[repo_id], base, other))
        rows.append(_pairwise_row(_name(repo_id), base, other))
    if not means:
        eligible = _get(pairwise, "denominators", "eligibleCaseCount")
        lines.append(
            f"No case is available for both `paths` and `{treatment}` ({_value(eligible)} eligible cases): "
            "the population is empty and there is nothing to compare."
        )
        return lines
    macro = _MacroRates([b for b, _ in means]), _MacroRates([o for _, o in means])
    rows.append(_pairwise_row(f"**equal-repository mean** ({_repositories_text(len(means))})", *macro))
    lines += [*_chart(treatment, charted), "", "The authority, exact:", ""]
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


def _pairwise_row(label: str, base: _Rates | _MacroRates, other: _Rates | _MacroRates) -> list[str]:
    if not base.cases:
        return [label, "0", *([_NONE] * 10)]
    return [
        label,
        str(base.cases),
        _approx(base.precision),
        _approx(other.precision),
        _approx(_delta(base.precision, other.precision)),
        _approx(base.recall),
        _approx(other.recall),
        _approx(base.unnecessary),
        _approx(other.unnecessary),
        _reduction(base.unnecessary, other.unnecessary),
        _approx(base.omissions),
        _approx(other.omissions),
    ]


def _all_four(r: _Results) -> list[str]:
    population = r.result.get("allFour")
    per_repository = _get(population, "perRepository")
    per_repository = per_repository if isinstance(per_repository, dict) else {}
    lines = ["### All four arms (the all-four eligible-and-available intersection)", ""]
    rows = []
    by_arm: dict[str, list[_Rates]] = {arm: [] for arm in _ARMS}
    for repo_id, entry in per_repository.items():
        case_ids = _get(entry, "caseIds")
        for arm in _ARMS:
            rates = r.rates(case_ids, arm)
            if rates.cases:
                by_arm[arm].append(rates)
                rows.append(
                    [
                        _name(repo_id),
                        f"`{arm}`",
                        str(rates.cases),
                        _approx(rates.precision),
                        _approx(rates.recall),
                        _approx(rates.unnecessary),
                        _approx(rates.omissions),
                    ]
                )
    if not rows:
        eligible = _get(population, "denominators", "eligibleCaseCount")
        lines.append(
            f"No case is available in all four arms ({_value(eligible)} eligible cases): the all-four "
            "intersection is empty."
        )
        return lines
    for arm in _ARMS:
        macro = _MacroRates(by_arm[arm])
        rows.append(
            [
                f"**equal-repository mean** ({_repositories_text(len(by_arm[arm]))})",
                f"`{arm}`",
                str(macro.cases),
                _approx(macro.precision),
                _approx(macro.recall),
                _approx(macro.unnecessary),
                _approx(macro.omissions),
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
    for treatment in _TREATMENTS:
        lines += ["", *_pairwise(r, treatment, labels)]
    lines += ["", *_all_four(r)]
    return lines
