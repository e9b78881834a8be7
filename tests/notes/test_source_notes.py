"""``notes`` cites the git commit the evaluator was built from (issue 22 item 6).

"What to cite" has one row for the evaluator's source revision
(``evaluator.measured.package.sourceRevision``), and "Digests" gives its basis:
a commit; a commit with ``-dirty`` ("no commit names this code"); unknown (sealed
without a git checkout); none (an unsealed checkout); not recorded (an identity
from before the revision was measured); and a value that is no revision, shown
inert and named as such. Each results file here is the bundled example's, its
``measured.package`` changed and ``identityDigest`` recomputed, so the notes draft it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ablation.canonical import canonical_digest
from tests.builders.paths import EXAMPLE, EXAMPLE_SHA256
from tests.builders.run import run_ablation

COMMIT = "0123456789abcdef0123456789abcdef01234567"
BASIS = (
    "measured at sealing: the commit of the checkout the package was built from, `-dirty` unless the installed "
    "package files are byte for byte that commit's files under `ablation/`"
)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The example's results file, made in this process (an unsealed checkout), as parsed JSON."""
    out = tmp_path_factory.mktemp("source-notes") / "results.json"
    assert run_ablation("run", "--input", EXAMPLE, "--input-sha256", EXAMPLE_SHA256, "--output", out) == 0
    value: dict[str, Any] = json.loads(out.read_bytes())
    return value


def _notes(
    recorded: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: Callable[[Any], None]
) -> str:
    value = json.loads(json.dumps(recorded))
    measured = value["evaluator"]["measured"]
    edit(measured)
    value["evaluator"]["identityDigest"] = canonical_digest(measured)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert run_ablation("notes", "--results", path) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    return captured.out


def _rows(text: str) -> tuple[str, str]:
    """The source revision's row of "What to cite" and of "Digests"."""
    found = [line for line in text.splitlines() if line.startswith("| Evaluator source revision |")]
    assert len(found) == 2, found
    return found[0], found[1]


def _sealed(revision: str | None) -> Callable[[Any], None]:
    def edit(measured: Any) -> None:
        measured["package"]["sourceRevision"] = revision
        measured["closure"]["state"] = "sealed"

    return edit


@pytest.mark.parametrize(
    ("edit", "shown"),
    [
        (
            _sealed(COMMIT),
            f"`{COMMIT}` (the git commit the evaluator's package was built from; its files are that commit's)",
        ),
        (
            _sealed(COMMIT + "-dirty"),
            f"`{COMMIT}-dirty` (**dirty**: the package files differ from that commit; no commit names this code)",
        ),
        (
            _sealed("f" * 64),
            f"`{'f' * 64}` (the git commit the evaluator's package was built from; its files are that commit's)",
        ),
        (_sealed(None), "unknown: the evaluator was sealed without a git checkout, so no commit is named"),
        (lambda measured: None, "none: an unsealed development checkout; no commit names this code"),
        (
            lambda measured: measured["package"].pop("sourceRevision"),
            "not recorded (the identity has no `package.sourceRevision`: an evaluator from before it was measured)",
        ),
        (
            _sealed("main"),
            "`main` (**not a source revision**: a commit id, optionally with `-dirty`, was expected)",
        ),
    ],
    ids=["commit", "dirty", "sha256-repository", "unknown", "unsealed", "not-recorded", "not-a-revision"],
)
def test_what_to_cite_names_the_source_revision(
    recorded: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Callable[[Any], None],
    shown: str,
) -> None:
    cite, digests = _rows(_notes(recorded, tmp_path, capsys, edit))
    assert cite == f"| Evaluator source revision | {shown} |"
    assert digests == f"| Evaluator source revision | {shown} | {BASIS} |"


def test_the_source_revision_follows_the_identity_digest_in_what_to_cite(
    recorded: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _notes(recorded, tmp_path, capsys, _sealed(COMMIT))
    cite = text.split("\n## What to cite\n\n", 1)[1].split("\n## ", 1)[0].splitlines()
    names = [line.split(" | ", 1)[0] for line in cite]
    at = names.index("| Evaluator identityDigest")
    assert names[at + 1 : at + 3] == ["| Evaluator source revision", "| Container image ID"]


def test_a_hostile_revision_is_shown_inert(
    recorded: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cite, _ = _rows(_notes(recorded, tmp_path, capsys, _sealed("x`|\u202e\u200b")))
    assert cite == (
        "| Evaluator source revision | ``x`\\|\\u202e\\u200b`` (**not a source revision**: a commit id, "
        "optionally with `-dirty`, was expected) |"
    )
