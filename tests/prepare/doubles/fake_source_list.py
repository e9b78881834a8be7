#!/usr/bin/env python3
"""Stand-in for the source-list owner (``source-list.v1``), for tests only (PREPARE.md §10).

Run as ``[python3, fake_source_list.py, --repo, ., --full-list, --json]`` with the
target checkout as the working directory; any other argv is refused (exit 2).
It runs ``git ls-files --cached --stage -z`` itself and prints the closed
``source-list.v1`` inventory envelope of SPEC.md §4.3 with
``json.dumps(payload, indent=2, ensure_ascii=False) + "\\n"``.

Independent of the evaluator on purpose: nothing here imports ``ablation``,
so a bug in ``ablation.text.extname`` or in the GIT derivation cannot hide on
both sides of SL-16 and GIT-10/11. Standard library only.

Items are the tracked paths whose ``lower(extname(path))`` (SPEC §9.9) is one of
the 24 default extensions, grouped by path like SPEC §4.5 (conflicted when any
stage is not 0, else the mode of the first record decides), in UTF-8 order.
``worktreeKind`` comes from ``lstat``. The metadata comes from the file's
header (README.md beside this file, "Metadata header"): a ``summary:`` line
makes the item ``present``; the header's shape decides ``absent`` and
``invalid``.

The file name of argv[0] picks the variant: ``fake_source_list.py`` is the
normal stand-in, ``fake_source_list--<variant>.py`` runs this module with one
fault of PREPARE.md §10 (README.md lists them).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

ARGV = ["--repo", ".", "--full-list", "--json"]
NAME = "fake_source_list"
VARIANTS = (
    "normal",
    "stderr",
    "exit-3",
    "omit-path",
    "bom",
    "duplicate-key",
    "float-count",
    "bom-in-path",
    "bom-in-summary",
    "invalid-utf8",
    "untracked-file",
    "nothing-present",
)
DEFAULT_EXTENSIONS = (
    ".bash",
    ".c",
    ".cc",
    ".cjs",
    ".cpp",
    ".cs",
    ".go",
    ".h",
    ".hpp",
    ".java",
    ".js",
    ".jsx",
    ".kt",
    ".lua",
    ".mjs",
    ".php",
    ".py",
    ".rb",
    ".rs",
    ".sh",
    ".swift",
    ".ts",
    ".tsx",
    ".zsh",
)
#: SPEC §9.6: the 25 whitespace code points W.
W = frozenset("\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff" + "".join(map(chr, range(0x2000, 0x200B))))
HEADER_MARKERS = (b"# ", b"// ", b"-- ")
HEADER_READ_LIMIT = 65536
UNTRACKED_NAME = "fake-source-list.cache"


def variant_of(argv0: str) -> str | None:
    """The variant named by argv[0]'s file name, or ``None`` for a name this stand-in does not know."""
    stem = os.path.basename(argv0).removesuffix(".py")
    name = "normal" if stem == NAME else stem[len(NAME) + 2 :] if stem.startswith(NAME + "--") else ""
    return name if name in VARIANTS and (name != "normal" or stem == NAME) else None


def extname(path: str) -> str:
    """Node's ``path.extname`` on the last ``/``-segment, as SPEC §9.9 words it (not lowercased)."""
    segment = path.rsplit("/", 1)[-1]
    dot = segment.rfind(".")
    if dot <= 0 or segment == "..":  # no dot, or the last dot is the first character, or ".."
        return ""
    return segment[dot:]


def is_meta_scalar(s: str) -> bool:
    """``MetaScalar`` of SPEC §4.0: nonblank, normalized, at most 240 code points and UTF-16 units, no controls."""
    units = len(s) + sum(1 for ch in s if ord(ch) > 0xFFFF)
    if not s or units > 240 or any(ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in s):
        return False
    if s[0] in W or s[-1] in W or "  " in s:
        return False
    return all(ch == " " or ch not in W for ch in s)


def tracked_entries(records: bytes) -> list[tuple[str, str]]:
    """``(path, indexKind)`` of every tracked path with a default extension, in UTF-8 order (SPEC §4.5)."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for record in records.split(b"\0")[:-1]:
        meta, _, raw_path = record.partition(b"\t")
        mode, _oid, stage = meta.decode("ascii").split(" ")
        groups.setdefault(raw_path.decode("utf-8"), []).append((mode, stage))
    entries = []
    for path, group in groups.items():
        if extname(path).lower() not in DEFAULT_EXTENSIONS:
            continue
        mode = group[0][0]
        if any(stage != "0" for _, stage in group):
            kind = "conflicted"
        elif mode == "120000":
            kind = "symlink"
        elif mode == "160000":
            kind = "gitlink"
        else:
            kind = "regular" if mode.startswith("100") else "other"
        entries.append((path, kind))
    return sorted(entries, key=lambda entry: entry[0].encode("utf-8"))


def worktree_kind(path: str, index_kind: str) -> str:
    """The worktree kind from ``lstat`` (a directory at a gitlink path is the gitlink's checkout)."""
    if index_kind == "conflicted":
        return "conflicted"
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    except OSError:
        return "indeterminate"
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISDIR(mode):
        return "gitlink" if index_kind == "gitlink" else "directory"
    return "regular" if stat.S_ISREG(mode) else "other"


def header_metadata(head: bytes) -> tuple[str, str | None, list[str], str | None]:
    """``(metadataStatus, summary, readWhen, metadataError)`` of a regular file from its first bytes."""
    summaries: list[bytes] = []
    hints: list[bytes] = []
    for raw in head.split(b"\n"):
        line = raw[:-1] if raw.endswith(b"\r") else raw
        marker = next((m for m in HEADER_MARKERS if line.startswith(m)), None)
        if marker is None:
            break
        text = line[len(marker) :]
        if text.startswith(b"summary:"):
            summaries.append(text[len(b"summary:") :])
        elif text.startswith(b"read-when:"):
            hints.append(text[len(b"read-when:") :])
    if not summaries:
        return ("absent", None, [], None) if not hints else ("invalid", None, [], "invalid_summary")
    if len(summaries) > 1:
        return "invalid", None, [], "duplicate_summary"
    try:
        summary = summaries[0].decode("utf-8").strip(" ")
        hint_text = hints[0].decode("utf-8").strip(" ") if hints else ""
    except UnicodeDecodeError:
        return "invalid", None, [], "invalid_summary"
    if not is_meta_scalar(summary):
        return "invalid", None, [], "invalid_summary"
    read_when = [part.strip(" ") for part in hint_text.split(";")] if hint_text else []
    if len(hints) > 1 or len(read_when) > 5 or not all(is_meta_scalar(hint) for hint in read_when):
        return "invalid", None, [], "invalid_read_when"
    return "present", summary, read_when, None


def item(path: str, index_kind: str) -> dict[str, object]:
    """One item, members in SL-12's order."""
    worktree = worktree_kind(path, index_kind)
    error: str | None = None
    summary: str | None = None
    read_when: list[str] = []
    if index_kind != "regular":
        status = "not_applicable"
    elif worktree != "regular":
        status, error = "unreadable", f"the worktree entry is {worktree}, not a regular file"
    else:
        with open(path, "rb") as handle:
            status, summary, read_when, error = header_metadata(handle.read(HEADER_READ_LIMIT))
    return {
        "path": path,
        "indexKind": index_kind,
        "extension": extname(path).lower(),
        "worktreeKind": worktree,
        "metadataStatus": status,
        "summary": summary,
        "readWhen": read_when,
        "metadataError": error,
    }


def envelope(items: list[dict[str, object]]) -> dict[str, object]:
    """The closed ``source-list.v1`` inventory payload of SL-5, in its member order."""
    return {
        "contractVersion": "source-list.v1",
        "mode": "inventory",
        "repository": ".",
        "supportedExtensions": list(DEFAULT_EXTENSIONS),
        "totalCount": len(items),
        "returnedCount": len(items),
        "page": 1,
        "pageSize": max(len(items), 1),
        "totalPages": 1,
        "truncated": False,
        "items": items,
        "violationCount": 0,
        "violations": [],
        "ok": True,
    }


def faulty_items(items: list[dict[str, object]], variant: str) -> list[dict[str, object]]:
    """The items a variant reports (unchanged for variants whose fault is elsewhere)."""
    if variant == "omit-path":
        return items[:-1]
    if variant == "bom-in-path" and items:
        items[0]["path"] = "\ufeff" + str(items[0]["path"])
    present = [entry for entry in items if entry["metadataStatus"] == "present"]
    if variant == "bom-in-summary" and present:
        present[0]["summary"] = "\ufeff" + str(present[0]["summary"])
    if variant == "nothing-present":
        for entry in present:
            entry.update(metadataStatus="absent", summary=None, readWhen=[])
    return items


def faulty_bytes(text: str, variant: str, count: int) -> bytes:
    """The stdout bytes a variant prints (the normal text for variants whose fault is elsewhere)."""
    if variant == "bom":
        text = "\ufeff" + text
    elif variant == "duplicate-key":
        text = text.replace('  "mode": "inventory",\n', '  "mode": "inventory",\n' * 2, 1)
    elif variant == "float-count":
        text = text.replace(f'  "totalCount": {count},\n', f'  "totalCount": {count}.0,\n', 1)
    data = text.encode("utf-8")
    if variant == "invalid-utf8":
        at = data.find(b'"path": "') + len(b'"path": "')
        data = data[:at] + b"\xff" + data[at:]
    return data


def main(argv: list[str]) -> int:
    """Run the stand-in: argv as ``sys.argv``; returns the exit status."""
    variant = variant_of(argv[0])
    if variant is None or argv[1:] != ARGV:
        sys.stderr.write(
            f"usage: {NAME}[--<variant>].py --repo . --full-list --json (variants: {', '.join(VARIANTS)})\n"
        )
        return 2
    listing = subprocess.run(
        ["git", "ls-files", "--cached", "--stage", "-z"], stdin=subprocess.DEVNULL, capture_output=True, check=False
    )
    if listing.returncode != 0:
        sys.stderr.write(f"{NAME}: git ls-files exited {listing.returncode}\n")
        return 1
    items = faulty_items([item(path, kind) for path, kind in tracked_entries(listing.stdout)], variant)
    text = json.dumps(envelope(items), indent=2, ensure_ascii=False) + "\n"
    sys.stdout.buffer.write(faulty_bytes(text, variant, len(items)))
    sys.stdout.flush()
    if variant == "stderr":
        sys.stderr.write(f"{NAME}: warning from the stderr variant\n")
    if variant == "untracked-file":
        with open(UNTRACKED_NAME, "x", encoding="utf-8") as handle:
            handle.write("written by the untracked-file variant\n")
    return 3 if variant == "exit-3" else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
