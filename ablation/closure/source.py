"""The source revision: the git commit a sealed package was built from, and whether its files are that commit's.

Measured once, at sealing (:func:`ablation.closure.seal.seal_environment`), and
recorded in the closure manifest (``package.sourceRevision``), from which the
identity reads it (``measured.package.sourceRevision``). The evaluator never
starts git: whoever seals hands in the *source tree* of the commit, the bytes::

    <commit id>\\n
    <git ls-tree -r -z --full-tree <commit id> -- ablation>

that is, the commit's id on one line, then one NUL-terminated record per path
tracked below ``ablation/`` (``<mode> <type> <object id>\\t<path>``). The seal
tool (``tools/seal.py``) reads it from the checkout with git, read-only; the
image build's host does the same (``tools/image.sh``) and passes the file in,
since the image has no git. This module only parses and compares; it needs no
git.

The revision is ``<commit id>`` when the package's files — the sources the
wheel installed below ``ablation/``; the bytecode, the lock copy and the
manifest, which sealing writes, left out — are exactly the commit's files below
``ablation/``: the same paths, each with the bytes of the commit's blob (equal
git object ids, SHA-1 or SHA-256 as the repository uses). Otherwise it is
``<commit id>-dirty``: a file edited, added (tracked or not) or missing, or a
path the commit holds as a symbolic link or submodule. ``None`` when no source
tree was handed in (not a git checkout, no git: docs/decisions/0017-source-revision.md).

The revision names where the code came from; it proves nothing about what ran.
That is the closure's work (the package layer's digest and the run-time check).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ablation import PACKAGE_NAME
from ablation.errors import IntegrityError

__all__ = [
    "DIRTY",
    "SourceTree",
    "installed_sources",
    "parse_source_tree",
    "source_revision",
]

DIRTY = "-dirty"
"""The suffix of a revision whose package files differ from the commit's."""

_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_RECORD = re.compile(rb"([0-7]{6}) (blob|tree|commit) ([0-9a-f]{40}|[0-9a-f]{64})\t([^\0]+)")
_REGULAR = (b"100644", b"100755")
_PREFIX = f"{PACKAGE_NAME}/"


@dataclass(frozen=True, slots=True)
class SourceTree:
    """A commit and its files below ``ablation/``, as the source tree lists them.

    Attributes:
        commit: the commit id (40 hex digits, or 64 in a SHA-256 repository).
        blobs: path (``ablation/…``) → git object id of each regular file.
        other: the paths below ``ablation/`` the commit holds otherwise (a symbolic link, a submodule).
    """

    commit: str
    blobs: Mapping[str, str]
    other: tuple[str, ...] = ()


def _malformed(why: str) -> IntegrityError:
    return IntegrityError(f"closure: the source tree {why}; list it again (tools/seal.py --help)")


def parse_source_tree(data: bytes) -> SourceTree:
    r"""The source tree's bytes (see the module) as a :class:`SourceTree`.

    >>> tree = parse_source_tree(b"a" * 40 + b"\n100644 blob " + b"b" * 40 + b"\tablation/x.py\0")
    >>> tree.blobs
    {'ablation/x.py': 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'}

    Raises:
        IntegrityError: ``closure: the source tree …`` when the commit line or a record is not what git prints,
            an object id is not as long as the commit id, or a path is not below ``ablation/``.
    """
    head, newline, listing = data.partition(b"\n")
    commit = head.decode("ascii", "replace")
    if not newline or _COMMIT.fullmatch(commit) is None:
        raise _malformed("does not start with a commit id on its own line")
    if listing and not listing.endswith(b"\0"):
        raise _malformed("does not end with a NUL-terminated ls-tree record")
    blobs: dict[str, str] = {}
    other: list[str] = []
    for record in listing.split(b"\0")[:-1]:
        match = _RECORD.fullmatch(record)
        if match is None or len(match.group(3)) != len(commit):
            raise _malformed(f"holds a record that is not git ls-tree -r -z output: {record[:120]!r}")
        try:
            path = match.group(4).decode("utf-8")
        except UnicodeDecodeError:
            raise _malformed(f"names a path that is not UTF-8: {match.group(4)[:120]!r}") from None
        if not path.startswith(_PREFIX) or path in blobs or path in other:
            raise _malformed(f"lists {path!r}, which is not one path below {_PREFIX}")
        if match.group(1) in _REGULAR and match.group(2) == b"blob":
            blobs[path] = match.group(3).decode("ascii")
        else:
            other.append(path)
    return SourceTree(commit=commit, blobs=blobs, other=tuple(other))


def _blob_id(data: bytes, length: int) -> str:
    """The git object id of a blob holding ``data``: SHA-1 (40 hex digits) or SHA-256 (64) of header and bytes.

    >>> _blob_id(b"", 40)
    'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'
    """
    digest = hashlib.sha1(usedforsecurity=False) if length == 40 else hashlib.sha256()
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


def installed_sources(site: Path, owned: Iterable[str]) -> dict[str, bytes]:
    """The package's installed sources: each file below ``ablation/`` its ``RECORD`` lists, bytecode left out.

    ``owned`` are the paths of the package distribution's ``RECORD``, relative
    to ``site``; a listed file that is not there is left out (so it counts as
    missing).
    """
    found = {}
    for relative in owned:
        if not relative.startswith(_PREFIX) or relative.endswith(".pyc") or "/__pycache__/" in relative:
            continue
        path = site / relative
        if path.is_file():
            found[relative] = path.read_bytes()
    return found


def source_revision(tree: SourceTree, files: Mapping[str, bytes]) -> str:
    """``<commit>`` when ``files`` (path below ``ablation/`` → bytes) are exactly the commit's, else ``<commit>-dirty``.

    >>> tree = SourceTree("c" * 40, {"ablation/x.py": "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"})
    >>> source_revision(tree, {"ablation/x.py": b""}) == "c" * 40
    True
    >>> source_revision(tree, {"ablation/x.py": b"", "ablation/y.py": b""}) == "c" * 40 + "-dirty"
    True
    """
    length = len(tree.commit)
    same = not tree.other and files.keys() == tree.blobs.keys()
    same = same and all(_blob_id(data, length) == tree.blobs[path] for path, data in files.items())
    return tree.commit if same else tree.commit + DIRTY
