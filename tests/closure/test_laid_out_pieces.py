""":func:`ablation.closure.layerlines.laid_out` compares the layer lines 512 entries at a time.

The text ``render_manifest`` would write is made a piece at a time and compared
with the file's bytes where they lie (decision 20): a difference or an escaped path
in any piece, first, last or across a boundary, makes it false.
"""

from __future__ import annotations

import pytest

from ablation.closure.layerlines import laid_out, read_layers
from ablation.closure.manifest import render_manifest


def _manifest(stdlib: dict[str, str | None]) -> bytes:
    layers: dict[str, dict[str, str | None]] = {
        "package": {"ablation/RECORD": None, "ablation/a.py": "a" * 64},
        "dependencies": {},
        "stdlib": stdlib,
        "interpreter": {"usr/lib/libc.so.6": "c" * 64},
    }
    return render_manifest(package={"name": "ablation", "sourceRevision": None}, distributions=[], layers=layers,
                           local={})  # fmt: skip


def _section(data: bytes) -> tuple[int, int]:
    return data.find(b'\n "layers": {\n') + 14, data.find(b'\n },\n "local": ')


def _stdlib(count: int) -> dict[str, str | None]:
    return {f"m{n:05d}.py": f"{n:064x}" for n in range(count)}


@pytest.mark.parametrize("count", [0, 1, 511, 512, 513, 1100])
def test_the_text_as_written_is_laid_out(count: int) -> None:
    data = _manifest(_stdlib(count))
    assert laid_out(data, *_section(data), read_layers(data))


@pytest.mark.parametrize("where", [0, 511, 512, 1099])
def test_one_changed_byte_in_any_piece_is_found(where: int) -> None:
    data = _manifest(_stdlib(1100))
    layers = read_layers(data)
    line = f'  ["m{where:05d}.py", '.encode()
    tampered = data.replace(line, line[:-1] + b"  ")  # two spaces after the comma: JSON reads the same
    assert tampered != data
    assert not laid_out(tampered, *_section(tampered), layers)


@pytest.mark.parametrize("where", [0, 700, 1099])
@pytest.mark.parametrize("raw", ['"', "\t"])
def test_a_path_json_would_escape_is_not_laid_out_in_any_piece(where: int, raw: str) -> None:
    stdlib = _stdlib(1100)
    stdlib[f"m{where:05d}{raw}.py"] = stdlib.pop(f"m{where:05d}.py")
    data = render_manifest(package={"name": "ablation", "sourceRevision": None}, distributions=[],
                           layers={"package": {}, "dependencies": {}, "stdlib": stdlib, "interpreter": {}},
                           local={})  # fmt: skip
    written = data.decode()
    assert '\\"' in written or "\\t" in written  # JSON escapes it; the raw form below is what a tamperer writes
    raw_data = written.replace('\\"', '"').replace("\\t", "\t").encode()
    raw_start, raw_end = _section(raw_data)
    layers = read_layers(raw_data)
    assert f"m{where:05d}{raw}.py" in layers["stdlib"]
    assert not laid_out(raw_data, raw_start, raw_end, layers)


def test_a_section_longer_than_its_layers_is_not_laid_out() -> None:
    data = _manifest(_stdlib(600))
    start, end = _section(data)
    layers = read_layers(data)
    assert laid_out(data, start, end, layers)
    assert not laid_out(data, start, end + 1, layers)
    assert not laid_out(data, start, end - 1, layers)
