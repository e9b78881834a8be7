"""Resource limits and bounded messages (issue 11 items 7 and 8).

Reads allocate what the data needs; memory or descriptors running out is exit 6
with one line; every stderr line is bounded. The address-space tests run the
command line in a subprocess under ``RLIMIT_AS`` (what ``ulimit -v`` sets).
"""

from __future__ import annotations

import errno
import hashlib
import io
import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import ablation.pipeline
from ablation.cli import main
from ablation.errors import InputRejected, IntegrityError
from ablation.pipeline import _read_bounded
from tests.builders import prepared
from tests.builders.paths import EXAMPLE, EXAMPLE_SHA256, ROOT

ROOMY = 400_000 * 1024  # `ulimit -v 400000`: what every command must run within on the example
TIGHT = 60_000 * 1024  # enough for the program on the example (shown below), too small for the M input's work
OUT_OF_MEMORY = (
    "ablation: resources exhausted: out of memory (allow the process more memory, or lower --max-input-bytes)"
)
MIB = 1 << 20


def _limited(limit: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


def _ablation(limit: int, *args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ablation", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        preexec_fn=_limited(limit),
        check=False,
    )


def _ok(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The example's results and bundle, each made under the roomy limit."""
    folder = tmp_path_factory.mktemp("example")
    results, bundle = folder / "results.json", folder / "bundle.tar.gz"
    _ok(_ablation(ROOMY, "run", "--input", EXAMPLE, "--input-sha256", EXAMPLE_SHA256, "--output", results))
    _ok(_ablation(ROOMY, "archive", "--input", EXAMPLE, "--results", results, "--bundle", bundle))
    return {"folder": folder, "results": results, "bundle": bundle}


def test_verify_run_and_archive_of_the_example_fit_in_400_mb(example: dict[str, Path], tmp_path: Path) -> None:
    proc = _ablation(ROOMY, "verify", "--input", EXAMPLE, "--input-sha256", EXAMPLE_SHA256)
    _ok(proc)
    assert proc.stdout.startswith(f"input sha256      {EXAMPLE_SHA256} (pinned: --input-sha256 given and matched)\n")
    proc = _ablation(
        ROOMY, "run", "--input", EXAMPLE, "--input-sha256", EXAMPLE_SHA256, "--output", tmp_path / "r.json"
    )
    _ok(proc)
    assert (tmp_path / "r.json").read_bytes() == example["results"].read_bytes()
    proc = _ablation(
        ROOMY, "archive", "--input", EXAMPLE, "--results", example["results"], "--bundle", tmp_path / "b.tgz"
    )
    _ok(proc)
    assert (tmp_path / "b.tgz").read_bytes() == example["bundle"].read_bytes()


def test_verify_archive_of_the_example_fits_in_400_mb(example: dict[str, Path]) -> None:
    _ok(_ablation(ROOMY, "verify-archive", example["bundle"]))


@pytest.fixture(scope="module")
def medium(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path | str]:
    """benchmarks/generate.py's M input (19 MB), its results and its bundle, made without a limit."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from generate import generate  # type: ignore[import-not-found]  # noqa: PLC0415 - benchmarks/ is not a package
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    folder = tmp_path_factory.mktemp("medium")
    data = generate("M")
    (folder / "M.json").write_bytes(data)
    results, bundle = folder / "M.results.json", folder / "M.bundle.tar.gz"
    _ok(_ablation(resource.RLIM_INFINITY, "run", "--input", folder / "M.json", "--output", results))
    _ok(
        _ablation(
            resource.RLIM_INFINITY, "archive", "--input", folder / "M.json", "--results", results, "--bundle", bundle
        )
    )
    return {
        "input": folder / "M.json",
        "sha256": hashlib.sha256(data).hexdigest(),
        "results": results,
        "bundle": bundle,
    }


def test_the_tight_limit_is_enough_for_the_program(tmp_path: Path, medium: dict[str, Path | str]) -> None:
    """What fails below is the work, not the interpreter: the example runs and archives under the same limit,
    and the M input itself is evaluated under the roomy one."""
    results = tmp_path / "r.json"
    _ok(_ablation(TIGHT, "run", "--input", EXAMPLE, "--input-sha256", EXAMPLE_SHA256, "--output", results))
    _ok(_ablation(TIGHT, "archive", "--input", EXAMPLE, "--results", results, "--bundle", tmp_path / "b.tgz"))
    _ok(
        _ablation(
            ROOMY,
            "run",
            "--input",
            medium["input"],
            "--input-sha256",
            medium["sha256"],
            "--output",
            tmp_path / "M.json",
        )
    )


@pytest.mark.parametrize("command", ["verify", "run", "archive", "verify-archive"])
def test_too_little_memory_is_exit_6_with_one_line(command: str, medium: dict[str, Path | str], tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    args: list[Path | str] = {
        "verify": ["--input", medium["input"], "--input-sha256", medium["sha256"]],
        "run": ["--input", medium["input"], "--input-sha256", medium["sha256"], "--output", out / "r.json"],
        "archive": ["--input", medium["input"], "--results", medium["results"], "--bundle", out / "b.tar.gz"],
        "verify-archive": [medium["bundle"]],
    }[command]
    proc = _ablation(TIGHT, command, *args)
    assert (proc.returncode, proc.stderr.splitlines()) == (6, [OUT_OF_MEMORY])
    assert list(out.iterdir()) == []  # nothing half-written, no temporary left


# ------------------------------------------------------------- in-process faults

DATA = prepared.dumps(prepared.valid_minimal())
SHA = hashlib.sha256(DATA).hexdigest()


def _raise(error: BaseException) -> Callable[..., object]:
    def fail(*_args: object, **_kwargs: object) -> object:
        raise error

    return fail


@pytest.mark.parametrize(
    ("error", "code", "line"),
    [
        (OSError(errno.EMFILE, os.strerror(errno.EMFILE)), 6, "Too many open files"),
        (OSError(errno.ENFILE, os.strerror(errno.ENFILE)), 6, "Too many open files in system"),
        (PermissionError(errno.EACCES, os.strerror(errno.EACCES)), 2, "Permission denied"),
    ],
    ids=["EMFILE", "ENFILE", "EACCES"],
)
def test_opening_the_input(
    error: OSError,
    code: int,
    line: str,
    prepared_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("ablation.files.os.open", _raise(error))
    assert main(["verify", "--input", str(prepared_file), "--input-sha256", SHA]) == code
    assert capsys.readouterr().err.splitlines() == [f"ablation: cannot read input {str(prepared_file)!r}: {line}"]


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (MemoryError(), OUT_OF_MEMORY),
        (OSError(errno.EMFILE, os.strerror(errno.EMFILE)), "ablation: resources exhausted: Too many open files"),
        (ImportError("libx.so: failed to map segment from shared object"), OUT_OF_MEMORY),
    ],
    ids=["MemoryError", "EMFILE", "loader"],
)
def test_exhaustion_anywhere_is_exit_6(
    error: BaseException,
    line: str,
    prepared_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(ablation.pipeline, "assess_gates", _raise(error))
    out = tmp_path / "out.json"
    assert main(["run", "--input", str(prepared_file), "--input-sha256", SHA, "--output", str(out)]) == 6
    assert capsys.readouterr().err.splitlines() == [line]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prepared.json"]


def test_other_import_errors_stay_bugs(prepared_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ablation.pipeline, "assess_gates", _raise(ImportError("no module named x")))
    with pytest.raises(ImportError):
        main(["run", "--input", str(prepared_file), "--output", str(prepared_file.with_name("o.json"))])


class _Recording(io.FileIO):
    """A file that records the size of every read."""

    sizes: list[int]

    def read(self, size: int | None = -1) -> bytes:
        self.sizes.append(-1 if size is None else size)
        return super().read(size)


def test_a_regular_file_is_read_in_one_piece_of_its_own_size(prepared_file: Path) -> None:
    with _Recording(prepared_file) as handle:
        handle.sizes = []
        assert _read_bounded(handle, 1 << 30) == DATA
    assert handle.sizes == [len(DATA) + 1, MIB]


def test_an_endless_file_is_read_in_pieces_up_to_the_bound() -> None:
    with _Recording("/dev/zero") as handle:
        handle.sizes = []
        assert _read_bounded(handle, 3 * MIB) is None
    assert handle.sizes == [1, MIB, MIB, MIB]


def test_a_regular_file_over_the_bound_is_not_read(prepared_file: Path) -> None:
    with _Recording(prepared_file) as handle:
        handle.sizes = []
        assert _read_bounded(handle, len(DATA) - 1) is None
        assert _read_bounded(handle, len(DATA)) == DATA
    assert handle.sizes == [len(DATA) + 1, 1]  # the second read only looks for one byte past the bound


def test_a_small_input_never_allocates_the_default_bound(prepared_file: Path) -> None:
    """1 GiB is the default bound: under a 200 MB address space a read of the bound would fail."""
    code = (
        f"import resource, sys; from ablation.pipeline import load_input; "
        f"resource.setrlimit(resource.RLIMIT_AS, (200 << 20, 200 << 20)); "
        f"print(load_input({str(prepared_file)!r}).sha256)"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert (proc.returncode, proc.stdout) == (0, SHA + "\n"), proc.stderr


# ------------------------------------------------------------- bounded lines


def test_a_64_mib_member_name_gives_a_short_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name = "x" * (64 * MIB)
    path = tmp_path / "big.json"
    path.write_bytes(b'{"' + name.encode() + b'": 1,' + DATA[1:])
    assert main(["verify", "--input", str(path)]) == 4
    line = capsys.readouterr().err.splitlines()[-1]
    found = f"unknown member '{name}'"
    assert line == (
        f'TOP-13 at "": expected an object with exactly the members protocol, repositories, cases; '
        f"found {found[:200]}… ({len(found)} characters)"
    )
    assert len(line) < 400


def test_a_long_free_form_message_keeps_its_head_and_its_reason() -> None:
    message = f"cannot read input '{'p' * 5000}': Permission denied"
    shown = str(IntegrityError(message))
    assert shown == f"{message[:800]} …({len(message) - 1000} characters cut)… {message[-200:]}"
    assert shown.endswith("': Permission denied")
    assert len(shown) < 1100


def test_a_long_pointer_keeps_both_ends() -> None:
    where = "/cases/0/" + "n" * 5000 + "/maxItems"
    shown = str(InputRejected("CASE-1", where, "e", "f"))
    assert (
        shown == f"CASE-1 at {where[:800]} …({len(where) - 1000} characters cut)… {where[-200:]}: expected e; found f"
    )
    deep = "/0" * 300  # a legitimate 256-level pointer is never cut
    assert str(InputRejected("TOP-11", deep, "e", "f")) == f"TOP-11 at {deep}: expected e; found f"
