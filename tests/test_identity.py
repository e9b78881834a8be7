"""The evaluator identity and the sealed closure (PRODUCT.md "evaluator (executable identity)").

Every test that changes files works on a temporary copy of the package, so the
checkout (and a sealed .venv) stay untouched. Nothing here needs a network.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

import ablation
from ablation import identity
from ablation.canonical import canonical_digest, is_digest, raw_digest
from ablation.errors import IntegrityError
from ablation.identity import (
    CLOSURE_MANIFEST,
    LOCK_COPY,
    check_closure,
    closure_state,
    environment_kind,
    evaluator_identity,
    measure,
    package_files,
    read_lock_pins,
    require_sealed_closure,
    seal_package,
)

PACKAGE_DIR = Path(ablation.__file__).resolve().parent
REPOSITORY = PACKAGE_DIR.parent
NO_CONTAINER: dict[str, str] = {}


def _copy_package(tmp_path: Path, folder: str = "site") -> Path:
    """A copy of the package's sources (no bytecode) at ``tmp_path/<folder>/ablation``."""
    target = tmp_path / folder / "ablation"
    shutil.copytree(PACKAGE_DIR, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", CLOSURE_MANIFEST))
    return target


def _installed_lock(tmp_path: Path, pins: dict[str, str] | None = None) -> Path:
    """A lock whose pins are installed here at exactly those versions (default: pytest)."""
    pins = pins if pins is not None else {"pytest": pytest.__version__}
    lock = tmp_path / "requirements.lock"
    lock.write_text(
        "".join(f"{name}=={version} \\\n    --hash=sha256:{'0' * 64}\n" for name, version in pins.items()),
        encoding="utf-8",
    )
    return lock


@pytest.fixture
def sealed(tmp_path: Path) -> Path:
    """A sealed copy of the package whose lock pins only what is installed here."""
    package = _copy_package(tmp_path)
    seal_package(package, _installed_lock(tmp_path))
    return package


def _closure_error(package: Path) -> str:
    with pytest.raises(IntegrityError) as caught:
        require_sealed_closure(package, environ=NO_CONTAINER)
    assert caught.value.exit_code == 3
    return str(caught.value)


# ---------------------------------------------------------------- structure


def test_identity_has_exactly_the_product_members_in_order() -> None:
    evaluator = evaluator_identity()
    assert list(evaluator) == ["measured", "asserted", "identityDigest"]
    measured = evaluator["measured"]
    assert isinstance(measured, dict)
    assert list(measured) == ["package", "closure", "lock", "interpreter", "platform", "environment"]
    assert list(measured["package"]) == ["name", "version", "filesDigest", "fileCount"]
    assert list(measured["closure"]) == ["state", "manifestDigest"]
    assert list(measured["lock"]) == ["sha256", "distributions"]
    assert list(measured["interpreter"]) == ["implementation", "version", "executableSha256"]
    assert list(measured["platform"]) == ["system", "machine"]
    assert list(measured["environment"]) == ["kind", "nixStorePath"]
    assert list(evaluator["asserted"]) == ["imageDigest", "baseImage"]
    assert measured["package"]["name"] == "ablation"
    assert measured["package"]["version"] == ablation.__version__
    assert is_digest(measured["package"]["filesDigest"])
    assert isinstance(measured["package"]["fileCount"], int) and measured["package"]["fileCount"] > 0
    assert measured["closure"]["state"] in ("sealed", "unsealed")
    assert measured["environment"]["kind"] in ("container", "nix", "venv", "other")
    assert evaluator["identityDigest"] == canonical_digest(measured)


def test_identity_holds_no_absolute_path() -> None:
    def strings(value: object) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, dict):
            return [s for v in value.values() for s in strings(v)]
        if isinstance(value, list):
            return [s for v in value for s in strings(v)]
        return []

    evaluator = evaluator_identity()
    evaluator["measured"]["environment"]["nixStorePath"] = None  # the one path PRODUCT.md allows
    assert [s for s in strings(evaluator) if s.startswith("/") or str(REPOSITORY) in s] == []


def test_interpreter_is_the_running_binary() -> None:
    interpreter = evaluator_identity()["measured"]["interpreter"]
    exe = Path("/proc/self/exe")
    if exe.exists():
        assert interpreter["executableSha256"] == hashlib.sha256(exe.read_bytes()).hexdigest()
    assert interpreter["implementation"] == "cpython"


def test_checkout_identity_reads_the_repository_lock() -> None:
    if closure_state() == "sealed":
        pytest.skip("running from a sealed install, not the checkout")
    lock = (REPOSITORY / "requirements.lock").read_bytes()
    member = evaluator_identity()["measured"]["lock"]
    assert member["sha256"] == hashlib.sha256(lock).hexdigest()
    assert [d["name"] for d in member["distributions"]] == [n for n, _ in read_lock_pins(lock.decode())]


def test_asserted_members_come_from_the_environment_and_stay_out_of_the_digest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ABLATION_IMAGE_DIGEST", raising=False)
    monkeypatch.delenv("ABLATION_BASE_IMAGE", raising=False)
    identity._cached_identity.cache_clear()
    try:
        plain = evaluator_identity()
        monkeypatch.setenv("ABLATION_IMAGE_DIGEST", "sha256:" + "a" * 64)
        monkeypatch.setenv("ABLATION_BASE_IMAGE", "ablation-base:bookworm")
        identity._cached_identity.cache_clear()
        asserted = evaluator_identity()
    finally:
        identity._cached_identity.cache_clear()
    assert plain["asserted"] == {"imageDigest": None, "baseImage": None}
    assert asserted["asserted"] == {"imageDigest": "sha256:" + "a" * 64, "baseImage": "ablation-base:bookworm"}
    assert asserted["identityDigest"] == plain["identityDigest"]


def test_identity_is_a_fresh_copy_each_call() -> None:
    first = evaluator_identity()
    first["measured"]["package"]["name"] = "changed"
    assert evaluator_identity()["measured"]["package"]["name"] == "ablation"


# ---------------------------------------------------------------- determinism and sensitivity


def test_same_environment_gives_the_same_identity(tmp_path: Path) -> None:
    package = _copy_package(tmp_path)
    assert measure(package) == measure(package)
    assert canonical_digest(measure(PACKAGE_DIR)) == evaluator_identity()["identityDigest"]


def test_one_changed_byte_changes_files_digest_and_identity(tmp_path: Path) -> None:
    package = _copy_package(tmp_path)
    before = measure(package, environ=NO_CONTAINER)
    source = package / "canonical.py"
    data = bytearray(source.read_bytes())
    data[0] ^= 0x01
    source.write_bytes(bytes(data))
    after = measure(package, environ=NO_CONTAINER)
    assert after["package"]["filesDigest"] != before["package"]["filesDigest"]
    assert after["package"]["fileCount"] == before["package"]["fileCount"]
    assert canonical_digest(after) != canonical_digest(before)


def test_checkout_ignores_pycache_but_counts_every_other_file(tmp_path: Path) -> None:
    package = _copy_package(tmp_path)
    before = package_files(package)
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "canonical.cpython-311.pyc").write_bytes(b"bytecode")
    assert package_files(package) == before
    (package / "notes.txt").write_text("x", encoding="utf-8")
    assert len(package_files(package)) == len(before) + 1


def test_files_digest_is_over_sorted_relative_paths_and_hashes(tmp_path: Path) -> None:
    package = _copy_package(tmp_path)
    files = package_files(package)
    assert [path for path, _ in files] == sorted(path for path, _ in files)
    assert all(path.startswith("ablation/") for path, _ in files)
    init = (package / "__init__.py").read_bytes()
    assert ["ablation/__init__.py", hashlib.sha256(init).hexdigest()] in files
    assert measure(package)["package"]["filesDigest"] == canonical_digest(files)


# ---------------------------------------------------------------- environment kind


@pytest.mark.parametrize(
    ("environ", "prefix", "base_prefix", "expected"),
    [
        ({"ABLATION_ENVIRONMENT": "container"}, "/opt/ablation", "/usr", {"kind": "container", "nixStorePath": None}),
        (
            {},
            "/nix/store/0123abcd-python3-3.11.9-env",
            "/nix/store/0123abcd-python3-3.11.9-env",
            {"kind": "nix", "nixStorePath": "/nix/store/0123abcd-python3-3.11.9-env"},
        ),
        ({}, "/work/.venv", "/usr", {"kind": "venv", "nixStorePath": None}),
        ({}, "/usr", "/usr", {"kind": "other", "nixStorePath": None}),
        ({"ABLATION_ENVIRONMENT": "nix"}, "/usr", "/usr", {"kind": "other", "nixStorePath": None}),
    ],
    ids=["container-by-variable", "nix-by-prefix", "venv", "other", "unknown-variable-value"],
)
def test_environment_kind(
    environ: dict[str, str], prefix: str, base_prefix: str, expected: dict[str, str | None]
) -> None:
    assert environment_kind(environ=environ, prefix=prefix, base_prefix=base_prefix) == expected


# ---------------------------------------------------------------- lock pins


def test_read_lock_pins_reads_every_pin_of_the_repository_lock() -> None:
    text = (REPOSITORY / "requirements.lock").read_text(encoding="utf-8")
    pins = dict(read_lock_pins(text))
    assert {"cryptography", "ujson", "pytest", "hypothesis", "setuptools", "wheel"} <= pins.keys()
    assert len(pins) == sum(1 for line in text.splitlines() if "==" in line and not line.startswith(" "))


# ---------------------------------------------------------------- sealed closure


def test_unsealed_checkout_runs(tmp_path: Path) -> None:
    package = _copy_package(tmp_path)
    assert closure_state(package) == "unsealed"
    require_sealed_closure(package, environ=NO_CONTAINER)
    assert check_closure(package, environ=NO_CONTAINER).ok


def test_an_unsealed_container_refuses(tmp_path: Path) -> None:
    package = _copy_package(tmp_path)
    with pytest.raises(IntegrityError, match=r"^closure: ablation/CLOSURE\.json is missing"):
        require_sealed_closure(package, environ={"ABLATION_ENVIRONMENT": "container"})


def test_sealed_copy_verifies_and_reports_sealed(sealed: Path) -> None:
    require_sealed_closure(sealed, environ=NO_CONTAINER)
    measured = measure(sealed, environ=NO_CONTAINER)
    manifest = (sealed / CLOSURE_MANIFEST).read_bytes()
    assert measured["closure"] == {"state": "sealed", "manifestDigest": raw_digest(manifest)}
    files = package_files(sealed)
    paths = [path for path, _ in files]
    assert "ablation/CLOSURE.json" not in paths
    assert f"ablation/{LOCK_COPY}" in paths
    assert any("/__pycache__/" in path for path in paths)
    assert measured["package"]["fileCount"] == len(files)
    lock = (sealed / LOCK_COPY).read_bytes()
    assert measured["lock"] == {
        "sha256": hashlib.sha256(lock).hexdigest(),
        "distributions": [{"name": "pytest", "version": pytest.__version__}],
    }


def test_sealing_does_not_depend_on_the_install_folder(tmp_path: Path) -> None:
    lock = _installed_lock(tmp_path)
    first = _copy_package(tmp_path, "one")
    second = _copy_package(tmp_path, "two/deeper")
    seal_package(first, lock)
    seal_package(second, lock)
    assert (first / CLOSURE_MANIFEST).read_bytes() == (second / CLOSURE_MANIFEST).read_bytes()


def test_sealed_bytecode_is_hash_based_and_never_rereads_the_source(sealed: Path) -> None:
    pycs = sorted(sealed.rglob("*.pyc"))
    sources = sorted(sealed.rglob("*.py"))
    assert len(pycs) == len(sources)
    for pyc in pycs:
        flags = int.from_bytes(pyc.read_bytes()[4:8], "little")
        assert flags == 0b01, pyc  # hash-based, check_source off (PEP 552): UNCHECKED_HASH


@pytest.mark.parametrize("file_name", ["canonical.py", "__pycache__/canonical.cpython-311.pyc", LOCK_COPY])
def test_one_changed_byte_in_a_sealed_package_refuses(sealed: Path, file_name: str) -> None:
    target = next(sealed.glob(file_name.replace("cpython-311", "*")))
    data = bytearray(target.read_bytes())
    data[-1] ^= 0x01
    target.write_bytes(bytes(data))
    relative = "ablation/" + target.relative_to(sealed).as_posix()
    assert _closure_error(sealed).startswith(f"closure: {relative} changed (sha256 ")


def test_missing_file_refuses(sealed: Path) -> None:
    (sealed / "errors.py").unlink()
    assert _closure_error(sealed) == "closure: ablation/errors.py is missing"


def test_extra_file_refuses(sealed: Path) -> None:
    (sealed / "contracts" / "extra.py").write_text("", encoding="utf-8")
    assert _closure_error(sealed) == "closure: ablation/contracts/extra.py is extra (not in the closure manifest)"


def test_symlinked_file_refuses_even_with_the_same_content(sealed: Path, tmp_path: Path) -> None:
    original = sealed / "text.py"
    outside = tmp_path / "text.py"
    shutil.copyfile(original, outside)
    original.unlink()
    original.symlink_to(outside)
    assert _closure_error(sealed) == "closure: ablation/text.py is a symlink"


def test_symlinked_folder_refuses(sealed: Path, tmp_path: Path) -> None:
    shutil.move(str(sealed / "contracts"), str(tmp_path / "contracts"))
    (sealed / "contracts").symlink_to(tmp_path / "contracts")
    assert _closure_error(sealed).startswith("closure: ablation/contracts is a symlink (and ")


def test_every_problem_is_reported_in_path_order(sealed: Path) -> None:
    (sealed / "zz.py").write_text("", encoding="utf-8")
    (sealed / "errors.py").unlink()
    report = check_closure(sealed, environ=NO_CONTAINER)
    assert report.problems == (
        "ablation/errors.py is missing",
        "ablation/zz.py is extra (not in the closure manifest)",
    )
    assert _closure_error(sealed) == "closure: ablation/errors.py is missing (and 1 more closure problem)"


def test_unreadable_manifest_refuses(sealed: Path) -> None:
    (sealed / CLOSURE_MANIFEST).write_text("[]", encoding="utf-8")
    assert _closure_error(sealed).startswith("closure: ablation/CLOSURE.json is not a closure manifest")


@pytest.mark.parametrize(
    ("pins", "message"),
    [
        ({"pytest": "0.0.1"}, f"closure: ablation/requirements.lock pins pytest==0.0.1, but {pytest.__version__} is installed"),
        (
            {"no-such-distribution-here": "1.0"},
            "closure: ablation/requirements.lock pins no-such-distribution-here==1.0, which is not installed",
        ),
    ],
    ids=["other-version-installed", "not-installed"],
)
def test_lock_pin_mismatch_refuses(tmp_path: Path, pins: dict[str, str], message: str) -> None:
    package = _copy_package(tmp_path)
    seal_package(package, _installed_lock(tmp_path, pins))
    assert _closure_error(package) == message


def test_sealing_refuses_a_symlink_inside_the_package(tmp_path: Path) -> None:
    package = _copy_package(tmp_path)
    (package / "link.py").symlink_to(package / "text.py")
    with pytest.raises(IntegrityError, match=r"^closure: ablation/link\.py is a symlink"):
        seal_package(package, _installed_lock(tmp_path))
