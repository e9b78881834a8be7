"""The review notes as a whole: :func:`build_notes` (pure) and :func:`render_notes` (reads the files)."""

from __future__ import annotations

from collections.abc import Callable

from ablation.canonical import sha256_hex
from ablation.errors import IntegrityError, UsageError
from ablation.notes.cite import Recomputed, Signature, _cite, _digests, _image, _signature, image_warning
from ablation.notes.figures import _Results
from ablation.notes.markdown import _NONE, _code
from ablation.notes.review import _costs, _decision, _gates, _limitations, _staleness, _structural
from ablation.notes.tables import _per_repository, _populations, _repositories
from ablation.output import read_file
from ablation.recorded import ResultsFile, load_results_file
from ablation.recorded.derive import contradictions
from ablation.recorded.schema import ShapeError
from ablation.results_file import RecordedResults


def build_notes(
    recorded: ResultsFile | RecordedResults,
    *,
    results_sha256: str,
    bundle_sha256: str | None = None,
    sums_sha256: str | None = None,
    signature: Signature | None = None,
    image_digest: str | None = None,
    recomputed: Recomputed | None = None,
) -> str:
    """The review-notes Markdown for a typed results file (pure; no I/O).

    Args:
        recorded: the results file (:class:`~ablation.recorded.ResultsFile`; a
            :class:`~ablation.results_file.RecordedResults` is typed here and
            raises :class:`~ablation.recorded.schema.ShapeError` when it is not what ``run`` writes).
        results_sha256: hex SHA-256 of the results file's bytes.
        bundle_sha256: hex SHA-256 of the evidence bundle, when one is cited.
        sums_sha256: hex SHA-256 of that bundle's ``SHA256SUMS`` (its content digest).
        signature: the bundle's signature status, when a bundle is cited.
        image_digest: a container image ID asserted by the caller.
        recomputed: how the result was recomputed from the bundle, ``None`` when it was not.

    Returns:
        The Markdown text, ending in one newline.
    """
    r = _Results(recorded)
    bundle = None if bundle_sha256 is None else (bundle_sha256, sums_sha256 or _NONE)
    header = [
        f"# Review notes (draft): {_code(r.result.protocol, cell=False)}",
        "",
        "Drafted by `ablation notes` from one results file, for the independent reviewer. Every figure below is "
        "recorded in, or computed exactly from, that file. Nothing here is an adoption decision.",
    ]
    sections = (
        header,
        _cite(r, results_sha256, bundle, signature, image_digest, recomputed),
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
    results_path: str | None = None,
    bundle_path: str | None = None,
    image_digest: str | None = None,
    public_key_path: str | None = None,
    expect_key: str | None = None,
    warn: Callable[[str], None] | None = None,
) -> str:
    """Read a results file, or a bundle (checked and recomputed as ``verify-archive`` does), and draft the notes.

    With ``bundle_path`` the ``.tar.gz`` is read directly, never extracted
    (:func:`ablation.bundle.verifier.verify_bundle`: format, ``SHA256SUMS``,
    the signature with ``public_key_path`` and ``expect_key``, the input
    recomputed in this evaluator); its ``results.json`` is the results file,
    and ``results_path``, when given too, must be the same bytes. Without a
    bundle the results file is read alone and nothing is recomputed. Either
    way the file is typed once (:func:`ablation.recorded.load_results_file`)
    and its gate rows re-derived from its own figures
    (:func:`ablation.recorded.derive.contradictions`): a contradiction is
    refused, never drafted.

    Raises:
        UsageError: neither file given; an unreadable file; a file that is not
            an ablation results file; ``--public-key`` without ``--bundle``;
            ``--expect-key`` without ``--public-key``; a bad key (exit 2).
        IntegrityError: anything ``verify-archive`` refuses in the bundle; the
            bundle holds another results file; the results file contradicts its
            own figures (naming the gate or case); a wrong evaluator digest (exit 3).

    Side effects: reads the files; with a bundle, measures the current evaluator identity.
    """
    if results_path is None and bundle_path is None:
        msg = "give the results file (--results), its bundle (--bundle), or both"
        raise UsageError(msg)
    if public_key_path is not None and bundle_path is None:
        msg = "--public-key checks a bundle's signature: give the bundle with --bundle"
        raise UsageError(msg)
    if bundle_path is not None:
        return _from_bundle(bundle_path, results_path, image_digest, public_key_path, expect_key, warn)
    assert results_path is not None  # one of the two was given
    data = read_file(results_path, "results file")
    shown = f"results file {results_path!r}"
    _, typed = load_results_file(data, shown, UsageError)
    _refuse_contradictions(typed, shown)
    _warn_image(typed, image_digest, warn)
    return build_notes(typed, results_sha256=sha256_hex(data), image_digest=image_digest)


def _refuse_contradictions(typed: ResultsFile, shown: str) -> None:
    found = contradictions(typed)
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        msg = f"{shown}: contradicts its own figures: {found[0]}{more}; notes are not drafted from it"
        raise IntegrityError(msg)


def _warn_image(typed: ResultsFile, image_digest: str | None, warn: Callable[[str], None] | None) -> None:
    warning = image_warning(typed, image_digest)
    if warning is not None and warn is not None:
        warn(warning)


def _from_bundle(
    bundle_path: str,
    results_path: str | None,
    image_digest: str | None,
    public_key_path: str | None,
    expect_key: str | None,
    warn: Callable[[str], None] | None,
) -> str:
    """The notes of a bundle checked and recomputed as ``verify-archive`` does (raises as :func:`render_notes`)."""
    from ablation.bundle.verifier import verify_bundle  # noqa: PLC0415 - the bundle side, only when a bundle is given

    given = read_file(results_path, "results file") if results_path is not None else None
    report = verify_bundle(bundle_path, public_key_path=public_key_path, expect_key=expect_key)
    data = report.results_json
    if given is not None and given != data:
        msg = f"{report.top}/results.json: the bundle {bundle_path!r} holds another results file than {results_path!r}"
        raise IntegrityError(msg)
    shown = f"{report.top}/results.json"
    try:
        typed = ResultsFile.from_recorded(report.results)
    except ShapeError as exc:  # not once recomputed byte for byte; kept for a bundle of a foreign evaluator
        msg = f"{shown}: not an ablation results file: {exc}"
        raise IntegrityError(msg) from None
    _refuse_contradictions(typed, shown)
    _warn_image(typed, image_digest, warn)
    fingerprint = report.public_key if report.signature == "verified" else None
    recomputed = Recomputed(str(report.current_identity_digest), report.identity_equal, report.framing)
    return build_notes(
        typed,
        results_sha256=sha256_hex(data),
        bundle_sha256=report.bundle_sha256,
        sums_sha256=report.sums_sha256,
        signature=Signature(report.signature, fingerprint, expected=report.key_expected),
        image_digest=image_digest,
        recomputed=recomputed,
    )
