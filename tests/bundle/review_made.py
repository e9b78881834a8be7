"""What the reviewer tests of issue 22 start from: the bundled example's runs, keys and bundles, and the tools.

Not a test module: the ``test_review_*`` files import it. Everything is made
with the project's own CLI (in process); re-compressing and re-packing use the
system's ``gzip`` and GNU ``tar`` and ``python -m gzip``, as a reviewer would.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ablation.cli import main

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "prepared-input.json"
EXAMPLE_SHA256 = (REPO / "examples" / "prepared-input.json.sha256").read_text(encoding="utf-8").split()[0]


def cli(*args: object) -> int:
    """``ablation <args>`` in this process; its exit code."""
    return main([str(a) for a in args])


def captured(*args: object) -> tuple[int, str, str]:
    """``ablation <args>`` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli(*args)
    return code, out.getvalue(), err.getvalue()


def make_day(folder: Path, *, pinned: bool) -> dict[str, Path]:
    """The example run (pinned or not), a key pair, another key pair, a signed and an unsigned bundle."""
    f = {
        name: folder / name
        for name in (
            "in.json",
            "results.json",
            "k.pem",
            "k.pub",
            "other.pem",
            "other.pub",
            "signed.tar.gz",
            "unsigned.tar.gz",
        )
    }
    f["in.json"].write_bytes(EXAMPLE.read_bytes())
    pin = ["--input-sha256", EXAMPLE_SHA256] if pinned else []
    assert captured("run", "--input", f["in.json"], *pin, "--output", f["results.json"])[0] == 0
    assert captured("keygen", "--private-key", f["k.pem"], "--public-key", f["k.pub"])[0] == 0
    assert captured("keygen", "--private-key", f["other.pem"], "--public-key", f["other.pub"])[0] == 0
    made = ("archive", "--input", f["in.json"], "--results", f["results.json"], "--bundle")
    assert captured(*made, f["signed.tar.gz"], "--sign-key", f["k.pem"])[0] == 0
    assert captured(*made, f["unsigned.tar.gz"])[0] == 0
    return f


def tool(name: str) -> str:
    """The path of a system tool, or skip the test saying which is missing."""
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed")
    return found


def run(*argv: str | Path, cwd: Path | None = None, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """A system command, its output captured (never an error by itself)."""
    return subprocess.run([str(a) for a in argv], cwd=cwd, input=stdin, capture_output=True, check=False)


def gzip_again(bundle: Path, target: Path, *options: str) -> Path:
    """``gzip -dc bundle | gzip <options> > target`` with the system's gzip."""
    gzip = tool("gzip")
    tar = run(gzip, "-dc", bundle)
    assert tar.returncode == 0, tar.stderr
    target.write_bytes(run(gzip, *options, "-c", stdin=tar.stdout).stdout)
    return target


def python_gzip(bundle: Path, folder: Path) -> Path:
    """The bundle decompressed, then compressed again by ``python -m gzip`` (the standard library's CLI)."""
    tar = folder / "python.tar"
    tar.write_bytes(run(tool("gzip"), "-dc", bundle).stdout)
    done = run(sys.executable, "-m", "gzip", tar)
    assert done.returncode == 0, done.stderr
    return folder / "python.tar.gz"


def gnu_repack(bundle: Path, folder: Path, edit: str | None = None) -> Path:
    """Extract with GNU tar into a new folder, optionally append a line to one file, and ``tar -czf`` it again."""
    tar = tool("tar")
    extracted = folder / "extracted"
    extracted.mkdir()
    assert run(tar, "-xzf", bundle, "-C", extracted).returncode == 0
    (top,) = [p.name for p in extracted.iterdir()]
    if edit is not None:
        with (extracted / top / edit).open("ab") as handle:
            handle.write(b"edited\n")
    repacked = folder / "repacked.tar.gz"
    done = run(tar, "-czf", repacked, "-C", extracted, top)
    assert done.returncode == 0, done.stderr
    return repacked
