"""Reading back results files and identity.json: the written-file JSON profile and the typed model.

The profile is ``strictjson.parse_written``; the model ``results_file.RecordedResults`` and ``RecordedIdentity``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from ablation.errors import IntegrityError, UsageError
from ablation.results_file import check_input_hashes, load_identity, load_results, parse_json_file
from ablation.strictjson import MAX_DEPTH, WrittenJsonError, parse_written


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_finite_doubles_and_integers_are_what_ablation_writes() -> None:
    assert parse_written('{"a": 0.12500000000000006, "b": 1e21, "c": -3, "d": [true, null, "x"]}') == {
        "a": 0.12500000000000006,
        "b": 1e21,
        "c": -3,
        "d": [True, None, "x"],
    }


@pytest.mark.parametrize("depth", [MAX_DEPTH - 1, MAX_DEPTH])
def test_nesting_up_to_the_limit_is_accepted(depth: int) -> None:
    value = parse_written(_nested(depth))
    for _ in range(depth - 1):
        assert isinstance(value, list)
        value = value[0]
    assert value == []


@pytest.mark.parametrize(
    ("text", "kind", "message"),
    [
        (_nested(MAX_DEPTH + 1), "shape", "containers nested deeper than 256 levels; ablation never writes that"),
        (_nested(100_000), "shape", "containers nested deeper than 256 levels; ablation never writes that"),
        ("[NaN]", "unwritten", "NaN, which is not JSON"),
        ("[-Infinity]", "unwritten", "-Infinity, which is not JSON"),
        ("[1e400]", "unwritten", "the number 1e400, too large for a double"),
        ("[" + "9" * 310 + "]", "unwritten", "an integer of 310 digits, beyond any double"),
        ('{"a": 1, "a": 2}', "unwritten", 'an object with the member "a" twice'),
        ('["\\udc00"]', "shape", "a string holds a lone surrogate escape, which UTF-8 cannot hold"),
        ("[1,]", "grammar", "Expecting value: line 1 column 4 (char 3)"),
    ],
    ids=["257-deep", "100000-deep", "nan", "infinity", "1e400", "310-digits", "duplicate", "surrogate", "grammar"],
)
def test_what_ablation_never_writes_is_refused(text: str, kind: str, message: str) -> None:
    with pytest.raises(WrittenJsonError) as caught:
        parse_written(text)
    assert caught.value.kind == kind
    assert str(caught.value) == message


def test_parse_json_file_names_the_file_and_picks_the_error() -> None:
    with pytest.raises(UsageError, match=r"^results file 'r\.json': holds NaN, which is not JSON; ablation never"):
        parse_json_file(b"[NaN]", "results file 'r.json'", UsageError)
    with pytest.raises(IntegrityError, match=r"^b/identity\.json: not JSON \(Expecting value"):
        parse_json_file(b"[1,]", "b/identity.json")
    with pytest.raises(IntegrityError, match=r"^b/identity\.json: not UTF-8 text \(byte 1\)$"):
        parse_json_file(b"[\xff]", "b/identity.json")


# ---------------------------------------------------------------- the typed model: RecordedResults, RecordedIdentity

MEASURED = {"closure": {"state": "unsealed"}, "python": {"version": "3.11"}}
DIGEST = "sha256:" + hashlib.sha256(b'{"closure":{"state":"unsealed"},"python":{"version":"3.11"}}').hexdigest()


def _results(**members: object) -> bytes:
    value: dict[str, Any] = {
        "inputSha256": "a" * 64,
        "inputSha256Pinned": True,
        "result": {"cases": []},
        "gateAssessment": {"gates": []},
        "evaluator": {
            "measured": MEASURED,
            "asserted": {"imageDigest": "sha256:" + "c" * 64, "baseImage": None},
            "identityDigest": DIGEST,
        },
    }
    value.update(members)
    return json.dumps(value).encode()


def test_load_results_gives_the_checked_members_as_named_fields() -> None:
    recorded = load_results(_results(inputGzipSha256="b" * 64), "r")
    assert recorded.input_sha256 == "a" * 64
    assert recorded.input_gzip_sha256 == "b" * 64
    assert recorded.input_sha256_pinned is True
    assert recorded.result == {"cases": []}
    assert recorded.gate_assessment == {"gates": []}
    assert recorded.evaluator.measured == MEASURED
    assert recorded.evaluator.identity_digest == DIGEST
    assert recorded.evaluator.asserted_value("imageDigest") == "sha256:" + "c" * 64
    assert recorded.evaluator.asserted_value("baseImage") is None
    assert list(recorded.raw) == [
        "inputSha256",
        "inputSha256Pinned",
        "result",
        "gateAssessment",
        "evaluator",
        "inputGzipSha256",
    ]
    assert recorded.evaluator.raw is recorded.raw["evaluator"]
    assert load_results(_results(), "r").input_gzip_sha256 is None


@pytest.mark.parametrize("asserted", ["x", None, ["imageDigest"]])
def test_an_asserted_member_that_is_not_an_object_asserts_nothing(asserted: object) -> None:
    evaluator = {"measured": MEASURED, "asserted": asserted, "identityDigest": DIGEST}
    recorded = load_results(_results(evaluator=evaluator), "r")
    assert recorded.evaluator.asserted is None
    assert recorded.evaluator.asserted_value("imageDigest") is None
    assert recorded.evaluator.raw["asserted"] == asserted


def test_load_identity_gives_the_identity_as_named_fields() -> None:
    identity = load_identity(json.dumps({"measured": MEASURED, "identityDigest": DIGEST}).encode(), "b/identity.json")
    assert (identity.measured, identity.identity_digest, identity.asserted) == (MEASURED, DIGEST, None)
    assert list(identity.raw) == ["measured", "identityDigest"]
    with pytest.raises(
        IntegrityError, match=r"^b/identity\.json: /identityDigest sha256:0 is not the canonical digest "
    ):
        load_identity(json.dumps({"measured": MEASURED, "identityDigest": "sha256:0"}).encode(), "b/identity.json")
    with pytest.raises(IntegrityError, match=r"^b/identity\.json: /measured is a string, not an object$"):
        load_identity(b'{"measured": "x", "identityDigest": "sha256:0"}', "b/identity.json")


def test_check_input_hashes_reads_the_model() -> None:
    recorded = load_results(_results(), "r")
    check_input_hashes(recorded, "r", "in.json", "a" * 64, None)
    with pytest.raises(
        IntegrityError, match=r"^r: has no inputGzipSha256, but in\.json\.gz is a \.gz file \(SHA-256 b"
    ):
        check_input_hashes(recorded, "r", "in.json.gz", "a" * 64, "b" * 64)
