"""The SCI request a case sends: built from the experiment file, checked by the evaluator's own contract.

:func:`build_request` makes the request ``capture`` writes to
``<work_root>/requests/<nnn>.json`` (PREPARE.md §4 "SCI request"): members in
REQ-1's order, the seeds ``seed:language``, ``seed:pattern`` and one
``seed:path-NNNN`` per path seed in the file's order, the one operation
``structural_search``, the limits of ``[sci_defaults]``. :func:`request_text`
is its text, written once and never rewritten. :func:`request_problem` runs
:func:`ablation.contracts.sci_request.check_request` and
:func:`~ablation.contracts.sci_request.check_phase_b` (REQ-1 … REQ-18) on it
and translates the failure's location into the experiment file's.

Spec: PREPARE.md §4 "SCI request"; SPEC.md §4.9, §11.1.
"""

from __future__ import annotations

import json
import re

from ablation.contracts.sci_request import check_phase_b, check_request
from ablation.errors import BundleInvalid
from ablation.prepare.experiment_file import Case, Limits
from ablation.prepare.findings import Finding
from ablation.prepare.tomltext import where

__all__ = ["OPERATION", "build_request", "path_seed_id", "request_problem", "request_text"]

OPERATION = "structural_search"
"""The only operation of a Phase-B request (REQ-15)."""

_DETAIL = re.compile(r"at (.*?): expected (.*); found (.*)", re.DOTALL)
_LIMIT_KEYS = {
    "maxCandidates": "max_candidates",
    "maxCandidatesPerFile": "max_candidates_per_file",
    "maxEvidenceBytes": "max_evidence_bytes",
    "timeoutMs": "timeout_ms",
}


def path_seed_id(k: int) -> str:
    """The id of the ``k``-th path seed (0-based): ``seed:path-0001``, ``seed:path-0002``, …

    >>> path_seed_id(0), path_seed_id(253)
    ('seed:path-0001', 'seed:path-0254')
    """
    return f"seed:path-{k + 1:04d}"


def build_request(case: Case, limits: Limits) -> dict[str, object]:
    """The SCI request of a case with ``[case.sci]``, members in REQ-1's order.

    Raises:
        ValueError: the case has no ``[case.sci]`` (a bug: such a case sends no request).
    """
    if case.sci is None:
        msg = f"case {case.index} has no [case.sci] and sends no request"
        raise ValueError(msg)
    seeds: list[dict[str, object]] = [
        {"id": "seed:language", "kind": "text", "value": case.sci.language},
        {"id": "seed:pattern", "kind": "text", "value": case.sci.pattern},
    ]
    seeds += [{"id": path_seed_id(k), "kind": "path", "value": path} for k, path in enumerate(case.sci.paths)]
    return {"question": case.question, "seeds": seeds, "operations": [OPERATION], "limits": limits.request_limits()}


def request_text(request: dict[str, object]) -> str:
    """The request file's text: ``json.dumps(request, indent=2, ensure_ascii=False)`` and one line feed."""
    return json.dumps(request, indent=2, ensure_ascii=False) + "\n"


def _toml_location(case_index: int, pointer: str) -> str:
    """The experiment file's location of a place in the request (``expectedRequest/seeds/2/value``)."""
    parts = pointer.split("/")[1:]
    if not parts:
        return where("case", case_index, "sci")
    if parts[0] == "question":
        return where("case", case_index, "question")
    if parts[0] == "limits":
        return where("sci_defaults", "limits", *[_LIMIT_KEYS.get(p, p) for p in parts[1:2]])
    if parts[0] == "seeds" and len(parts) > 1 and parts[1].isdigit():
        k = int(parts[1])
        if k == 0:
            return where("case", case_index, "sci", "language")
        if k == 1:
            return where("case", case_index, "sci", "pattern")
        return where("case", case_index, "sci", "paths", k - 2)
    return where("case", case_index, "sci")


def request_problem(case_index: int, request: dict[str, object]) -> Finding | None:
    """REQ-1 … REQ-18 on a built request, by the evaluator's contract; the failure at its TOML location.

    Returns:
        ``None`` when the request passes, else the finding (rule, the
        experiment file's location, and the contract's expected and found texts).
    """
    try:
        checked = check_request(request, "expectedRequest")
        check_phase_b(checked, "expectedRequest")
    except BundleInvalid as failure:
        match = _DETAIL.fullmatch(failure.detail)
        if match is None:  # pragma: no cover - every contract failure has this form (contracts.base.fail)
            return Finding(failure.rule, where("case", case_index, "sci"), "a valid SCI request", failure.detail)
        pointer, expected, found = match.groups()
        return Finding(failure.rule, _toml_location(case_index, pointer), expected, found)
    return None
