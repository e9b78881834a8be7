"""The two hashed locks (PRODUCT.md "Sealed environment"): form, freshness, lean runtime.

``tools/lockcheck.py`` is the offline check; CI also re-compiles with
``tools/relock.sh --check`` (needs PyPI), which these tests do not call.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from tests.builders.paths import ROOT, load_tool

LOCK = ROOT / "requirements.lock"
IN = ROOT / "requirements.in"
DEV_LOCK = ROOT / "requirements-dev.lock"
DEV_IN = ROOT / "requirements-dev.in"


def _load_lockcheck() -> ModuleType:
    return load_tool("lockcheck")


lockcheck = _load_lockcheck()
LOCK_TEXT = LOCK.read_text(encoding="utf-8")
IN_TEXT = IN.read_text(encoding="utf-8")
DEV_LOCK_TEXT = DEV_LOCK.read_text(encoding="utf-8")
DEV_IN_TEXT = DEV_IN.read_text(encoding="utf-8")


def _run(in_path: Path | None = IN, lock_path: Path | None = LOCK) -> subprocess.CompletedProcess[str]:
    pair = [] if in_path is None or lock_path is None else ["--in", str(in_path), "--lock", str(lock_path)]
    return subprocess.run(
        [sys.executable, str(ROOT / "tools" / "lockcheck.py"), *pair],
        capture_output=True,
        text=True,
        check=False,
    )


# ---------------------------------------------------------------- the committed lock


def test_committed_lock_passes_every_check() -> None:
    completed = _run()
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.startswith("lockcheck: requirements.lock OK: ")


def test_both_committed_locks_pass_every_check_and_agree() -> None:
    completed = _run(None, None)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines()[0].startswith("lockcheck: requirements.lock OK: 4 pins")
    assert completed.stdout.splitlines()[1].startswith("lockcheck: requirements-dev.lock OK: ")


def test_every_requirement_is_pinned_with_equals_and_sha256_hashes() -> None:
    pins, problems = lockcheck.parse_lock(LOCK_TEXT)
    assert problems == []
    assert pins
    for pin in pins:
        assert pin.hashes >= 1, pin.name
    requirement_lines = [line for line in LOCK_TEXT.splitlines() if line and not line.startswith(("#", " "))]
    assert len(requirement_lines) == len(pins)
    assert all(re.fullmatch(r"[a-z0-9-]+==[0-9][0-9A-Za-z.+!]* \\", line) for line in requirement_lines)


def test_lock_names_no_index_find_links_or_path() -> None:
    for line in LOCK_TEXT.splitlines():
        stripped = line.split("#", 1)[0].strip()  # comments may say "requirements file:"
        assert not stripped.startswith(
            ("-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-e", "-r", "-c")
        )
        assert "file:" not in stripped
        assert "://" not in stripped


def test_runtime_lock_holds_exactly_cryptography_packaging_and_their_dependencies() -> None:
    names = {pin.name for pin in lockcheck.parse_lock(LOCK_TEXT)[0]}
    assert names == {"cryptography", "cffi", "pycparser", "packaging"}


def test_dev_lock_holds_the_tools_and_the_runtime_pins_at_the_same_versions() -> None:
    dev = {pin.name: pin.version for pin in lockcheck.parse_lock(DEV_LOCK_TEXT, "requirements-dev.lock")[0]}
    runtime = {pin.name: pin.version for pin in lockcheck.parse_lock(LOCK_TEXT)[0]}
    tools = {"ujson", "pytest", "hypothesis", "setuptools", "wheel", "pip", "pip-tools", "ruff", "mypy"}
    assert tools <= dev.keys()
    assert {name: dev[name] for name in runtime} == runtime


@pytest.mark.parametrize("tool", sorted(lockcheck.NOT_AT_RUN_TIME))
def test_a_development_tool_in_the_runtime_lock_is_refused(tool: str) -> None:
    version = next(pin.version for pin in lockcheck.parse_lock(DEV_LOCK_TEXT)[0] if pin.name == tool)
    runtime = LOCK_TEXT + f"{tool}=={version} \\\n    --hash=sha256:{'c' * 64}\n    # via -r requirements.in\n"
    assert lockcheck.check_between(runtime, DEV_LOCK_TEXT) == [
        f"requirements.lock: {tool} is a development tool; the sealed runtime must not hold it"
    ]


def test_a_runtime_pin_at_another_version_in_the_dev_lock_is_refused() -> None:
    dev = re.sub(r"(?m)^packaging==[^ ]+", "packaging==1.0", DEV_LOCK_TEXT)
    assert lockcheck.check_between(LOCK_TEXT, dev) == [
        f"requirements-dev.lock pins packaging==1.0, requirements.lock {_pinned('packaging')}; re-lock both"
    ]


def _pinned(name: str) -> str:
    version: str = next(pin.version for pin in lockcheck.parse_lock(LOCK_TEXT)[0] if pin.name == name)
    return version


def test_lock_header_shows_the_product_pip_compile_flags() -> None:
    header = next(line for line in LOCK_TEXT.splitlines() if line.startswith("#    pip-compile "))
    for flag in lockcheck.REQUIRED_FLAGS:
        assert flag in header.split()


# ---------------------------------------------------------------- form violations


def _one_pin(extra: str = "") -> str:
    return (
        "#\n#    pip-compile --allow-unsafe --generate-hashes --no-emit-find-links --no-emit-index-url "
        "--output-file=requirements.lock --strip-extras requirements.in\n#\n"
        f"{extra}ujson==6.1.0 \\\n    --hash=sha256:{'a' * 64}\n    # via -r requirements.in\n"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (_one_pin("--index-url https://index.invalid/simple\n"), "not a 'name==version' pin"),
        (_one_pin("--extra-index-url https://example.invalid/simple\n"), "not a 'name==version' pin"),
        (_one_pin("--find-links /opt/wheels\n"), "not a 'name==version' pin"),
        (_one_pin("-e file:///work/main\n"), "not a 'name==version' pin"),
        (
            _one_pin("foo @ file:///tmp/foo-1.0.whl \\\n    --hash=sha256:" + "b" * 64 + "\n"),
            "not a 'name==version' pin",
        ),
        (_one_pin("foo>=1.0 \\\n    --hash=sha256:" + "b" * 64 + "\n"), "not a 'name==version' pin"),
        (_one_pin("foo==1.0\n"), "foo==1.0 has no --hash lines"),
        (_one_pin("foo==1.0 \\\n    --hash=md5:" + "b" * 32 + "\n"), "not a 'name==version' pin"),
        (_one_pin("ujson==6.0.0 \\\n    --hash=sha256:" + "b" * 64 + "\n"), "ujson is pinned twice"),
        (_one_pin().replace(" --no-emit-index-url", ""), "lacks --no-emit-index-url"),
        (_one_pin().replace(" --generate-hashes", ""), "lacks --generate-hashes"),
    ],
    ids=[
        "index-url",
        "extra-index-url",
        "find-links",
        "editable-path",
        "direct-file-url",
        "range-not-pin",
        "pin-without-hash",
        "md5-hash",
        "duplicate-pin",
        "header-without-no-emit-index-url",
        "header-without-generate-hashes",
    ],
)
def test_lock_form_violation_is_reported(text: str, expected: str) -> None:
    problems = lockcheck.check_lock(text)
    assert any(expected in problem for problem in problems), problems


def test_a_well_formed_minimal_lock_has_no_problem() -> None:
    assert lockcheck.check_lock(_one_pin()) == []


# ---------------------------------------------------------------- requirements.in changed without re-locking


def test_committed_in_and_lock_agree() -> None:
    assert lockcheck.check_consistency(IN_TEXT, LOCK_TEXT) == []


def test_committed_dev_in_and_dev_lock_agree_counting_the_included_runtime_names() -> None:
    assert (
        lockcheck.check_consistency(
            DEV_IN_TEXT,
            DEV_LOCK_TEXT,
            "requirements-dev.in",
            lock_name="requirements-dev.lock",
            included={"requirements.in": IN_TEXT},
        )
        == []
    )


def test_a_dev_tool_dropped_from_requirements_dev_in_without_relock_fails(tmp_path: Path) -> None:
    changed = tmp_path / "requirements-dev.in"
    changed.write_text(re.sub(r"(?m)^ruff$", "", DEV_IN_TEXT), encoding="utf-8")
    (tmp_path / "requirements.in").write_text(IN_TEXT, encoding="utf-8")
    completed = _run(in_path=changed, lock_path=DEV_LOCK)
    assert completed.returncode == 1
    assert (
        "requirements-dev.in: requirements-dev.lock pins ruff as a top-level requirement, "
        "but it is no longer listed; re-lock" in completed.stderr
    ), completed.stderr


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda text: text + "requests\n",
            "requirements.in: requests is listed but not pinned in requirements.lock; re-lock",
        ),
        (
            lambda text: text + "cffi\n",
            "requirements.in: cffi is listed but the lock does not record it as a top-level requirement; re-lock",
        ),
        (
            lambda text: re.sub(r"(?m)^packaging$", "", text),
            "requirements.in: requirements.lock pins packaging as a top-level requirement, "
            "but it is no longer listed; re-lock",
        ),
        (
            lambda text: re.sub(r"(?m)^cryptography$", "cryptography<3", text),
            "requirements.in: cryptography<3 is not satisfied by the pinned ",
        ),
    ],
    ids=["added-new", "promoted-transitive", "removed", "tightened"],
)
def test_changed_requirements_in_without_relock_fails(
    tmp_path: Path, edit: Callable[[str], str], expected: str
) -> None:
    changed = tmp_path / "requirements.in"
    changed.write_text(edit(IN_TEXT), encoding="utf-8")
    assert changed.read_text(encoding="utf-8") != IN_TEXT
    completed = _run(in_path=changed)
    assert completed.returncode == 1
    assert expected in completed.stderr, completed.stderr
