"""README's command reference is the generated --help text of every command (issue 12 item 5)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "helpdoc.py"


def _helpdoc():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("helpdoc", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_reference_equals_the_generated_help() -> None:
    helpdoc = _helpdoc()
    block = helpdoc.readme_block((ROOT / "README.md").read_text(encoding="utf-8"))
    assert block is not None, "README.md has no command reference block"
    assert block == helpdoc.reference()


def test_the_reference_covers_every_command_and_its_options() -> None:
    helpdoc = _helpdoc()
    reference = helpdoc.reference()
    headings = [line for line in reference.splitlines() if line.startswith("#### ")]
    assert headings == ["#### `ablation --help`", "#### `ablation run --help`", "#### `ablation verify --help`",
                        "#### `ablation identity --help`", "#### `ablation archive --help`",
                        "#### `ablation verify-archive --help`", "#### `ablation keygen --help`",
                        "#### `ablation notes --help`"]  # fmt: skip
    for option in ("--input-gzip-sha256 HEX", "--json", "--sign-key K", "--public-key P", "--image-digest D",
                   "--private-key K", "(written to stdout)"):  # fmt: skip
        assert option in reference
    # the width is fixed: no line of help wider than 100 columns, whatever the terminal
    assert max(len(line) for line in reference.splitlines() if not line.startswith("<!--")) <= 100


def test_check_names_the_first_differing_line(tmp_path: Path) -> None:
    helpdoc = _helpdoc()
    readme = tmp_path / "README.md"
    readme.write_text("# x\n\n" + helpdoc.reference().replace("show this help", "show the help", 1) + "\nrest\n")
    proc = subprocess.run([sys.executable, str(TOOL), "--check", str(readme)], capture_output=True, text=True,
                          check=False, env={"COLUMNS": "40", "PATH": "/usr/bin:/bin"})  # fmt: skip
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"{readme}: command reference differs at its line ")
    assert "'  -h, --help      show the help message and exit'" in proc.stderr
    assert subprocess.run([sys.executable, str(TOOL), "--write", str(readme)], check=False).returncode == 0
    assert readme.read_text() == "# x\n\n" + helpdoc.reference() + "\nrest\n"
    assert subprocess.run([sys.executable, str(TOOL), "--check", str(readme)], check=False).returncode == 0
