#!/usr/bin/env python3
"""Apply each named weakening of a rule check to a scratch copy and check that its pins fail.

    tools/weakenings.py              all of them
    tools/weakenings.py GIT-8 TOP-5  only those whose name contains one of the words

Each weakening is one textual edit of a rule check (a member dropped, a bound
moved by one, a path widened, a loop that skips its last element). For each,
the repository's ``ablation``, ``tests`` and ``examples`` are copied to a
temporary folder, the edit is applied, and its pins run there with this
interpreter: the test file of the rule's family (``tests/rules/test_<family>.py``,
the family being the name's first word up to its number, when that file exists)
and every ``tests/rules/test_members_*.py``. The weakening must make
at least one test fail ("KILLED"). Exit 1 when one survives.
``tests/tools/test_weakenings_apply.py`` checks in ``make test`` that every
original text is still in the source.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The issue-25 member pins, run for every weakening besides its family's file.
MEMBER_PINS = "tests/rules/test_members_*.py"

#: (name, file, original text, weakened text)
W = [
    ("PREP-14 statusBefore dropped", "ablation/contracts/preparation.py", '("statusBefore", ""),\n', ""),
    ("OBS-16 statusBefore dropped", "ablation/contracts/execution.py", '        ("statusBefore", ""),\n', ""),
    (
        "SB-10 workflow binding dropped",
        "ablation/contracts/structural.py",
        '        ("SB-10", "producerWorkflow", producer["workflow"], "receipt/producer/workflow"),\n',
        "",
    ),
    (
        "SL-16 default-list half dropped (slow)",
        "ablation/contracts/source_list_items.py",
        "if not same(extension, want_ext) or want_ext not in _EXTENSION_SET:",
        "if not same(extension, want_ext):",
    ),
    (
        "SL-16 default-list half dropped (fast)",
        "ablation/contracts/source_list_items.py",
        'if extension != (path[dot:].lower() if dot > path.rfind("/") + 1 else "") or extension not in _EXTENSION_SET:',
        'if extension != (path[dot:].lower() if dot > path.rfind("/") + 1 else ""):',
    ),
    ("SL-27 512->513", "ablation/contracts/source_list_items.py", "is_nbtext(error, 512)", "is_nbtext(error, 513)"),
    ("CASE-3 128->129", "ablation/contracts/cases.py", "is_nbtext(case_id, 128)", "is_nbtext(case_id, 129)"),
    ("RCPT-40 2000->2001", "ablation/contracts/sci_receipt.py", "is_nbtext(message, 2000)", "is_nbtext(message, 2001)"),
    (
        "GIT-8 slow stage [0-9]",
        "ablation/contracts/git_index.py",
        '_RECORD = re.compile(r"([0-9]{6}) ([0-9a-f]+) ([0-3])',
        '_RECORD = re.compile(r"([0-9]{6}) ([0-9a-f]+) ([0-9])',
    ),
    (
        "GIT-8 fast stage [0-9]",
        "ablation/contracts/git_index.py",
        '_RECORDS = re.compile(r"([0-9]{6}) ([0-9a-f]+) ([0-3])',
        '_RECORDS = re.compile(r"([0-9]{6}) ([0-9a-f]+) ([0-9])',
    ),
    (
        "TOP-5 \\f whitespace",
        "ablation/strictjson/scanner.py",
        '_WS = re.compile(r"[ \\t\\n\\r]*")',
        '_WS = re.compile(r"[ \\t\\n\\r\\f\\xa0]*")',
    ),
    (
        "TOP-5 strip() after value",
        "ablation/strictjson/scanner.py",
        "                if pos != n:\n",
        "                if text[pos:].strip():\n",
    ),
    (
        "REQ-9 text seeds only",
        "ablation/contracts/sci_request.py",
        "    elif not is_normalized(value):",
        '    elif kind == "text" and not is_normalized(value):',
    ),
    (
        "STALE-7 duplicates let through",
        "ablation/contracts/staleness.py",
        "if previous is not None and not previous < path:",
        "if previous is not None and previous > path:",
    ),
]

_CASE_19_LOOP = "    for r, repo in enumerate(repositories):\n        if counts[r] < MIN_CASES_PER_REPOSITORY:\n"
_RCPT_21_FAST = "            if (\n                type(a) is int\n"
_RCPT_26_CHECK = "    if kind not in OPERATION_KINDS[operation]:\n"
_OBS_36_LOOP = "    for name in _TRANSCRIPT_DIGESTS:\n"

#: The first entries of W: each names a rule whose family has its own test file.
ISSUE_14_COUNT = len(W)

#: Every member of CASE-19, RCPT-21, RCPT-26 and OBS-36 (pinned by tests/rules/test_members_*.py).
W += [
    (
        "CASE-19 last repository skipped",
        "ablation/contracts/cases.py",
        _CASE_19_LOOP,
        _CASE_19_LOOP.replace("enumerate(repositories)", "enumerate(repositories[:-1])"),
    ),
    (
        "CASE-19 first repository only",
        "ablation/contracts/cases.py",
        _CASE_19_LOOP,
        _CASE_19_LOOP.replace("enumerate(repositories)", "enumerate(repositories[:1])"),
    ),
    (
        "CASE-19 counted in total",
        "ablation/contracts/cases.py",
        "counts[record.repository_index] += 1",
        "counts = [count + 1 for count in counts]",
    ),
    (
        "CASE-19 nine enough",
        "ablation/contracts/cases.py",
        "if counts[r] < MIN_CASES_PER_REPOSITORY:",
        "if counts[r] < MIN_CASES_PER_REPOSITORY - 1:",
    ),
    (
        "CASE-19 zero cases let through",
        "ablation/contracts/cases.py",
        "if counts[r] < MIN_CASES_PER_REPOSITORY:",
        "if 0 < counts[r] < MIN_CASES_PER_REPOSITORY:",
    ),
    (
        "RCPT-21 fast start.line type",
        "ablation/contracts/receipt_evidence.py",
        _RCPT_21_FAST,
        _RCPT_21_FAST.replace("type(a) is int", "a is not None"),
    ),
    (
        "RCPT-21 fast start.column type",
        "ablation/contracts/receipt_evidence.py",
        "                and type(b) is int\n",
        "",
    ),
    (
        "RCPT-21 fast end.line type",
        "ablation/contracts/receipt_evidence.py",
        "                and type(c) is int\n",
        "",
    ),
    (
        "RCPT-21 fast end.column type",
        "ablation/contracts/receipt_evidence.py",
        "                and type(d) is int\n",
        "",
    ),
    ("RCPT-21 fast start.line >= 0", "ablation/contracts/receipt_evidence.py", "                and a >= 0\n", ""),
    ("RCPT-21 fast start.column >= 0", "ablation/contracts/receipt_evidence.py", "                and b >= 0\n", ""),
    ("RCPT-21 fast end.column >= 0", "ablation/contracts/receipt_evidence.py", "                and d >= 0\n", ""),
    ("RCPT-21 fast order by line only", "ablation/contracts/receipt_evidence.py", "and (c, d) >= (a, b)", "and c >= a"),
    (
        "RCPT-21 fast order by column only",
        "ablation/contracts/receipt_evidence.py",
        "and (c, d) >= (a, b)",
        "and d >= b",
    ),
    (
        "RCPT-21 fast order strict",
        "ablation/contracts/receipt_evidence.py",
        "and (c, d) >= (a, b)",
        "and (c, d) > (a, b)",
    ),
    (
        "RCPT-21 fast range shape",
        "ablation/contracts/receipt_evidence.py",
        "    if _RANGE.fits(value):",
        "    if type(value) is dict:",
    ),
    (
        "RCPT-21 fast end shape",
        "ablation/contracts/receipt_evidence.py",
        "if _POSITION.fits(start) and _POSITION.fits(end):",
        "if _POSITION.fits(start):",
    ),
    (
        "RCPT-21 fast start shape",
        "ablation/contracts/receipt_evidence.py",
        "if _POSITION.fits(start) and _POSITION.fits(end):",
        "if _POSITION.fits(end):",
    ),
    (
        "RCPT-21 slow range shape",
        "ablation/contracts/receipt_evidence.py",
        'rng = _RANGE.check("RCPT-21", value, where)',
        "rng: dict[str, object] = value  # type: ignore[assignment]",
    ),
    (
        "RCPT-21 slow position shape",
        "ablation/contracts/receipt_evidence.py",
        'position = _POSITION.check("RCPT-21", rng[end_name], end_where)',
        "position: dict[str, object] = rng[end_name]  # type: ignore[assignment]",
    ),
    (
        "RCPT-21 slow end skipped",
        "ablation/contracts/receipt_evidence.py",
        'for end_name in ("start", "end"):',
        'for end_name in ("start",):',
    ),
    (
        "RCPT-21 slow column skipped",
        "ablation/contracts/receipt_evidence.py",
        'for name, v in (("line", line), ("column", column)):',
        'for name, v in (("line", line),):',
    ),
    (
        "RCPT-21 slow bound dropped",
        "ablation/contracts/receipt_evidence.py",
        "if not is_int(v) or v < 0:",
        "if not is_int(v):",
    ),
    (
        "RCPT-21 slow Int dropped",
        "ablation/contracts/receipt_evidence.py",
        "if not is_int(v) or v < 0:",
        "if isinstance(v, int) and v < 0:",
    ),
    (
        "RCPT-21 match ranges only",
        "ablation/contracts/receipt_evidence.py",
        '    if "range" in identity:',
        '    if "range" in identity and kind == "match":',
    ),
    (
        "RCPT-26 structural_search only",
        "ablation/contracts/receipt_evidence.py",
        _RCPT_26_CHECK,
        _RCPT_26_CHECK.replace("if kind", 'if operation == "structural_search" and kind'),
    ),
    (
        "RCPT-26 structural_search also reference",
        "ablation/contracts/receipt_evidence.py",
        '"structural_search": frozenset({"match"}),',
        '"structural_search": frozenset({"match", "reference"}),',
    ),
    (
        "RCPT-26 ast_query also definition",
        "ablation/contracts/receipt_evidence.py",
        '"ast_query": frozenset({"match"}),',
        '"ast_query": frozenset({"match", "definition"}),',
    ),
    (
        "RCPT-26 find_definition also reference",
        "ablation/contracts/receipt_evidence.py",
        '"find_definition": frozenset({"definition"}),',
        '"find_definition": frozenset({"definition", "reference"}),',
    ),
    (
        "RCPT-26 find_references also definition",
        "ablation/contracts/receipt_evidence.py",
        '"find_references": frozenset({"reference"}),',
        '"find_references": frozenset({"reference", "definition"}),',
    ),
    (
        "RCPT-26 graph_expand also match",
        "ablation/contracts/receipt_evidence.py",
        '"graph_expand": frozenset({"graph_node", "graph_edge"}),',
        '"graph_expand": frozenset({"graph_node", "graph_edge", "match"}),',
    ),
    (
        "RCPT-26 graph_expand without graph_edge",
        "ablation/contracts/receipt_evidence.py",
        '"graph_expand": frozenset({"graph_node", "graph_edge"}),',
        '"graph_expand": frozenset({"graph_node"}),',
    ),
    (
        "OBS-36 command dropped",
        "ablation/contracts/raw_evidence.py",
        'if canon(transcript["command"]) != canon(obs["command"]):',
        'if len(transcript["command"]) != len(obs["command"]):',
    ),
    (
        "OBS-36 command first element only",
        "ablation/contracts/raw_evidence.py",
        'if canon(transcript["command"]) != canon(obs["command"]):',
        'if canon(transcript["command"][:1]) != canon(obs["command"][:1]):',
    ),
    (
        "OBS-36 commandDigest dropped",
        "ablation/contracts/raw_evidence.py",
        'if not same(transcript["commandDigest"], obs["commandDigest"]):',
        'if not isinstance(transcript["commandDigest"], str):',
    ),
    *(
        (
            f"OBS-36 {name} dropped",
            "ablation/contracts/raw_evidence.py",
            _OBS_36_LOOP,
            f"    for name in (n for n in _TRANSCRIPT_DIGESTS if n != {name!r}):\n",
        )
        for name in ("requestSha256", "receiptSha256", "stdoutSha256", "stderrSha256", "processSha256", "stateSha256")
    ),
    (
        "OBS-36 last digest skipped",
        "ablation/contracts/raw_evidence.py",
        _OBS_36_LOOP,
        "    for name in _TRANSCRIPT_DIGESTS[:-1]:\n",
    ),
]

#: What the review pass (docs/development.md) found no test noticed (a loop that skips its last element or
#: checks its first only, a dropped operand, a moved bound); pinned by tests/rules/test_members_*.py.
W += [
    (
        "GIT-11 last position skipped",
        "ablation/contracts/git_index.py",
        "for k, entry in enumerate(entries):",
        "for k, entry in enumerate(entries[:-1]):",
    ),
    (
        "PREP-11/PREP-16/SL-10 any sequence",
        "ablation/contracts/base.py",
        "        isinstance(value, list)\n        and ",
        "        ",
    ),
    (
        "OBS-3 last member in document order left out",
        "ablation/contracts/execution.py",
        'for name, value in obs.items() if name != "observationDigest"',
        'for name, value in [*obs.items()][:-1] if name != "observationDigest"',
    ),
    (
        "PREP-3 last member in document order left out",
        "ablation/contracts/preparation.py",
        'for k, v in obs.items() if k != "observationDigest"',
        'for k, v in [*obs.items()][:-1] if k != "observationDigest"',
    ),
    (
        "STALE-11 last member in document order left out",
        "ablation/contracts/staleness.py",
        'for k, v in sample.items() if k != "sampleDigest"',
        'for k, v in [*sample.items()][:-1] if k != "sampleDigest"',
    ),
    (
        "RCPT-40 first limitation only",
        "ablation/contracts/sci_receipt.py",
        "for k, item in enumerate(value):",
        "for k, item in enumerate(value[:1]):",
    ),
    (
        "TOP errors-all first file violation only",
        "ablation/experiment.py",
        "    for v in parsed.violations:\n        if _in_bundle(v) is None:",
        "    for v in parsed.violations[:1]:\n        if _in_bundle(v) is None:",
    ),
    (
        "SB-0 first bundle violation only",
        "ablation/experiment.py",
        "    for v in parsed.violations:\n        c = _in_bundle(v)",
        "    for v in parsed.violations[:1]:\n        c = _in_bundle(v)",
    ),
    (
        "SL-4 errors-all first violation only",
        "ablation/contracts/source_list.py",
        "    for v in parsed.violations:",
        "    for v in parsed.violations[:1]:",
    ),
    ("SafePath 1025 code points pass", "ablation/text.py", "if len(s) > 1024 and", "if len(s) > 1025 and"),
    ("extname last segment '..' after '/'", "ablation/text.py", ' or path.endswith("/..")', ""),
    ("MetaScalar U+FFFF counted twice", "ablation/text.py", 'if ch > "\\uffff"', 'if ch >= "\\uffff"'),
    (
        "MetaScalar last character not counted",
        "ablation/text.py",
        "sum(1 for ch in s if ch",
        "sum(1 for ch in s[:-1] if ch",
    ),
    ("W without U+200A", "ablation/text.py", "range(0x2000, 0x200B)", "range(0x2000, 0x200A)"),
    ("GZ-1 FHCRC from byte 0", "ablation/gzipfile.py", "zlib.crc32(view[start:pos])", "zlib.crc32(view[0:pos])"),
    (
        "RCPT-37 a receipt without evidence",
        "ablation/contracts/sci_receipt.py",
        "    if counts and max(counts.values()) > per_file:",
        "    if max(counts.values()) > per_file:",
    ),
]


def pins(name: str) -> list[str]:
    """The test files that pin a weakening: its family's (``"SL-16 …"`` → ``tests/rules/test_sl.py``) and the member pins."""
    family = name.split("-", 1)[0].lower()
    own = [f"tests/rules/test_{family}.py"] if (ROOT / f"tests/rules/test_{family}.py").is_file() else []
    return [*own, *sorted(str(p.relative_to(ROOT)) for p in ROOT.glob(MEMBER_PINS))]


def _copy(work: Path) -> None:
    for part in ("ablation", "tests", "examples"):
        shutil.copytree(ROOT / part, work / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "pyproject.toml", work / "pyproject.toml")


def _pins(work: Path, *files: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *files],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
    )


def main(argv: list[str]) -> int:
    """Apply each selected weakening in its own scratch copy; 0 when every one is killed, 1 when not, 2 on a bad copy."""
    selected = [w for w in W if not argv or any(word in w[0] for word in argv)]
    files = sorted({f for name, *_ in selected for f in pins(name)})
    with tempfile.TemporaryDirectory() as tmp:
        _copy(Path(tmp))
        if _pins(Path(tmp), *files).returncode != 0:
            print(f"weakenings: {' '.join(files)} fail on an unchanged copy; fix that first", file=sys.stderr)
            return 2
    survived = 0
    for name, rel, old, new in selected:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            _copy(work)
            target = work / rel
            text = target.read_text(encoding="utf-8") if target.is_file() else ""
            if text.count(old) != 1:
                print(f"STALE     {name}: the original text is not found once in {rel}")
                survived += 1
                continue
            target.write_text(text.replace(old, new), encoding="utf-8")
            proc = _pins(work, *pins(name))
            last = (proc.stdout.strip().splitlines() or ["no output"])[-1]
            killed = proc.returncode == 1
            survived += not killed
            print(f"{'KILLED  ' if killed else 'SURVIVED'}  {name}: {last}", flush=True)
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
