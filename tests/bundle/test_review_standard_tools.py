"""Issue 22 Why 9: the standard-tools steps start with the bundle's SHA-256, so a cut bundle fails at once.

The steps are run as the documents print them (``docs/reviewer.md`` and
``docs/reference/reviewer-messages.md``), with ``bash -e`` and ``CITED_BUNDLE_SHA256`` set
to the SHA-256 of the bundle as ``archive`` wrote it. Without that first step a
bundle whose last 8 bytes were cut extracts completely, and ``sha256sum -c`` and
the signature pass on what was extracted: the gap the step closes.
Also checked: the reviewer document names every message of issue 22.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.bundle.review_made import REPO, make_day, tool

DOCUMENTS = (REPO / "docs" / "reviewer.md", REPO / "docs" / "reference" / "reviewer-messages.md")
FIRST_STEP = 'echo "$CITED_BUNDLE_SHA256  prepared.bundle.tar.gz" | sha256sum -c -'


def _steps(document: Path) -> str:
    """The ``sh`` block that follows the document's "Re-check with standard tools" heading."""
    text = document.read_text(encoding="utf-8")
    after = re.split(r"^## Re-check with standard tools", text, maxsplit=1, flags=re.MULTILINE)[1]
    return after.split("```sh\n", 1)[1].split("\n```", 1)[0] + "\n"


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The example's day: runs, keys and bundles."""
    for name in ("bash", "tar", "sha256sum", "openssl"):
        tool(name)
    return make_day(tmp_path_factory.mktemp("standard-tools"), pinned=True)


def _run(
    script: str, folder: Path, bundle: bytes, cited: str, *, stop: bool = True
) -> subprocess.CompletedProcess[str]:
    (folder / "prepared.bundle.tar.gz").write_bytes(bundle)
    env = {**os.environ, "CITED_BUNDLE_SHA256": cited, "LC_ALL": "C"}
    argv = ["bash", "-e", "-c", script] if stop else ["bash", "-c", script]
    return subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, check=False)


@pytest.mark.parametrize("document", DOCUMENTS, ids=[d.name for d in DOCUMENTS])
def test_the_steps_start_with_the_bundle_sha256(document: Path) -> None:
    """The first step compares the bundle's own SHA-256 with the cited one."""
    assert _steps(document).splitlines()[0].startswith(FIRST_STEP)


@pytest.mark.parametrize("document", DOCUMENTS, ids=[d.name for d in DOCUMENTS])
def test_the_steps_pass_on_the_cited_bundle(document: Path, day: dict[str, Path], tmp_path: Path) -> None:
    """The steps pass on the bundle as cited."""
    (tmp_path / "k.pub").write_bytes(day["k.pub"].read_bytes())
    bundle = day["signed.tar.gz"].read_bytes()
    done = _run(_steps(document), tmp_path, bundle, hashlib.sha256(bundle).hexdigest())
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("prepared.bundle.tar.gz: OK\n")
    assert "Signature Verified Successfully" in done.stdout


@pytest.mark.parametrize("document", DOCUMENTS, ids=[d.name for d in DOCUMENTS])
def test_a_bundle_cut_by_8_bytes_fails_at_the_first_step(document: Path, day: dict[str, Path], tmp_path: Path) -> None:
    """A cut bundle fails at step 1; without it the later checks would pass."""
    (tmp_path / "k.pub").write_bytes(day["k.pub"].read_bytes())
    bundle = day["signed.tar.gz"].read_bytes()
    cited = hashlib.sha256(bundle).hexdigest()
    steps = _steps(document)
    done = _run(steps, tmp_path, bundle[:-8], cited)
    assert done.returncode == 1
    assert done.stdout == "prepared.bundle.tar.gz: FAILED\n"
    assert not (tmp_path / "check").exists()
    # the gap: without the first step, pasted line by line, the later checks pass on what tar extracted
    later = _run(steps.split("\n", 1)[1], tmp_path, bundle[:-8], cited, stop=False)
    assert "Signature Verified Successfully" in later.stdout
    assert "FAILED" not in later.stdout


@pytest.mark.parametrize(
    "message",
    [
        "bundle bytes differ from the canonical framing (re-compressed); content digest",
        "re-packed: not the tar that `archive` writes",
        "input pinned: yes",
        "input pinned: NO — not bound to a preregistered hash",
        "--expect-key",
        "openssl pkey -pubin -in k.pub -outform DER | sha256sum",
        "the expected key (--expect-key matched)",
        "is not the expected sha256:",
        "missing: the bundle is not signed, but --expect-key",
        "contradicts its own figures",
        "Result recomputed",
        "\\U000e0041",
    ],
)
def test_the_reviewer_document_names_each_message(message: str) -> None:
    """docs/reference/reviewer-messages.md names each new message."""
    assert message in (REPO / "docs" / "reference" / "reviewer-messages.md").read_text(encoding="utf-8")
