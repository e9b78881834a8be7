"""Valid experiment files for the preparation tests, as dicts a test changes in one place.

:func:`valid_experiment` makes one or two real repositories (:mod:`tests.prepare.gitfixtures`),
pins real files as the tools, and returns the experiment as a dict in the file's
layout; :func:`write_experiment` writes it as TOML (:func:`dump_toml`) and
:func:`run_prepare` runs ``ablation-prepare`` in this process, returning the exit
code and both streams. A test breaks exactly one thing in the dict and asserts
the whole message.

Spec: PREPARE.md §3, §10 "Fixtures".
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ablation.prepare.cli import main
from ablation.prepare.tomltext import toml_key, toml_string
from tests.prepare.gitfixtures import Executable, Gitlink, Repo, make_repository

__all__ = [
    "ALPHA_CASES",
    "ALPHA_FILES",
    "Made",
    "Ran",
    "dump_toml",
    "errors_of",
    "pin_table",
    "real_git",
    "run_prepare",
    "valid_experiment",
    "write_experiment",
]

Doc = dict[str, Any]


def _py(summary: str | None, body: str) -> str:
    """A Python file with a ``# summary:`` header line (when given) and a body."""
    return (f"# summary: {summary}\n" if summary else "") + body


ALPHA_FILES: dict[str | bytes, Any] = {
    "README.md": "# alpha\n\nA small ledger service.\n",
    "docs/design.md": "# design\n",
    "src/alpha/__init__.py": _py("Package marker of the ledger service.", ""),
    "src/alpha/accounts.py": _py(
        "Opening, freezing and closing ledger accounts.", "def open_account(owner):\n    ...\n"
    ),
    "src/alpha/balances.py": _py("Running balances per account and currency.", "def balance(account):\n    ...\n"),
    "src/alpha/currency.py": _py("Currency codes and rounding rules.", "ROUNDING = 2\n"),
    "src/alpha/exports.py": _py("CSV and JSON export of statements.", "def export_csv(rows):\n    ...\n"),
    "src/alpha/fees.py": _py("Monthly fees and fee waivers.", "def monthly_fee(account):\n    ...\n"),
    "src/alpha/interest.py": _py("Daily interest accrual on savings accounts.", "def accrue(account, day):\n    ...\n"),
    "src/alpha/ledger.py": _py("Double-entry postings and journal integrity.", "def post(entry):\n    ...\n"),
    "src/alpha/old  ledger.py": _py("The ledger before double entry (two spaces in its name).", "LEGACY = True\n"),
    "src/alpha/limits.py": _py("Overdraft and withdrawal limits.", "def check_limit(account, amount):\n    ...\n"),
    "src/alpha/reports.py": _py(None, "def month_end_report(ledger):\n    ...\n"),
    "src/alpha/statements.py": _py("Monthly statements per customer.", "def statement(account):\n    ...\n"),
    "tests/test_ledger.py": _py(None, "def test_post():\n    assert True\n"),
    "tools/release.sh": Executable("#!/bin/sh\necho release\n"),
    "vendor/rates.go": Gitlink("4b825dc642cb6eb9a060e54bf8d69288fbee4904"),
}
"""One checkout: 17 tracked paths, 15 with a default extension (an executable and a gitlink among them)."""

ALPHA_CASES: list[tuple[str, list[str], list[str]]] = [
    ("How are ledger accounts opened, frozen and closed?", ["src/alpha/accounts.py"], ["src/alpha"]),
    ("Where is the running balance per currency computed?", ["src/alpha/balances.py"], ["src/alpha"]),
    ("Which rounding rule applies to amounts in each currency?", ["src/alpha/currency.py"], []),
    ("How are statements exported as CSV or JSON files?", ["src/alpha/exports.py"], ["src/alpha"]),
    ("When is a monthly fee waived for an account?", ["src/alpha/fees.py"], ["src/alpha"]),
    ("How does daily interest accrue on savings accounts?", ["src/alpha/interest.py"], ["src/alpha/interest.py"]),
    ("What keeps double-entry postings balanced in the journal?", ["src/alpha/ledger.py", "tests/test_ledger.py"], []),
    ("Where are overdraft and withdrawal limits enforced?", ["src/alpha/limits.py"], ["src/alpha"]),
    ("What goes into the month-end report?", ["src/alpha/reports.py"], ["src/alpha"]),
    ("Which vendored exchange-rate module does the service pin?", ["vendor/rates.go"], ["vendor"]),
]
"""Ten cases of ``alpha``: question, truth, path seeds (distinct intents and truth sets)."""


def real_git() -> str:
    """The real path of the git on ``PATH`` (the tests pin it)."""
    found = shutil.which("git")
    assert found is not None, "git is not installed"
    return os.path.realpath(found)


def _sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def pin_table(path: str | Path, **extra: Any) -> Doc:
    """A ``[tools.*]`` table pinning the file at ``path`` as it is now."""
    return {"path": str(path), "sha256": _sha256(path), **extra}


def _tools(folder: Path) -> Doc:
    """git and the interpreter as they are installed; stand-in files for source-list, SCI and the backend."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    for name in ("source-list.mjs", "semantic-code-intelligence", "ast-grep"):
        (folder / name).write_text(f"# {name}: a file for pin checks; never run by these tests\n", encoding="utf-8")
        files[name] = folder / name
    return {
        "git": pin_table(real_git()),
        "node": pin_table(os.path.realpath(sys.executable)),
        "source_list": pin_table(files["source-list.mjs"], revision="36792de9195c86e6e8ae521efb5c952492278088"),
        "sci": pin_table(
            files["semantic-code-intelligence"],
            revision="518d7cf473d5e9bd2c7c0b962d062adec300375d",
            name="semantic-code-intelligence",
            version="2.0.0",
            workflow="structural-evidence-export-v1",
        ),
        "backend": pin_table(files["ast-grep"], name="ast-grep", version="0.42.0"),
    }


def _cases(repo_id: str, cases: list[tuple[str, list[str], list[str]]]) -> list[Doc]:
    found = []
    for k, (question, truth, paths) in enumerate(cases):
        case: Doc = {"id": f"{repo_id}-{k + 1:02d}", "repository": repo_id, "question": question, "truth": truth}
        case["max_items"] = 4
        case["sci"] = {"language": "python", "pattern": "def $NAME($$$ARGS)", "paths": paths}
        found.append(case)
    return found


@dataclass(frozen=True, slots=True)
class Made:
    """A valid experiment as a dict, and the repositories it names."""

    doc: Doc
    repos: dict[str, Repo]


def valid_experiment(tmp_path: Path, *, bare_beta: bool = False, two: bool = False) -> Made:
    """A valid experiment over ``alpha`` (a checkout) and, with ``two``, ``beta`` (bare when ``bare_beta``)."""
    repos = {"alpha": make_repository(tmp_path / "repos" / "alpha", ALPHA_FILES)}
    cases = _cases("alpha", ALPHA_CASES)
    if two:
        beta_files = {k.replace("alpha", "beta") if isinstance(k, str) else k: v for k, v in ALPHA_FILES.items()}
        repos["beta"] = make_repository(tmp_path / "repos" / "beta", beta_files, bare=bare_beta)
        beta_cases = [
            (
                q.replace("ledger", "book"),
                [t.replace("alpha", "beta") for t in truth],
                [p.replace("alpha", "beta") for p in paths],
            )
            for q, truth, paths in ALPHA_CASES
        ]
        cases += _cases("beta", beta_cases)
    doc: Doc = {
        "experiment": {
            "id": "ctx-v2-test",
            "protocol": "pi-context-packer-source-selection-ablation/v2",
            "authority": "AK-1: operator T. Est; owners consulted",
            "work_root": "/evidence/ctx-v2-test",
            "environment_path": "/usr/bin:/bin",
        },
        "tools": _tools(tmp_path / "tools"),
        "staleness": {"rule": "spread", "size": 3},
        "repository": [
            {"id": repo_id, "source": str(repo.path), "commit": repo.commit} for repo_id, repo in repos.items()
        ],
        "case": cases,
    }
    return Made(doc, repos)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{toml_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(type(value))


def _is_table(value: Any) -> bool:
    return isinstance(value, dict)


def _is_table_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _dump(doc: Doc, prefix: str, lines: list[str], *, inline_arrays: frozenset[str]) -> None:
    for key, value in doc.items():
        if not _is_table(value) and (not _is_table_array(value) or key in inline_arrays):
            lines.append(f"{toml_key(key)} = {_value(value)}")
    for key, value in doc.items():
        name = f"{prefix}{toml_key(key)}"
        if _is_table(value):
            if any(not _is_table(v) for v in value.values()) or not value:
                lines += ["", f"[{name}]"]
            _dump(value, name + ".", lines, inline_arrays=inline_arrays)
        elif _is_table_array(value) and key not in inline_arrays:
            for element in value:
                lines += ["", f"[[{name}]]"]
                _dump(element, name + ".", lines, inline_arrays=inline_arrays)


def dump_toml(doc: Doc) -> str:
    """The TOML text of an experiment dict: tables as ``[a.b]``, arrays of tables as ``[[a]]``
    (``extra_pins`` inline), scalars as TOML values."""
    lines: list[str] = []
    _dump(doc, "", lines, inline_arrays=frozenset({"extra_pins"}))
    return "\n".join(lines).lstrip("\n") + "\n"


def write_experiment(path: Path, doc: Doc) -> Path:
    """Write ``doc`` as TOML at ``path``; return ``path``."""
    path.write_text(dump_toml(doc), encoding="utf-8")
    return path


@dataclass(frozen=True, slots=True)
class Ran:
    """One ``ablation-prepare`` run in this process: exit code, stdout, stderr."""

    code: int
    out: str
    err: str


def run_prepare(*args: str | Path) -> Ran:
    """Run ``ablation-prepare args`` in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return Ran(code, out.getvalue(), err.getvalue())


def errors_of(ran: Ran) -> list[str]:
    """The stderr lines that are not warnings."""
    return [line for line in ran.err.splitlines() if not line.startswith("ablation-prepare: warning: ")]
