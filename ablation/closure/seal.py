"""Sealing: write the closure manifest of an installed environment at build time.

Run once per environment, by ``tools/seal.py`` with the environment's own
interpreter, right after the runtime lock's distributions and the package
were installed (``--no-compile``)::

    <prefix>/bin/python -I -B tools/seal.py --lock requirements.lock

:func:`seal_environment` then

1. copies the lock into the package and checks every pin against the
   installed version as PEP 440 versions (``packaging.version``);
2. compiles the bytecode of the package and of every runtime distribution,
   hash-based and unchecked (``py_compile.PycInvalidationMode.UNCHECKED_HASH``),
   with file names relative to ``site-packages``: it depends neither on the
   build time nor on the install folder, and the interpreter runs it without
   re-reading the sources, so what runs is what was sealed;
3. refuses a ``site-packages`` file that neither the package nor a runtime
   distribution owns (owned = listed in its ``RECORD``, or bytecode compiled
   in step 2 from an owned source): a stray module, a ``.pth`` file;
4. writes the console scripts ``bin/ablation`` and ``bin/ablation-prepare``
   (:data:`CONSOLE_SCRIPTS`) that start the interpreter ``-IBS`` and run the
   sealed bytecode of :mod:`ablation.closure.boot`, :mod:`ablation.closure.layerlines`
   and :mod:`ablation.closure.verified` once it matches the SHA-256 written into them;
5. lists the four layers (:mod:`ablation.closure`): the package, the
   dependencies, the standard library tree (symlinked files by their
   target's bytes; ``site-packages``/``dist-packages`` inside it left out),
   and the interpreter — the executable and the shared objects ``ldd``
   resolves for it and for every extension module of the other layers;
6. writes the manifest (:mod:`ablation.closure.manifest`), with the source
   revision (:mod:`ablation.closure.source`: the commit of the source tree handed
   in, ``-dirty`` unless the installed package files are exactly its files;
   ``null`` without one), the kind of environment sealed (``--environment container`` from the image build, else
   measured), the whole-tree inventories of the venv, ``site-packages`` and the
   standard library (:mod:`ablation.closure.trees`), and the ``sys.path``
   entries absent now (``python311.zip``), which must stay absent.
"""

from __future__ import annotations

import importlib.util
import os
import py_compile
import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from ablation import PACKAGE_NAME
from ablation.closure import LAYERS
from ablation.closure.layout import LOCAL_FILES, current_layout, normalized_sha256, sha256_file, walk_tree
from ablation.closure.manifest import CLOSURE_MANIFEST, LOCK_COPY, canonical_name, read_lock_pins, render_manifest
from ablation.closure.source import installed_sources, parse_source_tree, source_revision
from ablation.closure.trees import collect_tree
from ablation.errors import IntegrityError

__all__ = ["CONSOLE_SCRIPT", "CONSOLE_SCRIPTS", "SealReport", "ldd_closure", "seal_environment"]

CONSOLE_SCRIPT = """#!@PYTHON@ -IBS
# The @COMMAND@ command of this sealed environment, written when it was sealed (tools/seal.py).
# -I: no PYTHON* variables, user site or current folder; -B: no bytecode written; -S: no site
# module, so no sitecustomize runs. It runs the sealed bytecode of ablation/closure/boot.py,
# layerlines.py and verified.py once its SHA-256 matches the values below, and nothing else;
# boot starts the interpreter again with the environment it defines and checks the closure
# (docs/explanation/identity.md; docs/explanation/threat-model.md).
import sys

COMMAND = "@COMMAND@"
PREFIX = "@PREFIX@"
SITE = "@SITE@"
MODULES = (
    ("ablation.closure.boot", "@BOOT@", "@BOOT_SHA256@"),
    ("ablation.closure.layerlines", "@LINES@", "@LINES_SHA256@"),
    ("ablation.closure.verified", "@VERIFIED@", "@VERIFIED_SHA256@"),
)


def _refuse(what):
    sys.stderr.write(f"{COMMAND}: closure: {what} (layer package); rebuild the environment (make venv) or the image\\n")
    sys.exit(3)


def _load():
    try:
        from _sha256 import sha256
    except ImportError as error:
        _refuse(f"the interpreter's _sha256 module cannot be imported ({error})")
    import marshal

    for name, relative, expected in MODULES:
        try:
            with open(f"{SITE}/{relative}", "rb") as stream:
                data = stream.read()
        except OSError as error:
            _refuse(f"{relative} cannot be read ({error.strerror})")
        found = sha256(data).hexdigest()
        if found != expected:
            _refuse(f"{relative} changed (sha256 {found}, console script {expected})")
        module = type(sys)(name)
        module.__file__ = f"{SITE}/{relative}"
        module.__sealed_sha256__ = found
        sys.modules[name] = module
        exec(marshal.loads(memoryview(data)[16:]), module.__dict__)
    return sha256


try:
    _sha256 = _load()
except KeyboardInterrupt:  # before boot holds the signals: the same one line as its own
    sys.stderr.write(f"{COMMAND}: interrupted by SIGINT; stopped "
                     "(an output file is written completely or not at all)\\n")
    sys.exit(130)
sys.exit(sys.modules["ablation.closure.boot"].start(PREFIX, SITE, _sha256, "script", COMMAND))
"""
"""The console script. ``@COMMAND@`` is replaced by its name; ``@PYTHON@``, ``@PREFIX@`` and ``@SITE@``
by the environment's ``bin/python``, folder and ``site-packages``; ``@BOOT@``/``@LINES@``/``@VERIFIED@``
by the sealed bytecode of the three start-up modules (relative to ``site-packages``) and ``@…_SHA256@`` by
its SHA-256."""

CONSOLE_SCRIPTS = ("ablation", "ablation-prepare")
"""The commands sealing writes a console script for (``bin/<command>``): the evaluator's, and
preparation's (PREPARE.md §2); :data:`ablation.closure.boot.COMMANDS` names each one's ``main``."""

START_MODULES = ("ablation/closure/boot.py", "ablation/closure/layerlines.py", "ablation/closure/verified.py")
"""The modules the console script runs from their checked bytecode (``@BOOT@``, ``@LINES@``, ``@VERIFIED@``)."""

_LOCATION_DEPENDENT = frozenset({"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"})
_SOURCE_SUFFIX = ".py"
_EXTENSION_SUFFIX = ".so"
_OTHER_SITES = frozenset({"site-packages", "dist-packages"})


@dataclass(frozen=True, slots=True)
class SealReport:
    """What :func:`seal_environment` wrote: the manifest's path, the file count of each layer, the source revision."""

    manifest: Path
    counts: dict[str, int]
    source_revision: str | None = None


def _distributions(site: Path, lock: Path) -> list[metadata.Distribution]:
    """The lock's distributions installed in ``site``, each at its pinned version (PEP 440 equality)."""
    from packaging.version import InvalidVersion, Version  # noqa: PLC0415 - sealing only, not at run time

    installed = {canonical_name(d.metadata["Name"]): d for d in metadata.distributions(path=[str(site)])}
    problems, found = [], []
    for name, pinned in read_lock_pins(lock.read_text(encoding="utf-8")):
        dist = installed.get(name)
        if dist is None:
            problems.append(f"{LOCK_COPY} pins {name}=={pinned}, which is not installed")
            continue
        try:
            same = Version(dist.version) == Version(pinned)
        except InvalidVersion:
            same = False
        if not same:
            problems.append(f"{LOCK_COPY} pins {name}=={pinned}, but {dist.version} is installed")
        found.append(dist)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise IntegrityError(f"closure: {problems[0]}{more}")
    return found


def _owned(dist: metadata.Distribution) -> list[str]:
    """The files a distribution's ``RECORD`` lists, relative to ``site-packages`` (normalised)."""
    return [os.path.normpath(str(f)).replace(os.sep, "/") for f in dist.files or ()]


def _compile(site: Path, sources: list[str]) -> list[str]:
    """Compile each owned source to unchecked hash-based bytecode; the bytecode files' relative paths."""
    written = []
    for relative in sources:
        source = site / relative
        cached = Path(importlib.util.cache_from_source(str(source)))
        try:
            py_compile.compile(
                str(source),
                cfile=str(cached),
                dfile=relative,
                doraise=True,
                invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
            )
        except py_compile.PyCompileError as error:
            raise IntegrityError(f"closure: {relative} does not compile ({error.exc_type_name})") from None
        written.append(cached.relative_to(site).as_posix())
    return written


def _site_layers(
    site: Path, package: metadata.Distribution, dependencies: list[metadata.Distribution]
) -> dict[str, dict[str, str | None]]:
    """Steps 2–3: the ``package`` and ``dependencies`` layers of ``site-packages``."""
    owner: dict[str, str] = {f"{PACKAGE_NAME}/{LOCK_COPY}": "package"}  # written by sealing
    for layer, dists in (("dependencies", dependencies), ("package", [package])):
        for dist in dists:
            for relative in _owned(dist):
                if not relative.startswith("../") and not relative.endswith(".pyc"):
                    owner[relative] = layer
    sources = sorted(p for p in owner if p.endswith(_SOURCE_SUFFIX) and (site / p).is_file())
    for compiled in _compile(site, sources):
        owner[compiled] = owner[importlib.util.source_from_cache(compiled)]
    layers: dict[str, dict[str, str | None]] = {"package": {}, "dependencies": {}}
    for entry in walk_tree(site, skip_pycache=False):
        relative = entry.path.split("/", 1)[1]
        if relative == f"{PACKAGE_NAME}/{CLOSURE_MANIFEST}":
            continue
        if entry.kind != "file":
            msg = f"closure: site-packages/{relative} is a {entry.kind}, which a sealed environment may not hold"
            raise IntegrityError(msg)
        owning = owner.get(relative)
        if owning is None:
            pth = relative.endswith(".pth")
            kind = "a .pth file, which runs code at every start" if pth else "owned by no runtime distribution"
            raise IntegrityError(f"closure: site-packages/{relative} is {kind}; remove it and seal again")
        local = relative.rsplit("/", 1)[-1] in _LOCATION_DEPENDENT and ".dist-info/" in relative
        layers[owning][relative] = None if local else entry.sha256
    return layers


def _stdlib_layer(stdlib: Path) -> dict[str, str | None]:
    """The standard library tree, every regular file (symlinked files by their target's bytes)."""
    files: dict[str, str | None] = {}
    for root, dirs, names in os.walk(stdlib, followlinks=False):
        here = Path(root)
        if here == stdlib:
            dirs[:] = [d for d in dirs if d not in _OTHER_SITES]
        for name in names:
            path = here / name
            if path.is_file():
                files[path.relative_to(stdlib).as_posix()] = sha256_file(path)
    return files


def ldd_closure(objects: list[str]) -> list[str]:
    """The resolved paths of every shared object ``ldd`` lists for the given executables and libraries.

    Raises:
        IntegrityError: ``ldd`` is missing, fails, or a needed library is not found.
    """
    ldd = shutil.which("ldd")
    if ldd is None:
        raise IntegrityError("closure: ldd is not installed; sealing needs it to list the interpreter's shared objects")
    found: set[str] = set()
    for start in range(0, len(objects), 200):
        batch = objects[start : start + 200]
        completed = subprocess.run(
            [ldd, *batch], capture_output=True, text=True, check=False, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"}
        )
        for line in completed.stdout.splitlines():
            if not line.startswith("\t"):
                continue
            text = line.strip()
            if "=> not found" in text:
                raise IntegrityError(f"closure: a shared object is not found: {text}")
            target = text.split("=> ", 1)[1] if "=> " in text else text
            path = target.split(" (0x", 1)[0].strip()
            if path.startswith("/"):
                found.add(os.path.realpath(path))
    return sorted(found)


def _interpreter_layer(executable: str, extensions: list[str], exclude: set[str]) -> dict[str, str | None]:
    """The executable and the shared-object closure of it and of the extension modules."""
    files: dict[str, str | None] = {}
    for path in [executable, *ldd_closure([executable, *extensions])]:
        if path not in exclude:
            files[path.lstrip("/")] = sha256_file(path)
    return files


def _require_own_site_only(prefix: Path) -> None:
    """A venv that includes the system ``site-packages`` would run its ``.pth`` files at every start."""
    config = prefix / "pyvenv.cfg"
    if not config.is_file():
        return
    for line in config.read_text(encoding="utf-8", errors="replace").splitlines():
        key, _, value = line.partition("=")
        if key.strip().lower() == "include-system-site-packages" and value.strip().lower() != "false":
            msg = "closure: pyvenv.cfg includes the system site-packages; a sealed environment holds only its own"
            raise IntegrityError(msg)


def _write_console_scripts(prefix: Path, site: Path, package: dict[str, str | None]) -> None:
    values = {"@PYTHON@": str(prefix / "bin" / "python"), "@PREFIX@": str(prefix), "@SITE@": str(site)}
    for source, key in zip(START_MODULES, ("@BOOT@", "@LINES@", "@VERIFIED@"), strict=True):
        compiled = Path(importlib.util.cache_from_source(source)).as_posix()
        sha = package.get(compiled)
        if sha is None:
            raise IntegrityError(f"closure: {compiled} was not compiled when sealing")
        values[key], values[key[:-1] + "_SHA256@"] = compiled, sha
    for command in CONSOLE_SCRIPTS:
        text = CONSOLE_SCRIPT.replace("@COMMAND@", command)
        for key, value in values.items():
            text = text.replace(key, value)
        script = prefix / "bin" / command
        script.unlink(missing_ok=True)
        script.write_text(text, encoding="utf-8")
        script.chmod(0o755)


def _environment_kind(prefix: str, requested: str | None) -> str:
    """``container`` when the image build says so; else ``nix``, ``venv`` or ``other`` as measured."""
    if requested is not None:
        return requested
    if prefix.startswith("/nix/store/"):
        return "nix"
    return "venv" if os.path.realpath(sys.prefix) != os.path.realpath(sys.base_prefix) else "other"


def _trees(
    prefix: Path, site: Path, stdlib: Path, layers: dict[str, dict[str, str | None]]
) -> dict[str, dict[str, str]]:
    """The whole-tree inventories of the venv folder, ``site-packages`` and the standard library."""
    site_files = [p for layer in ("package", "dependencies") for p in layers[layer] if not p.startswith("../")]
    site_files += [f"{PACKAGE_NAME}/{CLOSURE_MANIFEST}", f"{PACKAGE_NAME}/.{CLOSURE_MANIFEST}.new"]
    trees = {
        "site": collect_tree(site, site_files),
        "stdlib": collect_tree(stdlib, layers["stdlib"], skip=_OTHER_SITES & set(os.listdir(stdlib))),
    }
    if (prefix / "pyvenv.cfg").is_file():  # a venv; a Nix or system prefix holds the whole interpreter
        # compared resolved: the package folder is resolved, the prefix is as the venv was made (maybe via a link)
        real_site, real_prefix = site.resolve(), prefix.resolve()
        inside = [real_site.relative_to(real_prefix).as_posix()] if real_site.is_relative_to(real_prefix) else []
        trees["prefix"] = collect_tree(prefix, LOCAL_FILES, skip=inside)
    return trees


def seal_environment(
    package_dir: Path, lock: Path, *, environment: str | None = None, source_tree: bytes | None = None
) -> SealReport:
    """Seal the environment the package at ``package_dir`` is installed in (steps 1–6 above).

    Args:
        package_dir: the installed package folder (``…/site-packages/ablation``).
        lock: the runtime ``requirements.lock`` the environment was installed from.
        environment: ``container`` when the image build seals; ``None`` measures the kind.
        source_tree: the commit the package was built from and its ``ablation/`` tree
            (:mod:`ablation.closure.source`); ``None``: the source revision is unknown (``null``).

    Returns:
        The manifest's path and the number of hashed files per layer.

    Raises:
        IntegrityError: a pin installed at another version or not at all, a
            module that does not compile, a stray or non-regular file in
            ``site-packages``, a shared object ``ldd`` cannot find, a malformed source tree.

    Side effects: writes the lock copy, bytecode, ``bin/ablation``, ``bin/ablation-prepare`` and the manifest.
    """
    site = package_dir.parent
    layout = current_layout(package_dir)
    prefix = Path(layout.prefix)
    _require_own_site_only(prefix)
    shutil.copyfile(lock, package_dir / LOCK_COPY)
    dependencies = _distributions(site, lock)
    own = [d for d in metadata.distributions(path=[str(site)]) if canonical_name(d.metadata["Name"]) == PACKAGE_NAME]
    if len(own) != 1:
        raise IntegrityError(f"closure: {len(own)} installed {PACKAGE_NAME} distributions in site-packages, not 1")
    tree = None if source_tree is None else parse_source_tree(source_tree)
    revision = None if tree is None else source_revision(tree, installed_sources(site, _owned(own[0])))
    site_layers = _site_layers(site, own[0], dependencies)
    _write_console_scripts(prefix, site, site_layers["package"])
    stdlib_root = Path(layout.stdlib)
    stdlib = _stdlib_layer(stdlib_root)
    extensions = [str(site / p) for layer in site_layers.values() for p in layer if p.endswith(_EXTENSION_SUFFIX)]
    extensions += [str(stdlib_root / p) for p in stdlib if p.endswith(_EXTENSION_SUFFIX)]
    in_other_layers = {os.path.realpath(p) for p in extensions}
    interpreter = _interpreter_layer(os.path.realpath("/proc/self/exe"), sorted(extensions), in_other_layers)
    local = {}
    for relative, layer in LOCAL_FILES.items():
        path = prefix / relative
        if path.is_file():
            local[relative] = (layer, normalized_sha256(path.read_bytes(), layout.prefix, name=relative))
    layers = {**site_layers, "stdlib": stdlib, "interpreter": interpreter}
    data = render_manifest(
        package={"name": PACKAGE_NAME, "sourceRevision": revision},
        distributions=[(canonical_name(d.metadata["Name"]), d.version) for d in dependencies],
        layers=layers,
        local=local,
        environment=_environment_kind(layout.prefix, environment),
        trees=_trees(prefix, site, stdlib_root, layers),
        absent=tuple(p.lstrip("/") for p in sys.path if os.path.isabs(p) and not os.path.lexists(p)),
    )
    return _write_manifest(package_dir, data, layers, revision)


def _write_manifest(
    package_dir: Path, data: bytes, layers: dict[str, dict[str, str | None]], revision: str | None
) -> SealReport:
    manifest = package_dir / CLOSURE_MANIFEST
    temporary = manifest.with_name(f".{CLOSURE_MANIFEST}.new")
    temporary.write_bytes(data)
    temporary.replace(manifest)  # the old manifest stays in force until the new one is complete
    counts = {layer: sum(1 for sha in layers[layer].values() if sha is not None) for layer in LAYERS}
    return SealReport(manifest=manifest, counts=counts, source_revision=revision)
