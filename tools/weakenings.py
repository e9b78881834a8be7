#!/usr/bin/env python3
"""Apply each weakening named in issue 14 to a scratch copy and check that its rule family's tests fail.

    tools/weakenings.py              all of them
    tools/weakenings.py GIT-8 TOP-5  only those whose name contains one of the words

Each weakening is one textual edit of a rule check (a member dropped, a bound
moved by one, a path widened). For each, the repository's ``ablation``,
``tests`` and ``examples`` are copied to a temporary folder, the edit is
applied, and the test file of the rule's family (``tests/rules/test_<family>.py``,
the family being the name's first word up to its number) runs there with this
interpreter; the weakening must make at least one test fail ("KILLED"). Exit 1
when one survives. ``tests/tools/test_weakenings_apply.py`` checks in ``make
test`` that every original text is still in the source.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

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


def pins(name: str) -> str:
    """The test file that pins the rule a weakening names: ``"SL-16 …"`` → ``tests/rules/test_sl.py``."""
    family = name.split("-", 1)[0].lower()
    return f"tests/rules/test_{family}.py"


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
    files = sorted({pins(name) for name, *_ in selected})
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
            proc = _pins(work, pins(name))
            last = (proc.stdout.strip().splitlines() or ["no output"])[-1]
            killed = proc.returncode == 1
            survived += not killed
            print(f"{'KILLED  ' if killed else 'SURVIVED'}  {name} ({pins(name)}): {last}", flush=True)
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
