"""What ``verify-archive`` prints about a valid bundle: :class:`BundleReport`, its lines and its warnings.

The report says, besides the digests and what was checked, the three things a
reviewer could otherwise miss (issue 22 items 1-3): whether the bundle's bytes
are the canonical gzip framing or a re-compression of the same tar, whether the
run was pinned to a preregistered input hash, and whether the signing key is the
one the reviewer expected (``--expect-key``). README "For reviewers";
``docs/incoming/reviewer.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ablation.closure import LAYERS
from ablation.results_file import RecordedResults

__all__ = ["BundleReport", "SignatureStatus", "differing_layers", "framing_line", "pinned_line"]

SignatureStatus = Literal["verified", "unchecked", "absent"]
RECOMPRESSED = "bundle bytes differ from the canonical framing (re-compressed)"
UNPINNED = "NO — not bound to a preregistered hash"


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


def framing_line(framing: str | None, sums_sha256: str) -> str:
    """The report's line on the gzip framing (canonical, or re-compressed and how).

    >>> framing_line(None, "ab")
    'framing: canonical (one gzip member, header 1f8b08000000000002ff, as archive writes it)'
    >>> framing_line("2 gzip members (archive writes one)", "ab").split("; ")[1]
    'content digest ab unchanged: 2 gzip members (archive writes one)'
    """
    if framing is None:
        return "framing: canonical (one gzip member, header 1f8b08000000000002ff, as archive writes it)"
    return f"framing: {RECOMPRESSED}; content digest {sums_sha256} unchanged: {framing}"


def pinned_line(pinned: bool) -> str:
    """The report's line on whether the recorded run was bound to a preregistered input hash."""
    if pinned:
        return "input pinned: yes (the run was given --input-sha256 and the input matched it)"
    return f"input pinned: {UNPINNED} (the run computed the input SHA-256 only; compare it with the preregistration)"


@dataclass(frozen=True, slots=True, kw_only=True)
class BundleReport:
    """What :func:`ablation.bundle.verifier.verify_bundle` checked and found in a valid bundle.

    Attributes:
        bundle: the bundle path as given.
        bundle_sha256: hex SHA-256 of the bundle file.
        sums_sha256: hex SHA-256 of ``SHA256SUMS``, the content digest (the
            compressed bytes may differ where the content does not).
        framing: how the gzip framing differs from the canonical one (re-compressed), ``None`` when it does not.
        top: the top folder.
        input_member: ``input/<name>``.
        input_sha256: hex SHA-256 of the input's JSON bytes (decompressed for ``.gz``).
        input_gzip_sha256: hex SHA-256 of a ``.gz`` input file, else ``None``.
        input_pinned: ``inputSha256Pinned`` of ``results.json``: the run was bound to a preregistered hash.
        results_sha256: hex SHA-256 of ``results.json``.
        results_identity_digest: the ``identityDigest`` recorded in ``results.json``.
        file_count, evidence_file_count, extra_file_count: regular files in the bundle.
        checks: what was checked, in order.
        recorded_identity_digest: ``identityDigest`` of ``identity.json``.
        current_identity_digest: ``identityDigest`` of the evaluator running now (the one that recomputed).
        identity_differences: pointers where ``identity.json`` differs from the
            current identity (empty when equal; reported, never an error).
        signature: ``verified``, ``unchecked`` (present, no public key) or ``absent``.
        public_key: ``sha256:`` fingerprint (of the DER SubjectPublicKeyInfo) of the public key used.
        key_expected: the public key's fingerprint equals ``--expect-key``.
        results: ``results.json`` as :func:`ablation.results_file.load_results` read it (for ``notes``).
        results_json: the bytes of ``results.json``.
    """

    bundle: str
    bundle_sha256: str
    sums_sha256: str
    framing: str | None
    top: str
    input_member: str
    input_sha256: str
    input_gzip_sha256: str | None
    input_pinned: bool
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
    key_expected: bool
    results: RecordedResults
    results_json: bytes

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
            pinned = (
                "the expected key (--expect-key matched)"
                if self.key_expected
                else "no --expect-key given: compare this fingerprint with one from a trusted source"
            )
            return f"signature: SHA256SUMS.sig verified with public key {self.public_key}; {pinned}"
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
        tail = [
            framing_line(self.framing, self.sums_sha256),
            pinned_line(self.input_pinned),
            self._identity_line(),
            self._signature_line(),
        ]
        return "\n".join([*lines, *tail])

    def warnings(self) -> list[str]:
        """What the reviewer must see on stderr too: a re-compressed bundle, an unpinned run."""
        found = []
        if self.framing is not None:
            found.append(
                f"{RECOMPRESSED}; content digest {self.sums_sha256} unchanged: compare it, not the bundle "
                "SHA-256, with the cited one"
            )
        if not self.input_pinned:
            found.append(
                f"input pinned: {UNPINNED}: the run in this bundle computed input sha256 {self.input_sha256} "
                "itself; compare it with the preregistration record"
            )
        return found
