"""What is hashed is what runs: every import of the sealed closure runs the bytes checked against the manifest.

Stage 2 of the sealed start (:mod:`ablation.closure.boot`) calls :func:`run`. It
reads the closure manifest once (:data:`Closure.manifest`, the bytes every later
check and the identity use), replaces the interpreter's file-system import hook by
one whose loaders read each file once, compare its SHA-256 with the manifest and
hand exactly those bytes to the interpreter:

- a module's bytecode (``.pyc``) or source is executed from the bytes that were
  hashed, so a file swapped between a check and an import cannot run;
- an extension module (``.so``) is hashed from an open file, then loaded by the
  dynamic loader from its path. That cannot be done from the checked bytes; the
  run-time check later compares the device and inode the kernel mapped with the
  ones hashed (``docs/explanation/threat-model.md``, "What is hashed is what runs").

While the start goes on, a second thread hashes the files the process has
mapped so far (the interpreter, its shared library, the C library, OpenSSL:
about 30 MB, most of the run-time check's reading), on the second core; the
check then finds those digests under the same key as every digest it computed
itself (:func:`ablation.closure.layout.sha256_file`). Nothing else is shared
between the threads; the run-time check waits for the thread to end, and
:func:`run` stops it when the command returns without needing its digests.

A file that is not in the manifest, or whose bytes differ, raises
:class:`ClosureViolation`, which no ``except Exception`` can swallow; :func:`run`
prints it as one line and exits 3. Like :mod:`ablation.closure.boot`, this module
imports nothing but what the interpreter has built in or frozen, so the console
script can run it from its checked bytecode before any other file is read.
"""

import os
import sys

from ablation.closure.boot import COMMANDS as _MAIN_MODULES
from ablation.closure.boot import OPENSSL_CONFIG, REMEDY, hold_start_signals, restore_start_signals, shown
from ablation.closure.layerlines import read_layers

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is a file, read before any check
if TYPE_CHECKING:
    from collections.abc import Callable
    from importlib import machinery as _external
    from types import ModuleType
    from typing import Protocol

    class _Hash(Protocol):
        def update(self, data: bytes | memoryview, /) -> None: ...
        def hexdigest(self) -> str: ...

    class _Lock(Protocol):
        def release(self) -> None: ...
else:
    _external = sys.modules["_frozen_importlib_external"]

__all__ = ["CLOSURE", "Closure", "ClosureViolation", "run"]

_LAYERS = ("package", "dependencies", "stdlib", "interpreter")
_HASH_PIECE = 1 << 16
"""Bytes of an extension module hashed at a time (64 KiB: the buffer is new, zeroed memory at every import,
and an extension module is a few hundred KiB)."""
_OTHER_SITES = ("site-packages", "dist-packages")


class ClosureViolation(BaseException):
    """A closure file that is not in the manifest or differs from it, found when it was imported (exit 3).

    A ``BaseException``, so that no library's ``except Exception`` around an import
    turns a refused module into a silent fallback.
    """


def file_key(info: os.stat_result) -> tuple[int, int, int, int, int]:
    """What identifies a file's bytes within one process: device, inode, size, modification and change times.

    A file written or replaced gets another key: its change time moves, which no
    unprivileged process can set back, unless the file system's clock has not
    ticked since the last change (:func:`reusable`).
    """
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


SETTLED_NS = 2_000_000_000
"""How long before a read a file's last change must lie for its digest to be reused (2 s: more than one tick
of any file-system clock, FAT's two seconds included)."""

now_ns = __import__("time").time_ns
"""The clock :func:`reusable` compares change times with (built in; tests replace it)."""


def reusable(info: os.stat_result, started_ns: int) -> bool:
    """Whether a digest computed from a read that began at ``started_ns`` may be kept under :func:`file_key`.

    Only when the file's last change lies :data:`SETTLED_NS` before the read: a write in the same tick
    of a coarse file-system clock as the one before would leave the change time, and the key, as they
    were (git's "racily clean" rule). A file changed since is read and hashed again.

    >>> class Info:
    ...     st_ctime_ns = 10_000_000_000
    >>> reusable(Info(), 12_000_000_001), reusable(Info(), 11_000_000_000)
    (True, False)
    """
    return info.st_ctime_ns < started_ns - SETTLED_NS


def mapped_files() -> list[str]:
    """The files behind this process's executable mappings now (``/proc/self/maps``), each once, in map order.

    The same selection as :func:`ablation.closure.layout.mapped_executables`, with nothing
    but built-in modules; ``[]`` when the maps cannot be read (the check then refuses).
    """
    try:
        with open("/proc/self/maps", "rb") as stream:
            data = stream.read()
    except OSError:
        return []
    paths: dict[str, None] = {}
    for line in data.split(b"\n"):
        fields = line.split(None, 5)
        if len(fields) == 6 and b"x" in fields[1] and fields[5].startswith(b"/"):
            paths[os.fsdecode(fields[5])] = None
    return list(paths)


class Closure:
    """The sealed closure of this process: its roots, the manifest's layers, and what was verified.

    Attributes:
        manifest: the manifest's bytes, read once.
        layers: layer → path relative to its root → hex SHA-256 (``None``: listed, not hashed).
        verified: absolute path → ``(st_dev, st_ino)`` of every file whose bytes were checked before use.
        hashed: :func:`file_key` → hex SHA-256 of every file this process hashed from an open
            file (:meth:`read`, and the background thread of :meth:`hash_in_background`) whose
            last change lay :data:`SETTLED_NS` before the read (:func:`reusable`).
        violations: every refusal raised, in order (also those a caller may have caught).
    """

    def __init__(self, site: str, stdlib: str, manifest: bytes, new_hash: "Callable[[], _Hash]") -> None:
        self.site = os.path.normpath(site)
        self.manifest = manifest
        self.layers = read_layers(manifest)
        self.new_hash = new_hash
        self.verified: dict[str, tuple[int, int]] = {}
        self.hashed: dict[tuple[int, int, int, int, int], str] = {}
        self.violations: list[str] = []
        self._background: tuple[frozenset[str], object] = (frozenset(), None)
        self._stopping = False
        self.hook: object = None
        roots = [(form, layers) for root, layers in ((site, ("package", "dependencies")), (stdlib, ("stdlib",)))
                 for form in {root, os.path.realpath(root)}]  # fmt: skip
        self._roots = sorted(roots, key=lambda pair: len(pair[0]), reverse=True)

    def locate(self, path: str) -> tuple[str, str, str | None]:
        """``(layer, relative path, recorded hex SHA-256 or None)`` of an absolute path; layer ``outside`` when none."""
        for root, layers in self._roots:
            if not path.startswith(root + "/"):
                continue
            relative = path[len(root) + 1 :]
            if layers == ("stdlib",) and relative.split("/", 1)[0] in _OTHER_SITES:
                continue
            for layer in layers:
                if relative in self.layers.get(layer, {}):
                    return layer, relative, self.layers[layer][relative]
            return layers[-1], relative, None
        return "outside", path, None

    def refuse(self, subject: str, what: str, layer: str) -> ClosureViolation:
        """Record a refusal and return the exception to raise."""
        where = f" (layer {layer})" if layer in _LAYERS else ""
        message = f"closure: {subject} {what}{where}; {REMEDY[layer]}"
        self.violations.append(message)
        return ClosureViolation(message)

    def read(self, path: str, *, keep: bool = True) -> bytes:
        """The bytes of a closure file, read once and checked against the manifest.

        With ``keep=False`` (an extension module, which the dynamic loader reads
        itself) the file is hashed in pieces and ``b""`` is returned, so a large
        shared object never sits in memory as one buffer.

        Raises:
            OSError: the file cannot be opened (the interpreter then tries the source).
            ClosureViolation: the file is outside the closure, not listed, or changed.
        """
        absolute = os.path.abspath(path)
        digest, started = self.new_hash(), now_ns()
        with open(absolute, "rb", buffering=0) as stream:
            info = os.fstat(stream.fileno())
            if keep:
                data = stream.read()
                digest.update(data)
            else:
                data, buffer = b"", bytearray(_HASH_PIECE)
                view = memoryview(buffer)
                while count := stream.readinto(buffer):
                    digest.update(view[:count])
        layer, relative, expected = self.locate(absolute)
        if layer == "outside":
            raise self.refuse(relative, "is outside the sealed environment", "outside")
        if expected is None:
            raise self.refuse(relative, "is not in the closure manifest", layer)
        found = digest.hexdigest()
        if found != expected:
            raise self.refuse(relative, f"changed (sha256 {found}, manifest {expected})", layer)
        self.verified[absolute] = (info.st_dev, info.st_ino)
        if reusable(info, started):
            self.hashed[file_key(info)] = found
        return data

    def hash_in_background(self, paths: "list[str]") -> None:
        """Hash ``paths`` in a second thread into :attr:`hashed` (the built-in ``_thread``; no file is read).

        A file that cannot be read is left out, and so is every file after an unexpected error, or
        all of them when no thread can be started: whoever needs a digest then computes it
        (:func:`ablation.closure.layout.sha256_file`).
        """
        threads = __import__("_thread")
        done = threads.allocate_lock()
        done.acquire()
        try:
            threads.start_new_thread(self._hash_files, (paths, done))
        except RuntimeError:  # no thread can be started (a process limit): the check hashes these files itself
            return
        self._background = (frozenset(paths), done)

    def _hash_files(self, paths: "list[str]", done: "_Lock") -> None:
        try:
            buffer = bytearray(1 << 20)
            view = memoryview(buffer)
            for path in paths:
                if self._stopping:
                    break
                try:
                    with open(path, "rb", buffering=0) as stream:
                        info, started, digest = os.fstat(stream.fileno()), now_ns(), self.new_hash()
                        while not self._stopping and (count := stream.readinto(buffer)):
                            digest.update(view[:count])
                except OSError:
                    continue
                if not self._stopping and reusable(info, started):
                    self.hashed[file_key(info)] = digest.hexdigest()
        except BaseException:  # never a traceback from this thread: a digest left out is computed when needed
            pass
        finally:
            done.release()

    def wait_for(self, path: str | None = None) -> None:
        """Wait until the background thread has ended (when ``path`` is given: only if it is one of its files)."""
        paths, done = self._background
        if done is None or (path is not None and path not in paths):
            return
        with done:  # type: ignore[attr-defined]
            self._background = (frozenset(), None)

    def stop_hashing(self) -> None:
        """End the background thread within one read (its digests are no longer needed) and wait for it."""
        self._stopping = True
        self.wait_for()


CLOSURE: Closure | None = None
"""The closure of this process once :func:`run` has read the manifest (``None`` when not started sealed)."""


def _closure() -> Closure:
    if CLOSURE is None:
        raise RuntimeError("the verified import hook runs only in a sealed start")
    return CLOSURE


class _SourceLoader(_external.SourceFileLoader):
    """A source module and its bytecode, from checked bytes."""

    def get_data(self, path: str) -> bytes:
        return _closure().read(path)


class _BytecodeLoader(_external.SourcelessFileLoader):
    """A module that has only bytecode, from checked bytes."""

    def get_data(self, path: str) -> bytes:
        return _closure().read(path)


class _ExtensionLoader(_external.ExtensionFileLoader):
    """An extension module, hashed from an open file just before the dynamic loader maps it."""

    def create_module(self, spec: "_external.ModuleSpec") -> "ModuleType":
        _closure().read(self.path, keep=False)
        return super().create_module(spec)


def install(closure: Closure) -> None:
    """Make ``closure`` the process's closure and its loaders the only file-system import hook."""
    global CLOSURE  # one closure per process, set once at the sealed start
    CLOSURE = closure
    closure.hook = _external.FileFinder.path_hook(
        (_ExtensionLoader, _external.EXTENSION_SUFFIXES),
        (_SourceLoader, _external.SOURCE_SUFFIXES),
        (_BytecodeLoader, _external.BYTECODE_SUFFIXES),
    )
    sys.path_hooks[:] = [closure.hook]
    sys.path_importer_cache.clear()


def _start_closure(site: str, sha256: "Callable[[], _Hash]") -> "Closure":
    """Read the manifest, check the modules the console script ran and the OpenSSL configuration, install."""
    with open(f"{site}/ablation/CLOSURE.json", "rb") as stream:
        manifest = stream.read()
    stdlib = getattr(sys, "_stdlib_dir", None) or ""
    closure = Closure(site, stdlib, manifest, sha256)
    for name in ("ablation.closure.boot", "ablation.closure.layerlines", "ablation.closure.verified"):
        module = sys.modules[name]
        path = str(getattr(module, "__file__", ""))
        layer, relative, expected = closure.locate(path)
        if getattr(module, "__sealed_sha256__", None) != expected:
            raise closure.refuse(relative, "differs from the bytecode the console script was sealed with", layer)
        info = os.stat(path)
        closure.verified[path] = (info.st_dev, info.st_ino)
    closure.read(f"{site}/{OPENSSL_CONFIG}")  # before any OpenSSL reads it (OPENSSL_CONF names it)
    install(closure)
    openssl = __import__("_hashlib")  # through the new hook, hashed with _sha256; OpenSSL hashes from here on
    closure.new_hash = openssl.openssl_sha256
    closure.hash_in_background(mapped_files())  # OpenSSL lets go of the interpreter lock while it hashes
    return closure


def run(prefix: str, site: str, sha256: "Callable[[], _Hash]", command: str = "ablation") -> int:
    """Stage 2 of the sealed start: verified imports, then the command line (``ablation.cli.main``, or
    ``ablation.prepare.cli.main`` for ``command="ablation-prepare"``).

    Returns:
        The command's exit code; 3 (one line on stderr) when a closure file was refused.
    """
    del prefix  # the layout is measured again by the run-time check
    collector = __import__("gc")  # built in, no file: no collection while the manifest's many small objects are made
    collector.disable()
    try:
        try:
            closure = _start_closure(site, sha256)
        except OSError as error:
            sys.stderr.write(f"{command}: closure: ablation/CLOSURE.json cannot be read ({error.strerror}) "
                             f"(layer package); {REMEDY['package']}\n")  # fmt: skip
            return 3
        package = __import__("ablation.closure").closure  # through the verified hook, like everything from here
        package.boot, package.verified = sys.modules["ablation.closure.boot"], sys.modules[__name__]
        main = __import__(_MAIN_MODULES[command], fromlist=["main"]).main  # through the verified hook
        collector.freeze()  # what the start made lives as long as the process: never traverse it again
        collector.enable()
        restore_start_signals()  # from here the command's own handling of SIGINT and SIGTERM
        code: int = main()
    except ClosureViolation as violation:
        sys.stderr.write(f"{command}: {violation}\n")
        return 3
    except ImportError as error:  # a module file of the closure deleted (before the check could name it)
        what = f"{error.name or 'a module'} cannot be imported ({error})"
        sys.stderr.write(f"{command}: closure: {shown(what)} (layer package); {REMEDY['package']}\n")
        return 3
    finally:
        if CLOSURE is not None:  # the hashing thread ends before the interpreter does; a signal meanwhile is one line
            hold_start_signals(command)
            CLOSURE.stop_hashing()
    if closure.violations:  # refused, and caught by something that should not have
        sys.stderr.write(f"{command}: {closure.violations[0]}\n")
        return 3
    return code
