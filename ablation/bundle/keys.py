"""Ed25519 keys and signatures over ``SHA256SUMS`` (PRODUCT.md "Evidence bundle"; issue 11).

A signature proves only as much as the public key's origin: the key is named
by its fingerprint, ``sha256:`` and the SHA-256 of its DER
SubjectPublicKeyInfo (the 44 bytes ``302a300506032b6570032100`` + the raw
32-byte key; what ``openssl pkey -pubin -in k.pub -outform DER | sha256sum``
prints), to be compared with one from a trusted source: ``keygen`` prints it,
``archive --sign-key`` reports it, and ``verify-archive``/``notes``
``--expect-key`` refuse any other key (issue 22 item 3). Weak keys are refused when loaded: a public key
that is a small-order point (any of the eight, whatever its encoding) or is
non-canonically encoded verifies forged signatures (identity point, R = that
point, S = 0) and so proves nothing. Signatures with S ≥ L are refused too.
"""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ablation.canonical import sha256_hex
from ablation.errors import IntegrityError, OutputRefused, UsageError
from ablation.output import read_file, refuse_existing, write_exclusive

__all__ = [
    "SIGNATURE_BYTES",
    "expected_public_key",
    "fingerprint",
    "keygen",
    "load_private_key",
    "load_public_key",
    "signature_problem",
    "verifies",
    "weak_key_problem",
]

SIGNATURE_BYTES = 64
_P = 2**255 - 19  # the field prime of edwards25519
_L = 2**252 + 27742317777372353535851937790883648493  # the prime order of the base point
_Y8 = 55188659117513257062467267217118295137698188065244968500265048394206261417927  # y of the order-8 points
# y coordinates (mod p) of the eight small-order points: order 1 (y=1), 2 (y=-1), 4 (y=0) and 8 (±_Y8);
# each y gives the point(s) with either sign of x, so both sign bits are covered.
_SMALL_ORDER_Y = frozenset({0, 1, _P - 1, _Y8, _P - _Y8})


def weak_key_problem(raw: bytes) -> str | None:
    """Why a raw 32-byte Ed25519 public key is unsafe to verify with, or ``None``.

    >>> weak_key_problem(bytes([1]) + bytes(31))
    'a small-order point (y = 1), which verifies forged signatures'
    >>> weak_key_problem(bytes([0xED]) + bytes([0xFF]) * 30 + bytes([0x7F]))
    'a non-canonical encoding (y = p + 0, not below p)'
    """
    y = int.from_bytes(raw, "little") & ((1 << 255) - 1)
    if y >= _P:
        return f"a non-canonical encoding (y = p + {y - _P}, not below p)"
    if y in _SMALL_ORDER_Y:
        shown = {0: "0", 1: "1", _P - 1: "p - 1"}.get(y, "±y of the order-8 points")
        return f"a small-order point (y = {shown}), which verifies forged signatures"
    return None


def signature_problem(signature: bytes) -> str | None:
    """Why a signature is not a canonical 64-byte Ed25519 signature, or ``None`` (S must be below L)."""
    if len(signature) != SIGNATURE_BYTES:
        return f"{len(signature)} bytes, not a raw 64-byte Ed25519 signature"
    if int.from_bytes(signature[32:], "little") >= _L:
        return "a non-canonical Ed25519 signature (S is not below the group order L)"
    return None


def _raw(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def fingerprint(key: Ed25519PublicKey | Ed25519PrivateKey) -> str:
    """``sha256:<hex>`` of the (public) key's DER SubjectPublicKeyInfo: 12 fixed bytes, then the raw 32.

    >>> fingerprint(Ed25519PublicKey.from_public_bytes(bytes(range(32))))
    'sha256:9408457aefd071cec127c1f98539930861ad1ba94c940db975c972c09fc68b68'
    """
    if isinstance(key, Ed25519PrivateKey):
        key = key.public_key()
    der = key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return "sha256:" + sha256_hex(der)


def _load_pem(path: str, what: str, *, private: bool) -> Ed25519PrivateKey | Ed25519PublicKey:
    """An Ed25519 key from a PEM file, its public key checked by :func:`weak_key_problem`."""
    data = read_file(path, what)
    try:
        key = (
            serialization.load_pem_private_key(data, password=None)
            if private
            else serialization.load_pem_public_key(data)
        )
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        kind = "an unencrypted PEM private key" if private else "a PEM public key"
        msg = f"{what} {path!r} is not {kind} ({exc})"
        raise UsageError(msg) from None
    if not isinstance(key, Ed25519PrivateKey if private else Ed25519PublicKey):
        msg = f"{what} {path!r} is not an Ed25519 key"
        raise UsageError(msg)
    problem = weak_key_problem(_raw(key.public_key() if isinstance(key, Ed25519PrivateKey) else key))
    if problem is not None:
        msg = f"{what} {path!r} is a weak Ed25519 key: {problem}"
        raise UsageError(msg)
    return key


def load_private_key(path: str) -> Ed25519PrivateKey:
    """An unencrypted PEM Ed25519 private key whose public key is not weak.

    Raises:
        UsageError: unreadable, not PEM, encrypted, not Ed25519, or weak (exit 2).
    """
    key = _load_pem(path, "signing key", private=True)
    assert isinstance(key, Ed25519PrivateKey)  # _load_pem checked the type
    return key


def load_public_key(path: str) -> Ed25519PublicKey:
    """A PEM Ed25519 public key that is neither a small-order point nor non-canonically encoded.

    Raises:
        UsageError: unreadable, not PEM, not Ed25519, or weak (exit 2).
    """
    key = _load_pem(path, "public key", private=False)
    assert isinstance(key, Ed25519PublicKey)  # _load_pem checked the type
    return key


def expected_public_key(path: str | None, expected: str | None) -> Ed25519PublicKey | None:
    """The public key of ``--public-key``, once its fingerprint is ``--expect-key`` (when that is given).

    Args:
        path: the PEM public key file, or ``None``.
        expected: ``sha256:<64 hex>`` (:func:`fingerprint`), or ``None``.

    Raises:
        UsageError: ``expected`` without ``path``; the key file as :func:`load_public_key` refuses it (exit 2).
        IntegrityError: the key's fingerprint is not ``expected`` (exit 3).
    """
    if path is None:
        if expected is not None:
            msg = "--expect-key names the key that must have signed: give that key with --public-key too"
            raise UsageError(msg)
        return None
    key = load_public_key(path)
    found = fingerprint(key)
    if expected is not None and found != expected:
        msg = (
            f"public key {path!r}: fingerprint {found} is not the expected {expected} (--expect-key); "
            "it is not the key you trust, and a signature by it proves nothing"
        )
        raise IntegrityError(msg)
    return key


def verifies(key: Ed25519PublicKey, signature: bytes, message: bytes) -> bool:
    """Whether ``signature`` is a canonical, valid Ed25519 signature of ``message`` by ``key``."""
    if signature_problem(signature) is not None:
        return False
    try:
        key.verify(signature, message)
    except InvalidSignature:
        return False
    return True


def keygen(private_key_path: str, public_key_path: str) -> tuple[str, list[str]]:
    """Make an Ed25519 key pair for signing bundles; its :func:`fingerprint` and the durability warnings of the writes.

    The private key is PEM PKCS#8 without encryption (mode 0600); the public
    key is PEM SubjectPublicKeyInfo.

    Raises:
        OutputRefused: either file exists (neither is written) or cannot be written.
        UsageError: both paths are the same.

    Side effects: creates both files.
    """
    if os.path.abspath(private_key_path) == os.path.abspath(public_key_path):
        msg = "--private-key and --public-key must be different files"
        raise UsageError(msg)
    refuse_existing(private_key_path)
    refuse_existing(public_key_path)
    key = Ed25519PrivateKey.generate()
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    warnings = [write_exclusive(private_key_path, private, mode=0o600)]
    try:
        warnings.append(write_exclusive(public_key_path, public))
    except OutputRefused:
        Path(private_key_path).unlink(missing_ok=True)
        raise
    return fingerprint(key), [warning for warning in warnings if warning is not None]
