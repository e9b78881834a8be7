#!/usr/bin/env python3
"""Stand-in for the SCI structural-evidence exporter, for tests only (PREPARE.md §10; README.md beside it).

Run as ``<path> experimental structural-evidence-receipt --request-file F`` (OBS-13's argv) in the
target checkout, or as ``<path> --version``; any other argv is refused (exit 2). It checks that the
cwd is a clean git top level, that ``$TMPDIR`` is a folder and that its backend ``stand-in-grep-cli``
is on ``PATH``; ``mkdtemp``s a scratch folder under ``$TMPDIR`` (removed before it prints); searches
the blobs at HEAD under the path seeds (all of HEAD without any) that have a default extension, for
the ``seed:pattern`` text before its first ``$``; and prints one ``match`` per occurrence, with
code-point ranges, within the request's limits, as ``json.dumps(receipt, indent=2,
ensure_ascii=False) + "\n"``. Ids and digests come from :func:`canon`, written from SPEC §3.1/§3.2
(never ``ablation.canonical``: a digest bug cannot hide on both sides). Standard library only.

argv[0]'s file name picks the variant: ``fake_sci.py`` is the normal stand-in,
``fake_sci--<variant>.py`` one of README.md's variants.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

NAME = "fake_sci"
ARGV = ["experimental", "structural-evidence-receipt", "--request-file"]
PRODUCER_NAME = "semantic-code-intelligence"
PRODUCER_VERSION = "2.0.0"
WORKFLOW = "structural-evidence-export-v1"
BACKEND_NAME = "stand-in-grep"
BACKEND_VERSION = "0.42.0"
EXECUTABLE_NAME = "stand-in-grep-cli"
EXECUTABLE_VERSION = "0.42.1"
SCHEMA = "semantic-code-intelligence.structural_evidence_receipt.v1"
VARIANTS = (
    "normal",
    "reordered",
    "orphan-short",
    "orphan-long",
    "stderr",
    "two-receipts",
    "trailing-text",
    "tmpdir-leftover",
    "home-leftover",
    "ontology-dir",
    "edit-tracked",
    "touch-tracked",
    "home-cache",
    "non-item-match",
    "capped",
    "version-2.0.1",
    "hang",
    "empty-stdout",
    "duplicate-key",
)
DEFAULT_EXTENSIONS = frozenset(
    (
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
)
W = frozenset("\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff" + "".join(map(chr, range(0x2000, 0x200B))))
MAX_SNIPPET = 20000
ORPHAN_SECONDS = {"orphan-short": 2, "orphan-long": 60}
LEFTOVER_NAME = "fake-sci-leftover.txt"
TOUCH_TIME = 978307200  # 2001-01-01T00:00:00Z: an mtime no checkout made today has
_GIT = ["git", "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false"]

# ------------------------------------------------------------------ canonical JSON (SPEC §3.1, §3.2)
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _string(s: str) -> str:
    return '"' + "".join(_ESCAPES.get(c) or (f"\\u{ord(c):04x}" if c < " " else c) for c in s) + '"'


def canon(v: object) -> str:
    """``Canon(v)``: no whitespace, members by the UTF-8 bytes of their names, integers in decimal."""
    if v is None or isinstance(v, bool):
        return {None: "null", True: "true", False: "false"}[v]
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, list):
        return "[" + ",".join(canon(x) for x in v) + "]"
    if isinstance(v, dict):
        names = sorted(v, key=lambda name: name.encode("utf-8"))
        return "{" + ",".join(_string(name) + ":" + canon(v[name]) for name in names) + "}"
    raise TypeError(f"not a canonical JSON value: {type(v).__name__}")


def digest(v: object) -> str:
    """``D(v)`` = ``sha256:`` + hex SHA-256 of the UTF-8 bytes of ``Canon(v)``."""
    return "sha256:" + hashlib.sha256(canon(v).encode("utf-8")).hexdigest()


def variant_of(argv0: str) -> str | None:
    """The variant named by argv[0]'s file name, or ``None`` for a name this stand-in does not know."""
    stem = os.path.basename(argv0).removesuffix(".py")
    name = "normal" if stem == NAME else stem[len(NAME) + 2 :] if stem.startswith(NAME + "--") else ""
    return name if name in VARIANTS and (name != "normal" or stem == NAME) else None


def extname(path: str) -> str:
    """Node's ``path.extname`` on the last ``/``-segment, as SPEC §9.9 words it (not lowercased)."""
    segment = path.rsplit("/", 1)[-1]
    dot = segment.rfind(".")
    return "" if dot <= 0 or segment == ".." else segment[dot:]


def git(*args: str) -> bytes:
    """Run git with no optional locks (so nothing rewrites ``.git/index``); return stdout, raise on failure."""
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0")
    done = subprocess.run([*_GIT, *args], stdin=subprocess.DEVNULL, capture_output=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{NAME}: git {args[0]} exited {done.returncode}")
    return done.stdout


def position(text: str, offset: int) -> dict[str, int]:
    """``{line, column}`` of a code-point offset: 0-based, lines split at LF, columns in code points."""
    line = text.count("\n", 0, offset)
    return {"line": line, "column": offset - (text.rfind("\n", 0, offset) + 1)}


# ------------------------------------------------------------------ the search


def candidate_blobs(path_seeds: list[str], every_extension: bool) -> list[tuple[str, str]]:
    """``(path, blob id)`` of the regular blobs at HEAD under the path seeds, in UTF-8 path order."""
    listing = git("--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", "HEAD", "--", *path_seeds)
    blobs = []
    for record in listing.split(b"\0")[:-1]:
        meta, _, raw_path = record.partition(b"\t")
        mode, kind, oid = meta.decode("ascii").split(" ")
        path = raw_path.decode("utf-8")
        wanted = every_extension or extname(path).lower() in DEFAULT_EXTENSIONS
        if kind == "blob" and mode.startswith("100") and wanted:
            blobs.append((path, oid))
    return sorted(set(blobs), key=lambda blob: blob[0].encode("utf-8"))


def read_blobs(oids: list[str], scratch: str) -> list[bytes]:
    """The contents of the blobs, through ``git cat-file --batch`` fed from a file in the scratch folder."""
    batch = os.path.join(scratch, "blobs.txt")
    with open(batch, "w", encoding="ascii") as handle:
        handle.write("".join(oid + "\n" for oid in oids))
    with open(batch, "rb") as stdin:
        out = subprocess.run([*_GIT, "cat-file", "--batch"], stdin=stdin, capture_output=True, check=True)
    contents, at = [], 0
    for _ in oids:
        header_end = out.stdout.index(b"\n", at)
        size = int(out.stdout[at:header_end].split(b" ")[2])
        contents.append(out.stdout[header_end + 1 : header_end + 1 + size])
        at = header_end + 1 + size + 1
    return contents


def match_entry(path: str, text: str, start: int, end: int) -> tuple[dict[str, object], int]:
    """One ``match`` evidence entry (RCPT-18 order) and its ``byteCount``; the snippet is the lines the match spans."""
    identity = {"path": path, "kind": "match", "range": {"start": position(text, start), "end": position(text, end)}}
    line_end = text.find("\n", end)
    snippet = text[text.rfind("\n", 0, start) + 1 : len(text) if line_end < 0 else line_end]
    if len(snippet) > MAX_SNIPPET:
        snippet = text[start:end]
    size = len(snippet.encode("utf-8"))
    entry = {
        "id": "candidate:" + digest(identity),
        "identity": identity,
        "operation": "structural_search",
        "snippet": snippet,
        "byteCount": size,
        "provenance": {"backend": BACKEND_NAME, "workflow": WORKFLOW},
    }
    return entry, size


Limits = dict[str, int]


def parse_request(text: str) -> tuple[dict[str, object], str, list[str], Limits] | str:
    """``(request, pattern, path seeds, limits)`` from the request text, or why it cannot be used."""

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        if len({name for name, _ in items}) != len(items):
            raise ValueError("duplicate member name")
        return dict(items)

    def no_number(literal: str) -> object:
        raise ValueError(f"not an integer: {literal}")

    try:
        request = json.loads(text, object_pairs_hook=pairs, parse_float=no_number, parse_constant=no_number)
    except ValueError as exc:
        return f"the request is not strict JSON: {exc}"
    if not isinstance(request, dict) or not isinstance(request.get("seeds"), list):
        return "the request is not an object with a seeds array"
    seeds = [seed for seed in request["seeds"] if isinstance(seed, dict)]
    patterns = [seed["value"] for seed in seeds if seed.get("id") == "seed:pattern"]
    path_seeds = [seed["value"] for seed in seeds if seed.get("kind") == "path"]
    limits = request.get("limits")
    names = ("maxCandidates", "maxCandidatesPerFile", "maxEvidenceBytes", "timeoutMs")
    if len(patterns) != 1 or not isinstance(patterns[0], str) or not all(isinstance(p, str) for p in path_seeds):
        return "the request needs one seed:pattern and string path seeds"
    if not isinstance(limits, dict) or not all(type(limits.get(name)) is int for name in names):
        return "the request's limits are not four integers"
    return request, patterns[0], path_seeds, {name: limits[name] for name in names}


def search(
    pattern: str, path_seeds: list[str], limits: Limits, scratch: str, variant: str
) -> tuple[list[dict[str, object]], int]:
    """The evidence entries within the request's limits, and how many occurrences were observed."""
    literal = pattern.split("$", 1)[0]
    if all(ch in W for ch in literal):  # no nonblank text to search for
        return [], 0
    blobs = candidate_blobs(path_seeds, every_extension=variant == "non-item-match")
    evidence: list[dict[str, object]] = []
    observed = total_bytes = 0
    for (path, _), data in zip(blobs, read_blobs([oid for _, oid in blobs], scratch), strict=True):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        in_file, start = 0, text.find(literal)
        while start >= 0:  # non-overlapping occurrences, in code points
            observed += 1
            entry, size = match_entry(path, text, start, start + len(literal))
            start = text.find(literal, start + len(literal))
            fits = len(evidence) < limits["maxCandidates"] and in_file < limits["maxCandidatesPerFile"]
            if fits and total_bytes + size <= limits["maxEvidenceBytes"]:
                evidence.append(entry)
                in_file += 1
                total_bytes += size
    return evidence, observed


def receipt_for(
    request: dict[str, object], heads: tuple[str, str], evidence: list[dict[str, object]], observed: int, variant: str
) -> dict[str, object]:
    """The receipt in RCPT-1's order, digests by :func:`digest`; ``heads``: HEAD before and after the search."""
    observed = len(evidence) + 1 if variant == "capped" else observed
    capped = observed > len(evidence)
    message = "more occurrences were observed than the request's limits let the receipt return"
    limitations = [{"code": "candidate_limit", "message": message, "affectsCompleteness": True}] if capped else []
    stable = heads[0] == heads[1]
    receipt: dict[str, object] = {
        "schema": SCHEMA,
        "request": request,
        "requestDigest": digest(request),
        "repository": {
            "snapshotId": "git:" + heads[0],
            "baseFingerprint": "git:" + heads[0],
            "observedFingerprint": "git:" + heads[1],
            "stableAcrossExecution": stable,
        },
        "producer": {
            "name": PRODUCER_NAME,
            "version": "2.0.1" if variant == "version-2.0.1" else PRODUCER_VERSION,
            "workflow": WORKFLOW,
        },
        "backend": {
            "name": BACKEND_NAME,
            "version": BACKEND_VERSION,
            "executable": {"name": EXECUTABLE_NAME, "version": EXECUTABLE_VERSION},
            "outcome": {"status": "succeeded", "exitCode": 0, "message": "evidence collected"},
        },
        "evidence": evidence,
        "summary": {
            "returnedCount": len(evidence),
            "totalObservedCount": observed,
            "evidenceBytes": sum(len(str(entry["snippet"]).encode("utf-8")) for entry in evidence),
            "capped": capped,
            "complete": stable and not capped,
        },
        "limitations": limitations,
    }
    receipt["receiptDigest"] = digest(receipt)
    return receipt


def reversed_members(v: object) -> object:
    """``v`` with the members of every object, at every depth, in reverse order (same canonical text)."""
    if isinstance(v, dict):
        return {name: reversed_members(v[name]) for name in reversed(list(v))}
    if isinstance(v, list):
        return [reversed_members(x) for x in v]
    return v


def stdout_text(receipt: dict[str, object], variant: str) -> str:
    """What the variant prints on stdout."""
    text = json.dumps(reversed_members(receipt) if variant == "reordered" else receipt, indent=2, ensure_ascii=False)
    text += "\n"
    if variant == "duplicate-key":
        return text.replace("{\n", "{\n" + f'  "schema": "{SCHEMA}",\n', 1)
    if variant == "two-receipts":
        return text + text
    if variant == "trailing-text":
        return text + "done\n"
    return "" if variant == "empty-stdout" else text


def first_tracked_file() -> str:
    """The first tracked regular file in UTF-8 order (what the edit and touch variants change)."""
    for record in git("ls-files", "--cached", "--stage", "-z").split(b"\0")[:-1]:
        meta, _, raw_path = record.partition(b"\t")
        if meta.startswith(b"100"):
            return raw_path.decode("utf-8")
    raise SystemExit(f"{NAME}: no tracked regular file to change")


def side_effects(variant: str) -> None:
    """The changes a variant makes to the target, HOME or TMPDIR before it prints."""
    if variant in {"tmpdir-leftover", "home-leftover"}:
        folder = os.environ["TMPDIR" if variant == "tmpdir-leftover" else "HOME"]
        with open(os.path.join(folder, LEFTOVER_NAME), "x", encoding="utf-8") as handle:
            handle.write(f"left behind by the {variant} variant\n")
    elif variant == "ontology-dir":
        os.mkdir(".ontology")
    elif variant == "edit-tracked":
        with open(first_tracked_file(), "a", encoding="utf-8") as handle:
            handle.write("\nedited by the edit-tracked variant\n")
    elif variant == "touch-tracked":
        os.utime(first_tracked_file(), (TOUCH_TIME, TOUCH_TIME))
    elif variant == "home-cache":  # write, read back, remove: HOME ends empty
        cache = os.path.join(os.environ["HOME"], ".cache", "stand-in-sci", "index.json")
        os.makedirs(os.path.dirname(cache))
        with open(cache, "x", encoding="utf-8") as handle:
            handle.write('{"cached": true}\n')
        with open(cache, encoding="utf-8") as handle:
            handle.read()
        os.remove(cache)
        os.rmdir(os.path.dirname(cache))
        os.rmdir(os.path.dirname(os.path.dirname(cache)))


def leave_orphan(seconds: int, hold_stdout: bool) -> None:
    """Fork a child that stays in this process group for ``seconds`` after this process exits."""
    sys.stdout.flush()
    if os.fork() == 0:
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 2) if hold_stdout else (0, 1, 2):
            os.dup2(devnull, fd)
        time.sleep(seconds)
        os._exit(0)


def refuse(message: str) -> int:
    """Write one line to stderr; the exit status of a refusal."""
    sys.stderr.write(f"{NAME}: {message}\n")
    return 2


def preconditions() -> str | None:
    """Why the stand-in refuses to run here, or ``None``: top level, clean, TMPDIR, backend on PATH."""
    top = git("rev-parse", "--show-toplevel").decode("utf-8").rstrip("\n")
    if os.path.realpath(top) != os.path.realpath(os.getcwd()):
        return f"the working directory is not the top level of its git checkout ({top})"
    if git("status", "--porcelain=v1", "--untracked-files=all", "-z"):
        return "the checkout is not clean"
    if not os.path.isdir(os.environ.get("TMPDIR", "")):
        return "TMPDIR is not set to a folder"
    if shutil.which(EXECUTABLE_NAME) is None:
        return f"the backend {EXECUTABLE_NAME} is not on PATH"
    return None


def main(argv: list[str]) -> int:
    """Run the stand-in: argv as ``sys.argv``; returns the exit status."""
    variant = variant_of(argv[0])
    if variant is None:
        return refuse(f"unknown variant file name {os.path.basename(argv[0])!r}")
    if argv[1:] == ["--version"]:
        version = "2.0.1" if variant == "version-2.0.1" else PRODUCER_VERSION
        sys.stdout.write(f"{PRODUCER_NAME} {version} (test stand-in {NAME}, variant {variant})\n")
        return 0
    if len(argv) != 5 or argv[1:4] != ARGV:
        return refuse("usage: experimental structural-evidence-receipt --request-file FILE")
    problem = preconditions()
    if problem is not None:
        return refuse(problem)
    if variant == "hang":
        while True:
            time.sleep(3600)
    with open(argv[4], encoding="utf-8") as handle:
        parsed = parse_request(handle.read())
    if isinstance(parsed, str):
        return refuse(parsed)
    request, pattern, path_seeds, limits = parsed
    head = git("rev-parse", "HEAD").decode("ascii").strip()
    scratch = tempfile.mkdtemp(prefix="stand-in-sci-", dir=os.environ["TMPDIR"])
    try:
        evidence, observed = search(pattern, path_seeds, limits, scratch, variant)
    finally:
        shutil.rmtree(scratch)
    heads = (head, git("rev-parse", "HEAD").decode("ascii").strip())
    receipt = receipt_for(request, heads, evidence, observed, variant)
    side_effects(variant)
    sys.stdout.buffer.write(stdout_text(receipt, variant).encode("utf-8"))
    sys.stdout.flush()
    if variant == "stderr":
        sys.stderr.write(f"{NAME}: warning from the stderr variant\n")
    if variant in ORPHAN_SECONDS:
        leave_orphan(ORPHAN_SECONDS[variant], hold_stdout=variant == "orphan-long")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
