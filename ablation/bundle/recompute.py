"""Compare a recorded results file and identity with what this evaluator computes now.

``result`` and ``gateAssessment`` must equal the recomputation byte-for-byte
(:func:`require_recomputed`); identity differences are only reported
(:func:`identity_differences`). PRODUCT.md "Evidence bundle".
"""

from __future__ import annotations

from dataclasses import dataclass

from ablation.errors import IntegrityError
from ablation.output import dumps, render_output
from ablation.pipeline import Evaluation, output_members
from ablation.results_file import RecordedResults, short
from ablation.strictjson import child

__all__ = ["identity_differences", "require_recomputed"]


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
        pairs = [(recorded[key], recomputed[key], child(where, key)) for key in recorded]
    elif isinstance(recorded, list) and isinstance(recomputed, list):
        if len(recorded) != len(recomputed):
            return _Difference(where, recorded, recomputed, members=True)
        pairs = [(a, b, child(where, k)) for k, (a, b) in enumerate(zip(recorded, recomputed, strict=True))]
    else:
        same = dumps(recorded) == dumps(recomputed)
        return None if same else _Difference(where, recorded, recomputed, members=False)
    for a, b, pointer in pairs:
        found = _first_difference(a, b, pointer)
        if found is not None:
            return found
    return None


def _detail(found: _Difference) -> str:
    if found.members and isinstance(found.recorded, dict) and isinstance(found.recomputed, dict):
        return f"recorded members {short(', '.join(found.recorded))}, recomputed {short(', '.join(found.recomputed))}"
    if found.members:
        return f"recorded {len(found.recorded)} elements, recomputed {len(found.recomputed)}"  # type: ignore[arg-type]  # members without both dicts: both lists
    return f"recorded {short(dumps(found.recorded))}, recomputed {short(dumps(found.recomputed))}"


def require_recomputed(data: bytes, recorded: RecordedResults, evaluation: Evaluation, member: str) -> None:
    """Compare ``result`` and ``gateAssessment`` of a results file byte-for-byte with a recomputation.

    The expected bytes are the recorded file re-rendered with the recomputed
    ``result`` and ``gateAssessment`` (the recorded input hashes, pinning and
    evaluator kept), so formatting, member order and extra members count too.

    Raises:
        IntegrityError: ``<member>: <what> differs …`` naming the first differing pointer.
    """
    expected = output_members(
        recorded.input_sha256,
        recorded.input_gzip_sha256,
        recorded.input_sha256_pinned,
        evaluation,
        recorded.evaluator.raw,
    )
    try:
        rendered = render_output(expected)
    except (TypeError, ValueError) as exc:
        msg = f"{member}: holds a value ablation never writes ({exc})"
        raise IntegrityError(msg) from None
    if rendered == data:
        return
    for key, value in (("result", recorded.result), ("gateAssessment", recorded.gate_assessment)):
        found = _first_difference(value, expected[key], f"/{key}")
        if found is not None:
            msg = f"{member}: {key} differs from the recomputation at {found.pointer}: {_detail(found)}"
            raise IntegrityError(msg)
    extra = [k for k in recorded.raw if k not in expected]
    if extra:
        msg = f"{member}: has members ablation never writes: {', '.join(map(repr, extra))}"
        raise IntegrityError(msg)
    msg = f"{member}: bytes differ from ablation's rendering of the same members (member order or formatting)"
    raise IntegrityError(msg)


def identity_differences(recorded: object, current: object, where: str = "") -> list[str]:
    """Pointers of every value that differs between two identity objects, in document order."""
    if isinstance(recorded, dict) and isinstance(current, dict):
        out: list[str] = []
        for key in list(recorded) + [k for k in current if k not in recorded]:
            if key not in recorded or key not in current:
                out.append(child(where, key))
            else:
                out.extend(identity_differences(recorded[key], current[key], child(where, key)))
        return out
    if isinstance(recorded, list) and isinstance(current, list) and len(recorded) == len(current):
        out = []
        for k, (a, b) in enumerate(zip(recorded, current, strict=True)):
            out.extend(identity_differences(a, b, child(where, k)))
        return out
    return [] if recorded == current and type(recorded) is type(current) else [where or '""']
