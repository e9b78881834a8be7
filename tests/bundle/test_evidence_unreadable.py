"""Unreadable evidence stops ``archive`` with one line naming it; nothing is skipped silently (issue 23 Why 2).

``os.walk`` dropped what it could not list: an unreadable sub-folder, or an
unreadable ``--evidence`` folder itself, gave exit 0 and a "valid", incomplete
bundle. Permissions bind root only without ``CAP_DAC_OVERRIDE`` and
``CAP_DAC_READ_SEARCH``, so as root the command runs under ``setpriv`` with
both dropped from its bounding set (CI runs as root).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ablation.cli import main

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "prepared-input.json"
DROP = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"]


def _prefix() -> list[str]:
    """How to run a command that permissions bind: as is, or as root without the two capabilities."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root and setpriv (util-linux) is not installed: permissions cannot bind")
    probe = subprocess.run([*DROP, "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"running as root and setpriv cannot drop capabilities here: {probe.stderr!r}")
    return DROP


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example input and its results file."""
    folder = tmp_path_factory.mktemp("unreadable")
    (folder / "in.json").write_bytes(EXAMPLE.read_bytes())
    assert main(["run", "--input", str(folder / "in.json"), "--output", str(folder / "r.json")]) == 0
    return folder


@pytest.fixture
def evidence(tmp_path: Path) -> Iterator[Path]:
    """``ev/`` with a readable file, a readable sub-folder and the sub-folder ``locked/`` with a file in it."""
    root = tmp_path / "ev"
    (root / "open").mkdir(parents=True)
    (root / "locked").mkdir()
    (root / "a.txt").write_bytes(b"a\n")
    (root / "open" / "b.txt").write_bytes(b"b\n")
    (root / "locked" / "c.txt").write_bytes(b"c\n")
    yield root
    for path in (root, root / "locked", root / "locked" / "c.txt"):
        path.chmod(0o755 if path.is_dir() else 0o644)


def _archive(made: Path, evidence: Path, bundle: Path) -> subprocess.CompletedProcess[str]:
    argv = [
        "archive",
        "--input",
        str(made / "in.json"),
        "--results",
        str(made / "r.json"),
        "--bundle",
        str(bundle),
        "--evidence",
        str(evidence),
    ]
    return subprocess.run(
        [*_prefix(), sys.executable, "-m", "ablation", *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
        check=False,
    )


def test_an_unreadable_sub_folder_stops_archive(made: Path, evidence: Path, tmp_path: Path) -> None:
    """The acceptance case: non-zero exit, one line naming the path, no bundle."""
    (evidence / "locked").chmod(0)
    proc = _archive(made, evidence, tmp_path / "b.tar.gz")
    assert (proc.returncode, proc.stderr) == (
        2,
        f"ablation: cannot read evidence {str(evidence / 'locked')!r} (in --evidence {str(evidence)!r}): "
        "Permission denied\n",
    )
    assert not (tmp_path / "b.tar.gz").exists()


def test_an_unreadable_evidence_folder_stops_archive(made: Path, evidence: Path, tmp_path: Path) -> None:
    """The ``--evidence`` folder itself."""
    evidence.chmod(0)
    proc = _archive(made, evidence, tmp_path / "b.tar.gz")
    assert (proc.returncode, proc.stderr) == (
        2,
        f"ablation: cannot read --evidence {str(evidence)!r}: Permission denied\n",
    )
    assert not (tmp_path / "b.tar.gz").exists()


def test_a_listable_but_unsearchable_folder_stops_archive(made: Path, evidence: Path, tmp_path: Path) -> None:
    """Read but no search permission: the names are listed, their kind cannot be learnt."""
    (evidence / "locked").chmod(stat.S_IRUSR)
    proc = _archive(made, evidence, tmp_path / "b.tar.gz")
    assert (proc.returncode, proc.stderr) == (
        2,
        f"ablation: cannot read evidence {str(evidence / 'locked' / 'c.txt')!r} (in --evidence {str(evidence)!r}): "
        "Permission denied\n",
    )


def test_an_unreadable_file_stops_archive(made: Path, evidence: Path, tmp_path: Path) -> None:
    """A file without read permission."""
    (evidence / "locked" / "c.txt").chmod(0)
    proc = _archive(made, evidence, tmp_path / "b.tar.gz")
    assert (proc.returncode, proc.stderr) == (
        2,
        f"ablation: cannot read evidence {str(evidence / 'locked' / 'c.txt')!r} (in --evidence {str(evidence)!r}): "
        "Permission denied\n",
    )


def test_the_same_evidence_readable_is_archived_whole(made: Path, evidence: Path, tmp_path: Path) -> None:
    """The control: with every permission back, all three files are in the bundle."""
    proc = _archive(made, evidence, tmp_path / "b.tar.gz")
    assert proc.returncode == 0, proc.stderr
    with tarfile.open(tmp_path / "b.tar.gz") as tar:
        files = [m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile() and "/extra/" in m.name]
    assert files == ["extra/ev/a.txt", "extra/ev/locked/c.txt", "extra/ev/open/b.txt"]
