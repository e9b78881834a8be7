"""Experiments over the stand-in owners, for the ``capture`` tests (PREPARE.md §10 "Fixtures", "Stand-ins").

:func:`standin_experiment` makes (or reuses) the stand-in fixture repository
(:mod:`tests.prepare.doubles.standin_fixture`: every item kind and status, ``..js``,
a non-ASCII path with a space, TAB and newline paths only in ``.md``,
``src/alpha.pyi``), pins the stand-ins and this machine's git and Python, and
writes an experiment file with ten cases per repository (CASE-19) of which the
first ``sci_cases`` have ``[case.sci]``; :func:`write_review` writes a cases review
bound to it; :func:`capture` runs ``ablation-prepare capture`` in this process.

The stand-ins need ``python3`` (3.10+) and ``git`` on the owners' PATH:
``environment_path`` is this interpreter's folder and git's folder.

Spec: PREPARE.md §10; tests/prepare/doubles/README.md.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.prepare.doubles import standin_fixture, standins
from tests.prepare.prepfixtures import Ran, dump_toml, pin_table, real_git, run_prepare

__all__ = [
    "CASE_TRUTHS",
    "Made",
    "assert_ledger_files_intact",
    "attempt_json",
    "capture",
    "ends",
    "environment_path",
    "ledger",
    "listing",
    "recorded_files",
    "sci_dispatcher",
    "standin_experiment",
    "strace_or_reason",
    "write_review",
]

TOOL_REVISION = "c0ffee" + "0" * 34
#: Ten cases over the fixture repository: question and truth (distinct intents and truth sets).
CASE_TRUTHS: tuple[tuple[str, str], ...] = (
    ("Where are the request builders defined and how do they parse requests?", "src/alpha.py"),
    ("Which helpers does the beta module export?", "src/beta.js"),
    ("How is gamma computed for the emoji banner?", "src/gamma.py"),
    ("Which hints does the Lua script print?", "src/hints.lua"),
    ("What does the invalid Ruby header print?", "src/invalid.rb"),
    ("Which shell script echoes twice?", "src/twice.sh"),
    ("Where are the café helpers of the Go library?", "lib/café ü.go"),
    ("What does the upper-case extension file declare?", "src/Upper.JS"),
    ("Which vendored Go submodule is pinned?", "vendor/sub.go"),
    ("What is the dot dot file about?", "..js"),
)
SEEDS = {"language": "python", "pattern": "def build_$NAME($$$ARGS)", "paths": ["src"]}


def environment_path() -> str:
    """The owners' PATH after the backend: this interpreter's folder (``python3``) and git's folder."""
    folders = [os.path.dirname(sys.executable), os.path.dirname(real_git())]
    return os.pathsep.join(dict.fromkeys(folders))


def strace_or_reason() -> tuple[str | None, str]:
    """The machine's strace when it can trace here, else ``None`` and why not."""
    strace = shutil.which("strace")
    if strace is None:
        return None, "strace is not installed: the traced mode is not tested here"
    probe = subprocess.run(
        [strace, "-f", "-qq", "-e", "trace=%file", "-o", os.devnull, "true"], capture_output=True, check=False
    )
    if probe.returncode != 0:
        return None, f"ptrace is not allowed here: {probe.stderr.decode(errors='replace').strip()}"
    return os.path.realpath(strace), ""


def fixture_source(root: Path) -> tuple[Path, str]:
    """The fixture repository at ``root/fixture-source`` (made once), and its commit."""
    source = root / "fixture-source"
    if not source.exists():
        standin_fixture.make_repo(source)
    return source, standin_fixture.FIXTURE_COMMIT


@dataclass
class Made:
    """An experiment file, its cases review, and where a capture of it goes."""

    root: Path
    experiment: Path
    review: Path
    work_root: Path
    dir: Path
    doc: dict[str, Any] = field(repr=False)

    def args(self, *extra: str | Path, traced: bool = False) -> list[str | Path]:
        """``capture``'s arguments for this experiment (asserted mode unless ``traced``)."""
        access = ["--file-access-trace", "strace"] if traced else ["--assert-no-index-access"]
        return [self.experiment, "--dir", self.dir, "--cases-review", self.review, "--execute-owners", *access, *extra]


_DISPATCHER = """#!/usr/bin/env python3
# A test-only SCI: runs the stand-in variant its case's request file names (by <nnn>.json), argv unchanged.
import os
import sys

VARIANTS = {table!r}
DOUBLES = {doubles!r}
case = int(os.path.basename(sys.argv[-1]).split(".")[0]) if len(sys.argv) == 5 else -1
path = os.path.join(DOUBLES, VARIANTS.get(case, "fake_sci.py"))
os.execv(path, [path, *sys.argv[1:]])
"""


def sci_dispatcher(folder: Path, table: dict[int, str]) -> Path:
    """A pinned SCI that execs the stand-in variant file ``table`` names for each case index (``fake_sci.py`` else).

    The variant is picked from the request file's name, so the exporter's argv stays OBS-13's.
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "sci-by-case.py"
    path.write_text(_DISPATCHER.format(table=table, doubles=str(standins.DOUBLES_DIR)), encoding="utf-8")
    path.chmod(0o755)
    return path


def _tool(path: Path, variant: standins.Variant, **keys: Any) -> dict[str, Any]:
    table = pin_table(path, **keys)
    if variant.name != "normal":
        table["extra_pins"] = [pin_table(variant.implementation)]
    return table


def standin_experiment(
    root: Path,
    *,
    sci: str = "normal",
    source_list: str = "normal",
    sci_cases: int = 1,
    repositories: int = 1,
    bare_second: bool = True,
    process_timeout_s: int = 30,
    timeout_ms: int = 20000,
    record_version: tuple[str, ...] = (),
    strace: str | None = None,
    sci_table: dict[int, str] | None = None,
) -> Made:
    """An experiment over the stand-ins in ``root`` (a fresh folder): ``sci``/``source_list`` name the variants."""
    root.mkdir(parents=True, exist_ok=True)
    source, commit = fixture_source(root.parent)
    sources = [source]
    if repositories > 1:
        second = root / "second.git" if bare_second else root / "second"
        subprocess.run(
            ["git", "clone", "--quiet", *(["--bare"] if bare_second else []), str(source), str(second)],
            check=True,
            capture_output=True,
        )
        sources.append(second)
    sl_variant, sci_variant = standins.variant("source-list", source_list), standins.variant("sci", sci)
    tools: dict[str, Any] = {
        "git": pin_table(real_git()),
        "node": pin_table(os.path.realpath(sys.executable)),
        "source_list": _tool(sl_variant.path, sl_variant, revision=TOOL_REVISION),
        "sci": _tool(sci_variant.path, sci_variant, revision=TOOL_REVISION, **standins.SCI_PROVENANCE),
        "backend": pin_table(standins.BACKEND, **standins.BACKEND_PROVENANCE),
    }
    if sci_table is not None:
        dispatcher = sci_dispatcher(root / "tools", sci_table)
        tools["sci"] = pin_table(dispatcher, revision=TOOL_REVISION, **standins.SCI_PROVENANCE)
        tools["sci"]["extra_pins"] = [pin_table(standins.SCI)]
    if strace is not None:
        tools["strace"] = pin_table(strace)
    for key in record_version:
        tools[key]["record_version"] = True
    cases = []
    names = ["fixture", "fixture-bare"][: len(sources)]
    for r, name in enumerate(names):
        for k, (question, truth) in enumerate(CASE_TRUTHS):
            case: dict[str, Any] = {
                "id": f"{name}-{k:02d}",
                "repository": name,
                "question": question if r == 0 else question.replace("?", " here?"),
                "truth": [truth],
                "max_items": 4,
            }
            if k < sci_cases:
                case["sci"] = dict(SEEDS)
            cases.append(case)
    work_root = root / "work"
    doc: dict[str, Any] = {
        "experiment": {
            "id": "capture-test",
            "protocol": "pi-context-packer-source-selection-ablation/v2",
            "authority": "AK-0: test operator; stand-in owners",
            "work_root": str(work_root),
            "environment_path": environment_path(),
        },
        "tools": tools,
        "sci_defaults": {"limits": {"timeout_ms": timeout_ms}, "process_timeout_s": process_timeout_s},
        "staleness": {"rule": "spread", "size": 3},
        "repository": [
            {"id": name, "source": str(path), "commit": commit} for name, path in zip(names, sources, strict=True)
        ],
        "case": cases,
    }
    experiment = root / "experiment.toml"
    experiment.write_text(dump_toml(doc), encoding="utf-8")
    made = Made(root, experiment, root / "cases-review.toml", work_root, root / "D", doc)
    write_review(made)
    return made


def write_review(made: Made, *, decisions: dict[str, str] | None = None, sha256: str | None = None) -> Path:
    """A cases review of ``made``'s experiment: every repository ACCEPTed unless ``decisions`` says otherwise."""
    bound = sha256 or hashlib.sha256(made.experiment.read_bytes()).hexdigest()
    lines = []
    for repo in made.doc["repository"]:
        decision = (decisions or {}).get(repo["id"], "ACCEPT")
        lines += [
            "[[repository]]",
            f"id = {json.dumps(repo['id'])}",
            f'decision = "{decision}"',
            'reviewer = "R. Roe"',
            f'reviewed_experiment_sha256 = "{bound}"',
            'notes = "questions independent of the truth names"',
            "",
        ]
    made.review.write_text("\n".join(lines), encoding="utf-8")
    return made.review


def capture(made: Made, *extra: str | Path, traced: bool = False) -> Ran:
    """``ablation-prepare capture`` on ``made`` in this process."""
    return run_prepare("capture", *made.args(*extra, traced=traced))


def ledger(made: Made) -> list[dict[str, Any]]:
    """The ledger's entries."""
    return [json.loads(line) for line in (made.dir / "attempts.jsonl").read_text(encoding="utf-8").splitlines()]


def listing(*folders: Path) -> dict[str, str]:
    """Every file below the folders: path → SHA-256 (a folder as ``<dir>``)."""
    found = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_symlink() or not path.is_dir():
                found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "<other>"
            else:
                found[str(path)] = "<dir>"
    return found


def ends(made: Made) -> dict[tuple[str, int], dict[str, Any]]:
    """Every ``end`` entry of the ledger by ``(step, attempt)``."""
    return {(e["step"], e["attempt"]): e for e in ledger(made) if e["entry"] == "end"}


def attempt_json(made: Made, folder: str, name: str) -> Any:
    """A JSON file of an attempt folder (``raw/cases/0003/attempt-1``)."""
    return json.loads((made.dir / folder / name).read_text(encoding="utf-8"))


def recorded_files(made: Made) -> dict[str, str]:
    """Every file the ledger names in D (spawn outputs and ``file`` entries): path relative to D → SHA-256."""
    found = {}
    for e in ledger(made):
        if e["entry"] == "spawn":
            for member in ("stdout", "stderr"):
                found[e[member]["file"]] = e[member]["sha256"]
        elif e["entry"] == "file":
            found[e["file"]] = e["sha256"]
    return found


def assert_ledger_files_intact(made: Made) -> None:
    """Every file the ledger names is in D with the SHA-256 the ledger recorded (nothing lost or rewritten)."""
    for relative, sha in recorded_files(made).items():
        path = made.dir / relative
        assert path.is_file() and not path.is_symlink(), relative
        assert hashlib.sha256(path.read_bytes()).hexdigest() == sha, relative
