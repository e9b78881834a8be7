"""The command reference, docs/reference/cli.md, is the generated --help text of every command (issue 24)."""

from __future__ import annotations

from types import ModuleType

from tests.builders.paths import ROOT, load_tool


def _helpdoc() -> ModuleType:
    return load_tool("helpdoc")


def test_the_command_reference_is_the_generated_help() -> None:
    helpdoc = _helpdoc()
    page = (ROOT / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")
    assert page == helpdoc.reference(), "docs/reference/cli.md differs from the parsers' --help: run make docs"


def test_the_reference_covers_every_command_and_its_options() -> None:
    helpdoc = _helpdoc()
    reference = helpdoc.reference()
    headings = [line for line in reference.splitlines() if line.startswith("## ")]
    assert headings[:8] == [
        "## `ablation --help`",
        "## `ablation run --help`",
        "## `ablation verify --help`",
        "## `ablation identity --help`",
        "## `ablation archive --help`",
        "## `ablation verify-archive --help`",
        "## `ablation keygen --help`",
        "## `ablation notes --help`",
    ]
    for option in (
        "--input-gzip-sha256 HEX",
        "--json",
        "--sign-key K",
        "--public-key P",
        "--image-digest D",
        "--private-key K",
        "(written to stdout)",
    ):
        assert option in reference
    # the width is fixed: no line of help wider than 100 columns, whatever the terminal
    assert max(len(line) for line in reference.splitlines()) <= 100
