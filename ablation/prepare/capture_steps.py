"""The steps of ``capture`` before SCI: a tool's version, a repository's clone, a repository's source-list run.

Each function runs one attempt that :class:`~ablation.prepare.attempts.AttemptRun`
has opened, writes every file of it into the attempt folder, and raises
:class:`~ablation.prepare.attempts.StepFailed` when a gate fails (after its files
are written: nothing is lost).

- ``tool:<key>:version`` (:func:`tool_version_step`): ``[path, --version]`` in a fresh
  empty cwd, with the clean environment; ``version.stdout`` and ``version.stderr``
  are kept and never compared; the run must end by itself with exit 0 (CAP-13).
- ``repo:<nnn>:clone`` (:func:`clone_step`): the source observed before and after
  (``source-before.json``, ``source-after.json``), clone and detached checkout into
  ``<work_root>/targets/<nnn>/``; a change of the source fails the step (CAP-12).
- ``repo:<nnn>:source-list`` (:func:`source_list_step`): the target observed before
  (at the commit and clean, else CAP-10), source-list with PREP-11's argv, the
  evidence command, the target observed after; ``state-before.json`` and
  ``state-after.json`` hold ``{head, status}``, ``extras.json`` the rest; then every
  gate of :func:`ablation.prepare.gates.check_source_list`.

Spec: PREPARE.md §4, §5.
"""

from __future__ import annotations

import os

from ablation.contracts.source_list import CandidateUniverse
from ablation.prepare.attempts import AttemptRun, StepFailed, run_record
from ablation.prepare.build import source_list_command
from ablation.prepare.environment import owner_environment, sci_path
from ablation.prepare.experiment_file import Repository
from ablation.prepare.findings import Finding
from ablation.prepare.gates import check_source_list, owner_run_problem
from ablation.prepare.layout import target_path
from ablation.prepare.targets import TargetState, clone_target, observe_source, observe_target, tracked_path_evidence

__all__ = ["clone_step", "precondition_problem", "source_list_step", "tool_version_step"]


def tool_version_step(attempt: AttemptRun, key: str) -> str:
    """Run ``[tools.<key>].path --version`` once; its first line of output.

    Raises:
        StepFailed: CAP-13 (the run did not end by itself with exit 0).
    """
    experiment = attempt.session.experiment
    tool = experiment.tools[key]
    attempt.make_private_folders(with_cwd=True)
    path = experiment.environment_path
    if key in ("sci", "backend") and "backend" in experiment.tools:
        path = sci_path(experiment.tools["backend"].path, path)
    environment = owner_environment(path=path, home=attempt.home, tmpdir=attempt.tmp)
    ran = attempt.spawn(
        "version",
        "tool-version",
        ((tool.path, "--version"), attempt.cwd, "cwd", environment),
        tools=(key,),
        timeout_s=experiment.process_timeout_s,
    )
    private = attempt.private_folders_after(with_cwd=True)
    attempt.write_json("extras.json", {"version": run_record(ran), "privateFolders": private})
    o = ran.outcome
    if not o.clean_exit:
        problem = owner_run_problem(
            ran, {"tmp": {"removed": True}, "home": {"removed": True}}, experiment.process_timeout_s
        )
        where = attempt.session.shown(f"{attempt.folder}/version.stderr")
        raise StepFailed(Finding("CAP-13", where, f"{tool.path} --version to end by itself with exit 0", str(problem)))
    text = (ran.stdout or ran.stderr).decode("utf-8", "backslashreplace").strip()
    return text.splitlines()[0] if text else "(no output)"


def clone_step(attempt: AttemptRun, repo: Repository) -> str:
    """Clone ``repo`` into its target and check out its commit, the source observed before and after.

    Raises:
        StepFailed: CAP-8 (the target exists), CAP-11 (git failed), CAP-12 (the source changed).
    """
    experiment = attempt.session.experiment
    target = target_path(experiment.work_root, repo.index, len(experiment.repositories))
    attempt.make_private_folders()
    before = observe_source(attempt, repo.source, "before")
    attempt.write_json("source-before.json", before)
    failure: StepFailed | None = None
    try:
        clone_target(attempt, repo.source, repo.commit, target)
    except StepFailed as exc:
        if exc.finding.rule == "CAP-19":
            raise
        failure = exc
    after = observe_source(attempt, repo.source, "after")
    attempt.write_json("source-after.json", after)
    private = attempt.private_folders_after()
    attempt.write_json("extras.json", {"target": target, "privateFolders": private})
    if failure is not None:
        raise failure
    changed = [name for name in before if before[name] != after[name]]
    if changed:
        where = attempt.session.shown(f"{attempt.folder}/source-after.json")
        found = f"{', '.join(changed)} changed (compare source-before.json)"
        raise StepFailed(Finding("CAP-12", where, "the source repository unchanged by its clone", found))
    return target


def precondition_problem(state: TargetState, commit: str, attempt: AttemptRun, *, class_a: bool) -> str | None:
    """Why an owner must not run in the target now (CAP-10), or ``None``.

    The target is at the commit and clean; with ``class_a``, no ``.sci``, ``.semantic-graph``
    or ``.ontology`` exists at its top level; the attempt's HOME and TMPDIR are empty.
    """
    if state.head != commit:
        return f"HEAD at {state.head}, not at the repository's commit {commit}"
    if not state.clean:
        return f"a status that is not empty: {state.status[:200]!r}"
    if class_a and state.class_a:
        return f"an index or ontology folder at the top level: {state.presence}"
    for folder in (attempt.home, attempt.tmp):
        if os.listdir(folder):
            return f"{folder} is not empty"
    return None


def source_list_step(attempt: AttemptRun, repo: Repository) -> CandidateUniverse:
    """Run source-list in the repository's target and apply every gate; the candidate universe.

    Raises:
        StepFailed: CAP-10, CAP-11, CAP-13 … CAP-18, SL, GIT, PREP, CASE-10, CASE-8.
    """
    session = attempt.session
    experiment = session.experiment
    target = target_path(experiment.work_root, repo.index, len(experiment.repositories))
    attempt.make_private_folders()
    before = observe_target(attempt, target, "before")
    problem = precondition_problem(before, repo.commit, attempt, class_a=False)
    if problem is not None:
        where = session.shown(f"{attempt.folder}/state-before.status.stdout")
        raise StepFailed(Finding("CAP-10", where, "a target at the commit and clean, before source-list", problem))
    environment = owner_environment(path=experiment.environment_path, home=attempt.home, tmpdir=attempt.tmp)
    argv = tuple(source_list_command(experiment))
    ran = attempt.spawn(
        "source-list",
        "source-list",
        (argv, target, "target", environment),
        tools=("node", "source_list"),
        timeout_s=experiment.process_timeout_s,
    )
    private = attempt.private_folders_after()
    evidence = tracked_path_evidence(attempt, target)
    after = observe_target(attempt, target, "after")
    attempt.write_json("state-before.json", before.protocol())
    attempt.write_json("state-after.json", after.protocol())
    extras = {
        "sourceList": run_record(ran),
        "evidence": run_record(evidence),
        "privateFolders": private,
        "stateBefore": before.extras(),
        "stateAfter": after.extras(),
        "gitIndexChanged": before.git_index_sha256 != after.git_index_sha256,
    }
    attempt.write_json("extras.json", extras)
    return check_source_list(attempt, repo, (ran, evidence), (before, after), private)
