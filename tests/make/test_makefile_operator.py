"""The Makefile as an operator meets it (issue 12): no silent fallbacks, clear refusals, host paths.

Each test runs ``make`` in the repository; nothing is built that ``make test``
has not built already (the sealed ``.venv``), and nothing is written but into
a temporary folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.builders.paths import ROOT

DOCUMENTED = (
    "INPUT",
    "INPUT_SHA256",
    "INPUT_GZIP_SHA256",
    "OUTPUT",
    "BUNDLE",
    "EVIDENCE",
    "SIGN_KEY",
    "PUBLIC_KEY",
    "RUNNER",
    "IMAGE",
    "IMAGE_ID",
    "BASE_IMAGE",
    "DEBIAN_MIRROR",
    "PYTHON",
    "BENCH_ARGS",
    "UPGRADE",
)

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _make(*args: str, **env_extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "SOURCE_DATE_EPOCH")}
    env.update(env_extra)
    return subprocess.run(
        ["make", "--no-print-directory", *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize(
    ("target", "typo"),
    [("run", "INPT=x.json"), ("archive", "SIGNKEY=k.pem"), ("run", "input=x.json"), ("verify", "INPUT_SHA=ab")],
)
def test_an_unknown_command_line_variable_is_an_error_naming_the_known_ones(target: str, typo: str) -> None:
    completed = _make("-n", target, typo)
    assert completed.returncode == 2
    name = typo.split("=")[0]
    assert (
        f"*** unknown variable {name} on the command line; the known ones are: INPUT INPUT_SHA256 " in completed.stderr
    )
    assert completed.stdout == ""


def test_two_unknown_variables_are_named_together() -> None:
    completed = _make("-n", "run", "INPT=x", "OUTPT=y")
    assert "*** unknown variables INPT OUTPT on the command line;" in completed.stderr


@pytest.mark.parametrize("name", DOCUMENTED)
def test_every_documented_variable_is_known(name: str) -> None:
    completed = _make("-n", "help", f"{name}={'venv' if name == 'RUNNER' else 'x'}")
    assert completed.returncode == 0, completed.stderr


def test_a_refused_output_outside_out_suggests_a_new_path_only(tmp_path: Path) -> None:
    existing = tmp_path / "results.json"
    existing.write_text("{}", encoding="utf-8")
    completed = _make("run", f"OUTPUT={existing}")
    assert completed.returncode == 2
    assert completed.stderr.splitlines()[:2] == [
        f"make run: {existing} already exists; results are never overwritten.",
        "make run: to run again, give a new path: make run OUTPUT=<a new path>",
    ]


def test_a_refused_output_in_out_also_names_clean_out() -> None:
    out = ROOT / "out"
    created = not out.exists()
    out.mkdir(exist_ok=True)
    existing = out / f"test-refusal-{os.getpid()}.results.json"
    existing.write_text("{}", encoding="utf-8")
    try:
        completed = _make("run", f"OUTPUT=out/{existing.name}")
    finally:
        existing.unlink()
        if created:
            out.rmdir()
    assert completed.stderr.splitlines()[1] == (
        "make run: to run again, give a new path: make run OUTPUT=<a new path>; "
        "or delete every result and bundle in out/: make clean-out"
    )


def test_a_missing_input_is_named_on_the_host_before_docker_runs(tmp_path: Path) -> None:
    missing = tmp_path / "mistyped.json"
    completed = _make("run", "RUNNER=image", f"INPUT={missing}", f"OUTPUT={tmp_path}/r.json")
    assert completed.returncode == 2
    assert completed.stderr.splitlines()[0] == f"make: INPUT '{missing}' is not a file"
    assert not missing.exists()


@pytest.mark.parametrize(
    ("name", "what"), [("SIGN_KEY", "is not a file"), ("EVIDENCE", "is neither a file nor a folder")]
)
def test_a_missing_key_or_evidence_is_named_on_the_host(tmp_path: Path, name: str, what: str) -> None:
    missing = tmp_path / "absent"
    completed = _make("archive", "RUNNER=image", f"{name}={missing}", f"OUTPUT={tmp_path}/r.json")
    assert completed.stderr.splitlines()[0] == f"make: {name} '{missing}' {what}"
    assert not missing.exists()


def test_an_unreachable_docker_daemon_is_said_so(tmp_path: Path) -> None:
    if shutil.which("docker") is None:
        pytest.skip("the docker client is not installed")
    completed = _make("verify", "RUNNER=image", DOCKER_HOST=f"unix://{tmp_path}/no-daemon.sock")
    assert completed.returncode == 2
    assert completed.stderr.splitlines()[0].startswith("make: Docker daemon not reachable: ")


def test_image_runs_mount_with_options_that_never_create_host_paths(tmp_path: Path) -> None:
    completed = _make(
        "-n",
        "archive",
        "RUNNER=image",
        f"OUTPUT={tmp_path}/r.json",
        f"BUNDLE={tmp_path}/b.tar.gz",
        f"EVIDENCE={tmp_path}",
        f"SIGN_KEY={tmp_path}/k.pem",
    )
    command = completed.stdout[completed.stdout.index("image_id=") :]
    assert " -v " not in command
    assert f'--mount type=bind,source="{tmp_path}/k.pem",target="/keys/k.pem",readonly' in command
    assert f'--mount type=bind,source="{tmp_path}",target="/evidence/{tmp_path.name}",readonly' in command
    assert command.rstrip().endswith(
        f"| sed -e 's#  /out/r.json$#  {tmp_path}/r.json#' -e 's#  /bundle/b.tar.gz$#  {tmp_path}/b.tar.gz#'"
    )
