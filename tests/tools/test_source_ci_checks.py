"""``tools/ci_checks.py --source-revision``: CI holds a clean clone's identity to the commit it was built from
(issue 22 item 6), for the ``.venv`` run and the image alike."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ablation.canonical import canonical_digest
from tests.builders.paths import EXAMPLE, EXAMPLE_SHA256, ROOT
from tests.builders.run import run_ablation

TOOL = ROOT / "tools" / "ci_checks.py"
HEAD = "0123456789abcdef0123456789abcdef01234567"


def _tool(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), *map(str, args)], capture_output=True, text=True, check=False, cwd=ROOT
    )


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The example's results as a sealed venv built at ``HEAD`` records them."""
    out = tmp_path_factory.mktemp("ci-source") / "results.json"
    assert run_ablation("run", "--input", EXAMPLE, "--input-sha256", EXAMPLE_SHA256, "--output", out) == 0
    document: dict[str, Any] = json.loads(out.read_bytes())
    measured = document["evaluator"]["measured"]
    measured["closure"]["state"] = "sealed"
    measured["environment"] = {"kind": "venv", "nixStorePath": None}
    measured["package"]["sourceRevision"] = HEAD
    document["evaluator"]["identityDigest"] = canonical_digest(measured)
    return document


def _written(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _with_revision(document: dict[str, Any], revision: object) -> dict[str, Any]:
    changed: dict[str, Any] = json.loads(json.dumps(document))
    measured = changed["evaluator"]["measured"]
    measured["package"]["sourceRevision"] = revision
    changed["evaluator"]["identityDigest"] = canonical_digest(measured)
    return changed


def test_results_naming_head_pass(results: dict[str, Any], tmp_path: Path) -> None:
    proc = _tool(
        "results", _written(tmp_path / "r.json", results), "--sha256", EXAMPLE_SHA256, "--source-revision", HEAD
    )
    digest = results["evaluator"]["identityDigest"]
    assert (proc.returncode, proc.stderr) == (0, "")
    assert (
        proc.stdout == f"ci: output members, pinned hash, sealed venv identity {digest}, source revision {HEAD}: ok\n"
    )


@pytest.mark.parametrize("revision", [HEAD + "-dirty", None, "f" * 40], ids=["dirty", "null", "another-commit"])
def test_results_naming_another_revision_fail(results: dict[str, Any], tmp_path: Path, revision: object) -> None:
    document = _with_revision(results, revision)
    proc = _tool(
        "results", _written(tmp_path / "r.json", document), "--sha256", EXAMPLE_SHA256, "--source-revision", HEAD
    )
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == f"ci: FAILED: results: package.sourceRevision {revision!r}, not {HEAD!r}\n"


def test_the_image_identity_naming_head_passes_and_another_fails(results: dict[str, Any], tmp_path: Path) -> None:
    evaluator = json.loads(json.dumps(results["evaluator"]))
    evaluator["measured"]["environment"] = {"kind": "container", "nixStorePath": None}
    path = tmp_path / "identity.json"
    path.write_text(json.dumps(evaluator), encoding="utf-8")
    files = evaluator["measured"]["package"]["fileCount"]
    proc = _tool("identity", path, "--source-revision", HEAD)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == (
        "ci: container identity: closure sealed, environment container, "
        f"{files} package files, source revision {HEAD}\n"
    )
    proc = _tool("identity", path, "--source-revision", "f" * 40)
    assert (proc.returncode, proc.stderr) == (
        1,
        f"ci: FAILED: identity: package.sourceRevision {HEAD!r}, not {'f' * 40!r}\n",
    )
