"""How the sealed evaluator's process was started (PRODUCT.md "Isolation").

The sealed console script starts the interpreter with ``-IB``. These checks
refuse every way of starting it otherwise that would let code or bytecode from
outside the manifest run, or let the process write into the sealed tree:

- interpreter options: ``-I`` (isolation), ``-B`` (no bytecode written), no
  ``-O``/``-OO`` (modules would be compiled from source, not from the sealed
  bytecode), no ``-X pycache_prefix`` (bytecode from another folder);
- variables that isolation does not cover (:data:`REFUSED_VARIABLES`);
- the entry point: ``__main__`` is a console script (``bin/ablation``,
  ``bin/ablation-prepare``) or ``ablation/__main__.py`` / ``ablation/prepare/__main__.py``
  (not ``python -c``, standard input or another script);
- the import system: ``sys.meta_path`` and ``sys.path_hooks`` hold only the
  interpreter's own finders, and every ``sys.path`` entry is the standard
  library, its extension folder, ``site-packages`` or absent (the unused zip);
- no file at the top of the standard library folder that the manifest does
  not list (an added ``sitecustomize.py`` runs at every start).

What runs before these checks and is written to hide itself cannot be caught
from inside the process; docs/explanation/identity.md says how it is.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from ablation.closure.layout import Layout
from ablation.closure.manifest import Manifest
from ablation.closure.problem import Problem

__all__ = ["REFUSED_VARIABLES", "check_startup"]

REFUSED_VARIABLES = ("NIX_PYTHONPATH", "PYTHONEXECUTABLE", "LD_PRELOAD", "LD_AUDIT")
"""Variables that change what runs even under ``-I``: nixpkgs' interpreter reads
``NIX_PYTHONPATH``; CPython reads ``PYTHONEXECUTABLE`` (it picks the environment);
the dynamic loader injects ``LD_PRELOAD``/``LD_AUDIT`` libraries."""

_STOCK_FINDER_MODULES = frozenset({"_frozen_importlib", "_frozen_importlib_external", "zipimport"})
# Where ``__main__`` may come from: the console scripts (prefix) and the packages' ``__main__`` (site-packages).
_ENTRY_POINTS = frozenset(
    {
        ("prefix", "bin/ablation"),
        ("site", "ablation/__main__.py"),
        ("prefix", "bin/ablation-prepare"),
        ("site", "ablation/prepare/__main__.py"),
    }
)


def _options() -> list[Problem]:
    flags = sys.flags
    problems = []
    if not flags.isolated:
        what = "runs without -I: PYTHON* variables, the user site and the current folder could change what is imported"
        problems.append(Problem("python", "isolation", what))
    if not flags.dont_write_bytecode:
        what = "runs without -B: it could write bytecode into the sealed environment"
        problems.append(Problem("python", "isolation", what))
    if flags.optimize:
        what = "runs with -O: modules would be compiled from source instead of the sealed bytecode"
        problems.append(Problem("python", "isolation", what))
    if sys.pycache_prefix is not None:
        what = "runs with -X pycache_prefix: bytecode would come from outside the sealed environment"
        problems.append(Problem("python", "isolation", what))
    return problems


def _entry_point(layout: Layout) -> list[Problem]:
    main = sys.modules.get("__main__")
    file = getattr(main, "__file__", None)
    if not isinstance(file, str):
        what = "is not a file (python -c, standard input or an interactive session)"
        return [Problem("__main__", "isolation", what)]
    root, relative = layout.locate(file)
    if (root, relative) in _ENTRY_POINTS:
        return []
    return [Problem("__main__", "isolation", f"is {file}, not the evaluator's console script")]


def _import_system(layout: Layout) -> list[Problem]:
    problems = [
        Problem("sys.meta_path", "outside", f"holds {finder!r}, which is not one of the interpreter's finders")
        for finder in sys.meta_path
        if getattr(finder, "__module__", None) not in _STOCK_FINDER_MODULES
    ]
    problems += [
        Problem("sys.path_hooks", "outside", f"holds {hook!r}, which is not one of the interpreter's hooks")
        for hook in sys.path_hooks
        if getattr(hook, "__module__", None) not in _STOCK_FINDER_MODULES
    ]
    allowed = {layout.stdlib, os.path.join(layout.stdlib, "lib-dynload"), layout.site}
    for entry in sys.path:
        absolute = os.path.abspath(entry or ".")
        if absolute not in allowed and os.path.realpath(absolute) not in allowed and os.path.exists(absolute):
            problems.append(Problem("sys.path", "outside", f"holds {entry!r}, outside the sealed environment"))
    return problems


def _stdlib_top(layout: Layout, manifest: Manifest) -> list[Problem]:
    recorded = manifest.layers["stdlib"]
    try:
        with os.scandir(layout.stdlib) as listing:
            names = [entry.name for entry in listing if not entry.is_dir()]
    except OSError as error:
        return [Problem(".", "stdlib", f"cannot be listed ({error.strerror})")]
    return [Problem(name, "stdlib", "is not in the closure manifest") for name in names if name not in recorded]


def check_startup(layout: Layout, manifest: Manifest, environ: Mapping[str, str]) -> list[Problem]:
    """Every problem with how this process was started (empty when it was started as sealed)."""
    problems = _options()
    problems += [
        Problem(name, "environment", "is set, and changes what runs even in an isolated interpreter")
        for name in REFUSED_VARIABLES
        if environ.get(name)
    ]
    problems += _entry_point(layout)
    problems += _import_system(layout)
    problems += _stdlib_top(layout, manifest)
    return problems
