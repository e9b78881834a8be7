"""Check the size limits of issue 13: no module over 400 lines, no function over 60 lines.

    .venv-dev/bin/python tools/sizecheck.py [ROOT ...]   (default: ablation)

A function's length runs from its ``def`` line (decorators excluded) to its
last line, docstring and nested functions included. Prints one line per
module or function over its limit and exits 1 when there is any, else 0.

:data:`PENDING` lists what is over a limit and waits for its own split; each
may not grow past the size recorded there, and the list only shrinks. It is
empty: every module and function is within the limits.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60

# "<path>" (the module) or "<path>:<function>" -> the size it may not exceed until it is split.
PENDING: dict[str, int] = {}


def problems(path: Path) -> list[str]:
    """The limits one Python file breaks, as ``<path>:<line>: …`` lines."""
    text = path.read_text(encoding="utf-8")
    found = []
    lines = len(text.splitlines())
    limit = PENDING.get(path.as_posix(), MAX_MODULE_LINES)
    if lines > limit:
        found.append(f"{path}:1: module has {lines} lines (limit {limit})")
    for node in ast.walk(ast.parse(text, filename=str(path))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            limit = PENDING.get(f"{path.as_posix()}:{node.name}", MAX_FUNCTION_LINES)
            if length > limit:
                found.append(f"{path}:{node.lineno}: {node.name} has {length} lines (limit {limit})")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("roots", nargs="*", type=Path, default=[Path("ablation")])
    args = parser.parse_args(argv)
    found = [p for root in args.roots for file in sorted(root.rglob("*.py")) for p in problems(file)]
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
