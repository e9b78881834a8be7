"""What the operator reads (issue 12 item 3): hash-mismatch hints for a .json.gz, which hashes
``verify`` pinned and checked, and identical structural failures grouped in ``verify``'s text."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from ablation.cli import main
from tests.builders import prepared

MINIMAL = prepared.valid_minimal()
for _case in MINIMAL["cases"][:3]:
    _case["structuralEvidence"] = None
DATA = prepared.dumps(MINIMAL)
SHA = hashlib.sha256(DATA).hexdigest()
COMPRESSED = gzip.compress(DATA, mtime=0)
GZ_SHA = hashlib.sha256(COMPRESSED).hexdigest()
ABSENT = (
    'structural_evidence_validation_failed:SB-1 at "": expected an object Closed{expectedRequest, '
    "expectedRequestDigest, expectedProvenance, receipt, executionObservation}; found null"
)


@pytest.fixture
def gz(tmp_path: Path) -> Path:
    path = tmp_path / "prepared.json.gz"
    path.write_bytes(COMPRESSED)
    return path


def test_gzip_hash_given_as_input_sha256_is_named(gz: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--input", str(gz), "--input-sha256", GZ_SHA]) == 3
    assert capsys.readouterr().err == (
        f"ablation: input SHA-256 mismatch: expected {GZ_SHA}, computed {SHA} over the decompressed JSON bytes of "
        f"{str(gz)!r}; the expected hash is the SHA-256 of the compressed .json.gz file itself: give it as "
        "--input-gzip-sha256 (make: INPUT_GZIP_SHA256), and the SHA-256 of the decompressed JSON as "
        "--input-sha256 (make: INPUT_SHA256)\n"
    )


def test_swapped_hashes_are_named(gz: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--input", str(gz), "--input-sha256", GZ_SHA, "--input-gzip-sha256", SHA]) == 3
    assert capsys.readouterr().err == (
        f"ablation: input gzip SHA-256 mismatch: expected {SHA}, computed {GZ_SHA} over {str(gz)!r}; the expected "
        "hash is the SHA-256 of the decompressed JSON: give it as --input-sha256 (make: INPUT_SHA256), and the "
        "SHA-256 of the .json.gz file itself as --input-gzip-sha256 (make: INPUT_GZIP_SHA256)\n"
    )


def test_other_mismatches_get_no_hint(gz: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--input", str(gz), "--input-sha256", "0" * 64]) == 3
    assert capsys.readouterr().err == (
        f"ablation: input SHA-256 mismatch: expected {'0' * 64}, computed {SHA} over the decompressed JSON bytes "
        f"of {str(gz)!r}\n"
    )
    assert main(["verify", "--input", str(gz), "--input-gzip-sha256", "0" * 64]) == 3
    assert capsys.readouterr().err == (
        f"ablation: input gzip SHA-256 mismatch: expected {'0' * 64}, computed {GZ_SHA} over {str(gz)!r}\n"
    )
    plain = tmp_path / "prepared.json"
    plain.write_bytes(DATA)
    assert main(["verify", "--input", str(plain), "--input-sha256", GZ_SHA]) == 3
    assert capsys.readouterr().err == (
        f"ablation: input SHA-256 mismatch: expected {GZ_SHA}, computed {SHA} over the input bytes\n"
    )


def _text_lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith("evaluator identity sha256:")
    return lines[:-1]


def test_verify_text_states_both_hashes_and_groups_failures(gz: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--input", str(gz), "--input-sha256", SHA, "--input-gzip-sha256", GZ_SHA]) == 0
    assert _text_lines(capsys) == [
        f"input sha256      {SHA} (pinned: --input-sha256 given and matched)",
        f"input gzip sha256 {GZ_SHA} (checked: --input-gzip-sha256 given and matched)",
        "input: admissible",
        "repositories:",
        "  'repo' at " + "a" * 40 + ": 12 items, 12 tracked paths, 12 metadata present, coverage 1 eligible; "
        "staleness sample 1 sampled, 0 stale; 10 cases",
        "cases: 10; structural evidence valid for 7 (each case: verify --json)",
        f"  3 cases: structural unavailable: {ABSENT}",
        "  7 cases: structural available",
    ]


def test_verify_text_says_what_was_only_computed(gz: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--input", str(gz)]) == 0
    assert _text_lines(capsys)[:2] == [
        f"input sha256      {SHA} (NOT pinned: computed only, no --input-sha256 given)",
        f"input gzip sha256 {GZ_SHA} (NOT checked: computed only, no --input-gzip-sha256 given)",
    ]


def test_verify_json_states_the_hashes_and_keeps_every_case(gz: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--input", str(gz), "--input-gzip-sha256", GZ_SHA, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert list(summary)[:4] == ["inputSha256", "inputSha256Pinned", "inputGzipSha256", "inputGzipSha256Checked"]
    assert (summary["inputSha256"], summary["inputSha256Pinned"]) == (SHA, False)
    assert (summary["inputGzipSha256"], summary["inputGzipSha256Checked"]) == (GZ_SHA, True)
    assert [c["structuralFailure"] for c in summary["cases"]] == [ABSENT] * 3 + [None] * 7
    assert [c["id"] for c in summary["cases"]] == [f"repo-{k}" for k in range(1, 11)]


def test_verify_json_plain_input_has_no_gzip_hash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain = tmp_path / "prepared.json"
    plain.write_bytes(DATA)
    assert main(["verify", "--input", str(plain), "--input-sha256", SHA, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["inputSha256Pinned"], summary["inputGzipSha256"], summary["inputGzipSha256Checked"]) == (
        True,
        None,
        False,
    )
