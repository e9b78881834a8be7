"""Where :func:`ablation.output.write_exclusive` writes: the path as given, never a folder.

The target is the path as given (``str`` or ``os.PathLike``), its folder the
part before the last ``/`` (the current folder when there is none); no ``..``
is folded away, so a symlinked folder is followed as the kernel follows it.
A path that names a folder (a trailing ``/``, or a last part ``.`` or ``..``)
is refused before anything is written.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ablation.errors import OutputRefused
from ablation.output import write_exclusive


@pytest.mark.parametrize("name", ["out/", "out/.", "out/..", ".", "..", "out/sub/../."])
def test_a_folder_name_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out" / "sub").mkdir(parents=True)
    with pytest.raises(OutputRefused, match="names a folder; give a file name"):
        write_exclusive(name, b"{}")
    assert sorted(os.listdir(tmp_path / "out")) == ["sub"]


@pytest.mark.parametrize("given", ["r.json", "./r.json", "out/./r.json", "out//r.json"])
def test_the_path_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    assert write_exclusive(given, b"{}") is None
    where = tmp_path / ("r.json" if "out" not in given else "out/r.json")
    assert where.read_bytes() == b"{}"
    assert sorted(os.listdir(where.parent)) == sorted({"out", "r.json"} if "out" not in given else {"r.json"})


def test_a_path_object(tmp_path: Path) -> None:
    assert write_exclusive(tmp_path / "r.json", b"[]") is None
    assert (tmp_path / "r.json").read_bytes() == b"[]"


def test_dotdot_after_a_symlinked_folder_is_the_kernels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``link/../r.json`` is beside the link's target, not beside the link (no textual folding)."""
    (tmp_path / "real" / "inner").mkdir(parents=True)
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "link").symlink_to(tmp_path / "real" / "inner")
    monkeypatch.chdir(tmp_path / "here")
    assert write_exclusive("link/../r.json", b"1") is None
    assert (tmp_path / "real" / "r.json").read_bytes() == b"1"
    assert sorted(os.listdir(tmp_path / "here")) == ["link"]
