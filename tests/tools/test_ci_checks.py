"""``tools/ci_checks.py``: what each check of ``.ci/run`` accepts and refuses, on files made here (issue 24)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ablation.canonical import canonical_digest
from tests.builders.paths import EXAMPLE, EXAMPLE_SHA256, ROOT, load_tool
from tests.builders.run import run_ablation

ci_checks = load_tool("ci_checks")
TOOL = ROOT / "tools" / "ci_checks.py"


def _tool(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), *map(str, args)], capture_output=True, text=True, check=False, cwd=ROOT
    )


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The example's results, run in-process here, made to look as a sealed venv's run records them."""
    out = tmp_path_factory.mktemp("ci") / "results.json"
    assert run_ablation("run", "--input", EXAMPLE, "--input-sha256", EXAMPLE_SHA256, "--output", out) == 0
    document: dict[str, Any] = json.loads(out.read_bytes())
    measured = document["evaluator"]["measured"]
    measured["closure"]["state"] = "sealed"
    measured["environment"] = {"kind": "venv", "nixStorePath": None}
    document["evaluator"]["identityDigest"] = canonical_digest(measured)
    return document


def _written(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def test_results_of_a_sealed_pinned_run_pass(results: dict[str, Any], tmp_path: Path) -> None:
    proc = _tool("results", _written(tmp_path / "r.json", results), "--sha256", EXAMPLE_SHA256)
    assert (proc.returncode, proc.stderr) == (0, "")
    digest = results["evaluator"]["identityDigest"]
    assert proc.stdout == f"ci: output members, pinned hash, sealed venv identity {digest}: ok\n"


@pytest.mark.parametrize(
    ("edit", "found"),
    [
        (lambda d: d.update(inputSha256="0" * 64), f"inputSha256 {'0' * 64}, not {EXAMPLE_SHA256}"),
        (lambda d: d.update(inputSha256Pinned=False), "inputSha256Pinned is not true"),
        (lambda d: d["evaluator"]["measured"]["closure"].update(state="unsealed"), "closure {'state': 'unsealed'"),
        (lambda d: d["evaluator"].update(identityDigest="sha256:" + "0" * 64), "identityDigest sha256:000"),
        (lambda d: d.update(evaluator=d.pop("evaluator"), extra=1), "members ['inputSha256', "),
        (lambda d: d["gateAssessment"].update(automaticAdoption=True), "automaticAdoption is not false"),
    ],
    ids=["hash", "unpinned", "unsealed", "identity-digest", "members", "adoption"],
)
def test_results_that_break_a_check_fail_naming_it(
    results: dict[str, Any], tmp_path: Path, edit: Any, found: str
) -> None:
    document = json.loads(json.dumps(results))
    edit(document)
    proc = _tool("results", _written(tmp_path / "r.json", document), "--sha256", EXAMPLE_SHA256)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.startswith("ci: FAILED: results: ")
    assert found in proc.stderr


def test_results_with_a_second_trailing_newline_fail(results: dict[str, Any], tmp_path: Path) -> None:
    path = _written(tmp_path / "r.json", results)
    path.write_bytes(path.read_bytes() + b"\n")
    assert _tool("results", path, "--sha256", EXAMPLE_SHA256).stderr == (
        "ci: FAILED: results: the file does not end in one newline\n"
    )


def _identity(**environment: object) -> dict[str, Any]:
    return {
        "measured": {
            "closure": {"state": "sealed"},
            "environment": {"kind": "container", "nixStorePath": None, **environment},
            "lock": {"distributions": [{"name": "cffi", "version": "2.1.1"}]},
            "package": {"fileCount": 57},
        }
    }


def test_the_identity_of_the_image(tmp_path: Path) -> None:
    proc = _tool("identity", _written(tmp_path / "i.json", _identity()))
    assert (proc.returncode, proc.stdout) == (
        0,
        "ci: container identity: closure sealed, environment container, 57 package files\n",
    )
    proc = _tool("identity", _written(tmp_path / "i.json", _identity(kind="venv")))
    assert proc.returncode == 1
    assert proc.stderr.startswith("ci: FAILED: identity: environment {'kind': 'venv'")
    unpinned = _identity()
    unpinned["measured"]["lock"]["distributions"][0]["version"] = ""
    assert _tool("identity", _written(tmp_path / "i.json", unpinned)).stderr == (
        "ci: FAILED: identity: a distribution without a version\n"
    )


def test_member_prints_strings_bare_and_other_values_as_json(tmp_path: Path) -> None:
    path = _written(tmp_path / "m.json", {"a": {"b": "sha256:ab", "c": [1, None]}})
    assert _tool("member", path, "a.b").stdout == "sha256:ab\n"
    assert _tool("member", path, "a.c").stdout == "[1, null]\n"
    proc = _tool("member", path, "a.x")
    assert (proc.returncode, proc.stderr) == (1, "ci: FAILED: member: no member 'x' on the way to a.x\n")


def test_flip_byte_changes_one_bit_of_one_byte(tmp_path: Path) -> None:
    path = tmp_path / "f.py"
    path.write_bytes(b'"""doc"""\n')
    assert _tool("flip-byte", path, 3).stdout == f"ci: flipped a bit of byte 3 of {path}\n"
    assert path.read_bytes() == b'"""eoc"""\n'
    proc = _tool("flip-byte", path, 10)
    assert (proc.returncode, proc.stderr) == (
        1,
        f"ci: FAILED: flip-byte: offset 10 is outside the 10 bytes of {path}\n",
    )


def test_no_dev_tools_fails_in_the_development_environment() -> None:
    assert "pytest" in ci_checks.importable_dev_tools()
    proc = _tool("no-dev-tools")
    assert proc.returncode == 1
    assert proc.stderr.startswith("ci: FAILED: no-dev-tools: the interpreter can import ")
    assert "pytest" in proc.stderr


def test_no_dev_tools_passes_where_none_is_importable(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setattr(ci_checks, "importable_dev_tools", list)
    assert ci_checks.main(["no-dev-tools"]) == 0
    assert capsys.readouterr().out == f"ci: {sys.executable} imports none of {', '.join(ci_checks.DEV_TOOLS)}\n"
