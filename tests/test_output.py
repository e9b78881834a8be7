"""Publishing the output file: collision-free temporaries, durability warnings; issue 11 item 6."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ablation.cli import main
from ablation.output import write_exclusive
from tests.builders import prepared

DATA = prepared.dumps(prepared.valid_minimal())
SHA = hashlib.sha256(DATA).hexdigest()
UNSEALED = "ablation: note: unsealed environment (no closure manifest); the evaluator identity says so"


@pytest.fixture
def prepared_file(tmp_path: Path) -> Path:
    path = tmp_path / "in" / "prepared.json"
    path.parent.mkdir()
    path.write_bytes(DATA)
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "out"
    path.mkdir()
    return path


def _run(prepared_file: Path, out: Path) -> int:
    return main(["run", "--input", str(prepared_file), "--input-sha256", SHA, "--output", str(out)])


def _fails_for_folders(real: Callable[..., object], error: int) -> Callable[..., object]:
    """``os.fsync`` that raises ``error`` for a folder's descriptor and syncs files as usual."""

    def fsync(fd: int) -> object:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(error, os.strerror(error))
        return real(fd)

    return fsync


def test_einval_from_folder_fsync_is_a_warning_and_the_digest_is_printed(
    prepared_file: Path, folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(os, "fsync", _fails_for_folders(os.fsync, errno.EINVAL))
    out = folder / "results.json"
    assert _run(prepared_file, out) == 0
    captured = capsys.readouterr()
    assert captured.out == f"{hashlib.sha256(out.read_bytes()).hexdigest()}  {out}\n"
    assert captured.err.splitlines() == [
        f"ablation: warning: output {str(out)!r} is complete, but its durability was not confirmed: "
        f"could not fsync its folder {str(folder)!r} (Invalid argument)",
        UNSEALED,
    ]
    assert sorted(p.name for p in folder.iterdir()) == ["results.json"]


def test_write_only_folder_is_a_warning_and_a_rerun_is_refused_as_existing(
    prepared_file: Path, folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder with -wx permissions: the file can be created and linked, the folder not opened for reading."""
    real_open = os.open

    def open_(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fspath(path) == str(folder) and flags == os.O_RDONLY:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_)
    out = folder / "results.json"
    assert _run(prepared_file, out) == 0
    captured = capsys.readouterr()
    assert captured.out == f"{hashlib.sha256(out.read_bytes()).hexdigest()}  {out}\n"
    assert captured.err.splitlines()[0] == (
        f"ablation: warning: output {str(out)!r} is complete, but its durability was not confirmed: "
        f"could not fsync its folder {str(folder)!r} (Permission denied)"
    )
    assert _run(prepared_file, out) == 5
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"ablation: output {str(out)!r} already exists; it is never overwritten (choose a new path)"
    )


def test_a_stale_temporary_of_the_same_pid_never_blocks(
    prepared_file: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A killed run in a container without --init was PID 1 too; its temporary stays, the new run succeeds."""
    stale = folder / f".results.json.tmp-{os.getpid()}"
    stale.write_bytes(b"half")
    out = folder / "results.json"
    assert _run(prepared_file, out) == 0
    capsys.readouterr()
    assert out.read_bytes().startswith(b"{\n") and out.read_bytes().endswith(b"}\n")
    assert stale.read_bytes() == b"half"
    assert sorted(p.name for p in folder.iterdir()) == [stale.name, "results.json"]


def test_a_stale_temporary_with_the_very_name_drawn_is_skipped(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Even when the random part repeats, mkstemp draws again instead of failing."""
    stale = folder / f".results.json.tmp-{os.getpid()}-aaaaaaaa"
    stale.write_bytes(b"half")
    names: Iterator[str] = iter(["aaaaaaaa", "bbbbbbbb"])
    monkeypatch.setattr(tempfile, "_get_candidate_names", lambda: names)
    out = folder / "results.json"
    assert write_exclusive(out, b"{}\n") is None
    assert out.read_bytes() == b"{}\n"
    assert sorted(p.name for p in folder.iterdir()) == [stale.name, "results.json"]


def test_the_temporary_name_keeps_the_recognisable_prefix(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    real_link = os.link

    def link(src: Any, dst: Any) -> None:
        seen.append(Path(os.fspath(src)).name)
        real_link(src, dst)

    monkeypatch.setattr(os, "link", link)
    write_exclusive(folder / "r.json", b"x")
    (name,) = seen
    prefix = f".r.json.tmp-{os.getpid()}-"
    assert name.startswith(prefix) and len(name) == len(prefix) + 8


def test_mode_is_applied_under_the_umask(folder: Path) -> None:
    umask = os.umask(0o027)
    try:
        write_exclusive(folder / "public", b"x")
        write_exclusive(folder / "private", b"x", mode=0o600)
    finally:
        os.umask(umask)
    assert stat.S_IMODE((folder / "public").stat().st_mode) == 0o640
    assert stat.S_IMODE((folder / "private").stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("error", "code", "text"),
    [
        (errno.ENOSPC, 5, "No space left on device"),
        (errno.EACCES, 5, "Permission denied"),
        (errno.EMFILE, 6, "Too many open files"),
        (errno.ENFILE, 6, "Too many open files in system"),
    ],
    ids=["ENOSPC", "EACCES", "EMFILE", "ENFILE"],
)
def test_failures_before_the_link_leave_nothing(
    error: int,
    code: int,
    text: str,
    prepared_file: Path,
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def link(*_args: object) -> None:
        raise OSError(error, os.strerror(error))

    monkeypatch.setattr(os, "link", link)
    out = folder / "results.json"
    assert _run(prepared_file, out) == code
    assert capsys.readouterr().err.splitlines()[-1] == f"ablation: cannot write output {str(out)!r}: {text}"
    assert list(folder.iterdir()) == []


def test_no_descriptor_for_the_temporary_is_exit_6(
    prepared_file: Path, folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def mkstemp(**_kwargs: object) -> tuple[int, str]:
        raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    out = folder / "results.json"
    assert _run(prepared_file, out) == 6
    assert (
        capsys.readouterr().err.splitlines()[-1] == f"ablation: cannot write output {str(out)!r}: Too many open files"
    )
    assert list(folder.iterdir()) == []


def test_archive_and_keygen_print_their_durability_warnings_too(
    prepared_file: Path, folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    results = folder / "results.json"
    assert _run(prepared_file, results) == 0
    capsys.readouterr()
    monkeypatch.setattr(os, "fsync", _fails_for_folders(os.fsync, errno.EINVAL))
    bundle = folder / "bundle.tar.gz"
    assert main(["archive", "--input", str(prepared_file), "--results", str(results), "--bundle", str(bundle)]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"{hashlib.sha256(bundle.read_bytes()).hexdigest()}  {bundle}\n"
    assert captured.err == (
        f"ablation: warning: output {str(bundle)!r} is complete, but its durability was not confirmed: "
        f"could not fsync its folder {str(folder)!r} (Invalid argument)\n"
    )
    keys = folder / "k.pem", folder / "k.pub"
    assert main(["keygen", "--private-key", str(keys[0]), "--public-key", str(keys[1])]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith(f"wrote {keys[0]} and {keys[1]}\npublic key fingerprint sha256:")  # issue 22
    assert [line.split(":")[1] for line in captured.err.splitlines()] == [" warning", " warning"]
