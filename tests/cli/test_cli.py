"""The command line: exit codes, hash pinning, gzip input, exclusive and atomic output."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ablation.cli import main
from tests.builders import prepared
from tests.builders.paths import ROOT

DATA = prepared.dumps(prepared.valid_minimal())
SHA = hashlib.sha256(DATA).hexdigest()


def run(*args: str) -> int:
    return main(list(args))


def test_run_writes_output_and_prints_its_digest(
    prepared_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.json"
    assert run("run", "--input", str(prepared_file), "--input-sha256", SHA, "--output", str(out)) == 0
    captured = capsys.readouterr()
    data = out.read_bytes()
    assert captured.out == f"{hashlib.sha256(data).hexdigest()}  {out}\n"
    # A development checkout is unsealed and says so; nothing else goes to stderr.
    assert (
        captured.err == "ablation: note: unsealed environment (no closure manifest); the evaluator identity says so\n"
    )
    document = json.loads(data)
    assert list(document) == ["inputSha256", "inputSha256Pinned", "result", "gateAssessment", "evaluator"]
    assert document["inputSha256"] == SHA
    assert document["inputSha256Pinned"] is True
    assert data.endswith(b"}\n") and not data.endswith(b"\n\n")


def test_two_runs_are_byte_identical(prepared_file: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert run("run", "--input", str(prepared_file), "--input-sha256", SHA, "--output", str(first)) == 0
    assert run("run", "--input", str(prepared_file), "--input-sha256", SHA, "--output", str(second)) == 0
    assert first.read_bytes() == second.read_bytes()


def test_unpinned_run_says_so(prepared_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.json"
    assert run("run", "--input", str(prepared_file), "--output", str(out)) == 0
    assert "not bound to a preregistered hash" in capsys.readouterr().err
    assert json.loads(out.read_bytes())["inputSha256Pinned"] is False


def test_hash_mismatch_exits_3_before_parsing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"not json at all")
    out = tmp_path / "out.json"
    assert run("run", "--input", str(bad), "--input-sha256", SHA, "--output", str(out)) == 3
    assert "SHA-256 mismatch" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("kind", ["file", "symlink", "dangling-symlink"])
def test_existing_output_is_refused_and_unchanged(kind: str, prepared_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    if kind == "file":
        out.write_bytes(b"keep me")
    elif kind == "symlink":
        (tmp_path / "target").write_bytes(b"keep me")
        out.symlink_to(tmp_path / "target")
    else:
        out.symlink_to(tmp_path / "missing")
    assert run("run", "--input", str(prepared_file), "--input-sha256", SHA, "--output", str(out)) == 5
    assert os.path.lexists(out)
    if kind != "dangling-symlink":
        assert out.read_bytes() == b"keep me"
    assert not (tmp_path / "missing").exists()


def test_existing_output_refused_before_reading_the_input(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    out.write_bytes(b"x")
    assert run("run", "--input", str(tmp_path / "absent.json"), "--output", str(out)) == 5


def test_rejected_input_exits_4_with_one_spec_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    obj = prepared.valid_minimal()
    obj["cases"][0]["maxItems"] = 0
    bad = tmp_path / "bad.json"
    bad.write_bytes(prepared.dumps(obj))
    out = tmp_path / "out.json"
    assert run("run", "--input", str(bad), "--output", str(out)) == 4
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == "CASE-8 at /cases/0/maxItems: expected an integer from 1 to 12 (the item count); found 0"
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bad.json"]


def test_errors_all_lists_every_violation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    obj = prepared.valid_minimal()
    obj["cases"][0]["maxItems"] = 0
    obj["cases"][2]["maxItems"] = 99
    bad = tmp_path / "bad.json"
    bad.write_bytes(prepared.dumps(obj))
    assert run("verify", "--input", str(bad), "--errors", "all") == 4
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(" ")[0:3] for line in lines[-2:]] == [
        ["CASE-8", "at", "/cases/0/maxItems:"],
        ["CASE-8", "at", "/cases/2/maxItems:"],
    ]


def test_gzip_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    compressed = gzip.compress(DATA, mtime=0)
    path = tmp_path / "prepared.json.gz"
    path.write_bytes(compressed)
    gz_sha = hashlib.sha256(compressed).hexdigest()
    out = tmp_path / "out.json"
    assert (
        run("run", "--input", str(path), "--input-sha256", SHA, "--input-gzip-sha256", gz_sha, "--output", str(out))
        == 0
    )
    document = json.loads(out.read_bytes())
    assert list(document)[:3] == ["inputSha256", "inputGzipSha256", "inputSha256Pinned"]
    assert (document["inputSha256"], document["inputGzipSha256"]) == (SHA, gz_sha)
    assert run("verify", "--input", str(path), "--input-gzip-sha256", "0" * 64) == 3
    capsys.readouterr()


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["run"],
        ["run", "--input", "x"],
        ["verify", "--input", "x", "--input-sha256", "abc"],
        ["frobnicate"],
        ["verify", "--input", "x", "--max-input-bytes", "0"],
        ["verify", "--input", "x", "--max-input-bytes", "-1"],
        ["verify", "--input", "x", "--max-input-bytes", "1" + "0" * 20],
        ["verify", "--input", "x", "--max-input-bytes", "1e3"],
    ],
    ids=[
        "nothing",
        "run-without-input",
        "run-without-output",
        "short-hash",
        "unknown-command",
        "max-bytes-zero",
        "max-bytes-negative",
        "max-bytes-huge",
        "max-bytes-float",
    ],
)
def test_usage_errors_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(*args) == 2
    capsys.readouterr()


def test_missing_input_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("verify", "--input", str(tmp_path / "absent.json")) == 2
    assert "cannot read input" in capsys.readouterr().err


def test_verify_prints_a_blind_summary(prepared_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("verify", "--input", str(prepared_file), "--input-sha256", SHA) == 0
    text = capsys.readouterr().out
    assert (
        f"input sha256      {SHA} (pinned: --input-sha256 given and matched)\ninput gzip sha256 not applicable" in text
    )
    assert "'repo' at " + "a" * 40 + ": 12 items, 12 tracked paths, 12 metadata present, coverage 1 eligible" in text
    assert "truth" not in text.lower() and "precision" not in text.lower()


def test_verify_json_summary(prepared_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("verify", "--input", str(prepared_file), "--json") == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["repositories"][0]["caseCount"] == 10
    assert summary["cases"][0] == {
        "id": "repo-1",
        "repositoryId": "repo",
        "maxItems": 2,
        "structuralAvailable": True,
        "structuralFailure": None,
    }
    assert summary["evaluator"]["identityDigest"].startswith("sha256:")


def test_python_dash_m_entry_point(prepared_file: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ablation", "verify", "--input", str(prepared_file), "--input-sha256", SHA],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


def test_sigkill_between_temporary_write_and_link_leaves_no_output(prepared_file: Path, tmp_path: Path) -> None:
    """The output appears complete or not at all: kill the writer just before os.link."""
    out = tmp_path / "out.json"
    ready = tmp_path / "ready"
    script = (
        "import os, sys, time\n"
        "from ablation import output\n"
        "def stall(*args):\n"
        f"    open({str(ready)!r}, 'w').close()\n"
        "    time.sleep(60)\n"
        "output.os.link = stall\n"
        "from ablation.cli import main\n"
        f"sys.exit(main(['run', '--input', {str(prepared_file)!r}, '--output', {str(out)!r}]))\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            if ready.exists() or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert ready.exists(), "the writer never reached the link step"
        (temporary,) = tmp_path.glob(f".out.json.tmp-{proc.pid}-*")
        assert len(temporary.name) == len(f".out.json.tmp-{proc.pid}-") + 8
        assert temporary.read_bytes().endswith(b"}\n")
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not os.path.lexists(out)


def test_output_naming_a_folder_is_refused(
    prepared_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("run", "--input", str(prepared_file), "--output", str(tmp_path / "newdir") + "/") == 5
    assert not (tmp_path / "newdir").exists()
    capsys.readouterr()


def test_long_output_name_still_gets_a_temporary(
    prepared_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / ("r" * 245 + ".json")
    assert run("run", "--input", str(prepared_file), "--output", str(out)) == 0
    assert out.exists()
    capsys.readouterr()


def test_full_disk_is_an_output_refusal(
    prepared_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_space(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_space)
    out = tmp_path / "out.json"
    assert run("run", "--input", str(prepared_file), "--output", str(out)) == 5
    assert "No space left on device" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == [prepared_file]


def test_broken_pipe_is_not_an_internal_error(prepared_file: Path) -> None:
    proc = subprocess.run(
        f"{sys.executable} -m ablation verify --input {prepared_file} | head -c 1 >/dev/null; echo ${{PIPESTATUS[0]}}",
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.stdout.strip() == "0", proc.stderr


def test_unencodable_path_does_not_crash(prepared_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "résultat.json"
    proc = subprocess.run(
        [sys.executable, "-m", "ablation", "run", "--input", str(prepared_file), "--output", str(out)],
        capture_output=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert b"r\\xe9sultat.json" in proc.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "--input", "x.json", "--output", ""], "argument --output: an empty path names no file"),
        (["verify", "--input", ""], "argument --input: an empty path names no file"),
        (["verify-archive", ""], "argument B: an empty path names no file"),
        (
            ["notes", "--results", "r.json", "--image-digest", "garbage"],
            "argument --image-digest: not an image ID ('sha256:' and 64 lowercase hex digits): 'garbage'",
        ),
        (
            ["notes", "--results", "r.json", "--image-digest", "sha256:" + "A" * 64],
            "argument --image-digest: not an image ID ('sha256:' and 64 lowercase hex digits): 'sha256:"
            + "A" * 64
            + "'",
        ),
    ],
    ids=["empty-output", "empty-input", "empty-bundle", "image-id-garbage", "image-id-uppercase"],
)
def test_empty_paths_and_malformed_image_ids_are_usage_errors(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(*args) == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(message)
