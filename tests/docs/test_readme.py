"""The README (issue 24): short, the two set-up commands first, and a newcomer's tasks within two links."""

from __future__ import annotations

import re

from tests.builders.paths import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
EXIT_CODES = re.compile(r"<!-- exit codes table[^\n]*-->\n(.*?)<!-- end of exit codes table -->", re.DOTALL)


def _links(text: str) -> set[str]:
    return set(re.findall(r"\]\(([^)#\s]+)", text))


def test_the_readme_has_at_most_250_lines() -> None:
    assert len(README.splitlines()) <= 250


def test_the_first_two_commands_are_make_run_and_make_test() -> None:
    commands = re.findall(r"^(make \w+)", README, flags=re.MULTILINE)
    assert commands[:2] == ["make run", "make test"]


def test_each_task_of_a_newcomer_is_within_two_links() -> None:
    """Run the example (here), verify and run an input, sign a bundle, check one, prepare an experiment."""
    linked = _links(README)
    for guide in ("docs/operator.md", "docs/reviewer.md", "docs/preparation.md"):
        assert guide in linked, guide
    operator = (ROOT / "docs" / "operator.md").read_text(encoding="utf-8")
    assert "make verify  INPUT=" in operator
    assert "make run     INPUT=" in operator
    assert "SIGN_KEY=" in operator
    reviewer = (ROOT / "docs" / "reviewer.md").read_text(encoding="utf-8")
    assert "verify-archive prepared.bundle.tar.gz --public-key k.pub" in reviewer


def test_the_exit_code_tables_of_the_readme_and_the_reference_are_the_same() -> None:
    reference = (ROOT / "docs" / "reference" / "exit-codes.md").read_text(encoding="utf-8")
    here, there = EXIT_CODES.search(README), EXIT_CODES.search(reference)
    assert here is not None and there is not None
    assert here[1] == there[1]
    assert [line.split("|")[1].strip() for line in here[1].strip().splitlines()[2:]] == [
        *(str(c) for c in range(7)),
        "130, 143",
    ]
