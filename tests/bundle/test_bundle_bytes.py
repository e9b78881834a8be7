"""The bundle's bytes, pinned: a fixed input, results file, identity and key give one SHA-256.

The digests were computed on the code before ``archive.py`` was split into
``ablation/bundle/`` (issue 13); any change to the bundle format, the tar
headers, the gzip framing, ``SHA256SUMS``, the evidence index or the signature
changes them, so a refactor that keeps them changes no bundle byte. Nothing
depends on the environment: the evaluator identity is replaced by a fixed
one, ``SOURCE_DATE_EPOCH`` is set or removed explicitly, and the signing key
is a fixed Ed25519 seed (Ed25519 signatures are deterministic).

The digests also depend on zlib's level-9 deflate output, which the lock pins
through the interpreter build; a different zlib would change them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ablation import identity
from ablation.canonical import canonical_digest
from ablation.cli import main
from tests.builders.paths import EXAMPLE

_MEASURED = {"python": "3.11.fixed", "package": "ablation-pinned", "note": "a fixed identity for the pin"}
FIXED_IDENTITY = {
    "measured": _MEASURED,
    "asserted": {"imageDigest": None},
    "identityDigest": canonical_digest(_MEASURED),
}

# SHA-256 of the bundle files, computed before the split (commit that added this test).
PINNED_PLAIN = "fc8ced15293354853ec13679e55dcec6904ae8dfcdee42d3ec83f8d0083d9b60"
PINNED_SIGNED = "135fcbe795e0957ace396883d8941b465c5d3d9f44688298478b6c1368795329"


@pytest.fixture
def fixed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A folder with the example input, its results file (fixed identity) and extra evidence."""
    monkeypatch.setattr(identity, "evaluator_identity", lambda: dict(FIXED_IDENTITY))
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    (tmp_path / "prepared-input.json").write_bytes(EXAMPLE.read_bytes())
    code = main(["run", "--input", str(tmp_path / "prepared-input.json"), "--output", str(tmp_path / "results.json")])
    assert code == 0
    (tmp_path / "notes.txt").write_bytes(b"operator notes\n")
    logs = tmp_path / "logs"
    (logs / "b").mkdir(parents=True)
    (logs / "a.log").write_bytes(b"first\n")
    (logs / "b" / "c.log").write_bytes(b"\x00binary\xff")
    seed = bytes(range(32))
    key = Ed25519PrivateKey.from_private_bytes(seed).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    (tmp_path / "k.pem").write_bytes(key)
    return tmp_path


def _archive(folder: Path, bundle: Path, *extra: str) -> str:
    args = [
        "archive",
        "--input",
        str(folder / "prepared-input.json"),
        "--results",
        str(folder / "results.json"),
        "--bundle",
        str(bundle),
        *extra,
    ]
    assert main(args) == 0
    return hashlib.sha256(bundle.read_bytes()).hexdigest()


def test_results_file_is_fixed(fixed: Path) -> None:
    """The results file itself is environment-free (guards the pins below)."""
    digest = hashlib.sha256((fixed / "results.json").read_bytes()).hexdigest()
    assert digest == "3b67f23c78bb44d0e86ff827498db8d875c500b1c06c0de7afa6456553b3bbee"


def test_plain_bundle_bytes_are_pinned(fixed: Path) -> None:
    assert _archive(fixed, fixed / "plain.tar.gz") == PINNED_PLAIN


def test_signed_bundle_with_evidence_and_epoch_is_pinned(fixed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    digest = _archive(
        fixed,
        fixed / "signed.tar.gz",
        "--sign-key",
        str(fixed / "k.pem"),
        "--evidence",
        str(fixed / "notes.txt"),
        "--evidence",
        str(fixed / "logs"),
    )
    assert digest == PINNED_SIGNED
