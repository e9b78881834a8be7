"""Where the closure's layers live in this process, and what the process has loaded and mapped.

Pure helpers plus the few reads of the running process (``sys.modules``,
``/proc/self/maps``) that the run-time check and the unsealed identity need.
Paths are never written into the identity: every file is named relative to
the root of its layer (PRODUCT.md "Closure manifest").

Roots (:class:`Layout`):

``site``
    the ``site-packages`` folder holding the installed package; its files
    belong to the ``package`` or the ``dependencies`` layer;
``stdlib``
    the folder the interpreter imports its standard library from
    (``sys._stdlib_dir``), without any ``site-packages``/``dist-packages`` inside it;
``prefix``
    ``sys.prefix``, for the two files whose bytes name the install folder:
    the console scripts ``bin/ablation`` and ``bin/ablation-prepare`` and ``pyvenv.cfg`` (:data:`LOCAL_FILES`);
``system``
    ``/``, for the interpreter executable and the shared objects it maps.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from collections.abc import Iterator

from ablation.closure import verified
from ablation.closure.record import Record

__all__ = [
    "LOCAL_FILES",
    "Layout",
    "TreeEntry",
    "current_layout",
    "list_files",
    "loaded_files",
    "mapped_executables",
    "mapped_inodes",
    "normalized_sha256",
    "read_maps",
    "sha256_file",
    "walk_tree",
]

LOCAL_FILES = {"bin/ablation": "package", "bin/ablation-prepare": "package", "pyvenv.cfg": "interpreter"}
"""Files below ``sys.prefix`` whose bytes hold the install folder, with their layer.

They are checked with the install folder replaced by ``{prefix}``
(:func:`normalized_sha256`), so the manifest does not depend on where the
environment was made.
"""

PREFIX_PLACEHOLDER = b"{prefix}"
_OTHER_SITES = frozenset({"site-packages", "dist-packages"})


_HASHED: dict[tuple[int, int, int, int, int], str] = {}
_READ_WHOLE = 1 << 16
"""Files up to this size (bytes, as ``fstat`` says) are read in one piece to be hashed."""


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Bare hex SHA-256 of the bytes a file reads as (symlinks followed).

    A file is read once per process: the digest is kept under its device,
    inode, size and modification and change times, read from the open file, so
    a file replaced or written in between is read again; so is a file changed
    shortly before it was read (:func:`ablation.closure.verified.reusable`). In a sealed start,
    what the start already hashed (:attr:`ablation.closure.verified.Closure.hashed`)
    is not read again either.

    Raises:
        OSError: the file cannot be opened or read.
    """
    started = verified.now_ns()
    with open(path, "rb", buffering=0) as stream:
        info = os.fstat(stream.fileno())
        key = verified.file_key(info)
        digest = _HASHED.get(key) or _hashed_at_start(str(path), key)
        if digest is None:
            small = key[2] <= _READ_WHOLE  # one read: file_digest's 256 KiB buffer costs more than the file
            found = hashlib.sha256(stream.read()) if small else hashlib.file_digest(stream, "sha256")
            digest = found.hexdigest()
            if verified.reusable(info, started):
                _HASHED[key] = digest
        return digest


def _hashed_at_start(path: str, key: tuple[int, int, int, int, int]) -> str | None:
    """The digest the sealed start computed of the file under ``key`` (its background thread, or a
    verified import), waiting for that thread when ``path`` is one of its files; ``None`` when none."""
    closure = verified.CLOSURE
    if closure is None:
        return None
    closure.wait_for(path)
    return closure.hashed.get(key)


def normalized_sha256(data: bytes, prefix: str, *, name: str = "") -> str:
    """Bare hex SHA-256 of ``data`` with every occurrence of the install folder replaced by ``{prefix}``.

    Both the folder as given and its resolved form are replaced (the longer
    first). For ``pyvenv.cfg`` (``name``), the ``command`` line is left out: the
    ``venv`` module writes it as a record of how the environment was made, and
    the interpreter never reads it, so a copied environment stays comparable.

    >>> normalized_sha256(b"#!/v/bin/python -IB\\n", "/v") == normalized_sha256(b"#!/w/bin/python -IB\\n", "/w")
    True
    """
    if name == "pyvenv.cfg":
        data = b"".join(line for line in data.splitlines(keepends=True) if not line.startswith(b"command ="))
    for form in sorted({prefix, os.path.realpath(prefix)}, key=len, reverse=True):
        data = data.replace(os.fsencode(form), PREFIX_PLACEHOLDER)
    return hashlib.sha256(data).hexdigest()


def _relative(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` (both absolute, normalised), or ``None`` when it lies outside."""
    if root == "/":
        return path[1:] if path.startswith("/") and len(path) > 1 else None
    if path.startswith(root + "/"):
        return path[len(root) + 1 :]
    return None


class Layout(Record):
    """The roots of the layers in this process (absolute, normalised paths).

    Attributes:
        prefix: ``sys.prefix``.
        site: the ``site-packages`` folder the running package was imported from.
        stdlib: the standard library folder.
    """

    prefix: str
    site: str
    stdlib: str

    def locate(self, path: str) -> tuple[str, str]:
        """Which root a file lies under, and its path relative to that root.

        Returns:
            ``(root, relative)`` with ``root`` one of ``site``, ``stdlib``,
            ``prefix`` (only for :data:`LOCAL_FILES`) or ``system``; a file
            under no other root is ``system`` relative to ``/``. The path is
            tried as given first, then with every symlink resolved.
        """
        given = os.path.abspath(path)
        found = self._locate_once(given)
        if found is not None:
            return found
        resolved = os.path.realpath(path)
        return self._locate_once(resolved) or ("system", resolved[1:])

    def _locate_once(self, path: str) -> tuple[str, str] | None:
        for root_name, root in self._roots():
            relative = _relative(path, root)
            if relative is None:
                continue
            if root_name == "stdlib" and relative.split("/", 1)[0] in _OTHER_SITES:
                continue
            if root_name == "prefix" and relative not in LOCAL_FILES:
                continue
            return root_name, relative
        return None

    def _roots(self) -> tuple[tuple[str, str], ...]:
        """Every root in its given and resolved forms, the deepest first."""
        return _roots(self.site, self.stdlib, self.prefix)


@functools.cache
def _roots(site: str, stdlib: str, prefix: str) -> tuple[tuple[str, str], ...]:
    roots = [
        (name, form)
        for name, given in (("site", site), ("stdlib", stdlib), ("prefix", prefix))
        for form in dict.fromkeys((given, os.path.realpath(given)))
    ]
    roots.sort(key=lambda pair: len(pair[1]), reverse=True)
    return tuple(roots)


def current_layout(package_dir: str | os.PathLike[str]) -> Layout:
    """The :class:`Layout` of this process, the package imported from ``package_dir``."""
    stdlib = getattr(sys, "_stdlib_dir", None) or os.path.dirname(os.__file__)
    return Layout(
        prefix=os.path.abspath(sys.prefix),
        site=os.path.abspath(os.path.dirname(package_dir)),
        stdlib=os.path.abspath(stdlib),
    )


def loaded_files() -> list[tuple[str, str]]:
    """Every file the process has run Python code from: ``(module name, path)``, sorted.

    For each module in ``sys.modules``: its source or extension module
    (``__spec__.origin``, or ``__file__`` when there is no spec, as for a
    script run as ``__main__``) and the bytecode file it was loaded through
    (``__spec__.cached``) when that file exists. Frozen and built-in modules
    live in the interpreter binary and are left out, as are namespace packages
    (no file).
    """
    found: set[tuple[str, str]] = set()
    for name, module in list(sys.modules.items()):
        spec = getattr(module, "__spec__", None)
        if spec is None:
            file = getattr(module, "__file__", None)
            if isinstance(file, str):
                found.add((name, os.path.abspath(file)))
            continue
        if not spec.has_location or not isinstance(spec.origin, str):
            continue
        found.add((name, os.path.abspath(spec.origin)))
        cached = spec.cached
        if isinstance(cached, str) and os.path.exists(cached):
            found.add((name, os.path.abspath(cached)))
    return sorted(found)


def mapped_executables(maps_text: str) -> list[str]:
    """The files behind executable mappings in a ``/proc/<pid>/maps`` text, sorted, each once.

    Pseudo-mappings (``[vdso]``, ``[vsyscall]``, anonymous memory) are left
    out. A mapping of a file that was deleted or replaced after it was mapped
    keeps the kernel's `` (deleted)`` suffix, so the check names it.

    >>> mapped_executables("7f-8f r-xp 0 08:01 12 /usr/lib/libc.so.6\\n7f-8f r--p 0 08:01 13 /usr/lib/x\\n"
    ...                    "7f-8f r-xp 0 00:00 0 [vdso]\\n")
    ['/usr/lib/libc.so.6']
    """
    paths: set[str] = set()
    for line in maps_text.splitlines():
        fields = line.split(None, 5)
        if len(fields) == 6 and "x" in fields[1] and fields[5].startswith("/"):
            paths.add(fields[5])
    return sorted(paths)


def mapped_inodes(maps_text: str) -> dict[str, tuple[int, int, int]]:
    """``path → (major, minor, inode)`` of the files behind executable mappings in a ``/proc/<pid>/maps`` text.

    >>> mapped_inodes("7f-8f r-xp 0 fe:01 12 /usr/lib/libc.so.6\\n")
    {'/usr/lib/libc.so.6': (254, 1, 12)}
    """
    found = {}
    for line in maps_text.splitlines():
        fields = line.split(None, 5)
        if len(fields) == 6 and "x" in fields[1] and fields[5].startswith("/"):
            major, _, minor = fields[3].partition(":")
            found[fields[5]] = (int(major, 16), int(minor, 16), int(fields[4]))
    return found


def read_maps() -> str:
    """This process's ``/proc/self/maps``, or ``""`` where there is no ``/proc``."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="surrogateescape") as stream:
            return stream.read()
    except OSError:
        return ""


class TreeEntry(Record):
    """One directory entry below a folder.

    ``kind`` is ``file`` (a regular file), ``symlink`` (a symbolic link; to a
    folder when ``sha256`` is ``None``) or ``other`` (a fifo, socket or
    device, or a file that could not be read because it changed meanwhile).
    ``sha256`` is the hex digest of what a ``file`` or a ``symlink`` to a
    regular file reads as, otherwise ``None``. ``path`` is relative to the
    folder's parent, so it starts with the folder's own name.
    """

    path: str
    kind: str
    sha256: str | None


def walk_tree(
    folder: str | os.PathLike[str], *, skip_pycache: bool, skip_top: frozenset[str] = frozenset()
) -> list[TreeEntry]:
    """Every entry below ``folder``, sorted by path; symbolic links are never followed into folders.

    Args:
        folder: the folder (e.g. the package folder).
        skip_pycache: leave ``__pycache__`` folders out (a development checkout's bytecode
            is whatever the last run wrote).
        skip_top: file names left out at the top of the folder (the closure manifest).
    """
    entries: list[TreeEntry] = []
    folder = os.fspath(folder)
    name = os.path.basename(folder)
    for relative, kind in list_files(folder, skip_folders=frozenset({"__pycache__"}) if skip_pycache else frozenset()):
        if kind == "file" and "/" not in relative and relative in skip_top:
            continue
        full = os.path.join(folder, relative)
        try:
            digest = sha256_file(full) if kind == "file" or (kind == "symlink" and os.path.isfile(full)) else None
        except OSError:  # removed or replaced while the tree was read
            kind, digest = "other", None
        entries.append(TreeEntry(f"{name}/{relative}", kind, digest))
    entries.sort(key=lambda e: e.path)
    return entries


def list_files(folder: str, *, skip_folders: frozenset[str] = frozenset()) -> Iterator[tuple[str, str]]:
    """``(relative path, kind)`` of every non-folder entry below ``folder`` (links not followed).

    ``kind`` is ``file``, ``symlink`` (to anything, folders included) or ``other``; folders
    named in ``skip_folders`` are not entered.
    """
    pending = [(folder, "")]
    while pending:
        here, prefix = pending.pop()
        with os.scandir(here) as listing:
            for entry in listing:
                relative = f"{prefix}{entry.name}"
                if entry.is_symlink():
                    yield relative, "symlink"
                elif entry.is_dir(follow_symlinks=False):
                    if entry.name not in skip_folders:
                        pending.append((entry.path, relative + "/"))
                else:
                    yield relative, "file" if entry.is_file(follow_symlinks=False) else "other"
