"""``read_manifest`` given the start's layers parses the rest from the bytes (decision 20).

The layers, most of the file, are not decoded a second time; the whole file must
still be UTF-8, and a layer line with a JSON escape still sends every layer through
the JSON parser.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ablation.closure.layerlines import read_layers
from ablation.closure.manifest import ManifestUnusable, read_manifest, render_manifest

NAME = "ablation/CLOSURE.json"


def _manifest(path: str) -> bytes:
    layers: dict[str, dict[str, str | None]] = {
        "package": {"ablation/__init__.py": "a" * 64},
        "dependencies": {},
        "stdlib": {path: "b" * 64},
        "interpreter": {},
    }
    return render_manifest(package={"name": "ablation", "sourceRevision": None}, distributions=[], layers=layers,
                           local={"bin/ablation": ("package", "c" * 64)}, absent=("x/python311.zip",))  # fmt: skip


def test_a_byte_that_is_not_utf8_in_a_layer_is_refused(tmp_path: Path) -> None:
    data = _manifest("sé.py").replace("é".encode(), b"\xe9")
    with pytest.raises(ManifestUnusable) as caught:
        read_manifest(tmp_path / "unread", NAME, data, read_layers(data))
    assert caught.value.why == "is not a readable closure manifest (UnicodeDecodeError)"


def test_utf8_paths_read_from_the_start_s_layers_as_from_json(tmp_path: Path) -> None:
    data = _manifest("sé.py")
    fast = read_manifest(tmp_path / "unread", NAME, data, read_layers(data))
    whole = read_manifest(tmp_path / "unread", NAME, data)
    assert fast == whole
    assert fast.layers["stdlib"] == {"sé.py": "b" * 64}
    assert (fast.local, fast.absent) == ({"bin/ablation": ("package", "c" * 64)}, ("x/python311.zip",))


def test_an_escaped_line_sends_the_layers_through_json(tmp_path: Path) -> None:
    data = _manifest('s"q.py')
    start = read_layers(data)
    assert start["stdlib"] == {}
    manifest = read_manifest(tmp_path / "unread", NAME, data, start)
    assert manifest.layers["stdlib"] == {'s"q.py': "b" * 64}
