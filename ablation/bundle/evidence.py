"""``archive --evidence``: the files and folders an operator adds under ``extra/``, read in one careful walk.

Nothing outside what was named gets in, and nothing inside is left out
silently (issue 23 item 1):

- every folder is opened relative to its parent's descriptor with
  ``O_NOFOLLOW | O_DIRECTORY``, every file with ``O_NOFOLLOW``, and the
  opened object must be the one the listing saw (device, inode and type), so
  a folder swapped for a symbolic link, or for another folder, after it was
  listed is never followed;
- a symbolic link, a FIFO, a socket or a device, and anything that cannot be
  listed, opened or read, stops ``archive`` (exit 2, one line naming the
  path); an entry that changed between listing and reading, or while it was
  read, stops it too (exit 3);
- the walk keeps its own stack (no recursion), and is bounded: at most
  :data:`MAX_DEPTH` folder levels below a given folder and
  :data:`MAX_ENTRIES` files and folders over all ``--evidence`` paths
  together (exit 2 beyond).

Only the last component of a given path is held to this: the folders leading
to it may be links. PRODUCT.md "Evidence bundle" (``extra/``).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ablation.bundle.layout import MAX_MEMBER_BYTES, check_name, utf8_key
from ablation.errors import RESOURCE_ERRNOS, AblationError, IntegrityError, ResourcesExhausted, UsageError
from ablation.files import describe_kind

__all__ = ["MAX_DEPTH", "MAX_ENTRIES", "collect_extras"]

MAX_DEPTH = 64  # folder levels below a folder given as --evidence
MAX_ENTRIES = 100_000  # files and folders over all --evidence paths together
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_FOLDER_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC
# What open() says when the entry is no longer what was listed: gone, now a link, no longer a folder.
_CHANGED_ERRNOS = frozenset({errno.ENOENT, errno.ELOOP, errno.ENOTDIR, errno.ENXIO})


def _identity(status: os.stat_result) -> tuple[int, int, int]:
    return status.st_dev, status.st_ino, stat.S_IFMT(status.st_mode)


@dataclass
class _Folder:
    """One open folder of the walk: its descriptor, its path below the given folder, its sub-folders to visit."""

    fd: int
    rel: str
    pending: list[tuple[str, os.stat_result]] = field(default_factory=list)


class _Walk:
    """The walk of one ``--evidence`` path; ``found`` maps its path below the given one to the bytes read."""

    def __init__(self, given: str, seen: int) -> None:
        self.given = given
        self.path = str(Path(given))  # a trailing "/" would make the kernel follow a link
        self.seen = seen
        self.found: list[tuple[str, bytes]] = []

    def _shown(self, rel: str) -> str:
        return self.path if not rel else os.path.join(self.path, rel)

    def _unreadable(self, rel: str, exc: OSError) -> AblationError:
        where = (
            f"--evidence {self.given!r}" if not rel else f"evidence {self._shown(rel)!r} (in --evidence {self.given!r})"
        )
        msg = f"cannot read {where}: {exc.strerror or exc}"
        return ResourcesExhausted(msg) if exc.errno in RESOURCE_ERRNOS else UsageError(msg)

    def _changed(self, rel: str, listed: os.stat_result | None, then: str) -> IntegrityError:
        what = repr(rel) if rel else "it"
        was = (
            f"listed as {describe_kind(listed.st_mode)}, device {listed.st_dev} inode {listed.st_ino}; then {then}"
            if listed is not None
            else then
        )
        msg = (
            f"--evidence {self.given!r}: {what} changed between listing and reading ({was}); "
            "archive again once the evidence no longer changes"
        )
        return IntegrityError(msg)

    def _count(self, rel: str) -> None:
        self.seen += 1
        if self.seen > MAX_ENTRIES:
            msg = f"--evidence holds more than {MAX_ENTRIES} files and folders in all (at {self._shown(rel)!r})"
            raise UsageError(msg)

    def _refuse_kind(self, rel: str, mode: int) -> None:
        """A symbolic link or a special file (exit 2); folders and regular files pass."""
        if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
            return
        if not rel:
            if stat.S_ISLNK(mode):
                msg = (
                    f"--evidence {self.given!r} is a symbolic link; symbolic links are never followed "
                    "(give the file or folder it points to)"
                )
            else:
                msg = f"--evidence {self.given!r} is {describe_kind(mode)}, not a regular file or a folder"
        elif stat.S_ISLNK(mode):
            msg = f"--evidence {self.given!r} holds a symbolic link {rel!r}; only regular files are archived"
        else:
            msg = f"--evidence {self.given!r} holds {rel!r}, which is {describe_kind(mode)}, not a regular file"
        raise UsageError(msg)

    def _open(self, parent: int | None, name: str, rel: str, listed: os.stat_result) -> int:
        """Open what the listing saw at ``name`` (relative to ``parent``), checked to be that very object."""
        flags = _FOLDER_FLAGS if stat.S_ISDIR(listed.st_mode) else _FILE_FLAGS
        try:
            fd = os.open(name, flags, dir_fd=parent)
        except OSError as exc:
            if exc.errno in _CHANGED_ERRNOS:
                raise self._changed(rel, listed, f"opening it failed: {exc.strerror or exc}") from None
            raise self._unreadable(rel, exc) from None
        try:
            opened = os.fstat(fd)
            if _identity(opened) != _identity(listed):
                then = f"{describe_kind(opened.st_mode)}, device {opened.st_dev} inode {opened.st_ino}"
                raise self._changed(rel, listed, then)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _read(self, parent: int | None, name: str, rel: str, listed: os.stat_result) -> bytes:
        """The bytes of a regular file, unchanged while it was read."""
        if listed.st_size > MAX_MEMBER_BYTES:
            msg = f"--evidence file {self._shown(rel)!r} is larger than 1 GiB"
            raise UsageError(msg)
        fd = self._open(parent, name, rel, listed)
        parts: list[bytes] = []
        total = 0
        try:
            while total <= listed.st_size:  # one read of the listed size plus one byte, unless it changes
                chunk = os.read(fd, listed.st_size + 1 - total)
                if not chunk:
                    break
                parts.append(chunk)
                total += len(chunk)
            after = os.fstat(fd)
        except OSError as exc:
            raise self._unreadable(rel, exc) from None
        finally:
            os.close(fd)
        if (total, after.st_size, after.st_mtime_ns) != (listed.st_size, listed.st_size, listed.st_mtime_ns):
            raise self._changed(rel, listed, f"{total} bytes read, size {after.st_size} after reading")
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def _list(self, folder: _Folder) -> None:
        """Read the regular files of ``folder`` now; note its sub-folders in ``folder.pending``."""
        try:
            names = sorted(os.listdir(folder.fd), key=utf8_key, reverse=True)
        except OSError as exc:
            raise self._unreadable(folder.rel, exc) from None
        for name in names:
            rel = f"{folder.rel}/{name}" if folder.rel else name
            self._count(rel)
            try:
                listed = os.stat(name, dir_fd=folder.fd, follow_symlinks=False)
            except OSError as exc:
                if exc.errno == errno.ENOENT:
                    raise self._changed(rel, None, "listed, then gone") from None
                raise self._unreadable(rel, exc) from None
            self._refuse_kind(rel, listed.st_mode)
            if stat.S_ISDIR(listed.st_mode):
                folder.pending.append((name, listed))
            else:
                self.found.append((rel, self._read(folder.fd, name, rel, listed)))

    def _descend(self, root: int) -> None:
        """Visit the folder open as ``root`` and everything below it, depth first, with an explicit stack."""
        stack = [_Folder(root, "")]
        try:
            self._list(stack[0])
            while stack:
                top = stack[-1]
                if not top.pending:
                    stack.pop()
                    os.close(top.fd)
                    continue
                name, listed = top.pending.pop()
                rel = f"{top.rel}/{name}" if top.rel else name
                if len(stack) > MAX_DEPTH:
                    msg = f"--evidence {self.given!r} is more than {MAX_DEPTH} folder levels deep at {rel!r}"
                    raise UsageError(msg)
                stack.append(_Folder(self._open(top.fd, name, rel, listed), rel))
                self._list(stack[-1])
        finally:
            for folder in stack:
                os.close(folder.fd)

    def run(self) -> bool:
        """Walk the given path; whether it is a folder (else ``found`` holds the one file, at ``""``)."""
        try:
            listed = os.lstat(self.path)
        except OSError as exc:
            if exc.errno == errno.ENOENT:
                msg = f"--evidence {self.given!r} does not exist"
                raise UsageError(msg) from None
            raise self._unreadable("", exc) from None
        self._count("")
        self._refuse_kind("", listed.st_mode)
        if not stat.S_ISDIR(listed.st_mode):
            self.found.append(("", self._read(None, self.path, "", listed)))
            return False
        self._descend(self._open(None, self.path, "", listed))
        return True


def _evidence_name(given: str) -> str:
    name = Path(given).name
    if name in ("", ".", ".."):
        name = Path(os.path.abspath(given)).name
    if not name:
        msg = f"cannot name --evidence {given!r} in the bundle"
        raise UsageError(msg)
    return name


def collect_extras(paths: Iterable[str]) -> dict[str, bytes]:
    """``extra/<name>`` for each ``--evidence`` file; a folder gives its regular files, relative paths kept.

    The walk is the module's (above): no symbolic link is followed, nothing
    unreadable or special is skipped, what changed while being read is
    refused. Empty folders are not recorded.

    Raises:
        UsageError: a path that does not exist, cannot be read, is or holds a
            symbolic link or a special file, is deeper than :data:`MAX_DEPTH`
            or holds more than :data:`MAX_ENTRIES` entries in all; an
            unlistable name (see :func:`check_name`); two evidence files with
            the same bundle path (exit 2).
        IntegrityError: an entry changed between listing and reading (exit 3).
        ResourcesExhausted: no file descriptor or kernel memory (exit 6).
    """
    extras: dict[str, bytes] = {}

    def add(rel: str, data: bytes, given: str) -> None:
        check_name(rel, "evidence file")
        key = f"extra/{rel}"
        if key in extras or any(k.startswith(key + "/") or key.startswith(k + "/") for k in extras):
            msg = f"--evidence {given!r} collides with another evidence file at {key!r}"
            raise UsageError(msg)
        extras[key] = data

    seen = 0
    for given in paths:
        name = _evidence_name(given)
        walk = _Walk(given, seen)
        folder = walk.run()
        seen = walk.seen
        for rel, data in sorted(walk.found, key=lambda item: utf8_key(item[0])):
            add(f"{name}/{rel}" if folder else name, data, given)
    return extras
