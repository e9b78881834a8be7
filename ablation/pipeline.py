"""The main job as functions: load and hash-check the input, validate, evaluate, assemble.

I/O stays at the edge: :func:`load_input` reads one file; everything else is
pure. The CLI, the archive verifier and the tests all go through here.
"""

from __future__ import annotations

import gzip
import io
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

from ablation.canonical import sha256_hex
from ablation.errors import InputRejected, IntegrityError, UsageError
from ablation.experiment import ValidatedExperiment, validate_experiment
from ablation.gates import assess_gates
from ablation.result import CaseOutcome, build_result, evaluate_cases

__all__ = [
    "DEFAULT_MAX_INPUT_BYTES",
    "Evaluation",
    "LoadedInput",
    "evaluate",
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
    """

    data: bytes
    sha256: str
    gzip_sha256: str | None
    pinned: bool


def _hex_argument(value: str | None, option: str) -> str | None:
    if value is None:
        return None
    if _HEX64.fullmatch(value) is None:
        msg = f"{option} must be 64 hexadecimal digits, got {value!r}"
        raise UsageError(msg)
    return value.lower()


def _gunzip(compressed: bytes, limit: int) -> bytes:
    """Decompress every gzip member, never producing more than ``limit`` bytes (rule GZ-1)."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(compressed), mode="rb") as stream:
            data = stream.read(limit + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputRejected("GZ-1", "byte 0", "a well-formed gzip stream", f"a corrupt stream ({exc})") from None
    if len(data) > limit:
        raise InputRejected("GZ-1", "byte 0", f"at most {limit} decompressed bytes", "more")
    return data


def load_input(
    path: str, *, input_sha256: str | None = None, input_gzip_sha256: str | None = None,
    max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES,
) -> LoadedInput:  # fmt: skip
    """Read the input once and check its hash before anything parses it.

    The file is read once and at most ``max_input_bytes`` of it (a larger file
    is rule IN-1, the product's bound on what it reads); a ``.gz`` file is
    decompressed, its output bounded by the same limit (GZ-1);
    ``input_gzip_sha256`` is checked against the compressed bytes first, and
    ``input_sha256`` against the decompressed JSON bytes.

    Raises:
        UsageError: unreadable file or malformed hash argument (exit 2).
        IntegrityError: a hash does not match (exit 3).
        InputRejected: IN-1, a file over the bound; GZ-1, a corrupt or oversize gzip stream (exit 4).

    Side effects: reads ``path``.
    """
    want = _hex_argument(input_sha256, "--input-sha256")
    want_gzip = _hex_argument(input_gzip_sha256, "--input-gzip-sha256")
    if max_input_bytes < 1:
        msg = f"--max-input-bytes must be a positive number of bytes, got {max_input_bytes}"
        raise UsageError(msg)
    try:
        with Path(path).open("rb") as handle:
            raw = handle.read(max_input_bytes + 1)  # bounded: never more than the limit plus one byte
    except OSError as exc:
        msg = f"cannot read input {path!r}: {exc.strerror}"
        raise UsageError(msg) from None
    if len(raw) > max_input_bytes:
        raise InputRejected("IN-1", f"byte {max_input_bytes}", f"an input file of at most {max_input_bytes} bytes",
                            "more bytes (raise --max-input-bytes)")  # fmt: skip
    gzip_sha = None
    if path.endswith(".gz"):
        gzip_sha = sha256_hex(raw)
        if want_gzip is not None and gzip_sha != want_gzip:
            msg = f"input gzip SHA-256 mismatch: expected {want_gzip}, computed {gzip_sha} over {path!r}"
            raise IntegrityError(msg)
        data = _gunzip(raw, max_input_bytes)
    else:
        if want_gzip is not None:
            msg = "--input-gzip-sha256 applies only to a .gz input"
            raise UsageError(msg)
        data = raw
    sha = sha256_hex(data)
    if want is not None and sha != want:
        msg = f"input SHA-256 mismatch: expected {want}, computed {sha} over the input bytes"
        raise IntegrityError(msg)
    return LoadedInput(data=data, sha256=sha, gzip_sha256=gzip_sha, pinned=want is not None)


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
    experiment = validate_experiment(data, collect_all=collect_all)
    outcomes = evaluate_cases(experiment)
    return Evaluation(
        experiment=experiment,
        outcomes=outcomes,
        result=build_result(experiment, outcomes),
        gate_assessment=assess_gates(experiment, outcomes),
    )


def output_members(loaded: LoadedInput, evaluation: Evaluation, evaluator: dict[str, object]) -> dict[str, object]:
    """The output file's members in PRODUCT.md order."""
    members: dict[str, object] = {"inputSha256": loaded.sha256}
    if loaded.gzip_sha256 is not None:
        members["inputGzipSha256"] = loaded.gzip_sha256
    members["inputSha256Pinned"] = loaded.pinned
    members["result"] = evaluation.result
    members["gateAssessment"] = evaluation.gate_assessment
    members["evaluator"] = evaluator
    return members
