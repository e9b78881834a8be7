"""The closure manifest's layers as the sealed start reads them: by their line layout, without a JSON parser.

:func:`read_layers` is what :mod:`ablation.closure.verified` checks every import
against. The console script runs this module from its checked bytecode, with
:mod:`ablation.closure.boot` and :mod:`ablation.closure.verified`, before any other
file is read, and imports nothing at all. The run-time check then reads the
rest of the manifest as JSON and takes these layers when no layer line holds a
JSON escape and the layer lines are exactly what the manifest writes for these
layers (:func:`laid_out`, :func:`ablation.closure.manifest.read_manifest`).
"""

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is a file, read before any check
if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["PIECE", "laid_out", "read_layers", "written_plain"]

_LAYERS = ("package", "dependencies", "stdlib", "interpreter")

PIECE = 1 << 16
"""Bytes of layer lines decoded and cut into lines at a time (64 KiB, cut at a line end)."""


def read_layers(data: bytes) -> dict[str, dict[str, str | None]]:
    r"""The four layers of a closure manifest, read as ``render_manifest`` lays them out (no JSON parser).

    A layer is a block of lines ``  ["<path>", "<64 hex>"],`` (``null`` for an
    unhashed file; no comma after the last), so path and digest are cut from each
    line by position: the sealed start pays no parser for thousands of entries.
    Lines holding a backslash (a JSON escape) are left out: no importable module
    has one in its name (the run-time check then reads the manifest as JSON and
    compares, :func:`ablation.closure.manifest.read_manifest`).

    The bytes are decoded (``surrogateescape``) and cut into lines :data:`PIECE` bytes
    at a time, at line ends: decoding and splitting the whole file at once made
    about 3 MB of new memory at every start, a page fault per 4 KiB.

    >>> text = b' "layers": {\n  "package": [\n  ["a.py", "' + b"a" * 64 + b'"],\n  ["R", null]\n  ],\n'
    >>> read_layers(text)["package"] == {"a.py": "a" * 64, "R": None}
    True
    """
    layers: dict[str, dict[str, str | None]] = {}
    for layer in _LAYERS:
        header = f'\n  "{layer}": [\n'.encode()
        start = data.find(header)
        if start >= 0:
            start += len(header)
            layers[layer] = _read_block(data, start, data.find(b"\n  ]", start))
        elif f'\n  "{layer}": []'.encode() in data:
            layers[layer] = {}
    return layers


def _pieces(data: bytes, start: int, end: int) -> "Iterator[str]":
    """``data[start:end]`` decoded, in pieces cut at line ends (``end`` -1: to the last character but one)."""
    if end < 0:  # no closing line: what a text slice [start:-1] of the whole file held
        yield data[start:].decode("utf-8", "surrogateescape")[:-1]
        return
    view = memoryview(data)
    while (cut := data.find(b"\n", start + PIECE, end) if start + PIECE < end else -1) >= 0:
        yield str(view[start:cut], "utf-8", "surrogateescape")
        start = cut + 1
    yield str(view[start:end], "utf-8", "surrogateescape")


def _read_block(data: bytes, start: int, end: int) -> dict[str, str | None]:
    """The entries of a layer's lines, ``null`` entries last. The last line without a backslash is held back
    until another follows: it is the block's last entry, which has no comma."""
    entries: dict[str, str | None] = {}
    unhashed: dict[str, str | None] = {}
    held: list[str] = []
    for piece in _pieces(data, start, end):
        lines = piece.split("\n")
        if "\\" in piece:
            lines = [line for line in lines if "\\" not in line]
        if lines:
            _read_lines(held + lines[:-1], entries, unhashed)
            held = lines[-1:]
    if held:
        _read_lines([held[0].removesuffix(",") + ","], entries, unhashed)
    entries.update(unhashed)
    return entries


def _read_lines(lines: list[str], entries: dict[str, str | None], unhashed: dict[str, str | None]) -> None:
    found = {line[4:-71]: line[-67:-3] for line in lines if line[-3:] == '"],'}
    entries.update(found)
    if len(found) < len(lines):
        unhashed.update({line[4:-9]: None for line in lines if line[-9:] == '", null],'})


_ESCAPED_BY_JSON = dict.fromkeys([*range(0x20), ord('"'), ord("\\")])
"""What JSON writes escaped (``render_manifest``, ``ensure_ascii=False``): a control character, a quote, a
backslash. A layer line holding one has a backslash, and :func:`read_layers` leaves it out."""

_LINES = 512
"""Entries of a layer rendered and compared at a time (:func:`laid_out`)."""


def written_plain(text: str) -> bool:
    """Whether JSON writes ``text`` without an escape, so that its layer line holds no backslash.

    >>> written_plain("encodings/utf_8.py"), written_plain('a"b'), written_plain("tab\\there")
    (True, False, False)
    """
    return len(text.translate(_ESCAPED_BY_JSON)) == len(text)


def laid_out(data: bytes, start: int, end: int, layers: dict[str, dict[str, str | None]]) -> bool:
    """Whether ``data[start:end]`` is exactly the text ``render_manifest`` writes for ``layers``, no path escaped.

    ``data[start:end]`` is what lies between the manifest's ``"layers": {`` line and its ``},`` line.
    When it holds, parsing it as JSON gives ``layers`` (no line skipped, none read twice, no
    member the line reader does not see), so the run-time check may take the start's reading
    (:func:`ablation.closure.manifest.read_manifest`); otherwise it parses the whole file.
    A layer without ``null`` entries is compared in the order read (the file's); one with them,
    in path order (the reader put them last). The text is made and compared :data:`_LINES`
    entries at a time, against the file's bytes where they lie (no copy of them).
    """
    if tuple(layers) != _LAYERS:
        return False
    at = start
    for piece in _rendered(layers):
        if piece is None or at + len(piece) > end or not data.startswith(piece, at):
            return False
        at += len(piece)
    return at == end


def _rendered(layers: dict[str, dict[str, str | None]]) -> "Iterator[bytes | None]":
    """The text ``render_manifest`` writes for ``layers``, in pieces; ``None`` for a path it would escape."""
    for index, (layer, files) in enumerate(layers.items()):
        closing, after = ("],", "\n") if index < len(_LAYERS) - 1 else ("]", "")
        if not files:
            yield f'  "{layer}": [{closing}{after}'.encode()
            continue
        entries = list(files.items())
        if None in files.values():
            entries.sort(key=lambda entry: entry[0].encode("utf-8", "surrogateescape"))
        yield f'  "{layer}": [\n'.encode()
        for first in range(0, len(entries), _LINES):
            chunk = entries[first : first + _LINES]
            if not written_plain("".join([path for path, _ in chunk])):
                yield None
                return
            text = ",\n".join([f'  ["{p}", null]' if h is None else f'  ["{p}", "{h}"]' for p, h in chunk])
            end = ",\n" if first + _LINES < len(entries) else f"\n  {closing}{after}"
            yield (text + end).encode("utf-8", "surrogateescape")
