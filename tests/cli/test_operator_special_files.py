"""Every option that names a file to read refuses a FIFO, a socket or a device at once (issue 23 Why 4).

A FIFO with no writer used to block ``open`` forever. Each case runs the
command in its own process with a generous deadline, so a hang fails the test
instead of stopping the suite; the deadline is a guard, nothing is timed.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from ablation.cli import main

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "prepared-input.json"
HANG_GUARD_SECONDS = 300


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example input, its results, a key pair, a bundle and a FIFO ``f`` with no writer."""
    folder = tmp_path_factory.mktemp("special")
    (folder / "in.json").write_bytes(EXAMPLE.read_bytes())
    assert main(["keygen", "--private-key", str(folder / "k.pem"), "--public-key", str(folder / "k.pub")]) == 0
    assert main(["run", "--input", str(folder / "in.json"), "--output", str(folder / "r.json")]) == 0
    assert (
        main(
            [
                "archive",
                "--input",
                str(folder / "in.json"),
                "--results",
                str(folder / "r.json"),
                "--bundle",
                str(folder / "b.tar.gz"),
            ]
        )
        == 0
    )
    os.mkfifo(folder / "f")
    return folder


# (command line with {f} for the FIFO, how the message names the file)
CASES = {
    "run --input": (["run", "--input", "{f}", "--output", "{d}/new.json"], "input"),
    "verify --input": (["verify", "--input", "{f}"], "input"),
    "archive --input": (["archive", "--input", "{f}", "--results", "{d}/r.json", "--bundle", "{d}/n1.tgz"], "input"),
    "archive --results": (
        ["archive", "--input", "{d}/in.json", "--results", "{f}", "--bundle", "{d}/n2.tgz"],
        "results file",
    ),
    "archive --sign-key": (
        ["archive", "--input", "{d}/in.json", "--results", "{d}/r.json", "--bundle", "{d}/n3.tgz", "--sign-key", "{f}"],
        "signing key",
    ),
    "verify-archive B": (["verify-archive", "{f}"], "bundle"),
    "verify-archive --public-key": (["verify-archive", "{d}/b.tar.gz", "--public-key", "{f}"], "public key"),
    "notes --results": (["notes", "--results", "{f}"], "results file"),
    "notes --bundle": (["notes", "--results", "{d}/r.json", "--bundle", "{f}"], "bundle"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_fifo_without_a_writer_is_refused_at_once(case: str, made: Path) -> None:
    """Exit 2 and one line naming the file, where the command used to wait forever for a writer."""
    args, what = CASES[case]
    fifo = made / "f"
    argv = [a.format(f=fifo, d=made) for a in args]
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "ablation", *argv],
            cwd=REPO,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=HANG_GUARD_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"ablation {case} still waited for the FIFO's writer after {HANG_GUARD_SECONDS} s")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines()[0] == (
        f"ablation: {what} {str(fifo)!r} is a FIFO (named pipe), not a regular file; give the file itself"
    )
    assert not any(made.glob("n?.tgz")) and not (made / "new.json").exists()


def test_a_socket_is_named_as_one(made: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A socket cannot even be opened (``ENXIO``): the message still says what it is."""
    path = made / "s.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        capsys.readouterr()
        assert main(["verify", "--input", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"ablation: input {str(path)!r} is a socket, not a regular file; give the file itself\n"
    )


def test_a_device_is_refused_before_it_is_read(capsys: pytest.CaptureFixture[str]) -> None:
    """``/dev/zero`` used to be read up to the bound (IN-1); it is not a file of data at all."""
    capsys.readouterr()
    assert main(["verify", "--input", "/dev/zero"]) == 2
    assert capsys.readouterr().err == (
        "ablation: input '/dev/zero' is a character device, not a regular file; give the file itself\n"
    )


def test_a_folder_is_named_as_one(made: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A folder given as the results file."""
    capsys.readouterr()
    assert main(["notes", "--results", str(made)]) == 2
    assert capsys.readouterr().err == (
        f"ablation: results file {str(made)!r} is a folder, not a regular file; give the file itself\n"
    )


def test_a_link_to_a_regular_file_is_followed(made: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Only ``--evidence`` refuses symbolic links; a linked input is read as before."""
    link = made / "link.json"
    link.symlink_to(made / "in.json")
    capsys.readouterr()
    assert main(["verify", "--input", str(link)]) == 0
