"""Vector 4 (issue 18): the checks read ``/proc``; a ``/proc`` that is not the kernel's fails closed.

With ``/proc`` covered by a tmpfs (an unprivileged user can do it with
``unshare -Urm``), ``/proc/self/maps`` used to read as empty, nothing was
checked, and the executable fell back to ``sys.executable``. Now the sealed start
refuses (exit 3) when ``/proc/self/environ``, ``maps``, ``mountinfo``,
``cmdline`` or ``exe`` cannot be read, are not the kernel's (procfs files are
regular files of size 0), or ``/proc`` is not mounted as procfs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ablation import identity
from ablation.closure.system import proc_problems
from ablation.errors import IntegrityError
from tests.closure.env_vectors import ablation, refusal

_SYSTEM = "run the evaluator where the kernel's /proc is mounted and nothing is preloaded or mounted into its closure"


def _user_namespace() -> tuple[str, ...]:
    for prefix in (("unshare", "-Urm"), ("unshare", "-m")):
        if subprocess.run([*prefix, "true"], capture_output=True, check=False).returncode == 0:
            return prefix
    pytest.skip("neither unshare -Urm nor unshare -m is permitted here")


def test_proc_covered_by_a_tmpfs_is_refused(sealed_copy: Path) -> None:
    script = 'mount -t tmpfs none /proc && exec "$@"'
    completed = ablation(sealed_copy, "identity", prefix=(*_user_namespace(), "sh", "-c", script, "sh"))
    assert refusal(completed) == (
        f"ablation: closure: /proc/self/environ cannot be read (No such file or directory); {_SYSTEM}"
    )


def test_a_fake_proc_with_regular_files_is_refused(sealed_copy: Path) -> None:
    script = (
        "mount -t tmpfs none /proc && mkdir /proc/self && printf 'A=1\\0' >/proc/self/environ && "
        "printf 'x\\0' >/proc/self/cmdline && cp /dev/null /proc/self/maps && exec \"$@\""
    )
    completed = ablation(sealed_copy, "identity", prefix=(*_user_namespace(), "sh", "-c", script, "sh"))
    assert (
        refusal(completed)
        == f"ablation: closure: /proc/self/environ is not the kernel's (/proc is not procfs); {_SYSTEM}"
    )


def test_an_unreadable_maps_or_mount_table_is_a_problem_in_process() -> None:
    problems = proc_problems("", "")
    assert [p.render() for p in problems][:2] == [
        "/proc/self/maps cannot be read, so the mapped files cannot be checked",
        "/proc/self/mountinfo cannot be read, so mounts cannot be checked",
    ]
    assert [p.render() for p in proc_problems("x", "1 2 0:1 / /tmp rw - tmpfs none rw\n")] == [
        "/proc is not mounted as procfs"
    ]


def test_a_sealed_identity_never_falls_back_to_sys_executable(monkeypatch: pytest.MonkeyPatch) -> None:
    real_exists = os.path.exists
    monkeypatch.setattr(os.path, "exists", lambda path: path != "/proc/self/exe" and real_exists(path))
    with pytest.raises(IntegrityError) as caught:
        identity._executable(sealed=True)
    assert str(caught.value) == f"closure: /proc/self/exe cannot be read; {_SYSTEM}"
    assert identity._executable(sealed=False) == os.path.realpath(sys.executable)
