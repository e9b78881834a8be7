"""The same experiment prepared twice gives the same bytes; and those bytes, golden, keep the texts' member order.

Determinism (PREPARE.md §10, §11 criterion 7): the chain's experiment is captured a
second time into a fresh D; ``work_root`` is frozen into the request paths, so the
same one is used, and the first preparation's is moved aside first (a test step:
prepare never deletes it). Both ``staleness-sheet.md`` and ``prepared.json`` come
out byte-identical.

Golden bytes (§11 criterion 23): ``prepared.json`` is ``json.dumps(value, indent=2,
ensure_ascii=False)`` and a line feed, members in SPEC's ``Closed`` order, and the
two parsed values keep their texts' order: ``expectedRequest`` REQ-1's (as the request
file was written) and ``receipt`` the exporter's stdout, which the ``reordered``
stand-in prints with every object's members reversed. The committed
``data/golden-prepared.json.txt`` is the file with its machine paths replaced by
placeholders and every SHA-256 blanked (``ABLATION_REGENERATE=1`` rewrites it).

Spec: PREPARE.md §6 "Output", §10 "Determinism"; §11 criteria 7, 23.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ablation.strictjson import parse_text
from tests.prepare.capfixtures import Made, capture
from tests.prepare.chainfixtures import Chain, environment_paths, normalised
from tests.prepare.prepfixtures import run_prepare

GOLDEN = Path(__file__).with_name("data") / "golden-prepared.json.txt"
RCPT_1_FIRST = "schema"  # RCPT-1's list starts with schema; the reordered stand-in prints it last


def test_a_second_preparation_into_a_fresh_d_gives_the_same_bytes(
    chain: Chain, captured_base: Made, tmp_path: Path
) -> None:
    made = captured_base
    made.work_root.rename(tmp_path / "work-of-the-first-preparation")  # a test step: prepare never deletes it
    second = Made(made.root, made.experiment, made.review, made.work_root, tmp_path / "D2", made.doc)
    ran = capture(second)
    assert ran.code == 0, ran.err
    assert (second.dir / "staleness-sheet.md").read_bytes() == (chain.d / "staleness-sheet.md").read_bytes()
    assembled = run_prepare("assemble", "--dir", second.dir, "--staleness-review", chain.root / "staleness-review.toml")
    assert assembled.code == 0, assembled.err
    assert (second.dir / "prepared.json").read_bytes() == (chain.d / "prepared.json").read_bytes()
    assert (second.dir / "attempts.jsonl").read_bytes() != (chain.d / "attempts.jsonl").read_bytes()  # timings differ


def test_prepared_json_is_json_dumps_of_its_value(chain: Chain) -> None:
    data = (chain.d / "prepared.json").read_bytes()
    value = parse_text(data.decode("utf-8")).value
    assert data == (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    assert not data.startswith(b"\xef\xbb\xbf") and data.endswith(b"}\n")


def test_the_receipt_and_the_request_keep_the_member_order_of_their_texts(chain: Chain) -> None:
    value = parse_text((chain.d / "prepared.json").read_text(encoding="utf-8")).value
    assert isinstance(value, dict)
    bundle = value["cases"][0]["structuralEvidence"]
    stdout = (chain.d / "raw/cases/0000/attempt-1/stdout").read_text(encoding="utf-8")
    printed = parse_text(stdout).value
    assert isinstance(printed, dict)
    assert list(bundle["receipt"]) == list(printed)
    assert list(bundle["receipt"])[-1] == RCPT_1_FIRST
    assert list(bundle["expectedRequest"]) == ["question", "seeds", "operations", "limits"]
    assert bundle["executionObservation"]["rawEvidence"]["receiptJson"] == stdout
    assert list(value["cases"][0]) == [
        "id",
        "repositoryId",
        "repositoryCommit",
        "sourceListArtifactSha256",
        "question",
        "questionId",
        "intentSignature",
        "targetBasisDigest",
        "maxItems",
        "truth",
        "structuralEvidence",
    ]


def test_the_golden_bytes(chain: Chain) -> None:
    text = normalised((chain.d / "prepared.json").read_bytes(), environment_paths(chain.made))
    if os.environ.get("ABLATION_REGENERATE"):
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")
