"""The example experiment (``examples/prepare/``): made from committed files, accepted by ``check``,
and its intent signatures are exactly what ``ablation verify`` recomputes for the same questions.

``make_repos.py`` runs with every folder in ``tmp_path`` (``--build``, ``--fixed``,
``--experiment``), so the test touches neither ``build/`` nor ``/var/tmp``.

Spec: issue 19 acceptance (the example; the printed ``intentSignature``s), PREPARE.md §10 "Fixtures".
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from ablation.cli import main as ablation_main
from ablation.contracts.cases import question_id
from ablation.text import extname
from tests.builders import prepared as builder
from tests.prepare.prepfixtures import Ran, errors_of, run_prepare

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "prepare"


def _make(tmp_path: Path, build: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, EXAMPLE / "make_repos.py", "--build", tmp_path / build, "--fixed", tmp_path / "fixed"]
    argv += ["--experiment", tmp_path / f"{build}.toml"]
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Ran]:
    tmp_path = tmp_path_factory.mktemp("example")
    made = _make(tmp_path, "one")
    assert made.returncode == 0, made.stderr
    return tmp_path, run_prepare("check", tmp_path / "one.toml")


def test_check_accepts_the_example_and_prints_its_sha256(checked: tuple[Path, Ran]) -> None:
    tmp_path, ran = checked
    experiment = tmp_path / "one.toml"
    assert (ran.code, errors_of(ran)) == (0, [])
    assert ran.out.splitlines()[-1] == f"{hashlib.sha256(experiment.read_bytes()).hexdigest()}  {experiment}"
    assert sum(1 for line in ran.out.splitlines() if " intentSignature sha256:" in line) == 34


def test_the_repositories_have_the_commits_of_the_template(checked: tuple[Path, Ran]) -> None:
    _, ran = checked
    template = tomllib.loads((EXAMPLE / "experiment.toml.in").read_text(encoding="utf-8"))
    for r, repo in enumerate(template["repository"]):
        assert f"repository[{r}] {repo['id']!r} at {repo['commit']}: " in ran.out


def test_a_second_clone_makes_the_same_commits_and_reuses_the_tools(tmp_path: Path, checked: tuple[Path, Ran]) -> None:
    first_tmp, _ = checked
    again = _make(first_tmp, "two")
    assert again.returncode == 0, again.stderr
    first = (first_tmp / "one.toml").read_text(encoding="utf-8")
    second = (first_tmp / "two.toml").read_text(encoding="utf-8")
    assert second == first.replace(f"{first_tmp}/one/repos/", f"{first_tmp}/two/repos/")
    assert len(list((first_tmp / "fixed").glob("tools-*"))) == 1


def _input(experiment: dict[str, object], tracked: dict[str, list[str]]) -> dict[str, object]:
    """A prepared input (tests/builders/prepared.py) with the example's repositories, commits, questions and truth."""
    repositories = {
        r["id"]: builder.repository(r["id"], r["commit"], [builder.source_list_item(p) for p in tracked[r["id"]]])
        for r in experiment["repository"]  # type: ignore[attr-defined]
    }
    cases = [
        builder.case(repositories[c["repository"]], c["id"], c["question"], c["truth"], c["max_items"], bundle=None)
        for c in experiment["case"]  # type: ignore[attr-defined]
    ]
    return builder.prepared_input(repositories.values(), cases)


def _default_paths(name: str) -> list[str]:
    folder = EXAMPLE / "repos" / name
    paths = [p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()]
    kept = [p for p in paths if extname(p).lower() in builder.SUPPORTED_EXTENSIONS]
    return sorted(kept, key=lambda p: p.encode("utf-8"))


def _verify(tmp_path: Path, value: dict[str, object], name: str) -> tuple[int, str]:
    path = tmp_path / name
    path.write_bytes(builder.dumps(value))
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = ablation_main(["verify", "--input", str(path)])
    return code, err.getvalue()


def test_the_printed_intent_signatures_are_what_verify_recomputes(checked: tuple[Path, Ran], tmp_path: Path) -> None:
    first_tmp, ran = checked
    experiment = tomllib.loads((first_tmp / "one.toml").read_text(encoding="utf-8"))
    printed = dict(re.findall(r"^case\[\d+\] '([^']+)' intentSignature (sha256:[0-9a-f]{64})$", ran.out, re.M))
    tracked = {r["id"]: _default_paths(r["id"]) for r in experiment["repository"]}
    value = _input(experiment, tracked)
    for case in value["cases"]:  # type: ignore[attr-defined]
        case["intentSignature"] = printed[case["id"]]  # what check printed, not what the builder computed
        case["questionId"] = question_id(case["repositoryId"], case["intentSignature"], case["targetBasisDigest"])
    code, err = _verify(tmp_path, value, "input.json")
    assert code == 0, err

    wrong = copy.deepcopy(value)
    case = wrong["cases"][7]  # type: ignore[index]
    case["intentSignature"] = case["intentSignature"][:-1] + ("0" if case["intentSignature"][-1] != "0" else "1")
    code, err = _verify(tmp_path, wrong, "wrong.json")
    assert code == 4
    assert err.splitlines()[-1].startswith("CASE-12 at /cases/7/intentSignature: expected D(identity tokens) = ")
    assert json.loads(builder.dumps(value))["cases"][7]["intentSignature"] == printed["ledger-08"]
