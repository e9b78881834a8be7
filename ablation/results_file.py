"""Files that ablation wrote and reads back: a results file (``run``) and an evaluator identity.

``results.json`` (or ``--results``) and ``identity.json`` are parsed by
:func:`parse_json_file` (any malformation is one line naming the file, never a
traceback) and must be self-consistent (:func:`load_results`,
:func:`load_identity`, :func:`check_input_hashes`). What they return is the
typed model, :class:`RecordedResults` and :class:`RecordedIdentity`: the
members those checks establish as named fields, deeper parts as the parsed
mappings, and the whole parsed object beside them for code that needs the
exact JSON. Used by the bundle writer and verifier and by ``notes``
(PRODUCT.md "run", "Evidence bundle").
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NoReturn

from ablation.canonical import canonical_digest
from ablation.errors import AblationError, IntegrityError
from ablation.strictjson import MAX_DEPTH, WrittenJsonError, parse_written

__all__ = [
    "MAX_JSON_DEPTH",
    "RecordedIdentity",
    "RecordedResults",
    "check_input_hashes",
    "json_type",
    "load_identity",
    "load_results",
    "parse_json_file",
    "results_from_value",
    "short",
]

MAX_JSON_DEPTH = MAX_DEPTH  # containers nested deeper in results.json or identity.json are refused
_HEX64 = re.compile(r"[0-9a-f]{64}")
# The members of a results file, in the order ``ablation run`` writes them (PRODUCT.md ``run``).
RESULTS_MEMBERS = ("inputSha256", "inputGzipSha256", "inputSha256Pinned", "result", "gateAssessment", "evaluator")


@dataclass(frozen=True, slots=True)
class RecordedIdentity:
    """An evaluator identity as a file records it: ``identity.json``, or a results file's ``evaluator``.

    Built by :func:`load_identity` and :func:`load_results` once
    ``identityDigest`` is known to be the canonical digest of ``measured``
    (PRODUCT.md "evaluator").

    Attributes:
        measured: the ``measured`` object (its members are not checked here).
        identity_digest: ``identityDigest``, the canonical digest (SPEC §3) of ``measured``.
        asserted: the ``asserted`` object; ``None`` when it is absent or not an
            object (not checked: ``raw`` holds it as recorded).
        raw: the whole identity object as parsed, members in file order.
    """

    measured: Mapping[str, object]
    identity_digest: str
    asserted: Mapping[str, object] | None
    raw: Mapping[str, object]

    def asserted_value(self, name: str) -> object:
        """The member ``name`` of ``asserted`` as recorded (e.g. ``imageDigest``); ``None`` when there is none."""
        return None if self.asserted is None else self.asserted.get(name)

    @classmethod
    def from_json(cls, value: object, where: str = "") -> RecordedIdentity:
        """An identity object parsed from JSON, its ``identityDigest`` checked.

        Raises:
            IntegrityError: ``identity: <where>/…`` when it is not an identity
                object or its digest is not that of its ``measured``.
        """
        return _check_identity_digest(value, where, "identity", IntegrityError)

    def to_json(self) -> dict[str, object]:
        """The identity object as recorded, members in file order."""
        return dict(self.raw)


@dataclass(frozen=True, slots=True)
class RecordedResults:
    """A results file written by ``ablation run``, as :func:`load_results` checked it (PRODUCT.md "run").

    Attributes:
        input_sha256: ``inputSha256``, 64 lowercase hex digits.
        input_gzip_sha256: ``inputGzipSha256`` (64 lowercase hex digits), ``None`` when the member is absent.
        input_sha256_pinned: ``inputSha256Pinned``.
        result: the ``result`` object; its members are not checked here
            (``notes`` checks what it computes with, the verifier recomputes it).
        gate_assessment: the ``gateAssessment`` object, likewise unchecked inside.
        evaluator: the ``evaluator`` identity, its digest checked.
        raw: the whole results object as parsed, members in file order.
    """

    input_sha256: str
    input_gzip_sha256: str | None
    input_sha256_pinned: bool
    result: Mapping[str, object]
    gate_assessment: Mapping[str, object]
    evaluator: RecordedIdentity
    raw: Mapping[str, object]


def short(text: str, limit: int = 80) -> str:
    """``text`` on one line (whitespace runs become one space), cut to ``limit`` characters with ``…``."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def json_type(value: object) -> str:
    """The JSON type of a parsed value, with its article ("a string", "null")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    for kind, name in ((str, "a string"), (list, "an array"), (dict, "an object")):
        if isinstance(value, kind):
            return name
    return "a number"


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
        return parse_written(text)
    except WrittenJsonError as exc:
        if exc.kind == "grammar":
            msg = f"{member}: not JSON ({short(str(exc), 160)})"
        elif exc.kind == "unwritten":
            msg = f"{member}: holds {exc}; ablation never writes that"
        else:
            msg = f"{member}: {exc}"
        raise error(msg) from None


def _check_identity_digest(identity: object, where: str, member: str, error: type[AblationError]) -> RecordedIdentity:
    """An identity object whose ``identityDigest`` is the canonical digest of its ``measured`` object.

    A wrong type is ``error``; a digest that differs is always :class:`IntegrityError`.
    """
    if not isinstance(identity, dict):
        msg = f"{member}: {where + ' is ' if where else ''}{json_type(identity)}, not an evaluator identity object"
        raise error(msg)
    for name, wanted in (("measured", dict), ("identityDigest", str)):
        if name not in identity:
            msg = f"{member}: {where}/{name} is absent"
            raise error(msg)
        if not isinstance(identity[name], wanted):
            kind = "an object" if wanted is dict else "a string"
            msg = f"{member}: {where}/{name} is {json_type(identity[name])}, not {kind}"
            raise error(msg)
    measured, recorded = identity["measured"], identity["identityDigest"]
    assert isinstance(measured, dict) and isinstance(recorded, str)  # checked above
    digest = canonical_digest(measured)
    if recorded != digest:
        msg = (
            f"{member}: {where}/identityDigest {short(recorded)} is not the canonical "
            f"digest {digest} of {where}/measured"
        )
        raise IntegrityError(msg)
    asserted = identity.get("asserted")
    return RecordedIdentity(measured, recorded, asserted if isinstance(asserted, dict) else None, identity)


def load_identity(data: bytes, member: str) -> RecordedIdentity:
    """``identity.json`` of a bundle: JSON (:func:`parse_json_file`) and self-consistent.

    Raises:
        IntegrityError: ``<member>: …`` when it is not an identity object or its
            ``identityDigest`` is not the canonical digest of its ``measured``.
    """
    return _check_identity_digest(parse_json_file(data, member), "", member, IntegrityError)


def _results_shape(value: object) -> str | None:
    """Why a parsed value is not shaped like a results file, or ``None``."""
    if not isinstance(value, dict):
        return f"{json_type(value)}, not an object"
    for name in value:
        if name not in RESULTS_MEMBERS:
            return f"it has the member {short(json.dumps(name, ensure_ascii=False))}, which ablation never writes"
    for name in RESULTS_MEMBERS:
        if name not in value and name != "inputGzipSha256":
            return f"it has no {name!r} member"
    for name in ("inputSha256", "inputGzipSha256"):
        found = value.get(name)
        if name in value and not (isinstance(found, str) and _HEX64.fullmatch(found)):
            shown = short(json.dumps(found, ensure_ascii=False)) if isinstance(found, str) else json_type(found)
            return f"/{name} is {shown}, not 64 lowercase hex digits"
    for name, kind, wanted in (
        ("inputSha256Pinned", "a boolean", bool),
        ("result", "an object", dict),
        ("gateAssessment", "an object", dict),
    ):
        if not isinstance(value[name], wanted):
            return f"/{name} is {json_type(value[name])}, not {kind}"
    return None


def load_results(data: bytes, member: str, error: type[AblationError] = IntegrityError) -> RecordedResults:
    """A results file written by ``ablation run``: parsed (:func:`parse_json_file`), then :func:`results_from_value`.

    Args:
        data: the file's bytes.
        member: how messages name the file.
        error: :class:`IntegrityError` inside a bundle, :class:`UsageError` for ``--results``.

    Raises:
        AblationError: ``error`` or :class:`IntegrityError`, ``<member>: <what>``.
    """
    return results_from_value(parse_json_file(data, member, error), member, error)


def results_from_value(value: object, member: str, error: type[AblationError] = IntegrityError) -> RecordedResults:
    """A parsed results file, its shape and its own digest checked.

    Shape (failures raise ``error``): a JSON object with only the members
    ``ablation run`` writes; ``inputSha256`` (and ``inputGzipSha256`` when
    present) 64 lowercase hex digits; ``inputSha256Pinned`` a boolean;
    ``result`` and ``gateAssessment`` objects; ``evaluator`` an object with a
    ``measured`` object and an ``identityDigest`` string. Self-consistency
    (always :class:`IntegrityError`): ``evaluator.identityDigest`` is the
    canonical digest (SPEC §3) of ``evaluator.measured``. What lies inside
    ``result`` and ``gateAssessment`` is typed by :mod:`ablation.recorded`.

    Returns:
        The checked results file as a :class:`RecordedResults`.

    Raises:
        AblationError: ``error`` or :class:`IntegrityError`, ``<member>: <what>``.
    """

    def refuse(why: str) -> NoReturn:
        msg = f"{member}: not an ablation results file: {why}"
        raise error(msg)

    why = _results_shape(value)
    if why is not None:
        refuse(why)
    assert isinstance(value, dict)  # _results_shape checked it
    evaluator = _check_identity_digest(value["evaluator"], "/evaluator", member, error)
    sha256, gzip_sha256, pinned = value["inputSha256"], value.get("inputGzipSha256"), value["inputSha256Pinned"]
    result, gates = value["result"], value["gateAssessment"]
    # _results_shape checked all five
    assert isinstance(sha256, str) and (gzip_sha256 is None or isinstance(gzip_sha256, str))
    assert isinstance(pinned, bool) and isinstance(result, dict) and isinstance(gates, dict)
    return RecordedResults(sha256, gzip_sha256, pinned, result, gates, evaluator, value)


def check_input_hashes(
    recorded: RecordedResults, member: str, input_name: str, input_sha256: str, input_gzip_sha256: str | None
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
    if recorded.input_sha256 != input_sha256:
        msg = f"{member}: inputSha256 {recorded.input_sha256} is not the SHA-256 {input_sha256} of {input_name}"
        raise IntegrityError(msg)
    recorded_gzip = recorded.input_gzip_sha256
    if input_gzip_sha256 is None and recorded_gzip is not None:
        msg = f"{member}: has inputGzipSha256 {recorded_gzip}, but {input_name} is not a .gz file"
        raise IntegrityError(msg)
    if input_gzip_sha256 is not None and recorded_gzip is None:
        msg = f"{member}: has no inputGzipSha256, but {input_name} is a .gz file (SHA-256 {input_gzip_sha256})"
        raise IntegrityError(msg)
    if recorded_gzip != input_gzip_sha256:
        msg = f"{member}: inputGzipSha256 {recorded_gzip} is not the SHA-256 {input_gzip_sha256} of {input_name}"
        raise IntegrityError(msg)
