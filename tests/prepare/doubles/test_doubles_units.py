"""The stand-ins' own small implementations against SPEC and against the evaluator's, and the variant files.

The stand-ins carry their own ``extname`` (SPEC §9.9), canonical JSON (SPEC
§3.1/§3.2) and ``MetaScalar`` (SPEC §4.0) so that a bug cannot hide on both
sides; these tests hold each to SPEC's tables and vectors and cross-check it
with the evaluator's function on many values.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ablation.canonical import canon, canonical_digest
from ablation.contracts.source_list_items import DEFAULT_EXTENSIONS
from ablation.text import extname as evaluator_extname
from ablation.text import is_meta_scalar
from tests.prepare.doubles import fake_sci, fake_source_list, standins

EXTNAMES: tuple[Callable[[str], str], ...] = (fake_source_list.extname, fake_sci.extname)

# SPEC §9.9's table: p, extname(p).
SPEC_EXTNAME_TABLE = (
    ("src/a.js", ".js"),
    ("..js", ".js"),
    ("x/...js", ".js"),
    (".a.js", ".js"),
    ("...", "."),
    ("a.", "."),
    (".bashrc", ""),
    ("..", ""),
    ("dir.x/file", ""),
    ("a.JS", ".JS"),
)


@pytest.mark.parametrize("extname", EXTNAMES, ids=["source-list", "sci"])
@pytest.mark.parametrize(("path", "expected"), SPEC_EXTNAME_TABLE)
def test_extname_follows_spec_table(extname: Callable[[str], str], path: str, expected: str) -> None:
    """Each row of SPEC §9.9's table, for both stand-ins' own ``extname``."""
    assert extname(path) == expected


@pytest.mark.parametrize("extname", EXTNAMES, ids=["source-list", "sci"])
def test_extname_lowercase_rows_of_spec(extname: Callable[[str], str]) -> None:
    """Full Unicode lowercasing after ``extname`` (``.JS``, KELVIN SIGN), and ``.js`` alone has none."""
    assert extname("a.JS").lower() == ".js"
    assert extname("a.\u212at").lower() == ".kt"  # KELVIN SIGN lowers to k (SPEC §9.9)
    assert extname("x/...js").lower() in fake_source_list.DEFAULT_EXTENSIONS
    assert extname(".js") == ""


_PATH_ALPHABET = st.sampled_from(["a", "b", ".", "/", "J", "S", "\u212a", "é", " "])


@given(st.lists(_PATH_ALPHABET, max_size=12).map("".join))
def test_extname_agrees_with_the_evaluator(path: str) -> None:
    """Both stand-ins' ``extname`` equal ``ablation.text.extname`` on generated paths."""
    assert fake_source_list.extname(path) == evaluator_extname(path)
    assert fake_sci.extname(path) == evaluator_extname(path)


def test_default_extensions_are_the_evaluators() -> None:
    """The stand-ins' 24 default extensions are SL-10's list, in order."""
    assert DEFAULT_EXTENSIONS == fake_source_list.DEFAULT_EXTENSIONS
    assert frozenset(DEFAULT_EXTENSIONS) == fake_sci.DEFAULT_EXTENSIONS
    assert len(fake_source_list.DEFAULT_EXTENSIONS) == 24


# ------------------------------------------------------------------ canonical JSON

# SPEC §3.5 vectors (value, digest) that hold a parsed value.
SPEC_VECTORS: tuple[tuple[object, str], ...] = (
    (
        ["alpha", "and", "behavior", "locate", "parsing", "request", "validation"],
        "sha256:0549f81f476e5697093ee1bb8fa574b7f75e25788685c7a5f97ee216985ce249",
    ),
    (
        ["git", "-C", ".", "--literal-pathspecs", "ls-files", "--cached", "--stage", "-z", "--"],
        "sha256:b1f07241a29c137e07c2d0de654d74da7102ba763daeb19d1a11be689da12272",
    ),
    (
        {
            "path": "src/alpha.js",
            "kind": "match",
            "range": {"start": {"line": 0, "column": 0}, "end": {"line": 0, "column": 5}},
        },
        "sha256:66430d70df6d03a2e042b45e6033c58fdd9897fa5e6194d332c2afe109829858",
    ),
    ({"a": "é"}, "sha256:b3a092a6af48807fa9482b2ee140105575daa26d5b24b3c0e60a7e2dee6683b1"),
    ({"\uff21": 1, "\U0001f600": 2}, "sha256:e3207e8ca18e6d266f11ec625254ff3bd274ce9567347abb344ad45e86d622f7"),
    (
        {"k": "\u0000\u0008\u0009\u000a\u000c\u000d\u0022\u005c\u002f\u001f\u007f\u2028\u00e9\U0001f600"},
        "sha256:3b33f2a1f6f63a2910e1111ac85dbe810e4daf7b6ed560c0e7b78d1eb1aba43e",
    ),
    (
        [0, -0, 9007199254740991, -9007199254740991, True, False, None, "", [], {}],
        "sha256:025dbf578bfb74bf610f2037aba185e1c00a74b419e06b84966b6064df981a19",
    ),
    (
        {"b": 1, "a": 2, "B": 3, "é": 4, "e": 5, "": 6, "a b": 7, "~": 8},
        "sha256:1881729fefe72d698e26fb8d4fea11624c110d5b764f91a9ac30297924c12a57",
    ),
)


@pytest.mark.parametrize(("value", "digest"), SPEC_VECTORS)
def test_canonical_digest_matches_spec_vectors(value: object, digest: str) -> None:
    """The SCI stand-in's own ``D(v)`` gives SPEC §3.5's digests."""
    assert fake_sci.digest(value) == digest


def test_canonical_text_of_spec_vector_10() -> None:
    """The canonical bytes of SPEC §3.5 vector 10 (every escape class)."""
    value = SPEC_VECTORS[5][0]
    expected = "7b226b223a225c75303030305c625c745c6e5c665c725c225c5c2f5c75303031667fe280a8c3a9f09f9880227d"
    assert fake_sci.canon(value).encode("utf-8").hex() == expected


def test_canonical_refuses_floats() -> None:
    """A float has no canonical text (SPEC §2.2: integers only)."""
    with pytest.raises(TypeError, match="not a canonical JSON value: float"):
        fake_sci.canon({"n": 1.0})


_TEXT = st.text(st.characters(codec="utf-8"), max_size=8)
_SCALARS = st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | _TEXT
_JSON = st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4), max_leaves=10
)


@given(_JSON)
def test_canonical_json_agrees_with_the_evaluator(value: object) -> None:
    """The stand-in's ``canon`` and ``digest`` equal ``ablation.canonical``'s on generated values."""
    assert fake_sci.canon(value) == canon(value)
    assert fake_sci.digest(value) == canonical_digest(value)


# ------------------------------------------------------------------ MetaScalar and the metadata header


@given(
    st.text(st.sampled_from(["a", " ", "\t", "\u00a0", "\ufeff", "\u0085", "\x1f", "é", "\U0001f600"]), max_size=245)
)
def test_meta_scalar_agrees_with_the_evaluator(text: str) -> None:
    """The source-list stand-in's ``MetaScalar`` equals ``ablation.text.is_meta_scalar``."""
    assert fake_source_list.is_meta_scalar(text) == is_meta_scalar(text)


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b"# summary: Alpha\nbody\n", ("present", "Alpha", [], None)),
        (b"// summary:   Spaced   \n", ("present", "Spaced", [], None)),
        (b"-- summary: L\r\n-- read-when: a; b\r\n", ("present", "L", ["a", "b"], None)),
        (b"# licence\n# summary: After a comment\n", ("present", "After a comment", [], None)),
        (b"# summary: x\n# read-when:\n", ("present", "x", [], None)),
        (b"body\n# summary: too late\n", ("absent", None, [], None)),
        (b"#summary: no space after the marker\n", ("absent", None, [], None)),
        (b"", ("absent", None, [], None)),
        (b"# read-when: a\n", ("invalid", None, [], "invalid_summary")),
        (b"# summary: a  b\n", ("invalid", None, [], "invalid_summary")),
        (b"# summary:\n", ("invalid", None, [], "invalid_summary")),
        (b"# summary: \xff\n", ("invalid", None, [], "invalid_summary")),
        (b"# summary: a\n# summary: b\n", ("invalid", None, [], "duplicate_summary")),
        (b"# summary: a\n# read-when: 1; 2; 3; 4; 5; 6\n", ("invalid", None, [], "invalid_read_when")),
        (b"# summary: a\n# read-when: x;; y\n", ("invalid", None, [], "invalid_read_when")),
        (b"# summary: a\n# read-when: x\n# read-when: y\n", ("invalid", None, [], "invalid_read_when")),
    ],
)
def test_metadata_header_convention(head: bytes, expected: tuple[object, ...]) -> None:
    """The metadata header convention of README.md, case by case."""
    assert fake_source_list.header_metadata(head) == expected


def test_tracked_entries_group_stages_like_spec_vectors() -> None:
    """Grouping, kinds, filter and order of SPEC §4.5 vectors 1–4 and 12."""
    e = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    records = [
        f"100644 {e} 0\t\tx.js",  # vector 1: TAB path sorts first
        f"100644 {e} 0\tREADME.md",
        f"100644 {e} 1\tf.js",  # vector 2
        f"100644 {e} 2\tf.js",
        f"100644 {e} 3\tf.js",
        f"160000 {e} 0\tsub.go",  # vector 3
        f"120000 {e} 0\tln.sh",
        f"100755 {e} 0\tx.PY",
        f"040000 {e} 0\tweird.c",
        f"120000 {e} 0\td.js",  # vector 4: the first record decides
        f"100644 {e} 0\td.js",
        f"100644 {e} 0\t..js",  # vector 12
        f"100644 {e} 0\t.js",
    ]
    data = "".join(r + "\0" for r in records).encode("utf-8")
    assert fake_source_list.tracked_entries(data) == [
        ("\tx.js", "regular"),
        ("..js", "regular"),
        ("d.js", "symlink"),
        ("f.js", "conflicted"),
        ("ln.sh", "symlink"),
        ("sub.go", "gitlink"),
        ("weird.c", "other"),
        ("x.PY", "regular"),
    ]


# ------------------------------------------------------------------ the variant files and table


def test_variant_table_matches_the_stand_ins_and_the_files() -> None:
    """``standins.VARIANTS``, the stand-ins' variant lists and the files on disk agree."""
    by_tool = {tool: [v.name for v in standins.VARIANTS if v.tool == tool] for tool in ("source-list", "sci")}
    assert by_tool["source-list"] == list(fake_source_list.VARIANTS)
    assert by_tool["sci"] == list(fake_sci.VARIANTS)
    on_disk = sorted(p.name for p in standins.DOUBLES_DIR.glob("fake_*.py"))
    assert on_disk == sorted(v.file for v in standins.VARIANTS)
    for v in standins.VARIANTS:
        run_as = fake_sci.variant_of if v.tool == "sci" else fake_source_list.variant_of
        assert run_as(str(v.path)) == v.name


def test_variant_files_are_one_launcher_each() -> None:
    """Every variant file is the same executable launcher; each stand-in file has its shebang."""
    launchers = [v.path for v in standins.VARIANTS if v.name != "normal"]
    assert len({hashlib.sha256(p.read_bytes()).hexdigest() for p in launchers}) == 1
    for path in [*launchers, standins.SCI, standins.SOURCE_LIST, standins.BACKEND]:
        mode = os.lstat(path).st_mode
        assert stat.S_ISREG(mode), path
        assert mode & stat.S_IXUSR, path
        assert path.read_bytes().startswith(b"#!/usr/bin/env python3\n" if path.suffix else b"#!/bin/sh\n")


def test_unknown_variant_names_are_refused() -> None:
    """A file name that names no variant selects none (the stand-in then refuses to run)."""
    assert fake_sci.variant_of("/x/fake_sci--nope.py") is None
    assert fake_sci.variant_of("/x/fake_sci--normal.py") is None
    assert fake_sci.variant_of("/x/fake_source_list.py") is None
    assert fake_source_list.variant_of("/x/fake_source_list--hang.py") is None
    assert fake_source_list.variant_of("fake_source_list") == "normal"


def test_provenance_constants_agree() -> None:
    """The provenance and file-name constants of ``standins`` are the stand-ins' own."""
    assert standins.SCI_PROVENANCE == {
        "name": fake_sci.PRODUCER_NAME,
        "version": fake_sci.PRODUCER_VERSION,
        "workflow": fake_sci.WORKFLOW,
    }
    assert standins.BACKEND_PROVENANCE == {
        "name": fake_sci.BACKEND_NAME,
        "version": fake_sci.BACKEND_VERSION,
        "executable_name": fake_sci.EXECUTABLE_NAME,
        "executable_version": fake_sci.EXECUTABLE_VERSION,
    }
    assert standins.BACKEND.name == fake_sci.EXECUTABLE_NAME
    assert standins.SCI_LEFTOVER_NAME == fake_sci.LEFTOVER_NAME
    assert standins.SOURCE_LIST_UNTRACKED_NAME == fake_source_list.UNTRACKED_NAME


def readme_row(v: standins.Variant) -> str:
    """The row README.md's variant table must hold for ``v``."""

    def cell(value: str | None) -> str:
        return f"`{value}`" if value else "—"

    bundle = "—" if v.tool == "source-list" else "null" if v.null_bundle else "built"
    passes = "yes" if v.passes else "no"
    cells = [f"`{v.file}`", v.fault, v.expected, passes, cell(v.rule), cell(v.traced_rule), cell(v.gate), bundle]
    return "| " + " | ".join(cells) + " |"


def test_readme_table_is_the_variant_table() -> None:
    """README.md's variant table lists exactly :data:`standins.VARIANTS`, in order, cell for cell."""
    lines = (standins.DOUBLES_DIR / "README.md").read_text(encoding="utf-8").splitlines()
    rows = [line for line in lines if line.startswith("| `fake_")]
    assert rows == [readme_row(v) for v in standins.VARIANTS]


def test_backend_answers_version_only() -> None:
    """The backend file answers ``--version`` (a tool-version step) and refuses anything else."""
    version = subprocess.run([standins.BACKEND, "--version"], capture_output=True, check=False, env={})
    other = subprocess.run([standins.BACKEND, "scan"], capture_output=True, check=False, env={})
    assert (version.returncode, version.stdout, version.stderr) == (0, b"stand-in-grep-cli 0.42.1\n", b"")
    assert (other.returncode, other.stdout) == (2, b"")
    assert other.stderr == b"stand-in-grep-cli: a test stand-in; only --version is supported\n"
