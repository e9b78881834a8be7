"""Hypothesis: the sealed start reads a manifest's layers in pieces exactly as one whole text would read.

:func:`ablation.closure.layerlines.read_layers` decodes and splits the layers 64 KiB at
a time, cut at line ends (decision 20). The reference below is the reading of the
whole text the start used before: every layer line, the last without its comma,
lines with a backslash left out, ``null`` entries last. Any bytes, any piece size.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ablation.closure import layerlines

_LAYERS = ("package", "dependencies", "stdlib", "interpreter")


def _whole_text_reading(data: bytes) -> dict[str, dict[str, str | None]]:
    text = data.decode("utf-8", "surrogateescape")
    layers: dict[str, dict[str, str | None]] = {}
    for layer in _LAYERS:
        header = f'\n  "{layer}": [\n'
        start = text.find(header)
        if start >= 0:
            start += len(header)
            lines = [line for line in text[start : text.find("\n  ]", start)].split("\n") if "\\" not in line]
            if lines:
                lines[-1] = lines[-1].removesuffix(",") + ","
            entries: dict[str, str | None] = {line[4:-71]: line[-67:-3] for line in lines if line[-3:] == '"],'}
            entries.update({line[4:-9]: None for line in lines if line[-9:] == '", null],'})
            layers[layer] = entries
        elif f'\n  "{layer}": []' in text:
            layers[layer] = {}
    return layers


def _ordered(layers: dict[str, dict[str, str | None]]) -> list[tuple[str, list[tuple[str, str | None]]]]:
    return [(layer, list(files.items())) for layer, files in layers.items()]


_PARTS = [b'  ["', b'"],\n', b'", "', b'", null],\n', b"0" * 64, b"a", b"\xc3\xa9", b"\xe9", b"\\", b"\n", b"  ]", b","]
_LINE = st.builds(
    lambda path, digest: b'  ["' + path + (b'", null]' if digest is None else b'", "' + digest + b'"]'),
    st.binary(max_size=6) | st.sampled_from([b"a.py", b"\xc3\xa9.py", b'q\\"', b"\xe9"]),
    st.none() | st.sampled_from([b"0" * 64, b"f" * 63]),
)
_BLOCK = st.lists(_LINE, max_size=12).map(b",\n".join) | st.lists(st.sampled_from(_PARTS), max_size=30).map(b"".join)


@example(  # the last line holds a backslash: the one before it, in another piece, is the last entry
    blocks=[b'  ["p", "' + b"0" * 64 + b'"]\n  ["q\\\\", "' + b"1" * 64 + b'"]'], closed=[True] * 4, piece=1
)
@given(
    blocks=st.lists(_BLOCK, min_size=1, max_size=4),
    closed=st.lists(st.booleans(), min_size=4, max_size=4),
    piece=st.sampled_from([1, 2, 5, 40, 1 << 16]),
)
def test_pieces_read_as_the_whole_text(blocks: list[bytes], closed: list[bool], piece: int) -> None:
    data = b'{\n "layers": {\n'
    for layer, block, ends in zip(_LAYERS, blocks, closed, strict=False):
        data += f'  "{layer}": [\n'.encode() + block + (b"\n  ],\n" if ends else b"")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(layerlines, "PIECE", piece)
        assert _ordered(layerlines.read_layers(data)) == _ordered(_whole_text_reading(data))
