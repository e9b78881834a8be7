"""One-defect edits of SPEC §11.1's valid prepared input, for the REJECT rule families (SPEC §4.1–§4.7).

Each edit starts from :func:`valid_minimal`, breaks exactly one thing and
re-seals every digest the test does not target (the ``rehash_*`` helpers of
``tests/builders/prepared.py``), so that removing the rule makes its test
fail: the input would then be accepted, or rejected for another rule. Edits
come in two forms: *mutations* (``item``, ``prep``, ``git_bytes``,
``sample``, ``case``, ``with_payload``, ``set_path``), which return a
function for a rule table, and in-place setters (``set_payload``,
``set_item``, ``set_prep``, ``set_git``). :func:`rejected`, :func:`first`
and :func:`accepted` validate.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import pytest

from ablation.canonical import canonical_digest, raw_digest
from ablation.errors import InputRejected
from ablation.experiment import validate_experiment
from tests.builders import prepared
from tests.builders.prepared import MINIMAL_NAMES, dumps, rehash_case, rehash_input, rehash_repository, valid_minimal

Obj = dict[str, Any]
A40 = "a" * 40
E = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
RAW = "/repositories/0/sourceListArtifact/rawJson -> "
PREP = "/repositories/0/sourceListPreparation"
SAMPLE = "/repositories/0/metadataStalenessSample"


NAMES = MINIMAL_NAMES


Mutation = Callable[[Obj], object]
"""A one-defect edit of a prepared input (a ``dict`` from :func:`valid_minimal`), in place."""


def rejected(obj_or_data: Obj | bytes) -> InputRejected:
    """The first violation ``validate_experiment`` raises for the input (a dict or its bytes)."""
    data = obj_or_data if isinstance(obj_or_data, bytes) else dumps(obj_or_data)
    with pytest.raises(InputRejected) as info:
        validate_experiment(data)
    return info.value


def accepted(obj: Obj) -> None:
    """Validate the input; any rejection fails the test."""
    validate_experiment(dumps(obj))


def first(obj: Obj) -> tuple[str, str]:
    """The first violated rule and where it is reported."""
    error = rejected(obj)
    return error.rule, error.where


def repo0(obj: Obj) -> Obj:
    """The first repository of the input."""
    repository: Obj = obj["repositories"][0]
    return repository


def payload_of(obj: Obj) -> Obj:
    """The first repository's source-list payload, parsed from its raw text (a copy)."""
    payload: Obj = json.loads(repo0(obj)["sourceListArtifact"]["rawJson"])
    return payload


def with_payload(change: Mutation, *, git: bool = False) -> Mutation:
    """Mutate the source-list payload, rewrite rawJson and re-seal everything bound to it."""

    def mutate(obj: Obj) -> None:
        payload = payload_of(obj)
        change(payload)
        repo0(obj)["sourceListArtifact"]["rawJson"] = prepared.raw_text(payload)
        rehash_input(obj)
        if git:
            rehash_repository(repo0(obj), regenerate_git=True)

    return mutate


def item(k: int, **members: Any) -> Mutation:
    """Set members of source-list item ``k`` (rawJson and the digests bound to it resealed)."""

    def change(payload: Obj) -> None:
        payload["items"][k].update(members)

    return with_payload(change)


def prep(change: Mutation) -> Mutation:
    """Mutate the preparation observation, then re-seal only its observationDigest."""

    def mutate(obj: Obj) -> None:
        observation = repo0(obj)["sourceListPreparation"]
        change(observation)
        observation["observationDigest"] = canonical_digest(
            {k: v for k, v in observation.items() if k != "observationDigest"}
        )

    return mutate


def git_bytes(data: bytes, *, text: str | None = None) -> Mutation:
    """Replace the tracked-path evidence by ``data`` (or a literal base64 ``text``)."""

    def change(observation: Obj) -> None:
        inventory = observation["trackedPathInventory"]
        inventory["stdoutBase64"] = text if text is not None else base64.b64encode(data).decode()
        inventory["stdoutSha256"] = raw_digest(data)

    return prep(change)


def records(*rows: tuple[str, int, str], oid: str = E) -> bytes:
    """``git ls-files --stage -z`` records of ``(mode, stage, path)`` rows, all with object id ``oid``."""
    return b"".join(f"{mode} {oid} {stage}\t{path}".encode() + b"\0" for mode, stage, path in rows)


def sample(change: Mutation) -> Mutation:
    """Edit the first repository's staleness sample, then reseal the repository."""

    def mutate(obj: Obj) -> None:
        change(repo0(obj)["metadataStalenessSample"])
        rehash_repository(repo0(obj))

    return mutate


def case(k: int, reseal: bool = True, **members: Any) -> Mutation:
    """Set members of case ``k``; its identity digests are resealed unless ``reseal`` is false."""

    def mutate(obj: Obj) -> None:
        obj["cases"][k].update(members)
        if reseal:
            rehash_case(obj["cases"][k], repo0(obj))

    return mutate


def set_path(path: tuple[object, ...], value: object) -> Mutation:
    """Set the member at ``path`` (keys and indexes) to ``value``, resealing nothing."""

    def mutate(obj: Obj) -> None:
        target: Any = obj
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return mutate


def set_payload(obj: Obj, change: Mutation, *, git: bool = False) -> None:
    """Edit the source-list payload in place; rawJson and its digests resealed, the git evidence too with ``git``."""
    p = payload_of(obj)
    change(p)
    repo0(obj)["sourceListArtifact"]["rawJson"] = prepared.raw_text(p)
    rehash_input(obj)
    if git:
        rehash_repository(repo0(obj), regenerate_git=True)


def set_item(obj: Obj, k: int, *, git: bool = False, **members: Any) -> None:
    """Set members of item ``k`` in place (see :func:`set_payload`)."""
    set_payload(obj, lambda p: p["items"][k].update(members), git=git)


def set_prep(obj: Obj, change: Mutation) -> None:
    """Edit the preparation observation in place and reseal its observationDigest."""
    observation = repo0(obj)["sourceListPreparation"]
    change(observation)
    observation["observationDigest"] = canonical_digest(
        {k: v for k, v in observation.items() if k != "observationDigest"}
    )


def set_git(obj: Obj, data: bytes) -> None:
    """Make ``data`` the tracked-path evidence (base64 and SHA-256) of the preparation, resealed."""

    def change(o: Obj) -> None:
        o["trackedPathInventory"]["stdoutBase64"] = base64.b64encode(data).decode()
        o["trackedPathInventory"]["stdoutSha256"] = raw_digest(data)

    set_prep(obj, change)


def path_records(paths: list[str], stage: int = 0, mode: str = "100644") -> bytes:
    """``git ls-files --stage -z`` records of ``paths``, all with one stage and mode."""
    return b"".join(f"{mode} {E} {stage}\t{p}".encode() + b"\0" for p in paths)


def minimal_with(change: Mutation) -> Obj:
    """SPEC §11.1's valid input after ``change``."""
    obj = valid_minimal()
    change(obj)
    return obj


def sample_paths(sampled: object, stale: object) -> Mutation:
    """Set the staleness sample's ``sampledPaths`` and ``stalePaths`` and re-seal the repository."""

    def change(obj: dict[str, Any]) -> None:
        sample = obj["repositories"][0]["metadataStalenessSample"]
        sample["sampledPaths"], sample["stalePaths"] = sampled, stale
        rehash_repository(obj["repositories"][0])

    return change


def one_page(items: int, page_size: int) -> Obj:
    """SPEC §11.1's input with its source list cut to ``items`` items on one page of ``page_size``."""
    obj = valid_minimal()

    def change(payload: Obj) -> None:
        payload["items"] = payload["items"][:items]
        payload.update(totalCount=items, returnedCount=items, pageSize=page_size)

    with_payload(change)(obj)
    return obj


def rule_of(request: pytest.FixtureRequest) -> str:
    """The rule a row of a rule table names: the first two parts of its id (``SL-13-absolute-path`` → ``SL-13``)."""
    return "-".join(request.node.callspec.id.split("-")[:2])


def assert_first_rule(mutate: Mutation, rule: str) -> None:
    """Apply ``mutate`` to SPEC §11.1's valid input and assert that ``rule`` is the first one it breaks."""
    obj = valid_minimal()
    mutate(obj)
    error = rejected(dumps(obj))
    assert error.rule == rule, str(error)


def rows(table: list[tuple[str, Mutation]]) -> list[object]:
    """The rows of a mutation table as pytest params, each with its name as id."""
    return [pytest.param(mutate, id=name) for name, mutate in table]
