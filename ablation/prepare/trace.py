"""File-access evidence of an SCI run: the strace invocation and what its trace shows about the index.

``--file-access-trace strace`` runs the exporter under the pinned strace:
``[strace, -f, -qq, -s, 4096, -e, trace=%file, -o, <attempt folder>/trace.txt, <exporter argv…>]``
(:func:`strace_argv`). :func:`read_trace` reads the trace back and classifies
every path a call names (PREPARE.md §4 "Index and ontology"):

- class (a): ``.sci``, ``.semantic-graph`` or ``.ontology`` at the target's top
  level, and everything below them;
- class (b): everything below the per-invocation HOME (HOME itself excluded).

A call *reads* a path when it succeeds (its result is not ``-1``); a failed lookup
(``ENOENT`` and the like) is only counted. A call *creates* a path when it
succeeds and creates: ``open``/``openat``/``openat2`` with ``O_CREAT``, ``creat``,
``mkdir``, ``mknod``, ``symlink`` and ``link`` (their new path), ``rename`` (its
new path). ``indexRead`` is a read of a class-(a) or class-(b) path;
``indexBuilt`` (traced) a class-(a) or class-(b) path created.

Paths are taken as the call names them, never resolved through links. A
relative path is taken relative to the target (the exporter's working
directory); one relative to another directory descriptor cannot be placed and
is counted as unresolved, and so is a path strace cut at 4096 bytes. A process
that calls ``chdir`` has its later relative paths placed under its new working
directory; a process forked after its parent's ``chdir`` is still placed under
the target (``fork`` is not traced). strace is corroboration, not proof.

Spec: PREPARE.md §4 ("file-access evidence", "Index and ontology"), §12.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from ablation.prepare.targets import CLASS_A

__all__ = ["STRACE_OPTIONS", "TraceSummary", "read_trace", "strace_argv"]

STRACE_OPTIONS = ("-f", "-qq", "-s", "4096", "-e", "trace=%file")
"""strace's options before ``-o <trace>`` (PREPARE.md §4)."""

_CALL = re.compile(r"^(\d+)\s+(.*)$")
_NAME = re.compile(r"([a-z_0-9]+)\((.*)$", re.DOTALL)
_RESULT = re.compile(r"\)\s+=\s+(-?\d+|\?)(?:\s+([A-Z][A-Z0-9_]*))?")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"(\.\.\.)?')
_ESCAPES = {"n": 10, "t": 9, "r": 13, "v": 11, "f": 12, "a": 7, "b": 8, "e": 27, '"': 34, "\\": 92}
_CREATING = frozenset({"creat", "mkdir", "mkdirat", "mknod", "mknodat"})
_NEW_LAST = frozenset({"symlink", "symlinkat", "link", "linkat", "rename", "renameat", "renameat2"})
_OPENS = frozenset({"open", "openat", "openat2"})
_DIRFD_CALLS = re.compile(r"^(?:[a-z_0-9]+at2?|faccessat2|statx|newfstatat|fstatat64|name_to_handle_at)$")
_OFFENDING_LIMIT = 20


def strace_argv(strace: str, trace_file: str, exporter: tuple[str, ...]) -> tuple[str, ...]:
    """The traced run's argv: strace with :data:`STRACE_OPTIONS`, ``-o trace_file``, then the exporter's argv."""
    return (strace, *STRACE_OPTIONS, "-o", trace_file, *exporter)


def _unescape(text: str) -> str:
    """A string as strace prints it (C escapes, octal and hex bytes) back to its text (surrogate-escaped bytes)."""
    out = bytearray()
    k = 0
    while k < len(text):
        ch = text[k]
        if ch != "\\" or k + 1 == len(text):
            out += ch.encode("utf-8", "surrogateescape")
            k += 1
            continue
        nxt = text[k + 1]
        octal = re.match(r"[0-7]{1,3}", text[k + 1 :])
        if octal:
            out.append(int(octal.group(), 8) & 0xFF)
            k += 1 + len(octal.group())
        elif nxt == "x" and re.match(r"[0-9a-fA-F]{2}", text[k + 2 : k + 4]):
            out.append(int(text[k + 2 : k + 4], 16))
            k += 4
        else:
            out.append(_ESCAPES.get(nxt, ord(nxt) if nxt.isascii() else 63))
            k += 2
    return out.decode("utf-8", "surrogateescape")


@dataclass(slots=True)
class TraceSummary:
    """What a trace shows (the record's per-case trace summary).

    Attributes:
        calls: traced calls read from the trace.
        reads: successful calls on a class-(a) / class-(b) path.
        failed_lookups: failed calls on a class-(a) / class-(b) path (not reads).
        created: class-(a) / class-(b) paths created.
        unresolved: paths that could not be placed (relative to a directory descriptor, or cut).
        chdir: successful ``chdir`` calls.
        offending: the first 20 calls that read or created a class-(a) or class-(b) path.
    """

    calls: int = 0
    reads: dict[str, int] = field(default_factory=lambda: {"a": 0, "b": 0})
    failed_lookups: dict[str, int] = field(default_factory=lambda: {"a": 0, "b": 0})
    created: dict[str, int] = field(default_factory=lambda: {"a": 0, "b": 0})
    unresolved: int = 0
    chdir: int = 0
    offending: list[str] = field(default_factory=list)

    @property
    def index_read(self) -> bool:
        """``indexRead``: a successful access to a class-(a) or class-(b) path."""
        return any(self.reads.values())

    @property
    def index_built(self) -> bool:
        """``indexBuilt`` as the trace shows it: a class-(a) or class-(b) path created."""
        return any(self.created.values())

    def as_record(self) -> dict[str, object]:
        """The summary as ``extras.json`` carries it."""
        return {
            "calls": self.calls,
            "reads": dict(self.reads),
            "failedLookups": dict(self.failed_lookups),
            "created": dict(self.created),
            "unresolvedPaths": self.unresolved,
            "chdirCalls": self.chdir,
            "offending": list(self.offending),
        }


def _classify(path: str, target: str, home: str) -> str | None:
    normal = posixpath.normpath(path)
    for name in CLASS_A:
        top = posixpath.join(target, name)
        if normal == top or normal.startswith(top + "/"):
            return "a"
    return "b" if normal.startswith(home.rstrip("/") + "/") else None


def _joined(lines: list[str]) -> list[tuple[str, str]]:
    """``(pid, call text)`` with every ``<unfinished ...>`` call joined to its ``<... resumed>`` rest."""
    pending: dict[str, str] = {}
    calls = []
    for line in lines:
        match = _CALL.match(line)
        if match is None:
            continue
        pid, text = match.groups()
        if text.endswith("<unfinished ...>"):
            pending[pid] = text.removesuffix("<unfinished ...>")
        elif text.startswith("<... ") and " resumed>" in text:
            calls.append((pid, pending.pop(pid, "") + text.split(" resumed>", 1)[1]))
        elif not text.startswith(("---", "+++")):
            calls.append((pid, text))
    return calls


def _arguments(args: str) -> list[str]:
    """A call's arguments at the top level: split at commas outside strings, arrays and structures."""
    found, depth, quoted, start, k = [], 0, False, 0, 0
    while k < len(args):
        ch = args[k]
        if quoted:
            if ch == "\\":
                k += 1
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        elif ch == "," and depth == 0:
            found.append(args[start:k].strip())
            start = k + 1
        k += 1
    found.append(args[start:].strip())
    return found


def _paths(name: str, args: str, target: str) -> tuple[list[str], int]:
    """The paths a call names, placed (a relative one under ``target``); how many could not be placed."""
    arguments = _arguments(args)
    strings = [k for k, a in enumerate(arguments) if _STRING.fullmatch(a)]
    if name.startswith("symlink"):
        strings = strings[-1:]  # the first string is the link's text, not a path
    elif name.startswith("readlink") or name == "getcwd":
        strings = [] if name == "getcwd" else strings[:1]  # the other string is what the call returned
    found, unresolved = [], 0
    for k in strings:
        m = _STRING.fullmatch(arguments[k])
        assert m is not None
        path = _unescape(m.group(1))
        if m.group(2) or (
            path and not path.startswith("/") and k > 0 and _DIRFD_CALLS.match(name) and arguments[k - 1] != "AT_FDCWD"
        ):
            unresolved += 1
        elif path:
            found.append(path if path.startswith("/") else posixpath.join(target, path))
    return found, unresolved


def read_trace(text: str, *, target: str, home: str) -> TraceSummary:
    """Classify every path of every call in a trace (module docstring).

    Args:
        text: the trace file's text.
        target: the target's absolute path (the exporter's working directory).
        home: the per-invocation HOME.
    """
    summary = TraceSummary()
    cwd: dict[str, str] = {}
    for pid, call in _joined(text.splitlines()):
        match = _NAME.match(call)
        if match is None:
            continue
        name, rest = match.groups()
        result = _RESULT.search(rest)
        args = rest[: result.start()] if result else rest
        ok = result is not None and not result.group(1).startswith("-") and result.group(1) != "?"
        summary.calls += 1
        paths, unresolved = _paths(name, args, cwd.get(pid, target))
        if name == "chdir" and ok and paths:
            summary.chdir += 1
            cwd[pid] = posixpath.normpath(paths[0])
        summary.unresolved += unresolved
        for k, path in enumerate(paths):
            cls = _classify(path, target, home)
            if cls is None:
                continue
            if not ok:
                summary.failed_lookups[cls] += 1
                continue
            creates = (
                name in _CREATING
                or (name in _OPENS and "O_CREAT" in args)
                or (name in _NEW_LAST and k == len(paths) - 1)
            )
            summary.reads[cls] += 1
            if creates:
                summary.created[cls] += 1
            if len(summary.offending) < _OFFENDING_LIMIT:
                summary.offending.append(f"{pid} {call.strip()}"[:600])
    return summary
