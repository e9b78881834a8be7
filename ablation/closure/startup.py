"""How the sealed evaluator's process was started (PRODUCT.md "Isolation").

The sealed console script starts the interpreter with ``-IBS`` (:mod:`ablation.closure.boot`). These checks
refuse every way of starting it otherwise that would let code or bytecode from
outside the manifest run, or let the process write into the sealed tree:

- interpreter options: ``-I`` (isolation), ``-B`` (no bytecode written), no
  ``-O``/``-OO`` (modules would be compiled from source, not from the sealed
  bytecode), no ``-X pycache_prefix`` (bytecode from another folder);
- variables that isolation does not cover (:data:`REFUSED_VARIABLES`);
- the entry point: ``__main__`` is a console script (``bin/ablation``,
  ``bin/ablation-prepare``) or ``ablation/__main__.py`` / ``ablation/prepare/__main__.py``
  (not ``python -c``, standard input or another script);
- the import system: ``sys.meta_path`` holds only the interpreter's own finders,
  ``sys.path_hooks`` only the sealed start's verified hook
  (:mod:`ablation.closure.verified`), and every ``sys.path`` entry is the standard
  library, its extension folder, ``site-packages`` or absent (the unused zip);
- the whole trees of the standard library, the venv and ``site-packages``
  (:mod:`ablation.closure.trees`): no file or folder the manifest does not list
  (an added ``sitecustomize`` package runs at every start without ``-S``).

What runs before these checks and is written to hide itself cannot be caught
from inside the process; docs/explanation/identity.md says how it is.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from ablation.closure import verified
from ablation.closure.boot import option_problems, refused_variables
from ablation.closure.layout import Layout
from ablation.closure.manifest import CLOSURE_MANIFEST, Manifest
from ablation.closure.problem import Problem
from ablation.closure.trees import tree_problems

__all__ = ["REFUSED_VARIABLES", "check_startup"]

REFUSED_VARIABLES = ("NIX_PYTHONPATH", "PYTHONEXECUTABLE", "LD_PRELOAD", "LD_AUDIT")
"""Examples of the refused variables (the whole rule: :func:`ablation.closure.boot.refused_variables`):
nixpkgs' interpreter reads ``NIX_PYTHONPATH`` and CPython ``PYTHONEXECUTABLE`` even under ``-I``; the
dynamic loader injects ``LD_PRELOAD``/``LD_AUDIT`` libraries."""

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
    return [Problem(s, k, w) for s, w, k in option_problems(sys.flags, sys.pycache_prefix, no_site=False)]


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


def _sealed_start() -> list[Problem]:
    """The sealed start ran: its verified import hook is the only file-system hook (:mod:`.verified`)."""
    closure = verified.CLOSURE
    if closure is not None and sys.path_hooks == [closure.hook]:
        return []
    what = "does not hold the sealed start's verified import hook: start the evaluator with its console script"
    return [Problem("sys.path_hooks", "isolation", what)]


def _trees(layout: Layout, manifest: Manifest) -> list[Problem]:
    """Whole-tree inventories: nothing added to or missing from the standard library, the venv, site-packages."""
    trees = manifest.trees
    problems = tree_problems(layout.stdlib, trees.get("stdlib", {}), manifest.layers["stdlib"], "stdlib")
    if "prefix" in trees:
        problems += tree_problems(layout.prefix, trees["prefix"], manifest.local, "package")
    site_files = {p for layer in ("package", "dependencies") for p in manifest.layers[layer] if not p.startswith("../")}
    site_files.add(f"ablation/{CLOSURE_MANIFEST}")
    problems += tree_problems(layout.site, trees.get("site", {}), site_files, "dependencies", only_folders=True)
    return problems


def check_startup(layout: Layout, manifest: Manifest, environ: Mapping[str, str]) -> list[Problem]:
    """Every problem with how this process was started (empty when it was started as sealed)."""
    problems = _options()
    problems += [Problem(s, k, w) for s, w, k in refused_variables({name for name in environ if environ[name]})]
    problems += _entry_point(layout)
    problems += _import_system(layout)
    problems += _sealed_start()
    problems += _trees(layout, manifest)
    return problems
