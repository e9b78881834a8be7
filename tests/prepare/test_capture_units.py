"""The small pieces of ``capture``: the staleness pick (committed vectors), receipts, traces, the process runner,
the ledger reader, the clean environment and the places of a failure in D.

Spec: PREPARE.md §4 ("Staleness sample", "Raw texts of a case", "Index and ontology",
"Process discipline", "Clean environment", "Ledger"); §11 criteria 6, 22.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from ablation.prepare import spawn
from ablation.prepare.build import staleness_method, staleness_pick
from ablation.prepare.build_case import first_receipt, receipt_count
from ablation.prepare.environment import git_environment, owner_environment
from ablation.prepare.gates import bundle_where, source_list_where
from ablation.prepare.ledger import LedgerDamaged, read_ledger
from ablation.prepare.trace import read_trace, strace_argv

VECTORS = Path(__file__).parent / "data" / "staleness-vectors.json"


# ------------------------------------------------------------------ the staleness sample


def _vectors() -> list[dict[str, object]]:
    return json.loads(VECTORS.read_text(encoding="utf-8"))["vectors"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("vector", _vectors(), ids=lambda v: f"{v['rule']}-{v['size']}")
def test_the_staleness_pick_follows_the_committed_vectors(vector: dict[str, object]) -> None:
    present, raw = vector["present"], vector["rawArtifactSha256"]
    assert isinstance(present, list) and isinstance(raw, str) and isinstance(vector["size"], int)
    assert staleness_pick(str(vector["rule"]), vector["size"], raw, present) == vector["sampledPaths"]


def test_the_vectors_are_the_formulas_of_prepare_section_4() -> None:
    for vector in _vectors():
        present, raw, size = vector["present"], str(vector["rawArtifactSha256"]), vector["size"]
        assert isinstance(present, list) and isinstance(size, int)
        if vector["rule"] == "spread":
            keys = {p: hashlib.sha256(f"{raw}\n{p}".encode()).hexdigest() for p in present}
            assert vector["keys"] == keys
            chosen = sorted(present, key=lambda p: keys[p])[:size]
        else:
            chosen = present[:size]
        assert vector["sampledPaths"] == sorted(chosen, key=lambda p: p.encode("utf-8"))
        assert len(vector["sampledPaths"]) == min(size, len(present))


def test_the_method_text_names_rule_count_artifact_and_reviewer() -> None:
    assert staleness_method("spread", 3, 5, "sha256:ab", "R. Roe") == (
        "spread sample of 3 of 5 metadata-present paths (ordered by SHA-256 of the artifact digest, a line feed and "
        "the path); source-list artifact sha256:ab; staleness review by R. Roe: ACCEPT"
    )


# ------------------------------------------------------------------ receipts


@pytest.mark.parametrize(
    ("text", "count", "receipt"),
    [
        ("", 0, None),
        (' \n{"a": 1}\n', 1, {"a": 1}),
        ('{"a": 1}\n{"a": 1}\n', 2, {"a": 1}),
        ('{"a": 1}\ndone\n', 1, {"a": 1}),
        ('{"a": 1, "a": 2}', 1, None),
        ("[1.5]", 1, None),
        ("NaN", 0, None),
        ('{"a": ', 0, None),
    ],
)
def test_receipt_count_and_the_first_receipt(text: str, count: int, receipt: object) -> None:
    assert receipt_count(text) == count
    value, why = first_receipt(text)
    assert value == receipt
    assert (why is None) == (receipt is not None)


def test_why_there_is_no_receipt() -> None:
    assert first_receipt("")[1] == "an empty stdout"
    assert first_receipt("x")[1] == "no complete JSON value on stdout"
    assert first_receipt('{"a": 1, "a": 2}')[1] == "stdout's first JSON value breaks TOP-6 at /a: a second member 'a'"


# ------------------------------------------------------------------ traces


TARGET, HOME = "/w/targets/0000", "/w/run/case-0000-sci/attempt-1/home"
TRACE = f"""\
11 execve("/opt/sci", ["/opt/sci", "experimental"], 0x0 /* 12 vars */) = 0
11 openat(AT_FDCWD, ".ontology/graph", O_RDONLY) = -1 ENOENT (No such file or directory)
11 newfstatat(AT_FDCWD, "{TARGET}/.sci", 0x7ffd, 0) = -1 ENOENT (No such file or directory)
11 openat(AT_FDCWD, "{HOME}/.cache/x.json", O_WRONLY|O_CREAT|O_EXCL, 0666 <unfinished ...>
12 openat(AT_FDCWD, "{HOME}", O_RDONLY|O_DIRECTORY) = 4
11 <... openat resumed>) = 3
12 openat(4, "cache.db", O_RDONLY) = 5
12 symlinkat("{HOME}/.cache", AT_FDCWD, "{TARGET}/link") = 0
12 readlink("{TARGET}/link", "{HOME}/.cache", 4096) = 20
13 chdir(".semantic-graph") = 0
13 openat(AT_FDCWD, "nodes", O_RDONLY) = 3
14 mkdir("caf\\303\\251", 0777) = 0
--- SIGCHLD {{si_signo=SIGCHLD}} ---
"""


def test_a_trace_is_read_by_class_success_and_creation() -> None:
    summary = read_trace(TRACE, target=TARGET, home=HOME)
    assert summary.as_record() == {
        "calls": 11,
        "reads": {"a": 2, "b": 1},
        "failedLookups": {"a": 2, "b": 0},
        "created": {"a": 0, "b": 1},
        "unresolvedPaths": 1,
        "chdirCalls": 1,
        "offending": [
            f'11 openat(AT_FDCWD, "{HOME}/.cache/x.json", O_WRONLY|O_CREAT|O_EXCL, 0666 ) = 3',
            '13 chdir(".semantic-graph") = 0',
            '13 openat(AT_FDCWD, "nodes", O_RDONLY) = 3',
        ],
    }
    assert (summary.index_read, summary.index_built) == (True, True)


def test_strace_runs_with_the_options_of_prepare() -> None:
    assert strace_argv("/usr/bin/strace", "/d/trace.txt", ("/opt/sci", "x")) == (
        "/usr/bin/strace",
        "-f",
        "-qq",
        "-s",
        "4096",
        "-e",
        "trace=%file",
        "-o",
        "/d/trace.txt",
        "/opt/sci",
        "x",
    )


# ------------------------------------------------------------------ the process runner


@pytest.fixture
def grace(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(spawn, "GRACE_S", 1.0)
    yield


def _run(tmp_path: Path, script: str, timeout: float = 30.0, **kw: object) -> spawn.RunOutcome:
    n = len(list(tmp_path.iterdir())) // 2
    launch = spawn.Launch(
        ("/bin/sh", "-c", script),
        str(tmp_path),
        {"PATH": "/usr/bin:/bin"},
        str(tmp_path / f"{n}.out"),
        str(tmp_path / f"{n}.err"),
        timeout,
    )
    return spawn.run(launch, **kw)  # type: ignore[arg-type]


def test_a_clean_run_is_confirmed(tmp_path: Path) -> None:
    o = _run(tmp_path, "echo out; echo err >&2")
    assert (o.exit_code, o.signal, o.orphans, o.killed, o.confirmed, o.timed_out) == (0, None, 0, False, True, False)
    assert (tmp_path / "0.out").read_bytes() == b"out\n" and (tmp_path / "0.err").read_bytes() == b"err\n"


def test_a_short_orphan_is_reaped_a_long_one_killed_after_the_grace(tmp_path: Path, grace: None) -> None:
    short = _run(tmp_path, "sleep 0.3 & echo started")
    assert (short.exit_code, short.orphans, short.killed, short.confirmed) == (0, 1, False, True)
    long = _run(tmp_path, "sleep 30 & echo started")
    assert (long.exit_code, long.orphans, long.killed, long.confirmed, long.timed_out) == (0, 1, True, False, False)
    assert long.grace_s == 1.0


def test_a_timeout_an_output_cap_and_a_missing_program(tmp_path: Path) -> None:
    late = _run(tmp_path, "sleep 30", timeout=0.3)
    assert (late.exit_code, late.signal, late.timed_out, late.killed, late.confirmed) == (None, 9, True, True, False)
    big = _run(tmp_path, f"head -c {spawn.OUTPUT_CAP_BYTES} /dev/zero; sleep 30")
    assert (big.output_cap_exceeded, big.killed, big.exit_code) == (True, True, None)
    assert os.path.getsize(tmp_path / "1.out") >= spawn.OUTPUT_CAP_BYTES  # kept as written
    launch = spawn.Launch(
        ("/nonexistent/program",), str(tmp_path), {}, str(tmp_path / "x.out"), str(tmp_path / "x.err"), 1.0
    )
    missing = spawn.run(launch)
    assert (missing.pid, missing.exit_code, missing.not_started) == (None, None, "No such file or directory")


def test_an_output_file_that_exists_already_closes_what_was_opened(tmp_path: Path) -> None:
    """The stderr file exists (never overwritten): refused before any spawn, stdout kept, no descriptor left."""
    (tmp_path / "y.err").write_bytes(b"kept")
    launch = spawn.Launch(("/bin/true",), str(tmp_path), {}, str(tmp_path / "y.out"), str(tmp_path / "y.err"), 1.0)
    before = sorted(os.listdir("/proc/self/fd"))
    with pytest.raises(FileExistsError):
        spawn.run(launch)
    assert sorted(os.listdir("/proc/self/fd")) == before
    assert ((tmp_path / "y.out").read_bytes(), (tmp_path / "y.err").read_bytes()) == (b"", b"kept")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interruption_kills_the_group_and_says_so(tmp_path: Path, signum: int) -> None:
    before = signal.getsignal(signum)
    with spawn.interruptible():
        o = _run(tmp_path, "sleep 30", started=lambda pid: os.kill(os.getpid(), signum))
        assert spawn.pending_signal() == signum
        late = _run(tmp_path, "echo never")  # one more spawn is not even started
    assert (o.interrupted, o.killed, o.confirmed, o.signal) == (signum, True, False, 9)
    assert (late.pid, late.interrupted) == (None, signum)
    assert signal.getsignal(signum) is before


# ------------------------------------------------------------------ the rest


def test_owners_inherit_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NODE_OPTIONS", "--require /tmp/evil.js")
    monkeypatch.setenv("XDG_CACHE_HOME", "/tmp/cache")
    env = owner_environment(path="/usr/bin", home="/h", tmpdir="/t")
    assert list(env) == [
        "PATH",
        "HOME",
        "TMPDIR",
        "TMP",
        "TEMP",
        "LANG",
        "LC_ALL",
        "TZ",
        "GIT_CONFIG_NOSYSTEM",
        "GIT_CONFIG_GLOBAL",
        "GIT_OPTIONAL_LOCKS",
        "GIT_TERMINAL_PROMPT",
    ]
    assert git_environment(path="/usr/bin", home="/h", tmpdir="/t")["GIT_CONFIG_COUNT"] == "2"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (b'{"seq":1,"entry":"capture"}\n{"seq":2,', "its last line is incomplete (capture ended while writing it)"),
        (b"not json\n", "line 1 is not a JSON text"),
        (b'{"seq":2,"entry":"capture"}\n', "line 1 is not entry 1 of a ledger"),
        (
            b'{"seq":1,"entry":"end","step":"s","attempt":1,"outcome":"failed"}\n',
            "line 1 (end) names no open attempt of s",
        ),
        (
            b'{"seq":1,"entry":"begin","step":"s","attempt":2,"kind":"sci","folder":"f"}\n',
            "line 1 begins attempt 2 of s, out of order",
        ),
    ],
)
def test_a_damaged_ledger_is_refused(tmp_path: Path, text: bytes, why: str) -> None:
    path = tmp_path / "attempts.jsonl"
    path.write_bytes(text)
    with pytest.raises(LedgerDamaged) as caught:
        read_ledger(str(path))
    assert str(caught.value) == why


def test_a_failure_is_placed_in_the_file_it_concerns() -> None:
    base = "/repositories/0/sourceListPreparation"
    assert source_list_where("D/a", f"{base}/trackedPathInventory/stdoutBase64") == "D/a/git-ls-files-stage.bin"
    assert source_list_where("D/a", f"{base}/exitCode") == "D/a -> /sourceListPreparation/exitCode"
    assert source_list_where("D/a", "/repositories/0/sourceListArtifact/rawJson -> character 0") == (
        "D/a/source-list.stdout -> character 0"
    )
    assert bundle_where("D/c", "executionObservation/cleanup/completed") == "D/c/extras.json -> /cleanup/completed"
    assert bundle_where("D/c", "executionObservation/targetState/noIndex") == "D/c/state.json -> /noIndex"
    assert bundle_where("D/c", '""') == 'D/c -> ""'
