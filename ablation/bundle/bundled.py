"""What a read bundle holds: its layout checked and its input (``verify-archive``; ``notes --bundle`` through it)."""

from __future__ import annotations

from dataclasses import dataclass

from ablation.bundle.layout import INDEX, SIGNATURE, SUMS, shown, utf8_key
from ablation.bundle.reader import BundleContents
from ablation.canonical import sha256_hex
from ablation.errors import InputRejected, IntegrityError
from ablation.gzipfile import gunzip_members
from ablation.pipeline import DEFAULT_MAX_INPUT_BYTES

__all__ = ["BundledInput", "bundled_input", "check_layout", "fail"]


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
