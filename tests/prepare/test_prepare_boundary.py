"""The evaluator never loads preparation and never loads ``subprocess`` (PREPARE.md §9.1, §11 criterion 10).

Dynamic: in one child process, each evaluator command (``run``, ``verify``,
``identity``, ``archive``, ``verify-archive``, ``notes``, ``keygen``) runs on the
bundled example, and after each ``sys.modules`` holds neither ``subprocess`` nor
any ``ablation.prepare`` module. Static: no module outside ``ablation/prepare/``
imports ``ablation.prepare``, and ``subprocess`` is imported only under
``ablation/prepare/`` and by the build-time ``ablation/closure/seal.py``.

Spec: PREPARE.md §1 principle 1, §9.1.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "prepared-input.json"

_CHILD = r"""
import contextlib, io, json, sys
from ablation.cli import main

folder, example, sha = sys.argv[1:]
commands = [
    ("run", ["run", "--input", example, "--input-sha256", sha, "--output", f"{folder}/out.json"]),
    ("verify", ["verify", "--input", example, "--input-sha256", sha]),
    ("identity", ["identity"]),
    ("archive", ["archive", "--input", example, "--results", f"{folder}/out.json", "--bundle", f"{folder}/b.tar.gz"]),
    ("verify-archive", ["verify-archive", f"{folder}/b.tar.gz"]),
    ("notes", ["notes", "--results", f"{folder}/out.json"]),
    ("keygen", ["keygen", "--private-key", f"{folder}/k.pem", "--public-key", f"{folder}/k.pub"]),
]
found = []
for name, argv in commands:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(argv)
    loaded = sorted(m for m in sys.modules if m == "subprocess" or m.startswith("ablation.prepare"))
    found.append([name, code, loaded])
print(json.dumps(found))
"""


def test_no_evaluator_command_loads_subprocess_or_preparation(tmp_path: Path) -> None:
    sha = EXAMPLE.with_name(EXAMPLE.name + ".sha256").read_text(encoding="utf-8").split()[0]
    completed = subprocess.run(
        [sys.executable, "-c", _CHILD, str(tmp_path), str(EXAMPLE), sha],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(completed.stdout) == [
        ["run", 0, []],
        ["verify", 0, []],
        ["identity", 0, []],
        ["archive", 0, []],
        ["verify-archive", 0, []],
        ["notes", 0, []],
        ["keygen", 0, []],
    ]


def _imports(path: Path) -> set[str]:
    """Every module a file imports (``import a.b`` gives ``a.b``; ``from a import b`` gives ``a`` and ``a.b``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _modules() -> dict[str, set[str]]:
    return {p.relative_to(ROOT).as_posix(): _imports(p) for p in sorted((ROOT / "ablation").rglob("*.py"))}


def test_only_preparation_imports_preparation() -> None:
    offenders = [
        name
        for name, imported in _modules().items()
        if not name.startswith("ablation/prepare/")
        and any(m == "ablation.prepare" or m.startswith("ablation.prepare.") for m in imported)
    ]
    assert offenders == []


# The modules that may start processes. Under ablation/prepare/ the audited read-only git
# helper (pin, check, sheet) and capture's own spawning module (owners and capture's git).
SPAWNING = {"ablation/closure/seal.py", "ablation/prepare/gitread.py", "ablation/prepare/spawn.py"}


def test_subprocess_is_imported_only_where_processes_may_start() -> None:
    importing = {name for name, imported in _modules().items() if "subprocess" in imported}
    assert importing == SPAWNING
    assert all(name.startswith("ablation/prepare/") or name == "ablation/closure/seal.py" for name in importing)
