"""The evidence bundle: determinism, refusals, the tamper suite, keys and signatures (issue 5).

Inputs come from the project's builder (SPEC §11.1's valid-minimal input, with
valid structural bundles); the realistic real-repository input is read from
``../shared``.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import stat
import subprocess
import sys
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ablation.bundle import layout, reader, sums, tarformat
from ablation.canonical import canonical_digest
from tests.builders import prepared
from tests.builders.paths import INPUTS, ROOT
from tests.builders.run import run_ablation

REALISTIC = INPUTS / "realistic.json.gz"

Member = tuple[tarfile.TarInfo, bytes | None]


def _extract(tar: tarfile.TarFile, info: tarfile.TarInfo) -> bytes:
    """The bytes of a file member."""
    handle = tar.extractfile(info)
    assert handle is not None
    return handle.read()


def _data(member: Member) -> bytes:
    """The bytes of a member known to be a file."""
    assert member[1] is not None
    return member[1]


@pytest.fixture(autouse=True)
def _no_source_date_epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A prepared input, its results file and extra evidence (one file, one folder)."""
    folder = tmp_path_factory.mktemp("run")
    (folder / "prepared.json").write_bytes(prepared.dumps(prepared.valid_minimal()))
    assert run_ablation("run", "--input", folder / "prepared.json", "--output", folder / "results.json") == 0
    (folder / "notes.txt").write_text("operator notes\n", encoding="utf-8")
    logs = folder / "logs"
    (logs / "b").mkdir(parents=True)
    (logs / "a.log").write_bytes(b"first\n")
    (logs / "b" / "c.log").write_bytes(b"\x00binary\xff")
    return folder


def _archive(run_dir: Path, bundle: Path, *extra: object) -> int:
    return run_ablation(
        "archive",
        "--input",
        run_dir / "prepared.json",
        "--results",
        run_dir / "results.json",
        "--bundle",
        bundle,
        "--evidence",
        run_dir / "notes.txt",
        "--evidence",
        run_dir / "logs",
        *extra,
    )


@pytest.fixture(scope="session")
def bundle(run_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bundle") / "bundle.tar.gz"
    os.environ.pop("SOURCE_DATE_EPOCH", None)
    assert _archive(run_dir, path) == 0
    return path


@pytest.fixture(scope="session")
def keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(private key, its public key, an unrelated public key)."""
    folder = tmp_path_factory.mktemp("keys")
    assert run_ablation("keygen", "--private-key", folder / "k.pem", "--public-key", folder / "k.pub") == 0
    assert run_ablation("keygen", "--private-key", folder / "other.pem", "--public-key", folder / "other.pub") == 0
    return folder / "k.pem", folder / "k.pub", folder / "other.pub"


@pytest.fixture(scope="session")
def signed_bundle(run_dir: Path, keys: tuple[Path, Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("signed") / "signed.tar.gz"
    assert _archive(run_dir, path, "--sign-key", keys[0]) == 0
    return path


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ------------------------------------------------------------------ the bundle


def test_archive_writes_the_layout_of_product_md(bundle: Path, run_dir: Path) -> None:
    top = layout.top_folder(hashlib.sha256((run_dir / "prepared.json").read_bytes()).hexdigest())
    with tarfile.open(bundle, "r:gz") as tar:
        names = tar.getnames()
        files = {m.name[len(top) + 1 :]: _extract(tar, m) for m in tar if m.isfile()}
    assert names[0] == top
    assert files["input/prepared.json"] == (run_dir / "prepared.json").read_bytes()
    assert files["results.json"] == (run_dir / "results.json").read_bytes()
    assert files["extra/notes.txt"] == b"operator notes\n"
    assert files["extra/logs/a.log"] == b"first\n"
    assert files["extra/logs/b/c.log"] == b"\x00binary\xff"
    document = json.loads(files["input/prepared.json"])
    raw = document["cases"][0]["structuralEvidence"]["executionObservation"]["rawEvidence"]
    assert files["evidence/cases/0000/sci-request.json"] == raw["requestJson"].encode()
    assert files["evidence/cases/0000/sci-receipt.json"] == raw["receiptJson"].encode()
    assert files["evidence/cases/0000/sci-stdout.txt"] == raw["stdout"].encode()
    assert files["evidence/cases/0000/sci-stderr.txt"] == raw["stderr"].encode()
    assert files["evidence/repositories/0000/source-list.json"] == (
        document["repositories"][0]["sourceListArtifact"]["rawJson"].encode()
    )
    index = json.loads(files["evidence/index.json"])
    assert index["cases"][9]["folder"] == "evidence/cases/0009"
    assert index["cases"][9]["caseId"] == document["cases"][9]["id"]
    assert index["summary"]["casesWithExtractedSciEvidence"] == len(document["cases"])
    sums = files["SHA256SUMS"].decode().splitlines()
    listed = [line.split("  ", 1)[1] for line in sums]
    assert listed == sorted(set(files) - {"SHA256SUMS"}, key=lambda p: p.encode())
    for line in sums:
        digest, path = line.split("  ", 1)
        assert hashlib.sha256(files[path]).hexdigest() == digest
    assert json.loads(files["identity.json"])["identityDigest"].startswith("sha256:")


def test_archive_headers_are_deterministic(bundle: Path) -> None:
    data = bundle.read_bytes()
    assert data[:4] == b"\x1f\x8b\x08\x00"  # gzip, deflate, no FNAME/FEXTRA/FCOMMENT flags
    assert data[4:8] == b"\0\0\0\0"  # gzip mtime 0
    with tarfile.open(bundle, "r:gz") as tar:
        members = tar.getmembers()
        assert not tar.pax_headers
    names = [m.name for m in members]
    assert names == sorted(names, key=lambda n: n.encode())
    for m in members:
        assert (m.mtime, m.uid, m.gid, m.uname, m.gname) == (0, 0, 0, "", "")
        assert not m.pax_headers
        assert (m.isdir() and m.mode == 0o755) or (m.isfile() and m.mode == 0o644)
    folders = {m.name for m in members if m.isdir()}
    for m in members:
        if m.isfile():
            assert m.name.rsplit("/", 1)[0] in folders


def test_archive_twice_gives_the_same_bytes(bundle: Path, run_dir: Path, tmp_path: Path) -> None:
    again = tmp_path / "again.tar.gz"
    assert _archive(run_dir, again) == 0
    assert _sha(again) == _sha(bundle)


def _archive_in_subprocess(run_dir: Path, cwd: Path, umask: int) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``python -m ablation archive`` from ``cwd`` with relative paths, under ``umask``.

    A separate process each time: an unsealed checkout measures the identity
    (bundled as identity.json) from the files the process has loaded, so a
    bundle made inside pytest is not comparable with one made by the CLI.
    """
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    env["PYTHONPATH"] = str(ROOT)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    relative = os.path.relpath(run_dir, cwd)
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "ablation",
            "archive",
            "--input",
            f"{relative}/prepared.json",
            "--results",
            f"{relative}/results.json",
            "--bundle",
            "out.tar.gz",
            "--evidence",
            f"{relative}/notes.txt",
            "--evidence",
            f"{relative}/logs/",
        ],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=lambda: os.umask(umask),
    )
    return completed, cwd / "out.tar.gz"


def test_archive_is_independent_of_cwd_and_umask(run_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "here").mkdir()
    (tmp_path / "elsewhere" / "deeper").mkdir(parents=True)
    reference, expected = _archive_in_subprocess(run_dir, tmp_path / "here", 0o022)
    completed, made = _archive_in_subprocess(run_dir, tmp_path / "elsewhere" / "deeper", 0o077)
    assert reference.returncode == 0, reference.stderr
    assert completed.returncode == 0, completed.stderr
    assert _sha(made) == _sha(expected)
    assert completed.stdout == f"{_sha(expected)}  out.tar.gz\n"


def test_source_date_epoch_sets_every_mtime(
    run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    path = tmp_path / "dated.tar.gz"
    assert _archive(run_dir, path) == 0
    with tarfile.open(path, "r:gz") as tar:
        assert {m.mtime for m in tar} == {1700000000}
    assert run_ablation("verify-archive", path) == 0
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    capsys.readouterr()
    assert _archive(run_dir, tmp_path / "bad.tar.gz") == 2
    assert "SOURCE_DATE_EPOCH" in capsys.readouterr().err


def test_untouched_bundle_verifies(bundle: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_ablation("verify-archive", bundle) == 0
    out = capsys.readouterr().out
    assert f"bundle sha256          {_sha(bundle)}" in out
    assert "result and gateAssessment recomputed here equal results.json byte-for-byte" in out
    assert "identity: identity.json equals the current evaluator identity" in out
    assert "signature: none" in out


# ------------------------------------------------------------------- refusals


def test_archive_refuses_an_existing_bundle(bundle: Path, run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _sha(bundle)
    assert _archive(run_dir, bundle) == 5
    assert "already exists" in capsys.readouterr().err
    assert _sha(bundle) == before


def test_archive_refuses_results_of_another_input(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    results["inputSha256"] = "0" * 64
    other = tmp_path / "other-results.json"
    other.write_text(json.dumps(results), encoding="utf-8")
    code = run_ablation(
        "archive", "--input", run_dir / "prepared.json", "--results", other, "--bundle", tmp_path / "b.tar.gz"
    )
    assert code == 3
    assert "inputSha256 0000" in capsys.readouterr().err
    assert not (tmp_path / "b.tar.gz").exists()


def test_archive_refuses_results_that_differ_from_the_recomputation(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (run_dir / "results.json").read_text(encoding="utf-8")
    assert '"numericGatesPassed": false' in text
    changed = tmp_path / "changed.json"
    changed.write_text(text.replace('"numericGatesPassed": false', '"numericGatesPassed": true'), encoding="utf-8")
    code = run_ablation(
        "archive", "--input", run_dir / "prepared.json", "--results", changed, "--bundle", tmp_path / "b.tar.gz"
    )
    assert code == 3
    assert (
        "gateAssessment differs from the recomputation at /gateAssessment/numericGatesPassed" in capsys.readouterr().err
    )


def test_archive_refuses_an_input_that_does_not_validate(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = (run_dir / "prepared.json").read_bytes().replace(b'"protocol": "pi-', b'"protocol": "xx-', 1)
    (tmp_path / "broken.json").write_bytes(broken)
    results = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    results["inputSha256"] = hashlib.sha256(broken).hexdigest()
    (tmp_path / "results.json").write_text(json.dumps(results), encoding="utf-8")
    code = run_ablation(
        "archive",
        "--input",
        tmp_path / "broken.json",
        "--results",
        tmp_path / "results.json",
        "--bundle",
        tmp_path / "b.tar.gz",
    )
    assert code == 4
    assert "TOP-14" in capsys.readouterr().err


def test_archive_refuses_an_unreadable_evidence_path(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_ablation(
        "archive",
        "--input",
        run_dir / "prepared.json",
        "--results",
        run_dir / "results.json",
        "--bundle",
        tmp_path / "b.tar.gz",
        "--evidence",
        tmp_path / "missing",
    )
    assert code == 2
    assert "does not exist" in capsys.readouterr().err


def test_archive_refuses_symlinks_inside_an_evidence_folder(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "ev"
    folder.mkdir()
    (folder / "link").symlink_to("/etc/hostname")
    code = run_ablation(
        "archive",
        "--input",
        run_dir / "prepared.json",
        "--results",
        run_dir / "results.json",
        "--bundle",
        tmp_path / "b.tar.gz",
        "--evidence",
        folder,
    )
    assert code == 2
    assert "symbolic link 'link'" in capsys.readouterr().err


def test_archive_refuses_a_symlink_given_as_evidence(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "to-file").symlink_to(run_dir / "notes.txt")
    (tmp_path / "to-folder").symlink_to(run_dir / "logs", target_is_directory=True)
    for given in (tmp_path / "to-file", tmp_path / "to-folder", f"{tmp_path / 'to-folder'}/"):
        capsys.readouterr()
        code = run_ablation(
            "archive",
            "--input",
            run_dir / "prepared.json",
            "--results",
            run_dir / "results.json",
            "--bundle",
            tmp_path / "b.tar.gz",
            "--evidence",
            given,
        )
        assert code == 2
        err = capsys.readouterr().err
        assert f"--evidence {str(given)!r} is a symbolic link" in err
        assert err.count("\n") == 1
    assert not (tmp_path / "b.tar.gz").exists()


# Line breaks to str.splitlines that are not C0 controls, so archive accepts them in names.
UNICODE_LINE_BREAKS = ("\u0085", "\u2028", "\u2029")


def test_names_with_unicode_line_breaks_archive_and_verify(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    given = tmp_path / "in\u0085put\u2028.json"
    given.write_bytes((run_dir / "prepared.json").read_bytes())
    (tmp_path / "a\u2028b.txt").write_bytes(b"x")
    (tmp_path / "c\u2029").write_bytes(b"y")
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "d\u0085e").write_bytes(b"z")
    code = run_ablation(
        "archive",
        "--input",
        given,
        "--results",
        run_dir / "results.json",
        "--bundle",
        tmp_path / "b.tar.gz",
        "--evidence",
        tmp_path / "a\u2028b.txt",
        "--evidence",
        tmp_path / "c\u2029",
        "--evidence",
        tmp_path / "folder",
    )
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()
    assert run_ablation("verify-archive", tmp_path / "b.tar.gz") == 0, capsys.readouterr().err
    members = _read_members(tmp_path / "b.tar.gz")
    sums = _data(members[_find(members, "SHA256SUMS")]).decode()
    for name in ("input/in\u0085put\u2028.json", "extra/a\u2028b.txt", "extra/c\u2029", "extra/folder/d\u0085e"):
        assert f"  {name}\n" in sums


@pytest.mark.parametrize("char", UNICODE_LINE_BREAKS)
def test_sums_lines_split_on_newline_only(char: str) -> None:
    files = {f"extra/a{char}b": b"x", "results.json": b"{}"}
    assert sums.parse_sums(sums.render_sums(files), "SHA256SUMS") == {
        name: hashlib.sha256(data).hexdigest() for name, data in files.items()
    }


@pytest.mark.parametrize("name", ["a\nb", "a\rb", "a\\b"], ids=["newline", "carriage-return", "backslash"])
def test_names_a_sums_line_cannot_hold_are_refused_at_archive_time(
    name: str, run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / name).write_bytes(b"x")
    capsys.readouterr()
    code = run_ablation(
        "archive",
        "--input",
        run_dir / "prepared.json",
        "--results",
        run_dir / "results.json",
        "--bundle",
        tmp_path / "b.tar.gz",
        "--evidence",
        tmp_path / name,
    )
    assert code == 2
    err = capsys.readouterr().err
    assert f"evidence file {name!r} holds a control character, a backslash" in err
    assert err.count("\n") == 1
    assert not (tmp_path / "b.tar.gz").exists()


# ----------------------------------------------------------------- tamper suite


def _read_members(path: Path) -> list[Member]:
    with tarfile.open(path, "r:gz") as tar:
        return [(m, _extract(tar, m) if m.isfile() else None) for m in tar]


def _write_members(path: Path, members: list[Member]) -> None:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    path.write_bytes(tarformat.compress([raw.getvalue()]))


def _top(members: list[Member]) -> str:
    return members[0][0].name


def _find(members: list[Member], rel: str) -> int:
    top = _top(members)
    for k, (info, _) in enumerate(members):
        if info.name == f"{top}/{rel}":
            return k
    raise AssertionError(rel)


def _flip(data: bytes) -> bytes:
    middle = len(data) // 2
    return data[:middle] + bytes([data[middle] ^ 0x01]) + data[middle + 1 :]


def _changed_byte(rel: str) -> Callable[[list[Member]], None]:
    def tamper(members: list[Member]) -> None:
        k = _find(members, rel)
        members[k] = (members[k][0], _flip(_data(members[k])))

    return tamper


def _set_sums(members: list[Member], rel: str, data: bytes) -> None:
    """Replace ``rel``'s content and its SHA256SUMS line, as a careful forger would."""
    k = _find(members, rel)
    members[k] = (members[k][0], data)
    s = _find(members, "SHA256SUMS")
    lines = []
    for line in _data(members[s]).decode().splitlines():
        digest, path = line.split("  ", 1)
        lines.append(f"{hashlib.sha256(data).hexdigest() if path == rel else digest}  {path}")
    members[s] = (members[s][0], ("\n".join(lines) + "\n").encode())


def _consistent(rel: str, change: Callable[[bytes], bytes]) -> Callable[[list[Member]], None]:
    def tamper(members: list[Member]) -> None:
        _set_sums(members, rel, change(_data(members[_find(members, rel)])))

    return tamper


def _sums_line(members: list[Member]) -> None:
    s = _find(members, "SHA256SUMS")
    lines = _data(members[s]).decode().splitlines()
    digest, path = lines[0].split("  ", 1)
    lines[0] = f"{'0' if digest[0] != '0' else '1'}{digest[1:]}  {path}"
    members[s] = (members[s][0], ("\n".join(lines) + "\n").encode())


def _missing(members: list[Member]) -> None:
    del members[_find(members, "extra/notes.txt")]


def _extra_file(members: list[Member]) -> None:
    info = tarfile.TarInfo(f"{_top(members)}/extra/smuggled.txt")
    members.insert(_find(members, "extra/notes.txt"), (info, b"not listed\n"))


def _renamed(members: list[Member]) -> None:
    k = _find(members, "extra/notes.txt")
    members[k][0].name = f"{_top(members)}/extra/renamed.txt"


def _special(kind: bytes, name: str = "extra/special", linkname: str = "") -> Callable[[list[Member]], None]:
    def tamper(members: list[Member]) -> None:
        info = tarfile.TarInfo(f"{_top(members)}/{name}")
        info.type = kind
        info.linkname = linkname
        members.append((info, None))

    return tamper


def _named(name: Callable[[str], str]) -> Callable[[list[Member]], None]:
    def tamper(members: list[Member]) -> None:
        members.append((tarfile.TarInfo(name(_top(members))), b"x\n"))

    return tamper


def _no_top_entry(members: list[Member]) -> None:
    del members[0]


def _duplicate(members: list[Member]) -> None:
    k = _find(members, "results.json")
    members.append((members[k][0], members[k][1]))


def _results_metric(data: bytes) -> bytes:
    text = data.decode()
    assert '"hits": ' in text
    return text.replace('"hits": ', '"hits": 1', 1).encode()


TAMPERS: dict[str, tuple[Callable[[list[Member]], None], str]] = {
    "input byte": (_changed_byte("input/prepared.json"), "input/prepared.json: sha256"),
    "results byte": (_changed_byte("results.json"), "results.json: sha256"),
    "identity byte": (_changed_byte("identity.json"), "identity.json: sha256"),
    "index byte": (_changed_byte("evidence/index.json"), "evidence/index.json: sha256"),
    "source-list evidence byte": (
        _changed_byte("evidence/repositories/0000/source-list.json"),
        "evidence/repositories/0000/source-list.json: sha256",
    ),
    "git evidence byte": (
        _changed_byte("evidence/repositories/0000/git-ls-files-stage.bin"),
        "evidence/repositories/0000/git-ls-files-stage.bin: sha256",
    ),
    "sci receipt byte": (
        _changed_byte("evidence/cases/0003/sci-receipt.json"),
        "evidence/cases/0003/sci-receipt.json: sha256",
    ),
    "extra file byte": (_changed_byte("extra/logs/a.log"), "extra/logs/a.log: sha256"),
    "SHA256SUMS line": (_sums_line, "does not match SHA256SUMS"),
    "SHA256SUMS byte": (_changed_byte("SHA256SUMS"), "SHA256SUMS"),
    "missing file": (_missing, "extra/notes.txt: listed in SHA256SUMS but missing"),
    "extra file": (_extra_file, "extra/smuggled.txt: in the bundle but not listed in SHA256SUMS"),
    "renamed file": (_renamed, "extra/renamed.txt: in the bundle but not listed in SHA256SUMS"),
    "symlink member": (_special(tarfile.SYMTYPE, linkname="/etc/passwd"), "extra/special: a symbolic link"),
    "hard link member": (_special(tarfile.LNKTYPE, linkname="x"), "extra/special: a hard link"),
    "device member": (_special(tarfile.CHRTYPE), "extra/special: a character device"),
    "fifo member": (_special(tarfile.FIFOTYPE), "extra/special: a fifo"),
    "dot-dot name": (_named(lambda top: f"{top}/../escape.txt"), "/../escape.txt: a member name with a '..' segment"),
    "leading dot-dot name": (_named(lambda top: "../escape.txt"), "../escape.txt: a member name with a '..' segment"),
    "absolute name": (_named(lambda top: "/etc/escape.txt"), "/etc/escape.txt: an absolute member name"),
    "outside the top folder": (_named(lambda top: "elsewhere.txt"), "elsewhere.txt: outside the single top folder"),
    "duplicate name": (_duplicate, "results.json: duplicate member name"),
    "no top folder entry": (_no_top_entry, ": the top folder has no folder entry"),
    "evidence file with its sum": (
        _consistent("evidence/cases/0002/sci-stdout.txt", _flip),
        "evidence/cases/0002/sci-stdout.txt: differs from /cases/2/structuralEvidence",
    ),
    "index with its sum": (
        _consistent("evidence/index.json", lambda d: d.replace(b'"dspx"', b'"dspy"') + b" "),
        "evidence/index.json: differs from the index derived",
    ),
    "results with its sum": (
        _consistent("results.json", _results_metric),
        "results.json: result differs from the recomputation at /result/cases/0/arms/paths/metrics/hits",
    ),
    "input with its sum": (_consistent("input/prepared.json", lambda d: d + b"\n"), "results.json: inputSha256"),
}


@pytest.mark.parametrize("name", list(TAMPERS), ids=list(TAMPERS))
def test_tampered_bundle_fails_naming_the_member(
    name: str, bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tamper, expected = TAMPERS[name]
    members = _read_members(bundle)
    tamper(members)
    path = tmp_path / "tampered.tar.gz"
    _write_members(path, members)
    capsys.readouterr()
    assert run_ablation("verify-archive", path) == 3
    err = capsys.readouterr().err
    assert err.startswith("ablation: ")
    assert expected in err, err
    assert err.count("\n") == 1


def _deep(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def _in_evaluator(text: bytes) -> Callable[[bytes], bytes]:
    return lambda d: d.replace(b'"evaluator": {', b'"evaluator": {"x": ' + text + b", ", 1)


def _results_edit(change: Callable[[dict[str, Any]], object]) -> Callable[[bytes], bytes]:
    def edit(data: bytes) -> bytes:
        value = json.loads(data)
        change(value)
        return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode()

    return edit


def _identity_edit(change: Callable[[dict[str, Any]], object]) -> Callable[[bytes], bytes]:
    return _results_edit(change)


def _with_gzip_sha(results: dict[str, Any]) -> None:
    items = list(results.items())
    results.clear()
    results.update([*items[:1], ("inputGzipSha256", "f" * 64), *items[1:]])


# Every way results.json / identity.json can be malformed or inconsistent: exit 3, one line naming the member.
MALFORMED: dict[str, tuple[str, Callable[[bytes], bytes], str]] = {
    "results nested 100 000 deep": (
        "results.json",
        _in_evaluator(_deep(100_000)),
        "results.json: containers nested deeper than 256 levels",
    ),
    "results nested 900 deep": (
        "results.json",
        _in_evaluator(_deep(900)),
        "results.json: containers nested deeper than 256 levels",
    ),
    "identity nested 100 000 deep": (
        "identity.json",
        lambda d: b'{"x": ' + _deep(100_000) + b"}",
        "identity.json: containers nested deeper than 256 levels",
    ),
    "results not JSON": ("results.json", lambda d: d[:-3], "results.json: not JSON ("),
    "results not UTF-8": ("results.json", lambda d: b"\xff" + d, "results.json: not UTF-8 text (byte 0)"),
    "results NaN": (
        "results.json",
        lambda d: d.replace(b'"inputSha256Pinned": false', b'"inputSha256Pinned": NaN'),
        "results.json: holds NaN, which is not JSON",
    ),
    "results 1e400": (
        "results.json",
        lambda d: d.replace(b'"inputSha256Pinned": false', b'"inputSha256Pinned": 1e400'),
        "results.json: holds the number 1e400, too large for a double",
    ),
    "results 5000-digit integer": (
        "results.json",
        lambda d: d.replace(b'"inputSha256Pinned": false', b'"inputSha256Pinned": ' + b"9" * 5000),
        "results.json: holds an integer of 5000 digits",
    ),
    "results duplicate member": (
        "results.json",
        lambda d: d.replace(b'"inputSha256Pinned": false', b'"inputSha256Pinned": true, "inputSha256Pinned": false'),
        'results.json: holds an object with the member "inputSha256Pinned" twice',
    ),
    "results lone surrogate": (
        "results.json",
        _in_evaluator(b'"\\udc00"'),
        "results.json: a string holds a lone surrogate",
    ),
    "results array": (
        "results.json",
        lambda d: b"[]\n",
        "results.json: not an ablation results file: an array, not an object",
    ),
    "results without result": (
        "results.json",
        _results_edit(lambda r: r.pop("result")),
        "results.json: not an ablation results file: it has no 'result' member",
    ),
    "results unknown member": (
        "results.json",
        _results_edit(lambda r: r.update(extra=1)),
        'results.json: not an ablation results file: it has the member "extra"',
    ),
    "results inputSha256 a number": (
        "results.json",
        _results_edit(lambda r: r.update(inputSha256=5)),
        "results.json: not an ablation results file: /inputSha256 is a number",
    ),
    "results pinned a string": (
        "results.json",
        _results_edit(lambda r: r.update(inputSha256Pinned="no")),
        "results.json: not an ablation results file: /inputSha256Pinned is a string, not a boolean",
    ),
    "results evaluator null": (
        "results.json",
        _results_edit(lambda r: r.update(evaluator=None)),
        "results.json: /evaluator is null, not an evaluator identity object",
    ),
    "results evaluator array": (
        "results.json",
        _results_edit(lambda r: r.update(evaluator=[])),
        "results.json: /evaluator is an array, not an evaluator identity object",
    ),
    "results evaluator digest faked": (
        "results.json",
        _results_edit(lambda r: r["evaluator"].update(identityDigest="sha256:" + "0" * 64)),
        f"results.json: /evaluator/identityDigest sha256:{'0' * 64} is not the canonical digest sha256:",
    ),
    "results evaluator measured changed": (
        "results.json",
        _results_edit(lambda r: r["evaluator"]["measured"].update(x=1)),
        "of /evaluator/measured",
    ),
    "results gzip hash for a plain input": (
        "results.json",
        _results_edit(_with_gzip_sha),
        f"results.json: has inputGzipSha256 {'f' * 64}, but input/prepared.json is not a .gz file",
    ),
    "identity array": ("identity.json", lambda d: b"[]\n", "identity.json: an array, not an evaluator identity object"),
    "identity not UTF-8": ("identity.json", lambda d: b"\xff", "identity.json: not UTF-8 text"),
    "identity NaN": ("identity.json", lambda d: b'{"a": NaN}', "identity.json: holds NaN"),
    "identity measured null": (
        "identity.json",
        _identity_edit(lambda i: i.update(measured=None)),
        "identity.json: /measured is null, not an object",
    ),
    "identity digest a number": (
        "identity.json",
        _identity_edit(lambda i: i.update(identityDigest=5)),
        "identity.json: /identityDigest is a number, not a string",
    ),
    "identity digest faked": (
        "identity.json",
        _identity_edit(lambda i: i.update(identityDigest="sha256:" + "1" * 64)),
        f"identity.json: /identityDigest sha256:{'1' * 64} is not the canonical digest",
    ),
}


@pytest.mark.parametrize("name", list(MALFORMED), ids=list(MALFORMED))
def test_malformed_results_or_identity_fail_on_one_line(
    name: str, bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rel, change, expected = MALFORMED[name]
    members = _read_members(bundle)
    _consistent(rel, change)(members)
    path = tmp_path / "malformed.tar.gz"
    _write_members(path, members)
    capsys.readouterr()
    assert run_ablation("verify-archive", path) == 3
    err = capsys.readouterr().err
    assert err.startswith("ablation: ablation-bundle-"), err
    assert expected in err, err
    assert err.count("\n") == 1


def test_gz_input_needs_its_gzip_hash_in_the_results(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gz = tmp_path / "prepared.json.gz"
    gz.write_bytes(gzip.compress((run_dir / "prepared.json").read_bytes(), mtime=0))
    assert run_ablation("run", "--input", gz, "--output", tmp_path / "gz-results.json") == 0
    assert (
        run_ablation(
            "archive", "--input", gz, "--results", tmp_path / "gz-results.json", "--bundle", tmp_path / "gz.tar.gz"
        )
        == 0
    )
    assert run_ablation("verify-archive", tmp_path / "gz.tar.gz") == 0
    members = _read_members(tmp_path / "gz.tar.gz")
    _consistent("results.json", _results_edit(lambda r: r.pop("inputGzipSha256")))(members)
    _write_members(tmp_path / "no-gzip-hash.tar.gz", members)
    members = _read_members(tmp_path / "gz.tar.gz")
    _consistent("results.json", _results_edit(lambda r: r.update(inputGzipSha256="e" * 64)))(members)
    _write_members(tmp_path / "other-gzip-hash.tar.gz", members)
    capsys.readouterr()
    assert run_ablation("verify-archive", tmp_path / "no-gzip-hash.tar.gz") == 3
    assert "results.json: has no inputGzipSha256, but input/prepared.json.gz is a .gz file" in capsys.readouterr().err
    assert run_ablation("verify-archive", tmp_path / "other-gzip-hash.tar.gz") == 3
    assert f"results.json: inputGzipSha256 {'e' * 64} is not the SHA-256 " in capsys.readouterr().err
    # archive refuses the same mismatches before writing anything
    code = run_ablation(
        "archive", "--input", gz, "--results", run_dir / "results.json", "--bundle", tmp_path / "x.tar.gz"
    )
    assert code == 3
    assert "has no inputGzipSha256, but input" in capsys.readouterr().err
    code = run_ablation(
        "archive",
        "--input",
        run_dir / "prepared.json",
        "--results",
        tmp_path / "gz-results.json",
        "--bundle",
        tmp_path / "y.tar.gz",
    )
    assert code == 3
    assert "has inputGzipSha256" in capsys.readouterr().err
    assert not (tmp_path / "x.tar.gz").exists()
    assert not (tmp_path / "y.tar.gz").exists()


@pytest.mark.parametrize(
    ("change", "code", "expected"),
    [
        (
            lambda d: d.replace(b'"evaluator": {', b'"evaluator": {"x": ' + _deep(100_000) + b", ", 1),
            2,
            "containers nested deeper than 256 levels",
        ),
        (lambda d: d[:10], 2, "not JSON ("),
        (lambda d: b"{}", 2, "not an ablation results file: it has no 'inputSha256' member"),
        (
            _results_edit(lambda r: r["evaluator"].update(identityDigest="sha256:" + "0" * 64)),
            3,
            "/evaluator/identityDigest sha256:0000",
        ),
    ],
    ids=["deep", "not-json", "empty-object", "evaluator-digest"],
)
def test_archive_refuses_a_malformed_results_file(
    change: Callable[[bytes], bytes],
    code: int,
    expected: str,
    run_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    results = tmp_path / "results.json"
    results.write_bytes(change((run_dir / "results.json").read_bytes()))
    capsys.readouterr()
    assert (
        run_ablation(
            "archive", "--input", run_dir / "prepared.json", "--results", results, "--bundle", tmp_path / "b.tar.gz"
        )
        == code
    )
    err = capsys.readouterr().err
    assert f"ablation: results file {str(results)!r}: " in err
    assert expected in err, err
    assert err.count("\n") == 1
    assert not (tmp_path / "b.tar.gz").exists()


def test_notes_checks_the_bundled_input_hashes(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    members = _read_members(bundle)
    _consistent("results.json", _results_edit(_with_gzip_sha))(members)
    path = tmp_path / "gzip-hash-added.tar.gz"
    _write_members(path, members)
    results = tmp_path / "results.json"
    results.write_bytes(_data(members[_find(members, "results.json")]))
    capsys.readouterr()
    assert run_ablation("notes", "--results", results, "--bundle", path) == 3
    err = capsys.readouterr().err
    assert f"results.json: has inputGzipSha256 {'f' * 64}, but input/prepared.json is not a .gz file" in err
    assert err.count("\n") == 1


def test_rewritten_but_untouched_bundle_still_verifies(bundle: Path, tmp_path: Path) -> None:
    """The tamper helper itself changes nothing that verification cares about."""
    path = tmp_path / "rewritten.tar.gz"
    _write_members(path, _read_members(bundle))
    assert run_ablation("verify-archive", path) == 0


def test_changed_identity_is_reported_not_an_error(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    members = _read_members(bundle)
    identity = json.loads(_data(members[_find(members, "identity.json")]))
    identity["measured"]["platform"]["machine"] = "pdp-11"
    identity["identityDigest"] = canonical_digest(identity["measured"])  # another identity, self-consistent
    _set_sums(members, "identity.json", (json.dumps(identity, indent=2) + "\n").encode())
    path = tmp_path / "other-identity.tar.gz"
    _write_members(path, members)
    capsys.readouterr()
    assert run_ablation("verify-archive", path) == 0
    out = capsys.readouterr().out
    assert "identity: identity.json DIFFERS from the current evaluator identity at /measured/platform/machine" in out


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"not gzip at all", "bundle: not a readable gzip stream"),
        (gzip.compress(b"not a tar archive" * 100, mtime=0), "bundle: "),
        (b"", "bundle: "),
    ],
    ids=["not-gzip", "not-tar", "empty-file"],
)
def test_unreadable_bundle_fails_with_integrity_error(
    data: bytes, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "junk.tar.gz"
    path.write_bytes(data)
    assert run_ablation("verify-archive", path) == 3
    assert expected in capsys.readouterr().err


def test_truncated_bundle_fails(bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = gzip.decompress(bundle.read_bytes())
    path = tmp_path / "truncated.tar.gz"
    path.write_bytes(tarformat.compress([raw[: len(raw) // 2]]))
    assert run_ablation("verify-archive", path) == 3
    assert "ablation: " in capsys.readouterr().err


def test_appended_garbage_after_the_tar_fails(bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = gzip.decompress(bundle.read_bytes())
    path = tmp_path / "appended.tar.gz"
    path.write_bytes(tarformat.compress([raw + b"garbage" + b"\0" * 505]))
    assert run_ablation("verify-archive", path) == 3
    assert "not a tar header" in capsys.readouterr().err


def test_oversize_member_is_rejected_before_reading(
    monkeypatch: pytest.MonkeyPatch, bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(reader, "MAX_MEMBER_BYTES", 100)
    assert run_ablation("verify-archive", bundle) == 3
    assert "over the 1 GiB member limit" in capsys.readouterr().err


def test_verify_archive_missing_file_is_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_ablation("verify-archive", tmp_path / "nope.tar.gz") == 2
    assert "cannot read bundle" in capsys.readouterr().err


# ------------------------------------------------------------ keys, signatures


def test_keygen_writes_pem_files_and_refuses_existing(
    keys: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    private, public, _ = keys
    assert private.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----\n")
    assert public.read_bytes().startswith(b"-----BEGIN PUBLIC KEY-----\n")
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    before = private.read_bytes()
    assert run_ablation("keygen", "--private-key", private, "--public-key", tmp_path / "new.pub") == 5
    assert private.read_bytes() == before
    assert not (tmp_path / "new.pub").exists()
    assert "already exists" in capsys.readouterr().err
    assert run_ablation("keygen", "--private-key", tmp_path / "new.pem", "--public-key", public) == 5
    assert not (tmp_path / "new.pem").exists()


def test_signed_bundle_verifies_with_its_key(
    signed_bundle: Path, keys: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    with tarfile.open(signed_bundle, "r:gz") as tar:
        sig = [m for m in tar if m.name.endswith("/SHA256SUMS.sig")]
    assert len(sig) == 1
    assert sig[0].size == 64
    capsys.readouterr()
    assert run_ablation("verify-archive", signed_bundle, "--public-key", keys[1]) == 0
    assert "signature: SHA256SUMS.sig verified with public key sha256:" in capsys.readouterr().out


def test_signed_bundle_without_key_is_reported_unchecked(
    signed_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_ablation("verify-archive", signed_bundle) == 0
    assert "SHA256SUMS.sig present but NOT checked" in capsys.readouterr().out


def test_signed_bundle_fails_with_another_key(
    signed_bundle: Path, keys: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_ablation("verify-archive", signed_bundle, "--public-key", keys[2]) == 3
    assert "SHA256SUMS.sig: not a valid signature over SHA256SUMS" in capsys.readouterr().err


def test_signature_over_other_content_fails(
    signed_bundle: Path, keys: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = serialization.load_pem_private_key(keys[0].read_bytes(), password=None)
    assert isinstance(key, Ed25519PrivateKey)
    members = _read_members(signed_bundle)
    k = _find(members, "SHA256SUMS.sig")
    members[k] = (members[k][0], key.sign(b"some other SHA256SUMS\n"))
    path = tmp_path / "resigned.tar.gz"
    _write_members(path, members)
    capsys.readouterr()
    assert run_ablation("verify-archive", path, "--public-key", keys[1]) == 3
    assert "SHA256SUMS.sig: not a valid signature over SHA256SUMS" in capsys.readouterr().err


def test_unsigned_bundle_fails_when_a_key_is_given(
    bundle: Path, keys: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_ablation("verify-archive", bundle, "--public-key", keys[1]) == 3
    assert "SHA256SUMS.sig: missing, but a public key was given" in capsys.readouterr().err


def test_sign_key_must_be_an_ed25519_private_key(
    run_dir: Path, keys: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _archive(run_dir, tmp_path / "b.tar.gz", "--sign-key", keys[1])
    assert code == 2
    assert "not an unencrypted PEM private key" in capsys.readouterr().err
    assert not (tmp_path / "b.tar.gz").exists()


# ------------------------------------------------------------- raw evidence


def test_raw_strings_that_are_not_strings_are_listed_not_extracted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = prepared.valid_minimal()

    def raw(c: int) -> dict[str, Any]:
        evidence: dict[str, Any] = document["cases"][c]["structuralEvidence"]["executionObservation"]["rawEvidence"]
        return evidence

    raw(0)["stdout"] = 5
    document["cases"][1]["structuralEvidence"] = None
    raw(2)["stderr"] = "LONE-SURROGATE"
    raw(3)["stdout"] = "DUPLICATE"
    data = prepared.dumps(document).replace(b'"LONE-SURROGATE"', b'"\\ud800"')
    data = data.replace(b'"stdout": "DUPLICATE"', b'"stdout": "one", "stdout": "two"')
    (tmp_path / "in.json").write_bytes(data)
    assert run_ablation("run", "--input", tmp_path / "in.json", "--output", tmp_path / "out.json") == 0
    assert (
        run_ablation(
            "archive",
            "--input",
            tmp_path / "in.json",
            "--results",
            tmp_path / "out.json",
            "--bundle",
            tmp_path / "b.tar.gz",
        )
        == 0
    )
    assert run_ablation("verify-archive", tmp_path / "b.tar.gz") == 0
    members = {
        info.name.split("/", 1)[1]: data for info, data in _read_members(tmp_path / "b.tar.gz") if data is not None
    }
    index = json.loads(members["evidence/index.json"])
    assert "evidence/cases/0000/sci-stdout.txt" not in members
    assert "evidence/cases/0000/sci-receipt.json" in members
    assert index["cases"][0]["notExtracted"] == [
        {
            "origin": "/cases/0/structuralEvidence/executionObservation/rawEvidence/stdout",
            "reason": "/cases/0/structuralEvidence/executionObservation/rawEvidence/stdout is a number, not a string",
        }
    ]
    assert index["cases"][1]["structuralEvidence"] == "null"
    assert index["cases"][1]["folder"] is None
    assert not any(name.startswith("evidence/cases/0001/") for name in members)
    assert (
        "the input breaks TOP-10 at /cases/2/structuralEvidence/executionObservation/rawEvidence/stderr"
        in (index["cases"][2]["notExtracted"][0]["reason"])
    )
    assert "evidence/cases/0002/sci-stderr.txt" not in members
    assert index["cases"][3]["notExtracted"][0]["reason"].startswith(
        "the input breaks TOP-6 at /cases/3/structuralEvidence/executionObservation/rawEvidence/stdout"
    )
    assert "evidence/cases/0003/sci-stdout.txt" not in members
    assert "evidence/cases/0003/sci-request.json" in members


def test_realistic_input_archives_deterministically(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if not REALISTIC.is_file():
        pytest.skip(f"{REALISTIC} is not available (../shared is absent)")
    results = tmp_path / "results.json"
    assert (
        run_ablation(
            "run",
            "--input",
            REALISTIC,
            "--input-sha256",
            "5e61f30b5cc018dac70e2f89abcb95e64eb12902e25723c0c18a88635deec5fa",
            "--output",
            results,
        )
        == 0
    )
    for name in ("one.tar.gz", "two.tar.gz"):
        assert run_ablation("archive", "--input", REALISTIC, "--results", results, "--bundle", tmp_path / name) == 0
    assert _sha(tmp_path / "one.tar.gz") == _sha(tmp_path / "two.tar.gz")
    capsys.readouterr()
    assert run_ablation("verify-archive", tmp_path / "one.tar.gz") == 0
    out = capsys.readouterr().out
    assert "input                  input/realistic.json.gz" in out
    assert "input sha256           5e61f30b5cc018dac70e2f89abcb95e64eb12902e25723c0c18a88635deec5fa" in out
    members = {
        info.name.split("/", 1)[1]: data for info, data in _read_members(tmp_path / "one.tar.gz") if data is not None
    }
    assert _read_members(tmp_path / "one.tar.gz")[0][0].name == "ablation-bundle-5e61f30b5cc0"
    index = json.loads(members["evidence/index.json"])
    assert index["summary"]["casesWithNullStructuralEvidence"] == 30
    assert index["summary"]["caseFileCount"] == 0
    assert not any(name.startswith("evidence/cases/") for name in members)
    assert sorted(n for n in members if n.startswith("evidence/repositories/")) == [
        f"evidence/repositories/{r:04d}/{f}" for r in range(3) for f in ("git-ls-files-stage.bin", "source-list.json")
    ]


def test_pad_width_grows_with_the_array() -> None:
    files, index = layout.derive_evidence(
        {
            "repositories": [],
            "cases": [{"id": str(k), "repositoryId": "r", "structuralEvidence": None} for k in range(10_001)],
        },
        input_sha256="0" * 64,
        input_member="input/x.json",
    )
    assert files == ()
    cases = json.loads(index)["cases"]
    assert cases[10_000]["notExtracted"][0]["origin"] == "/cases/10000/structuralEvidence"
    assert layout.pad_width(10_001) == 5
