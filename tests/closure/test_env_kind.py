"""Vector 7 (issue 18): ``environment.kind`` is measured, never read from ``ABLATION_ENVIRONMENT``.

The kind is the one the closure manifest records (the image build seals
``container``; a venv is measured ``venv`` when sealed), and the run-time check
holds it against the process's own folder. A variable that contradicts it is
refused (exit 3, one line); one that agrees changes nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.closure.env_vectors import ablation, base_env, refusal, site_of


def test_ABLATION_ENVIRONMENT_container_on_the_host_is_refused(sealed_copy: Path) -> None:
    line = refusal(ablation(sealed_copy, "identity", env=base_env(ABLATION_ENVIRONMENT="container")))
    assert line == (
        "ablation: closure: ABLATION_ENVIRONMENT says 'container', but this environment was sealed as 'venv' "
        "(the identity measures it); unset it; the sealed evaluator runs with nothing injected"
    )


def test_an_agreeing_ABLATION_ENVIRONMENT_changes_nothing(sealed_copy: Path) -> None:
    clean = ablation(sealed_copy, "identity")
    agreeing = ablation(sealed_copy, "identity", env=base_env(ABLATION_ENVIRONMENT="venv"))
    assert clean.returncode == agreeing.returncode == 0
    assert agreeing.stdout == clean.stdout


def test_the_kind_is_the_one_sealed(sealed_copy: Path) -> None:
    manifest = json.loads((site_of(sealed_copy) / "ablation" / "CLOSURE.json").read_bytes())
    identity = json.loads(ablation(sealed_copy, "identity").stdout)
    assert manifest["environment"] == "venv"
    assert identity["measured"]["environment"] == {"kind": "venv", "nixStorePath": None}
