"""The ``--evidence`` walk: its bounds, special files, and entries that change under it (issue 23 Why 3, item 1).

A 1,100-level folder used to end in a ``RecursionError`` traceback (``os.walk``
recurses); the walk now keeps its own stack and stops at 64 levels below a
given folder, and at 100,000 entries in all, with one line (exit 2). Changes
between listing and reading are made at a fixed point by wrapping ``os.open``,
``os.read`` or ``os.stat`` (no timing), and each is exit 3.
"""

from __future__ import annotations

import os
import socket
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ablation.bundle import evidence as walk
from ablation.cli import main

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "prepared-input.json"
AGAIN = "archive again once the evidence no longer changes"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example input and its results file."""
    folder = tmp_path_factory.mktemp("walk")
    (folder / "in.json").write_bytes(EXAMPLE.read_bytes())
    assert main(["run", "--input", str(folder / "in.json"), "--output", str(folder / "r.json")]) == 0
    return folder


def _archive(made: Path, bundle: Path, *evidence: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Exit code and stderr of ``archive`` with ``evidence``."""
    capsys.readouterr()
    args = ["archive", "--input", str(made / "in.json"), "--results", str(made / "r.json"), "--bundle", str(bundle)]
    for path in evidence:
        args += ["--evidence", str(path)]
    code = main(args)
    return code, capsys.readouterr().err


def _chain(root: Path, levels: int) -> Iterator[Path]:
    """Make ``root/d/d/…`` ``levels`` folders deep with ``f.txt`` at the bottom, without a path or recursion limit.

    Yields the bottom folder's path; removes the chain afterwards, deepest first.
    """
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(levels):
            os.mkdir("d", dir_fd=fd)
            deeper = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = deeper
        file_fd = os.open("f.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(file_fd, b"deep\n")
        os.close(file_fd)
    finally:
        os.close(fd)
    bottom = Path(root, *(["d"] * levels))
    try:
        yield bottom
    finally:
        (bottom / "f.txt").unlink()
        for level in range(levels, 0, -1):
            Path(root, *(["d"] * level)).rmdir()


@pytest.fixture
def deep(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Path]:
    """``ev/`` holding a chain of ``request.param`` folders."""
    (tmp_path / "ev").mkdir()
    yield from _chain(tmp_path / "ev", int(request.param))


@pytest.mark.parametrize("deep", [1100], indirect=True)
def test_a_folder_1100_levels_deep_is_refused_with_one_line(
    deep: Path, made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Why 3: no ``RecursionError``: exit 2 at the 65th level."""
    code, err = _archive(made, tmp_path / "b.tar.gz", tmp_path / "ev", capsys=capsys)
    rel = "/".join(["d"] * 65)
    assert (code, err) == (
        2,
        f"ablation: --evidence {str(tmp_path / 'ev')!r} is more than 64 folder levels deep at {rel!r}\n",
    )
    assert not (tmp_path / "b.tar.gz").exists()


@pytest.mark.parametrize("deep", [64], indirect=True)
def test_a_folder_64_levels_deep_is_archived(
    deep: Path, made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bound's edge: 64 levels below the given folder are archived."""
    code, err = _archive(made, tmp_path / "b.tar.gz", tmp_path / "ev", capsys=capsys)
    assert code == 0, err
    with tarfile.open(tmp_path / "b.tar.gz") as tar:
        files = [m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile() and "/extra/" in m.name]
    assert files == ["extra/ev/" + "d/" * 64 + "f.txt"]


def test_the_entry_bound_counts_every_evidence_path_together(
    made: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Entries are counted over all ``--evidence`` paths, each given path included."""
    monkeypatch.setattr(walk, "MAX_ENTRIES", 10)
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        for k in range(4):
            (tmp_path / name / f"f{k}").write_bytes(b"x")
    code, err = _archive(made, tmp_path / "ten.tar.gz", tmp_path / "one", tmp_path / "two", capsys=capsys)
    assert code == 0, err
    (tmp_path / "two" / "f4").write_bytes(b"x")
    code, err = _archive(made, tmp_path / "eleven.tar.gz", tmp_path / "one", tmp_path / "two", capsys=capsys)
    assert code == 2
    assert err.startswith(f"ablation: --evidence holds more than 10 files and folders in all (at '{tmp_path}/two/f")
    assert err.count("\n") == 1
    assert not (tmp_path / "eleven.tar.gz").exists()


def test_special_files_are_named_by_kind(made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A FIFO or a socket inside a folder, or a FIFO given directly (never opened, so never waited on)."""
    ev = tmp_path / "ev"
    ev.mkdir()
    os.mkfifo(ev / "pipe")
    code, err = _archive(made, tmp_path / "b.tar.gz", ev, capsys=capsys)
    assert (code, err) == (
        2,
        f"ablation: --evidence {str(ev)!r} holds 'pipe', which is a FIFO (named pipe), not a regular file\n",
    )
    code, err = _archive(made, tmp_path / "b.tar.gz", ev / "pipe", capsys=capsys)
    assert (code, err) == (
        2,
        f"ablation: --evidence {str(ev / 'pipe')!r} is a FIFO (named pipe), not a regular file or a folder\n",
    )
    (ev / "pipe").unlink()
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(ev / "sock"))
        code, err = _archive(made, tmp_path / "b.tar.gz", ev, capsys=capsys)
    assert (code, err) == (2, f"ablation: --evidence {str(ev)!r} holds 'sock', which is a socket, not a regular file\n")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``ev/sub/f.txt`` and ``ev/g.txt``, with ``elsewhere/`` (a folder) and ``outside.txt`` beside ``ev``."""
    (tmp_path / "ev" / "sub").mkdir(parents=True)
    (tmp_path / "ev" / "sub" / "f.txt").write_bytes(b"inside\n")
    (tmp_path / "ev" / "g.txt").write_bytes(b"g\n")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "f.txt").write_bytes(b"outside\n")
    (tmp_path / "outside.txt").write_bytes(b"outside\n")
    return tmp_path / "ev"


def _before(function: str, name: str, action: Callable[[], object], monkeypatch: pytest.MonkeyPatch) -> None:
    """Run ``action`` once, just before the first ``os.<function>(name, …, dir_fd=…)`` call."""
    real = getattr(os, function)
    done: list[bool] = []

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not done and args and args[0] == name and kwargs.get("dir_fd") is not None:
            done.append(True)
            action()
        return real(*args, **kwargs)

    monkeypatch.setattr(os, function, wrapped)


def _listed(path: Path, kind: str) -> str:
    status = os.lstat(path)
    return f"listed as {kind}, device {status.st_dev} inode {status.st_ino}"


def test_a_folder_swapped_for_a_link_after_listing_is_not_followed(
    tree: Path, made: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 1: opened with ``O_NOFOLLOW | O_DIRECTORY`` relative to its parent, the link fails to open: exit 3."""
    listed = _listed(tree / "sub", "a folder")

    def swap() -> None:
        (tree / "sub").rename(tree.parent / "held")
        (tree / "sub").symlink_to(tree.parent / "elsewhere", target_is_directory=True)

    _before("open", "sub", swap, monkeypatch)
    code, err = _archive(made, tree.parent / "b.tar.gz", tree, capsys=capsys)
    assert (code, err.split("; then ")[0]) == (
        3,
        f"ablation: --evidence {str(tree)!r}: 'sub' changed between listing and reading ({listed}",
    )
    assert err.endswith(f"); {AGAIN}\n")
    assert err.count("\n") == 1


def test_a_folder_swapped_for_another_folder_is_named(
    tree: Path, made: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another real folder at the same name: the device and inode tell them apart."""
    listed = _listed(tree / "sub", "a folder")
    now = os.lstat(tree.parent / "elsewhere")

    def swap() -> None:
        (tree / "sub").rename(tree.parent / "held")
        (tree.parent / "elsewhere").rename(tree / "sub")

    _before("open", "sub", swap, monkeypatch)
    code, err = _archive(made, tree.parent / "b.tar.gz", tree, capsys=capsys)
    assert (code, err) == (
        3,
        f"ablation: --evidence {str(tree)!r}: 'sub' changed between listing and reading ({listed}; then a folder, "
        f"device {now.st_dev} inode {now.st_ino}); {AGAIN}\n",
    )


def test_a_file_replaced_after_listing_is_named(
    tree: Path, made: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file renamed over the listed one: another inode, exit 3."""
    listed = _listed(tree / "g.txt", "a regular file")
    now = os.lstat(tree.parent / "outside.txt")
    _before("open", "g.txt", lambda: (tree.parent / "outside.txt").rename(tree / "g.txt"), monkeypatch)
    code, err = _archive(made, tree.parent / "b.tar.gz", tree, capsys=capsys)
    assert (code, err) == (
        3,
        f"ablation: --evidence {str(tree)!r}: 'g.txt' changed between listing and reading ({listed}; then a "
        f"regular file, device {now.st_dev} inode {now.st_ino}); {AGAIN}\n",
    )


def test_a_file_that_grows_while_read_is_refused(
    tree: Path, made: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bytes appended after listing: more read than listed, exit 3."""
    listed = _listed(tree / "g.txt", "a regular file")
    real_read = os.read
    grown: list[bool] = []

    def read(fd: int, size: int) -> bytes:
        if not grown and os.fstat(fd).st_ino == os.lstat(tree / "g.txt").st_ino:
            grown.append(True)
            with (tree / "g.txt").open("ab") as handle:
                handle.write(b"more\n")
        return real_read(fd, size)

    monkeypatch.setattr(os, "read", read)
    code, err = _archive(made, tree.parent / "b.tar.gz", tree, capsys=capsys)
    assert (code, err) == (
        3,
        f"ablation: --evidence {str(tree)!r}: 'g.txt' changed between listing and reading ({listed}; then 3 bytes "
        f"read, size 7 after reading); {AGAIN}\n",
    )


def test_an_entry_gone_after_listing_is_refused(
    tree: Path, made: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Listed, then removed before its kind was learnt: exit 3, never skipped."""
    _before("stat", "g.txt", (tree / "g.txt").unlink, monkeypatch)
    code, err = _archive(made, tree.parent / "b.tar.gz", tree, capsys=capsys)
    assert (code, err) == (
        3,
        f"ablation: --evidence {str(tree)!r}: 'g.txt' changed between listing and reading (listed, then gone); "
        f"{AGAIN}\n",
    )
    assert not (tree.parent / "b.tar.gz").exists()
