"""``ablation-prepare check-freeze``: re-do every check of a frozen preparation from its files alone.

In this order; the first failure stops with exit 3 (exit 2 for an unreadable key or results file):

1. ``SHA256SUMS.pre-run`` is in the format ``freeze`` writes and every file it lists
   has its SHA-256 (FRZ-1, FRZ-2); D holds no other file but the manifest, its
   signature and the attempt marker (FRZ-3);
2. with ``--public-key``, ``SHA256SUMS.pre-run.sig`` is a valid Ed25519 signature of
   the manifest by that key (FRZ-8; a weak key is refused, exit 2);
3. the bindings agree (FRZ-9): the pre-run manifest is the pre-review manifest's
   entries plus ``SHA256SUMS.pre-review``, ``pre-run-review.toml`` and
   ``freeze-record.json``; ``SHA256SUMS.pre-review`` verifies too; the freeze record
   names the SHA-256 of ``prepared.json``, of the pre-review manifest, of the review and
   the review's evaluator identity digest; ``prepared.json.sha256`` names
   ``prepared.json``'s; the pre-run review passes again (FRZ-4 … FRZ-7), the cases
   review binds to ``experiment.toml`` (CAP-2) and the staleness review to
   ``staleness-sheet.md`` (ASM-6);
4. the ledger and the raw files (ASM-1, ASM-2), and ``prepared.json`` is byte for byte
   what they build (FRZ-9); the blind self-check (the evaluator's validation,
   availability as capture recorded);
5. the attempt marker: its path and whether it exists; one that exists must name the
   frozen input SHA-256 and, when it names one, the frozen ``SHA256SUMS.pre-run``
   digest (FRZ-10);
6. with ``--results OUT``: OUT's ``evaluator.identityDigest`` is the frozen
   ``evaluator_identity_digest``, and its ``inputSha256`` the frozen SHA-256 of
   ``prepared.json`` with ``inputSha256Pinned`` true (FRZ-11, naming both values).

It starts no process and writes nothing.

Spec: PREPARE.md §7 ("check-freeze"), §8; §11 criteria 8, 12, 16, 17.
"""

from __future__ import annotations

import argparse
import json
import os
import posixpath
from collections.abc import Callable
from typing import Any

from ablation.bundle.keys import fingerprint, load_public_key, verifies
from ablation.errors import IntegrityError, UsageError
from ablation.output import read_file
from ablation.prepare.assemble import ASSEMBLED, FROZEN, PREPARED, STALENESS_REVIEW_COPY, load_copy
from ablation.prepare.assemble_input import (
    CaptureContext,
    build_input,
    read_repositories,
    recorded_revisions,
    usable_attempts,
)
from ablation.prepare.attempts import json_text
from ablation.prepare.capture_setup import REVIEW_COPY
from ablation.prepare.findings import EXIT_INTEGRITY, Finding, PrepareRejected
from ablation.prepare.freeze import FREEZE_RECORD, FREEZE_SCHEMA, marker_location, verify_manifest
from ablation.prepare.freeze import REVIEW_COPY as PRE_RUN_COPY
from ablation.prepare.integrity import check_captured_files, read_preparation_ledger
from ablation.prepare.manifest import PRE_REVIEW, PRE_RUN, SIGNATURE, file_sha256
from ablation.prepare.prerun_review import read_pre_run_review
from ablation.prepare.reviews import read_cases_review
from ablation.prepare.selfcheck import self_check
from ablation.prepare.staleness import SHEET_NAME
from ablation.prepare.staleness_review import read_staleness_review
from ablation.results_file import load_results

__all__ = ["run_check_freeze"]

_RECORD_KEYS = (
    "schema",
    "preparedJsonSha256",
    "preReviewManifestSha256",
    "preRunReviewSha256",
    "evaluatorIdentityDigest",
    "attemptRecord",
)


def _fail(rule: str, where: str, expected: str, found: str) -> PrepareRejected:
    return PrepareRejected([Finding(rule, where, expected, found, exit_code=EXIT_INTEGRITY)])


def _read(folder: str, name: str) -> bytes:
    with open(os.path.join(folder, name), "rb") as stream:
        return stream.read()


def _json_object(data: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _freeze_record(folder: str, shown: str) -> dict[str, Any]:
    """``freeze-record.json`` as ``freeze`` writes it (FRZ-9); read before the manifest, for the marker's path."""
    where = posixpath.join(shown, FREEZE_RECORD)
    try:
        data = _read(folder, FREEZE_RECORD)
    except OSError as exc:
        raise _fail("FRZ-9", where, "the freeze record freeze wrote", exc.strerror or str(exc)) from None
    record = _json_object(data)
    if record is None or tuple(record) != _RECORD_KEYS or record["schema"] != FREEZE_SCHEMA:
        expected = f"a JSON object with the members {', '.join(_RECORD_KEYS)} (schema {FREEZE_SCHEMA})"
        raise _fail("FRZ-9", where, expected, "another text")
    if not isinstance(record["attemptRecord"], str) or not record["attemptRecord"]:
        raise _fail("FRZ-9", where, "the attempt marker's path (attemptRecord)", repr(record["attemptRecord"]))
    return record


def _signature(folder: str, shown: str, public_key: str | None, say: Callable[[str], None]) -> None:
    """FRZ-8 with ``--public-key``; without it, only whether a signature is there."""
    present = os.path.lexists(os.path.join(folder, SIGNATURE))
    if public_key is None:
        say(f"signature: {'present, not checked (no --public-key)' if present else 'none'}")
        return
    key = load_public_key(public_key)
    where = posixpath.join(shown, SIGNATURE)
    if not present:
        raise _fail("FRZ-8", where, f"a signature of {PRE_RUN} by {fingerprint(key)}", "no signature file")
    try:
        signature = read_file(os.path.join(folder, SIGNATURE), "signature")
    except UsageError as exc:  # a folder, a FIFO, unreadable: not a signature file
        raise _fail("FRZ-8", where, f"a signature of {PRE_RUN} by {fingerprint(key)}", str(exc)) from None
    if not verifies(key, signature, _read(folder, PRE_RUN)):
        raise _fail(
            "FRZ-8", where, f"a valid Ed25519 signature of {PRE_RUN} by {fingerprint(key)}", "it does not verify"
        )
    say(f"signature: valid, by {fingerprint(key)}")


def _bindings(folder: str, shown: str, entries: dict[str, str], record: dict[str, Any]) -> None:
    """Step 3 of the module docstring (FRZ-9, and the reviews' own rules)."""
    marker = _marker_in_d(folder, record["attemptRecord"])
    unlisted = (PRE_REVIEW, *FROZEN, *((marker,) if marker else ()))
    pre_review = verify_manifest(folder, shown, PRE_REVIEW, unlisted=unlisted)
    expected = {**pre_review, PRE_REVIEW: entries.get(PRE_REVIEW), PRE_RUN_COPY: entries.get(PRE_RUN_COPY)}
    expected[FREEZE_RECORD] = entries.get(FREEZE_RECORD)
    if expected != entries:
        extra = sorted(set(entries) ^ set(expected))
        raise _fail(
            "FRZ-9",
            posixpath.join(shown, PRE_RUN),
            f"the entries of {PRE_REVIEW} and the three freeze files",
            f"other entries ({', '.join(extra) or 'other hashes'})",
        )
    review = read_pre_run_review(
        posixpath.join(shown, PRE_RUN_COPY), _read(folder, PRE_RUN_COPY), manifest_sha256=entries[PRE_REVIEW]
    )
    found = {
        "preparedJsonSha256": entries.get(PREPARED),
        "preReviewManifestSha256": entries[PRE_REVIEW],
        "preRunReviewSha256": entries[PRE_RUN_COPY],
        "evaluatorIdentityDigest": review.evaluator_identity_digest,
    }
    for member, value in found.items():
        if record[member] != value:
            raise _fail("FRZ-9", posixpath.join(shown, FREEZE_RECORD), f"{member} {value}", repr(record[member]))
    sums = f"{entries.get(PREPARED)}  {PREPARED}\n".encode()
    if _read(folder, f"{PREPARED}.sha256") != sums:
        raise _fail("FRZ-9", posixpath.join(shown, f"{PREPARED}.sha256"), sums.decode().strip(), "other bytes")


def _marker_in_d(folder: str, marker: str) -> str | None:
    """The marker's path relative to D when it lies in D, else ``None``."""
    path = marker_location(folder, marker)
    relative = os.path.relpath(path, folder)
    return None if relative.startswith("..") or os.path.isabs(relative) else relative.replace(os.sep, "/")


def _rebuilt(folder: str, shown: str, record: dict[str, Any]) -> None:
    """Step 4 of the module docstring: the raw files build ``prepared.json`` again, byte for byte; the self-check."""
    view = read_preparation_ledger(folder, shown)
    marker = _marker_in_d(folder, record["attemptRecord"])
    check_captured_files(folder, shown, view, later=(*ASSEMBLED, *FROZEN, *((marker,) if marker else ())))
    experiment = load_copy(folder, shown)
    read_cases_review(
        posixpath.join(shown, REVIEW_COPY),
        _read(folder, REVIEW_COPY),
        experiment_sha256=experiment.sha256,
        repository_ids=[r.id for r in experiment.repositories],
    )
    usable = usable_attempts(experiment, view)
    repositories = read_repositories(experiment, view, usable, (folder, shown))
    samples = {built.repository.id: built.sampled for built in repositories}
    review = read_staleness_review(
        posixpath.join(shown, STALENESS_REVIEW_COPY),
        _read(folder, STALENESS_REVIEW_COPY),
        sheet_sha256=file_sha256(os.path.join(folder, SHEET_NAME)),
        samples=samples,
    )
    context = CaptureContext(usable, folder, recorded_revisions(view).get("sci"))
    value, expectations = build_input(experiment, repositories, review, context)
    data = json_text(value).encode("utf-8")
    if data != _read(folder, PREPARED):
        where = posixpath.join(shown, PREPARED)
        raise _fail("FRZ-9", where, "the input D's raw files and reviews build, byte for byte", "other bytes")
    self_check(data, expectations, posixpath.join(shown, PREPARED))


def _marker(folder: str, shown: str, record: dict[str, Any], say: Callable[[str], None]) -> None:
    """Step 5 of the module docstring (FRZ-10)."""
    marker = record["attemptRecord"]
    path = marker_location(folder, marker)
    shown_marker = marker if os.path.isabs(marker) else posixpath.join(shown, marker)
    if not os.path.lexists(path):
        say(
            f"attempt marker: {shown_marker} absent: no run with --attempt-record {shown_marker} yet "
            "(a run without the marker leaves none; nothing outside the evaluator can prevent one)"
        )
        return
    try:
        attempt = _json_object(read_file(path, "attempt marker"))
    except UsageError:
        attempt = None
    manifest = file_sha256(os.path.join(folder, PRE_RUN))
    expected = (
        f"an attempt record (ablation.attempt_record.v1) naming the frozen input {record['preparedJsonSha256']} "
        f"and, when it names one, the frozen manifest {manifest}"
    )
    if attempt is None or attempt.get("schema") != "ablation.attempt_record.v1":
        raise _fail("FRZ-10", shown_marker, expected, "another file")
    if attempt.get("inputSha256") != record["preparedJsonSha256"]:
        raise _fail("FRZ-10", shown_marker, expected, f"inputSha256 {attempt.get('inputSha256')!r}")
    if attempt.get("preRunManifestSha256") not in (None, manifest):
        raise _fail("FRZ-10", shown_marker, expected, f"preRunManifestSha256 {attempt.get('preRunManifestSha256')!r}")
    say(
        f"attempt marker: {shown_marker} exists: the one run was attempted, with the frozen input "
        f"(output {attempt.get('output')!r}, evaluator {attempt.get('identityDigest')})"
    )


def _results(path: str, record: dict[str, Any], say: Callable[[str], None]) -> None:
    """Step 6 of the module docstring (FRZ-11).

    OUT is first read as ``verify-archive`` reads a results file
    (:func:`ablation.results_file.load_results`: strict JSON, only the members
    ``ablation run`` writes, ``evaluator.identityDigest`` the digest of
    ``evaluator.measured``), so a forged or malformed file is FRZ-11 too.
    """
    try:
        results = load_results(read_file(path, "results file"), path)
    except IntegrityError as exc:
        raise _fail(
            "FRZ-11", path, "a results file ablation run wrote, its identityDigest the digest of its measured", str(exc)
        ) from None
    identity = results.evaluator.identity_digest
    frozen_identity, frozen_input = record["evaluatorIdentityDigest"], record["preparedJsonSha256"]
    found_input, pinned = results.input_sha256, results.input_sha256_pinned
    if identity != frozen_identity:
        raise _fail(
            "FRZ-11",
            f"{path} -> /evaluator/identityDigest",
            f"the frozen evaluator_identity_digest {frozen_identity}",
            f"{identity!r}: another evaluator ran",
        )
    if found_input != frozen_input or pinned is not True:
        raise _fail(
            "FRZ-11",
            f"{path} -> /inputSha256",
            f"the frozen SHA-256 of prepared.json {frozen_input}, with inputSha256Pinned true",
            f"{found_input!r} with inputSha256Pinned {pinned!r}",
        )
    say(f"results: {path}: the frozen evaluator {frozen_identity} ran the frozen input {frozen_input} (pinned)")


def run_check_freeze(args: argparse.Namespace, say: Callable[[str], None], warn: Callable[[str], None]) -> int:
    """Run ``check-freeze`` (module docstring); 0 when everything holds.

    Raises:
        UsageError (2), PrepareRejected (3: FRZ-1 … FRZ-11, ASM-1, ASM-2, CAP-2, ASM-6; 4: a rule the
        rebuilt input breaks).
    """
    del warn  # check-freeze writes nothing, so it has no durability warning to give
    folder, shown = os.path.abspath(args.dir), args.dir
    if not os.path.isdir(folder):
        raise UsageError(f"--dir {args.dir!r} is not a folder")
    if not os.path.lexists(os.path.join(folder, PRE_RUN)):
        where = posixpath.join(shown, PRE_RUN)
        raise _fail("FRZ-1", where, f"a frozen preparation directory: the manifest {PRE_RUN}", "no such file")
    record = _freeze_record(folder, shown)
    marker = _marker_in_d(folder, record["attemptRecord"])
    entries = verify_manifest(folder, shown, PRE_RUN, unlisted=(PRE_RUN, SIGNATURE, *((marker,) if marker else ())))
    _signature(folder, shown, args.public_key, say)
    _bindings(folder, shown, entries, record)
    _rebuilt(folder, shown, record)
    say(f"{record['preparedJsonSha256']}  {PREPARED}")
    say(f"{file_sha256(os.path.join(folder, PRE_RUN))}  {PRE_RUN}")
    say(f"evaluator identity (frozen): {record['evaluatorIdentityDigest']}")
    _marker(folder, shown, record, say)
    if args.results is not None:
        _results(args.results, record, say)
    say("check-freeze: every file, binding and review holds; prepared.json is what D's raw files build")
    return 0
