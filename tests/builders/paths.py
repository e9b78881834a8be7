"""Where the tests find the repository, the shared corpus beside it and the sealed environment.

``tests/conftest.py`` turns these into fixtures (``root``, ``shared``,
``sealed_venv``); module-level constants (parametrize lists, ``skipif``) use
them directly. ``../shared`` is the folder beside the repository that holds
the spec, the conformance corpus and the real-repository inputs; tests that
need it are skipped, with :data:`SHARED_ABSENT` as the reason, when it is not
there.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
"""The repository (the folder holding ``ablation/`` and ``tests/``)."""

SHARED = ROOT.parent / "shared"
"""``../shared``: spec, conformance corpus and real-repository inputs (never copied into the repository)."""

CONFORMANCE = SHARED / "conformance"
INPUTS = SHARED / "inputs"
SPEC = SHARED / "spec" / "SPEC.md"
SHARED_ABSENT = f"../shared is not beside the repository ({SHARED}): the shared corpus, inputs and spec are absent"

VENV = ROOT / ".venv"
"""The sealed runtime that ``make test`` builds before the tests run."""

SEALED_ABSENT = "needs the sealed .venv that `make test` builds first (make venv)"

EXAMPLE = ROOT / "examples" / "prepared-input.json"
"""The bundled example prepared input."""

EXAMPLE_SHA256 = (ROOT / "examples" / "prepared-input.json.sha256").read_text(encoding="utf-8").split()[0]


def is_sealed(venv: Path = VENV) -> bool:
    """Whether ``venv`` is a sealed environment (its package carries the closure manifest)."""
    return (venv / "lib" / "python3.11" / "site-packages" / "ablation" / "CLOSURE.json").is_file()


def load_script(path: Path, name: str | None = None) -> ModuleType:
    """Import a script that is not in a package (``tools/``, ``examples/``, ``benchmarks/``) as module ``name``.

    The module is registered in ``sys.modules`` first, as dataclasses need while their class is made.
    """
    spec = importlib.util.spec_from_file_location(name or path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def load_tool(name: str) -> ModuleType:
    """Import ``tools/<name>.py`` as module ``name``."""
    return load_script(ROOT / "tools" / f"{name}.py", name)
