"""The evidence bundle: write it deterministically, verify it without extracting it.

A bundle is one ``.tar.gz`` holding the prepared input as given, the results
file, the evaluator identity at archive time, every raw owner artifact of the
input as its own file, extra evidence files, ``SHA256SUMS`` and optionally an
Ed25519 signature over ``SHA256SUMS`` (PRODUCT.md "Evidence bundle"; issue 5).

Layout, below the single top folder ``ablation-bundle-<first 12 hex of inputSha256>/``::

    input/<file name as given>      results.json      identity.json
    evidence/index.json
    evidence/repositories/<r>/source-list.json  git-ls-files-stage.bin
    evidence/cases/<c>/sci-request.json  sci-receipt.json  sci-stdout.txt  sci-stderr.txt
                       sci-transcript.json  sci-process.json  sci-state.json
    extra/<name>                    SHA256SUMS        SHA256SUMS.sig

``<r>`` and ``<c>`` are zero-padded array indexes, never ids. The bundle's
bytes depend only on its contents (and on the Python/zlib that compress them):
entries sorted by UTF-8 name with their folders, fixed mtime (0 or
``SOURCE_DATE_EPOCH``), uid/gid 0, empty owner names, modes 0644/0755, GNU tar
format (no PAX records), gzip header with mtime 0 and no file name.

``SHA256SUMS`` lines are ``<hex>  <path>\\n`` and are read back by splitting on
``\\n`` alone (U+0085, U+2028 and U+2029 are ordinary name characters); a file
name holding ``\\n``, ``\\r``, another C0 control, DEL or a backslash is
refused when archiving, so no line ever needs ``sha256sum``'s escaping.
``--evidence`` never follows a symbolic link, given directly or found inside a
folder. ``results.json`` and ``identity.json`` are parsed by
:func:`parse_json_file` (any malformation is one line naming the member, never
a traceback) and must be self-consistent (:func:`load_results`,
:func:`load_identity`, :func:`check_input_hashes`).

Only this module and the CLI touch bundle files; the helpers that derive the
evidence files and build the tar bytes are pure.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import io
import json
import os
import re
import stat
import tarfile
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NoReturn

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ablation.canonical import canonical_digest, sha256_hex
from ablation.errors import AblationError, InputRejected, IntegrityError, OutputRefused, RejectedInput, UsageError
from ablation.output import dumps, read_file, refuse_existing, render_output, write_exclusive
from ablation.pipeline import DEFAULT_MAX_INPUT_BYTES, Evaluation, evaluate, load_input
from ablation.strictjson import Violation, child, decode_utf8, parse_text

__all__ = [
    "INDEX",
    "MAX_JSON_DEPTH",
    "MAX_MEMBER_BYTES",
    "MAX_TOTAL_BYTES",
    "SIGNATURE",
    "SUMS",
    "BundleContents",
    "BundleReport",
    "BundledInput",
    "EvidenceFile",
    "bundle_bytes",
    "bundled_input",
    "check_input_hashes",
    "create_bundle",
    "derive_evidence",
    "keygen",
    "load_identity",
    "load_results",
    "parse_json_file",
    "read_bundle",
    "render_sums",
    "top_folder",
    "verify_bundle",
]

MAX_MEMBER_BYTES = 1 << 30  # 1 GiB per member
MAX_TOTAL_BYTES = 4 << 30  # 4 GiB for all members together
SUMS = "SHA256SUMS"
SIGNATURE = "SHA256SUMS.sig"
INDEX = "evidence/index.json"
INDEX_FORMAT = "ablation-evidence-index/v1"
_SIGNATURE_BYTES = 64
_TAR_SLACK = 64 << 20  # headers and padding allowed on top of MAX_TOTAL_BYTES when decompressing
_TOP_RE = re.compile(r"ablation-bundle-[0-9a-f]{12}")
_SUMS_LINE = re.compile(r"([0-9a-f]{64})  ([^\x00-\x1f\x7f\\]+)")
_UNSAFE_NAME = re.compile(r"[\x00-\x1f\x7f\\]")

# (member of rawEvidence, file name in evidence/cases/<c>/), in PRODUCT.md order.
_CASE_FILES = (
    ("requestJson", "sci-request.json"),
    ("receiptJson", "sci-receipt.json"),
    ("stdout", "sci-stdout.txt"),
    ("stderr", "sci-stderr.txt"),
    ("transcriptJson", "sci-transcript.json"),
    ("processJson", "sci-process.json"),
    ("stateJson", "sci-state.json"),
)
_RAW_EVIDENCE = ("structuralEvidence", "executionObservation", "rawEvidence")
_SOURCE_LIST = ("sourceListArtifact", "rawJson")
_GIT_EVIDENCE = ("sourceListPreparation", "trackedPathInventory", "stdoutBase64")

Encoding = Literal["utf-8", "base64"]


# ------------------------------------------------------------------ pure helpers


def top_folder(input_sha256: str) -> str:
    """The bundle's single top folder for an input hash.

    >>> top_folder("5e61f30b5cc018dac70e2f89abcb95e64eb12902e25723c0c18a88635deec5fa")
    'ablation-bundle-5e61f30b5cc0'
    """
    return f"ablation-bundle-{input_sha256[:12]}"


def _pad_width(length: int) -> int:
    """Digits of a zero-padded index into an array of ``length`` elements (at least 4).

    >>> _pad_width(30), _pad_width(10_000), _pad_width(10_001)
    (4, 4, 5)
    """
    return max(4, len(str(max(length - 1, 0))))


def _utf8_key(name: str) -> bytes:
    """Sort key: UTF-8 bytes (SPEC §9.5), total for names without lone surrogates."""
    return name.encode("utf-8", "surrogateescape")


def _shown(name: str) -> str:
    """A member name safe to print on one line: as is when printable, else its ``repr``."""
    if name.isprintable():
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            return repr(name)
        return name
    return repr(name)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "a number"


@dataclass(frozen=True, slots=True)
class EvidenceFile:
    """One raw owner artifact of the input, extracted to its own bundle file.

    Attributes:
        path: the file's path below the top folder, e.g. ``evidence/repositories/0000/source-list.json``.
        origin: JSON Pointer of the raw string in the input.
        encoding: ``utf-8`` (the string's exact UTF-8 bytes) or ``base64`` (the decoded bytes).
        data: the file's bytes.
    """

    path: str
    origin: str
    encoding: Encoding
    data: bytes


def _follow(value: object, members: Sequence[str], origin: str) -> tuple[object, str | None]:
    """Walk ``members`` from ``value``: (the value, ``None``) or (``None``, why it is not there)."""
    where = origin
    for member in members:
        if not isinstance(value, dict):
            return None, f"{where or '/'} is {_json_type(value)}, not an object"
        if member not in value:
            return None, f"{where}/{member} is absent"
        value = value[member]
        where = f"{where}/{member}"
    return value, None


def _extract(value: object, encoding: Encoding) -> tuple[bytes | None, str | None]:
    """The file bytes of one raw string, or why it has none."""
    if not isinstance(value, str):
        return None, f"is {_json_type(value)}, not a string"
    if encoding == "base64":
        try:
            return base64.b64decode(value, validate=True), None
        except (binascii.Error, ValueError):
            return None, "is not valid base64"
    try:
        return value.encode("utf-8"), None
    except UnicodeEncodeError:
        return None, "holds a lone surrogate, which has no exact UTF-8 bytes"


def _entry(file: EvidenceFile) -> dict[str, object]:
    return {"path": file.path, "origin": file.origin, "encoding": file.encoding}


def _broken(segments: tuple[str | int, ...], violations: Sequence[Violation]) -> Violation | None:
    """The first strictness violation at ``segments`` or at one of its ancestors.

    There the parsed value is not the input's exact string: a lone surrogate
    was replaced, or a duplicated member makes "the" value ambiguous (SPEC §2.4).
    """
    for v in violations:
        if v.path == segments[: len(v.path)]:
            return v
    return None


def derive_evidence(
    document: object, *, input_sha256: str, input_member: str, violations: Sequence[Violation] = ()
) -> tuple[tuple[EvidenceFile, ...], bytes]:
    """Every raw owner artifact of a parsed input as bundle files, and ``evidence/index.json``.

    Repository ``r`` gives ``evidence/repositories/<r>/source-list.json`` (the
    exact UTF-8 bytes of ``sourceListArtifact/rawJson``) and
    ``git-ls-files-stage.bin`` (the decoded
    ``sourceListPreparation/trackedPathInventory/stdoutBase64``). Case ``c``
    gives one ``evidence/cases/<c>/sci-*`` file per raw string of
    ``structuralEvidence/executionObservation/rawEvidence`` that exists in the
    input as a string; each one that does not (``structuralEvidence`` is
    ``null``, a member is absent or not a string, a lone surrogate) is listed
    in the index under ``notExtracted`` with the reason.

    Args:
        document: the parsed input (already admitted by validation).
        violations: the strictness violations the parser recorded (only
            inside structural bundles for an admitted input); a raw string at
            or below one is not extracted, because the parsed value is not its
            exact text.
        input_sha256: bare hex SHA-256 of the input's JSON bytes.
        input_member: the input's path in the bundle, ``input/<name>``.

    Returns:
        The files in index order and the index bytes (``dumps(index) + "\\n"``).

    Spec: PRODUCT.md "Evidence bundle"; SPEC.md §2.4 (where the raw texts live).
    """
    root = document if isinstance(document, dict) else {}
    repositories = root.get("repositories")
    repositories = repositories if isinstance(repositories, list) else []
    cases = root.get("cases")
    cases = cases if isinstance(cases, list) else []
    files: list[EvidenceFile] = []
    repo_entries: list[dict[str, object]] = []
    width = _pad_width(len(repositories))
    for r, repo in enumerate(repositories):
        folder = f"evidence/repositories/{r:0{width}d}"
        mine: list[EvidenceFile] = []
        missing: list[dict[str, object]] = []
        for members, name, encoding in ((_SOURCE_LIST, "source-list.json", "utf-8"),
                                        (_GIT_EVIDENCE, "git-ls-files-stage.bin", "base64")):  # fmt: skip
            origin = f"/repositories/{r}/" + "/".join(members)
            value, absent = _follow(repo, members, f"/repositories/{r}")
            data, why = (None, absent) if absent else _extract(value, encoding)  # type: ignore[arg-type]
            if data is None:
                missing.append({"origin": origin, "reason": why if absent else f"{origin} {why}"})
            else:
                mine.append(EvidenceFile(f"{folder}/{name}", origin, encoding, data))  # type: ignore[arg-type]
        files.extend(mine)
        repo_id = repo.get("id") if isinstance(repo, dict) else None
        repo_entries.append({
            "index": r, "folder": folder if mine else None, "repositoryId": repo_id,
            "files": [_entry(f) for f in mine], "notExtracted": missing,
        })  # fmt: skip
    case_entries: list[dict[str, object]] = []
    width = _pad_width(len(cases))
    with_files = 0
    for c, case in enumerate(cases):
        folder = f"evidence/cases/{c:0{width}d}"
        base = f"/cases/{c}"
        mine = []
        missing = []
        bundle, absent = _follow(case, _RAW_EVIDENCE[:1], base)
        if absent is None and bundle is None:
            state = "null"
            missing.append({"origin": f"{base}/structuralEvidence",
                            "reason": "structuralEvidence is null: the case has no SCI evidence to extract"})  # fmt: skip
        else:
            state = "absent" if absent else ("object" if isinstance(bundle, dict) else _json_type(bundle))
            raw, why_raw = _follow(case, _RAW_EVIDENCE, base)
            for member, name in _CASE_FILES:
                origin = f"{base}/" + "/".join(_RAW_EVIDENCE) + f"/{member}"
                if why_raw is not None:
                    missing.append({"origin": origin, "reason": why_raw})
                    continue
                value, why = _follow(raw, (member,), f"{base}/" + "/".join(_RAW_EVIDENCE))
                broken = _broken(("cases", c, *_RAW_EVIDENCE, member), violations)
                if why is None and broken is not None:
                    why = (f"the input breaks {broken.rule} at {broken.pointer} ({broken.expected}), "
                           "so it holds no exact string here")  # fmt: skip
                data, why2 = (None, why) if why else _extract(value, "utf-8")
                if data is None:
                    missing.append({"origin": origin, "reason": why if why else f"{origin} {why2}"})
                else:
                    mine.append(EvidenceFile(f"{folder}/{name}", origin, "utf-8", data))
        with_files += bool(mine)
        files.extend(mine)
        case_entries.append({
            "index": c, "folder": folder if mine else None,
            "caseId": case.get("id") if isinstance(case, dict) else None,
            "repositoryId": case.get("repositoryId") if isinstance(case, dict) else None,
            "structuralEvidence": state, "files": [_entry(f) for f in mine], "notExtracted": missing,
        })  # fmt: skip
    null_cases = sum(1 for e in case_entries if e["structuralEvidence"] == "null")
    index = {
        "format": INDEX_FORMAT,
        "inputSha256": input_sha256,
        "input": input_member,
        "about": (
            "Each file holds the exact bytes of one raw string of the input: the UTF-8 bytes of the text, "
            "or the decoded bytes for base64 (encoding 'base64'). 'origin' is its JSON Pointer in the input. "
            "Folders are named by zero-padded array index, never by id. Raw strings that do not exist in the "
            "input as strings are listed under 'notExtracted' with the reason."
        ),
        "summary": {
            "repositoryCount": len(repositories),
            "caseCount": len(cases),
            "repositoryFileCount": sum(len(e["files"]) for e in repo_entries),  # type: ignore[arg-type]
            "caseFileCount": sum(len(e["files"]) for e in case_entries),  # type: ignore[arg-type]
            "casesWithExtractedSciEvidence": with_files,
            "casesWithNullStructuralEvidence": null_cases,
        },
        "repositories": repo_entries,
        "cases": case_entries,
    }
    return tuple(files), (dumps(index) + "\n").encode("utf-8")


def render_sums(files: Mapping[str, bytes]) -> bytes:
    """``SHA256SUMS``: ``<hex>  <path>\\n`` per file, sorted by UTF-8 path.

    Paths never hold ``\\n``, ``\\r``, another C0 control, DEL or a backslash:
    ``archive`` refuses such names (a usage error), so no line needs
    ``sha256sum``'s backslash escaping and every line reads back by splitting
    on ``\\n`` alone. Other characters, U+0085 and U+2028 included, are kept as is.

    >>> render_sums({"b": b"", "a": b"x"}).decode().split("\\n")[1]
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  b'
    """
    return "".join(f"{sha256_hex(files[p])}  {p}\n" for p in sorted(files, key=_utf8_key)).encode("utf-8")


def bundle_bytes(top: str, files: Mapping[str, bytes], *, mtime: int = 0) -> bytes:
    """The deterministic ``.tar.gz`` of ``files`` (paths below ``top``), with every folder as an entry.

    Entries are sorted by UTF-8 name (a folder before its contents); mtime is
    ``mtime``; uid/gid 0; owner names empty; modes 0644 (files) and 0755
    (folders); GNU format; gzip level 9, header mtime 0, no file name.

    Raises:
        ValueError: a path is both a file and a folder.
    """
    entries: dict[str, bytes | None] = {top: None}
    for rel, data in files.items():
        parts = rel.split("/")
        for k in range(1, len(parts)):
            folder = f"{top}/{'/'.join(parts[:k])}"
            if entries.get(folder) is not None:
                msg = f"{folder} is both a file and a folder"
                raise ValueError(msg)
            entries[folder] = None
        name = f"{top}/{rel}"
        if name in entries:
            msg = f"{name} is both a file and a folder"
            raise ValueError(msg)
        entries[name] = data
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT, encoding="utf-8") as tar:
        for name in sorted(entries, key=_utf8_key):
            data = entries[name]
            info = tarfile.TarInfo(name)
            info.mtime = mtime
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            if data is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                info.type, info.mode, info.size = tarfile.REGTYPE, 0o644, len(data)
                tar.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9, mtime=0, filename="") as stream:
        stream.write(raw.getvalue())
    return out.getvalue()


# ------------------------------------------------------------ results comparison


MAX_JSON_DEPTH = 256  # containers nested deeper in results.json or identity.json are refused
# ablation writes integers (counts, byte sizes) and doubles, some of which ECMAScript spells
# without an exponent up to 1e21; no literal it writes has more digits than the largest double.
_MAX_INT_DIGITS = 309
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_HEX64 = re.compile(r"[0-9a-f]{64}")
# The members of a results file, in the order ``ablation run`` writes them (PRODUCT.md ``run``).
_RESULTS_MEMBERS = ("inputSha256", "inputGzipSha256", "inputSha256Pinned", "result", "gateAssessment", "evaluator")


class _Unwritten(ValueError):
    """JSON text that ablation never writes (raised by the decoder hooks)."""


def _reject_constant(literal: str) -> object:
    msg = f"{literal}, which is not JSON"
    raise _Unwritten(msg)


def _finite_float(literal: str) -> float:
    value = float(literal)
    if value in (float("inf"), float("-inf")):
        msg = f"the number {_short(literal, 40)}, too large for a double"
        raise _Unwritten(msg)
    return value


def _bounded_int(literal: str) -> int:
    digits = len(literal.lstrip("-"))
    if digits > _MAX_INT_DIGITS:
        msg = f"an integer of {digits} digits, beyond any double"
        raise _Unwritten(msg)
    return int(literal)


def _unique_members(pairs: list[tuple[str, object]]) -> dict[str, object]:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                msg = f"an object with the member {_short(json.dumps(name, ensure_ascii=False))} twice"
                raise _Unwritten(msg)
            seen.add(name)
    return value


_decoder = json.JSONDecoder(
    object_pairs_hook=_unique_members,
    parse_float=_finite_float,
    parse_int=_bounded_int,
    parse_constant=_reject_constant,
)


def _depth_within(value: object, limit: int) -> bool:
    """Whether no container in ``value`` is nested deeper than ``limit`` (iterative: never recurses)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth > limit:
                return False
            stack.extend((element, depth + 1) for element in (node.values() if isinstance(node, dict) else node))
    return True


def parse_json_file(data: bytes, member: str, error: type[AblationError] = IntegrityError) -> object:
    """Parse a JSON file that ablation wrote (``results.json``, ``identity.json``), or fail on one line.

    Refused, each as ``error("<member>: <why>")``: bytes that are not UTF-8;
    text that is not one JSON value; ``NaN``/``Infinity``; a number too large
    for a double (an integer literal of more than 309 digits included); a
    member name twice in one object; a lone surrogate (ablation writes UTF-8,
    which cannot hold one); containers nested deeper than
    :data:`MAX_JSON_DEPTH` (also when the standard parser runs out of
    recursion first: never a ``RecursionError``).

    Args:
        data: the file's bytes.
        member: how the message names the file (a bundle member or ``results file '<path>'``).
        error: the exception to raise: :class:`IntegrityError` for a bundle
            member (exit 3), :class:`UsageError` for a file named on the command line (exit 2).

    Returns:
        The parsed value, whose containers are at most :data:`MAX_JSON_DEPTH` deep.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        msg = f"{member}: not UTF-8 text (byte {exc.start})"
        raise error(msg) from None
    try:
        value = _decoder.decode(text)
    except RecursionError:
        value = None
        deep = True
    except _Unwritten as exc:
        msg = f"{member}: holds {exc}; ablation never writes that"
        raise error(msg) from None
    except ValueError as exc:
        msg = f"{member}: not JSON ({_short(str(exc), 160)})"
        raise error(msg) from None
    else:
        deep = not _depth_within(value, MAX_JSON_DEPTH)
    if deep:
        msg = f"{member}: containers nested deeper than {MAX_JSON_DEPTH} levels; ablation never writes that"
        raise error(msg)
    if _SURROGATE_ESCAPE.search(text) is not None:
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            msg = f"{member}: a string holds a lone surrogate escape, which UTF-8 cannot hold"
            raise error(msg) from None
    return value


def _check_identity_digest(identity: object, where: str, member: str, error: type[AblationError]) -> dict[str, object]:
    """An identity object whose ``identityDigest`` is the canonical digest of its ``measured`` object.

    A wrong type is ``error``; a digest that differs is always :class:`IntegrityError`.
    """
    if not isinstance(identity, dict):
        msg = f"{member}: {where + ' is ' if where else ''}{_json_type(identity)}, not an evaluator identity object"
        raise error(msg)
    for name, wanted in (("measured", dict), ("identityDigest", str)):
        if name not in identity:
            msg = f"{member}: {where}/{name} is absent"
            raise error(msg)
        if not isinstance(identity[name], wanted):
            kind = "an object" if wanted is dict else "a string"
            msg = f"{member}: {where}/{name} is {_json_type(identity[name])}, not {kind}"
            raise error(msg)
    digest = canonical_digest(identity["measured"])
    if identity["identityDigest"] != digest:
        msg = (f"{member}: {where}/identityDigest {_short(str(identity['identityDigest']))} is not the canonical "
               f"digest {digest} of {where}/measured")  # fmt: skip
        raise IntegrityError(msg)
    return identity


def load_identity(data: bytes, member: str) -> dict[str, object]:
    """``identity.json`` of a bundle: JSON (:func:`parse_json_file`) and self-consistent.

    Raises:
        IntegrityError: ``<member>: …`` when it is not an identity object or its
            ``identityDigest`` is not the canonical digest of its ``measured``.
    """
    return _check_identity_digest(parse_json_file(data, member), "", member, IntegrityError)


def load_results(data: bytes, member: str, error: type[AblationError] = IntegrityError) -> dict[str, object]:
    """A results file written by ``ablation run``: parsed, its shape and its own digest checked.

    Shape (failures raise ``error``): a JSON object with only the members
    ``ablation run`` writes; ``inputSha256`` (and ``inputGzipSha256`` when
    present) 64 lowercase hex digits; ``inputSha256Pinned`` a boolean;
    ``result`` and ``gateAssessment`` objects; ``evaluator`` an object with a
    ``measured`` object and an ``identityDigest`` string. Self-consistency
    (always :class:`IntegrityError`): ``evaluator.identityDigest`` is the
    canonical digest (SPEC §3) of ``evaluator.measured``.

    Args:
        data: the file's bytes.
        member: how messages name the file.
        error: :class:`IntegrityError` inside a bundle, :class:`UsageError` for ``--results``.

    Raises:
        AblationError: ``error`` or :class:`IntegrityError`, ``<member>: <what>``.
    """
    value = parse_json_file(data, member, error)

    def refuse(why: str) -> NoReturn:
        msg = f"{member}: not an ablation results file: {why}"
        raise error(msg)

    if not isinstance(value, dict):
        refuse(f"{_json_type(value)}, not an object")
    for name in value:
        if name not in _RESULTS_MEMBERS:
            refuse(f"it has the member {_short(json.dumps(name, ensure_ascii=False))}, which ablation never writes")
    for name in _RESULTS_MEMBERS:
        if name not in value and name != "inputGzipSha256":
            refuse(f"it has no {name!r} member")
    for name in ("inputSha256", "inputGzipSha256"):
        found = value.get(name)
        if name in value and not (isinstance(found, str) and _HEX64.fullmatch(found)):
            shown = _short(json.dumps(found, ensure_ascii=False)) if isinstance(found, str) else _json_type(found)
            refuse(f"/{name} is {shown}, not 64 lowercase hex digits")
    for name, kind, wanted in (("inputSha256Pinned", "a boolean", bool), ("result", "an object", dict),
                               ("gateAssessment", "an object", dict)):  # fmt: skip
        if not isinstance(value[name], wanted):
            refuse(f"/{name} is {_json_type(value[name])}, not {kind}")
    _check_identity_digest(value["evaluator"], "/evaluator", member, error)
    return value


def check_input_hashes(
    recorded: Mapping[str, object], member: str, input_name: str, input_sha256: str, input_gzip_sha256: str | None
) -> None:
    """The results file names this input: ``inputSha256``, and ``inputGzipSha256`` exactly for a ``.gz`` file.

    Args:
        recorded: a results file checked by :func:`load_results`.
        member: how messages name the results file.
        input_name: how messages name the input.
        input_sha256: SHA-256 of the input's JSON bytes (decompressed for ``.gz``).
        input_gzip_sha256: SHA-256 of a ``.gz`` input file, ``None`` for a plain one.

    Raises:
        IntegrityError: ``<member>: <which hash> …`` naming what differs.
    """
    if recorded["inputSha256"] != input_sha256:
        msg = f"{member}: inputSha256 {recorded['inputSha256']} is not the SHA-256 {input_sha256} of {input_name}"
        raise IntegrityError(msg)
    recorded_gzip = recorded.get("inputGzipSha256")
    if input_gzip_sha256 is None and recorded_gzip is not None:
        msg = f"{member}: has inputGzipSha256 {recorded_gzip}, but {input_name} is not a .gz file"
        raise IntegrityError(msg)
    if input_gzip_sha256 is not None and recorded_gzip is None:
        msg = f"{member}: has no inputGzipSha256, but {input_name} is a .gz file (SHA-256 {input_gzip_sha256})"
        raise IntegrityError(msg)
    if recorded_gzip != input_gzip_sha256:
        msg = f"{member}: inputGzipSha256 {recorded_gzip} is not the SHA-256 {input_gzip_sha256} of {input_name}"
        raise IntegrityError(msg)


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True, slots=True)
class _Difference:
    """Where a recorded value first differs from the recomputed one."""

    pointer: str
    recorded: object
    recomputed: object
    members: bool  # the objects' member names (or the arrays' lengths) differ


def _first_difference(recorded: object, recomputed: object, where: str) -> _Difference | None:
    """The first value that renders differently, in document order (``None`` when none does)."""
    if isinstance(recorded, dict) and isinstance(recomputed, dict):
        if list(recorded) != list(recomputed):
            return _Difference(where, recorded, recomputed, members=True)
        for key in recorded:
            found = _first_difference(recorded[key], recomputed[key], child(where, key))
            if found is not None:
                return found
        return None
    if isinstance(recorded, list) and isinstance(recomputed, list):
        if len(recorded) != len(recomputed):
            return _Difference(where, recorded, recomputed, members=True)
        for k, (a, b) in enumerate(zip(recorded, recomputed, strict=True)):
            found = _first_difference(a, b, child(where, k))
            if found is not None:
                return found
        return None
    if dumps(recorded) == dumps(recomputed):
        return None
    return _Difference(where, recorded, recomputed, members=False)


def _require_recomputed(data: bytes, recorded: dict[str, object], evaluation: Evaluation, member: str) -> None:
    """Compare ``result`` and ``gateAssessment`` of a results file byte-for-byte with a recomputation.

    The expected bytes are the recorded file re-rendered with the recomputed
    ``result`` and ``gateAssessment`` (the recorded input hashes, pinning and
    evaluator kept), so formatting, member order and extra members count too.

    Raises:
        IntegrityError: ``<member>: <what> differs …`` naming the first differing pointer.
    """
    expected: dict[str, object] = {"inputSha256": recorded["inputSha256"]}
    if "inputGzipSha256" in recorded:
        expected["inputGzipSha256"] = recorded["inputGzipSha256"]
    expected["inputSha256Pinned"] = recorded["inputSha256Pinned"]
    expected["result"] = evaluation.result
    expected["gateAssessment"] = evaluation.gate_assessment
    expected["evaluator"] = recorded["evaluator"]
    try:
        rendered = render_output(expected)
    except (TypeError, ValueError) as exc:
        msg = f"{member}: holds a value ablation never writes ({exc})"
        raise IntegrityError(msg) from None
    if rendered == data:
        return
    for key in ("result", "gateAssessment"):
        found = _first_difference(recorded[key], expected[key], f"/{key}")
        if found is None:
            continue
        if found.members and isinstance(found.recorded, dict) and isinstance(found.recomputed, dict):
            detail = (f"recorded members {_short(', '.join(found.recorded))}, "
                      f"recomputed {_short(', '.join(found.recomputed))}")  # fmt: skip
        elif found.members:
            detail = f"recorded {len(found.recorded)} elements, recomputed {len(found.recomputed)}"  # type: ignore[arg-type]
        else:
            detail = f"recorded {_short(dumps(found.recorded))}, recomputed {_short(dumps(found.recomputed))}"
        msg = f"{member}: {key} differs from the recomputation at {found.pointer}: {detail}"
        raise IntegrityError(msg)
    extra = [k for k in recorded if k not in expected]
    if extra:
        msg = f"{member}: has members ablation never writes: {', '.join(map(repr, extra))}"
        raise IntegrityError(msg)
    msg = f"{member}: bytes differ from ablation's rendering of the same members (member order or formatting)"
    raise IntegrityError(msg)


# ------------------------------------------------------------------------ keys


def _load_private_key(path: str) -> Ed25519PrivateKey:
    data = read_file(path, "signing key")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        msg = f"signing key {path!r} is not an unencrypted PEM private key ({exc})"
        raise UsageError(msg) from None
    if not isinstance(key, Ed25519PrivateKey):
        msg = f"signing key {path!r} is not an Ed25519 key"
        raise UsageError(msg)
    return key


def _load_public_key(path: str) -> Ed25519PublicKey:
    data = read_file(path, "public key")
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, UnsupportedAlgorithm) as exc:
        msg = f"public key {path!r} is not a PEM public key ({exc})"
        raise UsageError(msg) from None
    if not isinstance(key, Ed25519PublicKey):
        msg = f"public key {path!r} is not an Ed25519 key"
        raise UsageError(msg)
    return key


def _key_fingerprint(key: Ed25519PublicKey) -> str:
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return "sha256:" + sha256_hex(raw)


def keygen(private_key_path: str, public_key_path: str) -> None:
    """Make an Ed25519 key pair for signing bundles.

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
    write_exclusive(private_key_path, private, mode=0o600)
    try:
        write_exclusive(public_key_path, public)
    except OutputRefused:
        Path(private_key_path).unlink(missing_ok=True)
        raise


# --------------------------------------------------------------------- archive


def _source_date_epoch(environ: Mapping[str, str]) -> int:
    value = environ.get("SOURCE_DATE_EPOCH", "")
    if value == "":
        return 0
    if not value.isascii() or not value.isdigit():
        msg = f"SOURCE_DATE_EPOCH must be a non-negative integer, got {value!r}"
        raise UsageError(msg)
    return int(value)


def _check_name(rel: str, what: str) -> None:
    """A bundle path must be listable in SHA256SUMS and safe to extract.

    Refused (a usage error naming the file): a name that is not valid UTF-8;
    one holding ``\\n``, ``\\r`` or another C0 control, DEL or a backslash
    (a ``SHA256SUMS`` line could not hold it without ``sha256sum``'s escaping,
    which this format does not use); an empty, ``.`` or ``..`` segment.
    """
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        msg = f"{what} {rel!r} is not valid UTF-8; the bundle cannot name it"
        raise UsageError(msg) from None
    if _UNSAFE_NAME.search(rel) or any(s in ("", ".", "..") for s in rel.split("/")):
        msg = f"{what} {rel!r} holds a control character, a backslash or an empty, '.' or '..' segment"
        raise UsageError(msg)


def _evidence_name(given: str) -> str:
    path = Path(given)
    name = path.name
    if name in ("", ".", ".."):
        name = Path(os.path.abspath(given)).name
    if not name:
        msg = f"cannot name --evidence {given!r} in the bundle"
        raise UsageError(msg)
    return name


def _read_regular(path: Path, shown: str) -> bytes:
    """The bytes of a regular file, opened without following a symbolic link (``O_NOFOLLOW``)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        if path.is_symlink():
            msg = f"--evidence {shown!r} is a symbolic link; only regular files are archived"
            raise UsageError(msg) from None
        msg = f"cannot read --evidence {shown!r}: {exc.strerror or exc}"
        raise UsageError(msg) from None
    with os.fdopen(fd, "rb") as handle:
        try:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                msg = f"--evidence {shown!r} is not a regular file"
                raise UsageError(msg)
            if info.st_size > MAX_MEMBER_BYTES:
                msg = f"--evidence file {shown!r} is larger than 1 GiB"
                raise UsageError(msg)
            return handle.read()
        except OSError as exc:
            msg = f"cannot read --evidence {shown!r}: {exc.strerror or exc}"
            raise UsageError(msg) from None


def _collect_extras(paths: Iterable[str]) -> dict[str, bytes]:
    """``extra/<name>`` for each ``--evidence`` file; a folder gives its regular files, relative paths kept.

    Symbolic links are never followed: an ``--evidence`` path that is itself a
    symbolic link (to a file or a folder) is refused, like a symbolic link
    inside a folder, since either could point anywhere; archive the target
    instead. Only the last component counts: the folders leading to the path
    may be links. Special files (fifos, devices, sockets) are refused; empty
    folders are not recorded. Each file is opened with ``O_NOFOLLOW``, so a
    file swapped for a link after the check is refused too.

    Raises:
        UsageError: unreadable path, a symlink given or inside a folder, a
            special file, an unlistable name (see :func:`_check_name`), or two
            evidence files with the same bundle path.
    """
    extras: dict[str, bytes] = {}

    def add(rel: str, data: bytes, given: str) -> None:
        _check_name(rel, "evidence file")
        key = f"extra/{rel}"
        if key in extras or any(k.startswith(key + "/") or key.startswith(k + "/") for k in extras):
            msg = f"--evidence {given!r} collides with another evidence file at {key!r}"
            raise UsageError(msg)
        extras[key] = data

    for given in paths:
        name = _evidence_name(given)
        path = Path(given)
        if path.is_symlink():
            msg = (f"--evidence {given!r} is a symbolic link; symbolic links are never followed "
                   "(give the file or folder it points to)")  # fmt: skip
            raise UsageError(msg)
        if not path.exists():
            msg = f"--evidence {given!r} does not exist"
            raise UsageError(msg)
        if not path.is_dir():
            if not path.is_file():
                msg = f"--evidence {given!r} is not a regular file or a folder"
                raise UsageError(msg)
            add(name, _read_regular(path, given), given)
            continue
        found: list[tuple[str, Path]] = []
        for folder, dirs, names in os.walk(path, followlinks=False):
            dirs.sort()
            for entry in sorted(names) + [d for d in dirs if Path(folder, d).is_symlink()]:
                full = Path(folder, entry)
                rel = full.relative_to(path).as_posix()
                if full.is_symlink():
                    msg = f"--evidence {given!r} holds a symbolic link {rel!r}; only regular files are archived"
                    raise UsageError(msg)
                if not full.is_file():
                    msg = f"--evidence {given!r} holds {rel!r}, which is not a regular file"
                    raise UsageError(msg)
                found.append((rel, full))
        for rel, full in sorted(found, key=lambda item: _utf8_key(item[0])):
            add(f"{name}/{rel}", _read_regular(full, str(full)), given)
    return extras


def create_bundle(
    *,
    input_path: str,
    results_path: str,
    bundle_path: str,
    evidence_paths: Sequence[str] = (),
    sign_key_path: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> str:
    """Write the evidence bundle of one input and its results file.

    Steps:

    1. Refuse an existing bundle; read the signing key and ``--evidence`` files.
    2. Read the input with :func:`load_input` (a ``.json.gz`` is decompressed;
       the bundle keeps the file as given) and check its bytes did not change
       between the hash and the copy.
    3. The results file must be one (:func:`load_results`; not JSON or the
       wrong shape is a usage error) whose evaluator digest is its own, and
       must name the input's hash, and its gzip hash exactly when the input
       is a ``.gz`` file (:func:`check_input_hashes`).
    4. Evaluate the input (it must validate) and require the results file's
       ``result`` and ``gateAssessment`` to equal the recomputation byte-for-byte,
       so that the bundle verifies.
    5. Extract the raw owner artifacts, write ``identity.json``, ``SHA256SUMS``
       and the optional signature, build the deterministic tar.gz and write it
       with exclusive create.

    Args:
        input_path: the prepared input (``.json`` or ``.json.gz``).
        results_path: an existing results file of that input.
        bundle_path: the new bundle (never overwritten).
        evidence_paths: extra files or folders, archived below ``extra/``.
        sign_key_path: an Ed25519 PEM private key; signs ``SHA256SUMS``.
        environ: the environment (default ``os.environ``), read for ``SOURCE_DATE_EPOCH``.

    Returns:
        The bundle's bare hex SHA-256.

    Raises:
        OutputRefused: the bundle exists or cannot be written (exit 5).
        IntegrityError: the results file names another input, records an
            evaluator digest that is not its own, or differs from the
            recomputation (exit 3).
        InputRejected / RejectedInput: the input does not validate (exit 4).
        UsageError: unreadable files, a results file that is not one, a bad
            key, a bad ``SOURCE_DATE_EPOCH``, an unlistable file name, an
            ``--evidence`` path that is a symbolic link (exit 2).

    Side effects: reads the inputs; creates ``bundle_path``.
    """
    from ablation.identity import evaluator_identity  # noqa: PLC0415 - measured only when archiving

    refuse_existing(bundle_path)
    mtime = _source_date_epoch(os.environ if environ is None else environ)
    signer = _load_private_key(sign_key_path) if sign_key_path is not None else None
    extras = _collect_extras(evidence_paths)
    input_name = Path(input_path).name
    _check_name(input_name, "input file name")
    loaded = load_input(input_path)
    as_given = read_file(input_path, "input")
    if sha256_hex(as_given) != (loaded.gzip_sha256 or loaded.sha256):
        msg = f"input {input_path!r} changed while it was being archived"
        raise IntegrityError(msg)
    results = read_file(results_path, "results file")
    shown = f"results file {results_path!r}"
    recorded = load_results(results, shown, UsageError)
    check_input_hashes(recorded, shown, f"input {input_path!r}", loaded.sha256, loaded.gzip_sha256)
    evaluation = evaluate(loaded.data)
    _require_recomputed(results, recorded, evaluation, shown)
    input_member = f"input/{input_name}"
    parsed = parse_text(decode_utf8(loaded.data))
    evidence, index = derive_evidence(
        parsed.value, input_sha256=loaded.sha256, input_member=input_member, violations=parsed.violations
    )
    files: dict[str, bytes] = {
        input_member: as_given,
        "results.json": results,
        "identity.json": (dumps(evaluator_identity()) + "\n").encode("utf-8"),
        INDEX: index,
    }
    files.update((f.path, f.data) for f in evidence)
    files.update(extras)
    sums = render_sums(files)
    files[SUMS] = sums
    if signer is not None:
        files[SIGNATURE] = signer.sign(sums)
    data = bundle_bytes(top_folder(loaded.sha256), files, mtime=mtime)
    write_exclusive(bundle_path, data)
    return sha256_hex(data)


# ---------------------------------------------------------------------- verify


@dataclass(frozen=True, slots=True)
class BundleContents:
    """A bundle's members, read in memory after the structural checks.

    Attributes:
        top: the single top folder.
        files: regular files by path below ``top``.
        folders: folder entries by path below ``top`` (the top folder itself excluded).
    """

    top: str
    files: dict[str, bytes]
    folders: frozenset[str]


def _gunzip_bounded(data: bytes, limit: int, member: str) -> bytes:
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data), mode="rb") as stream:
            out = stream.read(limit + 1)
    except (OSError, EOFError, zlib.error) as exc:
        msg = f"{member}: not a readable gzip stream ({exc})"
        raise IntegrityError(msg) from None
    if len(out) > limit:
        msg = f"{member}: decompresses to more than {limit} bytes"
        raise IntegrityError(msg)
    return out


_TYPE_NAMES = {
    tarfile.SYMTYPE: "a symbolic link",
    tarfile.LNKTYPE: "a hard link",
    tarfile.CHRTYPE: "a character device",
    tarfile.BLKTYPE: "a block device",
    tarfile.FIFOTYPE: "a fifo",
    tarfile.CONTTYPE: "a contiguous file",
    tarfile.GNUTYPE_SPARSE: "a sparse file",
}


def _check_member_name(name: str) -> None:
    shown = _shown(name)
    if name.startswith("/"):
        msg = f"{shown}: an absolute member name"
        raise IntegrityError(msg)
    segments = name.split("/")
    if ".." in segments:
        msg = f"{shown}: a member name with a '..' segment"
        raise IntegrityError(msg)
    if any(s in ("", ".") for s in segments):
        msg = f"{shown}: a member name with an empty or '.' segment"
        raise IntegrityError(msg)


def read_bundle(data: bytes) -> BundleContents:
    """Read every member of a bundle in memory, never writing to disk.

    Checks, in stream order: the gzip and tar framing (the stream must end in
    zero blocks); no absolute name, ``..``, empty or ``.`` segment; only
    regular files and folders (no links, devices, fifos); one top folder
    holding everything; no duplicate name; no member over 1 GiB and at most
    4 GiB in all.

    Raises:
        IntegrityError: ``<member>: <what is wrong>``, or ``bundle: …`` for the framing.
    """
    raw = _gunzip_bounded(data, MAX_TOTAL_BYTES + _TAR_SLACK, "bundle")
    try:
        tar = tarfile.open(fileobj=io.BytesIO(raw), mode="r:", encoding="utf-8")
    except (tarfile.TarError, OSError, EOFError) as exc:
        msg = f"bundle: not a readable tar archive ({exc})"
        raise IntegrityError(msg) from None
    top: str | None = None
    files: dict[str, bytes] = {}
    folders: set[str] = set()
    seen: set[str] = set()
    total = 0
    last = "the start"
    with tar:
        while True:
            try:
                member = tar.next()
            except (tarfile.TarError, OSError, EOFError) as exc:
                msg = f"bundle: unreadable tar header after {_shown(last)} ({exc})"
                raise IntegrityError(msg) from None
            if member is None:
                break
            name = member.name
            last = name
            shown = _shown(name)
            _check_member_name(name)
            if member.type not in (tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.DIRTYPE):
                what = _TYPE_NAMES.get(member.type, f"a member of tar type {member.type!r}")
                msg = f"{shown}: {what}; only regular files and folders are allowed"
                raise IntegrityError(msg)
            first = name.split("/", 1)[0]
            if top is None:
                top = first
            if first != top or (name == top and not member.isdir()):
                msg = f"{shown}: outside the single top folder {_shown(top)}"
                raise IntegrityError(msg)
            if name in seen:
                msg = f"{shown}: duplicate member name"
                raise IntegrityError(msg)
            seen.add(name)
            if member.isdir():
                if name != top:
                    folders.add(name[len(top) + 1 :])
                continue
            if member.size > MAX_MEMBER_BYTES:
                msg = f"{shown}: {member.size} bytes, over the 1 GiB member limit"
                raise IntegrityError(msg)
            total += member.size
            if total > MAX_TOTAL_BYTES:
                msg = f"{shown}: the members so far exceed the 4 GiB bundle limit"
                raise IntegrityError(msg)
            try:
                stream = tar.extractfile(member)
                content = stream.read() if stream is not None else b""
            except (tarfile.TarError, OSError, EOFError) as exc:
                msg = f"{shown}: unreadable content ({exc})"
                raise IntegrityError(msg) from None
            if len(content) != member.size:
                msg = f"{shown}: truncated ({len(content)} of {member.size} bytes)"
                raise IntegrityError(msg)
            files[name[len(top) + 1 :]] = content
        end = tar.offset
    if raw[end:].strip(b"\0"):
        msg = f"bundle: bytes after {_shown(last)} are not a tar header (corrupt or appended data)"
        raise IntegrityError(msg)
    if top is None:
        msg = "bundle: an empty tar archive"
        raise IntegrityError(msg)
    if top not in seen:
        msg = f"{_shown(top)}: the top folder has no folder entry"
        raise IntegrityError(msg)
    return BundleContents(top=top, files=files, folders=frozenset(folders))


def _parse_sums(data: bytes, member: str) -> dict[str, str]:
    """``SHA256SUMS`` as ``{path: hex}``: exact lines, sorted by UTF-8 path, no repeats.

    Lines end in ``\\n`` and nothing else: the text is split on ``\\n`` only, so
    a name holding U+0085, U+2028 or U+2029 is one name (``str.splitlines``
    would cut it); a carriage return anywhere is refused.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        msg = f"{member}: not UTF-8 text"
        raise IntegrityError(msg) from None
    if text and not text.endswith("\n"):
        msg = f"{member}: does not end with a newline"
        raise IntegrityError(msg)
    if "\r" in text:
        msg = f"{member}: holds a carriage return"
        raise IntegrityError(msg)
    listed: dict[str, str] = {}
    previous: bytes | None = None
    # Split on "\n" only: U+0085, U+2028 and U+2029 (line breaks to str.splitlines) are name characters.
    for k, line in enumerate(text[:-1].split("\n"), 1) if text else ():
        match = _SUMS_LINE.fullmatch(line)
        if match is None:
            msg = f"{member}: line {k} is not '<64 lowercase hex>  <path>': {_short(repr(line))}"
            raise IntegrityError(msg)
        digest, path = match.groups()
        if path in listed:
            msg = f"{member}: line {k} lists {path!r} a second time"
            raise IntegrityError(msg)
        if previous is not None and _utf8_key(path) < previous:
            msg = f"{member}: line {k} ({path!r}) is out of UTF-8 order"
            raise IntegrityError(msg)
        previous = _utf8_key(path)
        listed[path] = digest
    return listed


def _fail(problems: list[str]) -> None:
    if problems:
        more = len(problems) - 1
        suffix = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
        raise IntegrityError(problems[0] + suffix)


def _identity_differences(recorded: object, current: object, where: str = "") -> list[str]:
    """Pointers of every value that differs between two identity objects, in document order."""
    if isinstance(recorded, dict) and isinstance(current, dict):
        out: list[str] = []
        for key in list(recorded) + [k for k in current if k not in recorded]:
            if key not in recorded or key not in current:
                out.append(child(where, key))
            else:
                out.extend(_identity_differences(recorded[key], current[key], child(where, key)))
        return out
    if isinstance(recorded, list) and isinstance(current, list) and len(recorded) == len(current):
        out = []
        for k, (a, b) in enumerate(zip(recorded, current, strict=True)):
            out.extend(_identity_differences(a, b, child(where, k)))
        return out
    return [] if recorded == current and type(recorded) is type(current) else [where or '""']


SignatureStatus = Literal["verified", "unchecked", "absent"]


@dataclass(frozen=True, slots=True, kw_only=True)
class BundleReport:
    """What :func:`verify_bundle` checked and found in a valid bundle.

    Attributes:
        bundle: the bundle path as given.
        bundle_sha256: hex SHA-256 of the bundle file.
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
        public_key: ``sha256:`` of the raw public key used, when one was given.
    """

    bundle: str
    bundle_sha256: str
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

    def render(self) -> str:
        """The human-readable report printed by ``ablation verify-archive`` (no trailing newline)."""
        lines = [
            f"bundle {self.bundle}: valid",
            f"  bundle sha256          {self.bundle_sha256}",
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
        if self.identity_equal:
            lines.append("identity: identity.json equals the current evaluator identity")
        else:
            shown = ", ".join(self.identity_differences[:8])
            more = len(self.identity_differences) - 8
            shown += f" and {more} more" if more > 0 else ""
            lines.append(f"identity: identity.json DIFFERS from the current evaluator identity at {shown} "
                         "(reported, not an error: the result was recomputed here and matched)")  # fmt: skip
        if self.signature == "verified":
            lines.append(f"signature: SHA256SUMS.sig verified with public key {self.public_key}")
        elif self.signature == "unchecked":
            lines.append("signature: SHA256SUMS.sig present but NOT checked (no --public-key given)")
        else:
            lines.append("signature: none (the bundle is not signed)")
        return "\n".join(lines)


def _check_folders(contents: BundleContents) -> None:
    """Folder entries are exactly the folders of the files."""
    needed = {"/".join(p.split("/")[:k]) for p in contents.files for k in range(1, p.count("/") + 1)}
    top = contents.top
    problems = [f"{top}/{p}: folder entry missing" for p in sorted(needed - contents.folders, key=_utf8_key)]
    problems += [f"{top}/{p}: a folder that holds no file" for p in sorted(contents.folders - needed, key=_utf8_key)]
    _fail(problems)


def _check_layout(contents: BundleContents) -> str:
    """Required members present, nothing outside the layout; returns the input member."""
    top = contents.top
    problems = []
    for required in (SUMS, "results.json", "identity.json", INDEX):
        if required not in contents.files:
            problems.append(f"{top}/{required}: missing from the bundle")
    inputs = sorted((p for p in contents.files if p.startswith("input/")), key=_utf8_key)
    if len(inputs) != 1 or inputs[0].count("/") != 1:
        problems.append(f"{top}/input/: must hold exactly one file, holds {', '.join(inputs) or 'none'}")
    fixed = {SUMS, SIGNATURE, "results.json", "identity.json"}
    for path in sorted(contents.files, key=_utf8_key):
        if path not in fixed and not path.startswith(("input/", "evidence/", "extra/")):
            problems.append(f"{top}/{_shown(path)}: not part of the bundle layout")
    _fail(problems)
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


def bundled_input(contents: BundleContents) -> BundledInput:
    """The bundle's input after the layout check (step 4 of :func:`verify_bundle`).

    Raises:
        IntegrityError: a member missing or outside the layout, or a ``.gz``
            input that does not decompress within the input bound.
    """
    member = _check_layout(contents)
    as_given = contents.files[member]
    gzip_sha = None
    if member.endswith(".gz"):
        gzip_sha = sha256_hex(as_given)
        data = _gunzip_bounded(as_given, DEFAULT_MAX_INPUT_BYTES, f"{contents.top}/{_shown(member)}")
    else:
        data = as_given
    return BundledInput(member=member, data=data, sha256=sha256_hex(data), gzip_sha256=gzip_sha)


def verify_bundle(bundle_path: str, *, public_key_path: str | None = None) -> BundleReport:
    """Re-check an evidence bundle and recompute its result in the current environment.

    Steps (PRODUCT.md "Evidence bundle"):

    1. Read the bundle in memory (:func:`read_bundle`: names, member types,
       one top folder, duplicates, sizes).
    2. ``SHA256SUMS`` lists exactly the regular files other than itself and
       the signature, and every digest matches; folder entries are exactly the
       folders of those files.
    3. The signature, when a public key is given (a signature without a key is
       reported as unchecked; a key without a signature fails).
    4. The layout: one ``input/`` file, ``results.json``, ``identity.json``,
       ``evidence/index.json``; nothing else outside ``evidence/`` and ``extra/``.
    5. ``results.json`` is a results file (:func:`load_results`: JSON, shape,
       ``evaluator.identityDigest`` = the canonical digest of
       ``evaluator.measured``) that names the input's hash, and its gzip hash
       exactly when the input is a ``.gz`` file (:func:`check_input_hashes`);
       the top folder is named after the input's hash.
    6. The input validates here, and every evidence file and the index equal
       what the bundled input's raw strings give.
    7. ``result`` and ``gateAssessment`` equal the recomputation byte-for-byte.
    8. ``identity.json`` is an identity object whose ``identityDigest`` is the
       canonical digest of its ``measured`` (:func:`load_identity`); then it is
       compared with the current identity (differences are reported, never an error).

    Args:
        bundle_path: the bundle file.
        public_key_path: an Ed25519 PEM public key to check ``SHA256SUMS.sig`` with.

    Returns:
        The report of a valid bundle.

    Raises:
        IntegrityError: ``<member>: <what differs>`` for the first failure (exit 3).
        UsageError: unreadable bundle or key file, or a key that is not Ed25519 (exit 2).

    Side effects: reads the bundle and the key; measures the current evaluator identity.
    """
    from ablation.identity import evaluator_identity  # noqa: PLC0415

    public_key = _load_public_key(public_key_path) if public_key_path is not None else None
    data = read_file(bundle_path, "bundle")
    checks: list[str] = []
    # (1)
    contents = read_bundle(data)
    top, files = contents.top, contents.files
    if _TOP_RE.fullmatch(top) is None:
        msg = f"{_shown(top)}: the top folder is not named ablation-bundle-<12 hex digits>"
        raise IntegrityError(msg)
    checks.append("tar stream read in memory: no absolute name, '..', link, device or duplicate; "
                  "one top folder; sizes within 1 GiB per member and 4 GiB in all")  # fmt: skip
    # (2)
    if SUMS not in files:
        msg = f"{top}/{SUMS}: missing from the bundle"
        raise IntegrityError(msg)
    listed = _parse_sums(files[SUMS], f"{top}/{SUMS}")
    present = {p for p in files if p not in (SUMS, SIGNATURE)}
    problems = [f"{top}/{_shown(p)}: in the bundle but not listed in {SUMS}"
                for p in sorted(present - listed.keys(), key=_utf8_key)]  # fmt: skip
    problems += [f"{top}/{p}: listed in {SUMS} but missing from the bundle"
                 for p in sorted(listed.keys() - present, key=_utf8_key)]  # fmt: skip
    _fail(problems)
    for path, digest in listed.items():
        actual = sha256_hex(files[path])
        if actual != digest:
            msg = f"{top}/{path}: sha256 {actual} does not match {SUMS} ({digest})"
            raise IntegrityError(msg)
    _check_folders(contents)
    checks.append(f"{SUMS} lists exactly the {len(listed)} files present (besides itself and the signature), "
                  "and every SHA-256 matches")  # fmt: skip
    # (3)
    signature: SignatureStatus = "absent"
    fingerprint = None
    if SIGNATURE in files:
        sig = files[SIGNATURE]
        if len(sig) != _SIGNATURE_BYTES:
            msg = f"{top}/{SIGNATURE}: {len(sig)} bytes, not a raw 64-byte Ed25519 signature"
            raise IntegrityError(msg)
        signature = "unchecked"
    if public_key is not None:
        fingerprint = _key_fingerprint(public_key)
        if SIGNATURE not in files:
            msg = f"{top}/{SIGNATURE}: missing, but a public key was given"
            raise IntegrityError(msg)
        try:
            public_key.verify(files[SIGNATURE], files[SUMS])
        except InvalidSignature:
            msg = f"{top}/{SIGNATURE}: not a valid signature over {SUMS} by public key {fingerprint}"
            raise IntegrityError(msg) from None
        signature = "verified"
        checks.append(f"{SIGNATURE} is a valid Ed25519 signature over {SUMS} by public key {fingerprint}")
    # (4)
    bundled = bundled_input(contents)
    checks.append("layout: one input file, results.json, identity.json, evidence/index.json; "
                  "nothing outside input/, evidence/ and extra/")  # fmt: skip
    # (5)
    input_member, input_data = bundled.member, bundled.data
    input_sha, input_gzip_sha = bundled.sha256, bundled.gzip_sha256
    results_member = f"{top}/results.json"
    recorded = load_results(files["results.json"], results_member)
    check_input_hashes(recorded, results_member, _shown(input_member), input_sha, input_gzip_sha)
    if top != top_folder(input_sha):
        msg = f"{top}: the top folder does not name the input's SHA-256 (expected {top_folder(input_sha)})"
        raise IntegrityError(msg)
    gzip_check = "its gzip SHA-256 too" if input_gzip_sha is not None else "no gzip SHA-256 (the input is not .gz)"
    checks.append(f"results.json names the input's SHA-256 {input_sha} and {gzip_check}; its evaluator "
                  "identityDigest is the canonical digest of evaluator.measured")  # fmt: skip
    # (6)
    try:
        evaluation = evaluate(input_data)
    except (InputRejected, RejectedInput) as exc:
        first = str(exc).splitlines()[0]
        msg = f"{top}/{input_member}: does not validate in the current environment: {first}"
        raise IntegrityError(msg) from None
    parsed = parse_text(decode_utf8(input_data))
    evidence, index = derive_evidence(
        parsed.value, input_sha256=input_sha, input_member=input_member, violations=parsed.violations
    )
    if files.get(INDEX) != index:
        msg = f"{top}/{INDEX}: differs from the index derived from the bundled input"
        raise IntegrityError(msg)
    expected = {f.path: f for f in evidence}
    problems = []
    for path in sorted((p for p in files if p.startswith("evidence/") and p != INDEX), key=_utf8_key):
        if path not in expected:
            problems.append(f"{top}/{_shown(path)}: not derived from any raw string of the bundled input")
    for path, file in expected.items():
        if path not in files:
            problems.append(f"{top}/{path}: missing; the bundled input holds {file.origin} as a string")
        elif files[path] != file.data:
            problems.append(f"{top}/{path}: differs from {file.origin} in the bundled input")
    _fail(problems)
    checks.append(f"{len(expected)} evidence files and evidence/index.json equal the raw strings of the bundled input")
    # (7)
    _require_recomputed(files["results.json"], recorded, evaluation, results_member)
    checks.append("result and gateAssessment recomputed here equal results.json byte-for-byte")
    # (8)
    recorded_identity = load_identity(files["identity.json"], f"{top}/identity.json")
    current = evaluator_identity()
    differences = _identity_differences(recorded_identity, current)
    checks.append("identity.json compared with the current evaluator identity")
    evaluator = recorded["evaluator"]
    assert isinstance(evaluator, dict)  # load_results checked it
    return BundleReport(
        bundle=bundle_path,
        bundle_sha256=sha256_hex(data),
        top=top,
        input_member=input_member,
        input_sha256=input_sha,
        input_gzip_sha256=input_gzip_sha,
        results_sha256=sha256_hex(files["results.json"]),
        results_identity_digest=evaluator["identityDigest"],
        file_count=len(files),
        evidence_file_count=len(expected) + 1,
        extra_file_count=sum(1 for p in files if p.startswith("extra/")),
        checks=tuple(checks),
        recorded_identity_digest=recorded_identity.get("identityDigest"),
        current_identity_digest=current.get("identityDigest"),
        identity_differences=tuple(differences),
        signature=signature,
        public_key=fingerprint,
    )
