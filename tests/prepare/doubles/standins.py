"""How to drive the owner stand-ins: their files, argv, clean environment, provenance, and the variant table.

For tests of ``ablation-prepare capture`` and for ``make prepare-example``
(PREPARE.md §10). Standard library only; README.md beside this file is the
prose version. Import it as ``from tests.prepare.doubles import standins`` (one
module object for every test folder).

- :data:`SOURCE_LIST` runs as ``[interpreter, SOURCE_LIST, --repo, ., --full-list, --json]``
  (:func:`source_list_argv`); the interpreter (``[tools.node]``) is any Python 3.10+.
- :data:`SCI` runs as ``[SCI, experimental, structural-evidence-receipt, --request-file, F]``
  (:func:`sci_argv`); its shebang is ``#!/usr/bin/env python3``, so the clean
  owner environment's PATH (:data:`BACKEND_DIR`, then ``environment_path``)
  must find ``python3`` and ``git`` in ``environment_path``.
- A fault variant is the file :attr:`Variant.path`: same argv, same environment.
  Pin the variant file *and* the stand-in it runs (``fake_sci.py`` or
  ``fake_source_list.py``, in ``extra_pins``): the variant file is a launcher.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DOUBLES_DIR = Path(__file__).resolve().parent
SOURCE_LIST = DOUBLES_DIR / "fake_source_list.py"
SCI = DOUBLES_DIR / "fake_sci.py"
BACKEND_DIR = DOUBLES_DIR / "backend"
BACKEND = BACKEND_DIR / "stand-in-grep-cli"

#: ``[tools.sci]`` keys the SCI stand-in's receipts match (RCPT-11, SB-10, SB-12, OBS-8).
SCI_PROVENANCE = {"name": "semantic-code-intelligence", "version": "2.0.0", "workflow": "structural-evidence-export-v1"}
#: ``[tools.backend]`` keys the receipts match (SB-11, OBS-11); name and executable_name differ on purpose.
BACKEND_PROVENANCE = {
    "name": "stand-in-grep",
    "version": "0.42.0",
    "executable_name": "stand-in-grep-cli",
    "executable_version": "0.42.1",
}

#: What a stand-in leaves behind, by name (the leftover and untracked-file variants).
SCI_LEFTOVER_NAME = "fake-sci-leftover.txt"
SOURCE_LIST_UNTRACKED_NAME = "fake-source-list.cache"


def source_list_argv(interpreter: str, script: Path = SOURCE_LIST) -> list[str]:
    """The source-list argv of PREP-11: ``[interpreter, script, --repo, ., --full-list, --json]``."""
    return [interpreter, str(script), "--repo", ".", "--full-list", "--json"]


def sci_argv(request_file: Path, script: Path = SCI) -> list[str]:
    """The exporter argv of OBS-13: ``[script, experimental, structural-evidence-receipt, --request-file, F]``."""
    return [str(script), "experimental", "structural-evidence-receipt", "--request-file", str(request_file)]


def owner_env(*, path: str, home: Path, tmpdir: Path) -> dict[str, str]:
    """The clean owner environment of PREPARE.md §4: exactly these variables, nothing inherited.

    Args:
        path: ``PATH``; for SCI, ``str(BACKEND_DIR)`` + ``:`` + ``environment_path``.
        home: an empty folder for ``HOME``.
        tmpdir: an empty folder for ``TMPDIR``, ``TMP`` and ``TEMP``.
    """
    tmp = str(tmpdir)
    return {
        "PATH": path,
        "HOME": str(home),
        "TMPDIR": tmp,
        "TMP": tmp,
        "TEMP": tmp,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_TERMINAL_PROMPT": "0",
    }


@dataclass(frozen=True, slots=True)
class Variant:
    """One stand-in variant and what capture must make of it (PREPARE.md §10 "Fault variants").

    Attributes:
        tool: ``"source-list"`` or ``"sci"``.
        name: the variant name; ``"normal"`` is the stand-in itself.
        fault: what the stand-in does differently.
        expected: PREPARE.md §10's expected outcome.
        passes: capture succeeds with it (in assertion mode).
        rule: the evaluator rule its captured output breaks first (assertion mode), else ``None``.
        gate: the capture gate that stops it when no evaluator rule does, or before one would
            (``exit``, ``source-list-stderr``, ``strict-utf8``, ``zero-present``, ``timeout``),
            else ``None``; capture names its own CAP rule for these.
        traced_rule: the first rule under ``--file-access-trace strace`` when it differs from ``rule``.
        null_bundle: the SCI stdout gives no receipt, so the case's bundle is ``null``.
        inner: for source-list parse faults, the inner location after `` -> `` in the rule's ``where``.
    """

    tool: str
    name: str
    fault: str
    expected: str
    passes: bool = False
    rule: str | None = None
    gate: str | None = None
    traced_rule: str | None = None
    null_bundle: bool = False
    inner: str | None = None

    @property
    def file(self) -> str:
        """The file name: ``fake_sci.py``, ``fake_sci--<name>.py``, ``fake_source_list--<name>.py``, …."""
        stem = "fake_sci" if self.tool == "sci" else "fake_source_list"
        return f"{stem}.py" if self.name == "normal" else f"{stem}--{self.name}.py"

    @property
    def path(self) -> Path:
        """The absolute path of :attr:`file`."""
        return DOUBLES_DIR / self.file

    @property
    def implementation(self) -> Path:
        """The stand-in the variant file runs (pin it too, as an extra pin)."""
        return SCI if self.tool == "sci" else SOURCE_LIST


_SL = "source-list"
VARIANTS: tuple[Variant, ...] = (
    Variant(_SL, "normal", "none", "passes", passes=True),
    Variant(
        _SL,
        "stderr",
        "one line on stderr, output otherwise normal",
        "CAP failure under the source-list stderr rule; stdout and stderr kept",
        gate="source-list-stderr",
    ),
    Variant(
        _SL, "exit-3", "normal output, exit status 3", "failure (PREP-13); no SCI run", rule="PREP-13", gate="exit"
    ),
    Variant(
        _SL,
        "omit-path",
        "leaves out the last item (counts agree with the items it prints)",
        "GIT-10 at capture",
        rule="GIT-10",
    ),
    Variant(
        _SL, "bom", "U+FEFF before the JSON text", "TOP-2 at <stdout> -> character 0", rule="TOP-2", inner="character 0"
    ),
    Variant(_SL, "duplicate-key", 'the member "mode" twice', "TOP-6 at <stdout> -> /mode", rule="TOP-6", inner="/mode"),
    Variant(
        _SL,
        "float-count",
        "totalCount written as <n>.0",
        "TOP-8 at <stdout> -> /totalCount",
        rule="TOP-8",
        inner="/totalCount",
    ),
    Variant(
        _SL,
        "bom-in-path",
        "U+FEFF at the start of the first item's path",
        "SL-13 in a path",
        rule="SL-13",
        inner="/items/0/path",
    ),
    Variant(
        _SL,
        "bom-in-summary",
        "U+FEFF at the start of the first present item's summary",
        "SL-19 in a summary",
        rule="SL-19",
    ),
    Variant(
        _SL,
        "invalid-utf8",
        "byte FF inside the first item's path",
        "failure (strict decode, a CAP rule)",
        gate="strict-utf8",
    ),
    Variant(
        _SL,
        "untracked-file",
        f"writes {SOURCE_LIST_UNTRACKED_NAME} into the target",
        "failed (PREP-14); target kept",
        rule="PREP-14",
    ),
    Variant(
        _SL,
        "nothing-present",
        "reports every present item as absent",
        "zero-present refusal before any SCI",
        gate="zero-present",
    ),
    Variant("sci", "normal", "none", "passes", passes=True),
    Variant(
        "sci",
        "reordered",
        "prints the receipt's members in reverse order at every depth",
        "passes; the receipt keeps the text's member order",
        passes=True,
    ),
    Variant(
        "sci",
        "orphan-short",
        "leaves a child in its group sleeping 2 s (stdio on /dev/null)",
        "subreaper reaps it; confirmed, orphan count 1 in the record",
        passes=True,
    ),
    Variant(
        "sci",
        "orphan-long",
        "leaves a child in its group sleeping 60 s holding stdout",
        "group killed after the grace (traced: timeout at process_timeout_s); not confirmed; case failed (OBS-18)",
        rule="OBS-18",
    ),
    Variant("sci", "stderr", "one line on stderr, receipt normal", "failed (OBS-30)", rule="OBS-30"),
    Variant("sci", "two-receipts", "prints the receipt twice", "failed: OBS-18 (receiptCount 2)", rule="OBS-18"),
    Variant(
        "sci", "trailing-text", "prints 'done' after the receipt", "failed: OBS-24 (receiptCount 1)", rule="OBS-24"
    ),
    Variant(
        "sci", "tmpdir-leftover", f"leaves $TMPDIR/{SCI_LEFTOVER_NAME}", "failed (OBS-19); TMPDIR kept", rule="OBS-19"
    ),
    Variant(
        "sci",
        "home-leftover",
        f"leaves $HOME/{SCI_LEFTOVER_NAME}",
        "asserted: failed (OBS-19); traced: failed (OBS-17); HOME kept",
        rule="OBS-19",
        traced_rule="OBS-17",
    ),
    Variant("sci", "ontology-dir", "creates an empty .ontology/ in the target", "failed (OBS-17)", rule="OBS-17"),
    Variant(
        "sci", "edit-tracked", "appends a line to the first tracked regular file", "failed (OBS-16)", rule="OBS-16"
    ),
    Variant(
        "sci",
        "touch-tracked",
        "sets the first tracked regular file's mtime to 2001-01-01",
        "passes; a changed .git/index hash is recorded and shown",
        passes=True,
    ),
    Variant(
        "sci",
        "home-cache",
        "writes $HOME/.cache/stand-in-sci/index.json, reads it back, removes it",
        "traced: failed (OBS-17); asserted: passes, flagged asserted, not traced",
        passes=True,
        traced_rule="OBS-17",
    ),
    Variant(
        "sci",
        "non-item-match",
        "also searches blobs without a default extension (src/alpha.pyi)",
        "failed at capture (SB-15)",
        rule="SB-15",
    ),
    Variant(
        "sci",
        "capped",
        "reports one more observed occurrence than it returns (capped, incomplete)",
        "failed, or unavailable when allowed",
        rule="SB-13",
    ),
    Variant("sci", "version-2.0.1", "reports producer version 2.0.1", "provenance failure (SB-10)", rule="SB-10"),
    Variant(
        "sci",
        "hang",
        "sleeps forever before writing anything",
        "timeout; group killed; failed",
        gate="timeout",
        null_bundle=True,
    ),
    Variant(
        "sci", "empty-stdout", "prints nothing, exit 0", "null bundle when allowed (criterion 26)", null_bundle=True
    ),
    Variant(
        "sci",
        "duplicate-key",
        'the receipt\'s member "schema" twice',
        "null bundle when allowed (criterion 26)",
        null_bundle=True,
    ),
)


def variant(tool: str, name: str) -> Variant:
    """The variant ``name`` of ``tool`` (``"source-list"`` or ``"sci"``).

    Raises:
        KeyError: no such variant.
    """
    for v in VARIANTS:
        if v.tool == tool and v.name == name:
            return v
    raise KeyError(f"{tool}:{name}")
