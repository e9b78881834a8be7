"""Shared set-up of the environment vectors (issue 18): sealed environments, payloads, runs.

Each ``test_env_*`` file tries one way an attacker went around the evaluator
identity. The payload is always the same small thing: it patches
``fractions.Fraction.__ge__`` so that gate G4b turns from ``fail`` to ``pass``
(on ``../shared/inputs/realistic.json.gz`` when it is there, else on the bundled
example, where G4b fails too). For the loader vectors it is a shared library
(:file:`payload.c`, built with the C compiler when there is one) whose
constructor runs that patch through the interpreter's C API and hides the
library's own line from reads of ``/proc/self/maps``.

Every vector is either refused (exit 3, one line on stderr naming the variable,
file or mount) or inert (the results file byte for byte a clean run's).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
VENV = REPOSITORY / ".venv"
SEAL = REPOSITORY / "tools" / "seal.py"
LOCK = REPOSITORY / "requirements.lock"
REALISTIC = REPOSITORY.parent / "shared" / "inputs" / "realistic.json.gz"
REALISTIC_SHA = "5e61f30b5cc018dac70e2f89abcb95e64eb12902e25723c0c18a88635deec5fa"
EXAMPLE = REPOSITORY / "examples" / "prepared-input.json"
EXAMPLE_SHA = (REPOSITORY / "examples" / "prepared-input.json.sha256").read_text(encoding="utf-8").split()[0]
PAYLOAD_SOURCE = Path(__file__).with_name("payload.c")

SEALED = (VENV / "lib" / "python3.11" / "site-packages" / "ablation" / "CLOSURE.json").is_file()


def base_env(**extra: str) -> dict[str, str]:
    """A small, ordinary caller's environment, plus ``extra``."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": "/nonexistent"}
    env.update(extra)
    return env


def site_of(env_dir: Path) -> Path:
    """The ``site-packages`` folder of a venv."""
    return env_dir / "lib" / "python3.11" / "site-packages"


def seal(env_dir: Path) -> None:
    """Seal (again) the venv at ``env_dir``."""
    completed = subprocess.run(
        [str(env_dir / "bin" / "python"), "-I", "-B", str(SEAL), "--lock", str(LOCK)],
        capture_output=True,
        text=True,
        check=False,
        env=base_env(),
        cwd=env_dir,
    )
    assert completed.returncode == 0, completed.stderr


def ablation(
    env_dir: Path, *args: object, env: dict[str, str] | None = None, prefix: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[bytes]:
    """Run the environment's console script (after ``prefix``, e.g. ``unshare -m``); bytes out."""
    return subprocess.run(
        [*prefix, str(env_dir / "bin" / "ablation"), *map(str, args)],
        capture_output=True,
        check=False,
        env=base_env() if env is None else env,
        cwd=env_dir,
    )


def refusal(completed: subprocess.CompletedProcess[bytes]) -> str:
    """The one line of a refusal (exit 3, one line on stderr, no traceback)."""
    stderr = completed.stderr.decode("utf-8", "replace")
    assert completed.returncode == 3, (completed.returncode, stderr)
    lines = stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


@dataclass(frozen=True)
class Evaluation:
    """The input every vector evaluates: G4b fails on it, and the payload would make it pass."""

    path: Path
    sha256: str

    def run(
        self, env_dir: Path, out: Path, *, env: dict[str, str] | None = None, prefix: tuple[str, ...] = ()
    ) -> subprocess.CompletedProcess[bytes]:
        """``ablation run`` of this input into ``out`` (a new file)."""
        out.parent.mkdir(parents=True, exist_ok=True)
        return ablation(
            env_dir, "run", "--input", self.path, "--input-sha256", self.sha256, "--output", out, env=env, prefix=prefix
        )


def g4b_status(results: Path) -> str:
    """The status of gate G4b in a results file."""
    gates = json.loads(results.read_bytes())["gateAssessment"]["gates"]
    return str(next(g["status"] for g in gates if g["id"] == "G4b"))


@pytest.fixture(scope="session")
def evaluation() -> Evaluation:
    """``realistic.json.gz`` when ``../shared`` is there, else the bundled example."""
    if REALISTIC.is_file():
        return Evaluation(REALISTIC, REALISTIC_SHA)
    return Evaluation(EXAMPLE, EXAMPLE_SHA)


@pytest.fixture(scope="session")
def sealed_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository's sealed ``.venv`` at another path, sealed there."""
    if not SEALED:
        pytest.skip("needs the sealed .venv that `make test` builds first (make venv)")
    target = tmp_path_factory.mktemp("env-sealed") / "venv"
    shutil.copytree(VENV, target, symlinks=True)
    seal(target)
    return target


@pytest.fixture(scope="session")
def clean_results(sealed_copy: Path, evaluation: Evaluation, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The results file of a clean run in ``sealed_copy`` (G4b fails)."""
    out = tmp_path_factory.mktemp("env-clean") / "results.json"
    completed = evaluation.run(sealed_copy, out)
    assert completed.returncode == 0, completed.stderr
    assert g4b_status(out) == "fail"
    return out.read_bytes()


def symlink_tree(source: Path, target: Path) -> None:
    """Folders made anew, files as symlinks into ``source`` (site-packages left out)."""
    for root, dirs, files in os.walk(source):
        here = Path(root)
        if here == source:
            dirs[:] = [d for d in dirs if d not in ("site-packages", "dist-packages")]
        (target / here.relative_to(source)).mkdir(parents=True, exist_ok=True)
        for name in files:
            (target / here.relative_to(source) / name).symlink_to(here / name)


@pytest.fixture(scope="session")
def private_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sealed venv on a private interpreter (copied executable, symlinked standard library).

    Its standard library and the folder above it belong to the test, so a test may
    add a file there (and must remove it again).
    """
    if not SEALED:
        pytest.skip("needs the sealed .venv that `make test` builds first (make venv)")
    root = tmp_path_factory.mktemp("env-private")
    facts = subprocess.run(
        [
            str(VENV / "bin" / "python"),
            "-I",
            "-c",
            "import os, sys; print(sys._stdlib_dir); print(os.path.realpath('/proc/self/exe'))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    stdlib, executable = Path(facts[0]), Path(facts[1])
    base = root / "base"
    (base / "bin").mkdir(parents=True)
    shutil.copy2(executable, base / "bin" / "python3.11")
    symlink_tree(stdlib, base / "lib" / "python3.11")
    venv = root / "venv"
    subprocess.run(
        [str(base / "bin" / "python3.11"), "-m", "venv", "--without-pip", str(venv)], check=True, env=base_env()
    )
    shutil.copytree(
        site_of(VENV), site_of(venv), symlinks=True, dirs_exist_ok=True, ignore=shutil.ignore_patterns("CLOSURE.json")
    )
    seal(venv)
    return venv


@pytest.fixture
def change() -> Iterator[Callable[[Path, bytes | None], None]]:
    """Write (or, with ``None``, remove) a file for one test; put everything back afterwards."""
    saved: list[tuple[Path, bytes | None, str | None]] = []

    def write(path: Path, data: bytes | None) -> None:
        link = os.readlink(path) if path.is_symlink() else None
        before = path.read_bytes() if path.is_file() and link is None else None
        saved.append((path, before, link))
        if path.is_symlink() or path.exists():
            path.unlink()
        if data is not None:
            path.write_bytes(data)

    yield write
    for path, data, link in reversed(saved):
        if path.is_symlink() or path.exists():
            path.unlink()
        if link is not None:
            path.symlink_to(link)
        elif data is not None:
            path.write_bytes(data)


@dataclass(frozen=True)
class Payload:
    """The shared-library payloads, built once; ``marker`` records ``loaded`` and ``patched``."""

    folder: Path
    stand_in: Path
    plain: Path
    marker: Path

    def ran(self) -> str:
        """What the payload recorded since the last :meth:`reset` ('' when it never loaded)."""
        return self.marker.read_text(encoding="utf-8") if self.marker.exists() else ""

    def reset(self) -> None:
        """Forget what the payload recorded."""
        self.marker.unlink(missing_ok=True)


@pytest.fixture(scope="session")
def payload(tmp_path_factory: pytest.TempPathFactory) -> Payload:
    """``ablation-payload/libcrypto.so.3`` (a stand-in that forwards to the real one) and ``payload.so``."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler (gcc): the loader payloads cannot be built here")
    real = os.path.realpath("/lib/x86_64-linux-gnu/libcrypto.so.3")
    if not os.path.isfile(real):
        pytest.skip("no /lib/x86_64-linux-gnu/libcrypto.so.3 to stand in for")
    root = tmp_path_factory.mktemp("env-payload")
    folder = root / "ablation-payload"
    folder.mkdir()
    marker = root / "marker"
    build = [compiler, "-shared", "-fPIC", "-O1", f'-DMARKER="{marker}"']
    # A library with no code whose soname is the real libcrypto's absolute path: linking the
    # stand-in against it records that path as DT_NEEDED, so the stand-in forwards every symbol.
    steps = [
        [compiler, "-shared", "-fPIC", "-x", "c", "/dev/null", "-o", str(root / "forward.so"), f"-Wl,-soname,{real}"],
        [
            *build,
            "-o",
            str(folder / "libcrypto.so.3"),
            "-Wl,-soname,libcrypto.so.3",
            str(PAYLOAD_SOURCE),
            "-Wl,--no-as-needed",
            str(root / "forward.so"),
            "-ldl",
        ],
        [*build, "-o", str(folder / "payload.so"), str(PAYLOAD_SOURCE), "-ldl"],
    ]
    for step in steps:
        completed = subprocess.run(step, capture_output=True, text=True, check=False)
        if completed.returncode != 0:
            pytest.skip(f"the loader payloads do not build here: {completed.stderr.strip()[:300]}")
    return Payload(folder, folder / "libcrypto.so.3", folder / "payload.so", marker)


def can_unshare() -> str | None:
    """Why a private mount namespace cannot be made here (``None`` when ``unshare -m`` works as this user)."""
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed"
    completed = subprocess.run(["unshare", "-m", "true"], capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        return f"unshare -m is not permitted here: {completed.stderr.strip()[:200]}"
    return None
