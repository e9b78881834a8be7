"""Checks of the ``[[case]]`` tables that need no repository: texts, seeds, identities, requests, counts.

Each check names the SPEC rule the prepared input would break (CASE-3 …
CASE-19, REQ-2 … REQ-18); a text refused for not being ``Normalized`` (a
question, a ``language`` or ``pattern`` seed, never a path seed) is shown in its
normalised form. The intent signature of every case whose question passes
CASE-5 and CASE-11 is computed here, by the evaluator's own functions
(``D(identity_tokens(question))``, SPEC §3.4), and returned for ``check`` to print.

Spec: PREPARE.md §3 checks 3–8; SPEC.md §4.7, §4.9.
"""

from __future__ import annotations

from dataclasses import dataclass

from ablation.canonical import canonical_digest
from ablation.contracts.base import show
from ablation.contracts.cases import MIN_CASES_PER_REPOSITORY
from ablation.contracts.source_list_items import DEFAULT_EXTENSIONS
from ablation.prepare.check_values import normalized_expected
from ablation.prepare.experiment_file import Case, Experiment, SciSeeds
from ablation.prepare.findings import Findings
from ablation.prepare.requests import build_request, request_problem
from ablation.prepare.tomltext import where
from ablation.text import extname, identity_tokens, is_nbtext, is_normalized, is_portable, is_safe_path

__all__ = ["MAX_PATH_SEEDS", "CaseIdentities", "check_cases", "has_default_extension"]

MAX_PATH_SEEDS = 254
"""REQ-3 allows 256 seeds; two of them are ``seed:language`` and ``seed:pattern``."""

_EXTENSIONS = frozenset(DEFAULT_EXTENSIONS)


def has_default_extension(path: str) -> bool:
    """``lower(extname(path))`` is one of SL-10's default extensions (SPEC §9.9)."""
    return extname(path).lower() in _EXTENSIONS


@dataclass(frozen=True, slots=True)
class CaseIdentities:
    """What the case checks computed: each case's intent signature (index → digest) and SCI request."""

    intents: dict[int, str]
    requests: dict[int, dict[str, object]]


def _check_question(case: Case, findings: Findings) -> str | None:
    """CASE-5, CASE-11; the intent signature when both hold."""
    at = where("case", case.index, "question")
    if not is_nbtext(case.question, 4000):
        findings.error("CASE-5", at, "a Normalized NBText(4000)", show(case.question))
        return None
    if not is_normalized(case.question):
        findings.error(
            "CASE-5", at, normalized_expected("a Normalized NBText(4000)", case.question), show(case.question)
        )
        return None
    tokens = identity_tokens(case.question)
    if not tokens:
        findings.error("CASE-11", at, "at least one identity token (SPEC §5.1)", "none")
        return None
    return canonical_digest(tokens)


def _check_truth(case: Case, findings: Findings) -> None:
    """CASE-8 (the lower bound), CASE-9, and CASE-10 as far as the file alone decides it."""
    if case.max_items < 1:
        findings.error(
            "CASE-8", where("case", case.index, "max_items"), "an integer of at least 1", show(case.max_items)
        )
    if not case.truth:
        findings.error(
            "CASE-9", where("case", case.index, "truth"), "an array with at least one path", "an empty array"
        )
        return
    seen: dict[str, int] = {}
    for k, path in enumerate(case.truth):
        at = where("case", case.index, "truth", k)
        if not is_safe_path(path):
            findings.error("CASE-10", at, "a SafePath (the path of an item)", show(path))
        elif not has_default_extension(path):
            findings.error("CASE-10", at, "a path with a default extension (only those are items)", show(path))
        elif seen.setdefault(path, k) != k:
            findings.error(
                "CASE-10",
                at,
                "a path not listed before",
                f"the same as {where('case', case.index, 'truth', seen[path])}",
            )


def _check_text_seed(case_index: int, key: str, value: str, findings: Findings) -> bool:
    """REQ-7 and REQ-9 on the ``language`` or ``pattern`` seed."""
    at = where("case", case_index, "sci", key)
    if not (is_nbtext(value, 4096) and is_portable(value)):
        findings.error("REQ-7", at, "a Portable NBText(4096)", show(value))
        return False
    if not is_normalized(value):
        findings.error("REQ-9", at, normalized_expected("a Normalized text seed", value), show(value))
        return False
    return True


def _check_seeds(case: Case, sci: SciSeeds, findings: Findings) -> bool:
    """REQ-2 (the question of an SCI case is Portable), REQ-7, REQ-9, REQ-3, REQ-8; whether all hold."""
    ok = True
    if not is_portable(case.question):
        findings.error(
            "REQ-2",
            where("case", case.index, "question"),
            "a Portable question (it is sent to SCI)",
            show(case.question),
        )
        ok = False
    ok = _check_text_seed(case.index, "language", sci.language, findings) and ok
    ok = _check_text_seed(case.index, "pattern", sci.pattern, findings) and ok
    if len(sci.paths) > MAX_PATH_SEEDS:
        expected = f"at most {MAX_PATH_SEEDS} path seeds (REQ-3 allows 256 seeds; two are language and pattern)"
        findings.error("REQ-3", where("case", case.index, "sci", "paths"), expected, f"{len(sci.paths)} path seeds")
        return False
    for k, path in enumerate(sci.paths):
        at = where("case", case.index, "sci", "paths", k)
        if not (is_nbtext(path, 4096) and is_portable(path)):
            findings.error("REQ-7", at, "a Portable NBText(4096)", show(path))
            ok = False
        elif not is_safe_path(path):
            findings.error("REQ-8", at, "a SafePath (path seeds are never normalised)", show(path))
            ok = False
    return ok


def _check_one(case: Case, experiment: Experiment, findings: Findings, found: CaseIdentities) -> None:
    if not is_nbtext(case.id, 128):
        findings.error("CASE-3", where("case", case.index, "id"), "an NBText(128)", show(case.id))
    if experiment.repository(case.repository) is None:
        declared = ", ".join(show(r.id) for r in experiment.repositories)
        findings.error(
            "CASE-4",
            where("case", case.index, "repository"),
            f"the id of a declared repository ({declared})",
            show(case.repository),
        )
    intent = _check_question(case, findings)
    if intent is not None:
        found.intents[case.index] = intent
    _check_truth(case, findings)
    if case.sci is None or intent is None:
        return
    if _check_seeds(case, case.sci, findings):
        request = build_request(case, experiment.limits)
        problem = request_problem(case.index, request)
        if problem is not None:
            findings.items.append(problem)
        else:
            found.requests[case.index] = request


def _check_unique(experiment: Experiment, found: CaseIdentities, findings: Findings) -> None:
    """CASE-17 (ids), CASE-15 (intent signatures per repository), CASE-16 (truth sets per repository)."""
    ids: dict[str, int] = {}
    intents: dict[tuple[str, str], int] = {}
    truths: dict[tuple[str, tuple[str, ...]], int] = {}
    for case in experiment.cases:
        c = case.index
        if ids.setdefault(case.id, c) != c:
            findings.error(
                "CASE-17",
                where("case", c, "id"),
                "a case id unique in the experiment",
                f"the id of {where('case', ids[case.id])}",
            )
        intent = found.intents.get(c)
        if intent is not None and intents.setdefault((case.repository, intent), c) != c:
            first = intents[(case.repository, intent)]
            expected = f"an intent signature unique in {show(case.repository)}"
            found_text = f"the intent signature of {where('case', first)} ({intent})"
            findings.error("CASE-15", where("case", c, "question"), expected, found_text)
        basis = (case.repository, tuple(sorted(case.truth)))
        if case.truth and truths.setdefault(basis, c) != c:
            expected = f"a truth set unique in {show(case.repository)}"
            findings.error(
                "CASE-16", where("case", c, "truth"), expected, f"the truth set of {where('case', truths[basis])}"
            )


def _check_counts(experiment: Experiment, findings: Findings) -> None:
    """CASE-19: every declared repository has at least 10 cases."""
    for repo in experiment.repositories:
        count = sum(1 for case in experiment.cases if case.repository == repo.id)
        if count < MIN_CASES_PER_REPOSITORY:
            expected = f"at least {MIN_CASES_PER_REPOSITORY} cases for {show(repo.id)}"
            findings.error(
                "CASE-19", where("repository", repo.index), expected, f"{count} case{'' if count == 1 else 's'}"
            )


def check_cases(experiment: Experiment, findings: Findings) -> CaseIdentities:
    """Every check of the cases that needs no repository (PREPARE.md §3 checks 1, 3–8).

    Per case, in order: CASE-3, CASE-4, CASE-5, CASE-11, CASE-8, CASE-9,
    CASE-10 (safe, default extension, distinct), then for ``[case.sci]`` REQ-2,
    REQ-7/REQ-9 (language, pattern), REQ-3, REQ-7/REQ-8 (each path seed) and the
    whole request through the evaluator's request contract (REQ-1 … REQ-18).
    Then CASE-17, CASE-15, CASE-16 across the cases and CASE-19 per repository.

    Returns:
        The intent signature of each case whose question passed, and the
        request of each SCI case whose request passed.
    """
    found = CaseIdentities(intents={}, requests={})
    for case in experiment.cases:
        _check_one(case, experiment, findings, found)
    _check_unique(experiment, found, findings)
    _check_counts(experiment, findings)
    return found
