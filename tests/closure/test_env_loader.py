"""Vector 2 (issue 18): what the dynamic loader and the C library read before any check can run.

``LD_LIBRARY_PATH`` naming a stand-in ``libcrypto.so.3`` that forwards every
symbol to the real one, patches ``Fraction`` and hides its line from
``/proc/self/maps``; ``/etc/ld.so.preload``. No check inside the process can see
a library that hides itself, so the sealed start refuses them by name, looked up
in the environment and in ``/proc/self/environ`` (exit 3, one line), and
requires ``/etc/ld.so.preload`` to be absent or empty.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.closure.env_vectors import VENV, Evaluation, Payload, ablation, base_env, can_unshare, refusal

_AT_START = (
    "is set: it is read by the dynamic loader, the C library or the interpreter when the process starts, "
    "before any check; unset it; the sealed evaluator runs with nothing injected"
)


def test_the_stand_in_library_flips_the_gate_and_hides_itself_where_it_is_loaded(payload: Payload) -> None:
    """The control: in an interpreter that loads it, the comparison flips and maps no longer show the library."""
    payload.reset()
    probe = (
        "import hashlib, fractions; print(fractions.Fraction(1, 10) >= fractions.Fraction(1, 5)); "
        "print(any('ablation-payload' in line for line in open('/proc/self/maps')))"
    )
    completed = subprocess.run(
        [str(VENV / "bin" / "python"), "-I", "-c", probe],
        capture_output=True,
        text=True,
        check=False,
        env=base_env(LD_LIBRARY_PATH=str(payload.folder)),
    )
    assert completed.stdout == "True\nFalse\n", completed.stderr
    assert payload.ran() == "loaded\npatched\n"


def test_LD_LIBRARY_PATH_naming_a_hiding_stand_in_is_refused(
    sealed_copy: Path, evaluation: Evaluation, payload: Payload, tmp_path: Path
) -> None:
    payload.reset()
    out = tmp_path / "results.json"
    completed = evaluation.run(sealed_copy, out, env=base_env(LD_LIBRARY_PATH=str(payload.folder)))
    assert refusal(completed) == f"ablation: closure: LD_LIBRARY_PATH {_AT_START}"
    assert not out.exists()
    assert payload.ran() == ""


@pytest.mark.parametrize(
    "name",
    [
        "LD_PRELOAD",
        "LD_AUDIT",
        "LD_DEBUG",
        "LD_BIND_NOW",
        "GCONV_PATH",
        "GLIBC_TUNABLES",
        "LOCPATH",
        "TZDIR",
        "NLSPATH",
        "HOSTALIASES",
        "MALLOC_TRACE",
        "RES_OPTIONS",
        "GETCONF_DIR",
        "LOCALDOMAIN",
        "NIS_PATH",
        "RESOLV_HOST_CONF",
    ],
)
def test_every_loader_and_c_library_variable_is_refused_by_name(sealed_copy: Path, name: str) -> None:
    line = refusal(ablation(sealed_copy, "identity", env=base_env(**{name: ""})))  # empty: the loader stays quiet
    assert line == f"ablation: closure: {name} {_AT_START}"


def test_several_refused_variables_are_counted(sealed_copy: Path) -> None:
    env = base_env(LD_LIBRARY_PATH="/nonexistent", GCONV_PATH="/nonexistent", TZDIR="/nonexistent")
    line = refusal(ablation(sealed_copy, "identity", env=env))
    assert line == f"ablation: closure: GCONV_PATH {_AT_START} (and 2 more closure problems)"


def test_TMPDIR_is_cleared_not_refused(
    sealed_copy: Path, clean_results: bytes, evaluation: Evaluation, tmp_path: Path
) -> None:
    out = tmp_path / "results.json"
    completed = evaluation.run(sealed_copy, out, env=base_env(TMPDIR="/nonexistent", PYTHONWARNINGS="error"))
    assert completed.returncode == 0, completed.stderr
    assert out.read_bytes() == clean_results


def test_the_module_entry_refuses_too(sealed_copy: Path) -> None:
    completed = subprocess.run(
        [str(sealed_copy / "bin" / "python"), "-IB", "-m", "ablation", "identity"],
        capture_output=True,
        check=False,
        env=base_env(LD_PRELOAD=""),
    )
    assert refusal(completed) == f"ablation: closure: LD_PRELOAD {_AT_START}"


def test_a_non_empty_ld_so_preload_is_refused(sealed_copy: Path, payload: Payload, tmp_path: Path) -> None:
    """In a private mount namespace, /etc is an overlay holding an ld.so.preload that names the payload."""
    why = can_unshare()
    if why is not None:
        pytest.skip(why)
    upper, work = tmp_path / "upper", tmp_path / "work"
    upper.mkdir()
    work.mkdir()
    (upper / "ld.so.preload").write_text(f"{payload.plain}\n", encoding="utf-8")
    script = f'mount -t overlay overlay -o lowerdir=/etc,upperdir={upper},workdir={work} /etc && exec "$@"'
    payload.reset()
    completed = ablation(sealed_copy, "identity", prefix=("unshare", "-m", "sh", "-c", script, "sh"))
    if completed.returncode != 3 and "overlay" in completed.stderr.decode("utf-8", "replace"):
        pytest.skip(f"overlayfs is not available here: {completed.stderr[:200]!r}")
    assert refusal(completed) == (
        "ablation: closure: /etc/ld.so.preload names libraries the dynamic loader loads into every process before "
        "any check; run the evaluator where the kernel's /proc is mounted and nothing is preloaded or mounted into "
        "its closure"
    )
    assert "loaded" in payload.ran()  # it was loaded (into every process of the namespace), and refused
