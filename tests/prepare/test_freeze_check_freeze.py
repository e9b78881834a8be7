"""``check-freeze`` re-does every check from the files alone: each refusal, its rule and its whole message.

Each test copies the chain's frozen and run D (tests/prepare/chainfixtures.py) and
changes one thing: a file the manifest lists (FRZ-2), one it does not (FRZ-3), the
signature or the key (FRZ-8), a binding, with both manifests recomputed so that
only the binding is wrong (FRZ-9: the freeze record; ``prepared.json`` that D's raw
files do not build), a raw file with the manifests recomputed but not the ledger
(ASM-2), the attempt marker (FRZ-10), the results file (FRZ-11). Every refusal is
exit 3; check-freeze writes nothing.

Spec: PREPARE.md §7 "check-freeze"; §11 criteria 8 (iii), 12, 16, 17.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ablation.canonical import canonical_digest
from tests.prepare.capfixtures import listing
from tests.prepare.chainfixtures import Chain, copy_d
from tests.prepare.prepfixtures import Ran, errors_of, run_prepare

FREEZE_FILES = ("SHA256SUMS.pre-review", "pre-run-review.toml", "freeze-record.json", "SHA256SUMS.pre-run")


@pytest.fixture
def d(chain: Chain, tmp_path: Path) -> Path:
    return copy_d(chain.d, tmp_path / "D")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _check(d: Path, *extra: str | Path) -> Ran:
    before = listing(d)
    ran = run_prepare("check-freeze", "--dir", d, *extra)
    assert listing(d) == before
    return ran


def _refused(d: Path, line: str, *extra: str | Path, code: int = 3) -> None:
    ran = _check(d, *extra)
    assert (ran.code, errors_of(ran)) == (code, [line])


def _manifest(d: Path, skip: tuple[str, ...]) -> bytes:
    files = sorted((p for p in d.rglob("*") if p.is_file()), key=lambda p: str(p.relative_to(d)).encode())
    lines = [f"{_sha(p)}  {p.relative_to(d)}\n" for p in files if str(p.relative_to(d)) not in skip]
    return "".join(lines).encode()


def reseal(d: Path) -> None:
    """Recompute every binding of the freeze over D as it is now (a forger's work); the signature is dropped."""
    (d / "SHA256SUMS.pre-run.sig").unlink(missing_ok=True)
    (d / "prepared.json.sha256").write_text(f"{_sha(d / 'prepared.json')}  prepared.json\n", encoding="ascii")
    (d / "SHA256SUMS.pre-review").write_bytes(_manifest(d, (*FREEZE_FILES, "attempt.json")))
    review = d / "pre-run-review.toml"
    text = re.sub(
        r'pre_review_manifest_sha256 = "[0-9a-f]{64}"',
        f'pre_review_manifest_sha256 = "{_sha(d / "SHA256SUMS.pre-review")}"',
        review.read_text("utf-8"),
    )
    review.write_text(text, encoding="utf-8")
    record = json.loads((d / "freeze-record.json").read_bytes())
    record |= {
        "preparedJsonSha256": _sha(d / "prepared.json"),
        "preReviewManifestSha256": _sha(d / "SHA256SUMS.pre-review"),
        "preRunReviewSha256": _sha(review),
    }
    _write_json(d / "freeze-record.json", record)
    (d / "SHA256SUMS.pre-run").write_bytes(_manifest(d, ("SHA256SUMS.pre-run", "attempt.json")))


def _write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def test_a_resealed_copy_still_passes(d: Path) -> None:
    reseal(d)
    ran = _check(d)
    assert (ran.code, errors_of(ran)) == (0, [])
    assert ran.out.splitlines()[0] == "signature: none"


def test_FRZ_1_an_unfrozen_d(d: Path) -> None:
    (d / "SHA256SUMS.pre-run").unlink()
    _refused(
        d,
        f"FRZ-1 at {d}/SHA256SUMS.pre-run: expected a frozen preparation directory: the manifest "
        "SHA256SUMS.pre-run; found no such file",
    )


def test_FRZ_2_a_changed_frozen_file_is_named(d: Path) -> None:
    stdout = d / "raw/cases/0000/attempt-1/stdout"
    listed = _sha(stdout)
    stdout.write_bytes(stdout.read_bytes().replace(b"stand-in", b"stand-im", 1))
    _refused(
        d,
        f"FRZ-2 at {stdout}: expected the SHA-256 SHA256SUMS.pre-run lists, {listed}; found {_sha(stdout)}: "
        "the file changed",
    )


def test_FRZ_3_a_file_the_manifest_does_not_list(d: Path) -> None:
    (d / "raw/notes.txt").write_text("x\n", encoding="utf-8")
    _refused(
        d, f"FRZ-3 at {d}/raw/notes.txt: expected only files SHA256SUMS.pre-run lists; found a file it does not list"
    )


def _pem(key: Ed25519PublicKey, path: Path) -> Path:
    path.write_bytes(key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return path


def test_FRZ_8_a_changed_signature_another_key_no_signature(d: Path, chain: Chain) -> None:
    signature = d / "SHA256SUMS.pre-run.sig"
    data = signature.read_bytes()
    signature.write_bytes(data[:10] + bytes([data[10] ^ 1]) + data[11:])
    pub = chain.root / "k.pub"
    fingerprint = run_prepare("check-freeze", "--dir", chain.d, "--public-key", pub).out.split("by ", 1)[1].split()[0]
    _refused(
        d,
        f"FRZ-8 at {signature}: expected a valid Ed25519 signature of SHA256SUMS.pre-run by {fingerprint}; "
        "found it does not verify",
        "--public-key",
        pub,
    )
    signature.write_bytes(data)
    other = _pem(Ed25519PrivateKey.generate().public_key(), d.parent / "other.pub")
    ran = _check(d, "--public-key", other)
    assert ran.code == 3 and errors_of(ran)[0].endswith("; found it does not verify")
    signature.unlink()
    _refused(
        d,
        f"FRZ-8 at {signature}: expected a signature of SHA256SUMS.pre-run by {fingerprint}; found no signature file",
        "--public-key",
        pub,
    )
    signature.mkdir()  # a folder where the signature belongs: refused, not a traceback
    ran = _check(d, "--public-key", pub)
    assert ran.code == 3, ran.err
    assert ran.err.startswith(
        f"FRZ-8 at {signature}: expected a signature of SHA256SUMS.pre-run by {fingerprint}; found "
    )
    assert "not a regular file" in ran.err


def test_a_weak_public_key_is_exit_2(d: Path) -> None:
    weak = _pem(Ed25519PublicKey.from_public_bytes(bytes([1]) + bytes(31)), d.parent / "weak.pub")
    ran = _check(d, "--public-key", weak)
    assert (ran.code, ran.err) == (
        2,
        f"ablation-prepare: public key '{weak}' is a weak Ed25519 key: a small-order "
        "point (y = 1), which verifies forged signatures\n",
    )


def test_FRZ_9_a_freeze_record_that_names_another_evaluator(d: Path) -> None:
    record = json.loads((d / "freeze-record.json").read_bytes())
    identity = record["evaluatorIdentityDigest"]
    record["evaluatorIdentityDigest"] = "sha256:" + "0" * 64
    _write_json(d / "freeze-record.json", record)
    reseal(d)
    _refused(
        d, f"FRZ-9 at {d}/freeze-record.json: expected evaluatorIdentityDigest {identity}; found 'sha256:{'0' * 64}'"
    )


def test_FRZ_9_a_prepared_json_that_d_s_raw_files_do_not_build(d: Path) -> None:
    prepared = d / "prepared.json"
    prepared.write_bytes(prepared.read_bytes().replace(b'"maxItems": 4', b'"maxItems": 3', 1))
    reseal(d)
    _refused(
        d, f"FRZ-9 at {prepared}: expected the input D's raw files and reviews build, byte for byte; found other bytes"
    )


def test_ASM_2_a_raw_file_changed_behind_the_manifests(d: Path) -> None:
    state = d / "raw/cases/0002/attempt-1/state.json"
    recorded = _sha(state)
    state.write_bytes(state.read_bytes().replace(b"true", b"True", 1))
    reseal(d)
    _refused(
        d,
        f"ASM-2 at {state}: expected the SHA-256 the ledger records, {recorded}; found {_sha(state)}: the file changed",
    )


def _marker(d: Path) -> dict[str, Any]:
    value = json.loads((d / "attempt.json").read_bytes())
    assert isinstance(value, dict)
    return value


def test_FRZ_10_a_marker_of_another_input_or_manifest(d: Path) -> None:
    marker = _marker(d)
    frozen, manifest = marker["inputSha256"], _sha(d / "SHA256SUMS.pre-run")
    expected = (
        f"FRZ-10 at {d}/attempt.json: expected an attempt record (ablation.attempt_record.v1) naming the frozen "
        f"input {frozen} and, when it names one, the frozen manifest {manifest}; found "
    )
    _write_json(d / "attempt.json", marker | {"inputSha256": "1" * 64})
    _refused(d, expected + f"inputSha256 '{'1' * 64}'")
    _write_json(d / "attempt.json", marker | {"preRunManifestSha256": "2" * 64})
    _refused(d, expected + f"preRunManifestSha256 '{'2' * 64}'")
    (d / "attempt.json").write_text("not json\n", encoding="utf-8")
    _refused(d, expected + "another file")
    _write_json(d / "attempt.json", marker | {"preRunManifestSha256": None})
    assert _check(d).code == 0


def test_FRZ_11_a_forged_or_malformed_results_file(d: Path, chain: Chain) -> None:
    """OUT is read as verify-archive reads a results file: an identityDigest that is not D(measured), a member
    given twice, a result that is not an object: each is FRZ-11, before the frozen values are compared."""
    results = json.loads(chain.results.read_bytes())
    other = d.parent / "forged.json"
    expected = (
        f"FRZ-11 at {other}: expected a results file ablation run wrote, its identityDigest the digest of its "
        f"measured; found {other}: "
    )
    _write_json(other, results | {"evaluator": results["evaluator"] | {"identityDigest": "sha256:" + "3" * 64}})
    ran = _check(d, "--results", other)
    assert ran.code == 3
    assert ran.err.startswith(expected), ran.err
    _write_json(other, results | {"result": "tampered"})
    ran = _check(d, "--results", other)
    assert (ran.code, ran.err.startswith(expected)) == (3, True), ran.err
    text = chain.results.read_text(encoding="utf-8")
    other.write_text('{"inputSha256": "' + "1" * 64 + '", ' + text.lstrip()[1:], encoding="utf-8")
    ran = _check(d, "--results", other)
    assert (ran.code, ran.err.startswith(expected)) == (3, True), ran.err
    assert "twice" in ran.err


def test_FRZ_11_results_of_another_evaluator_or_input(d: Path, chain: Chain) -> None:
    results = json.loads(chain.results.read_bytes())
    identity, sha = results["evaluator"]["identityDigest"], results["inputSha256"]
    other = d.parent / "other.json"
    measured = results["evaluator"]["measured"] | {"python": "another interpreter"}
    _write_json(other, results | {"evaluator": {"measured": measured, "identityDigest": canonical_digest(measured)}})
    _refused(
        d,
        f"FRZ-11 at {other} -> /evaluator/identityDigest: expected the frozen evaluator_identity_digest "
        f"{identity}; found {canonical_digest(measured)!r}: another evaluator ran",
        "--results",
        other,
    )
    _write_json(other, results | {"inputSha256Pinned": False})
    _refused(
        d,
        f"FRZ-11 at {other} -> /inputSha256: expected the frozen SHA-256 of prepared.json {sha}, with "
        f"inputSha256Pinned true; found '{sha}' with inputSha256Pinned False",
        "--results",
        other,
    )
    ran = _check(d, "--results", d.parent / "none.json")
    assert (ran.code, ran.err) == (
        2,
        f"ablation-prepare: cannot read results file '{d.parent}/none.json': No such file or directory\n",
    )
