"""``ablation archive``: write the evidence bundle of one input and its results file.

The bundle's bytes depend only on its contents (and on the zlib that
compresses them): see :mod:`ablation.bundle.tarformat` for the format and
:mod:`ablation.bundle.layout` for the layout; ``--evidence`` is read by
:mod:`ablation.bundle.evidence`. PRODUCT.md "Evidence bundle".
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from ablation.bundle.evidence import collect_extras
from ablation.bundle.keys import fingerprint, load_private_key
from ablation.bundle.layout import (
    INDEX,
    SIGNATURE,
    SUMS,
    check_name,
    top_folder,
)
from ablation.bundle.prepared import ParsedInput
from ablation.bundle.recompute import require_recomputed
from ablation.bundle.sums import render_sums
from ablation.bundle.tarformat import MAX_MTIME, bundle_bytes
from ablation.canonical import sha256_hex
from ablation.errors import UsageError
from ablation.output import dumps, read_file, refuse_existing, write_exclusive
from ablation.pipeline import LoadedInput, load_input
from ablation.results_file import RecordedResults, check_input_hashes, load_results

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

__all__ = ["create_bundle", "source_date_epoch"]


def source_date_epoch(environ: Mapping[str, str]) -> int:
    """The members' mtime: ``SOURCE_DATE_EPOCH`` when set and not empty, else 0.

    Raises:
        UsageError: not a decimal integer from 0 to 8589934591 (the largest
            value of the tar mtime field; a milliseconds epoch is out of range).
    """
    value = environ.get("SOURCE_DATE_EPOCH", "")
    if value == "":
        return 0
    if not (value.isascii() and value.isdigit() and len(value) <= len(str(MAX_MTIME)) and int(value) <= MAX_MTIME):
        shown = value if len(value) <= 40 else f"{value[:40]}… ({len(value)} characters)"
        msg = (
            f"SOURCE_DATE_EPOCH must be a decimal integer from 0 to {MAX_MTIME} (seconds since 1970, "
            f"the range of the tar mtime field), got {shown!r}"
        )
        raise UsageError(msg)
    return int(value)


def _recorded_results(results_path: str, loaded: LoadedInput, input_name: str) -> tuple[bytes, RecordedResults]:
    """The results file's bytes and parsed value, once it is one and names the input's hashes.

    Raises:
        UsageError: unreadable, not a results file (exit 2).
        IntegrityError: another input's, or a foreign evaluator digest (exit 3).
    """
    results = read_file(results_path, "results file")
    shown = f"results file {results_path!r}"
    recorded = load_results(results, shown, UsageError)
    check_input_hashes(recorded, shown, input_name, loaded.sha256, loaded.gzip_sha256)
    return results, recorded


def _contents(
    member: str, loaded: LoadedInput, parsed: ParsedInput, fixed: Mapping[str, bytes], signer: Ed25519PrivateKey | None
) -> dict[str, bytes]:
    """Every file below the top folder: the input as read, the evidence, ``fixed``, ``SHA256SUMS`` and the signature.

    ``fixed`` holds ``results.json``, ``identity.json`` and the ``extra/`` files.
    ``SHA256SUMS`` takes the input's digest from :func:`load_input`, which hashed
    those very bytes; it hashes every other file.
    """
    evidence, index = parsed.evidence(input_sha256=loaded.sha256, input_member=member)
    files = {member: loaded.as_given, INDEX: index, **fixed}
    files.update((f.path, f.data) for f in evidence)
    files[SUMS] = render_sums(files, {member: loaded.gzip_sha256 or loaded.sha256})
    if signer is not None:
        files[SIGNATURE] = signer.sign(files[SUMS])
    return files


def _recomputed_bundle(
    parsed: ParsedInput,
    top: str,
    files: dict[str, bytes],
    mtime: int,
    results: bytes,
    recorded: RecordedResults,
    shown: str,
) -> bytes:
    """The bundle's bytes, once ``results`` equals the recomputation of the input (IntegrityError otherwise).

    The tar.gz is compressed while the input is validated and evaluated (zlib releases the GIL).

    Raises:
        InputRejected / RejectedInput: the input is not admissible (exit 4).
    """
    with ThreadPoolExecutor(max_workers=1) as pool:
        compressing = pool.submit(bundle_bytes, top, files, mtime=mtime)
        require_recomputed(results, recorded, parsed.evaluate(), shown)
        return compressing.result()


def _identity_bytes() -> bytes:
    """``identity.json``: the current evaluator identity, canonical, with a final newline."""
    from ablation.identity import evaluator_identity  # noqa: PLC0415 - measured only when archiving

    return (dumps(evaluator_identity()) + "\n").encode()


def create_bundle(
    *,
    input_path: str,
    results_path: str,
    bundle_path: str,
    evidence_paths: Sequence[str] = (),
    sign_key_path: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[str, str | None, str | None]:
    """Write the evidence bundle of one input and its results file.

    Returns:
        ``(bare hex SHA-256 of the bundle, durability warning, fingerprint)``: the warning (or ``None``)
        is :func:`ablation.output.write_exclusive`'s; the fingerprint (:func:`ablation.bundle.keys.fingerprint`)
        is the signing key's, ``None`` when the bundle is not signed.

    Steps: refuse an existing bundle; read the signing key and ``--evidence`` files; read the
    input once (a ``.json.gz`` is decompressed; the bundle keeps the bytes read); the results file
    must be one (not JSON or the wrong shape is a usage error), name the input's hashes, and equal
    the recomputation byte-for-byte; parse the input once (:class:`ParsedInput`), for the raw
    owner artifacts and then the recomputation; write ``identity.json``, ``SHA256SUMS`` and the
    optional signature; write the deterministic tar.gz with exclusive create. It is compressed
    while the input is validated and evaluated, and written only once they matched.

    Args:
        input_path: the prepared input (``.json`` or ``.json.gz``).
        results_path: an existing results file of that input.
        bundle_path: the new bundle (never overwritten).
        evidence_paths: extra files or folders, archived below ``extra/``.
        sign_key_path: an Ed25519 PEM private key; signs ``SHA256SUMS``.
        environ: the environment (default ``os.environ``), read for ``SOURCE_DATE_EPOCH``.

    Raises:
        OutputRefused: the bundle exists or cannot be written (exit 5).
        IntegrityError: the results file names another input, records an
            evaluator digest that is not its own, or differs from the recomputation;
            an ``--evidence`` entry changed while it was read (exit 3).
        InputRejected / RejectedInput: the input does not validate (exit 4).
        UsageError: unreadable files, a results file that is not one, a bad
            or weak key, a bad ``SOURCE_DATE_EPOCH``, an unlistable file name,
            an ``--evidence`` path that is or holds a symbolic link or a special
            file, or is over the walk's bounds (:func:`collect_extras`) (exit 2).

    Side effects: reads the inputs; creates ``bundle_path``.
    """
    refuse_existing(bundle_path)
    mtime = source_date_epoch(os.environ if environ is None else environ)
    signer = load_private_key(sign_key_path) if sign_key_path is not None else None
    extras = collect_extras(evidence_paths)
    input_name = Path(input_path).name
    check_name(input_name, "input file name")
    loaded = load_input(input_path)
    results, recorded = _recorded_results(results_path, loaded, f"input {input_path!r}")
    fixed = {"results.json": results, "identity.json": _identity_bytes(), **extras}
    parsed = ParsedInput(loaded.data)
    files = _contents(f"input/{input_name}", loaded, parsed, fixed, signer)
    top, shown = top_folder(loaded.sha256), f"results file {results_path!r}"
    data = _recomputed_bundle(parsed, top, files, mtime, results, recorded, shown)
    warning = write_exclusive(bundle_path, data)
    return sha256_hex(data), warning, None if signer is None else fingerprint(signer)
