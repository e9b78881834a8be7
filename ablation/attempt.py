"""The one-shot run's attempt marker: ``run --attempt-record PATH`` spends the experiment's one run.

PREPARE.md §7 "One-shot ``ablation run``": after refusing an existing output
and before the input is hashed or read, ``run`` creates the marker at PATH,
exclusively (an existing file, symbolic link or dangling link is exit 5) and
durably (the file and its folder fsynced), so that a second run with the same
marker stops (exit 5) before it reads the input. From then on the attempt is
spent: a hash mismatch or a rejected input leaves the marker in place.

The marker is written like the output file (2-space indent, UTF-8, one
trailing newline), members in this order::

    {
      "schema": "ablation.attempt_record.v1",
      "inputSha256": "<the pinned --input-sha256, bare lowercase hex>",
      "preRunManifestSha256": "<--pre-run-manifest-sha256>" or null,
      "output": "<--output as given>",
      "identityDigest": "sha256:<the evaluator identity digest>"
    }

It is published as every output is (:func:`ablation.output.write_exclusive`:
complete or absent, never overwritten), so it is never seen half written.
"""

from __future__ import annotations

import os

from ablation.errors import OutputRefused, UsageError
from ablation.output import render_output, write_exclusive

__all__ = ["SCHEMA", "attempt_record", "spend_attempt"]

SCHEMA = "ablation.attempt_record.v1"


def attempt_record(
    *, input_sha256: str, pre_run_manifest_sha256: str | None, output: str, identity_digest: str
) -> bytes:
    """The marker's bytes (members and format above).

    Raises:
        UsageError: ``output`` is not UTF-8 text (a file name the marker cannot record; exit 2).
    """
    try:
        output.encode("utf-8")
    except UnicodeEncodeError:
        msg = f"--output {output!r} is not valid UTF-8, so the attempt record cannot name it"
        raise UsageError(msg) from None
    return render_output(
        {
            "schema": SCHEMA,
            "inputSha256": input_sha256,
            "preRunManifestSha256": pre_run_manifest_sha256,
            "output": output,
            "identityDigest": identity_digest,
        }
    )


def spend_attempt(path: str, record: bytes, *, output: str) -> str | None:
    """Create the marker at ``path`` with ``record`` (:func:`attempt_record`), exclusively and durably.

    Returns:
        ``None``, or the durability warning of :func:`ablation.output.write_exclusive`
        (the marker is in place, but its folder could not be fsynced).

    Raises:
        UsageError: ``path`` and ``output`` name the same file (exit 2; nothing written).
        OutputRefused: ``path`` exists as anything, a dangling symbolic link
            included, or cannot be written (exit 5): the attempt was already
            spent, or cannot be spent here.
        ResourcesExhausted: no file descriptor or kernel memory (exit 6).
        IntegrityError: the sealed closure changed (exit 3).

    Side effects: creates ``path``; fsyncs it and its folder.
    """
    if os.path.abspath(path) == os.path.abspath(output):
        msg = f"--attempt-record {path!r} names the output file; give the marker a path of its own"
        raise UsageError(msg)
    if os.path.lexists(path):
        msg = (
            f"attempt record {path!r} already exists: this experiment's one run was already attempted "
            "(the input was not read); it is never overwritten"
        )
        raise OutputRefused(msg)
    return write_exclusive(path, record)
