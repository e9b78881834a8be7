"""The prepared input built from D: every value from the experiment file, the captured bytes or the reviews.

In the order ``assemble`` runs it:

1. :func:`usable_attempts`: every step of the experiment has its usable attempt
   (ASM-3, exit 4: ``capture`` is not complete);
2. :func:`read_repositories`: per repository, the usable ``source-list`` attempt's
   files give ``sourceListArtifact`` (the stdout as strict UTF-8; SL rules by the
   evaluator's :func:`~ablation.contracts.source_list.validate_source_list_artifact`),
   ``sourceListPreparation`` (:func:`ablation.prepare.build.preparation_observation`,
   the exit code from the ledger, the revision the first ``capture`` recorded) and
   the staleness sample's paths (``staleness.rule`` and ``size`` over the
   metadata-present items, :func:`ablation.prepare.build.staleness_pick`);
3. the staleness review is checked against those samples (:mod:`ablation.prepare.staleness_review`);
4. :func:`build_input`: ``metadataStalenessSample`` with the composed ``method``
   (STALE-4: a ``Normalized`` ``NBText(2000)``, refused and never normalised
   otherwise), then every case (:func:`ablation.prepare.build.case_entry`) with its
   bundle from the usable SCI attempt (:func:`ablation.prepare.build_case.case_bundle`),
   ``null`` without ``[case.sci]`` or without a receipt; and for each case what the
   evaluator must find: available exactly when the attempt ``succeeded``, else
   unavailable under the rule the ledger recorded.

Every member is placed in its SPEC ``Closed`` order; the two parsed values
(``expectedRequest``, ``receipt``) keep their texts' member order. Nothing here
writes, spawns or normalises.

Spec: PREPARE.md §4 ("Attempts, resume and retry"), §6; SPEC.md §3.4, §4.1 … §4.12.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass

from ablation.contracts.base import Reporter, show
from ablation.contracts.source_list import validate_source_list_artifact
from ablation.errors import InputRejected
from ablation.experiment import PROTOCOL
from ablation.prepare.build import (
    case_entry,
    preparation_observation,
    read_repository_attempt,
    source_list_artifact,
    staleness_method,
    staleness_pick,
    staleness_sample,
    target_state_members,
)
from ablation.prepare.build_case import case_bundle, read_case_attempt
from ablation.prepare.capture_setup import plan_steps
from ablation.prepare.experiment_file import Case, Experiment, Repository
from ablation.prepare.findings import Finding, PrepareRejected
from ablation.prepare.gates import source_list_where
from ablation.prepare.layout import step_id
from ablation.prepare.ledger import Attempt, LedgerView
from ablation.prepare.staleness_review import StalenessReview
from ablation.prepare.tomltext import where
from ablation.text import is_nbtext, is_normalized

__all__ = [
    "BuiltRepository",
    "CaptureContext",
    "Expectation",
    "build_input",
    "read_repositories",
    "recorded_revisions",
    "usable_attempts",
]

_ARTIFACT = "/repositories/0/sourceListArtifact"


def usable_attempts(experiment: Experiment, view: LedgerView) -> dict[str, Attempt]:
    """Each step's usable attempt, by step id (ASM-3: every step of the experiment has one).

    Raises:
        PrepareRejected: ASM-3 (exit 4), naming the first step without one.
    """
    found = {}
    for step in plan_steps(experiment):
        history = view.history(step.id)
        usable = history.usable
        if usable is None:
            last = history.last
            if last is None:
                state = "no attempt"
            else:
                outcome = last.outcome or "open (capture ended during it)"
                state = f"attempt {last.number} {outcome}" + (f" ({last.rule})" if last.rule else "")
            expected = (
                "a usable attempt (succeeded, or unavailable under --allow-unavailable-structural): capture complete"
            )
            raise PrepareRejected([Finding("ASM-3", step.id, expected, state)])
        found[step.id] = usable
    return found


def recorded_revisions(view: LedgerView) -> dict[str, str]:
    """The revision of ``source_list`` and ``sci`` the first ``capture`` recorded (declared or derived)."""
    tools = view.captures()[0].get("tools")
    found = {}
    for key in ("source_list", "sci"):
        entry = tools.get(key) if isinstance(tools, dict) else None
        revision = entry.get("revision") if isinstance(entry, dict) else None
        if isinstance(revision, str):
            found[key] = revision
    return found


@dataclass(frozen=True, slots=True)
class BuiltRepository:
    """One repository of the input, built from its usable source-list attempt (all but the staleness sample).

    Attributes:
        repository: the ``[[repository]]`` entry.
        folder: the usable attempt's folder, relative to D.
        artifact, preparation: ``sourceListArtifact`` and ``sourceListPreparation``.
        raw_sha256: ``rawSha256``.
        item_count, present_count: items and metadata-present items.
        sampled: the staleness sample's paths, in UTF-8 order.
    """

    repository: Repository
    folder: str
    artifact: dict[str, object]
    preparation: dict[str, object]
    raw_sha256: str
    item_count: int
    present_count: int
    sampled: list[str]


def _exit_code(view: LedgerView, step: str, attempt: int) -> int | None:
    """source-list's exit status as the ledger recorded it for ``attempt`` of ``step``."""
    for entry in view.entries:
        same = entry.get("step") == step and entry.get("attempt") == attempt
        if same and entry["entry"] == "spawn" and entry.get("spawn") == "source-list":
            code = entry.get("exitCode")
            return code if isinstance(code, int) else None
    return None


def _repository(
    experiment: Experiment, repo: Repository, d: tuple[str, str], view: LedgerView, attempt: Attempt
) -> BuiltRepository:
    folder, shown = d
    capture = read_repository_attempt(os.path.join(folder, attempt.folder))
    place = posixpath.join(shown, attempt.folder)
    try:
        artifact = source_list_artifact(capture.stdout)
        checked = validate_source_list_artifact(artifact, _ARTIFACT, Reporter())
    except UnicodeDecodeError as exc:
        where_ = posixpath.join(place, "source-list.stdout")
        raise PrepareRejected(
            [Finding("CAP-15", where_, "strict UTF-8", f"a byte that is not UTF-8 at byte {exc.start}")]
        ) from None
    except InputRejected as exc:
        raise PrepareRejected(
            [Finding(exc.rule, source_list_where(place, exc.where), exc.expected, exc.found)]
        ) from None
    assert checked is not None  # fail-fast: a violation raised
    universe = checked.universe
    present = [p for p, text in zip(universe.paths, universe.metadata_texts, strict=True) if text is not None]
    step = step_id("repo", repo.index, len(experiment.repositories), "source-list")
    preparation = preparation_observation(
        experiment,
        repo.commit,
        revision=recorded_revisions(view)["source_list"],
        raw_sha256=checked.raw_sha256,
        exit_code=_exit_code(view, step, attempt.number),
        target_state=target_state_members(capture.state_before, capture.state_after),
        evidence=capture.evidence,
    )
    sampled = staleness_pick(experiment.staleness_rule, experiment.staleness_size, checked.raw_sha256, present)
    return BuiltRepository(
        repo, attempt.folder, artifact, preparation, checked.raw_sha256, universe.item_count, len(present), sampled
    )


def read_repositories(
    experiment: Experiment, view: LedgerView, usable: dict[str, Attempt], d: tuple[str, str]
) -> list[BuiltRepository]:
    """Every repository's pieces from its usable source-list attempt (item 2 of the module docstring).

    Args:
        experiment: D's experiment file.
        view: the ledger.
        usable: :func:`usable_attempts`.
        d: D (absolute) and D as messages name it.

    Raises:
        PrepareRejected: CAP-15 or the SL rule the evaluator reports, at the raw file (a
            stdout the ledger vouches for but no evaluator accepts).
    """
    count = len(experiment.repositories)
    return [
        _repository(experiment, repo, d, view, usable[step_id("repo", repo.index, count, "source-list")])
        for repo in experiment.repositories
    ]


@dataclass(frozen=True, slots=True)
class Expectation:
    """What the evaluator must find for one case.

    Attributes:
        case: the ``[[case]]`` entry.
        attempt: its usable SCI attempt (``None`` without ``[case.sci]``).
        rule: ``None`` when structural evidence must be available; else the rule it must be unavailable under.
        why: for a ``null`` bundle, why there is no receipt (or that the case has no ``[case.sci]``).
    """

    case: Case
    attempt: Attempt | None
    rule: str | None
    why: str | None


def _method(built: BuiltRepository, experiment: Experiment, review: StalenessReview) -> str:
    entry = review.entries[built.repository.id]
    method = staleness_method(
        experiment.staleness_rule, len(built.sampled), built.present_count, built.raw_sha256, entry.reviewer
    )
    if not is_nbtext(method, 2000) or not is_normalized(method):
        at = f"{review.path} -> {where('repository', entry.index, 'reviewer')}"
        expected = "a method text that is a normalized NBText(2000) (it names the reviewer; it is never normalised)"
        what = "not normalized" if not is_normalized(method) else "too long"
        found = f"{len(method)} code points, {what}, naming the reviewer {show(entry.reviewer)}: {show(method)}"
        raise PrepareRejected([Finding("STALE-4", at, expected, found)])
    return method


def _repository_entry(built: BuiltRepository, experiment: Experiment, review: StalenessReview) -> dict[str, object]:
    repo = built.repository
    stale = list(review.entries[repo.id].stale)
    sample = staleness_sample(repo.commit, built.raw_sha256, _method(built, experiment, review), built.sampled, stale)
    return {
        "id": repo.id,
        "commit": repo.commit,
        "sourceListArtifact": built.artifact,
        "sourceListPreparation": built.preparation,
        "metadataStalenessSample": sample,
    }


@dataclass(frozen=True, slots=True)
class CaptureContext:
    """What building a case needs besides the experiment: the usable attempts, D, the SCI revision."""

    usable: dict[str, Attempt]
    folder: str
    sci_revision: str | None


def _case(
    experiment: Experiment, case: Case, built: BuiltRepository, context: CaptureContext
) -> tuple[dict[str, object], Expectation]:
    repo = built.repository
    if case.sci is None:
        expectation = Expectation(case, None, "SB-1", "the case has no [case.sci]: no structural evidence")
        return case_entry(case, repo.commit, built.raw_sha256, None), expectation
    attempt = context.usable[step_id("case", case.index, len(experiment.cases), "sci")]
    assert context.sci_revision is not None  # a case with [case.sci]: capture recorded the revision
    texts = read_case_attempt(os.path.join(context.folder, attempt.folder))
    bundle, why = case_bundle(experiment, case, repo.commit, sci_revision=context.sci_revision, texts=texts)
    rule = None if attempt.outcome == "succeeded" else attempt.rule
    return case_entry(case, repo.commit, built.raw_sha256, bundle), Expectation(case, attempt, rule, why)


def build_input(
    experiment: Experiment, repositories: list[BuiltRepository], review: StalenessReview, context: CaptureContext
) -> tuple[dict[str, object], list[Expectation]]:
    """The whole prepared input (TOP-13's members) and, per case, what the evaluator must find.

    Raises:
        PrepareRejected: STALE-4 (a ``method`` text that is not a normalized ``NBText(2000)``).
        OSError, ValueError: a captured file cannot be read (ASM-2 has checked them all).
    """
    entries = [_repository_entry(built, experiment, review) for built in repositories]
    by_id = {built.repository.id: built for built in repositories}
    cases, expectations = [], []
    for case in experiment.cases:
        entry, expectation = _case(experiment, case, by_id[case.repository], context)
        cases.append(entry)
        expectations.append(expectation)
    return {"protocol": PROTOCOL, "repositories": entries, "cases": cases}, expectations
