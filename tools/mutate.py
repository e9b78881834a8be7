#!/usr/bin/env python3
"""Mutation testing of the rule modules with mutmut, one module at a time (docs/development.md).

    tools/mutate.py                                  every module of MODULES, smallest first
    tools/mutate.py --module ablation/metrics.py     one module (repeatable)
    tools/mutate.py --report-only                    rebuild the report from stored results

For each module a scratch copy of the repository is made under
``build/mutation/work/<module>`` with a ``[tool.mutmut]`` section that mutates
that module only; ``mutmut run --max-children 1`` then runs, for each mutant,
only the tests that executed the mutated function (mutmut's per-function test
selection, measured once per module). Results are kept per module in
``build/mutation/results/<module>.json`` and summed into
``build/mutation/report.md``: the score per module, each survivor with file,
line and mutation, and the equivalent mutants listed in
``tools/mutation-equivalent.json`` with the reason no input can tell them apart.

Score = killed / (mutants - equivalent), where "killed" counts mutants that a
test failed on or that timed out; mutants no test reaches count as survivors.

Tests left out of the runs (:data:`IGNORED_TESTS`): ``tests/property``
(hypothesis, slow per mutant), and the tests that run ``python -m ablation``
in a subprocess or read files outside the package (the scripts, the Makefile,
the docs, the identity and sealed closure, archive, limits, rule coverage),
which cannot see mutmut's in-process mutants.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "build" / "mutation"
EQUIVALENT = ROOT / "tools" / "mutation-equivalent.json"
MUTMUT = Path(sys.executable).parent / "mutmut"

#: Every module that holds a SPEC rule or a rule's predicate (docs/development.md lists them), smallest first.
MODULES = (
    "ablation/canonical.py",
    "ablation/metrics.py",
    "ablation/selection.py",
    "ablation/experiment.py",
    "ablation/rates.py",
    "ablation/text.py",
    "ablation/gates.py",
    "ablation/result.py",
    "ablation/pipeline.py",
    "ablation/gzipfile.py",
    "ablation/contracts/base.py",
    "ablation/contracts/staleness.py",
    "ablation/contracts/preparation.py",
    "ablation/contracts/git_index.py",
    "ablation/contracts/cases.py",
    "ablation/contracts/sci_request.py",
    "ablation/contracts/structural.py",
    "ablation/contracts/source_list.py",
    "ablation/contracts/source_list_items.py",
    "ablation/contracts/execution.py",
    "ablation/contracts/raw_evidence.py",
    "ablation/contracts/sci_receipt.py",
    "ablation/contracts/receipt_evidence.py",
    "ablation/strictjson/values.py",
    "ablation/strictjson/scanner.py",
    "ablation/strictjson/fast.py",
    "ablation/strictjson/written.py",
)
COPIED = (
    "ablation",
    "tests",
    "docs",
    "README.md",
    "examples",
    "benchmarks",
    "tools",
    "pyproject.toml",
    "requirements.in",
    "requirements.lock",
    "requirements-dev.in",
    "requirements-dev.lock",
    "Makefile",
)
# Tests that run the CLI in another process, read repository files that are not copied (the docs,
# Makefile targets, nix/) or build environments: in-process mutants are invisible to them. tests/prepare
# spawns stand-in owners and holds no SPEC rule: left out to keep a module's run within the hour.
IGNORED_TESTS = (
    "tests/property",
    "tests/tools",
    "tests/make",
    "tests/docs",
    "tests/closure",
    "tests/prepare",
    "tests/rules/test_rule_coverage.py",
    "tests/bundle/test_archive.py",
    "tests/cli/test_limits.py",
    "tests/cli/test_operator_make_one_shot.py",
)
KILLED = {1, 3, 36, 24, -24, 152, 255}  # failed test, pytest internal error, timeouts
SURVIVED = {0, 5, 33}  # tests passed, or no test reached the mutant


def slug(module: str) -> str:
    return module.removeprefix("ablation/").removesuffix(".py").replace("/", ".")


def _toml_list(values: list[str]) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def prepare(module: str) -> Path:
    """A fresh scratch copy of the repository configured to mutate ``module`` only."""
    work = OUT / "work" / slug(module)
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "CLOSURE.json")
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, work / name, ignore=ignore)
        elif src.is_file():
            shutil.copy2(src, work / name)
    shared = ROOT.parent / "shared"
    if shared.is_dir():  # the tests find ../shared beside the repository, here beside mutants/
        (work / "shared").symlink_to(shared)
    pytest_args = ["-p", "no:cacheprovider", "-q"] + [f"--ignore={t}" for t in IGNORED_TESTS]
    also_copy = [name + "/" if (ROOT / name).is_dir() else name for name in COPIED if name not in ("ablation", "tests")]
    with (work / "pyproject.toml").open("a", encoding="utf-8") as fh:
        fh.write(
            "\n[tool.mutmut]\n"
            'source_paths = ["ablation"]\n'
            f"only_mutate = {_toml_list([module])}\n"
            f"pytest_add_cli_args = {_toml_list(pytest_args)}\n"
            f"also_copy = {_toml_list(also_copy)}\n"
            "use_git_change_detection = false\n"
            "use_setproctitle = false\n"
        )
    return work


def run_mutmut(work: Path, log: Path) -> int:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    with log.open("w", encoding="utf-8") as fh:
        proc = subprocess.run(
            [str(MUTMUT), "run", "--max-children", "1"],
            cwd=work,
            stdout=fh,
            stderr=subprocess.STDOUT,
            env=env,
            check=False,
        )
    return proc.returncode


_NAME = re.compile(r"(?:x_(?P<func>\w+?)|xǁ(?P<cls>\w+)ǁ(?P<meth>\w+?))__mutmut_(?P<n>\d+)$")


def _function_spans(source: str) -> dict[str, tuple[int, int]]:
    """Line span of every function and method (``Class.method``) of a module."""
    spans: dict[str, tuple[int, int]] = {}
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            spans[node.name] = (node.lineno, node.end_lineno or node.lineno)
        elif isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    spans[f"{node.name}.{sub.name}"] = (sub.lineno, sub.end_lineno or sub.lineno)
    return spans


def describe(
    work: Path, name: str, module: str, spans: dict[str, tuple[int, int]], lines: list[str]
) -> dict[str, object]:
    """Function, line, original and mutated text of one mutant, from ``mutmut show``."""
    short = name.rsplit(".", 1)[-1]
    m = _NAME.match(short)
    func = (m["func"] if m["func"] else f"{m['cls']}.{m['meth']}") if m else short
    proc = subprocess.run([str(MUTMUT), "show", name], cwd=work, capture_output=True, text=True, check=False)
    removed = [ln[1:] for ln in proc.stdout.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    added = [ln[1:] for ln in proc.stdout.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    line = None
    start, _ = spans.get(func, (1, len(lines)))
    counter = None
    for text in proc.stdout.splitlines():  # the diff is of the function alone: its line 1 is the def line
        hunk = re.match(r"@@ -(\d+)", text)
        if hunk:
            counter = int(hunk[1])
        elif counter is not None and text.startswith("-"):
            line = start + counter - 1
            break
        elif counter is not None and not text.startswith("+"):
            counter += 1
    if line is not None and removed and lines[line - 1] != removed[0]:
        line = None  # the function moved since the run: better no line than a wrong one
    return {
        "name": name,
        "function": func,
        "line": line,
        "from": "\n".join(s.strip() for s in removed),
        "to": "\n".join(s.strip() for s in added),
    }


def load_equivalent() -> list[dict[str, str]]:
    return json.loads(EQUIVALENT.read_text(encoding="utf-8")) if EQUIVALENT.is_file() else []


def _is_equivalent(module: str, mutant: dict[str, object], equivalent: list[dict[str, str]]) -> str | None:
    for e in equivalent:
        if (e["module"], e["function"], e["from"], e["to"]) == (
            module,
            mutant["function"],
            mutant["from"],
            mutant["to"],
        ):
            return e["reason"]
    return None


def measure(module: str) -> dict[str, Any]:
    """Run mutmut over one module and store its result."""
    work = prepare(module)
    log = work / "mutmut.log"
    code = run_mutmut(work, log)
    meta = work / "mutants" / (module + ".meta")
    if not meta.is_file():
        tail = log.read_text(encoding="utf-8", errors="replace")[-2000:]
        raise SystemExit(f"mutate: mutmut run failed for {module} (exit {code}); see {log}\n{tail}")
    codes: dict[str, int | None] = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
    if codes and all(c is None for c in codes.values()):  # the clean test run failed: nothing was measured
        tail = log.read_text(encoding="utf-8", errors="replace")[-2000:]
        raise SystemExit(f"mutate: no mutant of {module} was run (exit {code}); see {log}\n{tail}")
    source = (ROOT / module).read_text(encoding="utf-8")
    spans, lines = _function_spans(source), source.splitlines()
    survivors = [
        describe(work, n, module, spans, lines) | {"status": "no tests" if c in (5, 33) else "survived"}
        for n, c in sorted(codes.items())
        if c in SURVIVED
    ]
    other = {n: c for n, c in codes.items() if c not in KILLED and c not in SURVIVED}
    result = {
        "module": module,
        "mutants": len(codes),
        "killed": sum(c in KILLED for c in codes.values()),
        "timeouts": sum(c in KILLED and c not in (1, 3) for c in codes.values()),
        "survivors": survivors,
        "unresolved": dict(sorted(other.items())),
        "mutmut_exit": code,
    }
    (OUT / "results").mkdir(parents=True, exist_ok=True)
    (OUT / "results" / f"{slug(module)}.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    return result


def report() -> str:
    """The Markdown report of every stored module result."""
    equivalent = load_equivalent()
    rows, sections, equiv_rows = [], [], []
    totals = [0, 0, 0]
    for module in MODULES:
        path = OUT / "results" / f"{slug(module)}.json"
        if not path.is_file():
            rows.append(f"| {module} | not measured | | | | |")
            continue
        r = json.loads(path.read_text(encoding="utf-8"))
        live: list[tuple[dict[str, Any], str | None]] = []
        equiv: list[tuple[dict[str, Any], str | None]] = []
        for s in r["survivors"]:
            reason = _is_equivalent(module, s, equivalent)
            (equiv if reason else live).append((s, reason))
        counted = r["mutants"] - len(equiv)
        score = 100.0 * r["killed"] / counted if counted else 100.0
        totals[0] += r["killed"]
        totals[1] += counted
        totals[2] += len(equiv)
        unresolved = len(r["unresolved"])
        rows.append(
            f"| {module} | {r['mutants']} | {r['killed']} | {len(live)} | {len(equiv)} | {score:.1f} %"
            + (f" ({unresolved} not run)" if unresolved else "")
            + " |"
        )
        if live:
            sections.append(f"\n### {module}: {len(live)} survivors\n")
            for s, _ in live:
                where = f"{module}:{s['line']}" if s["line"] else module
                sections.append(f"- {where} `{s['function']}` ({s['status']}): `{s['from']}` → `{s['to']}`")
        for s, reason in equiv:
            equiv_rows.append(f"- {module}:{s['line']} `{s['function']}`: `{s['from']}` → `{s['to']}`. {reason}")
    score = 100.0 * totals[0] / totals[1] if totals[1] else 0.0
    return "\n".join(
        [
            "# Mutation testing report (mutmut, tools/mutate.py)",
            "",
            "Score = killed / (mutants − equivalent). Killed includes timeouts; mutants no test reaches are survivors.",
            "",
            "| module | mutants | killed | survived | equivalent | score |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
            *rows,
            f"| **measured modules** | | {totals[0]} | | {totals[2]} | **{score:.1f} %** |",
            "",
            "## Survivors (file:line, function, mutation)",
            *(sections or ["", "none"]),
            "",
            "## Equivalent mutants (excluded from the score; why no input can tell them apart)",
            "",
            *(equiv_rows or ["none"]),
            "",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--module", action="append", help="a module path such as ablation/metrics.py (repeatable)")
    parser.add_argument("--report-only", action="store_true", help="only rebuild build/mutation/report.md")
    args = parser.parse_args(argv)
    if not MUTMUT.exists():
        print(f"mutate: {MUTMUT} not found; build .venv from the lock (make venv)", file=sys.stderr)
        return 2
    modules = args.module or list(MODULES)
    unknown = [m for m in modules if m not in MODULES]
    if unknown:
        print(
            f"mutate: not a module of the mutation run: {', '.join(unknown)}; one of {', '.join(MODULES)}",
            file=sys.stderr,
        )
        return 2
    if not args.report_only:
        for module in modules:
            print(f"mutate: {module} ...", file=sys.stderr, flush=True)
            r = measure(module)
            print(
                f"mutate: {module}: {r['killed']}/{r['mutants']} killed, {len(r['survivors'])} survivors",
                file=sys.stderr,
                flush=True,
            )
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "report.md").write_text(report(), encoding="utf-8")
    print(f"mutate: report written to {(OUT / 'report.md').relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
