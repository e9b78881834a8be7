"""``ablation-prepare sheet cases``: the case-review sheet (PREPARE.md §2), and when it is refused.

The sheet of the one-repository test experiment is compared with a committed
file, machine paths replaced by ``<tmp>``: question, intent signature, truth
(tracked, and how), seeds, request file, overlaps, findings, the experiment
SHA-256; no scores, no rankings. Regenerate it with ``ABLATION_REGENERATE=1``
and review the difference.

Spec: PREPARE.md §2 (``sheet``: exit 0, 4, 5), §3 ("Review files").
"""

from __future__ import annotations

import copy
import hashlib
import os
import re
from pathlib import Path

import pytest

from tests.prepare.prepfixtures import Made, Ran, errors_of, pin_table, run_prepare, valid_experiment, write_experiment

GOLDEN = Path(__file__).with_name("data") / "cases-sheet.golden.md"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Made:
    made = valid_experiment(tmp_path_factory.mktemp("sheet"))
    node = made.repos["alpha"].path.parent.parent / "tools" / "node"
    node.write_bytes(b"# the node slot; never run by these tests\n")
    made.doc["tools"]["node"] = pin_table(node)
    return made


def _sheet(tmp_path: Path, doc: dict[str, object], out: Path | None = None) -> tuple[Ran, Path]:
    out = out or tmp_path / "review" / "cases-sheet.md"
    out.parent.mkdir(exist_ok=True)
    return run_prepare("sheet", "cases", write_experiment(tmp_path / "experiment.toml", doc), "--out", out), out


def _neutral(text: str, made: Made, tmp_path: Path) -> str:
    """The sheet with what depends on where the test runs replaced: folders, the experiment's SHA-256, git's version."""
    experiment_sha = hashlib.sha256((tmp_path / "experiment.toml").read_bytes()).hexdigest()
    text = text.replace(experiment_sha, "<experiment sha256>")
    text = text.replace(str(tmp_path), "<test>").replace(str(made.repos["alpha"].path.parent.parent), "<tmp>")
    return re.sub(r"pinned git: `git version [^`]*`", "pinned git: `git version <x>`", text)


def test_the_sheet_shows_what_the_reviewer_decides_on(made: Made, tmp_path: Path) -> None:
    ran, out = _sheet(tmp_path, made.doc)
    assert ran.code == 0
    data = out.read_bytes()
    assert ran.out == f"{hashlib.sha256(data).hexdigest()}  {out}\n"
    experiment_sha = hashlib.sha256((tmp_path / "experiment.toml").read_bytes()).hexdigest()
    assert f"- experiment SHA-256: `{experiment_sha}`" in data.decode("utf-8")
    text = _neutral(data.decode("utf-8"), made, tmp_path)
    if os.environ.get("ABLATION_REGENERATE"):
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")
    assert "score" not in text.replace("no scores", "") and "rank" not in text.replace("no rankings", "")


def test_an_existing_sheet_is_never_overwritten(made: Made, tmp_path: Path) -> None:
    out = tmp_path / "sheet.md"
    out.write_bytes(b"earlier\n")
    ran = run_prepare("sheet", "cases", tmp_path / "not-even-there.toml", "--out", out)
    assert (ran.code, ran.out) == (5, "")
    assert ran.err == f"ablation-prepare: output '{out}' already exists; it is never overwritten (choose a new path)\n"
    assert out.read_bytes() == b"earlier\n"


def test_a_file_that_is_not_an_experiment_gets_no_sheet(made: Made, tmp_path: Path) -> None:
    doc = copy.deepcopy(made.doc)
    del doc["staleness"]
    ran, out = _sheet(tmp_path, doc)
    assert (ran.code, ran.out, errors_of(ran)) == (
        4,
        "",
        ["PRE-3 at staleness: expected a key staleness (a table); found no such key"],
    )
    assert not out.exists()


def test_a_git_that_may_not_run_gets_no_sheet(made: Made, tmp_path: Path) -> None:
    doc = copy.deepcopy(made.doc)
    doc["tools"]["git"]["sha256"] = "0" * 64
    ran, out = _sheet(tmp_path, doc)
    assert ran.code == 3
    assert errors_of(ran)[0].startswith("PRE-20 at tools.git.sha256: expected the bytes at ")
    assert not out.exists()


def test_findings_are_listed_on_the_sheet_where_they_are(made: Made, tmp_path: Path) -> None:
    doc = copy.deepcopy(made.doc)
    doc["case"][3]["truth"] = ["src/alpha/exports.py", "src/alpha/gone.py"]
    doc["case"][3]["question"] = "How are `statements` **exported** as <b>CSV</b> files?"
    ran, out = _sheet(tmp_path, doc)
    assert ran.code == 0
    assert errors_of(ran) == []
    assert ran.err.splitlines()[-1] == (
        "ablation-prepare: warning: the sheet lists 1 error: check refuses this experiment"
    )
    text = out.read_text(encoding="utf-8")
    section = text[text.index("### case[3]") : text.index("### case[4]")]
    assert section.splitlines() == [
        "### case[3] `alpha-04`",
        "",
        "- question: How are \\`statements\\` \\*\\*exported\\*\\* as &lt;b&gt;CSV&lt;/b&gt; files?",
        "- intentSignature: `sha256:9a1ac606f956ab70b913feda15dd7ffbe2c0953a273d9414b67ca5558ebdb797`",
        "- max_items: 4",
        "- truth (2 paths):",
        "  - `src/alpha/exports.py` (tracked, regular)",
        "  - `src/alpha/gone.py` (**not tracked at the commit**)",
        "- SCI seeds:",
        "  - `seed:language`: `python`",
        "  - `seed:pattern`: `def $NAME($$$ARGS)`",
        "  - `seed:path-0001`: `src/alpha` (a folder, 12 tracked paths)",
        "- request file: `/evidence/ctx-v2-test/requests/0003.json`",
        "- seed/truth overlaps:",
        "  - `seed:path-0001` holds truth path `src/alpha/exports.py`",
        "  - `seed:path-0001` holds truth path `src/alpha/gone.py`",
        "- findings:",
        "  - error: `CASE-10 at case[3].truth[1]: expected a path tracked at the repository's commit; "
        "found 'src/alpha/gone.py'`",
        "",
    ]
    assert "- check: 1 error, 5 warnings (**check refuses this experiment**)" in text
