"""The closure manifest: the file written at sealing that lists every file of every layer.

Format ``ablation-closure/4`` (a JSON object, written by
:func:`render_manifest`, read by :func:`read_manifest`)::

    {"format": "ablation-closure/4",
     "package": {"name": "ablation", "sourceRevision": "<commit>" | "<commit>-dirty" | null},
     "distributions": [[name, version], ...],        # the runtime lock's pins as installed
     "environment": "venv" | "container" | "nix" | "other",
     "layers": {"package": [[path, sha256 | null], ...], "dependencies": [...],
                "stdlib": [...], "interpreter": [...]},
     "local": [[path, layer, normalized sha256], ...],
     "trees": [[root, path, kind], ...],             # root: prefix | site | stdlib
     "absent": [path, ...]}                          # relative to /

Paths are relative to the layer's root (:mod:`ablation.closure.layout`) and
sorted by their UTF-8 bytes. A ``null`` hash marks a file a distribution owns
whose bytes depend on the install folder and that never executes
(``RECORD``, ``INSTALLER``, ``REQUESTED``, ``direct_url.json``): it must be
there, its bytes are not compared, and it stays out of the layer digest.
``local`` lists the console script and ``pyvenv.cfg`` relative to
``sys.prefix``, hashed with the install folder replaced by ``{prefix}``;
they are checked but stay out of the layer digests too. Nothing in the
manifest names the install folder, so its digest (``manifestDigest``) and the
layer digests depend on the lock, the interpreter and the package only.

``package.sourceRevision`` is the git commit the package was built from,
``-dirty`` when its files are not exactly that commit's, ``null`` when sealing
was given no source tree (:mod:`ablation.closure.source`).
``environment`` is the kind of environment sealed (``container`` when the image
build says so, else measured when sealing). ``trees`` lists every entry below the three folder
roots that is not a file of a layer — folders (``dir``), files no layer holds (``file``: the
venv's activation scripts), symbolic links and other entries (``link``, ``other``), and folders
inventoried on their own or left out (``skip``) — so that the run-time check and
``tools/closure-check.sh`` can tell any added file or folder. ``absent`` lists
the ``sys.path`` entries that did not exist when sealing (``python311.zip``):
they must stay absent. The line layout (one entry per line) is part of the
format: the sealed start reads the layers without a JSON parser
(:func:`ablation.closure.layerlines.read_layers`, taken only when exactly as written), and awk.

Layer digest (``closure.layers.<layer>.digest``): ``sha256:`` and the SHA-256 of the lines
``<sha256 hex>  <path>\\n`` of the layer's hashed files in path order — the ``sha256sum``
format, so a reviewer can recompute it from the manifest with standard tools.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from types import MappingProxyType

from ablation import PACKAGE_NAME
from ablation.closure import LAYERS
from ablation.closure.layerlines import laid_out
from ablation.closure.record import Record
from ablation.errors import IntegrityError

__all__ = [
    "CLOSURE_MANIFEST",
    "ENVIRONMENT_KINDS",
    "LOCK_COPY",
    "MANIFEST_FORMAT",
    "TREE_KINDS",
    "TREE_ROOTS",
    "Manifest",
    "ManifestUnusable",
    "canonical_name",
    "is_source_revision",
    "layer_digest",
    "read_lock_pins",
    "read_manifest",
    "render_manifest",
]

CLOSURE_MANIFEST = "CLOSURE.json"
"""File name of the closure manifest, at the top of the installed package."""

LOCK_COPY = "requirements.lock"
"""File name of the runtime lock copied into the installed package when sealing."""

MANIFEST_FORMAT = "ablation-closure/4"

TREE_ROOTS = ("prefix", "site", "stdlib")
TREE_KINDS = ("dir", "file", "link", "other", "skip")
ENVIRONMENT_KINDS = ("container", "nix", "venv", "other")

_PIN_RE = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)")


def canonical_name(name: str) -> str:
    """A distribution name as PEP 503 normalises it.

    >>> canonical_name("PyProject_Hooks")
    'pyproject-hooks'
    """
    return re.sub(r"[-_.]+", "-", name).lower()


def read_lock_pins(text: str) -> list[tuple[str, str]]:
    """The ``name==version`` pins of a pip-compile lock, by normalised name, sorted.

    >>> read_lock_pins("Foo_Bar==1.0 \\\\\\n    --hash=sha256:ab\\n    # via x\\nbaz==2\\n")
    [('baz', '2'), ('foo-bar', '1.0')]
    """
    pins = {}
    for line in text.splitlines():
        match = _PIN_RE.match(line)
        if match:
            pins[canonical_name(match.group(1))] = match.group(2)
    return sorted(pins.items())


_DIGEST_LINES = 512
"""Lines of a layer digest's text made and hashed at a time (:func:`layer_digest`)."""


def _path_order(path: str) -> bytes:
    return path.encode("utf-8", "surrogateescape")


def layer_digest(files: Mapping[str, str | None]) -> tuple[str, int]:
    """The digest and the count of a layer's hashed files (``None`` hashes left out).

    Files are in the order of their paths' UTF-8 bytes; for ASCII paths (every path of a
    usual closure) that is the order of the strings, so no bytes are made to sort them.
    The lines are hashed :data:`_DIGEST_LINES` at a time: the text of a whole layer
    (8,000 lines for the standard library) would be new memory at every start.

    >>> layer_digest({"b": "2" * 64, "a": "1" * 64, "c": None})[1]
    2
    """
    paths = [path for path, sha in files.items() if sha is not None]
    if all(map(str.isascii, paths)):
        paths.sort()
    else:
        paths.sort(key=_path_order)
    digest = hashlib.sha256()
    for first in range(0, len(paths), _DIGEST_LINES):
        text = "".join([f"{files[path]}  {path}\n" for path in paths[first : first + _DIGEST_LINES]])
        digest.update(text.encode("utf-8", "surrogateescape"))
    return "sha256:" + digest.hexdigest(), len(paths)


class Manifest(Record):
    """A parsed closure manifest.

    Attributes:
        layers: layer name → relative path → bare hex SHA-256, or ``None``
            for an owned file whose bytes are not compared.
        local: path relative to ``sys.prefix`` → ``(layer, normalized SHA-256)``.
        distributions: ``(name, version)`` of each runtime distribution, as sealed.
        digest: ``sha256:`` raw digest of the manifest file's bytes (``manifestDigest``).
        environment: the kind of environment sealed (:data:`ENVIRONMENT_KINDS`).
        trees: root → path relative to it → kind, for every entry that is not a layer's file.
        absent: paths relative to ``/`` that must not exist.
        source_revision: ``package.sourceRevision``: the commit the package was built from
            (``-dirty`` when its files differ from that commit's), ``None`` when unknown.
    """

    layers: Mapping[str, Mapping[str, str | None]]
    local: Mapping[str, tuple[str, str]]
    distributions: tuple[tuple[str, str], ...]
    digest: str
    environment: str = "other"
    trees: Mapping[str, Mapping[str, str]] = MappingProxyType({})
    absent: tuple[str, ...] = ()
    source_revision: str | None = None

    def layer_summary(self) -> dict[str, dict[str, str | int]]:
        """``closure.layers`` of the identity: ``{layer: {"digest", "fileCount"}}`` in :data:`LAYERS` order."""
        summary: dict[str, dict[str, str | int]] = {}
        for layer in LAYERS:
            digest, count = layer_digest(self.layers[layer])
            summary[layer] = {"digest": digest, "fileCount": count}
        return summary


def render_manifest(
    *,
    package: Mapping[str, str | None],
    distributions: list[tuple[str, str]],
    layers: Mapping[str, Mapping[str, str | None]],
    local: Mapping[str, tuple[str, str]],
    environment: str = "other",
    trees: Mapping[str, Mapping[str, str]] | None = None,
    absent: tuple[str, ...] = (),
) -> bytes:
    """The manifest file's bytes: one entry per line, every list sorted, UTF-8, final newline."""
    lines = [
        "{",
        f' "format": {json.dumps(MANIFEST_FORMAT)},',
        f' "package": {json.dumps(dict(package), ensure_ascii=False, sort_keys=True)},',
        f' "distributions": {json.dumps(sorted([n, v] for n, v in distributions))},',
        f' "environment": {json.dumps(environment)},',
        ' "layers": {',
    ]
    for index, layer in enumerate(LAYERS):
        entries = sorted(layers[layer].items(), key=lambda e: _path_order(e[0]))
        body = ",\n".join(f"  {json.dumps([path, sha], ensure_ascii=False)}" for path, sha in entries)
        closing = "]," if index < len(LAYERS) - 1 else "]"
        lines.append(f'  "{layer}": [\n{body}\n  {closing}' if entries else f'  "{layer}": [{closing}')
    lines.append(" },")
    local_entries = sorted([path, layer, sha] for path, (layer, sha) in local.items())
    lines.append(f' "local": {json.dumps(local_entries, ensure_ascii=False)},')
    tree_entries = sorted(
        ([root, path, kind] for root, entries in (trees or {}).items() for path, kind in entries.items()),
        key=lambda e: (TREE_ROOTS.index(e[0]), _path_order(e[1])),
    )
    body = ",\n".join(f"  {json.dumps(entry, ensure_ascii=False)}" for entry in tree_entries)
    lines.append(f' "trees": [\n{body}\n ],' if tree_entries else ' "trees": [],')
    lines.append(f' "absent": {json.dumps(sorted(absent, key=_path_order), ensure_ascii=False)}')
    lines.append("}")
    return ("\n".join(lines) + "\n").encode("utf-8")


class ManifestUnusable(IntegrityError):
    """The closure manifest cannot be used (exit 3); ``why`` says what is wrong with it."""

    def __init__(self, name: str, why: str) -> None:
        super().__init__(f"closure: {name} {why}; rebuild the environment (make venv) or the image")
        self.why = why


def _fail(name: str, why: str) -> ManifestUnusable:
    return ManifestUnusable(name, why)


_HEX_RE = re.compile(r"[0-9a-f]{64}")
_REVISION_RE = re.compile(r"(?:[0-9a-f]{40}|[0-9a-f]{64})(?:-dirty)?")
_HEX_DIGITS = b"0123456789abcdef"


def is_source_revision(value: object) -> bool:
    """Whether ``value`` is a source revision: a git commit id, optionally followed by ``-dirty``.

    >>> is_source_revision("a" * 40), is_source_revision("a" * 64 + "-dirty"), is_source_revision("A" * 40)
    (True, True, False)
    """
    return isinstance(value, str) and _REVISION_RE.fullmatch(value) is not None


def _is_hex(value: object) -> bool:
    return isinstance(value, str) and _HEX_RE.fullmatch(value) is not None


def _file_bytes(path: str | os.PathLike[str]) -> bytes:
    with open(path, "rb") as stream:
        return stream.read()


def read_manifest(
    path: str | os.PathLike[str],
    name: str,
    data: bytes | None = None,
    layers: Mapping[str, dict[str, str | None]] | None = None,
) -> Manifest:
    """Read and check the shape of a closure manifest.

    Args:
        path: the manifest file.
        name: how messages name it (e.g. ``ablation/CLOSURE.json``).
        data: its bytes when already read (the sealed start reads them once), else read here.
        layers: its layers as the sealed start read them (:func:`ablation.closure.layerlines.read_layers`),
            taken when the layer lines are exactly as written for them (:func:`_parsed`).

    Raises:
        ManifestUnusable: ``closure: <name> …`` when the file cannot be read,
            is not JSON, is of another format or has a malformed entry.
    """
    try:
        data = _file_bytes(path) if data is None else data
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        document, layers = _parsed(name, data, digest, layers)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise _fail(name, f"is not a readable closure manifest ({type(error).__name__})") from None
    if not isinstance(document, dict) or document.get("format") != MANIFEST_FORMAT:
        raise _fail(name, f"is not a closure manifest of format {MANIFEST_FORMAT}")
    layers = _read_layers(name, document.get("layers")) if layers is None else layers
    local_entries = document.get("local")
    if not isinstance(local_entries, list) or not all(
        isinstance(e, list) and len(e) == 3 and isinstance(e[0], str) and e[1] in LAYERS and _is_hex(e[2])
        for e in local_entries
    ):
        raise _fail(name, "has a malformed local list")
    distributions = document.get("distributions")
    if not isinstance(distributions, list) or not all(
        isinstance(d, list) and len(d) == 2 and all(isinstance(x, str) for x in d) for d in distributions
    ):
        raise _fail(name, "has a malformed distributions list")
    source_revision = _read_package(name, document.get("package"))
    environment = document.get("environment")
    if environment not in ENVIRONMENT_KINDS:
        raise _fail(name, f"does not name the environment it sealed (one of {', '.join(ENVIRONMENT_KINDS)})")
    return Manifest(
        layers=layers,
        local={path: (layer, sha) for path, layer, sha in local_entries},
        distributions=tuple((n, v) for n, v in distributions),
        digest=digest,
        environment=environment,
        trees=_read_trees(name, document.get("trees")),
        absent=_read_absent(name, document.get("absent")),
        source_revision=source_revision,
    )


def _parsed(
    name: str, data: bytes, digest: str, layers: Mapping[str, dict[str, str | None]] | None
) -> tuple[object, dict[str, dict[str, str | None]] | None]:
    """The document, and the start's layers when they are the manifest's (``None``: the document's are).

    They are when their lines are exactly what :func:`render_manifest` writes for them (no escape,
    :func:`ablation.closure.layerlines.laid_out`); only the rest is then parsed, the file's own digest
    (no file can hold it) in their place: the parser keeps it only if these lines are ``layers``.
    """
    start, end = data.find(b'\n "layers": {\n'), data.find(b'\n },\n "local": ')
    if layers is None or start < 0 or end < start or data.find(b"\\", start, end) >= 0:
        return json.loads(data.decode("utf-8")), None
    if not data.isascii():  # the layers, most of the file, are neither decoded again nor copied
        data.decode("utf-8")  # UnicodeDecodeError for bytes that are not UTF-8, as when all is parsed
    document = json.loads((data[:start] + f'\n "layers": "{digest}",'.encode() + data[end + 4 :]).decode())
    checked = _checked_layers(name, layers)
    if isinstance(document, dict) and document.get("layers") == digest and laid_out(data, start + 14, end, checked):
        return document, checked
    return json.loads(data.decode("utf-8")), None


def _read_package(name: str, package: object) -> str | None:
    """``package``: ``{"name": "ablation", "sourceRevision": <revision> | null}``; the revision."""
    if (
        not isinstance(package, dict)
        or sorted(package) != ["name", "sourceRevision"]
        or package["name"] != PACKAGE_NAME
        or not (package["sourceRevision"] is None or is_source_revision(package["sourceRevision"]))
    ):
        raise _fail(name, "has a malformed package member")
    revision: str | None = package["sourceRevision"]
    return revision


def _read_layers(name: str, raw_layers: object) -> dict[str, dict[str, str | None]]:
    """``layers`` parsed as JSON: four lists of ``[path, sha256 | null]``."""
    if not isinstance(raw_layers, dict) or sorted(raw_layers) != sorted(LAYERS):
        raise _fail(name, f"does not list the layers {', '.join(LAYERS)}")
    layers: dict[str, dict[str, str | None]] = {}
    for layer in LAYERS:
        entries = raw_layers[layer]
        if not isinstance(entries, list) or not all(
            isinstance(e, list) and len(e) == 2 and isinstance(e[0], str) and (e[1] is None or _is_hex(e[1]))
            for e in entries
        ):
            raise _fail(name, f"has a malformed {layer} layer")
        layers[layer] = dict(entries)
    return layers


def _checked_layers(name: str, layers: Mapping[str, dict[str, str | None]]) -> dict[str, dict[str, str | None]]:
    """Layers the sealed start read: the four of them, every digest 64 lowercase hex digits.

    Each digest 64 characters long; then a layer's digests joined, :data:`_DIGEST_LINES` at a time:
    ASCII, and nothing left once the hex digits are deleted (``bytes.translate``, several times faster
    than a regular expression).
    """
    if sorted(layers) != sorted(LAYERS):
        raise _fail(name, f"does not list the layers {', '.join(LAYERS)}")
    for layer in LAYERS:
        digests = [sha for sha in layers[layer].values() if sha is not None]
        if set(map(len, digests)) - {64} or not _all_hex(digests):
            raise _fail(name, f"has a malformed {layer} layer")
    return dict(layers)


def _all_hex(digests: list[str]) -> bool:
    for first in range(0, len(digests), _DIGEST_LINES):
        joined = "".join(digests[first : first + _DIGEST_LINES])
        if not joined.isascii() or joined.encode().translate(None, _HEX_DIGITS):
            return False
    return True


def _read_trees(name: str, entries: object) -> dict[str, dict[str, str]]:
    """``trees``: root → path → kind (raises :class:`ManifestUnusable` when malformed)."""
    if not isinstance(entries, list) or not all(
        isinstance(e, list) and len(e) == 3 and e[0] in TREE_ROOTS and isinstance(e[1], str) and e[2] in TREE_KINDS
        for e in entries
    ):
        raise _fail(name, "has a malformed trees list")
    trees: dict[str, dict[str, str]] = {root: {} for root in TREE_ROOTS}
    for root, path, kind in entries:
        trees[root][path] = kind
    return trees


def _read_absent(name: str, entries: object) -> tuple[str, ...]:
    """``absent``: paths relative to ``/`` (raises :class:`ManifestUnusable` when malformed)."""
    if not isinstance(entries, list) or not all(isinstance(e, str) and e for e in entries):
        raise _fail(name, "has a malformed absent list")
    return tuple(entries)
