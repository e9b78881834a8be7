"""``tools/helpdoc.py``: --check names the first differing line, --write makes the page equal (issue 24)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.builders.paths import ROOT

TOOL = ROOT / "tools" / "helpdoc.py"


def _tool(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), *map(str, args)], capture_output=True, text=True, check=False, env=env
    )


def test_check_names_the_first_differing_line(tmp_path: Path) -> None:
    generated = _tool().stdout
    page = tmp_path / "cli.md"
    page.write_text(generated.replace("show this help", "show the help", 1), encoding="utf-8")
    proc = _tool("--check", page, env={"COLUMNS": "40", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"{page}: the command reference differs at line ")
    assert "'  -h, --help      show the help message and exit'" in proc.stderr
    assert proc.stderr.endswith("; run make docs\n")
    assert _tool("--write", page).returncode == 0
    assert page.read_text(encoding="utf-8") == generated
    assert _tool("--check", page).returncode == 0


def test_check_of_a_missing_or_shorter_page_says_so(tmp_path: Path) -> None:
    generated = _tool().stdout
    page = tmp_path / "cli.md"
    page.write_text(generated + "extra\n", encoding="utf-8")
    proc = _tool("--check", page)
    assert proc.returncode == 1
    lines = len(generated.splitlines())
    assert f"the lengths differ ({lines + 1} lines, generated {lines})" in proc.stderr
    assert _tool("--check", tmp_path / "absent.md").returncode == 1
    assert _tool("--bogus").returncode == 2
