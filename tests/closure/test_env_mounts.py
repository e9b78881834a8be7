"""Vector 6 (issue 18): bind mounts over the closure.

``docker run -v`` (or root with ``mount --bind``) can lay an edited unchecked-hash
``.pyc`` over a standard-library file; the image ID and ``--read-only`` say
nothing about it. The run-time check reads ``/proc/self/mountinfo``: a mount
whose mount point is a closure folder, lies inside one, or is a closure file or
a start-up file is exit 3 naming it; mounts elsewhere (``/proc``, ``/dev``,
``/etc/hosts``, the operator's ``/in`` and ``/out``) are fine. Here the mounts
are made in a private mount namespace (``unshare -m``).
"""

from __future__ import annotations

import py_compile
import shutil
import subprocess
from pathlib import Path

import pytest

from ablation.closure.layout import Layout
from ablation.closure.manifest import Manifest
from ablation.closure.system import mount_problems
from tests.closure.env_vectors import VENV, Evaluation, ablation, can_unshare, refusal, site_of

_SYSTEM = "run the evaluator where the kernel's /proc is mounted and nothing is preloaded or mounted into its closure"


@pytest.fixture
def namespace() -> None:
    why = can_unshare()
    if why is not None:
        pytest.skip(why)


def _bound(source: Path, target: Path) -> tuple[str, ...]:
    return ("unshare", "-m", "sh", "-c", f'mount --bind "{source}" "{target}" && exec "$@"', "sh")


def _edited_fractions(stdlib: Path, tmp_path: Path) -> Path:
    source = tmp_path / "fractions.py"
    source.write_text(
        (stdlib / "fractions.py").read_text(encoding="utf-8") + "\nFraction.__ge__ = lambda a, b: True\n",
        encoding="utf-8",
    )
    compiled = tmp_path / "fractions.pyc"
    py_compile.compile(
        str(source),
        cfile=str(compiled),
        dfile="fractions.py",
        doraise=True,
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
    )
    return compiled


def _stdlib() -> Path:
    out = subprocess.run(
        [str(VENV / "bin" / "python"), "-I", "-c", "import sys; print(sys._stdlib_dir)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return Path(out.strip())


@pytest.mark.usefixtures("namespace")
def test_an_edited_pyc_mounted_over_the_standard_library_is_refused(
    sealed_copy: Path, evaluation: Evaluation, tmp_path: Path
) -> None:
    stdlib = _stdlib()
    target = stdlib / "__pycache__" / "fractions.cpython-311.pyc"
    out = tmp_path / "results.json"
    line = refusal(evaluation.run(sealed_copy, out, prefix=_bound(_edited_fractions(stdlib, tmp_path), target)))
    assert line.startswith(f"ablation: closure: {target} is a mount (")
    assert line.endswith(f") over the closure: what it shows is not what was sealed; {_SYSTEM}")
    assert not out.exists()


@pytest.mark.usefixtures("namespace")
@pytest.mark.parametrize("where", ["ablation/__pycache__/gates.cpython-311.pyc", "ablation"])
def test_a_mount_over_or_inside_site_packages_is_refused(sealed_copy: Path, tmp_path: Path, where: str) -> None:
    target = site_of(sealed_copy) / where
    source = tmp_path / "source"  # the same bytes: only the mount itself is wrong
    if target.is_dir():
        shutil.copytree(target, source, symlinks=True)
    else:
        source.write_bytes(target.read_bytes())
    line = refusal(ablation(sealed_copy, "identity", prefix=_bound(source, target)))
    assert line.startswith(f"ablation: closure: {target} is a mount (")


@pytest.mark.usefixtures("namespace")
def test_a_mount_over_a_start_up_file_is_refused(sealed_copy: Path, tmp_path: Path) -> None:
    copy = tmp_path / "ld.so.cache"
    copy.write_bytes(Path("/etc/ld.so.cache").read_bytes())
    line = refusal(ablation(sealed_copy, "identity", prefix=_bound(copy, Path("/etc/ld.so.cache"))))
    assert line.startswith("ablation: closure: /etc/ld.so.cache is a mount (")


@pytest.mark.usefixtures("namespace")
def test_mounts_beside_the_closure_are_fine(
    sealed_copy: Path, clean_results: bytes, evaluation: Evaluation, tmp_path: Path
) -> None:
    (tmp_path / "data").mkdir()
    out = tmp_path / "results.json"
    script = f'mount -t tmpfs none /mnt && mount --bind "{tmp_path / "data"}" /srv && exec "$@"'
    completed = evaluation.run(sealed_copy, out, prefix=("unshare", "-m", "sh", "-c", script, "sh"))
    assert completed.returncode == 0, completed.stderr
    assert out.read_bytes() == clean_results


_DOCKER = """\
700 600 0:50 / / ro,relatime master:1 - overlay overlay ro,lowerdir=/l,upperdir=/u,workdir=/w
701 700 0:53 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw
702 700 0:54 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755
703 700 0:56 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro
704 700 254:0 /var/lib/docker/containers/x/resolv.conf /etc/resolv.conf rw,relatime - ext4 /dev/vda rw
705 700 254:0 /var/lib/docker/containers/x/hostname /etc/hostname rw,relatime - ext4 /dev/vda rw
706 700 254:0 /var/lib/docker/containers/x/hosts /etc/hosts rw,relatime - ext4 /dev/vda rw
707 700 254:0 /home/u/input.json /in/input.json ro,relatime - ext4 /dev/vda rw
708 700 254:0 /home/u/out /out rw,relatime - ext4 /dev/vda rw
709 701 0:53 /bus /proc/bus ro,relatime - proc proc rw
"""


def _image_layout() -> tuple[Layout, Manifest]:
    layout = Layout(
        prefix="/opt/ablation", site="/opt/ablation/lib/python3.11/site-packages", stdlib="/usr/lib/python3.11"
    )
    layers = {"package": {}, "dependencies": {}, "stdlib": {}, "interpreter": {"usr/bin/python3.11": "0" * 64}}
    return layout, Manifest(layers=layers, local={}, distributions=(), digest="")


def test_the_container_runtime_s_own_mounts_are_fine() -> None:
    assert mount_problems(_DOCKER, *_image_layout()) == []


@pytest.mark.parametrize(
    "point",
    [
        "/opt/ablation",
        "/opt/ablation/bin/ablation",
        "/usr/lib/python3.11/fractions.py",
        "/opt/ablation/lib/python3.11/site-packages/ablation",
        "/usr/bin/python3.11",
        "/etc/ld.so.preload",
        "/etc/ld.so.cache",
        "/usr/lib/python3.11/lib-dynload",
    ],
)
def test_a_mount_over_or_inside_the_image_s_closure_is_named(point: str) -> None:
    mountinfo = _DOCKER + f"710 700 254:0 /x {point.replace(' ', chr(92) + '040')} ro - ext4 /dev/vda rw\n"
    found = [p.render() for p in mount_problems(mountinfo, *_image_layout())]
    assert found == [f"{point} is a mount (ext4) over the closure: what it shows is not what was sealed"]
