"""The evaluator identity and the closure's pure parts (PRODUCT.md "evaluator (executable identity)").

In-process tests against the checkout (unsealed): the identity's shape, the
layer digest, the manifest format, where files belong, the parsing of
``/proc/self/maps``. The sealed environment itself is exercised end to end
in ``test_sealed.py``.
"""

from __future__ import annotations

import doctest
import hashlib
import importlib
import os
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

import ablation
from ablation import identity
from ablation.canonical import canonical_digest, is_digest
from ablation.closure import LAYERS
from ablation.closure.check import check_closure, closure_state, package_files, require_sealed_closure
from ablation.closure.layout import Layout, loaded_files, mapped_executables, normalized_sha256
from ablation.closure.manifest import (
    Manifest,
    ManifestUnusable,
    layer_digest,
    read_lock_pins,
    read_manifest,
    render_manifest,
)
from ablation.closure.seal import _distributions
from ablation.closure.startup import check_startup
from ablation.errors import IntegrityError, UsageError
from ablation.identity import environment_kind
from ablation.identity import evaluator_identity as _evaluator_identity
from ablation.identity import measure as _measure

PACKAGE_DIR = Path(ablation.__file__).resolve().parent
STDLIB: str = sys._stdlib_dir  # type: ignore[attr-defined]  # CPython's own, not in typeshed
REPOSITORY = PACKAGE_DIR.parent
NO_CONTAINER: dict[str, str] = {}


# ---------------------------------------------------------------- structure


def evaluator_identity() -> Any:
    """``ablation.identity.evaluator_identity``, typed as the JSON the tests read."""
    return _evaluator_identity()


def measure() -> Any:
    """``ablation.identity.measure``, typed as the JSON the tests read."""
    return _measure()


def test_identity_has_exactly_the_product_members_in_order() -> None:
    evaluator = evaluator_identity()
    assert list(evaluator) == ["measured", "asserted", "identityDigest"]
    measured = evaluator["measured"]
    assert list(measured) == ["package", "closure", "lock", "interpreter", "platform", "environment"]
    assert list(measured["package"]) == ["name", "sourceRevision", "filesDigest", "fileCount"]
    assert list(measured["closure"]) == ["state", "manifestDigest", "layers"]
    assert list(measured["closure"]["layers"]) == list(LAYERS) == ["package", "dependencies", "stdlib", "interpreter"]
    for layer in measured["closure"]["layers"].values():
        assert list(layer) == ["digest", "fileCount"]
        assert is_digest(layer["digest"]) and layer["fileCount"] > 0
    assert list(measured["lock"]) == ["sha256", "distributions"]
    assert list(measured["interpreter"]) == ["implementation", "version", "executableSha256", "isolated"]
    assert list(measured["platform"]) == ["system", "machine"]
    assert list(measured["environment"]) == ["kind", "nixStorePath"]
    assert list(evaluator["asserted"]) == ["imageDigest", "baseImage"]
    assert measured["package"]["name"] == "ablation"
    assert measured["package"]["sourceRevision"] is None  # unsealed: no revision (docs/decisions/0017)
    assert measured["closure"]["state"] == "unsealed" and measured["closure"]["manifestDigest"] is None
    assert measured["interpreter"]["isolated"] is bool(sys.flags.isolated)
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
    assert interpreter["executableSha256"] == hashlib.sha256(Path("/proc/self/exe").read_bytes()).hexdigest()
    assert interpreter["implementation"] == "cpython"


def test_checkout_identity_reads_the_repository_lock_with_installed_versions() -> None:
    lock = (REPOSITORY / "requirements.lock").read_bytes()
    member = evaluator_identity()["measured"]["lock"]
    assert member["sha256"] == hashlib.sha256(lock).hexdigest()
    assert member["distributions"] == [
        {"name": name, "version": metadata.version(name)} for name, _ in read_lock_pins(lock.decode())
    ]


def test_asserted_members_come_from_the_environment_and_stay_out_of_the_digest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ABLATION_IMAGE_DIGEST", raising=False)
    monkeypatch.delenv("ABLATION_BASE_IMAGE", raising=False)
    # Unsealed (this test environment), the stdlib layer lists the modules loaded so far, and the first
    # measurement loads a few: measure once first, so both measurements below see the same modules.
    identity._cached_identity.cache_clear()
    evaluator_identity()
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


@pytest.mark.parametrize("name", ["ABLATION_IMAGE_DIGEST", "ABLATION_BASE_IMAGE"])
def test_asserted_member_that_is_not_utf8_is_a_usage_error(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # os.environ holds undecodable bytes as surrogate escapes, which no results file can encode:
    # `run` used to validate and evaluate, then stop in render_output with a UnicodeEncodeError (exit 1).
    monkeypatch.setenv(name, "sha256:\udcff")
    identity._cached_identity.cache_clear()
    try:
        with pytest.raises(UsageError) as caught:
            evaluator_identity()
    finally:
        identity._cached_identity.cache_clear()
    assert caught.value.exit_code == 2
    assert str(caught.value) == f"{name} is not UTF-8 text: b'sha256:\\xff'"


def test_identity_is_a_fresh_copy_each_call() -> None:
    first = evaluator_identity()
    first["measured"]["package"]["name"] = "changed"
    assert evaluator_identity()["measured"]["package"]["name"] == "ablation"


def test_unsealed_package_files_leave_out_bytecode_and_are_sorted() -> None:
    files = package_files(PACKAGE_DIR, sealed=False)
    paths = [path for path, _, _ in files]
    assert paths == sorted(paths) and all(p.startswith("ablation/") for p in paths)
    assert not any("__pycache__" in p for p in paths)
    init = hashlib.sha256((PACKAGE_DIR / "__init__.py").read_bytes()).hexdigest()
    assert ("ablation/__init__.py", "file", init) in files
    listed = [[p, sha] for p, kind, sha in files if sha is not None]
    assert measure()["package"]["filesDigest"] == canonical_digest(listed)


def test_unsealed_layers_are_measured_from_what_is_loaded() -> None:
    import fractions  # noqa: F401, PLC0415 - loaded here, so it is measured

    layers = measure()["closure"]["layers"]
    stdlib = STDLIB
    expected = {
        os.path.relpath(path, stdlib): hashlib.sha256(Path(path).read_bytes()).hexdigest()
        for _, path in loaded_files()
        if path.startswith(stdlib + "/") and os.path.relpath(path, stdlib).split("/")[0] != "site-packages"
    }
    assert "fractions.py" in expected
    digest, count = layer_digest(expected)
    assert layers["stdlib"] == {"digest": digest, "fileCount": count}


# ---------------------------------------------------------------- environment kind


@pytest.mark.parametrize(
    ("sealed", "prefix", "base_prefix", "expected"),
    [
        ("container", "/opt/ablation", "/usr", {"kind": "container", "nixStorePath": None}),
        (
            None,
            "/nix/store/0123abcd-python3-3.11.9-env",
            "/nix/store/0123abcd-python3-3.11.9-env",
            {"kind": "nix", "nixStorePath": "/nix/store/0123abcd-python3-3.11.9-env"},
        ),
        (None, "/work/.venv", "/usr", {"kind": "venv", "nixStorePath": None}),
        (None, "/usr", "/usr", {"kind": "other", "nixStorePath": None}),
        ("venv", "/usr", "/usr", {"kind": "venv", "nixStorePath": None}),
    ],
    ids=["container-sealed", "nix-by-prefix", "venv", "other", "sealed-kind-wins"],
)
def test_environment_kind(sealed: str | None, prefix: str, base_prefix: str, expected: dict[str, str | None]) -> None:
    # Issue 18: the kind is the one sealed (the image build seals "container"), never ABLATION_ENVIRONMENT.
    assert environment_kind(sealed=sealed, prefix=prefix, base_prefix=base_prefix) == expected


# ---------------------------------------------------------------- lock pins


def test_read_lock_pins_reads_every_pin_of_the_runtime_lock() -> None:
    text = (REPOSITORY / "requirements.lock").read_text(encoding="utf-8")
    assert [name for name, _ in read_lock_pins(text)] == ["cffi", "cryptography", "packaging", "pycparser"]


# ---------------------------------------------------------------- layer digest and manifest


def test_layer_digest_is_the_sha256_of_sha256sum_lines_in_path_order() -> None:
    files = {"b/x.py": "2" * 64, "a.py": "1" * 64, "a/RECORD": None, "é.py": "3" * 64}
    text = f"{'1' * 64}  a.py\n{'2' * 64}  b/x.py\n{'3' * 64}  é.py\n"
    assert layer_digest(files) == ("sha256:" + hashlib.sha256(text.encode()).hexdigest(), 3)


def _sample_layers() -> dict[str, dict[str, str | None]]:
    return {
        "package": {"ablation/__init__.py": "a" * 64, "ablation-0.1.0.dist-info/RECORD": None},
        "dependencies": {"packaging/version.py": "b" * 64},
        "stdlib": {"fractions.py": "c" * 64},
        "interpreter": {"usr/bin/python3.11": "d" * 64},
    }


def test_manifest_round_trip_and_digest(tmp_path: Path) -> None:
    data = render_manifest(
        package={"name": "ablation", "sourceRevision": "f" * 40},
        distributions=[("packaging", "26.4"), ("cffi", "2.1.1")],
        layers=_sample_layers(),
        local={"pyvenv.cfg": ("interpreter", "e" * 64)},
    )
    path = tmp_path / "CLOSURE.json"
    path.write_bytes(data)
    manifest = read_manifest(path, "ablation/CLOSURE.json")
    assert manifest.layers == _sample_layers()
    assert manifest.local == {"pyvenv.cfg": ("interpreter", "e" * 64)}
    assert manifest.distributions == (("cffi", "2.1.1"), ("packaging", "26.4"))
    assert manifest.digest == "sha256:" + hashlib.sha256(data).hexdigest()
    assert manifest.layer_summary()["package"] == {
        "digest": "sha256:" + hashlib.sha256(f"{'a' * 64}  ablation/__init__.py\n".encode()).hexdigest(),
        "fileCount": 1,
    }
    assert data.endswith(b"}\n") and b"/work" not in data


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("[]", "is not a closure manifest of format ablation-closure/4"),
        ("{", "is not a readable closure manifest (JSONDecodeError)"),
        ('{"format": "ablation-closure/1", "files": []}', "is not a closure manifest of format ablation-closure/4"),
        (
            '{"format": "ablation-closure/4", "layers": {}}',
            "does not list the layers package, dependencies, stdlib, interpreter",
        ),
        (
            '{"format": "ablation-closure/4", "layers": {"package": [["a", "xyz"]], "dependencies": [], '
            '"stdlib": [], "interpreter": []}}',
            "has a malformed package layer",
        ),
    ],
    ids=["array", "not-json", "old-format", "no-layers", "bad-hash"],
)
def test_an_unusable_manifest_is_named(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "CLOSURE.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ManifestUnusable) as caught:
        read_manifest(path, "ablation/CLOSURE.json")
    assert caught.value.why == why
    assert caught.value.exit_code == 3
    assert (
        str(caught.value) == f"closure: ablation/CLOSURE.json {why}; rebuild the environment (make venv) or the image"
    )


# ---------------------------------------------------------------- where files belong


LAYOUT = Layout(prefix="/v", site="/v/lib/python3.11/site-packages", stdlib="/py/lib/python3.11")


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/v/lib/python3.11/site-packages/ablation/cli.py", ("site", "ablation/cli.py")),
        ("/py/lib/python3.11/fractions.py", ("stdlib", "fractions.py")),
        ("/py/lib/python3.11/lib-dynload/_json.so", ("stdlib", "lib-dynload/_json.so")),
        ("/py/lib/python3.11/site-packages/evil.py", ("system", "py/lib/python3.11/site-packages/evil.py")),
        ("/v/bin/ablation", ("prefix", "bin/ablation")),
        ("/v/pyvenv.cfg", ("prefix", "pyvenv.cfg")),
        ("/v/bin/other", ("system", "v/bin/other")),
        ("/usr/lib/x86_64-linux-gnu/libc.so.6", ("system", "usr/lib/x86_64-linux-gnu/libc.so.6")),
    ],
    ids=[
        "package",
        "stdlib",
        "extension",
        "site-inside-stdlib",
        "console-script",
        "pyvenv",
        "other-prefix-file",
        "system",
    ],
)
def test_locate_names_the_root_and_the_relative_path(path: str, expected: tuple[str, str]) -> None:
    assert LAYOUT.locate(path) == expected


def test_normalized_hash_does_not_depend_on_the_install_folder() -> None:
    one = normalized_sha256(b"#!/a/venv/bin/python -IB\nhome = /usr/bin\n", "/a/venv")
    two = normalized_sha256(b"#!/b/other/bin/python -IB\nhome = /usr/bin\n", "/b/other")
    assert one == two == hashlib.sha256(b"#!{prefix}/bin/python -IB\nhome = /usr/bin\n").hexdigest()


def test_mapped_executables_keeps_file_backed_executable_mappings_only() -> None:
    maps = (
        "55d0-55d1 r--p 00000000 08:01 11 /usr/bin/python3.11\n"
        "55d1-55d2 r-xp 00001000 08:01 11 /usr/bin/python3.11\n"
        "7f00-7f01 r-xp 00000000 08:01 12 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
        "7f01-7f02 rw-p 00000000 00:00 0 \n"
        "7f02-7f03 r-xp 00000000 08:01 13 /tmp/x.so (deleted)\n"
        "7ffd-7ffe r-xp 00000000 00:00 0                          [vdso]\n"
        "ffff-ffff --xp 00000000 00:00 0                          [vsyscall]\n"
    )
    assert mapped_executables(maps) == [
        "/tmp/x.so (deleted)",
        "/usr/bin/python3.11",
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
    ]


def test_loaded_files_name_sources_and_the_bytecode_that_ran() -> None:
    files = dict(loaded_files())
    spec = sys.modules["ablation.canonical"].__spec__
    assert spec is not None and spec.origin is not None
    assert (("ablation.canonical", os.path.abspath(spec.origin))) in loaded_files()
    assert "os" not in files or not files["os"].endswith(".pyc")  # frozen: no file of its own


# ---------------------------------------------------------------- unsealed checkout


def test_unsealed_checkout_runs_and_says_so() -> None:
    assert closure_state(PACKAGE_DIR) == "unsealed"
    require_sealed_closure(PACKAGE_DIR, environ=NO_CONTAINER)
    assert check_closure(PACKAGE_DIR, environ=NO_CONTAINER).ok


def test_an_unsealed_container_refuses() -> None:
    with pytest.raises(IntegrityError) as caught:
        require_sealed_closure(PACKAGE_DIR, environ={"ABLATION_ENVIRONMENT": "container"})
    assert str(caught.value) == (
        "closure: ablation/CLOSURE.json is missing (the image is built sealed) (layer package); "
        "rebuild the environment (make venv) or the image"
    )


# ---------------------------------------------------------------- sealing: PEP 440 pins, doctests


def _fake_site(tmp_path: Path, version: str) -> Path:
    site = tmp_path / "site-packages"
    dist_info = site / f"foo-{version}.dist-info"
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: Foo\nVersion: {version}\n", encoding="utf-8")
    (dist_info / "RECORD").write_text("", encoding="utf-8")
    return site


def _lock(tmp_path: Path, pin: str) -> Path:
    lock = tmp_path / "requirements.lock"
    lock.write_text(f"foo=={pin} \\\n    --hash=sha256:{'0' * 64}\n", encoding="utf-8")
    return lock


def test_sealing_compares_pins_as_pep440_versions(tmp_path: Path) -> None:
    site = _fake_site(tmp_path, "2018.01.18")
    assert [d.version for d in _distributions(site, _lock(tmp_path, "2018.1.18"))] == ["2018.01.18"]


@pytest.mark.parametrize(
    ("pin", "message"),
    [
        ("2018.1.19", "closure: requirements.lock pins foo==2018.1.19, but 2018.01.18 is installed"),
        ("not-a-version", "closure: requirements.lock pins foo==not-a-version, but 2018.01.18 is installed"),
    ],
    ids=["other-version", "invalid-pin"],
)
def test_sealing_refuses_a_pin_installed_at_another_version(tmp_path: Path, pin: str, message: str) -> None:
    site = _fake_site(tmp_path, "2018.01.18")
    with pytest.raises(IntegrityError) as caught:
        _distributions(site, _lock(tmp_path, pin))
    assert str(caught.value) == message


def test_sealing_refuses_a_pin_that_is_not_installed(tmp_path: Path) -> None:
    site = _fake_site(tmp_path, "1.0")
    lock = tmp_path / "requirements.lock"
    lock.write_text(f"bar==1.0 \\\n    --hash=sha256:{'0' * 64}\n", encoding="utf-8")
    with pytest.raises(IntegrityError) as caught:
        _distributions(site, lock)
    assert str(caught.value) == "closure: requirements.lock pins bar==1.0, which is not installed"


@pytest.mark.parametrize("module", ["ablation.closure.layout", "ablation.closure.manifest", "ablation.identity"])
def test_doctests(module: str) -> None:
    failures, tried = doctest.testmod(importlib.import_module(module))
    assert failures == 0 and tried > 0


# ---------------------------------------------------------------- how the process was started


def _startup_problems(layout: Layout, monkeypatch: pytest.MonkeyPatch, extra_finder: object = None) -> list[str]:
    """The ``outside`` problems of check_startup, pytest's own import hooks left out."""
    stock = ("_frozen_importlib", "_frozen_importlib_external", "zipimport")
    finders = [f for f in sys.meta_path if getattr(f, "__module__", None) in stock]
    monkeypatch.setattr(sys, "meta_path", finders + ([extra_finder] if extra_finder is not None else []))
    monkeypatch.setattr(sys, "path_hooks", [h for h in sys.path_hooks if getattr(h, "__module__", None) in stock])

    manifest = Manifest(layers={layer: {} for layer in LAYERS}, local={}, distributions=(), digest="")
    return [p.render() for p in check_startup(layout, manifest, {}) if p.layer == "outside"]


def _this_layout() -> Layout:
    stdlib = STDLIB
    return Layout(prefix=sys.prefix, site=str(Path(stdlib).parent / "nonexistent-site"), stdlib=stdlib)


def test_a_foreign_finder_on_the_meta_path_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    class Finder:
        @staticmethod
        def find_spec(*_: object) -> None:
            return None

    monkeypatch.setattr(sys, "path", [STDLIB])
    found = _startup_problems(_this_layout(), monkeypatch, Finder)
    assert len(found) == 1 and found[0].startswith("sys.meta_path holds <class ")
    assert found[0].endswith("which is not one of the interpreter's finders")


def test_a_sys_path_entry_outside_the_environment_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "path", [STDLIB, str(tmp_path), str(tmp_path / "absent.zip")])
    assert _startup_problems(_this_layout(), monkeypatch) == [
        f"sys.path holds {str(tmp_path)!r}, outside the sealed environment"
    ]
