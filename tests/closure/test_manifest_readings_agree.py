"""The start's line reading of a manifest is taken only when a JSON reading of the same bytes gives the same layers.

``read_manifest`` given the start's layers (:func:`ablation.closure.layerlines.read_layers`)
parses only the rest of the file as JSON. The line reader cuts paths and digests by
position and skips lines it does not recognise, so bytes that are not exactly what
``render_manifest`` writes could read as one set of layers line by line and as another
(or as no manifest at all) as JSON. Each tampered file below must either be refused, or
read exactly as the JSON reading of the same bytes reads it: the identity's layer digests
are then what a reviewer recomputes from the manifest with a JSON tool.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ablation.closure.layerlines import read_layers
from ablation.closure.manifest import Manifest, ManifestUnusable, read_manifest, render_manifest

NAME = "ablation/CLOSURE.json"
A, B, C = "a" * 64, "b" * 64, "c" * 64


def _manifest() -> bytes:
    layers: dict[str, dict[str, str | None]] = {
        "package": {"ablation/RECORD": None, "ablation/__init__.py": A, "ablation/x.py": B},
        "dependencies": {},
        "stdlib": {"os.py": A, "re.py": B, "zz.py": C},
        "interpreter": {"usr/lib/libc.so.6": C},
    }
    return render_manifest(package={"name": "ablation", "sourceRevision": None}, distributions=[], layers=layers,
                           local={"bin/ablation": ("package", C)}, absent=("x/python311.zip",))  # fmt: skip


def _reading(path: Path, data: bytes, *, start: bool) -> Manifest | str:
    try:
        return read_manifest(path, NAME, data, read_layers(data) if start else None)
    except ManifestUnusable as error:
        return error.why


def _tampered() -> dict[str, bytes]:
    data = _manifest()
    line = b'  ["re.py", "' + B.encode() + b'"],\n'
    second_stdlib = b'  "stdlib": [\n  ["zz.py", "' + C.encode() + b'"]\n  ],\n'
    record, init = b'  ["ablation/RECORD", null],\n', b'  ["ablation/__init__.py", "' + A.encode() + b'"],\n'
    return {
        "a null element": data.replace(line, line + b"  null,\n"),
        "a layer twice": data.replace(b'  "interpreter": [\n', second_stdlib + b'  "interpreter": [\n'),
        "a comma after the last entry": data.replace(b'"]\n  ],\n  "interpreter"', b'"],\n  ],\n  "interpreter"'),
        "the local marker early": data.replace(line, line + b' },\n "local": [],\n "junk": {\n  "x": [\n'),
        "layers again after": data.replace(b'\n "absent"', b'\n "layers": {},\n "absent"'),
        "a raw tab in a path": data.replace(b'["re.py"', b'["r\te.py"'),
        "a raw quote in a path": data.replace(b'["re.py", "', b'["r", "e.py", "'),
        "a line twice": data.replace(line, line * 2),
        "the same path hashed twice": data.replace(line, line + b'  ["re.py", "' + A.encode() + b'"],\n'),
        "a path hashed and unhashed": data.replace(line, line + b'  ["re.py", null],\n'),
        "spaces inside a line": data.replace(b'["re.py", "', b'[ "re.py",  "'),
        "no space after the comma": data.replace(b'["re.py", "', b'["re.py","'),
        "unsorted": data.replace(record + init, init + record),
    }


@pytest.mark.parametrize("case", sorted(_tampered()))
def test_a_tampered_manifest_reads_as_json_or_is_refused(tmp_path: Path, case: str) -> None:
    data = _tampered()[case]
    assert data != _manifest()
    fast = _reading(tmp_path / "unread", data, start=True)
    whole = _reading(tmp_path / "unread", data, start=False)
    if isinstance(fast, Manifest):
        assert isinstance(whole, Manifest), f"accepted line by line, refused as JSON: {whole}"
        assert fast.layers == whole.layers
        assert fast.layer_summary() == whole.layer_summary()


def test_the_layers_nested_in_another_member_are_not_the_manifest_s(tmp_path: Path) -> None:
    data = _manifest()
    local = data[data.index(b'\n "local": ') : data.index(b'\n "trees": ')]
    data = data.replace(b'\n "layers": {\n', b'\n "x": {\n "layers": {\n', 1)
    data = data.replace(b'\n "trees": ', b'\n "y": 0},' + local + b'\n "layers": {},\n "trees": ', 1)
    whole = _reading(tmp_path / "unread", data, start=False)
    assert whole == "does not list the layers package, dependencies, stdlib, interpreter"
    assert isinstance(_reading(tmp_path / "unread", data, start=True), str)


def test_the_manifest_as_written_still_takes_the_start_s_layers(tmp_path: Path) -> None:
    data = _manifest()
    start = read_layers(data)
    manifest = read_manifest(tmp_path / "unread", NAME, data, start)
    assert all(manifest.layers[layer] is start[layer] for layer in start)
    assert manifest == read_manifest(tmp_path / "unread", NAME, data)
