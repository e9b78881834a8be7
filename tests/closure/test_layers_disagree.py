"""The check compares the start's line-read layers with the manifest's only when they were read apart.

:func:`ablation.closure.system.layers_disagree` (decision 20): the same objects
are not compared entry by entry; JSON-read layers are, escaped paths left out.
"""

from __future__ import annotations

from pathlib import Path

from ablation.closure.layerlines import read_layers
from ablation.closure.manifest import read_manifest, render_manifest
from ablation.closure.system import layers_disagree


class _Uncomparable(dict[str, str | None]):
    """A layer whose comparison fails the test: taken as the same object, it is never compared."""

    def __eq__(self, other: object) -> bool:
        raise AssertionError("compared entry by entry")

    __hash__ = None


def _manifest(paths: dict[str, str | None]) -> bytes:
    layers: dict[str, dict[str, str | None]] = {"package": paths, "dependencies": {}, "stdlib": {}, "interpreter": {}}
    return render_manifest(package={"name": "ablation", "sourceRevision": None}, distributions=[], layers=layers,
                           local={})  # fmt: skip


def test_the_start_s_own_layers_are_not_compared(tmp_path: Path) -> None:
    data = _manifest({"a.py": "a" * 64})
    start = {layer: _Uncomparable(files) for layer, files in read_layers(data).items()}
    manifest = read_manifest(tmp_path / "unread", "ablation/CLOSURE.json", data, start)
    assert layers_disagree(start, manifest) is False


def test_json_read_layers_agree_once_escaped_paths_are_left_out(tmp_path: Path) -> None:
    data = _manifest({"a.py": "a" * 64, 'b"q.py': "b" * 64})
    start = read_layers(data)
    manifest = read_manifest(tmp_path / "unread", "ablation/CLOSURE.json", data, start)
    assert manifest.layers["package"] is not start["package"]  # a backslash: parsed as JSON
    assert 'b"q.py' in manifest.layers["package"]
    assert 'b"q.py' not in start["package"]
    assert layers_disagree(start, manifest) is False


def test_a_difference_between_the_two_readings_is_found(tmp_path: Path) -> None:
    data = _manifest({"a.py": "a" * 64, 'b"q.py': "b" * 64})
    start = read_layers(data)
    manifest = read_manifest(tmp_path / "unread", "ablation/CLOSURE.json", data, start)
    start["package"]["a.py"] = "c" * 64
    assert layers_disagree(start, manifest) is True
    del start["stdlib"]
    assert layers_disagree(start, manifest) is True


def test_a_path_with_a_control_character_is_left_out_as_the_line_reader_leaves_it(tmp_path: Path) -> None:
    data = _manifest({"a.py": "a" * 64, "tab\there.py": "b" * 64, "back\\slash.py": "c" * 64})
    start = read_layers(data)
    manifest = read_manifest(tmp_path / "unread", "ablation/CLOSURE.json", data, start)
    assert sorted(start["package"]) == ["a.py"]
    assert len(manifest.layers["package"]) == 3
    assert layers_disagree(start, manifest) is False
