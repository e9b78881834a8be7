"""docs/reference/make.md lists every target the Makefile documents and every variable it accepts (issue 24)."""

from __future__ import annotations

import re

from tests.builders.paths import ROOT

MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
PAGE = (ROOT / "docs" / "reference" / "make.md").read_text(encoding="utf-8")


def _known_variables() -> list[str]:
    block = re.search(r"^KNOWN_VARIABLES := (.*?)\n(?!\s)", MAKEFILE, flags=re.MULTILINE | re.DOTALL)
    assert block is not None
    return block[1].replace("\\", " ").split()


def test_every_documented_target_is_in_the_reference() -> None:
    targets = re.findall(r"^([a-z-]+):.*## ", MAKEFILE, flags=re.MULTILINE)
    assert len(targets) > 20
    listed = set(re.findall(r"^\| `make ([a-z-]+)` \|", PAGE, flags=re.MULTILINE))
    assert sorted(set(targets) - listed) == []
    assert sorted(listed - set(targets)) == []


def test_every_known_variable_is_in_the_reference() -> None:
    rows = re.findall(r"^\| (`[A-Z0-9_]+`(?:, `[A-Z0-9_]+`)*) \|", PAGE, flags=re.MULTILINE)
    listed = {name.strip("`") for row in rows for name in row.split(", ")}
    assert sorted(set(_known_variables()) - listed) == []
    assert sorted(listed - set(_known_variables())) == []
