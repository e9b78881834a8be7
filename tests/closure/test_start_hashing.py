"""The sealed start's hashing thread (:meth:`ablation.closure.verified.Closure.hash_in_background`) and how the
run-time check reuses its digests (:func:`ablation.closure.layout.sha256_file`): issue 18's start-up bound.

A digest computed at the start is used only for a file whose device, inode, size and modification and change
times are still the ones it was computed under; anything else is read and hashed again.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ablation.closure import layout, verified
from ablation.closure.layout import mapped_executables, read_maps, sha256_file
from ablation.closure.verified import Closure, file_key, mapped_files

_MANIFEST = b' "layers": {\n  "package": []\n'


def _closure(tmp_path: Path, new_hash: object = hashlib.sha256) -> Closure:
    return Closure(str(tmp_path / "site"), str(tmp_path / "stdlib"), _MANIFEST, new_hash)  # type: ignore[arg-type]


def _held(release: threading.Event) -> Callable[[], object]:
    """A hash constructor that returns only once ``release`` is set."""

    def held() -> object:
        release.wait()
        return hashlib.sha256()

    return held


@pytest.fixture(autouse=True)
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """The files a test writes are read as if their last change lay 10 s back (:func:`verified.reusable`)."""
    monkeypatch.setattr(verified, "now_ns", lambda: time.time_ns() + 10_000_000_000)


@pytest.fixture
def started(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Closure:
    """A closure installed as this process's, with an empty digest cache in :mod:`layout`."""
    closure = _closure(tmp_path)
    monkeypatch.setattr(verified, "CLOSURE", closure)
    monkeypatch.setattr(layout, "_HASHED", {})
    return closure


def test_background_digests_are_the_files_sha256(tmp_path: Path) -> None:
    large, small = tmp_path / "large.so", tmp_path / "small.so"
    large.write_bytes(bytes(range(256)) * 12_289)  # three 1 MiB reads, the last one short
    small.write_bytes(b"\x7fELF")
    closure = _closure(tmp_path)
    closure.hash_in_background([str(large), str(tmp_path / "missing.so"), str(small)])
    closure.wait_for()
    assert closure.hashed == {
        file_key(os.stat(large)): hashlib.sha256(large.read_bytes()).hexdigest(),
        file_key(os.stat(small)): hashlib.sha256(b"\x7fELF").hexdigest(),
    }


def test_an_error_in_the_thread_leaves_digests_out_and_prints_nothing(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    library = tmp_path / "lib.so"
    library.write_bytes(b"code")

    def failing() -> object:
        raise RuntimeError("no hash")

    closure = _closure(tmp_path, failing)
    closure.hash_in_background([str(library)])
    closure.wait_for()
    assert closure.hashed == {}
    assert capfd.readouterr() == ("", "")


def test_the_check_reuses_a_start_digest_under_the_same_key(tmp_path: Path, started: Closure) -> None:
    library = tmp_path / "lib.so"
    library.write_bytes(b"code")
    started.hashed[file_key(os.stat(library))] = "5" * 64  # what the start computed, taken as is
    assert sha256_file(library) == "5" * 64


def test_a_file_written_after_the_start_hashed_it_is_hashed_again(tmp_path: Path, started: Closure) -> None:
    library = tmp_path / "lib.so"
    library.write_bytes(b"code")
    started.hash_in_background([str(library)])
    started.wait_for()
    assert started.hashed == {file_key(os.stat(library)): hashlib.sha256(b"code").hexdigest()}
    os.utime(library, ns=(0, 0))  # the same bytes, another modification time: another key
    library.write_bytes(b"CODE")
    assert sha256_file(library) == hashlib.sha256(b"CODE").hexdigest()


def test_the_check_waits_for_a_file_the_thread_is_hashing(tmp_path: Path, started: Closure) -> None:
    library = tmp_path / "lib.so"
    library.write_bytes(b"code")
    release = threading.Event()

    class Held:
        """A hash that finishes only once released, and says so in its digest."""

        def __init__(self) -> None:
            release.wait()

        def update(self, data: bytes) -> None:
            del data

        def hexdigest(self) -> str:
            return "7" * 64

    started.new_hash = Held  # type: ignore[assignment]
    started.hash_in_background([str(library)])
    releaser = threading.Timer(0.2, release.set)  # the check asks for the digest before the thread has it
    releaser.start()
    assert sha256_file(library) == "7" * 64  # the thread's digest: the check waited for it
    releaser.join()


def test_the_check_does_not_wait_for_a_file_the_thread_does_not_hash(tmp_path: Path, started: Closure) -> None:
    library, other = tmp_path / "lib.so", tmp_path / "other.so"
    library.write_bytes(b"code")
    other.write_bytes(b"other")
    release = threading.Event()
    started.new_hash = _held(release)  # type: ignore[assignment]
    started.hash_in_background([str(library)])
    releaser = threading.Timer(5, release.set)  # a check that waited would return only after this
    releaser.start()
    try:
        assert sha256_file(other) == hashlib.sha256(b"other").hexdigest()
        assert not release.is_set()
    finally:
        releaser.cancel()
        release.set()
        started.wait_for()


def test_verified_imports_are_not_hashed_again(tmp_path: Path, started: Closure) -> None:
    site = tmp_path / "site"
    (site / "pkg").mkdir(parents=True)
    module = site / "pkg" / "m.py"
    module.write_bytes(b"x = 1\n")
    digest = hashlib.sha256(b"x = 1\n").hexdigest()
    closure = Closure(str(site), str(tmp_path / "stdlib"), _manifest_of("pkg/m.py", digest), hashlib.sha256)
    assert closure.read(str(module)) == b"x = 1\n"
    assert closure.hashed == {file_key(os.stat(module)): digest}


def _manifest_of(path: str, digest: str) -> bytes:
    return f' "layers": {{\n  "package": [\n  ["{path}", "{digest}"]\n  ],\n'.encode()


def test_mapped_files_selects_what_the_check_selects() -> None:
    assert sorted(mapped_files()) == mapped_executables(read_maps())


def test_wait_for_without_a_thread_returns(tmp_path: Path) -> None:
    closure = _closure(tmp_path)
    closure.wait_for()
    closure.wait_for("/lib/libc.so.6")
    assert closure.hashed == {}


def test_no_thread_means_no_wait_and_no_digests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import _thread  # noqa: PLC0415

    def refused(*_args: object) -> int:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(_thread, "start_new_thread", refused)
    library = tmp_path / "lib.so"
    library.write_bytes(b"code")
    closure = _closure(tmp_path)
    closure.hash_in_background([str(library)])
    closure.wait_for(str(library))  # returns: nothing is pending
    assert closure.hashed == {}


def test_a_file_changed_just_before_it_was_hashed_keeps_no_digest(
    tmp_path: Path, started: Closure, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(verified, "now_ns", time.time_ns)  # the real clock: the file was written just now
    library = tmp_path / "lib.so"
    library.write_bytes(b"code")
    started.hash_in_background([str(library)])
    started.wait_for()
    assert started.hashed == {}  # a write in the same clock tick could keep the key: not reused
    assert sha256_file(library) == hashlib.sha256(b"code").hexdigest()
    assert layout._HASHED == {}  # nor kept by the check's own cache


def test_reusable_needs_the_change_two_seconds_before_the_read() -> None:
    info = os.stat_result((0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5_000_000_000))
    assert info.st_ctime_ns == 5_000_000_000
    assert verified.reusable(info, 7_000_000_001)
    assert not verified.reusable(info, 7_000_000_000)


def test_stop_hashing_ends_the_thread_without_keeping_digests(tmp_path: Path) -> None:
    first, second = tmp_path / "a.so", tmp_path / "b.so"
    first.write_bytes(b"a")
    second.write_bytes(b"b")
    release = threading.Event()
    closure = _closure(tmp_path, _held(release))
    closure.hash_in_background([str(first), str(second)])
    releaser = threading.Timer(0.2, release.set)  # the stop is asked for while the first file is being hashed
    releaser.start()
    closure.stop_hashing()
    releaser.join()
    assert closure.hashed == {}
