"""The evaluator's executable identity (PRODUCT.md "evaluator (executable identity)").

The identity is the one environment-dependent member of the output file::

    {"measured": {"package", "closure", "lock", "interpreter", "platform", "environment"},
     "asserted": {"imageDigest", "baseImage"},
     "identityDigest": D(measured)}

*Measured* values come from the files this process runs from; *asserted*
values are what the caller says and we cannot check (the image ID, the base
image reference). Only ``measured`` enters ``identityDigest``. No absolute
path appears anywhere except ``environment.nixStorePath``.

Sealed (the package holds a closure manifest, :mod:`ablation.closure`): the
layer digests and the distributions' versions are read from the manifest,
which the run-time check (:mod:`ablation.closure.check`) has compared with
every file the process loaded, so every command of one environment records
the same identity. Unsealed (a development checkout): the layers are measured
from what this process has loaded and mapped so far.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from collections.abc import Mapping

from ablation import PACKAGE_NAME
from ablation.canonical import canonical_digest
from ablation.closure import LAYERS
from ablation.closure.check import closure_state, package_files, package_folder, sealed_manifest
from ablation.closure.layout import current_layout, loaded_files, mapped_executables, read_maps, sha256_file
from ablation.closure.manifest import LOCK_COPY, layer_digest, read_lock_pins
from ablation.closure.problem import REMEDY, Problem, raise_first
from ablation.errors import IntegrityError, UsageError

__all__ = [
    "environment_kind",
    "evaluator_identity",
    "measure",
    "platform_member",
    "python_version",
    "source_revision",
    "version_text",
]

_NIX_STORE = "/nix/store/"


def environment_kind(
    *,
    sealed: str | None = None,
    prefix: str | None = None,
    base_prefix: str | None = None,
) -> dict[str, str | None]:
    """The ``environment`` member: how this interpreter was provided, measured, never read from a variable.

    Sealed (``sealed`` is the kind the closure manifest records, which the
    run-time check holds against the process's own folder): that kind —
    ``container`` for the image, whose build seals it so. Unsealed: ``nix`` when
    ``sys.prefix`` is below ``/nix/store``, ``venv`` when ``sys.prefix !=
    sys.base_prefix``, otherwise ``other``. ``nixStorePath`` is the store path
    of a ``nix`` prefix. ``ABLATION_ENVIRONMENT`` is never read here; the check
    refuses a value that contradicts the sealed kind.

    >>> environment_kind(prefix="/nix/store/abc-python3-3.11.9/x", base_prefix="/p")
    {'kind': 'nix', 'nixStorePath': '/nix/store/abc-python3-3.11.9'}
    >>> environment_kind(prefix="/w/.venv", base_prefix="/usr")
    {'kind': 'venv', 'nixStorePath': None}
    >>> environment_kind(sealed="container", prefix="/opt/ablation", base_prefix="/opt/ablation")
    {'kind': 'container', 'nixStorePath': None}
    """
    prefix = sys.prefix if prefix is None else prefix
    base_prefix = sys.base_prefix if base_prefix is None else base_prefix
    if sealed is None:
        if prefix.startswith(_NIX_STORE):
            sealed = "nix"
        else:
            sealed = "venv" if prefix != base_prefix else "other"
    store_path = None
    if sealed == "nix" and prefix.startswith(_NIX_STORE):
        store_path = _NIX_STORE + prefix[len(_NIX_STORE) :].split("/", 1)[0]
    return {"kind": sealed, "nixStorePath": store_path}


def _executable(*, sealed: bool) -> str:
    """The binary the kernel started (``/proc/self/exe``), whatever ``argv[0]`` said.

    Raises:
        IntegrityError: sealed, and ``/proc/self/exe`` cannot be read (exit 3; never ``sys.executable``).
    """
    exe = "/proc/self/exe"
    if os.path.exists(exe):
        return exe
    if sealed:
        raise IntegrityError("closure: /proc/self/exe cannot be read; " + REMEDY["system"])
    return os.path.realpath(sys.executable)


def python_version() -> str:
    """The interpreter's version as ``platform.python_version()`` spells it (``"3.11.7"``).

    That is the first word of ``sys.version``, with ``.0`` added when it has two
    parts. Read here, not through :mod:`platform`, whose import compiles nine
    regular expressions at every start (the identity is measured at every run).
    A test compares the two.
    """
    version = sys.version.split(None, 1)[0]
    return f"{version}.0" if version.count(".") == 1 else version


def platform_member() -> dict[str, str]:
    """``measured.platform``: the kernel's name and machine as ``platform.system()`` and ``platform.machine()``
    give them, read from ``os.uname()`` as those functions do on Linux (a test compares them)."""
    name = os.uname()
    return {"system": name.sysname, "machine": name.machine}


def _interpreter(*, sealed: bool) -> dict[str, object]:
    """Implementation, version, SHA-256 of the running binary, and whether it runs isolated (``-I``)."""
    return {
        "implementation": sys.implementation.name,
        "version": python_version(),
        "executableSha256": sha256_file(_executable(sealed=sealed)),
        "isolated": bool(sys.flags.isolated),
    }


def _changed_since_check(package_dir: str, files: list[list[str]]) -> list[Problem]:
    """Sealed: the package files just hashed that are not the manifest's, byte for byte.

    The run-time check compared the package folder with the manifest before any evaluator
    module ran; this walk comes later. A file that appeared, changed or went away in between
    (a watcher swapping a ``.pyc`` through a temporary, a re-seal while a run is going) would
    otherwise enter ``filesDigest`` unchecked, and one environment would record two identities.
    """
    prefix = f"{os.path.basename(package_dir)}/"
    recorded = {
        path: sha for path, sha in sealed_manifest(package_dir).layers["package"].items() if path.startswith(prefix)
    }
    found: dict[str, str] = dict(files)
    problems = [
        Problem(path, "package", "appeared while the evaluator ran (it is not in the closure manifest)")
        for path in found
        if path not in recorded
    ]
    problems += [
        Problem(path, "package", f"changed while the evaluator ran (sha256 {found[path]}, manifest {recorded[path]})")
        for path in found
        if path in recorded and found[path] != recorded[path]
    ]
    problems += [
        Problem(path, "package", "went away while the evaluator ran") for path in recorded if path not in found
    ]
    return problems


def _package_member(package_dir: str, *, sealed: bool, revision: str | None) -> dict[str, object]:
    """``package``: name, source revision, and the digest of ``[[path, sha256], …]`` of the package folder.

    Raises:
        IntegrityError: sealed, and the folder is no longer the one the run-time check compared with
            the closure manifest (exit 3).
    """
    files = [
        [path, sha]
        for path, kind, sha in package_files(package_dir, sealed=sealed)
        if sha is not None and (kind == "file" or not sealed)
    ]
    if sealed:
        raise_first(_changed_since_check(package_dir, files))
    digest = canonical_digest(files)
    return {"name": PACKAGE_NAME, "sourceRevision": revision, "filesDigest": digest, "fileCount": len(files)}


def _loaded_layers(package_dir: str) -> dict[str, dict[str, object]]:
    """Unsealed: the layers of what this process has loaded and mapped so far (package: the folder)."""
    layout = current_layout(package_dir)
    layers: dict[str, dict[str, str | None]] = {layer: {} for layer in LAYERS}
    for path, kind, sha in package_files(package_dir, sealed=False):
        if kind != "other":
            layers["package"][path] = sha
    paths = {path for _, path in loaded_files()} | set(mapped_executables(read_maps()))
    inside = package_dir + os.sep
    for path in sorted(paths):
        if path.startswith(inside) or path.endswith(" (deleted)") or not os.path.isfile(path):
            continue
        root, relative = layout.locate(path)
        layer = {"site": "dependencies", "stdlib": "stdlib", "prefix": "package", "system": "interpreter"}[root]
        layers[layer][relative] = sha256_file(path)
    summary: dict[str, dict[str, object]] = {}
    for layer in LAYERS:
        digest, count = layer_digest(layers[layer])
        summary[layer] = {"digest": digest, "fileCount": count}
    return summary


def _lock_path(package_dir: str, *, sealed: bool) -> str | None:
    """Sealed: the lock copy in the package. Unsealed: the checkout's ``requirements.lock``, if any."""
    copied = os.path.join(package_dir, LOCK_COPY)
    if sealed or os.path.isfile(copied):
        return copied
    repository = os.path.dirname(package_dir)
    if os.path.isfile(os.path.join(repository, "pyproject.toml")) and os.path.isfile(
        os.path.join(repository, LOCK_COPY)
    ):
        return os.path.join(repository, LOCK_COPY)
    return None


def _installed_version(name: str) -> str | None:
    # Unsealed only: importlib.metadata pulls in email, csv and zipfile, about 30 ms a start that
    # a sealed run (whose versions are in the manifest) need not pay.
    from importlib import metadata  # noqa: PLC0415

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _lock_member(lock: str | None, versions: Mapping[str, str] | None) -> dict[str, object]:
    """``{"sha256", "distributions"}``: the lock's digest and each pin's installed version.

    ``versions`` are the sealed versions (from the manifest); unsealed, they are
    looked up with :mod:`importlib.metadata`.
    """
    if lock is None or not os.path.isfile(lock):
        return {"sha256": None, "distributions": []}
    with open(lock, "rb") as stream:
        data = stream.read()
    pins = read_lock_pins(data.decode("utf-8", errors="replace"))
    return {
        "sha256": hashlib.sha256(data).hexdigest(),
        "distributions": [
            {"name": name, "version": versions.get(name) if versions is not None else _installed_version(name)}
            for name, _ in pins
        ],
    }


def measure(
    package_dir: str | os.PathLike[str] | None = None, *, environ: Mapping[str, str] | None = None
) -> dict[str, object]:
    """The ``measured`` object of the identity (not cached).

    Args:
        package_dir: the installed package folder (default: the one running).
        environ: unused (the environment's kind is measured, never read from a variable).

    Raises:
        IntegrityError: a sealed package whose manifest cannot be used (exit 3).
    """
    del environ
    package_dir = package_folder(package_dir)
    sealed = closure_state(package_dir) == "sealed"
    if sealed:
        manifest = sealed_manifest(package_dir)
        closure: dict[str, object] = {
            "state": "sealed",
            "manifestDigest": manifest.digest,
            "layers": manifest.layer_summary(),
        }
        versions: Mapping[str, str] | None = dict(manifest.distributions)
        environment = environment_kind(sealed=manifest.environment)
        revision = manifest.source_revision
    else:
        closure = {"state": "unsealed", "manifestDigest": None, "layers": _loaded_layers(package_dir)}
        versions = None
        environment = environment_kind()
        revision = None
    return {
        "package": _package_member(package_dir, sealed=sealed, revision=revision),
        "closure": closure,
        "lock": _lock_member(_lock_path(package_dir, sealed=sealed), versions),
        "interpreter": _interpreter(sealed=sealed),
        "platform": platform_member(),
        "environment": environment,
    }


def _asserted(name: str) -> str | None:
    """The environment variable ``name`` as an asserted member; ``None`` when unset or empty.

    Raises:
        UsageError: the value is not UTF-8 text, so no results file could record it (exit 2).
    """
    value = os.environ.get(name) or None
    if value is not None and not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            shown = value.encode("utf-8", "surrogateescape")
            msg = f"{name} is not UTF-8 text: {shown!r}"
            raise UsageError(msg) from None
    return value


@functools.cache
def _cached_identity() -> str:
    """The identity as JSON text: measured once; each caller gets its own copy parsed from it."""
    measured = measure()
    identity = {
        "measured": measured,
        "asserted": {
            "imageDigest": _asserted("ABLATION_IMAGE_DIGEST"),
            "baseImage": _asserted("ABLATION_BASE_IMAGE"),
        },
        "identityDigest": canonical_digest(measured),
    }
    return json.dumps(identity, ensure_ascii=False)


def evaluator_identity() -> dict[str, object]:
    """The PRODUCT.md ``evaluator`` object for this process (measured once, then cached).

    Returns:
        ``{"measured": {...}, "asserted": {...}, "identityDigest": "sha256:…"}``,
        a fresh copy on every call (parsed from the cached JSON text);
        ``identityDigest`` is the canonical digest (SPEC §3) of ``measured`` only.
    """
    copy: dict[str, object] = json.loads(_cached_identity())
    return copy


def source_revision(package_dir: str | os.PathLike[str] | None = None) -> str | None:
    """The source revision sealing recorded (``package.sourceRevision``); ``None`` when unknown or unsealed.

    Raises:
        IntegrityError: a sealed package whose manifest cannot be used (exit 3).
    """
    package_dir = package_folder(package_dir)
    if closure_state(package_dir) != "sealed":
        return None
    return sealed_manifest(package_dir).source_revision


def version_text(program: str, package_dir: str | os.PathLike[str] | None = None) -> str:
    """What ``--version`` prints: the program and the source revision it was built from.

    ``<program> <commit>``, ``<program> <commit>-dirty`` (the package files differ
    from that commit's), or a parenthesis saying why there is no revision: sealed
    without a git checkout, or an unsealed development checkout, whose files are
    whatever is on disk. ablation has no release version number
    (docs/decisions/0017-source-revision.md).
    """
    package_dir = package_folder(package_dir)
    if closure_state(package_dir) != "sealed":
        return f"{program} (unsealed: a development checkout; no source revision)"
    try:
        revision = sealed_manifest(package_dir).source_revision
    except IntegrityError as error:
        return f"{program} (source revision unreadable: {error})"
    if revision is None:
        return f"{program} (source revision unknown: sealed without a git checkout)"
    return f"{program} {revision}"
