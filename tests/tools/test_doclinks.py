"""``tools/doclinks.py`` on small pages made here: what it accepts and each problem it names (issue 24)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders.paths import load_tool

doclinks = load_tool("doclinks")


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("Isolation and the run-time check (exit 3)", "isolation-and-the-run-time-check-exit-3"),
        ("`.venv` (what `make run` uses)", "venv-what-make-run-uses"),
        ("Re-check with ablation", "re-check-with-ablation"),
        ("What a mismatch means", "what-a-mismatch-means"),
        ("**Bold**, and_under", "bold-and_under"),
    ],
)
def test_slug_is_githubs_anchor(heading: str, anchor: str) -> None:
    assert doclinks.slug(heading) == anchor


def test_repeated_headings_are_numbered_and_fenced_ones_are_not_headings() -> None:
    text = "# Title\n\n## Notes\n\n## Notes\n\n```\n# not a heading\n```\n"
    assert doclinks.anchors(text) == {"title", "notes", "notes-1"}


def _site(tmp_path: Path, page: str) -> Path:
    (tmp_path / "docs" / "reference").mkdir(parents=True)
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "real.py").write_text("", encoding="utf-8")
    (tmp_path / "docs" / "reference" / "cli.md").write_text("# Commands\n\n## `ablation run`\n", encoding="utf-8")
    (tmp_path / "README.md").write_text(page, encoding="utf-8")
    return tmp_path


def test_a_page_whose_links_and_paths_resolve_has_no_problem(tmp_path: Path) -> None:
    root = _site(
        tmp_path,
        "# R\n\nSee [the reference](docs/reference/cli.md#ablation-run), [here](#r), [a site](https://example.invalid/x),\n"
        "`tools/real.py`, `benchmarks/data/L.json` (generated) and `make run`.\n\n```\n[not a link](nowhere.md)\n```\n",
    )
    assert doclinks.check(root) == []


def test_each_problem_is_named_with_its_page_and_line(tmp_path: Path) -> None:
    root = _site(
        tmp_path,
        "# R\n\n[gone](docs/gone.md) and [bad anchor](docs/reference/cli.md#nothing)\n\n"
        "`tools/missing.py` and [out](../elsewhere.md)\n",
    )
    (tmp_path.parent / "elsewhere.md").write_text("", encoding="utf-8")
    assert doclinks.check(root) == [
        "README.md:3: link to docs/gone.md: no such file",
        "README.md:3: link to docs/reference/cli.md#nothing: no heading gives #nothing",
        "README.md:5: link to ../elsewhere.md: outside the repository",
        "README.md:5: tools/missing.py does not exist",
    ]
