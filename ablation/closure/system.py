"""What the sealed process sees of the system around its closure: mounts, ``/proc``, absent paths.

- **Mounts** (:func:`mount_problems`): every mount in ``/proc/self/mountinfo`` whose
  mount point is a closure folder (the environment, its ``site-packages``, the
  standard library), lies inside one, or is a closure file (the interpreter and
  the shared objects it maps, the start-up files of :data:`STARTUP_FILES`). A
  bind mount there (``docker run -v …:/usr/lib/python3.11/fractions.py``) lays
  other bytes over what the image ID and the manifest describe. Mounts above a
  closure folder (``/``, ``/home``, ``/nix/store``) and beside it (``/proc``,
  ``/etc/hosts``, the operator's ``/in``, ``/out``) are fine.
- **``/proc``** (:func:`proc_problems`): the maps, executable and mount table the
  check reads must be the kernel's; a ``/proc`` that cannot be read fails closed.
- **Absent paths** (:func:`absent_problems`): the ``sys.path`` entries that did
  not exist at sealing (``python311.zip``, which the interpreter searches first).

What this proves and what it cannot: ``docs/explanation/threat-model.md``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from ablation.closure import verified
from ablation.closure.layerlines import written_plain
from ablation.closure.layout import Layout, mapped_inodes
from ablation.closure.manifest import CLOSURE_MANIFEST, Manifest
from ablation.closure.problem import Problem

__all__ = [
    "STARTUP_FILES",
    "absent_problems",
    "layers_disagree",
    "mapped_inode_problems",
    "mount_points",
    "mount_problems",
    "proc_problems",
    "read_proc_text",
    "system_problems",
]

STARTUP_FILES = ("etc/ld.so.preload", "etc/ld.so.cache")
"""Files (relative to ``/``) the dynamic loader reads before any check, over which nothing may be mounted.
``/etc/ld.so.preload`` must also be absent or empty (:mod:`ablation.closure.boot`)."""

_ESCAPES = {"\\040": " ", "\\011": "\t", "\\012": "\n", "\\134": "\\"}


def _unescape(field: str) -> str:
    for escaped, plain in _ESCAPES.items():
        field = field.replace(escaped, plain)
    return field


def mount_points(mountinfo: str) -> list[tuple[str, str]]:
    """``(mount point, file system type)`` of every line of a ``/proc/<pid>/mountinfo`` text.

    >>> mount_points("22 27 0:21 / /proc rw - proc proc rw\\n30 27 8:1 /x /a\\\\040b ro shared:1 - ext4 /dev/sda rw\\n")
    [('/proc', 'proc'), ('/a b', 'ext4')]
    """
    found = []
    for line in mountinfo.splitlines():
        head, separator, tail = line.partition(" - ")
        fields = head.split(" ")
        if separator and len(fields) >= 5:
            found.append((_unescape(fields[4]), tail.split(" ", 1)[0]))
    return found


def _forms(path: str) -> set[str]:
    return {os.path.normpath(path), os.path.realpath(path)}


def mount_problems(mountinfo: str, layout: Layout, manifest: Manifest) -> list[Problem]:
    """Every mount over or inside the closure (see the module docstring)."""
    folders = {form for root in (layout.prefix, layout.site, layout.stdlib) for form in _forms(root)}
    files = {form for path in (*manifest.layers["interpreter"], *STARTUP_FILES) for form in _forms("/" + path)}
    problems = []
    for point, fstype in mount_points(mountinfo):
        inside = any(point == folder or point.startswith(folder + "/") for folder in folders)
        if inside or point in files:
            what = f"is a mount ({fstype}) over the closure: what it shows is not what was sealed"
            problems.append(Problem(point, "system", what))
    return problems


def proc_problems(maps: str, mountinfo: str) -> list[Problem]:
    """``/proc`` must be procfs and readable: the maps and the mount table are never empty there."""
    problems = []
    if not maps:
        problems.append(Problem("/proc/self/maps", "system", "cannot be read, so the mapped files cannot be checked"))
    if not mountinfo:
        problems.append(Problem("/proc/self/mountinfo", "system", "cannot be read, so mounts cannot be checked"))
    elif ("/proc", "proc") not in mount_points(mountinfo):
        problems.append(Problem("/proc", "system", "is not mounted as procfs"))
    try:
        os.readlink("/proc/self/exe")
    except OSError as error:
        problems.append(Problem("/proc/self/exe", "system", f"cannot be read ({error.strerror})"))
    return problems


def absent_problems(absent: Iterable[str]) -> list[Problem]:
    """Paths (relative to ``/``) that were absent at sealing and exist now."""
    what = "exists, and was absent when the environment was sealed (the interpreter imports from it first)"
    return [Problem("/" + path, "stdlib", what) for path in absent if os.path.lexists("/" + path)]


def mapped_inode_problems(maps: str) -> list[Problem]:
    """An extension module the sealed start hashed is the file the kernel mapped (same device and inode)."""
    closure = verified.CLOSURE
    if closure is None:
        return []
    problems = []
    for path, (major, minor, inode) in mapped_inodes(maps).items():
        hashed = closure.verified.get(path)
        if hashed is not None and (os.major(hashed[0]), os.minor(hashed[0]), hashed[1]) != (major, minor, inode):
            what = "was replaced between its check and its loading (the mapped file is another one)"
            problems.append(Problem(closure.locate(path)[1], "interpreter", what))
    return problems


def system_problems(layout: Layout, manifest: Manifest, maps: str, environ: Mapping[str, str]) -> list[Problem]:
    """The process's view of the system: ``/proc``, mounts, absent paths, the environment's kind."""
    mountinfo = read_proc_text("mountinfo")
    problems = proc_problems(maps, mountinfo)
    problems += mount_problems(mountinfo, layout, manifest)
    problems += absent_problems(manifest.absent)
    problems += _kind_problems(layout, manifest, environ)
    problems += mapped_inode_problems(maps)
    closure = verified.CLOSURE
    if closure is not None and layers_disagree(closure.layers, manifest):
        what = "reads differently line by line (the sealed start) and as JSON (the check)"
        problems.append(Problem(f"ablation/{CLOSURE_MANIFEST}", "package", what))
    return problems


def _kind_problems(layout: Layout, manifest: Manifest, environ: Mapping[str, str]) -> list[Problem]:
    """What the process sees of its environment agrees with the kind sealed; ``ABLATION_ENVIRONMENT`` too."""
    problems = []
    kind = manifest.environment
    venv = os.path.isfile(os.path.join(layout.prefix, "pyvenv.cfg"))
    if (kind in ("venv", "container") and not venv) or (kind == "nix") != layout.prefix.startswith("/nix/store/"):
        what = f"is not the folder of a {kind} environment, which is what was sealed"
        problems.append(Problem(layout.prefix, "package", what))
    claimed = environ.get("ABLATION_ENVIRONMENT")
    if claimed and claimed != kind:
        what = f"says {claimed!r}, but this environment was sealed as {kind!r} (the identity measures it)"
        problems.append(Problem("ABLATION_ENVIRONMENT", "environment", what))
    return problems


def layers_disagree(start_layers: Mapping[str, Mapping[str, str | None]], manifest: Manifest) -> bool:
    """Whether the layers the sealed start read line by line differ from the manifest's.

    When the check took the start's layers (every layer line free of JSON escapes and exactly as written,
    :func:`ablation.closure.manifest.read_manifest`), they are the same objects and
    nothing is compared: 8,000 entries, about 1.5 ms of every start. Otherwise the
    manifest's layers were parsed as JSON, and are compared with the start's, the
    escaped paths left out (the line reader skips them).
    """
    if start_layers.keys() == manifest.layers.keys() and all(
        start_layers[layer] is files for layer, files in manifest.layers.items()
    ):
        return False
    return start_layers != _unescaped_layers(manifest)


def _unescaped_layers(manifest: Manifest) -> dict[str, dict[str, str | None]]:
    """The layers as :func:`ablation.closure.layerlines.read_layers` reads them: without the paths whose line holds
    a backslash, that is whose JSON text (as :func:`ablation.closure.manifest.render_manifest` writes it) has an
    escape: a quote, a backslash or a control character."""
    return {layer: {p: h for p, h in files.items() if written_plain(p)} for layer, files in manifest.layers.items()}


def read_proc_text(name: str) -> str:
    """``/proc/self/<name>`` as text, or ``""`` when it cannot be read (the callers fail closed)."""
    try:
        with open(f"/proc/self/{name}", encoding="utf-8", errors="surrogateescape") as stream:
            return stream.read()
    except OSError:
        return ""
