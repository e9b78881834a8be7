"""Generate a benchmark prepared input at scale S, M or L (issue 6).

Usage, from the repository root::

    python3 benchmarks/generate.py --scale L --out benchmarks/data/L.json

The input is made by the project's own test builder (``tests.builders.prepared.synthetic``)
from a seed fixed per scale, so every machine gets the same bytes; the script
prints the output's size and SHA-256 and whether that SHA-256 is the one
recorded below. ``benchmarks/data/`` is git-ignored.

Scales (cases are per repository; every bundle is valid):

====  ============  =====  =====  ==================  ===========  ========
name  repositories  items  cases  evidence / receipt  path bytes   present
====  ============  =====  =====  ==================  ===========  ========
S     2             1 000  10     5                   40–80        60–90 %
M     5             5 000  10     50                  40–80        60–90 %
L     5             20 000 10     200                 40–80        60–90 %
====  ============  =====  =====  ==================  ===========  ========
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.builders.prepared import dumps, synthetic  # noqa: E402 - needs the repository root on sys.path first

__all__ = ["EXPECTED_SHA256", "SCALES", "generate", "main"]

#: Keyword arguments of ``synthetic`` per scale; the seed is part of the scale.
SCALES: Final[dict[str, dict[str, Any]]] = {
    "S": {"n_repositories": 2, "n_items": 1_000, "n_cases": 10, "evidence_per_receipt": 5, "seed": 6001},
    "M": {"n_repositories": 5, "n_items": 5_000, "n_cases": 10, "evidence_per_receipt": 50, "seed": 6002},
    "L": {"n_repositories": 5, "n_items": 20_000, "n_cases": 10, "evidence_per_receipt": 200, "seed": 6003},
}
for _options in SCALES.values():
    _options.update(present_fraction=(0.6, 0.9), path_bytes=(40, 80))

#: SHA-256 of each scale's bytes as generated when the scale was defined.
EXPECTED_SHA256: Final = {
    "S": "68206c0df2b01827bf6d40f06ce780d0a08319159eb6d7acd61a1f9a5b572650",
    "M": "ce421e375f58cee1a9424783eb8a5f384aa1b8199bea340197fcffffa8b8b0de",
    "L": "bb4c62a0f405e3d9d9f38986223be2b3356e18508d77bd570ead11c5c45b7f3b",
}


def generate(scale: str) -> bytes:
    """Return the prepared-input bytes of ``scale`` (``S``, ``M`` or ``L``).

    Raises:
        KeyError: an unknown scale.
    """
    return dumps(synthetic(**SCALES[scale]))


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--scale S|M|L --out FILE``; prints size, SHA-256 and time."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--scale", required=True, choices=sorted(SCALES))
    parser.add_argument("--out", type=Path, help="output file (default: benchmarks/data/<scale>.json)")
    args = parser.parse_args(argv)
    out: Path = args.out or ROOT / "benchmarks" / "data" / f"{args.scale}.json"
    started = time.perf_counter()
    data = generate(args.scale)
    elapsed = time.perf_counter() - started
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    recorded = EXPECTED_SHA256[args.scale]
    status = "as recorded" if digest == recorded else f"DIFFERS from the recorded {recorded or '(none)'}"
    print(f"{out}: scale {args.scale}, {len(data):,} bytes, generated in {elapsed:.1f} s")
    print(f"{digest}  {out.name}  ({status})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
