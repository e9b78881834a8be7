"""The handlers of ``ablation-prepare``: one function per subcommand, and what each prints.

Each handler takes the parsed arguments and returns the exit code (0); every
refusal is raised (:class:`~ablation.prepare.findings.PrepareRejected` for a
rule, :class:`~ablation.errors.AblationError` otherwise) and reported by
:func:`ablation.prepare.cli.main`. Each starts with the sealed-closure check,
as the evaluator's commands do: preparation computes its digests with the
evaluator's own modules, and a changed module must not compute them.

Spec: PREPARE.md §2.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from ablation.errors import UsageError
from ablation.prepare.findings import PrepareRejected

if TYPE_CHECKING:
    from ablation.prepare.gitread import GitReader

__all__ = ["COMMANDS"]


def _require_closure() -> None:
    from ablation.closure import check  # noqa: PLC0415 - the check runs before the modules it guards are used

    check.require_sealed_closure()


def _warn(line: str) -> None:
    print(f"ablation-prepare: warning: {line}", file=sys.stderr)


def _pin_lines(path: str, git: GitReader | None) -> list[str]:
    """The TOML lines for one file: ``path``, ``sha256``, ``revision`` when derivable; realpath and size as comments."""
    from ablation.prepare.pins import derive_revision, read_file_state  # noqa: PLC0415
    from ablation.prepare.tomltext import toml_string  # noqa: PLC0415

    absolute = os.path.abspath(path)
    try:
        absolute.encode("utf-8")  # a name that is not UTF-8 (surrogate escapes) has no TOML spelling
        state = read_file_state(absolute)
    except OSError as exc:
        raise UsageError(f"cannot read {path!r}: {exc.strerror or exc}") from None
    except UnicodeError:
        raise UsageError(f"the path {path!r} is not UTF-8 and cannot be written in TOML") from None
    lines = [f"# {path}", f"path = {toml_string(absolute)}", f'sha256 = "{state.sha256}"']
    if git is not None:
        revision, why = derive_revision(git, absolute)
        lines.append(f'revision = "{revision}"' if revision else f"# no revision: {why}")
    else:
        lines.append("# no revision: no git on PATH")
    lines += [f"# realpath = {toml_string(state.realpath)}", f"# size = {state.size}"]
    return lines


def _cmd_pin(args: argparse.Namespace) -> int:
    _require_closure()
    from ablation.prepare.gitread import GitReader  # noqa: PLC0415
    from ablation.prepare.pins import read_file_state  # noqa: PLC0415

    found = shutil.which("git")
    git = GitReader(os.path.abspath(found)) if found else None
    blocks = [_pin_lines(path, git) for path in args.paths]
    if git is not None:
        state = read_file_state(git.git)
        print(f"# git on PATH: {git.git} sha256 {state.sha256} ({git.version().strip()})")
    for k, block in enumerate(blocks):
        if k:
            print()
        print("\n".join(block))
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    _require_closure()
    from ablation.contracts.base import show  # noqa: PLC0415
    from ablation.prepare.checks import read_experiment, run_check  # noqa: PLC0415
    from ablation.prepare.tomltext import where  # noqa: PLC0415

    experiment = read_experiment(args.experiment, collect_all=args.errors == "all")
    report = run_check(experiment)
    for finding in report.findings.warnings:
        _warn(finding.line())
    report.findings.raise_errors(collect_all=args.errors == "all")
    print(f"git: {report.git_version} ({experiment.tools['git'].path})")
    for key, revision in report.revisions.items():
        print(f"{where('tools', key)} revision {revision} (revision_from_checkout)")
    for view in report.views:
        repo = view.repository
        count = sum(1 for c in experiment.cases if c.repository == repo.id)
        tracked = len(view.tracked or {})
        print(
            f"{where('repository', repo.index)} {show(repo.id)} at {repo.commit}: {tracked} tracked paths, "
            f"{view.default_paths()} with a default extension; {count} cases"
        )
    for case in experiment.cases:
        print(f"{where('case', case.index)} {show(case.id)} intentSignature {report.identities.intents[case.index]}")
    print(f"{experiment.sha256}  {experiment.path}")
    return 0


def _cmd_sheet(args: argparse.Namespace) -> int:
    _require_closure()
    from ablation.canonical import sha256_hex  # noqa: PLC0415
    from ablation.output import refuse_existing, write_exclusive  # noqa: PLC0415
    from ablation.prepare.checks import read_experiment, run_check  # noqa: PLC0415
    from ablation.prepare.sheet import render_cases_sheet  # noqa: PLC0415

    refuse_existing(args.out)  # before anything is read
    report = run_check(read_experiment(args.experiment))
    git_errors = [f for f in report.findings.errors if f.where.startswith("tools.git.")]
    if git_errors:  # without the pinned git no repository was read: the sheet would show nothing of them
        raise PrepareRejected(git_errors[:1])
    data = render_cases_sheet(report).encode("utf-8")
    warning = write_exclusive(args.out, data)
    if warning is not None:
        _warn(warning)
    errors = len(report.findings.errors)
    if errors:
        _warn(f"the sheet lists {errors} error{'' if errors == 1 else 's'}: check refuses this experiment")
    print(f"{sha256_hex(data)}  {args.out}")
    return 0


def _cmd_capture(args: argparse.Namespace) -> int:
    if not args.execute_owners:
        raise UsageError("capture runs the pinned owners only with --execute-owners (nothing was run)")
    if (args.retry is None) != (args.reason is None):
        raise UsageError("--retry STEP and --reason TEXT go together")
    if args.reason is not None and not args.reason.strip():
        raise UsageError("--reason: say why the step runs again (a nonblank text)")
    _require_closure()
    from ablation.prepare.capture import run_capture  # noqa: PLC0415

    return run_capture(args, print, _warn)


def _cmd_assemble(args: argparse.Namespace) -> int:
    _require_closure()
    from ablation.prepare.assemble import run_assemble  # noqa: PLC0415

    return run_assemble(args, print, _warn)


def _cmd_freeze(args: argparse.Namespace) -> int:
    _require_closure()
    from ablation.prepare.freeze import run_freeze  # noqa: PLC0415

    return run_freeze(args, print, _warn)


def _cmd_check_freeze(args: argparse.Namespace) -> int:
    _require_closure()
    from ablation.prepare.check_freeze import run_check_freeze  # noqa: PLC0415

    return run_check_freeze(args, print, _warn)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "pin": _cmd_pin,
    "check": _cmd_check,
    "sheet": _cmd_sheet,
    "capture": _cmd_capture,
    "assemble": _cmd_assemble,
    "freeze": _cmd_freeze,
    "check-freeze": _cmd_check_freeze,
}
"""The handler of each subcommand."""
