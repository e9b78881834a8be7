"""The command handlers behind :mod:`ablation.cli`: one function per command, and what they print.

Each handler takes the parsed arguments and returns the exit code (0); errors are
raised as :class:`~ablation.errors.AblationError` and reported by :func:`ablation.cli.main`.
Every handler checks the sealed closure (:func:`_require_closure`) before it imports
an evaluator module, so this module imports none at its top.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

# not typing's TYPE_CHECKING: the start-up modules do not import typing (ablation.closure.record); the summaries
# are for the type checker only too: a TypedDict compiles each member's annotation, 2 ms of every start
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypedDict

    from ablation.experiment import ValidatedExperiment
    from ablation.pipeline import LoadedInput

    class _RepositorySummary(TypedDict):
        id: str
        commit: str
        items: int
        trackedPaths: int
        metadataPresent: int
        metadataCoverage: float
        sourceListEligible: bool
        stalenessSampled: int
        stalenessStale: int
        caseCount: int

    class _CaseSummary(TypedDict):
        id: str
        repositoryId: str
        maxItems: int
        structuralAvailable: bool
        structuralFailure: str | None

    class _VerifySummary(TypedDict):
        """What ``verify --json`` prints, members in this order."""

        inputSha256: str
        inputSha256Pinned: bool
        inputGzipSha256: str | None
        inputGzipSha256Checked: bool
        repositories: list[_RepositorySummary]
        cases: list[_CaseSummary]
        evaluator: dict[str, object]


__all__ = ["COMMANDS"]


def _identity() -> dict[str, object]:
    from ablation import identity  # noqa: PLC0415

    return identity.evaluator_identity()


def _require_closure() -> None:
    """Check the sealed closure before any evaluator module is imported (exit 3 on a mismatch).

    The command handlers import the pipeline only after this, so a changed
    module in a sealed environment is named by the check instead of running.
    """
    from ablation.closure import check  # noqa: PLC0415

    check.require_sealed_closure()


def _warn(warning: str | None) -> None:
    """A durability warning of a written output (PRODUCT.md "Command line"), on stderr."""
    if warning is not None:
        print(f"ablation: warning: {warning}", file=sys.stderr)


def _progress(message: str) -> None:
    """Progress for long work: on stderr, and only when stderr is a terminal (PRODUCT.md)."""
    if sys.stderr.isatty():
        print(f"ablation: {message} …", file=sys.stderr, flush=True)


def _note_if_unsealed() -> None:
    """An unsealed development checkout runs and says so (PRODUCT.md "closure"), after success only,
    so that an error stays one line on stderr."""
    from ablation.closure import check  # noqa: PLC0415

    if check.closure_state() == "unsealed":
        print(
            "ablation: note: unsealed environment (no closure manifest); the evaluator identity says so",
            file=sys.stderr,
        )


def _load(args: argparse.Namespace) -> LoadedInput:
    from ablation.pipeline import load_input  # noqa: PLC0415 - after the closure check

    loaded = load_input(
        args.input,
        input_sha256=args.input_sha256,
        input_gzip_sha256=args.input_gzip_sha256,
        max_input_bytes=args.max_input_bytes,
    )
    if not loaded.pinned:
        print(
            f"ablation: warning: no --input-sha256 given; computed {loaded.sha256}. "
            "This run is not bound to a preregistered hash.",
            file=sys.stderr,
        )
    return loaded


def _spend_attempt(args: argparse.Namespace) -> None:
    """``run --attempt-record``: create the marker before the input is hashed or read (PREPARE.md §7).

    The hash arguments are checked first, so a typo spends nothing; the
    identity is measured once the evaluation modules are loaded, and the
    results file records the same one.
    """
    from ablation.attempt import attempt_record, spend_attempt  # noqa: PLC0415
    from ablation.errors import UsageError  # noqa: PLC0415
    from ablation.pipeline import hash_arguments  # noqa: PLC0415

    pinned, _ = hash_arguments(args.input, args.input_sha256, args.input_gzip_sha256)
    if pinned is None:  # ablation.arguments refuses this already
        msg = "--attempt-record requires --input-sha256"
        raise UsageError(msg)
    record = attempt_record(
        input_sha256=pinned,
        pre_run_manifest_sha256=args.pre_run_manifest_sha256,
        output=args.output,
        identity_digest=str(_identity()["identityDigest"]),
    )
    _warn(spend_attempt(args.attempt_record, record, output=args.output))


def _cmd_run(args: argparse.Namespace) -> int:
    _require_closure()
    from ablation.canonical import sha256_hex  # noqa: PLC0415
    from ablation.output import refuse_existing, render_output, write_exclusive  # noqa: PLC0415

    refuse_existing(args.output)  # before the input is read; a refused output spends no attempt
    from ablation.pipeline import evaluate, output_members  # noqa: PLC0415

    if args.attempt_record is not None:
        _spend_attempt(args)
    loaded = _load(args)
    _progress(f"validating and evaluating {len(loaded.data)} bytes (sha256 {loaded.sha256})")
    evaluation = evaluate(loaded.data, collect_all=args.errors == "all")
    _progress(f"writing {args.output}")
    data = render_output(output_members(loaded.sha256, loaded.gzip_sha256, loaded.pinned, evaluation, _identity()))
    _warn(write_exclusive(args.output, data))
    print(f"{sha256_hex(data)}  {args.output}")
    _note_if_unsealed()
    return 0


def _verify_summary(loaded: LoadedInput, experiment: ValidatedExperiment, *, gzip_checked: bool) -> _VerifySummary:
    """The blind pre-run summary: nothing derived from truth, no selection, no metric.

    ``inputSha256Pinned``: ``--input-sha256`` was given (and matched);
    ``inputGzipSha256`` (``null`` for a plain ``.json`` input) and
    ``inputGzipSha256Checked``: ``--input-gzip-sha256`` was given (and matched).
    """
    return {
        "inputSha256": loaded.sha256,
        "inputSha256Pinned": loaded.pinned,
        "inputGzipSha256": loaded.gzip_sha256,
        "inputGzipSha256Checked": gzip_checked,
        "repositories": [
            {
                "id": r.id,
                "commit": r.commit,
                "items": r.item_count,
                "trackedPaths": r.preparation.tracked_path_count,
                "metadataPresent": r.present_count,
                "metadataCoverage": r.present_count / r.item_count,
                "sourceListEligible": r.source_list_eligible,
                "stalenessSampled": len(r.staleness.sampled_paths),
                "stalenessStale": len(r.staleness.stale_paths),
                "caseCount": sum(1 for c in experiment.cases if c.record.repository_index == r.index),
            }
            for r in experiment.repositories
        ],
        "cases": [
            {
                "id": c.record.id,
                "repositoryId": c.record.repository_id,
                "maxItems": c.record.max_items,
                "structuralAvailable": c.structural is not None,
                "structuralFailure": c.structural_failure,
            }
            for c in experiment.cases
        ],
        "evaluator": _identity(),
    }


def _hash_lines(summary: _VerifySummary) -> list[str]:
    """Which input hashes were given and checked, and which were only computed (docs/operator.md)."""
    if summary["inputSha256Pinned"]:
        lines = [f"input sha256      {summary['inputSha256']} (pinned: --input-sha256 given and matched)"]
    else:
        lines = [f"input sha256      {summary['inputSha256']} (NOT pinned: computed only, no --input-sha256 given)"]
    gzip_sha = summary["inputGzipSha256"]
    if gzip_sha is None:
        lines.append("input gzip sha256 not applicable (the input is not a .gz file)")
    elif summary["inputGzipSha256Checked"]:
        lines.append(f"input gzip sha256 {gzip_sha} (checked: --input-gzip-sha256 given and matched)")
    else:
        lines.append(f"input gzip sha256 {gzip_sha} (NOT checked: computed only, no --input-gzip-sha256 given)")
    return lines


def _case_groups(cases: Sequence[_CaseSummary]) -> list[str]:
    """Cases grouped by their structural state, in order of first appearance: ``N cases: <state>``."""
    groups: dict[str, int] = {}
    for c in cases:
        failure = c["structuralFailure"]
        state = "structural available" if c["structuralAvailable"] else f"structural unavailable: {failure}"
        groups[state] = groups.get(state, 0) + 1
    return [f"  {n} case{'' if n == 1 else 's'}: {state}" for state, n in groups.items()]


def _print_summary(summary: _VerifySummary) -> None:
    from ablation.canonical import js_number  # noqa: PLC0415

    for line in _hash_lines(summary):
        print(line)
    print("input: admissible")
    print("repositories:")
    for r in summary["repositories"]:
        eligible = "eligible" if r["sourceListEligible"] else "ineligible (below 60 %)"
        print(
            f"  {r['id']!r} at {r['commit']}: {r['items']} items, {r['trackedPaths']} tracked paths, "
            f"{r['metadataPresent']} metadata present, coverage {js_number(r['metadataCoverage'])} {eligible}; "
            f"staleness sample {r['stalenessSampled']} sampled, {r['stalenessStale']} stale; {r['caseCount']} cases"
        )
    cases = summary["cases"]
    available = sum(1 for c in cases if c["structuralAvailable"])
    print(f"cases: {len(cases)}; structural evidence valid for {available} (each case: verify --json)")
    for line in _case_groups(cases):
        print(line)
    evaluator = summary["evaluator"]
    closure = evaluator["measured"]["closure"]["state"]  # type: ignore[index]  # the identity document (identity.evaluator_identity)
    print(f"evaluator identity {evaluator.get('identityDigest')} (closure {closure})")


def _cmd_verify(args: argparse.Namespace) -> int:
    _require_closure()
    from ablation.experiment import validate_experiment  # noqa: PLC0415
    from ablation.output import dumps  # noqa: PLC0415

    loaded = _load(args)
    _progress(f"validating {len(loaded.data)} bytes (sha256 {loaded.sha256})")
    experiment = validate_experiment(loaded.data, collect_all=args.errors == "all")
    summary = _verify_summary(loaded, experiment, gzip_checked=args.input_gzip_sha256 is not None)
    if args.json:
        print(dumps(summary))
    else:
        _print_summary(summary)
    return 0


def _cmd_identity(_args: argparse.Namespace) -> int:
    _require_closure()
    from ablation.output import dumps  # noqa: PLC0415

    print(dumps(_identity()))
    return 0


def _cmd_archive(args: argparse.Namespace) -> int:
    _require_closure()
    from ablation.bundle.writer import create_bundle  # noqa: PLC0415

    digest, warning, signed_by = create_bundle(
        input_path=args.input,
        results_path=args.results,
        bundle_path=args.bundle,
        evidence_paths=list(args.evidence),
        sign_key_path=args.sign_key,
    )
    _warn(warning)
    if signed_by is not None:  # on stderr: stdout stays the one "<sha256>  <bundle>" line sha256sum reads
        print(
            f"ablation: signed SHA256SUMS with Ed25519; the public key's fingerprint is {signed_by} "
            "(reviewers check the signature with --public-key and --expect-key)",
            file=sys.stderr,
        )
    print(f"{digest}  {args.bundle}")
    return 0


def _cmd_verify_archive(args: argparse.Namespace) -> int:
    _require_closure()
    from ablation.bundle.verifier import verify_bundle  # noqa: PLC0415

    report = verify_bundle(args.bundle, public_key_path=args.public_key, expect_key=args.expect_key)
    print(report.render())
    for warning in report.warnings():
        print(f"ablation: warning: {warning}", file=sys.stderr)
    return 0


def _cmd_keygen(args: argparse.Namespace) -> int:
    _require_closure()
    from ablation.bundle.keys import keygen  # noqa: PLC0415

    key_fingerprint, warnings = keygen(args.private_key, args.public_key)
    for warning in warnings:
        _warn(warning)
    print(f"wrote {args.private_key} and {args.public_key}")
    print(
        f"public key fingerprint {key_fingerprint} (SHA-256 of its DER SubjectPublicKeyInfo; "
        "publish it where reviewers can trust it: they pass it to --expect-key)"
    )
    return 0


def _cmd_notes(args: argparse.Namespace) -> int:
    _require_closure()
    from ablation import notes  # noqa: PLC0415

    text = notes.render_notes(
        results_path=args.results,
        bundle_path=args.bundle,
        image_digest=args.image_digest,
        public_key_path=args.public_key,
        expect_key=args.expect_key,
        warn=_warn,
    )
    sys.stdout.write(text)
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "run": _cmd_run,
    "verify": _cmd_verify,
    "identity": _cmd_identity,
    "archive": _cmd_archive,
    "verify-archive": _cmd_verify_archive,
    "keygen": _cmd_keygen,
    "notes": _cmd_notes,
}
