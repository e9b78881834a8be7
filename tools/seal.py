"""Seal an installed environment at build time (PRODUCT.md "Closure manifest").

Run by the Makefile and the Dockerfile right after the runtime lock and the
package were installed, with the environment's own interpreter, isolated::

    <prefix>/bin/python -I -B tools/seal.py --lock requirements.lock [--source DIR | --source-tree FILE]
                                            [--environment container]

It imports :mod:`ablation.closure.seal` from the *installed* package (never from
a checkout: ``-I`` keeps this script's folder and the current folder off
``sys.path``) and calls :func:`~ablation.closure.seal.seal_environment`. Prints
the manifest's path relative to ``site-packages``, the file count of each layer
and the source revision; exit 3 with one line when sealing refuses.

The source revision (:mod:`ablation.closure.source`,
docs/decisions/0017-source-revision.md) is measured from the git checkout the
package was built from: ``--source DIR``, by default the checkout this script
belongs to. Git is run read-only (``ablation.prepare.gitread``: no system or
user configuration, no optional locks, so the index is never rewritten; only
``DIR`` itself, never a repository above it). Without git, or when ``DIR`` is
not the top folder of a checkout with a commit, the revision is recorded as
``null`` and this says why. ``--source-tree FILE`` gives the source tree
listed elsewhere instead (the image build: its host lists it, the image has no
git); an empty file records ``null``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent
_LISTED = "ablation"


def _source_tree(checkout: Path) -> tuple[bytes | None, str]:
    """The source tree of ``checkout``'s HEAD (``ablation.closure.source``), or ``None`` and why there is none."""
    from ablation.prepare.gitread import GitFailed, GitReader  # noqa: PLC0415 - from the installed package

    checkout = checkout.resolve()
    git = shutil.which("git")
    if git is None:
        return None, "git is not installed (not on PATH)"
    reader = GitReader(git)
    try:
        bare, top = reader.locate(str(checkout))
    except GitFailed as error:
        return None, f"{checkout} is not a git checkout ({error.why})"
    if bare or not top:
        return None, f"{checkout} is not the top folder of a git checkout"
    try:
        commit = reader.run(str(checkout), "rev-parse", "--verify", "--quiet", "HEAD^{commit}").rstrip(b"\n")
    except GitFailed:
        return None, f"{checkout} has no commit (its HEAD names none)"
    try:
        listing = reader.run(str(checkout), "ls-tree", "-r", "-z", "--full-tree", commit.decode("ascii"), "--", _LISTED)
    except GitFailed as error:
        return None, f"the tree of {checkout}'s HEAD cannot be read ({error.why})"
    return commit + b"\n" + listing, f"the HEAD of {checkout}"


def _revision_line(revision: str | None, why: str) -> str:
    if revision is None:
        return f"seal: source revision unknown (recorded as null): {why}"
    if revision.endswith("-dirty"):
        return f"seal: source revision {revision}: the package files differ from that commit's ({why})"
    return f"seal: source revision {revision} ({why})"


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
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--source",
        type=Path,
        default=_CHECKOUT,
        help="the git checkout the package was built from (default: the one this script belongs to)",
    )
    source.add_argument(
        "--source-tree",
        type=Path,
        help="the source tree listed elsewhere: HEAD's commit id on one line, then "
        "`git ls-tree -r -z --full-tree <commit> -- ablation` (empty: unknown)",
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
    if args.source_tree is not None:
        try:
            tree: bytes | None = args.source_tree.read_bytes() or None
        except OSError as error:
            print(f"seal: cannot read the source tree {args.source_tree}: {error.strerror}", file=sys.stderr)
            return 2
        why = f"listed in {args.source_tree}" if tree else f"{args.source_tree} is empty: no checkout was listed"
    else:
        tree, why = _source_tree(args.source)
    try:
        report = seal_environment(package_dir, args.lock, environment=args.environment, source_tree=tree)
    except IntegrityError as error:
        print(f"seal: {error}", file=sys.stderr)
        return 3
    counts = ", ".join(f"{layer} {count}" for layer, count in report.counts.items())
    print(f"seal: {package_dir.name}/{report.manifest.name} lists {counts} files")
    print(_revision_line(report.source_revision, why))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
