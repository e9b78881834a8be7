"""Check the size limits of issue 13: no module over 400 lines, no function over 60 lines.

    .venv-dev/bin/python tools/sizecheck.py [ROOT ...]   (default: ablation)

A function's length runs from its ``def`` line (decorators excluded) to its
last line, docstring and nested functions included. Prints one line per
module or function over its limit and exits 1 when there is any, else 0.

:data:`PENDING` lists what is over a limit today and waits for its own split
(``ablation/contracts/``, while the rule-pinning tests are being written); each
may not grow past the size recorded there, and the list only shrinks.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60

# "<path>" (the module) or "<path>:<function>" -> the size it may not exceed until it is split.
PENDING = {
    "ablation/contracts/cases.py:validate_cases": 137,
    "ablation/contracts/execution.py": 441,
    "ablation/contracts/execution.py:check_observation": 69,
    "ablation/contracts/git_index.py:validate_git_evidence": 67,
    "ablation/contracts/preparation.py:validate_preparation": 125,
    "ablation/contracts/sci_receipt.py": 495,
    "ablation/contracts/sci_receipt.py:check_receipt": 62,
    "ablation/contracts/sci_receipt.py:_check_entry": 73,
    "ablation/contracts/source_list.py": 446,
    "ablation/contracts/source_list.py:_validate_items": 110,
    "ablation/contracts/staleness.py:validate_staleness": 77,
    "ablation/contracts/structural.py:check_receipt_binding": 70,
}


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
