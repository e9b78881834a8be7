"""The evaluator's executable identity and its sealed closure (PRODUCT.md "evaluator").

The identity is the one environment-dependent member of the output file::

    {"measured": {"package", "closure", "lock", "interpreter", "platform", "environment"},
     "asserted": {"imageDigest", "baseImage"},
     "identityDigest": D(measured)}

*Measured* values are read from the files this process runs from; *asserted*
values are what the caller says and we cannot check (the container image
digest, the base image reference). Only ``measured`` enters ``identityDigest``.
No absolute path appears anywhere except ``environment.nixStorePath``.

A *sealed* environment is one whose installed ``ablation`` package holds a
closure manifest (:data:`CLOSURE_MANIFEST`) written at build time by
:func:`seal_package` (run by ``tools/seal.py`` from the Dockerfile and the
Makefile): the list of every package file with its SHA-256, bytecode
included, beside a copy of the ``requirements.lock`` the environment was built
from (:data:`LOCK_COPY`). :func:`require_sealed_closure` re-checks both at
start-up. A development checkout has no manifest: it is *unsealed*, runs, and
says so.

Two entry points, as for every trust check (STYLE.md §4.9):
:func:`check_closure` reports and never raises on a failed check;
:func:`require_sealed_closure` raises :class:`~ablation.errors.IntegrityError`.
"""

from __future__ import annotations

import compileall
import copy
import functools
import hashlib
import json
import os
import platform
import py_compile
import re
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Literal

from ablation import PACKAGE_NAME, __version__
from ablation.canonical import canonical_digest, raw_digest
from ablation.errors import IntegrityError

__all__ = [
    "CLOSURE_MANIFEST",
    "LOCK_COPY",
    "MANIFEST_FORMAT",
    "ClosureReport",
    "check_closure",
    "closure_state",
    "environment_kind",
    "evaluator_identity",
    "measure",
    "package_files",
    "read_lock_pins",
    "require_sealed_closure",
    "seal_package",
]

CLOSURE_MANIFEST = "CLOSURE.json"
"""File name of the closure manifest, at the top of the installed package (excluded from itself)."""

LOCK_COPY = "requirements.lock"
"""File name of the lock copied into the installed package at build time."""

MANIFEST_FORMAT = "ablation-closure/1"

ClosureState = Literal["sealed", "unsealed"]

_PACKAGE_DIR = Path(__file__).resolve().parent
_PYCACHE = "__pycache__"
_CHUNK = 1 << 20
_PIN_RE = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)")
_NIX_STORE = "/nix/store/"


def _sha256_file(path: Path) -> str:
    """Bare hex SHA-256 of a file's bytes, read in chunks (follows symlinks)."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _canonical_name(name: str) -> str:
    """A distribution name as PEP 503 normalises it.

    >>> _canonical_name("PyProject_Hooks")
    'pyproject-hooks'
    """
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True, slots=True, kw_only=True)
class _Entry:
    """One directory entry below the package folder.

    ``kind`` is ``file`` (a regular file), ``symlink`` (a symbolic link to a
    file or a folder) or ``other`` (a fifo, socket or device). ``sha256`` is the
    hex digest of the content a ``file`` (or a ``symlink`` to a regular file)
    reads as, otherwise ``None``.
    """

    path: str
    kind: Literal["file", "symlink", "other"]
    sha256: str | None


def _walk(package_dir: Path, *, sealed: bool) -> list[_Entry]:
    """Every entry below ``package_dir``, sorted by relative path (``<package>/<sub>/<file>``).

    Args:
        package_dir: the package folder.
        sealed: ``True`` to include ``__pycache__`` (compiled at build time) and
            leave out the closure manifest; ``False`` for a development
            checkout, where ``__pycache__`` is whatever the last run wrote.

    Symbolic links are never followed into folders; a symlinked folder is one
    ``symlink`` entry.
    """
    entries: list[_Entry] = []
    top = package_dir.name
    for root, dirs, files in os.walk(package_dir, followlinks=False):
        here = Path(root)
        rel_root = here.relative_to(package_dir).as_posix()
        prefix = top if rel_root == "." else f"{top}/{rel_root}"
        if not sealed:
            dirs[:] = [d for d in dirs if d != _PYCACHE]
        for name in dirs:
            if (here / name).is_symlink():
                entries.append(_Entry(path=f"{prefix}/{name}", kind="symlink", sha256=None))
        for name in files:
            if sealed and rel_root == "." and name == CLOSURE_MANIFEST:
                continue
            path = here / name
            if path.is_symlink():
                sha = _sha256_file(path) if path.is_file() else None
                entries.append(_Entry(path=f"{prefix}/{name}", kind="symlink", sha256=sha))
            elif path.is_file():
                entries.append(_Entry(path=f"{prefix}/{name}", kind="file", sha256=_sha256_file(path)))
            else:
                entries.append(_Entry(path=f"{prefix}/{name}", kind="other", sha256=None))
    entries.sort(key=lambda e: e.path)
    return entries


def package_files(package_dir: Path | None = None, *, sealed: bool | None = None) -> list[list[str]]:
    """The sorted ``[relative path, sha256 hex]`` list that ``filesDigest`` is taken over.

    In a development checkout ``__pycache__`` is left out and a symlink to a
    file counts as that file; in a sealed package bytecode is included and the
    manifest is not (a symlink there is a closure error, not a file).

    Args:
        package_dir: the package folder (default: the one this module runs from).
        sealed: override the detected closure state.

    Returns:
        ``[[path, hex], ...]`` sorted by path; paths start with the package name.
    """
    package_dir = package_dir or _PACKAGE_DIR
    if sealed is None:
        sealed = closure_state(package_dir) == "sealed"
    return [
        [e.path, e.sha256]
        for e in _walk(package_dir, sealed=sealed)
        if e.sha256 is not None and (e.kind == "file" or not sealed)
    ]


def read_lock_pins(text: str) -> list[tuple[str, str]]:
    """The ``name==version`` pins of a pip-compile lock, by normalised name.

    >>> read_lock_pins("Foo_Bar==1.0 \\\\\\n    --hash=sha256:ab\\n    # via x\\nbaz==2\\n")
    [('baz', '2'), ('foo-bar', '1.0')]
    """
    pins = {}
    for line in text.splitlines():
        match = _PIN_RE.match(line)
        if match:
            pins[_canonical_name(match.group(1))] = match.group(2)
    return sorted(pins.items())


def _installed_version(name: str) -> str | None:
    """The installed version of a distribution visible on ``sys.path``, or ``None``."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def closure_state(package_dir: Path | None = None) -> ClosureState:
    """``"sealed"`` when the package holds a closure manifest, else ``"unsealed"``."""
    manifest = (package_dir or _PACKAGE_DIR) / CLOSURE_MANIFEST
    return "sealed" if manifest.exists() or manifest.is_symlink() else "unsealed"


def _lock_path(package_dir: Path, state: ClosureState) -> Path | None:
    """The lock this environment was built from.

    Sealed: the copy inside the package. Unsealed: that copy if present, else
    the repository's ``requirements.lock`` beside ``pyproject.toml`` (a
    development checkout), else ``None``.
    """
    copied = package_dir / LOCK_COPY
    if state == "sealed" or copied.is_file():
        return copied
    repository = package_dir.parent
    if (repository / "pyproject.toml").is_file() and (repository / LOCK_COPY).is_file():
        return repository / LOCK_COPY
    return None


def environment_kind(
    *,
    environ: Mapping[str, str] | None = None,
    prefix: str | None = None,
    base_prefix: str | None = None,
) -> dict[str, str | None]:
    """The ``environment`` member: how this interpreter was provided.

    ``container`` when ``ABLATION_ENVIRONMENT=container`` (the Dockerfile sets
    it); ``nix`` when ``sys.prefix`` is below ``/nix/store`` (``nixStorePath``
    is that store path); ``venv`` when ``sys.prefix != sys.base_prefix``;
    otherwise ``other``.

    >>> environment_kind(environ={}, prefix="/nix/store/abc-python3-3.11.9/x", base_prefix="/p")
    {'kind': 'nix', 'nixStorePath': '/nix/store/abc-python3-3.11.9'}
    >>> environment_kind(environ={}, prefix="/w/.venv", base_prefix="/usr")
    {'kind': 'venv', 'nixStorePath': None}
    """
    environ = os.environ if environ is None else environ
    prefix = sys.prefix if prefix is None else prefix
    base_prefix = sys.base_prefix if base_prefix is None else base_prefix
    if environ.get("ABLATION_ENVIRONMENT") == "container":
        return {"kind": "container", "nixStorePath": None}
    if prefix.startswith(_NIX_STORE):
        store_item = prefix[len(_NIX_STORE) :].split("/", 1)[0]
        return {"kind": "nix", "nixStorePath": _NIX_STORE + store_item}
    if prefix != base_prefix:
        return {"kind": "venv", "nixStorePath": None}
    return {"kind": "other", "nixStorePath": None}


def _interpreter() -> dict[str, str]:
    """The running interpreter: implementation, version, SHA-256 of ``/proc/self/exe``.

    ``/proc/self/exe`` is the binary the kernel started, whatever ``argv[0]``
    said; where there is no ``/proc`` the resolved ``sys.executable`` stands in.
    """
    exe = Path("/proc/self/exe")
    if not exe.exists():
        exe = Path(os.path.realpath(sys.executable))
    return {
        "implementation": sys.implementation.name,
        "version": platform.python_version(),
        "executableSha256": _sha256_file(exe),
    }


def _lock_member(lock: Path | None) -> dict[str, object]:
    """``{"sha256", "distributions"}``: the lock's digest and each pin's installed version."""
    if lock is None or not lock.is_file():
        return {"sha256": None, "distributions": []}
    data = lock.read_bytes()
    pins = read_lock_pins(data.decode("utf-8", errors="replace"))
    return {
        "sha256": hashlib.sha256(data).hexdigest(),
        "distributions": [{"name": name, "version": _installed_version(name)} for name, _ in pins],
    }


def measure(package_dir: Path | None = None, *, environ: Mapping[str, str] | None = None) -> dict[str, object]:
    """The ``measured`` object of the identity (not cached).

    Args:
        package_dir: the installed package folder (default: the one this module runs from).
        environ: the environment variables (default ``os.environ``).

    Side effects: reads every package file, the lock and the interpreter binary.
    """
    package_dir = package_dir or _PACKAGE_DIR
    state = closure_state(package_dir)
    files = package_files(package_dir, sealed=state == "sealed")
    manifest = package_dir / CLOSURE_MANIFEST
    manifest_digest = raw_digest(manifest.read_bytes()) if state == "sealed" and manifest.is_file() else None
    return {
        "package": {
            "name": PACKAGE_NAME,
            "version": __version__,
            "filesDigest": canonical_digest(files),
            "fileCount": len(files),
        },
        "closure": {"state": state, "manifestDigest": manifest_digest},
        "lock": _lock_member(_lock_path(package_dir, state)),
        "interpreter": _interpreter(),
        "platform": {"system": platform.system(), "machine": platform.machine()},
        "environment": environment_kind(environ=environ),
    }


@functools.cache
def _cached_identity() -> dict[str, object]:
    measured = measure()
    return {
        "measured": measured,
        "asserted": {
            "imageDigest": os.environ.get("ABLATION_IMAGE_DIGEST") or None,
            "baseImage": os.environ.get("ABLATION_BASE_IMAGE") or None,
        },
        "identityDigest": canonical_digest(measured),
    }


def evaluator_identity() -> dict[str, object]:
    """The PRODUCT.md ``evaluator`` object for this process (measured once, then cached).

    Returns:
        ``{"measured": {...}, "asserted": {...}, "identityDigest": "sha256:…"}``,
        a fresh copy on every call; ``identityDigest`` is the canonical digest
        (SPEC §3) of ``measured`` only.
    """
    return copy.deepcopy(_cached_identity())


@dataclass(frozen=True, slots=True, kw_only=True)
class ClosureReport:
    """What :func:`check_closure` found.

    Attributes:
        state: ``sealed`` or ``unsealed``.
        problems: one ``<relative file> <what differs>`` line per problem,
            sorted by file; empty when the closure holds (always empty when
            unsealed outside a container).
    """

    state: ClosureState
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def _read_manifest(manifest: Path) -> tuple[dict[str, str] | None, str | None]:
    """Parse the manifest into ``{path: sha256}``, or return why it cannot be used."""
    try:
        document = json.loads(manifest.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        return None, f"is not a readable closure manifest ({type(error).__name__})"
    if not isinstance(document, dict) or document.get("format") != MANIFEST_FORMAT:
        return None, f"is not a closure manifest of format {MANIFEST_FORMAT}"
    files = document.get("files")
    if not isinstance(files, list) or not all(
        isinstance(f, list) and len(f) == 2 and all(isinstance(x, str) for x in f) for f in files
    ):
        return None, "has no valid files list"
    return {path: sha for path, sha in files}, None


def _pin_problems(lock: Path) -> list[str]:
    """Every lock pin that is not installed at its pinned version."""
    rel = f"{lock.parent.name}/{lock.name}"
    problems = []
    for name, pinned in read_lock_pins(lock.read_text(encoding="utf-8")):
        installed = _installed_version(name)
        if installed is None:
            problems.append(f"{rel} pins {name}=={pinned}, which is not installed")
        elif installed != pinned:
            problems.append(f"{rel} pins {name}=={pinned}, but {installed} is installed")
    return problems


def check_closure(
    package_dir: Path | None = None, *, environ: Mapping[str, str] | None = None
) -> ClosureReport:
    """Compare the installed package with its closure manifest and the lock pins.

    Steps (PRODUCT.md "closure", "lock"):

    1. No manifest: ``unsealed``. That is a problem only when the environment
       says it is the container image, which is always built sealed.
    2. The manifest is a regular file in the expected format.
    3. Every entry below the package is a regular file (no symlinks, no
       devices) listed in the manifest with the same SHA-256; every listed
       file exists.
    4. The lock copy is present and each pin is installed at its version.

    Never raises on a failed check (see :func:`require_sealed_closure`).
    """
    package_dir = package_dir or _PACKAGE_DIR
    state = closure_state(package_dir)
    top = package_dir.name
    manifest_rel = f"{top}/{CLOSURE_MANIFEST}"
    if state == "unsealed":
        if environment_kind(environ=environ)["kind"] == "container":
            return ClosureReport(state=state, problems=(f"{manifest_rel} is missing (the image is built sealed)",))
        return ClosureReport(state=state, problems=())
    manifest = package_dir / CLOSURE_MANIFEST
    if manifest.is_symlink():
        return ClosureReport(state=state, problems=(f"{manifest_rel} is a symlink",))
    expected, why = _read_manifest(manifest)
    if expected is None:
        return ClosureReport(state=state, problems=(f"{manifest_rel} {why}",))
    found: dict[str, str] = {}
    for entry in _walk(package_dir, sealed=True):
        if entry.kind == "symlink":
            found[entry.path] = "is a symlink"
        elif entry.kind == "other":
            found[entry.path] = "is not a regular file"
        elif entry.path not in expected:
            found[entry.path] = "is extra (not in the closure manifest)"
        elif entry.sha256 != expected[entry.path]:
            found[entry.path] = f"changed (sha256 {entry.sha256}, manifest {expected[entry.path]})"
        else:
            found[entry.path] = ""
    problems = {path: what for path, what in found.items() if what}
    for path in expected.keys() - found.keys():
        problems[path] = "is missing"
    lock = package_dir / LOCK_COPY
    lock_rel = f"{top}/{LOCK_COPY}"
    if lock_rel not in expected and lock_rel not in problems:
        problems[lock_rel] = "is missing (a sealed package carries the lock it was built from)"
    lines = [f"{path} {problems[path]}" for path in sorted(problems)]
    if lock_rel not in problems:
        lines.extend(_pin_problems(lock))
    return ClosureReport(state=state, problems=tuple(lines))


def require_sealed_closure(
    package_dir: Path | None = None, *, environ: Mapping[str, str] | None = None
) -> None:
    """Refuse to run from a sealed environment whose closure does not hold.

    A no-op for an unsealed development checkout.

    Raises:
        IntegrityError: ``closure: <relative file> <what differs>`` for the
            first problem in path order (a changed, missing, extra or
            symlinked package file, or a lock pin installed at another
            version or not at all), with the count of further problems.
    """
    report = check_closure(package_dir, environ=environ)
    if report.problems:
        more = len(report.problems) - 1
        suffix = f" (and {more} more closure problem{'s' if more > 1 else ''})" if more else ""
        raise IntegrityError(f"closure: {report.problems[0]}{suffix}")


def seal_package(package_dir: Path, lock: Path) -> Path:
    """Seal an installed package at build time: lock copy, bytecode, closure manifest.

    1. Remove an old manifest; copy ``lock`` into the package as :data:`LOCK_COPY`.
    2. Compile every module to bytecode with file names relative to the
       package's parent and hash-based invalidation, so the bytecode depends
       neither on the build time nor on the install folder. ``UNCHECKED_HASH``:
       the interpreter runs this bytecode without re-reading the sources, so
       what runs is what was sealed, and an edited source cannot change (or
       break) the imports that precede the closure check, which then names it.
    3. Write :data:`CLOSURE_MANIFEST`: every file below the package with its
       SHA-256, sorted, the manifest itself excluded.

    Args:
        package_dir: the installed package folder (e.g. ``…/site-packages/ablation``).
        lock: the ``requirements.lock`` the environment was installed from.

    Returns:
        The manifest's path.

    Raises:
        IntegrityError: a symlink or special file inside the package, or a
            module that does not compile.

    Side effects: writes into ``package_dir``.
    """
    manifest = package_dir / CLOSURE_MANIFEST
    if manifest.exists() or manifest.is_symlink():
        manifest.unlink()
    shutil.copyfile(lock, package_dir / LOCK_COPY)
    compiled = compileall.compile_dir(
        package_dir,
        quiet=1,
        force=True,
        stripdir=str(package_dir.parent),
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
    )
    if not compiled:
        msg = f"closure: {package_dir.name} does not compile"
        raise IntegrityError(msg)
    entries = _walk(package_dir, sealed=True)
    for entry in entries:
        if entry.kind != "file":
            msg = f"closure: {entry.path} is a {entry.kind}, which a sealed package may not hold"
            raise IntegrityError(msg)
    document = {
        "format": MANIFEST_FORMAT,
        "package": {"name": PACKAGE_NAME, "version": __version__},
        "files": [[e.path, e.sha256] for e in entries],
    }
    manifest.write_text(
        json.dumps(document, indent=2, ensure_ascii=False, separators=(",", ": ")) + "\n",
        encoding="utf-8",
    )
    return manifest
