"""The bundle's layout: its fixed names, the top folder, and the evidence files derived from an input.

Below the single top folder ``ablation-bundle-<first 12 hex of inputSha256>/``::

    input/<file name as given>      results.json      identity.json
    evidence/index.json
    evidence/repositories/<r>/source-list.json  git-ls-files-stage.bin
    evidence/cases/<c>/sci-request.json  sci-receipt.json  sci-stdout.txt  sci-stderr.txt
                       sci-transcript.json  sci-process.json  sci-state.json
    extra/<name>                    SHA256SUMS        SHA256SUMS.sig

``<r>`` and ``<c>`` are zero-padded array indexes, never ids (PRODUCT.md
"Evidence bundle"). Everything here is pure.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ablation.errors import UsageError
from ablation.output import dumps
from ablation.results_file import json_type
from ablation.strictjson import Violation

__all__ = [
    "INDEX",
    "MAX_MEMBER_BYTES",
    "MAX_TOTAL_BYTES",
    "SIGNATURE",
    "SUMS",
    "EvidenceFile",
    "check_name",
    "derive_evidence",
    "pad_width",
    "shown",
    "top_folder",
    "utf8_key",
]

MAX_MEMBER_BYTES = 1 << 30  # 1 GiB per member
MAX_TOTAL_BYTES = 4 << 30  # 4 GiB for all members together
SUMS = "SHA256SUMS"
SIGNATURE = "SHA256SUMS.sig"
INDEX = "evidence/index.json"
INDEX_FORMAT = "ablation-evidence-index/v1"
TOP_RE = re.compile(r"ablation-bundle-[0-9a-f]{12}")
_UNSAFE_NAME = re.compile(r"[\x00-\x1f\x7f\\]")
_SHOWN_LIMIT = 200

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
_REPO_FILES = (
    (("sourceListArtifact", "rawJson"), "source-list.json", "utf-8"),
    (("sourceListPreparation", "trackedPathInventory", "stdoutBase64"), "git-ls-files-stage.bin", "base64"),
)
_ABOUT = (
    "Each file holds the exact bytes of one raw string of the input: the UTF-8 bytes of the text, "
    "or the decoded bytes for base64 (encoding 'base64'). 'origin' is its JSON Pointer in the input. "
    "Folders are named by zero-padded array index, never by id. Raw strings that do not exist in the "
    "input as strings are listed under 'notExtracted' with the reason."
)

Encoding = Literal["utf-8", "base64"]
Entry = dict[str, object]


def top_folder(input_sha256: str) -> str:
    """The bundle's single top folder for an input hash.

    >>> top_folder("5e61f30b5cc018dac70e2f89abcb95e64eb12902e25723c0c18a88635deec5fa")
    'ablation-bundle-5e61f30b5cc0'
    """
    return f"ablation-bundle-{input_sha256[:12]}"


def pad_width(length: int) -> int:
    """Digits of a zero-padded index into an array of ``length`` elements (at least 4).

    >>> pad_width(30), pad_width(10_000), pad_width(10_001)
    (4, 4, 5)
    """
    return max(4, len(str(max(length - 1, 0))))


def utf8_key(name: str) -> bytes:
    """Sort key: UTF-8 bytes (SPEC §9.5), total for names without lone surrogates."""
    return name.encode("utf-8", "surrogateescape")


def shown(name: str) -> str:
    """A member name safe to print on one bounded line.

    As is when printable UTF-8, else its ``repr``; longer than 200 characters,
    cut with its full length said (every error line is bounded: ablation.errors).
    """
    text = name if name.isprintable() else repr(name)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = repr(name)
    if len(text) > _SHOWN_LIMIT:
        return f"{text[:_SHOWN_LIMIT]}… ({len(text)} characters)"
    return text


def check_name(rel: str, what: str) -> None:
    """A bundle path must be listable in SHA256SUMS and safe to extract.

    Refused (a usage error naming the file): a name that is not valid UTF-8;
    one holding ``\\n``, ``\\r`` or another C0 control, DEL or a backslash
    (a ``SHA256SUMS`` line could not hold it without ``sha256sum``'s escaping,
    which this format does not use); an empty, ``.`` or ``..`` segment.
    """
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        msg = f"{what} {shown(rel)} is not valid UTF-8; the bundle cannot name it"
        raise UsageError(msg) from None
    if _UNSAFE_NAME.search(rel) or any(s in ("", ".", "..") for s in rel.split("/")):
        msg = f"{what} {rel!r} holds a control character, a backslash or an empty, '.' or '..' segment"
        raise UsageError(msg)


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
            return None, f"{where or '/'} is {json_type(value)}, not an object"
        if member not in value:
            return None, f"{where}/{member} is absent"
        value = value[member]
        where = f"{where}/{member}"
    return value, None


def _extract(value: object, encoding: Encoding) -> tuple[bytes | None, str | None]:
    """The file bytes of one raw string, or why it has none."""
    if not isinstance(value, str):
        return None, f"is {json_type(value)}, not a string"
    if encoding == "base64":
        try:
            return base64.b64decode(value, validate=True), None
        except (binascii.Error, ValueError):
            return None, "is not valid base64"
    try:
        return value.encode("utf-8"), None
    except UnicodeEncodeError:
        return None, "holds a lone surrogate, which has no exact UTF-8 bytes"


def _entry(file: EvidenceFile) -> Entry:
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


def _repository(r: int, repo: object, width: int) -> tuple[list[EvidenceFile], Entry]:
    """The evidence files of repository ``r`` and its index entry."""
    folder = f"evidence/repositories/{r:0{width}d}"
    mine: list[EvidenceFile] = []
    missing: list[Entry] = []
    for members, name, encoding in _REPO_FILES:
        origin = f"/repositories/{r}/" + "/".join(members)
        value, absent = _follow(repo, members, f"/repositories/{r}")
        data, why = (None, absent) if absent else _extract(value, encoding)  # type: ignore[arg-type]  # _REPO_FILES pairs each member with its Encoding
        if data is None:
            missing.append({"origin": origin, "reason": why if absent else f"{origin} {why}"})
        else:
            mine.append(EvidenceFile(f"{folder}/{name}", origin, encoding, data))  # type: ignore[arg-type]  # _REPO_FILES pairs each member with its Encoding
    entry: Entry = {
        "index": r,
        "folder": folder if mine else None,
        "repositoryId": repo.get("id") if isinstance(repo, dict) else None,
        "files": [_entry(f) for f in mine],
        "notExtracted": missing,
    }
    return mine, entry


def _case_file(c: int, raw: object, member: str, violations: Sequence[Violation]) -> tuple[bytes | None, str]:
    """The bytes of one raw SCI string of case ``c``, or (``None``, why it has none)."""
    base = f"/cases/{c}/" + "/".join(_RAW_EVIDENCE)
    origin = f"{base}/{member}"
    value, why = _follow(raw, (member,), base)
    broken = _broken(("cases", c, *_RAW_EVIDENCE, member), violations)
    if why is None and broken is not None:
        why = (
            f"the input breaks {broken.rule} at {broken.pointer} ({broken.expected}), so it holds no exact string here"
        )
    if why:
        return None, why
    data, why2 = _extract(value, "utf-8")
    return data, f"{origin} {why2}"


def _case(c: int, case: object, width: int, violations: Sequence[Violation]) -> tuple[list[EvidenceFile], Entry]:
    """The evidence files of case ``c`` and its index entry."""
    folder = f"evidence/cases/{c:0{width}d}"
    base = f"/cases/{c}"
    mine: list[EvidenceFile] = []
    missing: list[Entry] = []
    bundle, absent = _follow(case, _RAW_EVIDENCE[:1], base)
    if absent is None and bundle is None:
        state = "null"
        missing.append(
            {
                "origin": f"{base}/structuralEvidence",
                "reason": "structuralEvidence is null: the case has no SCI evidence to extract",
            }
        )
    else:
        state = "absent" if absent else ("object" if isinstance(bundle, dict) else json_type(bundle))
        raw, why_raw = _follow(case, _RAW_EVIDENCE, base)
        for member, name in _CASE_FILES:
            origin = f"{base}/" + "/".join(_RAW_EVIDENCE) + f"/{member}"
            data, why = (None, why_raw) if why_raw is not None else _case_file(c, raw, member, violations)
            if data is None:
                missing.append({"origin": origin, "reason": why})
            else:
                mine.append(EvidenceFile(f"{folder}/{name}", origin, "utf-8", data))
    entry: Entry = {
        "index": c,
        "folder": folder if mine else None,
        "caseId": case.get("id") if isinstance(case, dict) else None,
        "repositoryId": case.get("repositoryId") if isinstance(case, dict) else None,
        "structuralEvidence": state,
        "files": [_entry(f) for f in mine],
        "notExtracted": missing,
    }
    return mine, entry


def _array(root: object, name: str) -> list[object]:
    found = root.get(name) if isinstance(root, dict) else None
    return found if isinstance(found, list) else []


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
    repositories, cases = _array(document, "repositories"), _array(document, "cases")
    files: list[EvidenceFile] = []
    repo_entries: list[Entry] = []
    for r, repo in enumerate(repositories):
        mine, entry = _repository(r, repo, pad_width(len(repositories)))
        files.extend(mine)
        repo_entries.append(entry)
    case_entries: list[Entry] = []
    for c, case in enumerate(cases):
        mine, entry = _case(c, case, pad_width(len(cases)), violations)
        files.extend(mine)
        case_entries.append(entry)
    index = {
        "format": INDEX_FORMAT,
        "inputSha256": input_sha256,
        "input": input_member,
        "about": _ABOUT,
        "summary": {
            "repositoryCount": len(repositories),
            "caseCount": len(cases),
            "repositoryFileCount": sum(len(e["files"]) for e in repo_entries),  # type: ignore[arg-type,misc]  # a list (_repository)
            "caseFileCount": sum(len(e["files"]) for e in case_entries),  # type: ignore[arg-type,misc]  # a list (_case)
            "casesWithExtractedSciEvidence": sum(1 for e in case_entries if e["files"]),
            "casesWithNullStructuralEvidence": sum(1 for e in case_entries if e["structuralEvidence"] == "null"),
        },
        "repositories": repo_entries,
        "cases": case_entries,
    }
    return tuple(files), (dumps(index) + "\n").encode("utf-8")
