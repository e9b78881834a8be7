"""Issue 22 Why 2: a bundle re-packed with GNU tar is called re-packed, and the files that differ are named.

Extracting a bundle and packing it again with ``tar -czf`` changes the tar
(modes, owners, order, the archive's end) even where no file changed:
``verify-archive`` and ``notes --bundle`` refuse it (exit 3) with
"re-packed: not the tar that `archive` writes", the first difference, and what
a plain reading without extraction finds: which files still match
``SHA256SUMS`` and which differ. Damage to the gzip stream is reported as such.
"""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

import pytest

from ablation.bundle import tarformat
from tests.bundle.review_made import captured, gnu_repack, make_day

REPACKED = "ablation: bundle: re-packed: not the tar that `archive` writes: "


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The example's day: runs, keys and bundles."""
    return make_day(tmp_path_factory.mktemp("repacked"), pinned=True)


def _top(day: dict[str, Path]) -> str:
    with tarfile.open(day["signed.tar.gz"]) as tar:
        return tar.getnames()[0]


def _refused(*args: object) -> str:
    code, out, err = captured(*args)
    assert (code, out) == (3, ""), err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_an_edited_file_repacked_with_gnu_tar_is_named(day: dict[str, Path], tmp_path: Path) -> None:
    """GNU tar re-pack with one edited file: re-packed, and that file named."""
    top = _top(day)
    path = gnu_repack(day["signed.tar.gz"], tmp_path, edit="evidence/index.json")
    for args in (("verify-archive", path), ("notes", "--bundle", path)):
        err = _refused(*args)
        assert err.startswith(f"{REPACKED}{top}: the tar header is not byte-for-byte what archive writes"), err
        assert f"; read without extracting: 212 of the 213 files {top}/SHA256SUMS lists match it; " in err, err
        assert err.endswith(f"; differ from SHA256SUMS: {top}/evidence/index.json\n"), err


def test_an_unchanged_repack_is_still_refused_and_says_nothing_differs(day: dict[str, Path], tmp_path: Path) -> None:
    """A faithful re-pack: still exit 3, and nothing differs."""
    top = _top(day)
    err = _refused("verify-archive", gnu_repack(day["signed.tar.gz"], tmp_path))
    assert err.startswith(REPACKED)
    assert err.endswith(
        f"; read without extracting: 213 of the 213 files {top}/SHA256SUMS lists match it; no file differs from "
        "SHA256SUMS, yet only the tar archive writes is checked: ask for that bundle\n"
    )


def _tar_of(members: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for info, data in members:
            tar.addfile(info, None if data is None else io.BytesIO(data))
    return buffer.getvalue()


def _members(day: dict[str, Path]) -> list[tuple[tarfile.TarInfo, bytes | None]]:
    with tarfile.open(day["unsigned.tar.gz"]) as tar:
        out = []
        for info in tar.getmembers():
            handle = tar.extractfile(info)
            out.append((info, None if handle is None else handle.read()))
    return out


def test_a_pax_repack_with_a_link_and_a_missing_file_is_listed(day: dict[str, Path], tmp_path: Path) -> None:
    """Python's tarfile writes PAX headers; the plain reading follows their paths and never follows a link."""
    top = _top(day)
    members = [(i, d) for i, d in _members(day) if not i.name.endswith("/identity.json")]
    link = tarfile.TarInfo(f"{top}/extra/escape")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    extra = tarfile.TarInfo(f"{top}/{'x' * 120}.txt")  # a long name: a PAX path record
    extra.size = 2
    path = tmp_path / "pax.tar.gz"
    path.write_bytes(gzip.compress(_tar_of([*members, (link, None), (extra, b"x\n")])))
    err = _refused("verify-archive", path)
    assert f"listed but missing: {top}/identity.json" in err
    assert f"not listed in SHA256SUMS: {top}/{'x' * 120}.txt" in err
    assert f"links or devices (never followed): {top}/extra/escape (a symbolic link)" in err


def test_the_plain_reading_stops_at_what_it_cannot_read_safely(day: dict[str, Path], tmp_path: Path) -> None:
    """A sparse member stops the plain reading, which says where."""
    top = _top(day)
    members = _members(day)
    sparse = tarfile.TarInfo(f"{top}/extra/sparse")
    sparse.type = tarfile.GNUTYPE_SPARSE
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for info, data in members[:3]:
            tar.addfile(info, None if data is None else io.BytesIO(data))
        tar.addfile(sparse)
    path = tmp_path / "sparse.tar.gz"
    path.write_bytes(tarformat.compress([buffer.getvalue()]))
    err = _refused("verify-archive", path)
    assert err.startswith(REPACKED)
    assert f"; the reading stopped there: {top}/extra/sparse: a member of tar type b'S', not read\n" in err, err


def test_a_damaged_gzip_stream_is_reported_as_damage_not_as_a_repack(day: dict[str, Path], tmp_path: Path) -> None:
    """A wrong CRC-32 around a re-packed tar is reported as damage."""
    repacked = gnu_repack(day["unsigned.tar.gz"], tmp_path)
    damaged = bytearray(repacked.read_bytes())
    damaged[-8] ^= 0xFF  # the CRC-32: the deflate data still inflates; the tar is refused first, the CRC after
    path = tmp_path / "damaged.tar.gz"
    path.write_bytes(bytes(damaged))
    err = _refused("verify-archive", path)
    assert err.startswith("ablation: bundle: the gzip CRC-32 or size does not match the decompressed data"), err
    assert "re-packed" not in err
