"""The example is ready for ``capture``: its tools are the stand-ins, and its cases review binds to its bytes.

``make_repos.py`` runs with every folder in ``tmp_path``. The tool checkout holds the
stand-ins' exact bytes (the SCI tool is the ``reordered`` launcher, the stand-in it
runs an extra pin), the backend has the stand-ins' provenance, and the cases review it
writes is accepted by ``capture``'s own reader (bound to the experiment file's SHA-256,
every repository ACCEPTed). The whole capture of the example is ``make prepare-example``'s.

Spec: issue 20 (the example switched to the stand-ins); PREPARE.md §3 ("Review files").
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tomllib
from pathlib import Path

from ablation.prepare.reviews import read_cases_review
from tests.prepare.doubles import standins

ROOT = Path(__file__).resolve().parents[2]
MAKE_REPOS = ROOT / "examples" / "prepare" / "make_repos.py"


def test_the_example_pins_the_stand_ins_and_writes_a_bound_review(tmp_path: Path) -> None:
    experiment = tmp_path / "example.toml"
    argv = [
        sys.executable,
        str(MAKE_REPOS),
        "--build",
        str(tmp_path / "build"),
        "--fixed",
        str(tmp_path / "fixed"),
        "--experiment",
        str(experiment),
    ]
    made = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert made.returncode == 0, made.stderr
    doc = tomllib.loads(experiment.read_text(encoding="utf-8"))
    tools = doc["tools"]
    for key, stand_in in (
        ("source_list", standins.SOURCE_LIST),
        ("sci", standins.variant("sci", "reordered").path),
        ("backend", standins.BACKEND),
    ):
        assert Path(tools[key]["path"]).read_bytes() == stand_in.read_bytes()
        assert tools[key]["sha256"] == hashlib.sha256(stand_in.read_bytes()).hexdigest()
    assert [Path(p["path"]).read_bytes() for p in tools["sci"]["extra_pins"]] == [standins.SCI.read_bytes()]
    assert {k: tools["backend"][k] for k in standins.BACKEND_PROVENANCE} == standins.BACKEND_PROVENANCE
    assert {k: tools["sci"][k] for k in standins.SCI_PROVENANCE} == standins.SCI_PROVENANCE
    review = tmp_path / "cases-review.toml"
    data = review.read_bytes()
    sha = hashlib.sha256(experiment.read_bytes()).hexdigest()
    checked = read_cases_review(
        str(review), data, experiment_sha256=sha, repository_ids=[r["id"] for r in doc["repository"]]
    )
    assert [(e.id, e.decision) for e in checked.entries] == [
        ("ledger-service", "ACCEPT"),
        ("route-planner", "ACCEPT"),
        ("edge-proxy", "ACCEPT"),
    ]
