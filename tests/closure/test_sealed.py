"""The sealed closure end to end (PRODUCT.md "evaluator", issue "everything that runs").

Every way to change what runs in a sealed environment, one test each: the
attempt is refused (exit 3, one line naming the cause) or provably inert
(``result``, ``gateAssessment`` and ``identityDigest`` equal a clean run's).

Two sealed environments, made once per session from the repository's sealed
``.venv`` (``make test`` builds it first):

- ``sealed_env``: a copy of ``.venv`` at another path, re-sealed there. Tests
  that change a file put it back afterwards.
- ``private_env``: a venv on a private copy of the interpreter (the executable
  copied, the standard library a tree of symlinks into the real one), so a
  test may change a standard-library file or a mapped binary.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.builders.paths import EXAMPLE, EXAMPLE_SHA256, ROOT, SEALED_ABSENT, VENV, is_sealed

SEAL = ROOT / "tools" / "seal.py"
LOCK = ROOT / "requirements.lock"

pytestmark = pytest.mark.skipif(not is_sealed(), reason=SEALED_ABSENT)


def _base_env(**extra: str) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
    env.update(extra)
    return env


def _site(env_dir: Path) -> Path:
    return env_dir / "lib" / "python3.11" / "site-packages"


def _seal(env_dir: Path, env: dict[str, str] | None = None) -> None:
    completed = subprocess.run(
        [str(env_dir / "bin" / "python"), "-I", "-B", str(SEAL), "--lock", str(LOCK)],
        capture_output=True,
        text=True,
        check=False,
        env=env or _base_env(),
        cwd=env_dir,
    )
    assert completed.returncode == 0, completed.stderr


def _ablation(
    env_dir: Path, *args: object, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(env_dir / "bin" / "ablation"), *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
        env=env or _base_env(),
        cwd=cwd or env_dir,
    )


def _run_example(env_dir: Path, out: Path, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    out.parent.mkdir(parents=True, exist_ok=True)
    return _ablation(env_dir, "run", "--input", EXAMPLE, "--input-sha256", EXAMPLE_SHA256, "--output", out, **kwargs)


def _essence(results: Path) -> tuple[object, object, object]:
    document = json.loads(results.read_text(encoding="utf-8"))
    return document["result"], document["gateAssessment"], document["evaluator"]["identityDigest"]


def _one_line_refusal(completed: subprocess.CompletedProcess[str]) -> str:
    assert completed.returncode == 3, (completed.returncode, completed.stderr)
    lines = completed.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in completed.stderr, completed.stderr
    return lines[0]


@pytest.fixture(scope="session")
def sealed_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("sealed") / "venv"
    shutil.copytree(VENV, target, symlinks=True)
    _seal(target)
    return target


@pytest.fixture(scope="session")
def clean(sealed_env: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[object, object, object]:
    out = tmp_path_factory.mktemp("clean") / "results.json"
    completed = _run_example(sealed_env, out)
    assert completed.returncode == 0, completed.stderr
    return _essence(out)


@pytest.fixture
def change() -> Iterator[Callable[[Path, bytes], None]]:
    """Write a file in a sealed environment for one test; put back (or remove) afterwards."""
    saved: dict[Path, bytes | None] = {}

    def write(path: Path, data: bytes) -> None:
        saved.setdefault(path, path.read_bytes() if path.exists() else None)
        path.write_bytes(data)

    yield write
    for path, data in saved.items():
        if data is None:
            path.unlink(missing_ok=True)
        else:
            path.write_bytes(data)


def _marker_module(marker: Path) -> str:
    """Python source that would record that it ran, and flip every Fraction comparison."""
    return (
        "import fractions, pathlib\n"
        f"pathlib.Path({str(marker)!r}).write_text('ran')\n"
        "fractions.Fraction.__ge__ = lambda a, b: not fractions.Fraction.__lt__(a, b) is False\n"
        "fractions.Fraction.__le__ = lambda a, b: False\n"
    )


# ---------------------------------------------------------------- the identity of a sealed environment


def test_sealed_identity_shows_four_layers_and_an_isolated_interpreter(sealed_env: Path) -> None:
    completed = _ablation(sealed_env, "identity")
    assert completed.returncode == 0, completed.stderr
    measured = json.loads(completed.stdout)["measured"]
    closure = measured["closure"]
    assert closure["state"] == "sealed"
    assert list(closure["layers"]) == ["package", "dependencies", "stdlib", "interpreter"]
    for layer in closure["layers"].values():
        assert list(layer) == ["digest", "fileCount"] and layer["fileCount"] > 0
    assert measured["interpreter"]["isolated"] is True
    assert [d["name"] for d in measured["lock"]["distributions"]] == ["cffi", "cryptography", "packaging", "pycparser"]
    assert measured["environment"] == {"kind": "venv", "nixStorePath": None}


def test_the_identity_does_not_depend_on_the_install_folder(sealed_env: Path) -> None:
    here = json.loads(_ablation(sealed_env, "identity").stdout)
    there = json.loads(_ablation(VENV, "identity").stdout)
    assert here["identityDigest"] == there["identityDigest"]


def test_every_command_of_one_environment_records_the_same_identity(sealed_env: Path, tmp_path: Path) -> None:
    identity = json.loads(_ablation(sealed_env, "identity").stdout)["identityDigest"]
    results = tmp_path / "results.json"
    assert _run_example(sealed_env, results).returncode == 0
    assert _essence(results)[2] == identity
    verify = _ablation(sealed_env, "verify", "--input", EXAMPLE, "--input-sha256", EXAMPLE_SHA256, "--json")
    assert json.loads(verify.stdout)["evaluator"]["identityDigest"] == identity
    keys = tmp_path / "k.pem", tmp_path / "k.pub"
    assert _ablation(sealed_env, "keygen", "--private-key", keys[0], "--public-key", keys[1]).returncode == 0
    bundle = tmp_path / "b.tar.gz"
    archived = _ablation(
        sealed_env, "archive", "--input", EXAMPLE, "--results", results, "--bundle", bundle, "--sign-key", keys[0]
    )
    assert archived.returncode == 0, archived.stderr
    checked = _ablation(sealed_env, "verify-archive", bundle, "--public-key", keys[1])
    assert checked.returncode == 0, checked.stderr
    assert "identity: identity.json equals the current evaluator identity" in checked.stdout


def test_the_runtime_holds_no_development_tool_and_no_pth_file(sealed_env: Path) -> None:
    probe = "import importlib.util as u; print([m for m in ('pip', 'setuptools', 'wheel', 'pytest', 'hypothesis', 'piptools', '_distutils_hack', 'ujson') if u.find_spec(m)])"  # noqa: E501
    for env_dir in (VENV, sealed_env):
        completed = subprocess.run(
            [str(env_dir / "bin" / "python"), "-I", "-c", probe], capture_output=True, text=True, check=True
        )
        assert completed.stdout == "[]\n"
        assert sorted(p.name for p in _site(env_dir).glob("*.pth")) == []


def test_the_console_script_starts_the_interpreter_isolated(sealed_env: Path) -> None:
    first = (sealed_env / "bin" / "ablation").read_text(encoding="utf-8").splitlines()[0]
    assert first == f"#!{sealed_env}/bin/python -IBS"


# ---------------------------------------------------------------- injection: inert under isolation


def test_PYTHONPATH_sitecustomize_is_inert(sealed_env: Path, clean: tuple[object, ...], tmp_path: Path) -> None:
    (tmp_path / "inject").mkdir()
    (tmp_path / "inject" / "sitecustomize.py").write_text(_marker_module(tmp_path / "ran"), encoding="utf-8")
    out = tmp_path / "out" / "results.json"
    completed = _run_example(sealed_env, out, env=_base_env(PYTHONPATH=str(tmp_path / "inject")))
    assert completed.returncode == 0, completed.stderr
    assert _essence(out) == clean
    assert not (tmp_path / "ran").exists()


def _stdlib_copy_with_edited_fractions(home: Path, marker: Path) -> None:
    """A PYTHONHOME whose standard library is the real one but for an edited fractions.py."""
    real = Path(
        subprocess.run(
            [str(VENV / "bin" / "python"), "-I", "-c", "import sys; print(sys._stdlib_dir)"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    target = home / "lib" / "python3.11"
    _symlink_tree(real, target)
    (target / "fractions.py").unlink()
    (target / "fractions.py").write_text(
        (real / "fractions.py").read_text(encoding="utf-8")
        + "\n"
        + _marker_module(marker).replace(
            "import fractions, pathlib\n", "import pathlib\nimport sys\nfractions = sys.modules[__name__]\n"
        ),
        encoding="utf-8",
    )


def _symlink_tree(source: Path, target: Path) -> None:
    """Folders made anew, files as symlinks into ``source`` (site-packages left out)."""
    for root, dirs, files in os.walk(source):
        here = Path(root)
        if here == source:
            dirs[:] = [d for d in dirs if d not in ("site-packages", "dist-packages")]
        (target / here.relative_to(source)).mkdir(parents=True, exist_ok=True)
        for name in files:
            (target / here.relative_to(source) / name).symlink_to(here / name)


def test_PYTHONHOME_at_an_edited_stdlib_copy_is_inert(
    sealed_env: Path, clean: tuple[object, ...], tmp_path: Path
) -> None:
    _stdlib_copy_with_edited_fractions(tmp_path / "home", tmp_path / "ran")
    out = tmp_path / "out" / "results.json"
    completed = _run_example(sealed_env, out, env=_base_env(PYTHONHOME=str(tmp_path / "home")))
    assert completed.returncode == 0, completed.stderr
    assert _essence(out) == clean
    assert not (tmp_path / "ran").exists()


def test_PYTHONSTARTUP_is_inert(sealed_env: Path, clean: tuple[object, ...], tmp_path: Path) -> None:
    (tmp_path / "startup.py").write_text(_marker_module(tmp_path / "ran"), encoding="utf-8")
    out = tmp_path / "out" / "results.json"
    completed = _run_example(sealed_env, out, env=_base_env(PYTHONSTARTUP=str(tmp_path / "startup.py")))
    assert completed.returncode == 0, completed.stderr
    assert _essence(out) == clean
    assert not (tmp_path / "ran").exists()


def test_PYTHONUSERBASE_usercustomize_is_inert(sealed_env: Path, clean: tuple[object, ...], tmp_path: Path) -> None:
    user_site = tmp_path / "user" / "lib" / "python3.11" / "site-packages"
    user_site.mkdir(parents=True)
    (user_site / "usercustomize.py").write_text(_marker_module(tmp_path / "ran"), encoding="utf-8")
    out = tmp_path / "out" / "results.json"
    completed = _run_example(sealed_env, out, env=_base_env(PYTHONUSERBASE=str(tmp_path / "user")))
    assert completed.returncode == 0, completed.stderr
    assert _essence(out) == clean
    assert not (tmp_path / "ran").exists()


def test_a_stdlib_named_module_in_the_current_folder_is_inert(
    sealed_env: Path, clean: tuple[object, ...], tmp_path: Path
) -> None:
    (tmp_path / "fractions.py").write_text(_marker_module(tmp_path / "ran"), encoding="utf-8")
    out = tmp_path / "out" / "results.json"
    completed = _run_example(sealed_env, out, cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert _essence(out) == clean
    assert not (tmp_path / "ran").exists()


def test_NIX_PYTHONPATH_is_refused(sealed_env: Path, tmp_path: Path) -> None:
    line = _one_line_refusal(_ablation(sealed_env, "identity", env=_base_env(NIX_PYTHONPATH=str(tmp_path))))
    assert line == (
        "ablation: closure: NIX_PYTHONPATH is set, and changes what runs even in an isolated interpreter; "
        "unset it; the sealed evaluator runs with nothing injected"
    )


def test_the_checkout_shadowing_the_sealed_package_is_refused(sealed_env: Path) -> None:
    completed = subprocess.run(
        [str(sealed_env / "bin" / "python"), "-m", "ablation", "identity"],
        capture_output=True,
        text=True,
        check=False,
        env=_base_env(),
        cwd=ROOT,
    )
    line = _one_line_refusal(completed)
    assert line == (
        f"ablation: closure: ablation/CLOSURE.json is sealed in {_site(sealed_env)}, but this process imported "
        f"{ROOT / 'ablation'}; run the sealed environment's bin/ablation (isolated), not the checkout"
    )


_ENTRY = "start the evaluator with the environment's bin/ablation (or python -IB -m ablation)"


@pytest.mark.parametrize(
    ("options", "line"),
    [
        (
            ["-m", "ablation"],
            "python runs without -I: PYTHON* variables, the user site and the current folder could "
            "change what is imported",
        ),
        (["-I", "-m", "ablation"], "python runs without -B: it could write bytecode into the sealed environment"),
        (
            ["-IB", "-O", "-m", "ablation"],
            "python runs with -O: modules would be compiled from source instead of the sealed bytecode",
        ),
        (
            ["-IB", "-X", "pycache_prefix=/nonexistent", "-m", "ablation"],
            "python runs with -X pycache_prefix: bytecode would come from outside the sealed environment",
        ),
        (
            ["-IB", "-c", "import sys; from ablation.cli import main; sys.exit(main(sys.argv[1:]))"],
            "__main__ is not a file (python -c, standard input or an interactive session)",
        ),
    ],
    ids=["without-I", "without-B", "optimize", "pycache-prefix", "python-c"],
)
def test_a_sealed_package_started_otherwise_is_refused(
    sealed_env: Path, tmp_path: Path, options: list[str], line: str
) -> None:
    completed = subprocess.run(
        [str(sealed_env / "bin" / "python"), *options, "identity"],
        capture_output=True,
        text=True,
        check=False,
        env=_base_env(),
        cwd=tmp_path,
    )
    assert _one_line_refusal(completed).startswith(f"ablation: closure: {line}; {_ENTRY}")


def test_PYTHONEXECUTABLE_is_refused(sealed_env: Path) -> None:
    env = _base_env(PYTHONEXECUTABLE=str(sealed_env / "bin" / "python"))
    assert _one_line_refusal(_ablation(sealed_env, "identity", env=env)) == (
        "ablation: closure: PYTHONEXECUTABLE is set, and changes what runs even in an isolated interpreter; "
        "unset it; the sealed evaluator runs with nothing injected"
    )


def test_another_argv0_of_the_console_script_is_one_line(sealed_env: Path, tmp_path: Path) -> None:
    # The sealed start re-executes the environment's own interpreter (issue 18), so argv[0] no longer matters.
    completed = subprocess.run(
        ["ablation", "-IB", str(sealed_env / "bin" / "ablation"), "identity"],
        executable=str(sealed_env / "bin" / "python"),
        capture_output=True,
        text=True,
        check=False,
        env=_base_env(),
        cwd=tmp_path,
    )
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout) == json.loads(_ablation(sealed_env, "identity").stdout)


def test_another_argv0_never_gives_a_traceback_or_a_wrong_identity(sealed_env: Path) -> None:
    clean_identity = json.loads(_ablation(sealed_env, "identity").stdout)
    completed = subprocess.run(
        ["/usr/bin/python3-other", "-I", "-m", "ablation", "identity"],
        executable=str(sealed_env / "bin" / "python"),
        capture_output=True,
        text=True,
        check=False,
        env=_base_env(),
        cwd=sealed_env,
    )
    if completed.returncode == 0:
        assert json.loads(completed.stdout)["identityDigest"] == clean_identity["identityDigest"]
    else:
        assert "ablation/" not in completed.stderr and "Traceback" not in completed.stderr, completed.stderr


# ---------------------------------------------------------------- changed or stray files: refused


def test_a_pth_file_in_runtime_site_packages_is_refused(
    sealed_env: Path, change: Callable[[Path, bytes], None]
) -> None:
    change(_site(sealed_env) / "zz-inject.pth", b"import sys\n")
    line = _one_line_refusal(_ablation(sealed_env, "identity"))
    assert line == (
        "ablation: closure: zz-inject.pth runs code at every start (a .pth file) (layer dependencies); "
        "rebuild the environment (make venv) or the image"
    )


def test_a_stray_module_in_runtime_site_packages_is_refused(
    sealed_env: Path, change: Callable[[Path, bytes], None]
) -> None:
    change(_site(sealed_env) / "helpful.py", b"")
    line = _one_line_refusal(_ablation(sealed_env, "identity"))
    assert line == (
        "ablation: closure: helpful.py is owned by no runtime distribution (layer dependencies); "
        "rebuild the environment (make venv) or the image"
    )


def test_one_changed_byte_in_a_dependency_loaded_by_archive_sign_key_is_refused(
    sealed_env: Path, change: Callable[[Path, bytes], None], tmp_path: Path
) -> None:
    results = tmp_path / "results.json"
    assert _run_example(sealed_env, results).returncode == 0
    keys = tmp_path / "k.pem", tmp_path / "k.pub"
    assert _ablation(sealed_env, "keygen", "--private-key", keys[0], "--public-key", keys[1]).returncode == 0
    relative = "cryptography/hazmat/primitives/asymmetric/ed25519.py"
    target = _site(sealed_env) / relative
    data = bytearray(target.read_bytes())
    data[-1] ^= 0x01
    change(target, bytes(data))
    assert _ablation(sealed_env, "identity").returncode == 0  # not loaded at start-up
    bundle = tmp_path / "b.tar.gz"
    line = _one_line_refusal(
        _ablation(
            sealed_env, "archive", "--input", EXAMPLE, "--results", results, "--bundle", bundle, "--sign-key", keys[0]
        )
    )
    assert line.startswith(f"ablation: closure: {relative} changed (sha256 ")
    assert line.endswith("(layer dependencies); rebuild the environment (make venv) or the image")
    assert not bundle.exists()


def test_one_changed_byte_in_the_sealed_package_is_refused(
    sealed_env: Path, change: Callable[[Path, bytes], None]
) -> None:
    target = _site(sealed_env) / "ablation" / "gates.py"
    data = bytearray(target.read_bytes())
    data[0] ^= 0x01
    change(target, bytes(data))
    line = _one_line_refusal(_ablation(sealed_env, "identity"))
    assert line.startswith("ablation: closure: ablation/gates.py changed (sha256 ")
    assert line.endswith("(layer package); rebuild the environment (make venv) or the image")


# ---------------------------------------------------------------- a private interpreter: stdlib and binaries


@pytest.fixture(scope="session")
def private_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sealed venv on a private interpreter: copied executable, symlinked standard library."""
    root = tmp_path_factory.mktemp("private")
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
    _symlink_tree(stdlib, base / "lib" / "python3.11")
    venv = root / "venv"
    subprocess.run(
        [str(base / "bin" / "python3.11"), "-m", "venv", "--without-pip", str(venv)], check=True, env=_base_env()
    )
    shutil.copytree(
        _site(VENV), _site(venv), symlinks=True, dirs_exist_ok=True, ignore=shutil.ignore_patterns("CLOSURE.json")
    )
    _seal(venv)
    return venv


def _replace_symlink_with_edited_copy(path: Path, edit: bytes) -> None:
    data = path.read_bytes()
    path.unlink()
    path.write_bytes(data + edit)


def test_one_changed_byte_in_a_loaded_stdlib_file_is_refused(private_env: Path, tmp_path: Path) -> None:
    stdlib = private_env.parent / "base" / "lib" / "python3.11"
    original = (stdlib / "fractions.py").resolve()
    before = json.loads(_ablation(private_env, "identity").stdout)
    assert _run_example(private_env, tmp_path / "clean.json").returncode == 0
    bundle = tmp_path / "before.tar.gz"
    archived = _ablation(
        private_env, "archive", "--input", EXAMPLE, "--results", tmp_path / "clean.json", "--bundle", bundle
    )
    assert archived.returncode == 0, archived.stderr
    _replace_symlink_with_edited_copy(stdlib / "fractions.py", b"#")
    try:
        # fractions decides the gates: loaded after start-up, checked before the output is written
        line = _one_line_refusal(_run_example(private_env, tmp_path / "edited.json"))
        assert not (tmp_path / "edited.json").exists()
        assert line.startswith("ablation: closure: fractions.py changed (sha256 ")
        assert line.endswith(
            "(layer stdlib); the interpreter's files changed since sealing: re-seal (make seal) after a system update, "
            "or rebuild the image"
        )
        _seal(private_env)
        after = json.loads(_ablation(private_env, "identity").stdout)
        reviewed = _ablation(private_env, "verify-archive", bundle)
    finally:
        (stdlib / "fractions.py").unlink()
        (stdlib / "fractions.py").symlink_to(original)
        _seal(private_env)
    layers_before = before["measured"]["closure"]["layers"]
    layers_after = after["measured"]["closure"]["layers"]
    assert layers_after["stdlib"]["digest"] != layers_before["stdlib"]["digest"]
    assert {k: v for k, v in layers_after.items() if k != "stdlib"} == {
        k: v for k, v in layers_before.items() if k != "stdlib"
    }
    assert after["identityDigest"] != before["identityDigest"]
    assert reviewed.returncode == 0, reviewed.stderr
    assert "identity: closure layers that differ: stdlib (equal: package, dependencies, interpreter)" in reviewed.stdout


def test_one_changed_byte_in_a_mapped_shared_object_is_refused(private_env: Path) -> None:
    dynload = private_env.parent / "base" / "lib" / "python3.11" / "lib-dynload"
    target = next(dynload.glob("_json.cpython-311-*.so"))
    original = target.resolve()
    _replace_symlink_with_edited_copy(target, b"\x00")
    try:
        line = _one_line_refusal(_ablation(private_env, "identity"))
    finally:
        target.unlink()
        target.symlink_to(original)
    assert line.startswith(f"ablation: closure: lib-dynload/{target.name} changed (sha256 ")
    assert "(layer stdlib)" in line


def test_one_changed_byte_in_the_interpreter_executable_is_refused(private_env: Path) -> None:
    executable = private_env.parent / "base" / "bin" / "python3.11"
    data = executable.read_bytes()
    executable.write_bytes(data + b"\x00")
    try:
        line = _one_line_refusal(_ablation(private_env, "identity"))
    finally:
        executable.write_bytes(data)
    relative = str(executable.resolve()).lstrip("/")
    assert line.startswith(f"ablation: closure: {relative} changed (sha256 ")
    assert "(layer interpreter)" in line


@pytest.mark.parametrize(
    ("name", "what"),
    [
        ("zz-inject.pth", "a .pth file, which runs code at every start"),
        ("helpful.py", "owned by no runtime distribution"),
    ],
    ids=["pth", "stray-module"],
)
def test_sealing_refuses_a_file_no_runtime_distribution_owns(
    sealed_env: Path, change: Callable[[Path, bytes], None], name: str, what: str
) -> None:
    manifest = (_site(sealed_env) / "ablation" / "CLOSURE.json").read_bytes()
    change(_site(sealed_env) / name, b"")
    completed = subprocess.run(
        [str(sealed_env / "bin" / "python"), "-I", "-B", str(SEAL), "--lock", str(LOCK)],
        capture_output=True,
        text=True,
        check=False,
        env=_base_env(),
        cwd=sealed_env,
    )
    assert completed.returncode == 3
    assert completed.stderr == f"seal: closure: site-packages/{name} is {what}; remove it and seal again\n"
    assert (_site(sealed_env) / "ablation" / "CLOSURE.json").read_bytes() == manifest  # the old one stays


def test_sealing_refuses_a_venv_that_includes_the_system_site_packages(
    sealed_env: Path, change: Callable[[Path, bytes], None]
) -> None:
    config = sealed_env / "pyvenv.cfg"
    text = config.read_text(encoding="utf-8")
    change(config, text.replace("include-system-site-packages = false", "include-system-site-packages = true").encode())
    completed = subprocess.run(
        [str(sealed_env / "bin" / "python"), "-I", "-B", str(SEAL), "--lock", str(LOCK)],
        capture_output=True,
        text=True,
        check=False,
        env=_base_env(),
        cwd=sealed_env,
    )
    assert completed.returncode == 3
    assert completed.stderr == (
        "seal: closure: pyvenv.cfg includes the system site-packages; a sealed environment holds only its own\n"
    )


def test_a_sitecustomize_added_to_the_stdlib_is_refused_even_when_it_hides_itself(private_env: Path) -> None:
    stdlib = private_env.parent / "base" / "lib" / "python3.11"
    (stdlib / "sitecustomize.py").write_text(
        "import sys, types\nsys.modules['sitecustomize'] = types.ModuleType('sitecustomize')\n", encoding="utf-8"
    )
    try:
        line = _one_line_refusal(_ablation(private_env, "identity"))
    finally:
        (stdlib / "sitecustomize.py").unlink()
    assert line.startswith("ablation: closure: sitecustomize.py is not in the closure manifest (layer stdlib); ")


# ---------------------------------------------------------------- the check from outside the process


def _closure_check(env_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(ROOT / "tools" / "closure-check.sh"), str(env_dir)],
        capture_output=True,
        text=True,
        check=False,
        env=_base_env(),
    )


def test_the_outside_check_passes_on_a_sealed_environment(sealed_env: Path) -> None:
    completed = _closure_check(sealed_env)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert completed.stdout.startswith(f"closure-check: {sealed_env} matches its closure manifest (")


def test_the_outside_check_names_an_edit_a_stray_file_and_a_changed_pyvenv_cfg(
    sealed_env: Path, change: Callable[[Path, bytes], None]
) -> None:
    target = _site(sealed_env) / "cryptography" / "__init__.py"
    change(target, target.read_bytes() + b"#")
    change(_site(sealed_env) / "zz.pth", b"import os\n")
    config = sealed_env / "pyvenv.cfg"
    change(config, config.read_bytes() + b"extra = 1\n")
    completed = _closure_check(sealed_env)
    assert completed.returncode == 1
    assert completed.stdout.splitlines() == [
        f"closure-check: {target}: FAILED",
        "closure-check: sha256sum: WARNING: 1 computed checksum did NOT match",
        "closure-check: pyvenv.cfg differs from the manifest (install folder normalised)",
        "closure-check: site-packages/zz.pth is not in the manifest",
    ]
