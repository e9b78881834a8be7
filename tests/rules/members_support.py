"""Shared helpers of the ``test_members_*`` pins (issue 25): inputs and bundles from ``tests/builders/prepared.py``.

Two kinds of input:

- a whole prepared input (:func:`minimal`, :func:`experiment` with any
  number of repositories and cases), checked by :func:`rejection`, which
  returns the SPEC §2.5 line of the first REJECT violation;
- one structural bundle of the SPEC §11.1 case ``repo-1`` (:func:`bundle`),
  changed through JSON Pointers (:func:`get`, :func:`put`, :func:`drop`),
  re-sealed with :func:`reseal` so that only the targeted rule breaks, and
  checked by :func:`bundle_failure`, which returns the failure text
  ``<RULE> at <where>: expected …; found …``.

Spec: SPEC.md §2.5, §4, §4.12, §11.1.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from ablation.canonical import canonical_digest
from ablation.contracts.structural import StructuralEvidence, validate_bundle
from ablation.errors import BundleInvalid, InputRejected, RejectedInput
from ablation.experiment import ValidatedExperiment, validate_experiment
from tests.builders import prepared as builder

Obj = dict[str, Any]

COMMIT = "a" * 40
QUESTION = "Locate alpha request parsing and validation behavior."
#: The twelve item paths of SPEC §11.1, in artifact order.
PATHS = builder.MINIMAL_PATHS
#: Twenty words that give twenty distinct intent signatures (CASE-15).
WORDS = (
    *builder.MINIMAL_NAMES,
    "ledger",
    "socket",
    "router",
    "schema",
    "tokens",
    "widget",
    "queue",
    "lexer",
)
OB = "executionObservation"
RAW = f"{OB}/rawEvidence"


# ---------------------------------------------------------------- JSON Pointers (without the leading "/")


def _segments(pointer: str) -> list[str | int]:
    return [int(s) if s.isdigit() else s for s in pointer.split("/")]


def get(obj: Any, pointer: str) -> Any:
    """The value at ``pointer`` (``"receipt/evidence/0/id"``; array indexes as digits)."""
    for segment in _segments(pointer):
        obj = obj[segment]
    return obj


def put(obj: Any, pointer: str, value: object) -> None:
    """Set the value at ``pointer`` (a new member is appended to its object)."""
    *parents, last = _segments(pointer)
    for segment in parents:
        obj = obj[segment]
    obj[last] = value


def drop(obj: Any, pointer: str) -> None:
    """Remove the member or element at ``pointer``."""
    *parents, last = _segments(pointer)
    for segment in parents:
        obj = obj[segment]
    del obj[last]


# ---------------------------------------------------------------- whole inputs (REJECT rules)


def items(paths: Iterable[str] = PATHS) -> list[Obj]:
    """Metadata-present items, one per path, each with its own summary."""
    return [builder.source_list_item(path, summary=f"owner record {n}") for n, path in enumerate(paths, 1)]


def repository(repo_id: str = "repo", paths: Iterable[str] = PATHS) -> Obj:
    """A valid repository of the SPEC §11.1 shape (commit ``a`` × 40)."""
    return builder.repository(repo_id, COMMIT, items(paths))


def cases_of(repo: Obj, count: int, *, first: int = 0, bundle: bool = False) -> list[Obj]:
    """``count`` valid cases of ``repo``: distinct questions (CASE-15) and truth sets (CASE-16).

    Case ``k`` (from ``first``) asks about ``WORDS[k]`` and has the truth
    ``[PATHS[k % 12]]``, or two paths from the thirteenth case on. Without
    ``bundle`` the ``structuralEvidence`` is ``null`` (valid input; SB-1 fails
    later, which never rejects), which keeps large inputs quick to build.
    """
    out = []
    for k in range(first, first + count):
        truth = [PATHS[k % 12]] if k < 12 else [PATHS[k % 12], PATHS[(k + 5) % 12]]
        question = f"Explain how the {WORDS[k]} module handles requests."
        options: dict[str, Any] = {} if bundle else {"bundle": None}
        out.append(builder.case(repo, f"{repo['id']}-{k + 1}", question, truth, 2, **options))
    return out


def experiment(counts: Sequence[int], *, bundle: bool = False) -> Obj:
    """A prepared input with ``len(counts)`` repositories ``repo-0``, ``repo-1``, … and ``counts[r]`` cases each."""
    repos = [repository(f"repo-{r}") for r in range(len(counts))]
    cases = [case for repo, count in zip(repos, counts, strict=True) for case in cases_of(repo, count, bundle=bundle)]
    return builder.prepared_input(repos, cases)


@functools.lru_cache(maxsize=1)
def _minimal() -> Obj:
    return builder.valid_minimal()


def minimal() -> Obj:
    """A fresh copy of SPEC §11.1 ``valid-minimal`` (one repository, twelve items, ten cases)."""
    return copy.deepcopy(_minimal())


def accepted(obj: Obj) -> ValidatedExperiment:
    """Validate ``obj``; it must be admissible."""
    return validate_experiment(builder.dumps(obj))


def rejection(obj: Obj) -> str:
    """The SPEC §2.5 line of the REJECT violation reported for ``obj`` (fail-fast mode)."""
    with pytest.raises(InputRejected) as info:
        validate_experiment(builder.dumps(obj))
    return str(info.value)


def rejections(obj: Obj) -> list[str]:
    """Every violation ``--errors all`` reports for ``obj``, as SPEC §2.5 lines in the order found."""
    with pytest.raises(RejectedInput) as info:
        validate_experiment(builder.dumps(obj), collect_all=True)
    return [str(v) for v in info.value.violations]


# ---------------------------------------------------------------- one structural bundle (UNAVAILABLE rules)


@functools.lru_cache(maxsize=1)
def _bundle() -> Obj:
    return builder.structural_bundle(repository(), QUESTION, ["src/alpha.js"])


def bundle() -> Obj:
    """A fresh copy of the valid structural bundle of SPEC §11.1 case ``repo-1``."""
    return copy.deepcopy(_bundle())


def reseal(b: Obj, keep: Iterable[str] = ()) -> Obj:
    """Recompute every digest and raw text of ``b`` except the raw texts named in ``keep``; return ``b``."""
    return builder.rehash_bundle(b, keep=keep)


def validate(b: Obj) -> StructuralEvidence:
    """Validate ``b`` as the bundle of a case of :func:`repository` asking :data:`QUESTION`."""
    return validate_bundle(b, question=QUESTION, repository_commit=COMMIT, item_paths=frozenset(PATHS))


def bundle_failure(b: Obj) -> str:
    """The failure text ``<RULE> at <where>: expected …; found …`` of ``b`` (it must fail)."""
    with pytest.raises(BundleInvalid) as info:
        validate(b)
    return str(info.value)


def entry(
    kind: str = "match",
    operation: str = "structural_search",
    *,
    path: str = "src/alpha.js",
    rng: Obj | None = None,
    symbol: str = "alpha",
) -> Obj:
    """One evidence entry of any identity kind (RCPT-18, RCPT-19), its id computed (RCPT-24).

    ``match``, ``definition`` and ``reference`` carry ``rng`` (default
    (0, 0)–(0, 5)); ``graph_node`` carries it only when given; ``graph_edge``
    points from ``path`` to ``src/beta.js`` (an ``import``).
    """
    identity: Obj = {"path": path, "kind": kind}
    if kind != "match":
        identity["symbol"] = symbol
    if kind == "graph_edge":
        identity |= {"relatedPath": "src/beta.js", "relatedSymbol": "beta", "edgeType": "import"}
    elif kind != "graph_node" or rng is not None:
        identity["range"] = rng if rng is not None else span(0, 0, 0, 5)
    result = builder.match(path)
    result["identity"] = identity
    result["operation"] = operation
    result["id"] = "candidate:" + canonical_digest(identity)
    return result


def span(start_line: object, start_column: object, end_line: object, end_column: object) -> Obj:
    """An ``identity/range`` value ``{start: {line, column}, end: {line, column}}``."""
    return {
        "start": {"line": start_line, "column": start_column},
        "end": {"line": end_line, "column": end_column},
    }


def with_evidence(entries: Sequence[Obj], *, operations: Sequence[str] | None = None) -> Obj:
    """The bundle with ``receipt/evidence`` replaced (summary and limits follow), re-sealed.

    ``operations`` replaces ``receipt/request/operations`` only (``expectedRequest``
    keeps Phase-B's ``structural_search``, so SB-6 or SB-7 fails after every RCPT rule passed).
    """
    b = bundle()
    receipt = b["receipt"]
    receipt["evidence"] = [copy.deepcopy(e) for e in entries]
    receipt["summary"]["returnedCount"] = receipt["summary"]["totalObservedCount"] = len(entries)
    receipt["summary"]["evidenceBytes"] = sum(e["byteCount"] for e in entries)
    per_path: dict[str, int] = {}
    for e in entries:
        per_path[e["identity"]["path"]] = per_path.get(e["identity"]["path"], 0) + 1
    limits = dict(builder.DEFAULT_LIMITS)
    limits["maxCandidates"] = max(limits["maxCandidates"], len(entries))
    limits["maxCandidatesPerFile"] = max([limits["maxCandidatesPerFile"], *per_path.values()])
    limits["maxEvidenceBytes"] = max(limits["maxEvidenceBytes"], receipt["summary"]["evidenceBytes"])
    receipt["request"]["limits"] = limits
    b["expectedRequest"]["limits"] = dict(limits)
    if operations is not None:
        receipt["request"]["operations"] = list(operations)
    return reseal(b)
