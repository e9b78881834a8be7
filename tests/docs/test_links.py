"""Every link of the README and docs/ resolves, and every repository path they name exists (issue 24)."""

from __future__ import annotations

from tests.builders.paths import load_tool

doclinks = load_tool("doclinks")


def test_every_link_and_named_path_resolves() -> None:
    assert doclinks.check() == []


def test_the_checked_pages_are_the_readme_and_every_page_of_docs() -> None:
    names = [p.relative_to(doclinks.ROOT).as_posix() for p in doclinks.pages()]
    assert names[:2] == ["README.md", "benchmarks/README.md"]
    assert "docs/operator.md" in names
    assert "docs/reference/cli.md" in names
    assert all(n.endswith(".md") for n in names)
