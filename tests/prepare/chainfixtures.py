"""One preparation of the stand-in fixture, end to end, made once per session and shared by many assertions.

PREPARE.md §10 "End to end": ``check`` → ``sheet`` → ``capture`` (stand-ins,
asserted) → ``assemble`` → ``freeze --sign-key`` → ``check-freeze --public-key`` →
sealed ``ablation verify`` → ``ablation run --attempt-record`` → ``check-freeze
--results`` → ``ablation archive --evidence D`` → ``verify-archive``. The experiment
is :func:`tests.prepare.capfixtures.standin_experiment` with three SCI cases run by
the ``reordered`` stand-in (its receipts print every object's members in reverse
order), so the golden bytes of ``prepared.json`` show that the input keeps the
text's order.

:func:`captured` is the capture alone (tests copy its D with :func:`copy_d` and
assemble the copy their own way); :func:`make_chain` runs the rest. The sealed
``.venv`` runs ``ablation`` as ``make`` does (``env -i``); without it those steps
are skipped with the reason.

Spec: PREPARE.md §10, §11 criteria 4, 12, 14, 16, 17.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.prepare.capfixtures import Made, capture, standin_experiment
from tests.prepare.prepfixtures import Ran, run_prepare

__all__ = [
    "SEALED",
    "Chain",
    "captured",
    "copy_d",
    "environment_paths",
    "make_chain",
    "normalised",
    "pre_run_review",
    "sealed",
    "sealed_identity",
    "staleness_review",
]

ROOT = Path(__file__).resolve().parents[2]
SEALED = ROOT / ".venv" / "bin"
SCI_CASES = 3


def sealed(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The sealed ``ablation`` with ``args`` under an empty environment (as ``make run`` starts it)."""
    if not (SEALED / "ablation").is_file():
        pytest.skip(f"{SEALED / 'ablation'} is not built (make venv)")
    return subprocess.run(
        [str(SEALED / "ablation"), *map(str, args)], capture_output=True, text=True, env={}, check=False
    )


def sealed_identity() -> str:
    """The ``identityDigest`` the sealed ``ablation identity`` prints here."""
    done = sealed("identity")
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["identityDigest"])


def sheet_samples(d: Path) -> dict[str, list[str]]:
    """The ``sampled`` lists of ``D/staleness-sheet.md`` (its TOML snippet), by repository id."""
    text = (d / "staleness-sheet.md").read_text(encoding="utf-8")
    snippet = text.split("```toml\n", 1)[1].split("```", 1)[0]
    return {r["id"]: r["sampled"] for r in tomllib.loads(snippet)["repository"]}


def _toml_list(values: list[str]) -> str:
    return "[" + ", ".join(json.dumps(v, ensure_ascii=False) for v in values) + "]"


def staleness_review(
    d: Path,
    *,
    reviewer: str = "S. Reviewer",
    decision: str = "ACCEPT",
    stale: dict[str, list[str]] | None = None,
    sheet_sha256: str | None = None,
) -> str:
    """A staleness review of D's sheet: every repository with the sheet's sample, ``stale`` as given."""
    sha = sheet_sha256 or hashlib.sha256((d / "staleness-sheet.md").read_bytes()).hexdigest()
    lines = []
    for repo_id, sampled in sheet_samples(d).items():
        lines += [
            "[[repository]]",
            f"id = {json.dumps(repo_id, ensure_ascii=False)}",
            f"reviewer = {json.dumps(reviewer, ensure_ascii=False)}",
            f'decision = "{decision}"',
            f'sheet_sha256 = "{sha}"',
            f"sampled = {_toml_list(sampled)}",
            f"stale = {_toml_list((stale or {}).get(repo_id, []))}",
            "",
        ]
    return "\n".join(lines)


def pre_run_review(
    d: Path, identity: str, *, decision: str = "ACCEPT", ranking: str = "false", manifest: str | None = None
) -> str:
    """A pre-run review of D's ``SHA256SUMS.pre-review`` naming ``identity``."""
    sha = manifest or hashlib.sha256((d / "SHA256SUMS.pre-review").read_bytes()).hexdigest()
    return (
        f'decision = "{decision}"\nreviewer = "I. Reviewer"\npre_review_manifest_sha256 = "{sha}"\n'
        f'evaluator_identity_digest = "{identity}"\nranking_executed = {ranking}\nnotes = "checked"\n'
    )


def copy_d(d: Path, to: Path) -> Path:
    """A copy of the preparation directory ``d`` at ``to`` (D holds only regular files and folders)."""
    shutil.copytree(d, to, symlinks=True)
    return to


def captured(root: Path) -> Made:
    """The stand-in experiment (three ``reordered`` SCI cases of ten), checked, its sheet written, captured."""
    made = standin_experiment(root, sci="reordered", sci_cases=SCI_CASES)
    for ran in (
        run_prepare("check", made.experiment),
        run_prepare("sheet", "cases", made.experiment, "--out", root / "cases-sheet.md"),
        capture(made),
    ):
        assert ran.code == 0, ran.err
    return made


@dataclass
class Chain:
    """A whole preparation: its capture, D, the review files, the keys, and what each step printed."""

    root: Path
    made: Made
    d: Path
    ran: dict[str, Ran] = field(default_factory=dict)
    done: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)

    @property
    def prepared_sha256(self) -> str:
        """The SHA-256 of ``prepared.json``."""
        return hashlib.sha256((self.d / "prepared.json").read_bytes()).hexdigest()

    @property
    def results(self) -> Path:
        """The results file of the one run."""
        return self.root / "out" / "results.json"


def make_chain(root: Path, base: Made) -> Chain:
    """Copy ``base``'s D into ``root`` and run every step after capture (module docstring)."""
    root.mkdir(parents=True, exist_ok=True)
    chain = Chain(root, base, copy_d(base.dir, root / "D"))
    d = chain.d
    (root / "staleness-review.toml").write_text(staleness_review(d), encoding="utf-8")
    chain.ran["assemble"] = run_prepare("assemble", "--dir", d, "--staleness-review", root / "staleness-review.toml")
    identity = sealed_identity()
    chain.done["keygen"] = sealed("keygen", "--private-key", root / "k.pem", "--public-key", root / "k.pub")
    (root / "pre-run-review.toml").write_text(pre_run_review(d, identity), encoding="utf-8")
    chain.ran["freeze"] = run_prepare(
        "freeze", "--dir", d, "--pre-run-review", root / "pre-run-review.toml", "--sign-key", root / "k.pem"
    )
    chain.ran["check-freeze"] = run_prepare("check-freeze", "--dir", d, "--public-key", root / "k.pub")
    sha = chain.prepared_sha256
    manifest = hashlib.sha256((d / "SHA256SUMS.pre-run").read_bytes()).hexdigest()
    chain.done["verify"] = sealed("verify", "--input", d / "prepared.json", "--input-sha256", sha)
    chain.results.parent.mkdir()
    chain.done["run"] = sealed(
        "run",
        "--input",
        d / "prepared.json",
        "--input-sha256",
        sha,
        "--output",
        chain.results,
        "--attempt-record",
        d / "attempt.json",
        "--pre-run-manifest-sha256",
        manifest,
    )
    chain.ran["check-freeze --results"] = run_prepare(
        "check-freeze", "--dir", d, "--public-key", root / "k.pub", "--results", chain.results
    )
    bundle = root / "out" / "bundle.tar.gz"
    chain.done["archive"] = sealed(
        "archive", "--input", d / "prepared.json", "--results", chain.results, "--bundle", bundle, "--evidence", d
    )
    chain.done["verify-archive"] = sealed("verify-archive", bundle)
    return chain


def normalised(data: bytes, replacements: dict[str, str]) -> str:
    """``prepared.json``'s text with machine paths replaced and every SHA-256 blanked (for golden bytes)."""
    text = data.decode("utf-8")
    for path, name in sorted(replacements.items(), key=lambda item: -len(item[0])):
        text = text.replace(path, name)
    return re.sub(r"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])", "<sha256>", text)


def environment_paths(made: Made) -> dict[str, str]:
    """The machine paths a preparation of ``made`` freezes into ``prepared.json``, by placeholder."""
    tools = made.doc["tools"]
    found = {
        str(made.work_root): "@WORK_ROOT@",
        os.path.dirname(tools["source_list"]["path"]): "@DOUBLES@",
        tools["node"]["path"]: "@PYTHON@",
    }
    return found
