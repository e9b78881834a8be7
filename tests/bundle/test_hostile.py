"""Hostile bundles and keys (issue 11): each fault kind with its minimal input, one line, never a traceback.

The bundle is built from the bundled example; tar-level faults are spliced
into its decompressed tar and recompressed with the writer's own gzip framing
(so the tar reader, not the gzip check, meets them); gzip-level faults edit
the compressed bytes.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import resource
import struct
import subprocess
import sys
import tarfile
import zlib
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ablation.bundle import keys, tarformat
from tests.builders.paths import EXAMPLE, ROOT
from tests.builders.run import run_ablation

BLOCK = 512
P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the example input, its results file and an unsigned bundle ``b.tar.gz``."""
    folder = tmp_path_factory.mktemp("hostile")
    (folder / "in.json").write_bytes(EXAMPLE.read_bytes())
    assert run_ablation("run", "--input", folder / "in.json", "--output", folder / "results.json") == 0
    assert (
        run_ablation(
            "archive",
            "--input",
            folder / "in.json",
            "--results",
            folder / "results.json",
            "--bundle",
            folder / "b.tar.gz",
        )
        == 0
    )
    return folder


def _refused(path: Path, capsys: pytest.CaptureFixture[str], *args: object, code: int = 3) -> str:
    capsys.readouterr()
    assert run_ablation("verify-archive", path, *args) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("ablation: ")
    assert "Traceback" not in err
    return err


def _tar(made: Path) -> bytes:
    return gzip.decompress((made / "b.tar.gz").read_bytes())


def _members_end(tar: bytes) -> int:
    """Offset of the first end block."""
    offset = 0
    while tar[offset : offset + BLOCK] != bytes(BLOCK):
        size = int(tar[offset + 124 : offset + 135], 8)
        offset += BLOCK + size + (-size % BLOCK)
    return offset


def _with_member(made: Path, tmp_path: Path, member: bytes) -> Path:
    """The bundle with ``member`` (headers and data) spliced in after the last member."""
    tar = _tar(made)
    end = _members_end(tar)
    path = tmp_path / "spliced.tar.gz"
    path.write_bytes(_framed(tar[:end] + member))
    return path


def _framed(members: bytes) -> bytes:
    """Members, then the end blocks archive writes after them, in the writer's gzip framing."""
    return tarformat.compress([members + bytes(tarformat.end_bytes(len(members)))])


def _top(made: Path) -> str:
    return _tar(made)[:100].split(b"\0")[0].decode().rstrip("/")


def _pax_sparse(top: str) -> bytes:
    info = tarfile.TarInfo(f"{top}/extra/GNUSparseFile.0/x")
    info.size = 4
    info.pax_headers = {
        "GNU.sparse.major": "1",
        "GNU.sparse.minor": "0",
        "GNU.sparse.name": f"{top}/extra/x",
        "GNU.sparse.realsize": str(1 << 30),
    }
    return info.tobuf(tarfile.PAX_FORMAT) + b"\x00\x00\x00\x04" + bytes(BLOCK - 4)


def _typed(top: str, kind: bytes, size: int = 0) -> bytes:
    info = tarfile.TarInfo(f"{top}/extra/z")
    info.type, info.size = kind, size
    return info.tobuf(tarfile.GNU_FORMAT) + bytes(size + (-size % BLOCK))


def _base256_size(top: str) -> bytes:
    header = bytearray(tarformat.header_bytes(f"{top}/extra/z", 1, folder=False, mtime=0))
    header[124:136] = b"\x80" + bytes(10) + b"\x01"
    header[148:156] = b"        "
    header[148:156] = b"%06o\0 " % sum(header)
    return bytes(header) + b"x" + bytes(BLOCK - 1)


HEADER_FAULTS = {
    "pax sparse member": (_pax_sparse, "a PAX extended header; only regular files and folders are allowed"),
    "pax global header": (lambda top: _typed(top, tarfile.XGLTYPE, 20), "a PAX global header"),
    "gnu sparse S": (lambda top: _typed(top, tarfile.GNUTYPE_SPARSE), "a GNU sparse file"),
    "gnu long link K": (lambda top: _typed(top, tarfile.GNUTYPE_LONGLINK, 10), "a GNU long link name"),
    "symlink": (lambda top: _typed(top, tarfile.SYMTYPE), "extra/z: a symbolic link"),
    "block device": (lambda top: _typed(top, tarfile.BLKTYPE), "extra/z: a block device"),
    "base-256 size": (_base256_size, "extra/z: the tar header's size or mtime is not the canonical octal"),
}


@pytest.mark.parametrize("name", list(HEADER_FAULTS))
def test_members_of_other_formats_are_refused_at_their_header(
    name: str, made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build, expected = HEADER_FAULTS[name]
    err = _refused(_with_member(made, tmp_path, build(_top(made))), capsys)
    assert expected in err, err


def test_a_huge_declared_pax_record_is_refused_before_its_data(
    made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = _typed(_top(made), tarfile.XHDTYPE)[:BLOCK]
    info = tarfile.TarInfo.frombuf(header, "utf-8", "strict")
    info.size = 64 << 20  # 64 MiB that are never there: refused before reading
    err = _refused(_with_member(made, tmp_path, info.tobuf(tarfile.GNU_FORMAT)), capsys)
    assert "a PAX extended header" in err
    assert len(err) < 400


def test_long_name_records_are_bounded_and_must_precede_their_header(
    made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    top = _top(made)
    long = tarformat.header_bytes(f"{top}/extra/" + "n" * 5000, 0, folder=False, mtime=0)
    err = _refused(_with_member(made, tmp_path, long), capsys)
    assert f"declares {len(top) + 5008} bytes; archive writes at most 4096" in err
    dangling = tarformat.header_bytes(f"{top}/extra/" + "n" * 200, 0, folder=False, mtime=0)[: 2 * BLOCK]
    err = _refused(_with_member(made, tmp_path, dangling), capsys)
    assert "is not followed by the header it names" in err


def test_a_header_differing_from_the_writers_is_refused(
    made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    info = tarfile.TarInfo(f"{_top(made)}/extra/z")
    info.mode, info.size = 0o600, 0
    err = _refused(_with_member(made, tmp_path, info.tobuf(tarfile.GNU_FORMAT)), capsys)
    assert "extra/z: the tar header is not byte-for-byte what archive writes" in err


def _gzip_fields(data: bytes, flags: int, extra: bytes = b"") -> bytes:
    return data[:3] + bytes([flags]) + data[4:10] + extra + data[10:]


def test_gzip_framing_other_than_the_writers_is_refused(
    made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = (made / "b.tar.gz").read_bytes()
    header_crc = struct.pack("<H", zlib.crc32(data[:3] + b"\x02" + data[4:10]) & 0xFFFF)
    cases = {  # issue 22: a well-formed header other than the writer's (a correct FHCRC, a name) is read
        "reserved flag bits": _gzip_fields(data, 0xE0),
        "wrong FHCRC": _gzip_fields(data, 0x02, b"\0\0"),
    }
    assert header_crc  # a correct FHCRC is accepted: tests/bundle/test_review_recompressed.py
    for name, bad in cases.items():
        path = tmp_path / f"{name}.tar.gz"
        path.write_bytes(bad)
        err = _refused(path, capsys)
        assert "bundle: not a readable gzip stream (RFC 1952) at byte " in err, name
    for name, tail, said in (
        ("second member", gzip.compress(bytes(1024), mtime=0), "bundle: bytes after the end of the tar archive"),
        ("zero padding", bytes(512), "bundle: bytes after gzip member 1 are not another gzip member"),
    ):
        path = tmp_path / f"{name}.tar.gz"
        path.write_bytes(data + tail)
        assert said in _refused(path, capsys), name


def test_a_wrong_gzip_crc_is_refused(made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = bytearray((made / "b.tar.gz").read_bytes())
    data[-8] ^= 1
    path = tmp_path / "crc.tar.gz"
    path.write_bytes(bytes(data))
    assert "bundle: the gzip CRC-32 or size does not match" in _refused(path, capsys)


def test_verify_archive_prints_the_content_digest(made: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert run_ablation("verify-archive", made / "b.tar.gz") == 0
    out = capsys.readouterr().out
    with tarfile.open(made / "b.tar.gz") as tar:
        member = tar.extractfile(f"{_top(made)}/SHA256SUMS")
        assert member is not None
        sums = member.read()
    assert f"  content sha256         {hashlib.sha256(sums).hexdigest()} (SHA-256 of SHA256SUMS" in out


# ------------------------------------------------------------------- Ed25519

_Y8 = int.from_bytes(bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"), "little")
_Y8 &= (1 << 255) - 1
SMALL_ORDER_Y = (1, P - 1, 0, _Y8, P - _Y8)


def _encode(y: int, sign: int) -> bytes:
    return (y | sign << 255).to_bytes(32, "little")


# All eight small-order points (each y with both signs of x; x = 0 for y = ±1 makes the sign-1 form
# non-canonical), and their non-canonical encodings y + p (those below 2**255).
WEAK = sorted(
    {_encode(y, s) for y in SMALL_ORDER_Y for s in (0, 1)}
    | {_encode(y + P, s) for y in SMALL_ORDER_Y if y + P < 2**255 for s in (0, 1)}
)


def _pem(raw: bytes) -> bytes:
    return Ed25519PublicKey.from_public_bytes(raw).public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def test_every_small_order_and_non_canonical_key_is_weak() -> None:
    assert len(WEAK) == 14
    for raw in WEAK:
        assert keys.weak_key_problem(raw) is not None, raw.hex()
    good = Ed25519PrivateKey.from_private_bytes(bytes(32)).public_key()
    assert keys.weak_key_problem(good.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)) is None


@pytest.mark.parametrize("raw", WEAK, ids=[w.hex()[:8] + w.hex()[-2:] for w in WEAK])
def test_verify_archive_refuses_a_weak_public_key(
    raw: bytes, made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "weak.pub").write_bytes(_pem(raw))
    err = _refused(made / "b.tar.gz", capsys, "--public-key", tmp_path / "weak.pub", code=2)
    assert f"public key {str(tmp_path / 'weak.pub')!r} is a weak Ed25519 key: a " in err


def test_the_identity_point_forgery_is_refused(made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Public key = identity point, signature R = identity, S = 0: 'valid' for any message without the fix."""
    identity = bytes([1]) + bytes(31)
    forged = identity + bytes(32)
    Ed25519PublicKey.from_public_bytes(identity).verify(forged, b"any SHA256SUMS")  # the library alone accepts it
    tar = _tar(made)
    top = _top(made)
    sig = tarformat.header_bytes(f"{top}/SHA256SUMS.sig", 64, folder=False, mtime=0) + forged + bytes(BLOCK - 64)
    sums_size = int(tar[BLOCK + 124 : BLOCK + 135], 8)
    after_sums = 2 * BLOCK + sums_size + (-sums_size % BLOCK)
    path = tmp_path / "forged.tar.gz"
    path.write_bytes(_framed(tar[:after_sums] + sig + tar[after_sums : _members_end(tar)]))
    (tmp_path / "identity.pub").write_bytes(_pem(identity))
    capsys.readouterr()
    assert run_ablation("verify-archive", path) == 0  # the signature is reported unchecked without a key
    err = _refused(path, capsys, "--public-key", tmp_path / "identity.pub", code=2)
    assert "is a weak Ed25519 key: a small-order point (y = 1)" in err


def test_a_signature_with_s_not_below_l_is_refused() -> None:
    key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    sig = key.sign(b"m")
    s = int.from_bytes(sig[32:], "little")
    malleated = sig[:32] + (s + L).to_bytes(32, "little")
    assert keys.verifies(key.public_key(), sig, b"m")
    assert not keys.verifies(key.public_key(), malleated, b"m")
    assert keys.signature_problem(malleated) == "a non-canonical Ed25519 signature (S is not below the group order L)"


def test_sign_key_is_checked_too(made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    (tmp_path / "k.pem").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    assert (
        run_ablation(
            "archive",
            "--input",
            made / "in.json",
            "--results",
            made / "results.json",
            "--bundle",
            tmp_path / "s.tar.gz",
            "--sign-key",
            tmp_path / "k.pem",
        )
        == 0
    )
    (tmp_path / "k.pub").write_bytes(
        _pem(key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))
    )
    capsys.readouterr()
    assert run_ablation("verify-archive", tmp_path / "s.tar.gz", "--public-key", tmp_path / "k.pub") == 0
    der = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)

    assert f"verified with public key sha256:{hashlib.sha256(der).hexdigest()}" in capsys.readouterr().out


# ---------------------------------------------------------- SOURCE_DATE_EPOCH


@pytest.mark.parametrize("value", [str(2**88), "1700000000000", "-1", "1e9", " 1", "8589934592"])
def test_source_date_epoch_out_of_range_is_a_usage_error(
    value: str, made: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
    capsys.readouterr()
    assert (
        run_ablation(
            "archive",
            "--input",
            made / "in.json",
            "--results",
            made / "results.json",
            "--bundle",
            tmp_path / "e.tar.gz",
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "SOURCE_DATE_EPOCH must be a decimal integer from 0 to 8589934591" in err
    assert err.count("\n") == 1
    assert not (tmp_path / "e.tar.gz").exists()


def test_the_largest_source_date_epoch_archives_and_verifies(
    made: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "8589934591")
    assert (
        run_ablation(
            "archive",
            "--input",
            made / "in.json",
            "--results",
            made / "results.json",
            "--bundle",
            tmp_path / "e.tar.gz",
        )
        == 0
    )
    with tarfile.open(tmp_path / "e.tar.gz") as tar:
        assert tar.getmembers()[0].mtime == 8589934591
    assert run_ablation("verify-archive", tmp_path / "e.tar.gz") == 0


# ------------------------------------------------------------- property test

_MUTATION = st.one_of(
    st.tuples(st.just("tar"), st.integers(0, 16 * BLOCK - 1), st.integers(1, 255)),  # headers and early data
    st.tuples(st.just("tar-anywhere"), st.floats(0, 1, exclude_max=True), st.integers(1, 255)),
    st.tuples(st.just("gzip-header"), st.integers(0, 9), st.integers(1, 255)),
    st.tuples(st.just("gzip-anywhere"), st.floats(0, 1, exclude_max=True), st.integers(1, 255)),
    st.tuples(st.just("size"), st.integers(0, 15), st.sampled_from([b"0", b"7", b"\0", b" ", b"\x80"])),
    st.tuples(st.just("append"), st.binary(min_size=1, max_size=600), st.just(0)),
    st.tuples(st.just("tar-cut"), st.floats(0, 1, exclude_max=True), st.just(0)),
)


def _mutate(data: bytes, tar: bytes, mutation: tuple[str, Any, Any]) -> bytes:
    kind, where, change = mutation
    if kind.startswith("tar"):
        offset = where if isinstance(where, int) else int(where * len(tar))
        if kind == "tar-cut":
            return tarformat.compress([tar[:offset]])
        return tarformat.compress([tar[:offset] + bytes([tar[offset] ^ change]) + tar[offset + 1 :]])
    if kind == "size":  # one digit of the second header's size field (SHA256SUMS)
        offset = BLOCK + 124 + where % 12
        return tarformat.compress([tar[:offset] + change + tar[offset + 1 :]])
    if kind == "append":
        return data + bytes(where)
    offset = where if isinstance(where, int) else int(where * len(data))
    return data[:offset] + bytes([data[offset] ^ change]) + data[offset + 1 :]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutation=_MUTATION)
def test_a_mutated_bundle_fails_on_one_line_or_is_the_same_tar(
    mutation: tuple[str, object, object], made: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = (made / "b.tar.gz").read_bytes()
    tar = gzip.decompress(data)
    mutated = _mutate(data, tar, mutation)
    path = made / "mutated.tar.gz"
    path.write_bytes(mutated)
    capsys.readouterr()
    code = run_ablation("verify-archive", path)
    err = capsys.readouterr().err
    if code == 0:
        try:
            same = gzip.decompress(mutated) == tar
        except (OSError, EOFError, zlib.error):
            same = False
        assert same, f"accepted a bundle whose tar differs: {mutation}"
    else:
        assert code == 3, err
        assert err.count("\n") == 1, err
        assert "Traceback" not in err


def test_a_second_input_file_is_refused_at_its_header(
    made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only one input member is kept in memory: a second is refused before its data is read."""
    tar = _tar(made)
    top = _top(made)
    sums_size = int(tar[BLOCK + 124 : BLOCK + 135], 8)
    sums = tar[2 * BLOCK : 2 * BLOCK + sums_size]
    lines = sorted([*sums.decode().splitlines(), "0" * 64 + "  input/zz.json"], key=lambda line: line[66:].encode())
    new_sums = ("\n".join(lines) + "\n").encode()
    head = tarformat.header_bytes(f"{top}/SHA256SUMS", len(new_sums), folder=False, mtime=0)
    body = tar[2 * BLOCK + sums_size + (-sums_size % BLOCK) : _members_end(tar)]
    second = tarformat.header_bytes(f"{top}/input/zz.json", 1, folder=False, mtime=0) + b"x" + bytes(BLOCK - 1)
    path = tmp_path / "two-inputs.tar.gz"
    path.write_bytes(_framed(tar[:BLOCK] + head + new_sums + bytes(-len(new_sums) % BLOCK) + body + second))
    err = _refused(path, capsys)
    assert f"{top}/input/: must hold exactly one file, holds a second one, input/zz.json" in err


@pytest.mark.parametrize(("data", "rule"), [(b"not json", "TOP-3 at byte 0"), (b"\xff\xfe", "TOP-1 at byte 0")])
def test_archive_rejects_an_input_that_is_not_json_text(
    data: bytes, rule: str, made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Evidence is derived before the (concurrent) recomputation; a non-JSON input is still exit 4, one line."""

    (tmp_path / "bad.json").write_bytes(data)
    results = json.loads((made / "results.json").read_bytes())
    results["inputSha256"] = hashlib.sha256(data).hexdigest()
    (tmp_path / "r.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert (
        run_ablation(
            "archive",
            "--input",
            tmp_path / "bad.json",
            "--results",
            tmp_path / "r.json",
            "--bundle",
            tmp_path / "x.tar.gz",
        )
        == 4
    )
    err = capsys.readouterr().err
    assert rule in err
    assert err.count("\n") == 1
    assert not (tmp_path / "x.tar.gz").exists()


def test_verify_archive_runs_within_400_mb_of_address_space(made: Path) -> None:
    """Issue 11: the strict reader allocates what the data needs, never the 1 GiB or 4 GiB bounds."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (400_000 * 1024, 400_000 * 1024))

    done = subprocess.run(
        [sys.executable, "-m", "ablation", "verify-archive", str(made / "b.tar.gz")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        preexec_fn=limit,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"bundle {made / 'b.tar.gz'}: valid\n")
