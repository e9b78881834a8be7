"""Warnings of ``check``: printed on stderr, never a change of the exit code (PREPARE.md §3 checks 9, 11).

PRE-23: ``work_root`` is not ``Portable``. PRE-24: a tool under a home folder,
``/Users/`` or the temporary directory; tools under ``/usr`` and ``/opt`` draw
none. PRE-25: a path seed that is a truth path (the sheet also shows folders
that hold one).

Spec: PREPARE.md §3 checks 9 and 11, §11 criterion 20.
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest

from ablation.contracts.base import show
from tests.prepare.prepfixtures import Made, Ran, pin_table, real_git, run_prepare, valid_experiment, write_experiment

_WARNING = "ablation-prepare: warning: "


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Made:
    return valid_experiment(tmp_path_factory.mktemp("warnings"))


def _usr_tools(doc: dict[str, object]) -> dict[str, object]:
    """Every tool pinned to a file under /usr (the files only need to exist: nothing runs but git)."""
    files = [shutil.which(name) for name in ("env", "true", "false", "cat")]
    if real_git().split("/")[1] != "usr" or not all(f and f.startswith("/usr/") for f in files):
        pytest.skip("git, env, true, false and cat are not all under /usr on this machine")
    env, true, false, cat = (str(f) for f in files)
    tools = copy.deepcopy(doc["tools"])
    assert isinstance(tools, dict)
    tools["git"] = pin_table(real_git())
    tools["node"] = pin_table(env)
    tools["source_list"] |= pin_table(true)
    tools["sci"] |= pin_table(false)
    tools["backend"] |= pin_table(cat)
    return tools


def _check(tmp_path: Path, doc: dict[str, object]) -> Ran:
    return run_prepare("check", write_experiment(tmp_path / "experiment.toml", doc))


def test_tools_under_usr_and_opt_draw_no_warning(made: Made, tmp_path: Path) -> None:
    doc = copy.deepcopy(made.doc)
    doc["tools"] = _usr_tools(doc)
    for case in doc["case"]:
        case["sci"]["paths"] = [p for p in case["sci"]["paths"] if p not in case["truth"]]
    ran = _check(tmp_path, doc)
    assert (ran.code, ran.err) == (0, "")
    doc["tools"]["sci"]["extra_pins"] = [{"path": "/opt/sci/dist/cli/cli.js", "sha256": "0" * 64}]
    ran = _check(tmp_path, doc)
    assert ran.code == 3
    assert _WARNING not in ran.err


def test_PRE_24_tools_in_a_home_folder_or_the_temporary_directory(made: Made, tmp_path: Path) -> None:
    doc = copy.deepcopy(made.doc)
    doc["tools"] = _usr_tools(doc)
    doc["tools"]["node"]["path"] = "/home/jdoe/bin/node"
    doc["tools"]["backend"] |= pin_table(doc["tools"]["sci"]["path"])
    doc["tools"]["sci"]["extra_pins"] = [{"path": "/Users/jdoe/sci/cli.js", "sha256": "0" * 64}]
    doc["tools"]["source_list"]["path"] = str(tmp_path / "source-list.mjs")
    ran = _check(tmp_path, doc)
    assert [line for line in ran.err.splitlines() if line.startswith(_WARNING + "PRE-24")] == [
        _WARNING + "PRE-24 at tools.node.path: expected a tool path outside home directories; "
        "found '/home/jdoe/bin/node'",
        _WARNING + "PRE-24 at tools.source_list.path: expected a tool path outside the temporary directory; "
        f"found {show(str(tmp_path / 'source-list.mjs'))}",
        _WARNING + "PRE-24 at tools.sci.extra_pins[0].path: expected a tool path outside home directories; "
        "found '/Users/jdoe/sci/cli.js'",
    ]


def test_PRE_23_a_work_root_that_is_not_portable(made: Made, tmp_path: Path) -> None:
    doc = copy.deepcopy(made.doc)
    doc["tools"] = _usr_tools(doc)
    doc["experiment"]["work_root"] = "/home/jdoe/evidence"
    for case in doc["case"]:
        case["sci"]["paths"] = [p for p in case["sci"]["paths"] if p not in case["truth"]]
    ran = _check(tmp_path, doc)
    assert (ran.code, ran.err) == (
        0,
        (
            _WARNING + "PRE-23 at experiment.work_root: expected a Portable path (an exporter that echoes a request "
            "path into a message would break RCPT-15 or RCPT-40); found '/home/jdoe/evidence'\n"
        ),
    )


def test_PRE_25_a_path_seed_that_is_a_truth_path(made: Made, tmp_path: Path) -> None:
    doc = copy.deepcopy(made.doc)
    doc["tools"] = _usr_tools(doc)
    assert doc["case"][5]["sci"]["paths"] == doc["case"][5]["truth"] == ["src/alpha/interest.py"]
    ran = _check(tmp_path, doc)
    assert (ran.code, ran.err) == (
        0,
        (
            _WARNING + "PRE-25 at case[5].sci.paths[0]: expected a path seed that names no truth path; "
            "found the truth path case[5].truth[0]\n"
        ),
    )
