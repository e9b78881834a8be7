"""The builders ``assemble`` uses reproduce another implementation's digests from its retained raw texts.

From ``../shared/inputs/realistic-structural.json.gz`` (skipped, with the reason,
when absent), the retained raw texts and values go into the prepare builders
(:mod:`ablation.prepare.build`, :mod:`ablation.prepare.build_case`), and every
preparation observation, staleness sample, case identity triple and execution
observation comes out equal, member for member and digest for digest. The
request digests are recomputed as ``D`` of the parsed retained ``requestJson``,
not rebuilt from seeds: that input uses seed ids ``seed:path-1`` and one request
path for every case, which prepare's request builder does not produce; for the
same reason the execution observation is built with the retained ``command``.

Spec: PREPARE.md §10 "Agreement with the other implementation's digests"; §11 criterion 9.
"""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from ablation.canonical import canonical_digest
from ablation.experiment import PROTOCOL
from ablation.prepare.build import (
    case_entry,
    preparation_observation,
    source_list_artifact,
    staleness_sample,
)
from ablation.prepare.build_case import execution_observation, first_receipt
from ablation.prepare.experiment_file import Case, Experiment, Limits, Tool
from ablation.strictjson import parse_text

ROOT = Path(__file__).resolve().parents[2]
INPUT = ROOT.parent / "shared" / "inputs" / "realistic-structural.json.gz"


@pytest.fixture(scope="module")
def retained() -> dict[str, Any]:
    if not INPUT.is_file():
        pytest.skip(f"{INPUT} is absent: the agreement with the other implementation's digests is not checked here")
    value = json.loads(gzip.decompress(INPUT.read_bytes()))
    assert isinstance(value, dict)
    return value


def _experiment(executable: dict[str, Any]) -> Experiment:
    """An experiment holding only what the preparation builder reads: the node and source-list pins."""
    tools = {
        "node": Tool(key="node", path=executable["nodePath"], sha256="0" * 64),
        "source_list": Tool(
            key="source_list", path=executable["path"], sha256=executable["artifactSha256"].removeprefix("sha256:")
        ),
    }
    return Experiment(
        path="agreement.toml",
        sha256="0" * 64,
        id="agreement",
        protocol=PROTOCOL,
        authority="test",
        work_root="/evidence",
        environment_path="/usr/bin",
        tools=tools,
        limits=Limits(),
        process_timeout_s=300,
        staleness_rule="spread",
        staleness_size=5,
        repositories=(),
        cases=(),
    )


def test_every_preparation_observation_and_staleness_sample(retained: dict[str, Any]) -> None:
    assert len(retained["repositories"]) == 3
    for repo in retained["repositories"]:
        raw = repo["sourceListArtifact"]["rawJson"]
        assert source_list_artifact(raw.encode("utf-8")) == repo["sourceListArtifact"]
        prep = repo["sourceListPreparation"]
        executable = prep["sourceListExecutable"]
        built = preparation_observation(
            _experiment(executable),
            repo["commit"],
            revision=executable["revision"],
            raw_sha256=repo["sourceListArtifact"]["rawSha256"],
            exit_code=prep["exitCode"],
            target_state=prep["targetState"],
            evidence=base64.b64decode(prep["trackedPathInventory"]["stdoutBase64"], validate=True),
        )
        assert json.dumps(built) == json.dumps(prep)  # equal, and in the same member order
        sample = repo["metadataStalenessSample"]
        rebuilt = staleness_sample(
            sample["commit"],
            sample["rawArtifactSha256"],
            sample["method"],
            sample["sampledPaths"],
            sample["stalePaths"],
        )
        assert json.dumps(rebuilt) == json.dumps(sample)


def test_every_case_identity_request_digest_and_execution_observation(retained: dict[str, Any]) -> None:
    repositories = {r["id"]: r for r in retained["repositories"]}
    bundles = 0
    for k, case in enumerate(retained["cases"]):
        repo = repositories[case["repositoryId"]]
        record = Case(
            index=k,
            id=case["id"],
            repository=case["repositoryId"],
            question=case["question"],
            truth=tuple(case["truth"]),
            max_items=case["maxItems"],
        )
        bundle = case["structuralEvidence"]
        built = case_entry(record, repo["commit"], repo["sourceListArtifact"]["rawSha256"], bundle)
        assert json.dumps(built) == json.dumps(case)
        if bundle is None:
            continue
        bundles += 1
        observation = bundle["executionObservation"]
        raw = observation["rawEvidence"]
        request = parse_text(raw["requestJson"]).value
        assert canonical_digest(request) == bundle["expectedRequestDigest"]
        receipt, why = first_receipt(raw["stdout"])
        assert (receipt, why) == (bundle["receipt"], None)
        texts = {
            "request": raw["requestJson"],
            "stdout": raw["stdout"],
            "stderr": raw["stderr"],
            "process": raw["processJson"],
            "state": raw["stateJson"],
            "transcript": raw["transcriptJson"],
        }
        rebuilt = execution_observation(
            command=observation["command"],
            repository_commit=repo["commit"],
            receipt_digest=bundle["receipt"]["receiptDigest"],
            sci_artifact=observation["sciArtifact"],
            backend_artifact=observation["backendArtifact"],
            texts=texts,
            cleanup=observation["cleanup"],
        )
        assert json.dumps(rebuilt) == json.dumps(observation)
    assert bundles == 30
