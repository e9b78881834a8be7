"""The whole ``gateAssessment`` pinned for the worked examples and the conformance inputs.

The conformance references carry only ``result``, so nothing compared the
gate assessment (PRODUCT.md "gateAssessment"; preregistration "Adoption
decision gates") beyond a few quantities: mutation testing showed its members,
thresholds, texts and counts free to change. Here the assessment of each input
is compared with ``tests/gate_assessments.json``: in full for the worked examples and
three corpus inputs, by the SHA-256 of its JSON text (member order kept) for the other corpus
inputs. Rewrite with ``ABLATION_PIN_GATES=write`` after an intended change and
review the diff.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ablation.pipeline import evaluate as _evaluate
from tests.builders import prepared
from tests.builders.paths import CONFORMANCE
from tests.builders.prepared import dumps, synthetic, valid_minimal, valid_two_repo

SNAPSHOT = Path(__file__).with_name("gate_assessments.json")
WRITE = os.environ.get("ABLATION_PIN_GATES") == "write"


FULL = {
    "receipt-text-not-a-string",
    "numeric-gates-pass",
    "g4a-delta-exactly-one-tenth",
    "valid_minimal",
    "valid_two_repo",
    "synthetic-7",
    "accept-four-repositories",
    "accept-coverage-exactly-0-6",
    "accept-ineligible-with-bad-bundle",
}


WORDS = ("zebra", "yak", "walrus", "vulture", "urchin", "tapir", "salmon", "raven", "quail", "panda")


def evaluate(data: bytes) -> Any:
    """``ablation.pipeline.evaluate``, its ``result`` and ``gate_assessment`` typed as the JSON the tests read."""
    return _evaluate(data)


def metadata_wins(matching: int) -> dict[str, Any]:
    """Three fully covered repositories whose questions name a word found only in the truth item's summary.

    Paths never score (no question token is in a path), so ``paths`` back-fills
    item 0 and misses; ``source_list`` finds the truth when its summary holds the
    word, which it does for the first ``matching`` of the ten cases.
    """
    repos, cases = [], []
    for r, rid in enumerate(["north", "south", "east"]):
        items = [
            prepared.source_list_item(
                f"src/f{k:02d}.js", summary=f"owner {WORDS[k - 1]}" if 1 <= k <= matching else "owner misc"
            )
            for k in range(12)
        ]
        repo = prepared.repository(rid, f"{r + 1:x}" * 40, items)
        repos.append(repo)
        cases += [
            prepared.case(repo, f"{rid}-{n}", f"Locate {word} handling.", [f"src/f{n:02d}.js"], 1)
            for n, word in enumerate(WORDS, 1)
        ]
    return prepared.prepared_input(repos, cases)


def inputs() -> Iterator[tuple[str, bytes]]:
    yield "numeric-gates-pass", dumps(metadata_wins(10))  # G1, G4a, G4b, G4c pass: numericGatesPassed true
    yield "g4a-delta-exactly-one-tenth", dumps(metadata_wins(1))  # precision delta = 1/10 passes G4a
    yield "valid_minimal", dumps(valid_minimal())
    broken = valid_minimal()
    broken["cases"][0]["structuralEvidence"]["executionObservation"]["rawEvidence"]["receiptJson"] = 5
    yield "receipt-text-not-a-string", dumps(broken)  # G7 discloses null bytes for it, and nothing crashes
    yield "valid_two_repo", dumps(valid_two_repo())
    yield "synthetic-7", dumps(synthetic(4, 40, 12, seed=7, present_fraction=(0.4, 0.9)))
    if CONFORMANCE.is_dir():
        for folder in sorted(CONFORMANCE.iterdir()):
            expected = folder / "expected.json"
            if expected.is_file() and json.loads(expected.read_text())["verdict"] == "accept":
                yield folder.name, (folder / "input.json").read_bytes()


_STORED = json.loads(SNAPSHOT.read_text(encoding="utf-8")) if SNAPSHOT.is_file() else {}
_WRITTEN: dict[str, Any] = {}


@pytest.mark.parametrize(("name", "data"), list(inputs()), ids=lambda v: v if isinstance(v, str) else "")
def test_gate_assessment(name: str, data: bytes) -> None:
    assessment = evaluate(data).gate_assessment
    text = json.dumps(assessment, ensure_ascii=False)  # member order kept: it is part of the output
    got = assessment if name in FULL else "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    if WRITE:
        _WRITTEN[name] = got
        return
    if name in FULL:
        assert text == json.dumps(_STORED[name], ensure_ascii=False)
    else:
        assert got == _STORED[name]


# ---------------------------------------------------------------- G7: cost disclosure (PRODUCT.md "gateAssessment")


def test_G7_discloses_raw_bytes_and_approximate_tokens() -> None:
    obj = valid_minimal()
    evaluation = evaluate(dumps(obj))
    g7 = next(g for g in evaluation.gate_assessment["gates"] if g["id"] == "G7")
    repo = obj["repositories"][0]
    git_bytes = len(base64.b64decode(repo["sourceListPreparation"]["trackedPathInventory"]["stdoutBase64"]))
    raw_bytes = len(repo["sourceListArtifact"]["rawJson"].encode())
    assert (git_bytes, raw_bytes) == (767, 3622)
    assert g7["measured"]["repositories"] == [
        {
            "repositoryId": "repo",
            "sourceListRawBytes": {"bytes": raw_bytes, "approximateTokens": math.ceil(raw_bytes / 4)},
            "gitEvidenceBytes": {"bytes": git_bytes, "approximateTokens": math.ceil(git_bytes / 4)},
        }
    ]
    receipts = [
        len(c["structuralEvidence"]["executionObservation"]["rawEvidence"]["receiptJson"].encode())
        for c in obj["cases"]
    ]
    assert [c["sciReceiptRawBytes"] for c in g7["measured"]["cases"]] == [
        {"bytes": n, "approximateTokens": math.ceil(n / 4)} for n in receipts
    ]
    assert g7["measured"]["latency"] is None


def test_zz_snapshot_covers_every_input() -> None:
    names = [n for n, _ in inputs()]
    if WRITE:
        SNAPSHOT.write_text(json.dumps(_WRITTEN, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return
    if CONFORMANCE.is_dir():
        assert sorted(_STORED) == sorted(names)
