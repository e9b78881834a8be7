"""What a read bundle holds: its layout checked, its input, and the narrow interface ``notes`` uses.

``notes`` imports only :func:`read_bundled` and :func:`check_signature` (and
their result types) from the bundle package: the bundle's digests, its
``results.json``, its input's hashes and the status of its signature.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ablation.bundle.keys import fingerprint, load_public_key, verifies
from ablation.bundle.layout import INDEX, SIGNATURE, SUMS, shown, utf8_key
from ablation.bundle.reader import BundleContents, read_bundle_file
from ablation.canonical import sha256_hex
from ablation.errors import InputRejected, IntegrityError
from ablation.gzipfile import gunzip_members
from ablation.pipeline import DEFAULT_MAX_INPUT_BYTES

__all__ = [
    "Bundled",
    "BundledInput",
    "SignatureCheck",
    "bundled_input",
    "check_layout",
    "check_signature",
    "fail",
    "read_bundled",
]


def fail(problems: list[str]) -> None:
    """Raise the first of ``problems`` (saying how many more there are), if any.

    Raises:
        IntegrityError: ``<first problem>[ (and N more problems)]``.
    """
    if problems:
        more = len(problems) - 1
        suffix = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
        raise IntegrityError(problems[0] + suffix)


def check_layout(contents: BundleContents) -> str:
    """Required members present, nothing outside the layout; returns the input member (``input/<name>``).

    Raises:
        IntegrityError: ``<top>/<path>: …`` for the first problem.
    """
    top = contents.top
    required = (SUMS, "results.json", "identity.json", INDEX)
    problems = [f"{top}/{name}: missing from the bundle" for name in required if name not in contents.digests]
    inputs = sorted((p for p in contents.digests if p.startswith("input/")), key=utf8_key)
    if len(inputs) != 1 or inputs[0].count("/") != 1:
        listing = ", ".join(shown(p) for p in inputs[:8]) or "none"
        problems.append(f"{top}/input/: must hold exactly one file, holds {listing}")
    fixed = {SUMS, SIGNATURE, "results.json", "identity.json"}
    for path in sorted(contents.digests, key=utf8_key):
        if path not in fixed and not path.startswith(("input/", "evidence/", "extra/")):
            problems.append(f"{top}/{shown(path)}: not part of the bundle layout")
    fail(problems)
    return inputs[0]


@dataclass(frozen=True, slots=True)
class BundledInput:
    """The prepared input a bundle holds.

    Attributes:
        member: ``input/<name>``.
        data: its JSON bytes (decompressed for a ``.gz`` file).
        sha256: hex SHA-256 of ``data``.
        gzip_sha256: hex SHA-256 of a ``.gz`` file as bundled, else ``None``.
    """

    member: str
    data: bytes
    sha256: str
    gzip_sha256: str | None


def _gunzip(data: bytes, member: str) -> bytes:
    """The JSON bytes of a bundled ``.json.gz`` input, read as ``run`` reads one (:mod:`ablation.gzipfile`).

    Raises:
        IntegrityError: ``<member>: GZ-1 at byte N: …``, the very rule ``run``
            would have refused the file with (issue 23 item 5).
    """
    try:
        return gunzip_members(data, DEFAULT_MAX_INPUT_BYTES)
    except InputRejected as exc:
        msg = f"{member}: {exc}"
        raise IntegrityError(msg) from None


def bundled_input(contents: BundleContents) -> BundledInput:
    """The bundle's input after the layout check.

    Raises:
        IntegrityError: a member missing or outside the layout, or a ``.gz``
            input that ``run`` would refuse (GZ-1: not RFC 1952 as
            :mod:`ablation.gzipfile` checks it, or over the 1 GiB input bound).
    """
    member = check_layout(contents)
    as_given = contents.files[member]
    if not member.endswith(".gz"):
        return BundledInput(member=member, data=as_given, sha256=contents.digests[member], gzip_sha256=None)
    data = _gunzip(as_given, f"{contents.top}/{shown(member)}")
    return BundledInput(member=member, data=data, sha256=sha256_hex(data), gzip_sha256=contents.digests[member])


@dataclass(frozen=True, slots=True)
class Bundled:
    """What ``notes --bundle`` needs of a bundle.

    Attributes:
        top: the top folder.
        bundle_sha256: hex SHA-256 of the bundle file.
        sums_sha256: hex SHA-256 of its ``SHA256SUMS`` (the content digest).
        results: the bytes of its ``results.json``.
        input: its input.
        sums: the bytes of its ``SHA256SUMS``.
        signature: the bytes of its ``SHA256SUMS.sig``, ``None`` when it is not signed.
    """

    top: str
    bundle_sha256: str
    sums_sha256: str
    results: bytes
    input: BundledInput
    sums: bytes
    signature: bytes | None


def read_bundled(path: str) -> Bundled:
    """Read a bundle strictly (:func:`ablation.bundle.reader.read_bundle`) and check its layout.

    Raises:
        UsageError: the file cannot be read (exit 2).
        IntegrityError: anything :func:`read_bundle` or :func:`check_layout` refuses (exit 3).
    """
    contents = read_bundle_file(path)
    bundled = bundled_input(contents)
    return Bundled(
        top=contents.top,
        bundle_sha256=contents.bundle_sha256,
        sums_sha256=contents.sums_sha256,
        results=contents.files["results.json"],
        input=bundled,
        sums=contents.files[SUMS],
        signature=contents.files.get(SIGNATURE),
    )


@dataclass(frozen=True, slots=True)
class SignatureCheck:
    """What is known of a bundle's signature.

    Attributes:
        status: ``verified`` (by the given key), ``unchecked`` (signed, no key given) or ``absent``.
        fingerprint: ``sha256:<hex>`` of the given key's DER SubjectPublicKeyInfo, when a key was given.
    """

    status: Literal["verified", "unchecked", "absent"]
    fingerprint: str | None


def check_signature(bundled: Bundled, public_key_path: str | None) -> SignatureCheck:
    """Check ``SHA256SUMS.sig`` with a PEM Ed25519 public key, as ``verify-archive --public-key`` does.

    Without a key the signature is only reported (``unchecked`` or ``absent``).

    Raises:
        UsageError: the key file is unreadable, not an Ed25519 PEM public key, or weak (exit 2).
        IntegrityError: a key was given and the bundle is not signed, or the
            signature is not a valid one by that key (exit 3).
    """
    if public_key_path is None:
        return SignatureCheck("absent" if bundled.signature is None else "unchecked", None)
    key = load_public_key(public_key_path)
    shown_key = fingerprint(key)
    if bundled.signature is None:
        msg = f"{bundled.top}/{SIGNATURE}: missing, but a public key was given"
        raise IntegrityError(msg)
    if not verifies(key, bundled.signature, bundled.sums):
        msg = f"{bundled.top}/{SIGNATURE}: not a valid signature over {SUMS} by public key {shown_key}"
        raise IntegrityError(msg)
    return SignatureCheck("verified", shown_key)
