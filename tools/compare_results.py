"""Compare the input-determined members of two ablation output files, byte for byte.

Usage: ``python tools/compare_results.py A.results.json B.results.json [MEMBER ...]``
(default members: ``result`` and ``gateAssessment``). Exit 0 when every named
member has identical bytes in both files, 1 otherwise (naming the member).

The output file is written with a 2-space indent (PRODUCT.md "The output
file"), so a top-level member starts at a line ``  "<name>": `` and runs to the
next such line; JSON strings never hold a raw newline, so no string can fake
one. The bytes compared are the file's own, never a re-serialisation.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

_TOP_MEMBER = re.compile(rb'^  "([^"\\]*)": ', re.MULTILINE)


def top_level_members(data: bytes) -> dict[str, bytes]:
    """The exact bytes of each top-level member's value, by name, in file order."""
    starts = list(_TOP_MEMBER.finditer(data))
    members: dict[str, bytes] = {}
    for index, match in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else data.rindex(b"}")
        members[match.group(1).decode("utf-8")] = data[match.end() : end].rstrip(b",\n")
    order = list(json.loads(data))
    if list(members) != order:
        msg = f"top-level members {list(members)} do not match the parsed order {order}"
        raise ValueError(msg)
    return members


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    first, second, *names = argv
    names = names or ["result", "gateAssessment"]
    a = top_level_members(Path(first).read_bytes())
    b = top_level_members(Path(second).read_bytes())
    status = 0
    for name in names:
        if name not in a or name not in b:
            print(f"compare: {name} is missing from {first if name not in a else second}", file=sys.stderr)
            status = 1
        elif a[name] != b[name]:
            print(f"compare: {name} differs ({len(a[name])} and {len(b[name])} bytes)", file=sys.stderr)
            status = 1
        else:
            print(f"compare: {name} identical ({len(a[name])} bytes)")
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
