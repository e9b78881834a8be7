"""``--errors all`` across rule families: every violation found, the first equal to the fail-fast error (SPEC §2.5).

Inputs that break rules of several families at once — the staleness sample,
the preparation, the items, the repositories and several cases together —
with every message they give, fail-fast and collected, pinned whole in
``tests/rules/messages/errors_all.json``. Decided where the contract leaves
room: cases are checked only when every repository validated
(``docs/decisions/0010-overlapping-rules.md``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ablation.errors import RejectedInput
from ablation.experiment import validate_experiment
from tests.builders.messages import Snapshot, ids, reject_inputs, reject_messages
from tests.builders.prepared import dumps, rehash_repository, valid_minimal
from tests.builders.reject import Mutation, rejected, sample_paths


def test_errors_all_lists_every_violation_first_equals_fail_fast() -> None:
    obj = valid_minimal()
    obj["protocol"] = "v1"
    obj["cases"][0]["maxItems"] = 0
    obj["cases"][1]["question"] = "a  b"
    data = dumps(obj)
    first = rejected(data)
    with pytest.raises(RejectedInput) as info:
        validate_experiment(data, collect_all=True)
    rules = [v.rule for v in info.value.violations]
    assert rules == ["TOP-14", "CASE-8", "CASE-5"]
    assert str(info.value.violations[0]) == str(first)


def _several(obj: dict[str, Any]) -> None:
    """Violations in the sample, the preparation and two cases at once."""
    sample_paths(["/a.js", 7, "src/alpha.js", "src/alpha.js", "src/beta.js/"], ["src/omega.js", "src/omega.js"])(obj)
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
    items[4].update(
        metadataStatus="unreadable", summary=None, indexKind="symlink", worktreeKind="regular", metadataError=""
    )
    items[5].update(metadataStatus="not_applicable", summary=None, worktreeKind="symlink", metadataError="e")
    items[6].update(metadataStatus="stale")
    items[7]["path"] = items[6]["path"]
    items[8] = 5
    payload.update(
        contractVersion="v2",
        mode="page",
        repository="/r",
        ok=False,
        totalCount=3,
        returnedCount=4,
        page=2,
        totalPages=0,
        pageSize=5,
        truncated=True,
        violationCount=1,
        violations=[1],
    )
    payload["supportedExtensions"] = [".js"]
    artifact["rawJson"] = json.dumps(payload)
    rehash_repository(obj["repositories"][0])


def _several_repositories(obj: dict[str, Any]) -> None:
    second = json.loads(json.dumps(obj["repositories"][0]))
    obj["repositories"][0]["id"] = "  x"
    obj["repositories"][0]["commit"] = "A" * 40
    obj["repositories"].append(second)
    obj["repositories"].append(json.loads(json.dumps(second)))


EXTRA_REJECTS: list[tuple[str, Mutation]] = [
    ("several-families", _several),
    ("several-cases", _several_cases),
    ("several-prep", _several_prep),
    ("several-items", _several_items),
    ("several-repositories", _several_repositories),
]


# ---------------------------------------------------------------- whole messages (tests/rules/messages/errors_all.json)

MESSAGES = Snapshot("errors_all")


@pytest.mark.parametrize(("name", "data"), list(reject_inputs(EXTRA_REJECTS)), ids=ids)
def test_reject_messages(name: str, data: bytes) -> None:
    MESSAGES.check(name, reject_messages(data))


def test_zz_snapshot_covers_every_row() -> None:
    """Runs last: writes the file in write mode, else checks that it holds exactly these rows."""
    MESSAGES.finish(name for name, _ in reject_inputs(EXTRA_REJECTS))
