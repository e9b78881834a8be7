"""Issue 22 Why 3 and 4: ``verify-archive`` says whether the run was pinned, and pins the signing key.

``input pinned: yes`` or ``input pinned: NO — not bound to a preregistered
hash`` (a warning on stderr too). ``--expect-key sha256:<hex>`` is the SHA-256
of the public key's DER SubjectPublicKeyInfo (what ``openssl pkey -pubin
-outform DER | sha256sum`` prints): another key, or an unsigned bundle, is exit
3; ``keygen`` prints the fingerprint and ``archive --sign-key`` says it signed
and with which key.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest

from ablation.bundle.keys import fingerprint, load_public_key
from tests.bundle.review_made import captured, make_day, run, tool

SPKI_PREFIX = bytes.fromhex("302a300506032b6570032100")  # DER SubjectPublicKeyInfo of Ed25519, before the 32 bytes


@pytest.fixture(scope="module")
def pinned(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The example's day, its run pinned to the example's SHA-256."""
    return make_day(tmp_path_factory.mktemp("pinned"), pinned=True)


@pytest.fixture(scope="module")
def unpinned(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The example's day, its run not pinned."""
    return make_day(tmp_path_factory.mktemp("unpinned"), pinned=False)


def _der_sha256(pem: Path) -> str:
    """The fingerprint computed from the PEM file by hand: base64 body, DER, SHA-256."""
    body = "".join(line for line in pem.read_text(encoding="ascii").splitlines() if not line.startswith("-----"))
    der = base64.b64decode(body)
    assert der.startswith(SPKI_PREFIX) and len(der) == 44
    return "sha256:" + hashlib.sha256(der).hexdigest()


def test_a_pinned_run_says_yes(pinned: dict[str, Path]) -> None:
    """A pinned run: `input pinned: yes`, nothing on stderr."""
    code, out, err = captured("verify-archive", pinned["unsigned.tar.gz"])
    assert (code, err) == (0, "")
    assert "\ninput pinned: yes (the run was given --input-sha256 and the input matched it)\n" in out


def test_an_unpinned_run_says_no_on_stdout_and_stderr(unpinned: dict[str, Path]) -> None:
    """An unpinned run: NO on stdout, and a warning on stderr."""
    code, out, err = captured("verify-archive", unpinned["unsigned.tar.gz"])
    assert code == 0
    assert (
        "\ninput pinned: NO — not bound to a preregistered hash (the run computed the input SHA-256 only; "
        "compare it with the preregistration)\n"
    ) in out
    (line,) = [x for x in out.splitlines() if x.startswith("  input sha256 ")]
    assert err == (
        "ablation: warning: input pinned: NO — not bound to a preregistered hash: the run in this bundle computed "
        f"input sha256 {line.split()[2]} itself; compare it with the preregistration record\n"
    )


def test_keygen_prints_the_fingerprint_a_reviewer_recomputes(tmp_path: Path) -> None:
    """keygen's fingerprint is what openssl and a hand computation give."""
    code, out, err = captured("keygen", "--private-key", tmp_path / "k.pem", "--public-key", tmp_path / "k.pub")
    assert (code, err) == (0, "")
    expected = _der_sha256(tmp_path / "k.pub")
    assert out.splitlines()[1] == (
        f"public key fingerprint {expected} (SHA-256 of its DER SubjectPublicKeyInfo; publish it where reviewers "
        "can trust it: they pass it to --expect-key)"
    )
    assert fingerprint(load_public_key(str(tmp_path / "k.pub"))) == expected
    openssl = run(tool("openssl"), "pkey", "-pubin", "-in", tmp_path / "k.pub", "-outform", "DER")
    assert openssl.returncode == 0, openssl.stderr
    assert "sha256:" + hashlib.sha256(openssl.stdout).hexdigest() == expected


def test_archive_says_it_signed_and_with_which_key(pinned: dict[str, Path], tmp_path: Path) -> None:
    """archive --sign-key reports the key on stderr; stdout stays one sha256sum line."""
    code, out, err = captured(
        "archive",
        "--input",
        pinned["in.json"],
        "--results",
        pinned["results.json"],
        "--bundle",
        tmp_path / "b.tar.gz",
        "--sign-key",
        pinned["k.pem"],
    )
    assert code == 0
    assert out == f"{hashlib.sha256((tmp_path / 'b.tar.gz').read_bytes()).hexdigest()}  {tmp_path / 'b.tar.gz'}\n"
    assert err == (
        f"ablation: signed SHA256SUMS with Ed25519; the public key's fingerprint is {_der_sha256(pinned['k.pub'])} "
        "(reviewers check the signature with --public-key and --expect-key)\n"
    )
    code, _, err = captured(
        "archive", "--input", pinned["in.json"], "--results", pinned["results.json"], "--bundle", tmp_path / "u.tar.gz"
    )
    assert (code, err) == (0, "")


def test_the_right_key_passes_and_says_so(pinned: dict[str, Path]) -> None:
    """The expected key: exit 0 and the signature line says it matched."""
    right = _der_sha256(pinned["k.pub"])
    code, out, err = captured(
        "verify-archive", pinned["signed.tar.gz"], "--public-key", pinned["k.pub"], "--expect-key", right
    )
    assert (code, err) == (0, "")
    assert out.endswith(
        f"\nsignature: SHA256SUMS.sig verified with public key {right}; the expected key (--expect-key matched)\n"
    )
    code, out, _ = captured("verify-archive", pinned["signed.tar.gz"], "--public-key", pinned["k.pub"])
    assert out.endswith("; no --expect-key given: compare this fingerprint with one from a trusted source\n")


def test_a_bundle_resigned_with_another_key_fails_the_expected_key(pinned: dict[str, Path], tmp_path: Path) -> None:
    """Issue 22 Why 4: the genuine content signed by another key, shipped with that key."""
    resigned = tmp_path / "resigned.tar.gz"
    assert (
        captured(
            "archive",
            "--input",
            pinned["in.json"],
            "--results",
            pinned["results.json"],
            "--bundle",
            resigned,
            "--sign-key",
            pinned["other.pem"],
        )[0]
        == 0
    )
    assert captured("verify-archive", resigned, "--public-key", pinned["other.pub"])[0] == 0  # today's "valid"
    expected, other = _der_sha256(pinned["k.pub"]), _der_sha256(pinned["other.pub"])
    for command in (("verify-archive", resigned), ("notes", "--bundle", resigned)):
        code, out, err = captured(*command, "--public-key", pinned["other.pub"], "--expect-key", expected)
        assert (code, out) == (3, "")
        assert err == (
            f"ablation: public key {str(pinned['other.pub'])!r}: fingerprint {other} is not the expected {expected} "
            "(--expect-key); it is not the key you trust, and a signature by it proves nothing\n"
        )


def test_an_unsigned_bundle_fails_the_expected_key(pinned: dict[str, Path]) -> None:
    """--expect-key on an unsigned bundle: exit 3."""
    expected = _der_sha256(pinned["k.pub"])
    code, out, err = captured(
        "verify-archive", pinned["unsigned.tar.gz"], "--public-key", pinned["k.pub"], "--expect-key", expected
    )
    assert (code, out) == (3, "")
    assert err.endswith(f"/SHA256SUMS.sig: missing: the bundle is not signed, but --expect-key {expected} was given\n")


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (
            ("--expect-key", "sha256:" + "0" * 64),
            2,
            "ablation: --expect-key names the key that must have signed: give that key with --public-key too\n",
        ),
        (("--expect-key", "0" * 64), 2, "argument --expect-key: not a key fingerprint ('sha256:' and 64 lowercase hex"),
        (("--expect-key", "SHA256:" + "A" * 64), 2, "not a key fingerprint"),
    ],
)
def test_an_expected_key_without_a_key_or_misspelt_is_a_usage_error(
    args: tuple[str, ...], code: int, said: str, pinned: dict[str, Path]
) -> None:
    """--expect-key alone or misspelt: exit 2."""
    got, out, err = captured("verify-archive", pinned["signed.tar.gz"], *args)
    assert (got, out) == (code, "")
    assert said in err
