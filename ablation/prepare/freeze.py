"""``ablation-prepare freeze``: bind the pre-run review, the evaluator that may run, and the one-shot marker.

In this order (nothing is written before step 5):

1. exit 5 when D holds ``SHA256SUMS.pre-run``, ``freeze-record.json`` or a signature
   already, or when the attempt marker exists (the one run was attempted);
   ``--sign-key`` is loaded (a weak or unreadable key: exit 2);
2. ``SHA256SUMS.pre-review`` is re-verified in Python (FRZ-1 its format, FRZ-2 every
   file it lists, FRZ-3 no file it does not list: a results file or a bundle in D is
   refused, exit 3); ``freeze`` runs no process, ``sha256sum`` and openssl included;
3. the pre-run review (:mod:`ablation.prepare.prerun_review`: FRZ-4 … FRZ-7) must
   ACCEPT the exact pre-review manifest, state that no ranking ran, and name the
   evaluator's ``identityDigest``;
4. the marker path: ``attempt.json`` relative to D by default, or ``--attempt-record
   PATH`` made absolute against the current folder (links not resolved);
5. written, each exclusively and completely or not at all: ``pre-run-review.toml`` (the
   review as given), ``freeze-record.json`` (schema ``ablation.freeze_record.v1``: the
   SHA-256 of ``prepared.json``, of ``SHA256SUMS.pre-review`` and of the review, the
   evaluator identity digest, the marker path), then ``SHA256SUMS.pre-run`` (the
   pre-review entries, ``SHA256SUMS.pre-review``, the review copy and the freeze
   record, in the same format and order) and, with ``--sign-key``,
   ``SHA256SUMS.pre-run.sig``: the raw 64-byte Ed25519 signature of the manifest's
   bytes (``openssl pkeyutl -verify -pubin -inkey P -rawin -in SHA256SUMS.pre-run
   -sigfile SHA256SUMS.pre-run.sig`` checks it);
6. printed: ``<sha256>  prepared.json`` (what a preregistration cites and ``make run
   INPUT_SHA256=`` takes), ``<sha256>  SHA256SUMS.pre-run``, and the marker path.

Spec: PREPARE.md §7; §11 criteria 12, 16.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import posixpath
from collections.abc import Callable, Collection

from ablation.bundle.keys import fingerprint, load_private_key
from ablation.closure import check as closure_check
from ablation.errors import OutputRefused, UsageError
from ablation.output import read_file, write_exclusive
from ablation.prepare.assemble import PREPARED
from ablation.prepare.attempts import json_text
from ablation.prepare.findings import EXIT_INTEGRITY, Finding, PrepareRejected
from ablation.prepare.manifest import (
    PRE_REVIEW,
    PRE_RUN,
    SIGNATURE,
    file_sha256,
    parse_manifest,
    recorded_difference,
    render_manifest,
    walk_files,
)
from ablation.prepare.prerun_review import read_pre_run_review

__all__ = [
    "DEFAULT_MARKER",
    "FREEZE_RECORD",
    "FREEZE_SCHEMA",
    "REVIEW_COPY",
    "marker_location",
    "run_freeze",
    "verify_manifest",
]

FREEZE_RECORD = "freeze-record.json"
FREEZE_SCHEMA = "ablation.freeze_record.v1"
REVIEW_COPY = "pre-run-review.toml"
DEFAULT_MARKER = "attempt.json"
"""The attempt marker's default place, relative to D (``make archive EVIDENCE=D`` then carries it)."""


def _integrity(rule: str, where: str, expected: str, found: str) -> PrepareRejected:
    return PrepareRejected([Finding(rule, where, expected, found, exit_code=EXIT_INTEGRITY)])


def verify_manifest(folder: str, shown: str, name: str, *, unlisted: Collection[str]) -> dict[str, str]:
    """Re-verify the manifest ``name`` of D in Python; its entries (path → SHA-256).

    Args:
        folder: D (absolute).
        shown: D as messages name it.
        name: ``SHA256SUMS.pre-review`` or ``SHA256SUMS.pre-run``.
        unlisted: the files of D the manifest does not list and need not (itself, the signature, the marker).

    Raises:
        PrepareRejected (exit 3): FRZ-1 (no manifest, or not in the format written), FRZ-2 (a listed
            file missing or changed), FRZ-3 (a file D holds that the manifest does not list).
    """
    where = posixpath.join(shown, name)
    try:
        data = read_file(os.path.join(folder, name), "manifest")
    except UsageError:
        raise _integrity("FRZ-1", where, f"the manifest {name} of this step", "no such readable file") from None
    entries, problem = parse_manifest(data)
    if problem is not None:
        raise _integrity("FRZ-1", where, "'<64 lowercase hex>  <path>' lines in UTF-8 order of the path", problem)
    walk = walk_files(folder)
    if walk.problem is not None:
        path, what = walk.problem
        raise _integrity("FRZ-3", posixpath.join(shown, path), "only regular files with safe names in D", what)
    difference = recorded_difference(folder, set(walk.files), entries)
    if difference is not None:
        path, sha, found = difference
        at = posixpath.join(shown, path)
        if found is None:
            raise _integrity("FRZ-2", at, f"the file {name} lists (SHA-256 {sha})", "no such regular file")
        raise _integrity("FRZ-2", at, f"the SHA-256 {name} lists, {sha}", f"{found}: the file changed")
    for path in walk.files:
        if path not in entries and path not in unlisted:
            raise _integrity(
                "FRZ-3", posixpath.join(shown, path), f"only files {name} lists", "a file it does not list"
            )
    return entries


def marker_location(folder: str, marker: str) -> str:
    """The marker's path on this machine: ``marker`` when absolute, else joined to D."""
    return marker if os.path.isabs(marker) else os.path.join(folder, marker)


def _refuse_existing(folder: str, shown: str, marker: str) -> None:
    for name in (PRE_RUN, FREEZE_RECORD, SIGNATURE):
        if os.path.lexists(os.path.join(folder, name)):
            raise OutputRefused(f"{posixpath.join(shown, name)!r} exists: this preparation is frozen already")
    if os.path.lexists(marker_location(folder, marker)):
        msg = (
            f"the attempt marker {marker!r} exists already: the one run was attempted; a new freeze needs a new marker"
        )
        raise OutputRefused(msg)


def run_freeze(args: argparse.Namespace, say: Callable[[str], None], warn: Callable[[str], None]) -> int:
    """Run ``freeze`` (module docstring); 0 when the manifest (and signature) are written.

    Raises:
        UsageError (2), PrepareRejected (3: FRZ-1, FRZ-2, FRZ-3, FRZ-5; 4: FRZ-4, FRZ-6, FRZ-7), OutputRefused (5).
    """
    folder, shown = os.path.abspath(args.dir), args.dir
    if not os.path.isdir(folder):
        raise UsageError(f"--dir {args.dir!r} is not a folder")
    marker = os.path.abspath(args.attempt_record) if args.attempt_record is not None else DEFAULT_MARKER
    _refuse_existing(folder, shown, marker)
    key = load_private_key(args.sign_key) if args.sign_key is not None else None
    review_bytes = read_file(args.pre_run_review, "pre-run review")
    entries = verify_manifest(folder, shown, PRE_REVIEW, unlisted=(PRE_REVIEW,))
    if PREPARED not in entries:
        where = posixpath.join(shown, PRE_REVIEW)
        raise _integrity("FRZ-1", where, f"the manifest of an assembled D, listing {PREPARED}", "no such line")
    manifest_sha = file_sha256(os.path.join(folder, PRE_REVIEW))
    review = read_pre_run_review(args.pre_run_review, review_bytes, manifest_sha256=manifest_sha)
    record = {
        "schema": FREEZE_SCHEMA,
        "preparedJsonSha256": entries[PREPARED],
        "preReviewManifestSha256": manifest_sha,
        "preRunReviewSha256": review.sha256,
        "evaluatorIdentityDigest": review.evaluator_identity_digest,
        "attemptRecord": marker,
    }
    record_bytes = json_text(record).encode("utf-8")
    frozen = {**entries, PRE_REVIEW: manifest_sha, REVIEW_COPY: review.sha256}
    frozen[FREEZE_RECORD] = hashlib.sha256(record_bytes).hexdigest()
    manifest = render_manifest(frozen)
    closure_check.recheck()  # every module freeze used is loaded: the sealed closure still holds them
    for name, data in ((REVIEW_COPY, review_bytes), (FREEZE_RECORD, record_bytes), (PRE_RUN, manifest)):
        warning = write_exclusive(os.path.join(folder, name), data)
        if warning is not None:
            warn(warning)
    if key is not None:
        warning = write_exclusive(os.path.join(folder, SIGNATURE), key.sign(manifest))
        if warning is not None:
            warn(warning)
        say(f"signed: {posixpath.join(shown, SIGNATURE)} (public key {fingerprint(key.public_key())})")
    say(f"{entries[PREPARED]}  {PREPARED}")
    say(f"{hashlib.sha256(manifest).hexdigest()}  {PRE_RUN}")
    shown_marker = marker if os.path.isabs(marker) else posixpath.join(shown, marker)
    say(f"attempt marker: {shown_marker} (ablation run --attempt-record; make run ATTEMPT_RECORD=)")
    return 0
