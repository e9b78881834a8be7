"""The one-shot run: ``run --attempt-record`` spends the experiment's one run before it reads the input.

PREPARE.md §7 "One-shot ``ablation run``" and §11 criterion 16 (issue 21 item
3): an existing output is refused first and spends nothing; then the marker is
created exclusively; only then is the input hashed and read, so a second run
with the same marker stops (exit 5) before it reads the input.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ablation.cli import main

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "prepared-input.json"
SHA = hashlib.sha256(EXAMPLE.read_bytes()).hexdigest()
MANIFEST = "ab" * 32
SPENT = "this experiment's one run was already attempted (the input was not read); it is never overwritten"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder with the example input ``in.json``."""
    (tmp_path / "in.json").write_bytes(EXAMPLE.read_bytes())
    return tmp_path


def _run(folder: Path, capsys: pytest.CaptureFixture[str], *extra: str, output: str = "r.json") -> tuple[int, str]:
    capsys.readouterr()
    args = ["run", "--input", str(folder / "in.json"), "--output", str(folder / output), *extra]
    code = main(args)
    return code, capsys.readouterr().err


def test_the_marker_names_the_input_the_manifest_the_output_and_the_evaluator(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Written like the output file, members in PREPARE.md's order; its identity is the results file's."""
    marker = folder / "attempt.json"
    args = ("--input-sha256", SHA.upper(), "--attempt-record", str(marker), "--pre-run-manifest-sha256", MANIFEST)
    code, err = _run(folder, capsys, *args)
    assert code == 0, err
    identity = json.loads((folder / "r.json").read_bytes())["evaluator"]["identityDigest"]
    assert (
        marker.read_bytes()
        == (
            "{\n"
            '  "schema": "ablation.attempt_record.v1",\n'
            f'  "inputSha256": "{SHA}",\n'
            f'  "preRunManifestSha256": "{MANIFEST}",\n'
            f'  "output": "{folder / "r.json"}",\n'
            f'  "identityDigest": "{identity}"\n'
            "}\n"
        ).encode()
    )


def test_without_a_manifest_digest_the_member_is_null(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``preRunManifestSha256`` is ``null`` when not given."""
    assert _run(folder, capsys, "--input-sha256", SHA, "--attempt-record", str(folder / "a.json"))[0] == 0
    record = json.loads((folder / "a.json").read_bytes())
    assert list(record) == ["schema", "inputSha256", "preRunManifestSha256", "output", "identityDigest"]
    assert record["preRunManifestSha256"] is None


def test_a_second_run_with_the_marker_stops_before_reading_the_input(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Criterion 16: the second run exits 5 although its input could not even be read."""
    marker = folder / "attempt.json"
    assert _run(folder, capsys, "--input-sha256", SHA, "--attempt-record", str(marker))[0] == 0
    first = marker.read_bytes()
    (folder / "in.json").unlink()
    code, err = _run(folder, capsys, "--input-sha256", SHA, "--attempt-record", str(marker), output="r2.json")
    assert (code, err) == (5, f"ablation: attempt record {str(marker)!r} already exists: {SPENT}\n")
    assert marker.read_bytes() == first
    assert not (folder / "r2.json").exists()


def _unreadable_prefix() -> list[str]:
    if os.geteuid() != 0:
        return []
    drop = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"]
    if shutil.which("setpriv") is None or subprocess.run([*drop, "true"], check=False).returncode != 0:
        pytest.skip("running as root without a working setpriv: a file cannot be made unreadable")
    return drop


def _python(*argv: str) -> subprocess.CompletedProcess[str]:
    """``python -m ablation`` with ``argv``, as a process that file permissions bind."""
    command = [*_unreadable_prefix(), sys.executable, "-m", "ablation", *argv]
    return subprocess.run(
        command, cwd=REPO, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600, check=False
    )


def test_a_second_run_with_an_unreadable_input_exits_5(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Criterion 16 as written: the input unreadable (mode 0) the second time."""
    marker = folder / "attempt.json"
    assert _run(folder, capsys, "--input-sha256", SHA, "--attempt-record", str(marker))[0] == 0
    (folder / "in.json").chmod(0)
    argv = ["run", "--input", str(folder / "in.json"), "--input-sha256", SHA, "--output", str(folder / "r2.json")]
    try:
        proc = _python(*argv, "--attempt-record", str(marker))
        without = _python(*argv)
    finally:
        (folder / "in.json").chmod(0o644)
    assert (proc.returncode, proc.stderr) == (5, f"ablation: attempt record {str(marker)!r} already exists: {SPENT}\n")
    # the control: without the marker the same command does read the input, and cannot
    assert without.returncode == 2
    assert without.stderr.endswith(f"cannot read input {str(folder / 'in.json')!r}: Permission denied\n")


def test_a_refused_output_spends_nothing(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Step 1 comes first: an existing output is exit 5 and no marker is made."""
    (folder / "r.json").write_bytes(b"{}\n")
    code, err = _run(folder, capsys, "--input-sha256", SHA, "--attempt-record", str(folder / "attempt.json"))
    assert code == 5
    assert "already exists; it is never overwritten" in err
    assert not os.path.lexists(folder / "attempt.json")


def test_a_failed_attempt_stays_spent(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A hash mismatch after the marker leaves it: the attempt is spent."""
    marker = folder / "attempt.json"
    code, err = _run(folder, capsys, "--input-sha256", "0" * 64, "--attempt-record", str(marker))
    assert code == 3, err
    assert json.loads(marker.read_bytes())["inputSha256"] == "0" * 64
    assert _run(folder, capsys, "--input-sha256", SHA, "--attempt-record", str(marker))[0] == 5
    assert not (folder / "r.json").exists()


@pytest.mark.parametrize("kind", ["file", "symlink", "dangling symlink"])
def test_an_existing_marker_of_any_kind_is_exit_5(kind: str, folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file, a link to one, or a link to nothing: never followed, never replaced."""
    marker = folder / "attempt.json"
    if kind == "file":
        marker.write_bytes(b"")
    else:
        (folder / "target.json").write_bytes(b"kept\n")
        marker.symlink_to(folder / ("target.json" if kind == "symlink" else "absent.json"))
    code, err = _run(folder, capsys, "--input-sha256", SHA, "--attempt-record", str(marker))
    assert (code, err) == (5, f"ablation: attempt record {str(marker)!r} already exists: {SPENT}\n")
    assert not (folder / "absent.json").exists() and not (folder / "r.json").exists()
    if kind != "file":
        assert (folder / "target.json").read_bytes() == b"kept\n"


USAGE = {
    "no --input-sha256": (
        ["--attempt-record", "{d}/a.json"],
        "ablation run: error: --attempt-record requires --input-sha256 (the preregistered hash the marker records)",
    ),
    "manifest without marker": (
        ["--input-sha256", SHA, "--pre-run-manifest-sha256", MANIFEST],
        "ablation run: error: --pre-run-manifest-sha256 requires --attempt-record (it is recorded only in the marker)",
    ),
    "manifest not lowercase hex": (
        ["--input-sha256", SHA, "--attempt-record", "{d}/a.json", "--pre-run-manifest-sha256", MANIFEST.upper()],
        "ablation run: error: argument --pre-run-manifest-sha256: not a SHA-256 (64 lowercase hex digits): "
        f"{MANIFEST.upper()!r}",
    ),
    "malformed --input-sha256": (
        ["--input-sha256", SHA[:63], "--attempt-record", "{d}/a.json"],
        f"ablation: --input-sha256 must be 64 hexadecimal digits, got {SHA[:63]!r}",
    ),
    "gzip hash for a plain input": (
        ["--input-sha256", SHA, "--input-gzip-sha256", SHA, "--attempt-record", "{d}/a.json"],
        "ablation: --input-gzip-sha256 applies only to a .gz input",
    ),
    "the marker is the output": (
        ["--input-sha256", SHA, "--attempt-record", "{d}/r.json"],
        "ablation: --attempt-record '{d}/r.json' names the output file; give the marker a path of its own",
    ),
}


@pytest.mark.parametrize("case", list(USAGE))
def test_usage_errors_spend_nothing(case: str, folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 2 before the marker: a typo never costs the one run."""
    extra, line = USAGE[case]
    code, err = _run(folder, capsys, *(a.format(d=folder) for a in extra))
    assert (code, err.splitlines()[-1]) == (2, line.format(d=folder))
    assert sorted(p.name for p in folder.iterdir()) == ["in.json"]


def test_without_attempt_record_run_is_as_before(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No marker option, no marker; two runs to two outputs both happen."""
    assert _run(folder, capsys, "--input-sha256", SHA)[0] == 0
    assert _run(folder, capsys, "--input-sha256", SHA, output="r2.json")[0] == 0
    assert sorted(p.name for p in folder.iterdir()) == ["in.json", "r.json", "r2.json"]
