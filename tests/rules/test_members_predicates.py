"""The rule predicates of ``ablation/text.py`` at the edges mutation testing found unpinned (issue 25 item 2).

``make mutate MODULE=ablation/text.py`` (first measured for issue 25) left
these mutants alive; each test here kills one or more of them, directly on
the predicate and, where a rule makes the edge reachable, through the rule.

- ``extname`` (SPEC §9.9): a last segment ``..`` has no extension, also
  after a ``/``; the table of §9.9 in full.
- ``SafePath`` (SPEC §4.0): one character is a path; the 4096-byte bound is
  on UTF-8 bytes, so 1024 four-byte characters pass and 1025 fail.
- ``MetaScalar`` (SPEC §4.0): the 240 UTF-16 code units count U+FFFF as one
  unit and a code point above it as two.

Spec: SPEC.md §4.0 (SafePath, MetaScalar), §9.9, §4.3 (SL-13, SL-19), §4.9 (REQ-8), §4.10 (RCPT-20).
"""

from __future__ import annotations

import pytest

from ablation.text import extname, is_meta_scalar, is_nbtext, is_normalized, is_portable, is_safe_path
from tests.builders import prepared as builder
from tests.rules.members_support import (
    PATHS,
    QUESTION,
    accepted,
    bundle_failure,
    cases_of,
    entry,
    rejection,
    repository,
    validate,
    with_evidence,
)

EMOJI = "\U0001f600"  # four UTF-8 bytes, two UTF-16 code units


@pytest.mark.parametrize(
    ("path", "ext"),
    [
        ("src/a.js", ".js"),
        ("..js", ".js"),
        ("x/...js", ".js"),
        (".a.js", ".js"),
        ("...", "."),
        ("a.", "."),
        (".bashrc", ""),
        ("..", ""),
        ("src/..", ""),
        ("a.b/..", ""),
        ("dir.x/file", ""),
        ("a.JS", ".JS"),
        ("x/.js", ""),
        ("a/b.c.d", ".d"),
    ],
)
def test_extname_is_SPEC_9_9(path: str, ext: str) -> None:
    """Every row of SPEC §9.9's table, and ``..`` as the last segment after a ``/``."""
    assert extname(path) == ext


@pytest.mark.parametrize(
    ("s", "ok"),
    [
        ("a", True),
        ("/", False),
        ("/a", False),
        ("a/", False),
        (EMOJI * 1024, True),
        (EMOJI * 1025, False),
        ("é" * 2048, True),
        ("é" * 2049, False),
        ("a" * 4096, True),
        ("a" * 4097, False),
    ],
    ids=[
        "one-char",
        "slash",
        "absolute",
        "trailing-slash",
        "4096-bytes-of-emoji",
        "4100-bytes-of-emoji",
        "4096-bytes-of-e-acute",
        "4098-bytes-of-e-acute",
        "4096-ascii",
        "4097-ascii",
    ],
)
def test_safe_path_edges(s: str, ok: bool) -> None:
    """SafePath: (1) non-empty, (2) at most 4096 UTF-8 bytes, (4) no leading ``/``, (9) no empty segment."""
    assert is_safe_path(s) is ok


def test_RCPT_20_a_path_of_1025_four_byte_characters() -> None:
    """4100 UTF-8 bytes in 1025 code points: RCPT-20 (a path of 1024 of them passes RCPT-20)."""
    b = with_evidence([entry(path=EMOJI * 1025)])
    assert bundle_failure(b) == (
        "RCPT-20 at receipt/evidence/0/identity/path: expected a SafePath; "
        f"found {repr(EMOJI * 1025)[:79]}… (1025 characters)"
    )
    assert bundle_failure(with_evidence([entry(path=EMOJI * 1024)])).startswith("SB-15 at receipt/evidence/0/")


def test_REQ_8_a_one_character_path_seed_is_a_path() -> None:
    """A path seed ``s``: valid (REQ-8 holds for one character)."""
    validate(builder.structural_bundle(repository(), QUESTION, ["src/alpha.js"], path_seeds=("s",)))


@pytest.mark.parametrize(
    ("s", "ok"),
    [
        ("\uffff" + "a" * 239, True),
        ("\uffff" * 240, True),
        (EMOJI + "a" * 238, True),
        (EMOJI + "a" * 239, False),
        ("é" * 240, True),
        ("é" * 241, False),
    ],
    ids=["U+FFFF-and-239", "240-U+FFFF", "emoji-and-238", "emoji-and-239", "240-e-acute", "241-e-acute"],
)
def test_meta_scalar_counts_utf16_units(s: str, ok: bool) -> None:
    """MetaScalar: at most 240 UTF-16 code units; U+FFFF is one unit, U+1F600 two."""
    assert is_meta_scalar(s) is ok


def _summary_input(summary: str) -> dict[str, object]:
    """Ten cases of a repository whose first item has ``summary``."""
    item_list = [builder.source_list_item(path, summary=f"owner record {n}") for n, path in enumerate(PATHS, 1)]
    item_list[0] = builder.source_list_item(PATHS[0], summary=summary)
    repo = builder.repository("repo-0", "a" * 40, item_list)
    return builder.prepared_input([repo], cases_of(repo, 10))


def test_SL_19_a_summary_of_240_utf16_units_with_U_FFFF() -> None:
    """U+FFFF and 239 letters: 240 units, a MetaScalar; an emoji and 239 letters: 241 units, SL-19."""
    accepted(_summary_input("\uffff" + "a" * 239))
    assert rejection(_summary_input(EMOJI + "a" * 239)).startswith(
        "SL-19 at /repositories/0/sourceListArtifact/rawJson -> /items/0/summary: "
    )


# ---------------------------------------------------------------- every member of W (SPEC §9.6)

#: SPEC §9.6, written out: the 25 code points of W.
W_SPEC = (
    "\t",
    "\n",
    "\x0b",
    "\x0c",
    "\r",
    " ",
    "\xa0",
    "\u1680",
    *(chr(c) for c in range(0x2000, 0x200B)),
    "\u2028",
    "\u2029",
    "\u202f",
    "\u205f",
    "\u3000",
    "\ufeff",
)
#: Characters Python's whitespace tests take for whitespace (or that look like it) but W does not hold.
NOT_W = ("\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u180e", "\u200b")
CONTROLS = frozenset("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85")


def test_W_has_25_code_points() -> None:
    """The list above is SPEC §9.6's: 25 distinct code points."""
    assert len(set(W_SPEC)) == 25


@pytest.mark.parametrize("c", W_SPEC, ids=[f"U+{ord(c):04X}" for c in W_SPEC])
def test_every_member_of_W(c: str) -> None:
    """Each member of W: blank for NBText, not Normalized inside a word (but U+0020), not at a SafePath's edge,
    and it precedes an absolute home path as Portable's (a) says."""
    assert is_nbtext(c * 3, 10) is False
    assert is_nbtext(c + "x", 10) is True
    assert is_normalized(f"a{c}b") is (c == " ")
    assert is_safe_path(c + "a.js") is False
    assert is_safe_path("a.js" + c) is False
    assert is_safe_path(f"a{c}b.js") is (c not in CONTROLS)
    assert is_portable(f"see{c}/home/alice") is False


@pytest.mark.parametrize("c", NOT_W, ids=[f"U+{ord(c):04X}" for c in NOT_W])
def test_what_W_does_not_hold(c: str) -> None:
    """U+001C … U+001F, U+0085 (Python's isspace), U+180E and U+200B: not W anywhere W is used."""
    assert is_nbtext(c, 10) is True
    assert is_normalized(f"a{c}b") is True
    assert is_safe_path(c + "a.js") is (c not in CONTROLS)
    assert is_portable(f"see{c}/home/alice") is True


@pytest.mark.parametrize(
    ("s", "ok"),
    [("a" * 239 + EMOJI, False), ("a" * 238 + EMOJI, True), ("é" * 238 + EMOJI, True), ("é" * 239 + EMOJI, False)],
    ids=["239-and-emoji-last", "238-and-emoji-last", "238-e-acute-and-emoji-last", "239-e-acute-and-emoji-last"],
)
def test_meta_scalar_counts_the_last_character_too(s: str, ok: bool) -> None:
    """An astral character at the end counts two UTF-16 units like one anywhere else."""
    assert is_meta_scalar(s) is ok
