"""Check the documentation's links and the repository paths it names.

Usage::

    python3 tools/doclinks.py    exit 0, or 1 with one line per problem

Reads ``README.md``, ``benchmarks/README.md`` and every ``docs/**/*.md``.
Outside code blocks, every relative Markdown link ``[text](target)`` must
name a file or folder of the repository, and its ``#anchor``, if any, a
heading of that page (GitHub's anchor form: lower case, punctuation dropped,
spaces as hyphens, ``-1``, ``-2`` … for repeats). Every path in a code span
that starts with a folder of the repository (``tests/rules/test_sl.py``)
must exist, except those a build writes (:data:`GENERATED`). Links to other
sites are not followed. ``tests/docs/test_links.py`` runs it in ``make test``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Folders of the repository whose paths, named in a code span, must exist.
CHECKED_FOLDERS = ("ablation", "benchmarks", "docs", "examples", "nix", "tests", "tools", ".ci")
#: Paths named in the documentation that a build or a run writes; they are not in the repository.
GENERATED = ("ablation/CLOSURE.json", "benchmarks/data/", "benchmarks/results/")

_FENCE = re.compile(r"^\s*(```|~~~)")
_LINK = re.compile(r"(?<!!)\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)\)")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_REPO_PATH = re.compile(r"^(?:" + "|".join(re.escape(f) for f in CHECKED_FOLDERS) + r")/[\w./-]*$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def pages(root: Path = ROOT) -> list[Path]:
    """The Markdown files checked: the README, the benchmarks' README and ``docs/``."""
    found = [root / "README.md", root / "benchmarks" / "README.md"]
    found += sorted((root / "docs").rglob("*.md"))
    return [p for p in found if p.is_file()]


def prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of every line outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: ``"Isolation and the check (exit 3)"`` → ``"isolation-and-the-check-exit-3"``."""
    text = re.sub(r"`|\*\*|__", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor a page's headings give, repeats numbered as GitHub numbers them."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for _, line in prose_lines(text):
        m = _HEADING.match(line)
        if not m:
            continue
        base = slug(m[2])
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def _without_code_spans(line: str) -> str:
    return _CODE_SPAN.sub("", line)


def link_problems(page: Path, root: Path = ROOT) -> list[str]:
    """The page's broken relative links, one message each."""
    text = page.read_text(encoding="utf-8")
    problems = []
    for number, line in prose_lines(text):
        for target in _LINK.findall(_without_code_spans(line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue  # another site, or mailto:
            path_part, _, anchor = target.partition("#")
            where = f"{page.relative_to(root)}:{number}"
            linked = (page.parent / path_part).resolve() if path_part else page
            if not linked.exists():
                problems.append(f"{where}: link to {target}: no such file")
                continue
            if root.resolve() not in (linked, *linked.parents):
                problems.append(f"{where}: link to {target}: outside the repository")
                continue
            if anchor and linked.suffix == ".md" and anchor not in anchors(linked.read_text(encoding="utf-8")):
                problems.append(f"{where}: link to {target}: no heading gives #{anchor}")
    return problems


def path_problems(page: Path, root: Path = ROOT) -> list[str]:
    """Repository paths named in the page's code spans that do not exist."""
    problems = []
    for number, line in prose_lines(page.read_text(encoding="utf-8")):
        for _, span in _CODE_SPAN.findall(line):
            if not _REPO_PATH.match(span) or span.startswith(GENERATED):
                continue
            if not (root / span).exists():
                problems.append(f"{page.relative_to(root)}:{number}: {span} does not exist")
    return problems


def check(root: Path = ROOT) -> list[str]:
    """Every problem of every page, in page and line order."""
    problems = []
    for page in pages(root):
        problems += link_problems(page, root) + path_problems(page, root)
    return problems


def main() -> int:
    """Print the problems; exit 1 when there is one."""
    problems = check()
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
