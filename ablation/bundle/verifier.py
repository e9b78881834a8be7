"""``ablation verify-archive``: re-check a bundle and recompute its result in the current environment.

Verification is a sequence of named checks (:data:`CHECKS`), each one small
function that raises :class:`IntegrityError` naming the member and what
differs, or returns the line the report prints for it. PRODUCT.md "Evidence bundle".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from ablation.bundle.bundled import BundledInput, bundled_input, fail
from ablation.bundle.keys import fingerprint, load_public_key, verifies
from ablation.bundle.layout import INDEX, SIGNATURE, SUMS, shown, top_folder, utf8_key
from ablation.bundle.prepared import ParsedInput
from ablation.bundle.reader import BundleContents, read_bundle_file
from ablation.bundle.recompute import identity_differences, require_recomputed
from ablation.canonical import sha256_hex
from ablation.closure import LAYERS
from ablation.errors import InputRejected, IntegrityError, RejectedInput
from ablation.results_file import RecordedIdentity, RecordedResults, check_input_hashes, load_identity, load_results

__all__ = ["CHECKS", "BundleReport", "verify_bundle"]

SignatureStatus = Literal["verified", "unchecked", "absent"]


def differing_layers(differences: tuple[str, ...]) -> str:
    """Which closure layers (PRODUCT.md "evaluator") differ, as one phrase for the report.

    >>> differing_layers(("/measured/closure/layers/stdlib/digest", "/measured/closure/manifestDigest"))
    'that differ: stdlib (equal: package, dependencies, interpreter)'
    >>> differing_layers(("/measured/closure/layers",))
    'cannot be compared: one identity has no closure layers'
    """
    if any(d == "/measured/closure/layers" or d == "/measured/closure" for d in differences):
        return "cannot be compared: one identity has no closure layers"
    differ = [layer for layer in LAYERS if any(d.startswith(f"/measured/closure/layers/{layer}/") for d in differences)]
    if not differ:
        return "all equal"
    equal = [layer for layer in LAYERS if layer not in differ]
    return f"that differ: {', '.join(differ)}" + (f" (equal: {', '.join(equal)})" if equal else "")


@dataclass(slots=True)
class _Verification:
    """What the checks have established so far (each check fills in its part)."""

    contents: BundleContents
    public_key: Ed25519PublicKey | None
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
    return (
        "read without extracting: one gzip member and GNU tar headers exactly as archive writes them; "
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


@dataclass(frozen=True, slots=True, kw_only=True)
class BundleReport:
    """What :func:`verify_bundle` checked and found in a valid bundle.

    Attributes:
        bundle: the bundle path as given.
        bundle_sha256: hex SHA-256 of the bundle file.
        sums_sha256: hex SHA-256 of ``SHA256SUMS``, the content digest (the
            compressed bytes may differ where the content does not).
        top: the top folder.
        input_member: ``input/<name>``.
        input_sha256: hex SHA-256 of the input's JSON bytes (decompressed for ``.gz``).
        input_gzip_sha256: hex SHA-256 of a ``.gz`` input file, else ``None``.
        results_sha256: hex SHA-256 of ``results.json``.
        results_identity_digest: the ``identityDigest`` recorded in ``results.json``.
        file_count, evidence_file_count, extra_file_count: regular files in the bundle.
        checks: what was checked, in order.
        recorded_identity_digest: ``identityDigest`` of ``identity.json``.
        current_identity_digest: ``identityDigest`` of the evaluator running now.
        identity_differences: pointers where ``identity.json`` differs from the
            current identity (empty when equal; reported, never an error).
        signature: ``verified``, ``unchecked`` (present, no public key) or ``absent``.
        public_key: ``sha256:`` fingerprint (of the DER SubjectPublicKeyInfo) of the public key used.
    """

    bundle: str
    bundle_sha256: str
    sums_sha256: str
    top: str
    input_member: str
    input_sha256: str
    input_gzip_sha256: str | None
    results_sha256: str
    results_identity_digest: object
    file_count: int
    evidence_file_count: int
    extra_file_count: int
    checks: tuple[str, ...]
    recorded_identity_digest: object
    current_identity_digest: object
    identity_differences: tuple[str, ...]
    signature: SignatureStatus
    public_key: str | None

    @property
    def identity_equal(self) -> bool:
        """Whether ``identity.json`` equals the current evaluator identity."""
        return not self.identity_differences

    def _identity_line(self) -> str:
        if self.identity_equal:
            return "identity: identity.json equals the current evaluator identity"
        listed = ", ".join(self.identity_differences[:8])
        more = len(self.identity_differences) - 8
        listed += f" and {more} more" if more > 0 else ""
        return (
            f"identity: identity.json DIFFERS from the current evaluator identity at {listed} "
            "(reported, not an error: the result was recomputed here and matched)\n"
            f"identity: closure layers {differing_layers(self.identity_differences)}"
        )

    def _signature_line(self) -> str:
        if self.signature == "verified":
            return f"signature: SHA256SUMS.sig verified with public key {self.public_key}"
        if self.signature == "unchecked":
            return "signature: SHA256SUMS.sig present but NOT checked (no --public-key given)"
        return "signature: none (the bundle is not signed)"

    def render(self) -> str:
        """The human-readable report printed by ``ablation verify-archive`` (no trailing newline)."""
        lines = [
            f"bundle {self.bundle}: valid",
            f"  bundle sha256          {self.bundle_sha256}",
            f"  content sha256         {self.sums_sha256} (SHA-256 of SHA256SUMS; cite it beside the bundle's)",
            f"  top folder             {self.top}/",
            f"  input                  {self.input_member}",
            f"  input sha256           {self.input_sha256} (JSON bytes)",
        ]
        if self.input_gzip_sha256 is not None:
            lines.append(f"  input gzip sha256      {self.input_gzip_sha256}")
        lines += [
            f"  results.json sha256    {self.results_sha256}",
            f"  results evaluator      identityDigest {self.results_identity_digest}",
            f"  identity.json          identityDigest {self.recorded_identity_digest}",
            f"  current evaluator      identityDigest {self.current_identity_digest}",
            f"  files                  {self.file_count} ({self.evidence_file_count} evidence, "
            f"{self.extra_file_count} extra)",
            "checked:",
        ]
        lines += [f"  - {check}" for check in self.checks]
        return "\n".join([*lines, self._identity_line(), self._signature_line()])


def _report(bundle_path: str, v: _Verification, checks: tuple[str, ...]) -> BundleReport:
    contents, bundled = v.contents, v.input
    assert v.identity is not None  # check_identity ran
    return BundleReport(
        bundle=bundle_path,
        bundle_sha256=contents.bundle_sha256,
        sums_sha256=contents.sums_sha256,
        top=contents.top,
        input_member=bundled.member,
        input_sha256=bundled.sha256,
        input_gzip_sha256=bundled.gzip_sha256,
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
    )


def verify_bundle(bundle_path: str, *, public_key_path: str | None = None) -> BundleReport:
    """Re-check an evidence bundle and recompute its result in the current environment.

    The key is loaded first (a weak or malformed key is a usage error); the
    bundle is read once by the strict reader; then :data:`CHECKS` run in order.

    Args:
        bundle_path: the bundle file.
        public_key_path: an Ed25519 PEM public key to check ``SHA256SUMS.sig`` with.

    Returns:
        The report of a valid bundle.

    Raises:
        IntegrityError: ``<member>: <what differs>`` for the first failure (exit 3).
        UsageError: unreadable bundle or key file, a key that is not Ed25519 or is weak (exit 2).

    Side effects: reads the bundle and the key; measures the current evaluator identity.
    """
    public_key = load_public_key(public_key_path) if public_key_path is not None else None
    v = _Verification(contents=read_bundle_file(bundle_path), public_key=public_key)
    lines = [check(v) for check in CHECKS]
    return _report(bundle_path, v, tuple(line for line in lines if line is not None))
