"""The review notes as a whole: :func:`build_notes` (pure) and :func:`render_notes` (reads the files)."""

from __future__ import annotations

from collections.abc import Callable

from ablation.canonical import sha256_hex
from ablation.errors import IntegrityError, UsageError
from ablation.notes.cite import Signature, _cite, _digests, _image, _signature, image_warning
from ablation.notes.figures import _Results, figures_problem
from ablation.notes.markdown import _NONE, _code
from ablation.notes.review import _costs, _decision, _gates, _limitations, _staleness, _structural
from ablation.notes.tables import _per_repository, _populations, _repositories
from ablation.output import read_file
from ablation.results_file import RecordedResults, check_input_hashes, load_results


def build_notes(
    recorded: RecordedResults,
    *,
    results_sha256: str,
    bundle_sha256: str | None = None,
    sums_sha256: str | None = None,
    signature: Signature | None = None,
    image_digest: str | None = None,
) -> str:
    """The review-notes Markdown for a parsed results file (pure; no I/O).

    Args:
        recorded: the results file as :func:`ablation.results_file.load_results` returns it.
        results_sha256: hex SHA-256 of the results file's bytes.
        bundle_sha256: hex SHA-256 of the evidence bundle, when one is cited.
        sums_sha256: hex SHA-256 of that bundle's ``SHA256SUMS`` (its content digest).
        signature: the bundle's signature status, when a bundle is cited.
        image_digest: a container image ID asserted by the caller.

    Returns:
        The Markdown text, ending in one newline.
    """
    r = _Results(recorded)
    bundle = None if bundle_sha256 is None else (bundle_sha256, sums_sha256 or _NONE)
    header = [
        f"# Review notes (draft): {_code(r.result.get('protocol'), cell=False)}",
        "",
        "Drafted by `ablation notes` from one results file, for the independent reviewer. Every figure below is "
        "recorded in, or computed exactly from, that file. Nothing here is an adoption decision.",
    ]
    sections = (
        header,
        _cite(r, results_sha256, bundle, signature, image_digest),
        _signature(signature),
        _image(r, image_digest),
        _digests(r, results_sha256, bundle),
        _repositories(r),
        _populations(r),
        _per_repository(r),
        _gates(r),
        _staleness(r),
        _structural(r),
        _costs(r),
        _limitations(),
        _decision(),
    )
    lines = [line for section in sections for line in (*section, "")]  # a blank line after each section
    return "\n".join(lines[:-1]) + "\n"


def render_notes(
    *,
    results_path: str,
    bundle_path: str | None = None,
    image_digest: str | None = None,
    public_key_path: str | None = None,
    warn: Callable[[str], None] | None = None,
) -> str:
    """Read a results file (and the bundle it was archived in) and draft the review notes.

    The results file is read with :func:`ablation.results_file.load_results` (never
    a traceback: not JSON, nested too deep, the wrong shape are one line) and
    :func:`figures_problem`. With ``--bundle`` the bundle must hold the same
    results bytes, and the results file must name the bundled input's hashes
    (``inputGzipSha256`` exactly when that input is a ``.gz`` file); with
    ``--public-key`` its ``SHA256SUMS.sig`` must verify, as for
    ``verify-archive --public-key``. Without a bundle there is no input to
    compare with, so only the shape of ``inputSha256``/``inputGzipSha256`` is
    checked.

    Args:
        results_path: the results file written by ``ablation run``.
        bundle_path: the evidence bundle; its ``results.json`` must be the same bytes.
        image_digest: a container image ID to cite, marked as asserted.
        public_key_path: an Ed25519 PEM public key to check the bundle's signature with.
        warn: called with :func:`image_warning`'s text when there is one.

    Raises:
        UsageError: an unreadable file, a file that is not an ablation results file,
            ``--public-key`` without ``--bundle``, or a key that is not an Ed25519
            PEM public key or is weak (exit 2).
        IntegrityError: the results file's ``evaluator.identityDigest`` is not
            the digest of its ``evaluator.measured``; the bundle is unreadable,
            holds another results file, or an input whose hashes the results
            file does not name; a public key was given and the bundle is not
            signed or its signature is not by that key (exit 3).

    Side effects: reads the files.
    """
    if public_key_path is not None and bundle_path is None:
        msg = "--public-key checks a bundle's signature: give the bundle with --bundle"
        raise UsageError(msg)
    data, recorded = _read_results(results_path)
    bundle_sha = sums_sha = signature = None
    if bundle_path is not None:
        bundle_sha, sums_sha, signature = _bundle_facts(bundle_path, public_key_path, results_path, data, recorded)
    warning = image_warning(recorded, image_digest)
    if warning is not None and warn is not None:
        warn(warning)
    return build_notes(
        recorded,
        results_sha256=sha256_hex(data),
        bundle_sha256=bundle_sha,
        sums_sha256=sums_sha,
        signature=signature,
        image_digest=image_digest,
    )


def _read_results(results_path: str) -> tuple[bytes, RecordedResults]:
    """The results file's bytes and parsed value, checked as :func:`render_notes` says (UsageError)."""
    data = read_file(results_path, "results file")
    shown = f"results file {results_path!r}"
    recorded = load_results(data, shown, UsageError)
    problem = figures_problem(recorded)
    if problem is not None:
        msg = f"{shown}: not an ablation results file: {problem}"
        raise UsageError(msg)
    return data, recorded


def _bundle_facts(
    bundle_path: str, public_key_path: str | None, results_path: str, data: bytes, recorded: RecordedResults
) -> tuple[str, str, Signature]:
    """The bundle's SHA-256, its ``SHA256SUMS`` SHA-256 and its signature, once it is known to hold ``data``.

    Raises IntegrityError as :func:`render_notes` says.
    """
    from ablation.bundle.bundled import check_signature, read_bundled  # noqa: PLC0415 - the bundle's narrow interface

    bundled = read_bundled(bundle_path)
    if bundled.results != data:
        msg = f"{bundled.top}/results.json: the bundle {bundle_path!r} holds another results file than {results_path!r}"
        raise IntegrityError(msg)
    check_input_hashes(
        recorded,
        f"{bundled.top}/results.json",
        f"{bundled.top}/{bundled.input.member}",
        bundled.input.sha256,
        bundled.input.gzip_sha256,
    )
    checked = check_signature(bundled, public_key_path)
    return bundled.bundle_sha256, bundled.sums_sha256, Signature(checked.status, checked.fingerprint)
