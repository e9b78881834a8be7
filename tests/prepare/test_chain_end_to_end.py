"""The whole chain on the stand-in fixture: capture → assemble → freeze → check-freeze → verify → run once → archive.

One preparation (the ``chain`` fixture, tests/prepare/chainfixtures.py) is made once
and every assertion reads what it left: the printed lines, D after freeze, both
manifests (``sha256sum -c``), the signature (``openssl pkeyutl -verify -rawin``, run
here: ``freeze`` runs no process), the sealed ``ablation verify`` and ``run`` with the
printed hash, the one-shot marker, ``check-freeze --results``, the evidence bundle
with D under ``extra/`` and ``verify-archive``.

Spec: PREPARE.md §10 "End to end"; §11 criteria 4, 12, 14, 16, 17.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from tests.prepare.chainfixtures import SEALED, Chain, sealed
from tests.prepare.prepfixtures import errors_of

FROZEN_D = [
    "SHA256SUMS.pre-review",
    "SHA256SUMS.pre-run",
    "SHA256SUMS.pre-run.sig",
    "attempt.json",
    "attempts.jsonl",
    "cases-review.toml",
    "experiment.toml",
    "freeze-record.json",
    "pre-run-review.toml",
    "pre-run-sheet.md",
    "preparation-record.json",
    "prepared.json",
    "prepared.json.sha256",
    "raw",
    "staleness-review.toml",
    "staleness-sheet.md",
]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_step_exits_0(chain: Chain) -> None:
    assert {name: (ran.code, errors_of(ran)) for name, ran in chain.ran.items()} == {
        name: (0, []) for name in ("assemble", "freeze", "check-freeze", "check-freeze --results")
    }
    assert {
        name: (done.returncode, done.stderr) for name, done in chain.done.items() if name != "run"
    } == dict.fromkeys(("keygen", "verify", "archive", "verify-archive"), (0, ""))
    assert chain.done["run"].returncode == 0, chain.done["run"].stderr


def test_assemble_prints_every_file_it_wrote_with_its_sha256(chain: Chain) -> None:
    d = chain.d
    lines = chain.ran["assemble"].out.splitlines()
    names = [
        "prepared.json",
        "prepared.json.sha256",
        "preparation-record.json",
        "pre-run-sheet.md",
        "SHA256SUMS.pre-review",
    ]
    assert lines == [f"{_sha(d / name)}  {d / name}" for name in names] + [
        "assemble complete: 1 repository, 10 cases, structural evidence available for 3; no ranking computed"
    ]
    assert (d / "prepared.json.sha256").read_text(encoding="ascii") == f"{chain.prepared_sha256}  prepared.json\n"
    assert (d / "staleness-review.toml").read_bytes() == (chain.root / "staleness-review.toml").read_bytes()


def test_d_after_freeze_and_the_run(chain: Chain) -> None:
    assert sorted(p.name for p in chain.d.iterdir()) == FROZEN_D


def test_freeze_prints_the_input_hash_the_manifest_hash_and_the_marker(chain: Chain) -> None:
    d, root = chain.d, chain.root
    public = (
        subprocess.run(
            ["openssl", "pkey", "-pubin", "-in", str(root / "k.pub"), "-outform", "DER"],
            capture_output=True,
            check=False,
        ).stdout
        if shutil.which("openssl")
        else b""
    )
    lines = chain.ran["freeze"].out.splitlines()
    assert lines[1:] == [
        f"{chain.prepared_sha256}  prepared.json",
        f"{_sha(d / 'SHA256SUMS.pre-run')}  SHA256SUMS.pre-run",
        f"attempt marker: {d}/attempt.json (ablation run --attempt-record; make run ATTEMPT_RECORD=)",
    ]
    assert lines[0].startswith(f"signed: {d}/SHA256SUMS.pre-run.sig (public key sha256:")
    if public:
        assert (
            lines[0] == f"signed: {d}/SHA256SUMS.pre-run.sig (public key sha256:{hashlib.sha256(public).hexdigest()})"
        )


def test_the_freeze_record(chain: Chain) -> None:
    d = chain.d
    record = json.loads((d / "freeze-record.json").read_bytes())
    review = (chain.root / "pre-run-review.toml").read_bytes()
    identity = json.loads((chain.results).read_bytes())["evaluator"]["identityDigest"]
    assert record == {
        "schema": "ablation.freeze_record.v1",
        "preparedJsonSha256": chain.prepared_sha256,
        "preReviewManifestSha256": _sha(d / "SHA256SUMS.pre-review"),
        "preRunReviewSha256": hashlib.sha256(review).hexdigest(),
        "evaluatorIdentityDigest": identity,
        "attemptRecord": "attempt.json",
    }
    assert (d / "pre-run-review.toml").read_bytes() == review


def test_both_manifests_pass_sha256sum_and_the_pre_run_one_extends_the_pre_review_one(chain: Chain) -> None:
    d = chain.d
    for name in ("SHA256SUMS.pre-review", "SHA256SUMS.pre-run"):
        done = subprocess.run(["sha256sum", "--strict", "-c", name], cwd=d, capture_output=True, text=True, check=False)
        assert (done.returncode, done.stderr) == (0, ""), name
    pre_review = (d / "SHA256SUMS.pre-review").read_text(encoding="utf-8").splitlines()
    pre_run = (d / "SHA256SUMS.pre-run").read_text(encoding="utf-8").splitlines()
    added = [line.split("  ", 1)[1] for line in pre_run if line not in pre_review]
    assert added == ["SHA256SUMS.pre-review", "freeze-record.json", "pre-run-review.toml"]
    paths = [line.split("  ", 1)[1] for line in pre_run]
    assert paths == sorted(paths, key=lambda p: p.encode("utf-8"))
    listed = set(paths)
    on_disk = {str(p.relative_to(d)) for p in d.rglob("*") if p.is_file()}
    assert on_disk - listed == {"SHA256SUMS.pre-run", "SHA256SUMS.pre-run.sig", "attempt.json"}


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
def test_the_signature_verifies_with_openssl_pkeyutl_rawin(chain: Chain) -> None:
    d = chain.d
    argv = [
        "openssl",
        "pkeyutl",
        "-verify",
        "-pubin",
        "-inkey",
        str(chain.root / "k.pub"),
        "-rawin",
        "-in",
        str(d / "SHA256SUMS.pre-run"),
        "-sigfile",
        str(d / "SHA256SUMS.pre-run.sig"),
    ]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout) == (0, "Signature Verified Successfully\n")
    assert len((d / "SHA256SUMS.pre-run.sig").read_bytes()) == 64


def test_the_sealed_verify_and_run_accept_it_with_the_printed_hash(chain: Chain) -> None:
    verify = chain.done["verify"].stdout.splitlines()
    assert verify[:3] == [
        f"input sha256      {chain.prepared_sha256} (pinned: --input-sha256 given and matched)",
        "input gzip sha256 not applicable (the input is not a .gz file)",
        "input: admissible",
    ]
    results = json.loads(chain.results.read_bytes())
    assert (results["inputSha256"], results["inputSha256Pinned"]) == (chain.prepared_sha256, True)
    assert chain.done["run"].stdout == f"{_sha(chain.results)}  {chain.results}\n"


def test_coverage_eligibility_and_availability_are_what_prepare_recorded(chain: Chain) -> None:
    done = sealed("verify", "--input", chain.d / "prepared.json", "--input-sha256", chain.prepared_sha256, "--json")
    summary = json.loads(done.stdout)
    record = json.loads((chain.d / "preparation-record.json").read_bytes())
    assert [
        (r["id"], r["items"], r["metadataPresent"], r["sourceListEligible"], r["trackedPaths"])
        for r in summary["repositories"]
    ] == [
        (r["id"], r["itemCount"], r["metadataPresentCount"], r["sourceListEligible"], r["trackedPathCount"])
        for r in record["repositories"]
    ]
    assert [(c["id"], c["structuralAvailable"], c["structuralFailure"]) for c in summary["cases"]] == [
        (c["id"], c["structuralAvailable"], c["structuralFailure"]) for c in record["cases"]
    ]
    assert [c["structuralAvailable"] for c in summary["cases"]] == [True] * 3 + [False] * 7


def test_the_marker_names_the_frozen_input_and_manifest(chain: Chain) -> None:
    marker = json.loads((chain.d / "attempt.json").read_bytes())
    results = json.loads(chain.results.read_bytes())
    assert marker == {
        "schema": "ablation.attempt_record.v1",
        "inputSha256": chain.prepared_sha256,
        "preRunManifestSha256": _sha(chain.d / "SHA256SUMS.pre-run"),
        "output": str(chain.results),
        "identityDigest": results["evaluator"]["identityDigest"],
    }


def test_check_freeze_reports_the_marker_before_and_after_the_run(chain: Chain) -> None:
    d = chain.d
    before = chain.ran["check-freeze"].out.splitlines()
    after = chain.ran["check-freeze --results"].out.splitlines()
    identity = json.loads(chain.results.read_bytes())["evaluator"]["identityDigest"]
    common = [
        f"{chain.prepared_sha256}  prepared.json",
        f"{_sha(d / 'SHA256SUMS.pre-run')}  SHA256SUMS.pre-run",
        f"evaluator identity (frozen): {identity}",
    ]
    assert before[1:] == [
        *common,
        f"attempt marker: {d}/attempt.json absent: no run with --attempt-record {d}/attempt.json yet (a run without "
        "the marker leaves none; nothing outside the evaluator can prevent one)",
        "check-freeze: every file, binding and review holds; prepared.json is what D's raw files build",
    ]
    assert before[0].startswith("signature: valid, by sha256:")
    assert after[1:] == [
        *common,
        f"attempt marker: {d}/attempt.json exists: the one run was attempted, with the frozen input (output "
        f"'{chain.results}', evaluator {identity})",
        f"results: {chain.results}: the frozen evaluator {identity} ran the frozen input {chain.prepared_sha256} "
        "(pinned)",
        "check-freeze: every file, binding and review holds; prepared.json is what D's raw files build",
    ]


def test_the_bundle_carries_d_under_extra_and_verifies(chain: Chain) -> None:
    with tarfile.open(chain.root / "out" / "bundle.tar.gz") as bundle:
        names = [member.name for member in bundle.getmembers() if member.isfile()]
    carried = sorted(n.split("/extra/D/", 1)[1] for n in names if "/extra/D/" in n)
    on_disk = sorted(str(p.relative_to(chain.d)) for p in chain.d.rglob("*") if p.is_file())
    assert carried == on_disk
    assert "attempt.json" in carried and "raw/cases/0000/attempt-1/stdout" in carried
    assert chain.done["verify-archive"].returncode == 0


def _unreadable_prefix() -> list[str]:
    if os.geteuid() != 0:
        return []
    drop = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"]
    if shutil.which("setpriv") is None or subprocess.run([*drop, "true"], check=False).returncode != 0:
        pytest.skip("running as root without a working setpriv: a file cannot be made unreadable")
    return drop


def test_a_second_run_with_the_frozen_marker_exits_5_before_reading_the_input(chain: Chain, tmp_path: Path) -> None:
    """Criterion 16: the input is unreadable the second time; the marker stops the run first."""
    if not (SEALED / "ablation").is_file():
        pytest.skip(f"{SEALED / 'ablation'} is not built (make venv)")
    marker = chain.d / "attempt.json"
    before = marker.read_bytes()
    unreadable = tmp_path / "prepared.json"
    shutil.copyfile(chain.d / "prepared.json", unreadable)
    unreadable.chmod(0)
    argv = [
        *_unreadable_prefix(),
        str(SEALED / "ablation"),
        "run",
        "--input",
        str(unreadable),
        "--input-sha256",
        chain.prepared_sha256,
        "--output",
        str(tmp_path / "again.json"),
    ]
    again = subprocess.run(
        [*argv, "--attempt-record", str(marker)], capture_output=True, text=True, env={}, check=False
    )
    control = subprocess.run(argv, capture_output=True, text=True, env={}, check=False)
    assert (again.returncode, again.stderr) == (
        5,
        (
            f"ablation: attempt record {str(marker)!r} already exists: this experiment's one run was already attempted "
            "(the input was not read); it is never overwritten\n"
        ),
    )
    assert control.returncode == 2 and control.stderr.endswith("Permission denied\n")
    assert marker.read_bytes() == before and not (tmp_path / "again.json").exists()
