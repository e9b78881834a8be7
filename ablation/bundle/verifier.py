"""``ablation verify-archive``: re-check a bundle and recompute its result in the current environment.

Verification is a sequence of named checks (:data:`CHECKS`), each one small
function that raises :class:`IntegrityError` naming the member and what
differs, or returns the line the report prints for it. PRODUCT.md "Evidence bundle".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from ablation.bundle.bundled import BundledInput, bundled_input, fail
from ablation.bundle.keys import expected_public_key, fingerprint, verifies
from ablation.bundle.layout import INDEX, SIGNATURE, SUMS, shown, top_folder, utf8_key
from ablation.bundle.prepared import ParsedInput
from ablation.bundle.reader import BundleContents, read_bundle_file
from ablation.bundle.recompute import identity_differences, require_recomputed
from ablation.bundle.report import BundleReport, SignatureStatus
from ablation.canonical import sha256_hex
from ablation.errors import InputRejected, IntegrityError, RejectedInput
from ablation.results_file import RecordedIdentity, RecordedResults, check_input_hashes, load_identity, load_results

__all__ = ["CHECKS", "verify_bundle"]


@dataclass(slots=True)
class _Verification:
    """What the checks have established so far (each check fills in its part)."""

    contents: BundleContents
    public_key: Ed25519PublicKey | None
    expected_key: str | None = None
    signature: SignatureStatus = "absent"
    fingerprint: str | None = None
    bundled: BundledInput | None = None
    results: RecordedResults | None = None
    index: bytes = b""
    expected: dict[str, tuple[str, str]] = field(default_factory=dict)  # evidence path -> (hex SHA-256, origin)
    evidence_count: int = 0
    identity: RecordedIdentity | None = None
    current: dict[str, object] = field(default_factory=dict)
    differences: tuple[str, ...] = ()

    @property
    def input(self) -> BundledInput:
        assert self.bundled is not None  # check_layout runs before the checks that use it
        return self.bundled

    @property
    def recorded(self) -> RecordedResults:
        assert self.results is not None  # check_results runs before the checks that use it
        return self.results


def check_stream(v: _Verification) -> str:
    """The reader's own checks (done while streaming): format, names, sizes and ``SHA256SUMS``."""
    framing = "the canonical framing" if v.contents.framing is None else "re-compressed, see framing below"
    return (
        f"read without extracting: well-formed RFC 1952 gzip ({framing}) around GNU tar headers exactly as "
        "archive writes them; "
        "no absolute name, '..', link, device or duplicate; one top folder; sizes within 1 GiB per member "
        f"and 4 GiB in all; {SUMS} lists exactly the {len(v.contents.listed)} files present (besides itself "
        "and the signature), and every SHA-256 matches"
    )


def check_signature(v: _Verification) -> str | None:
    """``SHA256SUMS.sig`` by the given public key; a signature without a key is only reported."""
    top, files = v.contents.top, v.contents.files
    v.signature = "unchecked" if SIGNATURE in files else "absent"
    if v.public_key is None:
        return None
    v.fingerprint = fingerprint(v.public_key)
    if SIGNATURE not in files:
        msg = f"{top}/{SIGNATURE}: missing, but a public key was given"
        if v.expected_key is not None:
            msg = f"{top}/{SIGNATURE}: missing: the bundle is not signed, but --expect-key {v.expected_key} was given"
        raise IntegrityError(msg)
    if not verifies(v.public_key, files[SIGNATURE], files[SUMS]):
        msg = f"{top}/{SIGNATURE}: not a valid signature over {SUMS} by public key {v.fingerprint}"
        raise IntegrityError(msg)
    v.signature = "verified"
    return f"{SIGNATURE} is a valid Ed25519 signature over {SUMS} by public key {v.fingerprint}"


def check_layout(v: _Verification) -> str:
    """One ``input/`` file, ``results.json``, ``identity.json``, ``evidence/index.json``; nothing else outside."""
    v.bundled = bundled_input(v.contents)
    return (
        "layout: one input file, results.json, identity.json, evidence/index.json; "
        "nothing outside input/, evidence/ and extra/"
    )


def check_results(v: _Verification) -> str:
    """``results.json`` is a self-consistent results file naming the input's hashes; the top folder too."""
    top, bundled = v.contents.top, v.input
    member = f"{top}/results.json"
    v.results = load_results(v.contents.files["results.json"], member)
    check_input_hashes(v.results, member, shown(bundled.member), bundled.sha256, bundled.gzip_sha256)
    if top != top_folder(bundled.sha256):
        msg = f"{top}: the top folder does not name the input's SHA-256 (expected {top_folder(bundled.sha256)})"
        raise IntegrityError(msg)
    gzip = "its gzip SHA-256 too" if bundled.gzip_sha256 is not None else "no gzip SHA-256 (the input is not .gz)"
    return (
        f"results.json names the input's SHA-256 {bundled.sha256} and {gzip}; its evaluator "
        "identityDigest is the canonical digest of evaluator.measured"
    )


def check_recomputed(v: _Verification) -> str:
    """The input validates here, and ``result`` and ``gateAssessment`` equal the recomputation byte-for-byte.

    The input is parsed once (:class:`ParsedInput`): the evidence it gives is
    derived and hashed first, for :func:`check_evidence`, and the parse is
    dropped once the input is validated, so that it and the evaluation are
    never in memory together (peak memory stays near ``run``'s).
    """
    top, bundled = v.contents.top, v.input
    try:
        parsed = ParsedInput(bundled.data)
        evidence, v.index = parsed.evidence(input_sha256=bundled.sha256, input_member=bundled.member)
        v.expected = {f.path: (sha256_hex(f.data), f.origin) for f in evidence}
        del evidence
        evaluation = parsed.evaluate()
    except (InputRejected, RejectedInput) as exc:
        msg = f"{top}/{shown(bundled.member)}: does not validate in the current environment: {str(exc).splitlines()[0]}"
        raise IntegrityError(msg) from None
    require_recomputed(v.contents.files["results.json"], v.recorded, evaluation, f"{top}/results.json")
    return "the input validates here; result and gateAssessment recomputed here equal results.json byte-for-byte"


def check_evidence(v: _Verification) -> str:
    """The evidence files and ``evidence/index.json`` equal what the bundled input's raw strings give.

    What they give was derived by :func:`check_recomputed` from its parse of the bundled input.
    """
    top, contents, expected = v.contents.top, v.contents, v.expected
    if contents.files.get(INDEX) != v.index:
        msg = f"{top}/{INDEX}: differs from the index derived from the bundled input"
        raise IntegrityError(msg)
    found = sorted((p for p in contents.digests if p.startswith("evidence/") and p != INDEX), key=utf8_key)
    problems = [
        f"{top}/{shown(p)}: not derived from any raw string of the bundled input" for p in found if p not in expected
    ]
    for path, (digest, origin) in expected.items():
        if path not in contents.digests:
            problems.append(f"{top}/{path}: missing; the bundled input holds {origin} as a string")
        elif contents.digests[path] != digest:
            problems.append(f"{top}/{path}: differs from {origin} in the bundled input")
    fail(problems)
    v.evidence_count = len(expected)
    return f"{len(expected)} evidence files and evidence/index.json equal the raw strings of the bundled input"


def check_identity(v: _Verification) -> str:
    """``identity.json`` is self-consistent; differences from the current identity are only reported."""
    from ablation.identity import evaluator_identity  # noqa: PLC0415 - measured only when verifying

    v.identity = load_identity(v.contents.files["identity.json"], f"{v.contents.top}/identity.json")
    v.current = evaluator_identity()
    v.differences = tuple(identity_differences(v.identity.raw, v.current))
    return "identity.json compared with the current evaluator identity"


CHECKS: tuple[Callable[[_Verification], str | None], ...] = (
    check_stream,
    check_signature,
    check_layout,
    check_results,
    check_recomputed,
    check_evidence,
    check_identity,
)


def _report(bundle_path: str, v: _Verification, checks: tuple[str, ...]) -> BundleReport:
    contents, bundled = v.contents, v.input
    assert v.identity is not None  # check_identity ran
    return BundleReport(
        bundle=bundle_path,
        bundle_sha256=contents.bundle_sha256,
        sums_sha256=contents.sums_sha256,
        framing=contents.framing,
        top=contents.top,
        input_member=bundled.member,
        input_sha256=bundled.sha256,
        input_gzip_sha256=bundled.gzip_sha256,
        input_pinned=v.recorded.input_sha256_pinned,
        results_sha256=contents.digests["results.json"],
        results_identity_digest=v.recorded.evaluator.identity_digest,
        file_count=len(contents.digests),
        evidence_file_count=v.evidence_count + 1,
        extra_file_count=sum(1 for p in contents.digests if p.startswith("extra/")),
        checks=checks,
        recorded_identity_digest=v.identity.identity_digest,
        current_identity_digest=v.current.get("identityDigest"),
        identity_differences=v.differences,
        signature=v.signature,
        public_key=v.fingerprint,
        key_expected=v.expected_key is not None and v.signature == "verified",
        results=v.recorded,
        results_json=contents.files["results.json"],
    )


def verify_bundle(
    bundle_path: str, *, public_key_path: str | None = None, expect_key: str | None = None
) -> BundleReport:
    """Re-check an evidence bundle and recompute its result in the current environment.

    The key is loaded first (a weak or malformed key is a usage error) and,
    with ``expect_key``, its fingerprint compared with it; the bundle is read
    once by the strict reader; then :data:`CHECKS` run in order.

    Args:
        bundle_path: the bundle file.
        public_key_path: an Ed25519 PEM public key to check ``SHA256SUMS.sig`` with.
        expect_key: ``sha256:<64 hex>``, the fingerprint (:func:`ablation.bundle.keys.fingerprint`)
            the public key must have; needs ``public_key_path``.

    Returns:
        The report of a valid bundle.

    Raises:
        IntegrityError: ``<member>: <what differs>`` for the first failure; the
            public key is not the expected one; the bundle is not signed but a
            key was given (exit 3).
        UsageError: unreadable bundle or key file, a key that is not Ed25519 or
            is weak, ``expect_key`` without a public key (exit 2).

    Side effects: reads the bundle and the key; measures the current evaluator identity.
    """
    public_key = expected_public_key(public_key_path, expect_key)
    v = _Verification(contents=read_bundle_file(bundle_path), public_key=public_key, expected_key=expect_key)
    lines = [check(v) for check in CHECKS]
    return _report(bundle_path, v, tuple(line for line in lines if line is not None))
