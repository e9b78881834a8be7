"""The main job as functions: load and hash-check the input, validate, evaluate, assemble.

I/O stays at the edge: :func:`load_input` reads one file; everything else is
pure. The CLI, the archive verifier and the tests all go through here.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from typing import BinaryIO

from ablation.canonical import sha256_hex
from ablation.errors import RESOURCE_ERRNOS, InputRejected, IntegrityError, ResourcesExhausted, UsageError
from ablation.experiment import ValidatedExperiment, validate_experiment
from ablation.files import open_regular
from ablation.gates import assess_gates
from ablation.gzipfile import gunzip_members
from ablation.result import CaseOutcome, build_result, evaluate_cases

__all__ = [
    "DEFAULT_MAX_INPUT_BYTES",
    "Evaluation",
    "LoadedInput",
    "evaluate",
    "evaluate_experiment",
    "gunzip_members",
    "hash_arguments",
    "load_input",
    "output_members",
]

DEFAULT_MAX_INPUT_BYTES = 1 << 30
_HEX64 = re.compile(r"[0-9a-fA-F]{64}")


@dataclass(frozen=True, slots=True)
class LoadedInput:
    """The exact input bytes and their hashes.

    Attributes:
        data: the JSON bytes that are parsed (decompressed for ``.json.gz``).
        sha256: bare lowercase hex SHA-256 of ``data``.
        gzip_sha256: hex SHA-256 of the compressed file, for a gzip input.
        pinned: whether the caller supplied ``--input-sha256`` (and it matched).
        as_given: the file's bytes as read, hashed and decompressed (``data``
            itself for a plain ``.json``), which ``archive`` bundles.
    """

    data: bytes
    sha256: str
    gzip_sha256: str | None
    pinned: bool
    as_given: bytes


def _hex_argument(value: str | None, option: str) -> str | None:
    if value is None:
        return None
    if _HEX64.fullmatch(value) is None:
        msg = f"{option} must be 64 hexadecimal digits, got {value!r}"
        raise UsageError(msg)
    return value.lower()


def hash_arguments(path: str, input_sha256: str | None, input_gzip_sha256: str | None) -> tuple[str | None, str | None]:
    """``--input-sha256`` and ``--input-gzip-sha256`` as bare lowercase hex, checked before anything is read.

    ``run --attempt-record`` checks them before it spends the attempt, so a
    typo never costs the one run (PREPARE.md §7).

    Raises:
        UsageError: a value that is not 64 hexadecimal digits, or a gzip hash
            for an input whose name does not end in ``.gz`` (exit 2).
    """
    want = _hex_argument(input_sha256, "--input-sha256")
    want_gzip = _hex_argument(input_gzip_sha256, "--input-gzip-sha256")
    if want_gzip is not None and not path.endswith(".gz"):
        msg = "--input-gzip-sha256 applies only to a .gz input"
        raise UsageError(msg)
    return want, want_gzip


_CHUNK = 1 << 20  # bytes read per step once the data's own size is known


def _read_bounded(handle: BinaryIO, limit: int) -> bytes | None:
    """Read to the end, allocating what the data needs, not the bound; ``None`` past ``limit`` bytes.

    A regular file whose size (``fstat``) exceeds ``limit`` is not read at
    all; otherwise the first read asks for that size plus one byte, so a
    regular file is read in one piece. Anything else (a pipe, a device, a
    file that grows) continues in 1 MiB pieces and stops at ``limit + 1``
    bytes.
    """
    try:
        status = os.fstat(handle.fileno())
    except (OSError, ValueError):
        status = None
    size = status.st_size if status is not None and stat.S_ISREG(status.st_mode) else 0
    if size > limit:
        return None
    want = size + 1
    chunks: list[bytes] = []
    total = 0
    while total <= limit:
        chunk = handle.read(min(want, limit + 1 - total))
        if not chunk:
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        want = _CHUNK
    return None


# Hints for the one mix-up the two hashes of a .json.gz invite (issue 12 item 3).
_GIVEN_THE_GZIP_HASH = (
    "; the expected hash is the SHA-256 of the compressed .json.gz file itself: give it as "
    "--input-gzip-sha256 (make: INPUT_GZIP_SHA256), and the SHA-256 of the decompressed JSON as "
    "--input-sha256 (make: INPUT_SHA256)"
)
_SWAPPED_TO_GZIP = (
    "; the expected hash is the SHA-256 of the decompressed JSON: give it as --input-sha256 "
    "(make: INPUT_SHA256), and the SHA-256 of the .json.gz file itself as --input-gzip-sha256 "
    "(make: INPUT_GZIP_SHA256)"
)


def _json_sha256(compressed: bytes, limit: int) -> str | None:
    """SHA-256 of the decompressed bytes, for the hint only; ``None`` when they do not decompress."""
    try:
        return sha256_hex(gunzip_members(compressed, limit))
    except InputRejected:
        return None


def _decompressed(path: str, raw: bytes, want_gzip: str | None, max_input_bytes: int) -> tuple[bytes, str | None]:
    """The JSON bytes of a file read by :func:`load_input` and, for a ``.gz`` file, its checked SHA-256."""
    if not path.endswith(".gz"):
        return raw, None
    gzip_sha = sha256_hex(raw)
    if want_gzip is not None and gzip_sha != want_gzip:
        msg = f"input gzip SHA-256 mismatch: expected {want_gzip}, computed {gzip_sha} over {path!r}"
        if want_gzip == _json_sha256(raw, max_input_bytes):
            msg += _SWAPPED_TO_GZIP
        raise IntegrityError(msg)
    return gunzip_members(raw, max_input_bytes), gzip_sha


def load_input(
    path: str,
    *,
    input_sha256: str | None = None,
    input_gzip_sha256: str | None = None,
    max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES,
) -> LoadedInput:
    """Read the input once and check its hash before anything parses it.

    The file is read once and at most ``max_input_bytes`` plus one byte of it
    (a larger file is rule IN-1, the product's bound on what it reads; a
    regular file is measured first and not read when it is larger); a ``.gz`` file is
    decompressed, its output bounded by the same limit (GZ-1);
    ``input_gzip_sha256`` is checked against the compressed bytes first, and
    ``input_sha256`` against the decompressed JSON bytes.

    Raises:
        UsageError: unreadable file, not a regular file (a FIFO, a device: refused
            without blocking, :func:`ablation.files.open_regular`), or malformed hash argument (exit 2).
        ResourcesExhausted: no file descriptor or kernel memory to read it (exit 6).
        IntegrityError: a hash does not match (exit 3).
        InputRejected: IN-1, a file over the bound; GZ-1, a corrupt or oversize gzip stream (exit 4).

    Side effects: reads ``path``.
    """
    want, want_gzip = hash_arguments(path, input_sha256, input_gzip_sha256)
    if max_input_bytes < 1:
        msg = f"--max-input-bytes must be a positive number of bytes, got {max_input_bytes}"
        raise UsageError(msg)
    with open_regular(path, "input") as handle:
        try:
            raw = _read_bounded(handle, max_input_bytes)
        except OSError as exc:
            msg = f"cannot read input {path!r}: {exc.strerror}"
            raise (ResourcesExhausted if exc.errno in RESOURCE_ERRNOS else UsageError)(msg) from None
    if raw is None:
        raise InputRejected(
            "IN-1",
            f"byte {max_input_bytes}",
            f"an input file of at most {max_input_bytes} bytes",
            "more bytes (raise --max-input-bytes)",
        )
    data, gzip_sha = _decompressed(path, raw, want_gzip, max_input_bytes)
    sha = sha256_hex(data)
    if want is not None and sha != want:
        over = f"the decompressed JSON bytes of {path!r}" if gzip_sha is not None else "the input bytes"
        msg = f"input SHA-256 mismatch: expected {want}, computed {sha} over {over}"
        if want == gzip_sha:
            msg += _GIVEN_THE_GZIP_HASH
        raise IntegrityError(msg)
    return LoadedInput(data=data, sha256=sha, gzip_sha256=gzip_sha, pinned=want is not None, as_given=raw)


@dataclass(frozen=True, slots=True)
class Evaluation:
    """Everything computed from one admissible input."""

    experiment: ValidatedExperiment
    outcomes: tuple[CaseOutcome, ...]
    result: dict[str, object]
    gate_assessment: dict[str, object]


def evaluate(data: bytes, *, collect_all: bool = False) -> Evaluation:
    """Validate, select, measure and assess one prepared input.

    Raises:
        InputRejected / RejectedInput: the input is not admissible (exit 4).

    Spec: SPEC.md §2–§8; PRODUCT.md "gateAssessment".
    """
    return evaluate_experiment(validate_experiment(data, collect_all=collect_all))


def evaluate_experiment(experiment: ValidatedExperiment) -> Evaluation:
    """Select, measure and assess an input already validated (:func:`evaluate` without the validation).

    Spec: SPEC.md §5–§8; PRODUCT.md "gateAssessment".
    """
    outcomes = evaluate_cases(experiment)
    return Evaluation(
        experiment=experiment,
        outcomes=outcomes,
        result=build_result(experiment, outcomes),
        gate_assessment=assess_gates(experiment, outcomes),
    )


def output_members(
    input_sha256: str,
    input_gzip_sha256: str | None,
    pinned: bool,
    evaluation: Evaluation,
    evaluator: Mapping[str, object],
) -> dict[str, object]:
    """The results file's members in PRODUCT.md order.

    ``run`` writes them; ``archive`` and ``verify-archive`` re-render a recorded file with them.

    Args:
        input_sha256: hex SHA-256 of the input's JSON bytes.
        input_gzip_sha256: hex SHA-256 of a ``.json.gz`` file as given; ``None`` (member left out) for plain JSON.
        pinned: whether ``--input-sha256`` pinned the input.
        evaluation: the result and gate assessment.
        evaluator: the evaluator identity object.
    """
    members: dict[str, object] = {"inputSha256": input_sha256}
    if input_gzip_sha256 is not None:
        members["inputGzipSha256"] = input_gzip_sha256
    members["inputSha256Pinned"] = pinned
    members["result"] = evaluation.result
    members["gateAssessment"] = evaluation.gate_assessment
    members["evaluator"] = evaluator
    return members
