"""Exact failure messages of every rule test row, fail-fast and ``--errors all`` (SPEC §2.5).

The rule tests assert the rule ID and where it is reported; a message's
expected and found parts, and what collect-all mode reports after the first
violation, were not pinned (mutation testing showed them free to change).
Here every row of the rule tables (``test_rules_reject``, ``test_structural``,
``test_sci_request``, ``test_sci_receipt``, ``test_execution``) plus a few
inputs with several violations is run and its messages compared with
``tests/pins_messages.json``.

The file was written from the evaluator's output and read line by line; after
an intended message change, rewrite it with
``ABLATION_PIN_MESSAGES=write .venv/bin/python -m pytest tests/test_pins_messages.py``
and review the diff.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ablation.errors import BundleInvalid, InputRejected, RejectedInput
from ablation.experiment import validate_experiment
from tests.builder import dumps, rehash_repository, valid_minimal
from tests.test_execution import OBS_CASES
from tests.test_rules_reject import BYTES, MUTATIONS
from tests.test_sci_receipt import RCPT_CASES
from tests.test_sci_request import REQ_CASES
from tests.test_structural import SB_CASES, mutated, validate

SNAPSHOT = Path(__file__).with_name("pins_messages.json")
WRITE = os.environ.get("ABLATION_PIN_MESSAGES") == "write"


def _sample(sampled: list[object], stale: list[object]) -> Callable[[dict[str, Any]], None]:
    def change(obj: dict[str, Any]) -> None:
        sample = obj["repositories"][0]["metadataStalenessSample"]
        sample["sampledPaths"], sample["stalePaths"] = sampled, stale
        rehash_repository(obj["repositories"][0])

    return change


def _several(obj: dict[str, Any]) -> None:
    """Violations in the sample, the preparation and two cases at once."""
    _sample(["/a.js", 7, "src/alpha.js", "src/alpha.js", "src/beta.js/"], ["src/omega.js", "src/omega.js"])(obj)
    obj["repositories"][0]["metadataStalenessSample"]["method"] = " x"
    obj["repositories"][0]["sourceListPreparation"]["targetState"]["statusBefore"] = "M"
    obj["repositories"][0]["sourceListPreparation"]["exitCode"] = 2
    obj["cases"][2]["maxItems"] = 0
    obj["cases"][3]["id"] = "i" * 129


def _several_cases(obj: dict[str, Any]) -> None:
    """Violations in four cases and two members of one case."""
    obj["cases"][2]["maxItems"] = 0
    obj["cases"][3]["id"] = "i" * 129
    obj["cases"][3]["repositoryCommit"] = "b" * 40
    obj["cases"][4]["question"] = "Locate  alpha."
    obj["cases"][5]["truth"] = ["src/alpha.js", "src/alpha.js"]
    obj["cases"][6]["id"] = obj["cases"][1]["id"]


def _several_prep(obj: dict[str, Any]) -> None:
    """Many members of the preparation observation wrong at once (digest left stale too)."""
    prep = obj["repositories"][0]["sourceListPreparation"]
    prep["schema"] = "x"
    prep["repositoryCommit"] = "b" * 40
    prep["rawArtifactSha256"] = "sha256:" + "0" * 64
    prep["sourceListExecutable"].update(nodePath="node", path="x.mjs", revision="main", artifactSha256="x")
    prep["command"] = ["node"]
    prep["commandDigest"] = "x"
    prep["exitCode"] = 1
    prep["targetState"].update(headBefore="b" * 40, cleanAfter=False)
    prep["trackedPathInventory"].update(command=["git"], commandDigest="y", exitCode=128, stdoutSha256="z")


def _several_items(obj: dict[str, Any]) -> None:
    """Several items and payload members wrong at once inside the source-list text."""
    artifact = obj["repositories"][0]["sourceListArtifact"]
    payload = json.loads(artifact["rawJson"])
    items = payload["items"]
    items[0].update(indexKind="file", worktreeKind="dir", extension=".JS")
    items[1].update(metadataStatus="present", summary=" x", readWhen=["a"] * 6, metadataError="e")
    items[2].update(metadataStatus="absent", summary="s", readWhen=["r"], metadataError="e")
    items[3].update(metadataStatus="invalid", summary=None, metadataError="oops", worktreeKind="symlink")
    items[4].update(metadataStatus="unreadable", summary=None, indexKind="symlink", worktreeKind="regular", metadataError="")
    items[5].update(metadataStatus="not_applicable", summary=None, worktreeKind="symlink", metadataError="e")
    items[6].update(metadataStatus="stale")
    items[7]["path"] = items[6]["path"]
    items[8] = 5
    payload.update(contractVersion="v2", mode="page", repository="/r", ok=False, totalCount=3, returnedCount=4, page=2,
                   totalPages=0, pageSize=5, truncated=True, violationCount=1, violations=[1])
    payload["supportedExtensions"] = [".js"]
    artifact["rawJson"] = json.dumps(payload)
    rehash_repository(obj["repositories"][0])


def _several_repositories(obj: dict[str, Any]) -> None:
    second = json.loads(json.dumps(obj["repositories"][0]))
    obj["repositories"][0]["id"] = "  x"
    obj["repositories"][0]["commit"] = "A" * 40
    obj["repositories"].append(second)
    obj["repositories"].append(json.loads(json.dumps(second)))


EXTRA_REJECTS: list[tuple[str, Callable[[dict[str, Any]], None]]] = [
    ("STALE-7-several", _sample(["/a.js", 7, "src/alpha.js", "src/alpha.js", "src/beta.js/"], [])),
    ("STALE-7-stale-several", _sample(["src/alpha.js"], ["/x.js", "src/alpha.js", "src/alpha.js"])),
    ("STALE-9-STALE-10-several", _sample(["src/alpha.js", "src/omega.js", "src/zulu.js"], ["src/x.js", "src/y.js"])),
    ("STALE-5-STALE-6", _sample(None, 5)),  # type: ignore[arg-type]
    ("STALE-5-valid-stale", _sample("src/alpha.js", ["src/alpha.js"])),  # type: ignore[arg-type]
    ("STALE-6-valid-sampled", _sample(["src/alpha.js"], {})),  # type: ignore[arg-type]
    ("STALE-8-empty-stale-outside", _sample([], ["src/alpha.js"])),
    ("several-families", _several),
    ("several-cases", _several_cases),
    ("several-prep", _several_prep),
    ("several-items", _several_items),
    ("several-repositories", _several_repositories),
    ("REPO-3-alone", lambda obj: obj["repositories"][0].__setitem__("id", "repo ")),
    ("REPO-2-then-source-list-text", lambda obj: (
        obj["repositories"][0].__setitem__("extra", 1),
        obj["repositories"][0]["sourceListArtifact"].__setitem__(
            "rawJson", obj["repositories"][0]["sourceListArtifact"]["rawJson"].replace('"ok": true', '"ok": true, "ok": 1'))),
    ),
    ("SL-1-artifact-not-an-object", lambda obj: obj["repositories"][0].__setitem__("sourceListArtifact", 5)),
    ("CASE-4-then-more-cases", lambda obj: (obj["cases"][1].__setitem__("repositoryId", "elsewhere"),
                                            obj["cases"][3].__setitem__("maxItems", 0))),
    ("CASE-11-then-more-cases", lambda obj: (obj["cases"][1].__setitem__("question", "Example 12 number 3 scenario"),
                                             obj["cases"][3].__setitem__("maxItems", 0))),
    ("CASE-2-then-more-cases", lambda obj: (obj["cases"][1].__setitem__("extra", 1), obj["cases"][1].__setitem__("maxItems", 0),
                                            obj["cases"][3].__setitem__("maxItems", 0), obj["cases"][5].pop("truth"),
                                            obj["cases"][7].__setitem__("maxItems", 99))),
]


def reject_inputs() -> Iterator[tuple[str, bytes]]:
    for name, mutate in MUTATIONS[1:]:
        obj = valid_minimal()
        mutate(obj)
        yield name, dumps(obj)
    for name, transform, _ in BYTES:
        yield name, transform(dumps(valid_minimal()))
    for name, mutate in EXTRA_REJECTS:
        obj = valid_minimal()
        mutate(obj)
        yield name, dumps(obj)


def bundle_inputs() -> Iterator[tuple[str, Any]]:
    for table in (SB_CASES, REQ_CASES, RCPT_CASES, OBS_CASES):
        for param in table:
            _, _, mutation, skip = param.values
            yield param.id, (mutation, skip)


def reject_messages(data: bytes) -> dict[str, object]:
    with pytest.raises(InputRejected) as first:
        validate_experiment(data)
    with pytest.raises(RejectedInput) as every:
        validate_experiment(data, collect_all=True)
    return {"first": str(first.value), "all": [str(v) for v in every.value.violations]}


def bundle_message(mutation: Callable[[dict[str, Any]], object], skip: Any) -> str:
    with pytest.raises(BundleInvalid) as info:
        validate(mutated(mutation, skip))
    return str(info.value)


def _load() -> dict[str, dict[str, Any]]:
    return json.loads(SNAPSHOT.read_text(encoding="utf-8")) if SNAPSHOT.is_file() else {"reject": {}, "bundle": {}}


_STORED = _load()
_WRITTEN: dict[str, dict[str, Any]] = {"reject": {}, "bundle": {}}


@pytest.mark.parametrize(("name", "data"), list(reject_inputs()), ids=lambda v: v if isinstance(v, str) else "")
def test_reject_messages(name: str, data: bytes) -> None:
    got = reject_messages(data)
    if WRITE:
        _WRITTEN["reject"][name] = got
        return
    assert got == _STORED["reject"][name]


@pytest.mark.parametrize(("name", "case"), list(bundle_inputs()), ids=lambda v: v if isinstance(v, str) else "")
def test_bundle_messages(name: str, case: Any) -> None:
    got = bundle_message(*case)
    if WRITE:
        _WRITTEN["bundle"][name] = got
        return
    assert got == _STORED["bundle"][name]


def test_zz_snapshot_covers_every_row() -> None:
    """Runs last (name order within the file): writes the file in write mode, else checks nothing is stale."""
    names = {"reject": [n for n, _ in reject_inputs()], "bundle": [n for n, _ in bundle_inputs()]}
    if WRITE:
        SNAPSHOT.write_text(json.dumps(_WRITTEN, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
        return
    assert sorted(_STORED["reject"]) == sorted(names["reject"])
    assert sorted(_STORED["bundle"]) == sorted(names["bundle"])
