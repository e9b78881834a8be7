"""The run-time check of the sealed closure (PRODUCT.md "Run-time check").

A *sealed* environment is one whose installed package holds a closure
manifest (:mod:`ablation.closure.manifest`). Before any evaluator module is
imported, :func:`require_sealed_closure` checks, in this order:

1. how the process was started (:mod:`ablation.closure.startup`): ``-IB``,
   no ``-O``, no bytecode cache prefix, no variable isolation does not cover,
   the console script as ``__main__``, the interpreter's own import machinery,
   ``sys.path`` inside the environment, no unlisted file at the top of the
   standard library;
2. ``site-packages`` holds exactly the files of the package and of the runtime
   distributions (no ``.pth`` file, no stray module, none missing), and every
   package file has its recorded SHA-256;
3. the console script and ``pyvenv.cfg`` (install folder normalised);
4. every file the process has loaded Python code from — sources, the bytecode
   that ran, extension modules, ``__main__`` — and every file behind an
   executable mapping in ``/proc/self/maps`` is a manifest file of its layer
   with the recorded SHA-256.

:func:`recheck` repeats step 4 for what was loaded since, just before an output
file is written. An *unsealed* development checkout is not checked (it runs
and says so), except that it may not shadow a sealed package installed in the
same environment, and that the container image is always sealed.

Two entry points, as for every trust check: :func:`check_closure` reports and
never raises on a failed check; :func:`require_sealed_closure` and
:func:`recheck` raise :class:`~ablation.errors.IntegrityError`.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterable, Mapping

from ablation.closure import verified
from ablation.closure.layout import (
    LOCAL_FILES,
    Layout,
    current_layout,
    list_files,
    loaded_files,
    mapped_executables,
    normalized_sha256,
    read_maps,
    sha256_file,
    walk_tree,
)
from ablation.closure.manifest import CLOSURE_MANIFEST, Manifest, ManifestUnusable, read_manifest
from ablation.closure.problem import Problem, raise_first
from ablation.closure.record import Record
from ablation.closure.startup import check_startup
from ablation.closure.system import mapped_inode_problems, proc_problems, system_problems
from ablation.errors import IntegrityError

__all__ = [
    "ClosureReport",
    "Problem",
    "check_closure",
    "closure_state",
    "package_files",
    "package_folder",
    "recheck",
    "require_sealed_closure",
    "sealed_manifest",
]

TYPE_CHECKING = False  # not typing's: the closure check's modules do not import typing (ablation.closure.record)
if TYPE_CHECKING:
    from typing import Literal

    ClosureState = Literal["sealed", "unsealed"]

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
"""The folder of the running ``ablation`` package (absolute, symlinks resolved)."""

# Files already found equal to the manifest in this process (absolute paths),
# so that recheck() only reads what was loaded or mapped since.
_VERIFIED: set[str] = set()


class ClosureReport(Record):
    """What :func:`check_closure` found.

    Attributes:
        state: ``sealed`` or ``unsealed``.
        problems: the problems, sorted by layer and path; empty when the closure holds.
    """

    state: ClosureState
    problems: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
        """Whether the closure holds (no problems)."""
        return not self.problems


def package_folder(package_dir: str | os.PathLike[str] | None) -> str:
    """The package folder as a ``str`` without a trailing ``/`` (:data:`PACKAGE_DIR` when ``None``).

    The check names files by the folder's last part and its parent, as ``pathlib`` did.
    """
    folder = os.fspath(package_dir or PACKAGE_DIR)
    return folder.rstrip("/") or "/"


def closure_state(package_dir: str | os.PathLike[str] | None = None) -> ClosureState:
    """``"sealed"`` when the package holds a closure manifest, else ``"unsealed"``."""
    return "sealed" if os.path.lexists(os.path.join(package_folder(package_dir), CLOSURE_MANIFEST)) else "unsealed"


def _started_closure(package_dir: str) -> verified.Closure | None:
    """The sealed start's closure when it is this package's (:mod:`ablation.closure.verified`)."""
    closure = verified.CLOSURE
    if closure is not None and closure.site == os.path.normpath(os.path.dirname(package_dir)):
        return closure
    return None


def sealed_manifest(package_dir: str | os.PathLike[str] = PACKAGE_DIR) -> Manifest:
    """The package's closure manifest, read once (raises :class:`ManifestUnusable`, exit 3, when unusable)."""
    return _sealed_manifest(package_folder(package_dir))


@functools.cache
def _sealed_manifest(package_dir: str) -> Manifest:
    """The package's closure manifest, read once (raises :class:`ManifestUnusable`, exit 3, when unusable).

    In a sealed start, from the bytes the start read, so that the identity and
    every check use the manifest whose layers the verified imports used.
    """
    manifest = os.path.join(package_dir, CLOSURE_MANIFEST)
    name = f"{os.path.basename(package_dir)}/{CLOSURE_MANIFEST}"
    if os.path.islink(manifest):
        raise ManifestUnusable(name, "is a symlink")
    closure = _started_closure(package_dir)
    if closure is None:
        return read_manifest(manifest, name)
    return read_manifest(manifest, name, closure.manifest, closure.layers)


def package_files(
    package_dir: str | os.PathLike[str] = PACKAGE_DIR, *, sealed: bool
) -> tuple[tuple[str, str, str | None], ...]:
    """Every entry below the package folder: ``(path, kind, sha256)``, sorted, read once (:func:`_package_files`)."""
    return _package_files(package_folder(package_dir), sealed=sealed)


@functools.cache
def _package_files(package_dir: str, *, sealed: bool) -> tuple[tuple[str, str, str | None], ...]:
    """Every entry below the package folder: ``(path, kind, sha256)``, sorted, read once.

    Sealed: bytecode included, the manifest left out. Unsealed: ``__pycache__``
    left out (a checkout's bytecode is whatever the last run wrote).
    """
    skip = frozenset({CLOSURE_MANIFEST}) if sealed else frozenset()
    return tuple((e.path, e.kind, e.sha256) for e in walk_tree(package_dir, skip_pycache=not sealed, skip_top=skip))


def _compare(path: str, layer: str, found: str, recorded: str | None) -> Problem | None:
    if recorded is None or found == recorded:
        return None
    return Problem(path, layer, f"changed (sha256 {found}, manifest {recorded})")


def _check_local_file(relative: str, layout: Layout, manifest: Manifest) -> Problem | None:
    """Compare the console script or ``pyvenv.cfg`` with the manifest, the install folder normalised.

    Raises:
        OSError: the file cannot be read.
    """
    layer = LOCAL_FILES[relative]
    local = manifest.local.get(relative)
    if local is None:
        return Problem(relative, layer, "is not in the closure manifest")
    with open(os.path.join(layout.prefix, relative), "rb") as stream:
        found = normalized_sha256(stream.read(), layout.prefix, name=relative)
    return _compare(relative, layer, found, local[1])


def _check_file(absolute: str, layout: Layout, manifest: Manifest) -> Problem | None:
    """Compare one loaded or mapped file with the manifest of its layer."""
    root, relative = layout.locate(absolute)
    if root == "prefix":
        return _check_local_file(relative, layout, manifest)
    layers = {"site": ("package", "dependencies"), "stdlib": ("stdlib",), "system": ("interpreter",)}[root]
    for layer in layers:
        if relative in manifest.layers[layer]:
            return _compare(relative, layer, sha256_file(absolute), manifest.layers[layer][relative])
    if root == "system" and absolute.endswith((".py", ".pyc")):
        return Problem(relative, "outside", "is outside the sealed environment")
    return Problem(relative, layers[-1], "is not in the closure manifest")


def _check_loaded(layout: Layout, manifest: Manifest, paths: Iterable[str]) -> list[Problem]:
    """Step 4 for the given absolute paths not verified yet; remembers the ones that hold.

    Files the sealed start's loaders ran from checked bytes are not read again:
    what ran is what was checked, whatever the file holds now.
    """
    closure = verified.CLOSURE
    ran = closure.verified if closure is not None else {}
    problems = []
    for path in paths:
        if path in _VERIFIED or path in ran:
            continue
        if path.endswith(" (deleted)"):
            problems.append(Problem(path[1:], "interpreter", "was deleted or replaced after it was mapped"))
            continue
        try:
            problem = _check_file(path, layout, manifest)
        except OSError as error:
            problem = Problem(layout.locate(path)[1], "interpreter", f"cannot be read ({error.strerror})")
        if problem is None:
            _VERIFIED.add(path)
        else:
            problems.append(problem)
    return problems


def _process_files(maps: str) -> list[str]:
    """Absolute paths of every file loaded as Python code or mapped executable, each once.

    The kernel names a mapping by its resolved path; an extension module that
    was imported through a symlink is checked under the path it was imported
    from (where its layer's manifest lists it), not again under its target.
    """
    loaded = {path for _, path in loaded_files()}
    resolved = {os.path.realpath(path) for path in loaded if not path.endswith((".py", ".pyc"))}
    return sorted(loaded | {path for path in mapped_executables(maps) if path not in resolved})


def _check_site(package_dir: str, manifest: Manifest) -> list[Problem]:
    """Step 2: site-packages holds exactly the owned files; the package's files are unchanged."""
    owned = {**manifest.layers["dependencies"], **manifest.layers["package"]}
    problems: list[Problem] = []
    seen: set[str] = set()
    name = os.path.basename(package_dir)
    manifest_rel = f"{name}/{CLOSURE_MANIFEST}"
    for relative, kind in list_files(os.path.dirname(package_dir) or "."):  # "ablation": its parent is "."
        if relative == manifest_rel:
            continue
        ours = relative.startswith((f"{name}/", f"{name}-"))
        layer = "package" if ours else "dependencies"
        seen.add(relative)
        if kind != "file":
            problems.append(Problem(relative, layer, "is not a regular file"))
        elif relative not in owned:
            pth = relative.endswith(".pth")
            stray = "runs code at every start (a .pth file)" if pth else "is owned by no runtime distribution"
            problems.append(Problem(relative, layer, stray))
    for layer in ("package", "dependencies"):
        problems.extend(
            Problem(path, layer, "is missing")
            for path in manifest.layers[layer]
            if not path.startswith("../") and path not in seen
        )
    recorded = manifest.layers["package"]
    for path, kind, sha in package_files(package_dir, sealed=True):
        if kind == "file" and sha is not None and path in recorded:
            problem = _compare(path, "package", sha, recorded[path])
            if problem is not None:
                problems.append(problem)
        elif kind == "other" and path in recorded:
            problems.append(Problem(path, "package", "could not be read: it changed while it was checked"))
    return problems


def _check_local(layout: Layout, manifest: Manifest) -> list[Problem]:
    """Step 3: the console script and pyvenv.cfg, with the install folder normalised."""
    problems = []
    for relative, layer in LOCAL_FILES.items():
        path = os.path.join(layout.prefix, relative)
        if relative not in manifest.local and not (relative == "pyvenv.cfg" and os.path.lexists(path)):
            continue  # no console script and no pyvenv.cfg where none was sealed (a Nix environment)
        try:
            problem = _check_local_file(relative, layout, manifest)
        except OSError:
            problem = Problem(relative, layer, "is missing")
        if problem is None:
            _VERIFIED.add(path)  # the console script, when it is __main__, is not read again
        else:
            problems.append(problem)
    return problems


def _check_shadow(package_dir: str) -> list[Problem]:
    """An unsealed package may not run where a sealed one is installed on the import path."""
    here, name = os.path.realpath(package_dir), os.path.basename(package_dir)
    for entry in sys.path:
        candidate = os.path.join(entry or ".", name)
        if os.path.isfile(os.path.join(candidate, CLOSURE_MANIFEST)) and os.path.realpath(candidate) != here:
            what = f"is sealed in {entry}, but this process imported {package_dir}"
            return [Problem(f"{name}/{CLOSURE_MANIFEST}", "shadow", what)]
    return []


def check_closure(
    package_dir: str | os.PathLike[str] | None = None, *, environ: Mapping[str, str] | None = None
) -> ClosureReport:
    """Run the whole check (steps 1–4, or the unsealed checks); never raises on a failed check."""
    package_dir = package_folder(package_dir)
    name = os.path.basename(package_dir)
    environ = os.environ if environ is None else environ
    state = closure_state(package_dir)
    if state == "unsealed":
        problems = _check_shadow(package_dir)
        if environ.get("ABLATION_ENVIRONMENT") == "container":
            missing = "is missing (the image is built sealed)"
            problems.append(Problem(f"{name}/{CLOSURE_MANIFEST}", "package", missing))
        return ClosureReport(state=state, problems=tuple(problems))
    try:
        manifest = sealed_manifest(package_dir)
    except ManifestUnusable as error:
        unusable = Problem(f"{name}/{CLOSURE_MANIFEST}", "package", error.why)
        return ClosureReport(state=state, problems=(unusable,))
    layout = current_layout(package_dir)
    maps = read_maps()
    try:
        problems = check_startup(layout, manifest, environ)
        problems += system_problems(layout, manifest, maps, environ)
        problems += _check_site(package_dir, manifest)
        problems += _check_local(layout, manifest)
        problems += _check_loaded(layout, manifest, _process_files(maps))
    except OSError as error:  # a folder or file of the closure removed or replaced while it was checked
        what = f"changed while the closure was checked ({error.strerror})"
        problems = [Problem(str(error.filename or "site-packages"), "package", what)]
    closure = verified.CLOSURE
    if closure is not None:
        closure.wait_for()  # the start's hashing thread has ended before any command works (or spawns)
    return ClosureReport(state=state, problems=tuple(sorted(dict.fromkeys(problems), key=Problem.order)))


def require_sealed_closure(
    package_dir: str | os.PathLike[str] | None = None, *, environ: Mapping[str, str] | None = None
) -> None:
    """Refuse to run from a sealed environment whose closure does not hold (a no-op when it holds).

    Raises:
        IntegrityError: ``closure: <file> <what differs> (layer <layer>); <remedy>``
            for the first problem (isolation, environment, then by layer and
            path), with the count of further problems. Exit code 3.
    """
    raise_first(check_closure(package_dir, environ=environ).problems)


def recheck(package_dir: str | os.PathLike[str] | None = None) -> None:
    """Step 4 again for every file loaded or mapped since the last check (sealed only).

    Called just before an output file is written, so modules imported late
    (the signature code of ``archive --sign-key``) are checked before their
    work is published.

    Raises:
        IntegrityError: as :func:`require_sealed_closure`.
    """
    package_dir = package_folder(package_dir)
    if closure_state(package_dir) == "unsealed":
        return
    manifest = sealed_manifest(package_dir)
    closure = verified.CLOSURE
    if closure is not None and closure.violations:  # refused by the verified loaders, and caught
        raise IntegrityError(closure.violations[0])
    maps = read_maps()
    problems = [problem for problem in proc_problems(maps, "-") if problem.path == "/proc/self/maps"]
    problems += mapped_inode_problems(maps)
    raise_first(problems + _check_loaded(current_layout(package_dir), manifest, _process_files(maps)))
