"""The Nix form of the lock (PRODUCT.md "Sealed environment", "One lock for every environment").

``tools/nixlock.py --check`` is the offline check that ``nix/requirements-lock.nix``
matches ``requirements.lock``; regenerating needs the package index and is not
called here.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from tests.builders.paths import ROOT, load_tool

LOCK = ROOT / "requirements.lock"
NIX = ROOT / "nix" / "requirements-lock.nix"


def _load(name: str) -> ModuleType:
    return load_tool(name)


nixlock = _load("nixlock")

SMALL_LOCK = (
    "#\n# pip-compile header\n#\n"
    "cffi==2.1.1 \\\n"
    "    --hash=sha256:" + "a" * 64 + " \\\n"
    "    --hash=sha256:" + "b" * 64 + "\n"
    "    # via cryptography\n"
    "packaging==26.4 \\\n"
    "    --hash=sha256:" + "c" * 64 + "\n"
    "    # via -r requirements.in\n"
)
CFFI = nixlock.Wheel(
    "cffi", "cffi", "2.1.1", "cp311", "cp311", "cp311", "manylinux2014_x86_64.manylinux_2_17_x86_64", "b" * 64
)
PACKAGING = nixlock.Wheel("packaging", "packaging", "26.4", "py3", "py3", "none", "any", "c" * 64)
SMALL_SHA = hashlib.sha256(SMALL_LOCK.encode()).hexdigest()


def _run(lock: Path = LOCK, output: Path = NIX) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "tools" / "nixlock.py"), "--check", "--lock", str(lock), "--output", str(output)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_committed_nix_lock_matches_requirements_lock() -> None:
    result = _run()
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_committed_nix_lock_has_every_pin_for_every_system() -> None:
    lock_sha, wheels = nixlock.parse(NIX.read_text(encoding="utf-8"))
    pins = nixlock.read_lock(LOCK.read_text(encoding="utf-8"))
    assert lock_sha == hashlib.sha256(LOCK.read_bytes()).hexdigest()
    assert wheels
    for entries in wheels.values():
        assert {w.name: w.version for w in entries} == {name: version for name, (version, _) in pins.items()}
        assert all(w.sha256 in pins[w.name][1] for w in entries)


def test_nix_lock_writes_no_index_host() -> None:
    text = NIX.read_text(encoding="utf-8")
    assert re.search(r"https?://|pythonhosted|pypi\.org", text) is None


def test_changing_a_pin_without_regenerating_fails(tmp_path: Path) -> None:
    lock = tmp_path / "requirements.lock"
    lock.write_text(
        LOCK.read_text(encoding="utf-8").replace("\ncffi==2.1.1 \\\n", "\ncffi==2.1.2 \\\n"), encoding="utf-8"
    )
    result = _run(lock=lock)
    assert result.returncode == 1
    new_sha = hashlib.sha256(lock.read_bytes()).hexdigest()
    assert f"the lock's is now {new_sha}; run `make nix-lock`" in result.stderr
    assert "cffi is 2.1.1, the lock pins 2.1.2; run `make nix-lock`" in result.stderr


def test_hand_edited_nix_lock_fails(tmp_path: Path) -> None:
    output = tmp_path / "requirements-lock.nix"
    output.write_text(NIX.read_text(encoding="utf-8").replace("  wheels = {", "  wheels  = {"), encoding="utf-8")
    result = _run(output=output)
    assert result.returncode == 1
    assert "is not byte-identical to its regeneration from the same entries" in result.stderr


def test_read_lock_gives_versions_and_hashes() -> None:
    assert nixlock.read_lock(SMALL_LOCK) == {
        "cffi": ("2.1.1", frozenset({"a" * 64, "b" * 64})),
        "packaging": ("26.4", frozenset({"c" * 64})),
    }


def test_render_and_parse_round_trip_exactly() -> None:
    text = nixlock.render(SMALL_SHA, {"x86_64-linux": [PACKAGING, CFFI]})
    body = text.split("{\n", 1)[1]
    assert body == (
        f'  lockSha256 = "{SMALL_SHA}";\n'
        '  python = "3.11";\n'
        '  systems = [ "x86_64-linux" ];\n'
        "  wheels = {\n"
        '    "x86_64-linux" = [\n'
        '      { name = "cffi"; pname = "cffi"; version = "2.1.1"; dist = "cp311"; python = "cp311"; abi = "cp311"; '
        f'platform = "manylinux2014_x86_64.manylinux_2_17_x86_64"; sha256 = "{"b" * 64}"; }}\n'
        '      { name = "packaging"; pname = "packaging"; version = "26.4"; dist = "py3"; python = "py3"; '
        'abi = "none"; '
        f'platform = "any"; sha256 = "{"c" * 64}"; }}\n'
        "    ];\n"
        "  };\n"
        "}\n"
    )
    assert nixlock.parse(text) == (SMALL_SHA, {"x86_64-linux": [CFFI, PACKAGING]})
    assert nixlock.check(SMALL_LOCK.encode(), text) == []


def test_check_names_a_missing_pin_and_a_foreign_hash() -> None:
    foreign = dataclasses.replace(CFFI, sha256="d" * 64)
    text = nixlock.render(SMALL_SHA, {"x86_64-linux": [foreign]})
    assert nixlock.check(SMALL_LOCK.encode(), text) == [
        "x86_64-linux: packaging==26.4 of the lock has no wheel",
        f"x86_64-linux: cffi==2.1.1 sha256 {'d' * 64} is not one of the lock's hashes",
    ]


def test_wheel_from_file_keeps_the_compressed_tag_set(tmp_path: Path) -> None:
    path = tmp_path / "pip_tools-7.6.2-py3-none-any.whl"
    path.write_bytes(b"wheel bytes")
    assert nixlock.wheel_from_file("pip-tools", path) == nixlock.Wheel(
        "pip-tools", "pip_tools", "7.6.2", "py3", "py3", "none", "any", hashlib.sha256(b"wheel bytes").hexdigest()
    )
    path = tmp_path / "cffi-2.1.1-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
    path.write_bytes(b"")
    assert nixlock.wheel_from_file("cffi", path).platform == "manylinux2014_x86_64.manylinux_2_17_x86_64"
