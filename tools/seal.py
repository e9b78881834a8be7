"""Seal an installed ``ablation`` package at build time (PRODUCT.md "Sealed environment").

Run by the Dockerfile and the Makefile right after ``pip install --no-deps
--no-build-isolation .``::

    <venv>/bin/python -I tools/seal.py --lock requirements.lock

It imports ``ablation.identity`` from the *installed* package (never from a
checkout: ``-I`` keeps the current folder off ``sys.path``), then copies the
lock into the package, compiles its bytecode and writes the closure manifest
(:func:`ablation.identity.seal_package`). Prints the manifest's path relative
to the package's parent and the number of files it lists.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lock", type=Path, required=True, help="the requirements.lock installed from")
    parser.add_argument(
        "--site",
        type=Path,
        help="folder holding the installed package (default: where this interpreter imports it from)",
    )
    args = parser.parse_args(argv)
    if args.site is not None:
        sys.path.insert(0, str(args.site.resolve()))
    import ablation
    from ablation.identity import seal_package

    package_dir = Path(ablation.__file__).resolve().parent
    if (package_dir.parent / "pyproject.toml").is_file():
        print(f"seal: refusing to seal a checkout ({package_dir}); seal the installed package", file=sys.stderr)
        return 2
    manifest = seal_package(package_dir, args.lock)
    count = len(json.loads(manifest.read_text(encoding="utf-8"))["files"])
    print(f"seal: {package_dir.name}/{manifest.name} lists {count} files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
