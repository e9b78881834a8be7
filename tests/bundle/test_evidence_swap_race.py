"""A folder swapped for a symbolic link while ``archive`` walks ``--evidence`` is never followed (issue 23 Why 1).

A second process swaps ``ev/inside`` (a real folder) for a symbolic link to a
folder outside the evidence, whose files have the same names, and back, as
fast as it can, while ``archive`` runs 200 times. Each run may succeed (it saw the real folder), refuse the link
(exit 2) or notice the change (exit 3); no bundle may ever hold a byte of the
outside folder. The old walk (``os.walk``, then each file opened by its path)
read the outside file through the link.
"""

from __future__ import annotations

import collections
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from ablation.cli import main
from tests.builders import prepared

ITERATIONS = 200
SECRET = b"OUTSIDE THE EVIDENCE"

# Four renames a cycle, so that ev/inside is the real folder, absent, the link and absent about a
# quarter of the time each; the real folder and the link wait beside the evidence, never in it.
SWAPPER = """
import os, sys
inside, held, link, stop = sys.argv[1:5]
while not os.path.exists(stop):
    os.rename(inside, held)
    os.rename(link, inside)
    os.rename(inside, link)
    os.rename(held, inside)
"""


def _small_input() -> bytes:
    """The project's minimal valid input (fast to archive)."""
    return bytes(prepared.dumps(prepared.valid_minimal()))


def _bundle_holds_the_secret(bundle: Path) -> list[str]:
    """The members of ``bundle`` that hold the outside file's bytes or name."""
    found = []
    with tarfile.open(bundle, "r:gz") as tar:
        for member in tar.getmembers():
            handle = tar.extractfile(member)
            data = handle.read() if handle is not None else b""
            if SECRET in data or "only-outside" in member.name:
                found.append(member.name)
    return found


def test_a_swapped_folder_never_brings_an_outside_file_into_a_bundle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """At least 200 archives against the swapper: outcomes 0, 2 or 3, never an outside byte."""
    (tmp_path / "in.json").write_bytes(_small_input())
    assert main(["run", "--input", str(tmp_path / "in.json"), "--output", str(tmp_path / "r.json")]) == 0
    evidence, outside = tmp_path / "ev", tmp_path / "outside"
    (evidence / "inside").mkdir(parents=True)
    outside.mkdir()
    for k in range(64):
        (evidence / "inside" / f"f{k}.txt").write_bytes(b"inside the evidence\n")
        (outside / f"f{k}.txt").write_bytes(SECRET + b"\n")
    (outside / "only-outside.txt").write_bytes(SECRET + b"\n")
    (tmp_path / "link").symlink_to(outside, target_is_directory=True)
    stop = tmp_path / "stop"
    argv = [str(evidence / "inside"), str(tmp_path / "held"), str(tmp_path / "link"), str(stop)]
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, *argv], stdin=subprocess.DEVNULL)
    outcomes: collections.Counter[int] = collections.Counter()
    try:
        for k in range(ITERATIONS):
            bundle = tmp_path / f"b{k}.tar.gz"
            code = main(
                [
                    "archive",
                    "--input",
                    str(tmp_path / "in.json"),
                    "--results",
                    str(tmp_path / "r.json"),
                    "--bundle",
                    str(bundle),
                    "--evidence",
                    str(evidence),
                ]
            )
            outcomes[code] += 1
            assert code in (0, 2, 3), capsys.readouterr().err
            if code == 0:
                assert _bundle_holds_the_secret(bundle) == [], f"run {k}: {dict(outcomes)}"
                bundle.unlink()
            else:
                assert not bundle.exists()
            capsys.readouterr()
    finally:
        stop.touch()
        swapper.wait(timeout=120)
    assert swapper.returncode == 0
    assert sum(outcomes.values()) == ITERATIONS
