"""Seal an installed environment at build time (PRODUCT.md "Closure manifest").

Run by the Makefile and the Dockerfile right after the runtime lock and the
package were installed, with the environment's own interpreter, isolated::

    <prefix>/bin/python -I -B tools/seal.py --lock requirements.lock [--environment container]

It imports :mod:`ablation.closure.seal` from the *installed* package (never from
a checkout: ``-I`` keeps this script's folder and the current folder off
``sys.path``) and calls :func:`~ablation.closure.seal.seal_environment`. Prints
the manifest's path relative to ``site-packages`` and the file count of each
layer; exit 3 with one line when sealing refuses.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--lock", type=Path, required=True, help="the runtime requirements.lock installed from")
    parser.add_argument(
        "--site",
        type=Path,
        help="the site-packages folder the package is installed in, when it is not this interpreter's own (Nix)",
    )
    parser.add_argument(
        "--environment",
        choices=("container",),
        help="record the kind of environment sealed (the image build: container); default: measured",
    )
    args = parser.parse_args(argv)
    if not sys.flags.isolated:
        print(
            "seal: run me isolated: <prefix>/bin/python -I -B tools/seal.py --lock requirements.lock", file=sys.stderr
        )
        return 2
    if args.site is not None:
        sys.path.insert(0, str(args.site))
    import ablation  # noqa: PLC0415 - only once the interpreter is known to be isolated
    from ablation.closure.seal import seal_environment  # noqa: PLC0415 - only once the interpreter is known to be isolated
    from ablation.errors import IntegrityError  # noqa: PLC0415 - only once the interpreter is known to be isolated

    package_dir = Path(ablation.__file__).resolve().parent
    if (package_dir.parent / "pyproject.toml").is_file():
        print(f"seal: refusing to seal a checkout ({package_dir}); seal the installed package", file=sys.stderr)
        return 2
    try:
        report = seal_environment(package_dir, args.lock, environment=args.environment)
    except IntegrityError as error:
        print(f"seal: {error}", file=sys.stderr)
        return 3
    counts = ", ".join(f"{layer} {count}" for layer, count in report.counts.items())
    print(f"seal: {package_dir.name}/{report.manifest.name} lists {counts} files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
