"""The SCI stand-in on a real git repository, its receipt checked with the evaluator's bundle validation.

Each run is observed as capture observes it in assertion mode (PREPARE.md §4):
target state before and after, process group, TMPDIR and HOME. The bundle is
built from the captured bytes and validated by
``ablation.contracts.structural.validate_bundle`` (SB, REQ, RCPT, OBS in SPEC
§4.12's order); the normal stand-in must pass, and each variant must give the
rule (or null bundle) README.md's table names.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from ablation.canonical import canon
from tests.prepare.doubles import standin_fixture, standins
from tests.prepare.doubles.standin_evaluate import SciCase, TargetState, bundle_rule, sci_bundle
from tests.prepare.doubles.standin_runs import OwnerRun, run_owner

SCHEMA = b"semantic-code-intelligence.structural_evidence_receipt.v1"
QUESTION = "Where are the request builders defined and how do they parse requests?"
ITEM_PATHS = frozenset(item[0] for item in standin_fixture.ITEMS)
RECEIPT_MEMBERS = [
    "schema",
    "request",
    "requestDigest",
    "repository",
    "producer",
    "backend",
    "evidence",
    "summary",
    "limitations",
    "receiptDigest",
]
BUILD = standin_fixture.sci_request(QUESTION, "python", "def build_$NAME($$$ARGS)", ["src"])


@dataclass(frozen=True)
class SciRun:
    """One SCI run, its observation, and the evaluator's verdict on the bundle built from it."""

    run: OwnerRun
    case: SciCase
    home: Path
    tmp: Path
    bundle: dict[str, object] | None
    rule: str | None

    @property
    def receipt(self) -> dict[str, object]:
        """The receipt the bundle holds."""
        assert self.bundle is not None
        receipt = self.bundle["receipt"]
        assert isinstance(receipt, dict)
        return receipt


def run_sci(
    script: Path,
    target: Path,
    work: Path,
    environment_path: str,
    *,
    request: dict[str, object] = BUILD,
    argv: list[str] | None = None,
    timeout: float = 60.0,
    grace: float = 5.0,
    path: str | None = None,
    cwd: Path | None = None,
) -> SciRun:
    """Run ``script`` as the SCI exporter in ``target`` under the clean environment and evaluate the bundle."""
    home, tmp = work / "home", work / "tmp"
    home.mkdir(parents=True)
    tmp.mkdir()
    request_file = work / "request.json"
    request_file.write_text(standin_fixture.request_text(request), encoding="utf-8")
    env_path = path if path is not None else f"{standins.BACKEND_DIR}:{environment_path}"
    env = standins.owner_env(path=env_path, home=home, tmpdir=tmp)
    before = TargetState.observe(target, env)
    run = run_owner(
        argv or standins.sci_argv(request_file, script),
        cwd=cwd or target,
        env=env,
        out_dir=work / "out",
        timeout=timeout,
        grace=grace,
    )
    after = TargetState.observe(target, env)
    case = SciCase(request_file, script, before, after, not any(home.iterdir()), not any(tmp.iterdir()))
    bundle = sci_bundle(run, case)
    rule = None if bundle is None else bundle_rule(bundle, question=QUESTION, commit=before.head, item_paths=ITEM_PATHS)
    return SciRun(run, case, home, tmp, bundle, rule)


def evidence_summary(receipt: dict[str, object]) -> list[tuple[object, ...]]:
    """``(path, start, end, snippet, byteCount)`` of every evidence entry."""
    evidence = receipt["evidence"]
    assert isinstance(evidence, list)
    out: list[tuple[object, ...]] = []
    for e in evidence:
        r = e["identity"]["range"]
        start, end = (r["start"]["line"], r["start"]["column"]), (r["end"]["line"], r["end"]["column"])
        out.append((e["identity"]["path"], start, end, e["snippet"], e["byteCount"]))
    return out


def group_is_gone(pgid: int) -> bool:
    """No process of the group is left (``killpg(pgid, 0)`` gives ESRCH)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def test_normal_receipt_is_accepted_with_code_point_ranges(target: Path, tmp_path: Path, environment_path: str) -> None:
    """The normal receipt passes the bundle validation; ranges count code points."""
    r = run_sci(standins.SCI, target, tmp_path, environment_path)
    assert (r.run.exit_code, r.run.stderr, r.run.confirmed, r.run.orphans_seen) == (0, b"", True, False)
    assert r.rule is None
    receipt = r.receipt
    text = r.run.stdout.decode("utf-8")
    assert text == json.dumps(receipt, indent=2, ensure_ascii=False) + "\n"
    assert list(receipt) == RECEIPT_MEMBERS
    assert evidence_summary(receipt) == [
        ("src/alpha.py", (2, 0), (2, 10), "def build_alpha(request):", 25),
        ("src/gamma.py", (0, 0), (0, 10), "def build_gamma():", 18),
        ("src/gamma.py", (1, 17), (1, 27), "    return '\U0001f600é'; def build_delta(): pass", 44),
    ]
    assert receipt["summary"] == {
        "returnedCount": 3,
        "totalObservedCount": 3,
        "evidenceBytes": 87,
        "capped": False,
        "complete": True,
    }
    assert canon(receipt["request"]) == canon(BUILD)
    assert r.case.before == r.case.after  # HEAD, status, .git/index, ls-files listing, no class-(a) path
    assert not any(r.home.iterdir()) and not any(r.tmp.iterdir())  # the scratch folder was removed


def test_path_seeds_limit_the_search(target: Path, tmp_path: Path, environment_path: str) -> None:
    """Path seeds (a file, a non-ASCII path with a space, ``..js``, none) scope the search."""
    scoped = standin_fixture.sci_request(QUESTION, "go", "var $X", ["lib/café ü.go", "..js"])
    everywhere = standin_fixture.sci_request(QUESTION, "js", "var $X", [])
    cafe = standin_fixture.sci_request(QUESTION, "go", "func cafe$X() {}", ["lib/café ü.go"])
    found = {}
    for name, request in (("scoped", scoped), ("everywhere", everywhere), ("cafe", cafe)):
        r = run_sci(standins.SCI, target, tmp_path / name, environment_path, request=request)
        assert r.rule is None, name
        found[name] = evidence_summary(r.receipt)
    assert found == {
        "scoped": [("..js", (1, 0), (1, 4), "var d;", 6)],
        "everywhere": [("..js", (1, 0), (1, 4), "var d;", 6), ("src/Upper.JS", (1, 0), (1, 4), "var u;", 6)],
        "cafe": [("lib/café ü.go", (1, 0), (1, 9), "func cafeHelpers() {}", 21)],
    }


def test_limits_cap_the_receipt_honestly(target: Path, tmp_path: Path, environment_path: str) -> None:
    """A per-file limit caps the receipt: RCPT holds, SB-13 makes it unavailable."""
    limits = {"maxCandidates": 2000, "maxCandidatesPerFile": 1, "maxEvidenceBytes": 1048576, "timeoutMs": 60000}
    request = standin_fixture.sci_request(QUESTION, "python", "def build_$NAME($$$ARGS)", ["src"], limits)
    r = run_sci(standins.SCI, target, tmp_path, environment_path, request=request)
    assert [e[0] for e in evidence_summary(r.receipt)] == ["src/alpha.py", "src/gamma.py"]
    assert r.receipt["summary"] == {
        "returnedCount": 2,
        "totalObservedCount": 3,
        "evidenceBytes": 43,
        "capped": True,
        "complete": False,
    }
    assert r.rule == "SB-13"  # RCPT-1 … RCPT-41 hold: an honest incomplete receipt


def test_a_pattern_without_literal_text_finds_nothing(target: Path, tmp_path: Path, environment_path: str) -> None:
    """A pattern that starts with ``$`` searches nothing and says so with an empty receipt."""
    request = standin_fixture.sci_request(QUESTION, "python", "$MATCH", ["src"])
    r = run_sci(standins.SCI, target, tmp_path, environment_path, request=request)
    assert (r.rule, r.receipt["evidence"], r.receipt["limitations"]) == (None, [], [])


def test_version_flag_and_other_argv(target: Path, tmp_path: Path, environment_path: str) -> None:
    """``--version`` answers; any argv other than OBS-13's is exit 2 with a usage line."""
    request_file = str(tmp_path / "v" / "request.json")
    cases = {
        "version": ([str(standins.SCI), "--version"], 0),
        "no file": ([str(standins.SCI), "experimental", "structural-evidence-receipt", "--request-file"], 2),
        "other subcommand": ([str(standins.SCI), "experimental", "other", "--request-file", request_file], 2),
        "extra flag": ([*standins.sci_argv(Path(request_file)), "--json"], 2),
    }
    for k, (argv, code) in enumerate(cases.values()):
        r = run_sci(standins.SCI, target, tmp_path / str(k), environment_path, argv=argv)
        assert r.run.exit_code == code
        if code == 0:
            assert r.run.stdout == b"semantic-code-intelligence 2.0.0 (test stand-in fake_sci, variant normal)\n"
        else:
            assert r.run.stdout == b""
            assert r.run.stderr == b"fake_sci: usage: experimental structural-evidence-receipt --request-file FILE\n"


def test_preconditions_are_checked(target: Path, tmp_path: Path, environment_path: str) -> None:
    """A dirty checkout, a missing backend and a subfolder cwd are refused before any search."""
    (target / "src" / "scratch.txt").write_text("untracked\n", encoding="utf-8")
    dirty = run_sci(standins.SCI, target, tmp_path / "dirty", environment_path)
    (target / "src" / "scratch.txt").unlink()
    no_backend = run_sci(standins.SCI, target, tmp_path / "no-backend", environment_path, path=environment_path)
    subfolder = run_sci(standins.SCI, target, tmp_path / "subfolder", environment_path, cwd=target / "src")
    assert [(r.run.exit_code, r.run.stdout, r.run.stderr) for r in (dirty, no_backend)] == [
        (2, b"", b"fake_sci: the checkout is not clean\n"),
        (2, b"", b"fake_sci: the backend stand-in-grep-cli is not on PATH\n"),
    ]
    assert subfolder.run.exit_code == 2
    assert subfolder.run.stderr.startswith(b"fake_sci: the working directory is not the top level")


@pytest.fixture(scope="module")
def normal_stdout(pristine_clone: Path, tmp_path_factory: pytest.TempPathFactory, environment_path: str) -> bytes:
    """The normal stand-in's stdout for :data:`BUILD` (the same bytes in every copy of the clone)."""
    work = tmp_path_factory.mktemp("normal-sci")
    target = standin_fixture.copy_tree(pristine_clone, work / "target")
    return run_sci(standins.SCI, target, work, environment_path).run.stdout


SCI_VARIANTS = [v for v in standins.VARIANTS if v.tool == "sci" and v.name not in {"normal", "orphan-long", "hang"}]


@pytest.mark.parametrize("variant", SCI_VARIANTS, ids=lambda v: v.name)
def test_variant_gives_its_expected_outcome(
    variant: standins.Variant, target: Path, tmp_path: Path, environment_path: str, normal_stdout: bytes
) -> None:
    """Each variant gives the rule (or null bundle) its table row names, and its own fault."""
    r = run_sci(variant.path, target, tmp_path, environment_path)
    assert r.run.exit_code == 0
    assert (r.bundle is None) == variant.null_bundle
    assert r.rule == variant.rule
    assert r.run.confirmed and group_is_gone(r.run.pgid)
    assert r.run.orphans_seen == (variant.name == "orphan-short")
    assert (r.run.stderr != b"") == (variant.name == "stderr")
    assert r.case.tmp_empty == (variant.name != "tmpdir-leftover")
    assert r.case.home_empty == (variant.name != "home-leftover")
    assert r.case.after.ontology == (variant.name == "ontology-dir")
    assert (r.case.after.status != "") == (variant.name == "edit-tracked")
    assert r.case.after.stage_listing == r.case.before.stage_listing
    assert r.case.after.index_sha256 == r.case.before.index_sha256
    assert_details(variant.name, r, normal_stdout, target)


def assert_details(name: str, r: SciRun, normal_stdout: bytes, target: Path) -> None:
    """What a variant's fault looks like in the captured bytes and in the target."""
    out = r.run.stdout
    if name == "reordered":
        assert list(r.receipt) == RECEIPT_MEMBERS[::-1]
        assert out != normal_stdout
        assert canon(r.receipt) == canon(json.loads(normal_stdout))
    elif name in {"orphan-short", "stderr", "tmpdir-leftover", "home-leftover", "ontology-dir", "home-cache"}:
        assert out == normal_stdout
    elif name == "two-receipts":
        assert out == normal_stdout * 2
    elif name == "trailing-text":
        assert out == normal_stdout + b"done\n"
    elif name == "duplicate-key":
        assert out == normal_stdout.replace(b"{\n", b'{\n  "schema": "' + SCHEMA + b'",\n', 1)
    elif name == "edit-tracked":
        assert r.case.after.status == " M ..js\n"
        assert (target / "..js").read_bytes().endswith(b"\nedited by the edit-tracked variant\n")
    elif name == "touch-tracked":
        assert (target / "..js").stat().st_mtime == 978307200  # 2001-01-01, status still clean
    elif name == "version-2.0.1":
        assert r.receipt["producer"] == dict(standins.SCI_PROVENANCE, version="2.0.1")
    elif name == "non-item-match":
        assert [e[0] for e in evidence_summary(r.receipt)] == [
            "src/alpha.py",
            "src/alpha.pyi",
            "src/gamma.py",
            "src/gamma.py",
        ]
    elif name == "capped":
        assert r.receipt["summary"] == {
            "returnedCount": 3,
            "totalObservedCount": 4,
            "evidenceBytes": 87,
            "capped": True,
            "complete": False,
        }
    else:
        assert (name, out) in {("empty-stdout", b"")}, name


def test_orphan_outliving_the_grace_is_killed(target: Path, tmp_path: Path, environment_path: str) -> None:
    """A 60 s orphan is killed after the grace: not confirmed, OBS-18."""
    r = run_sci(standins.variant("sci", "orphan-long").path, target, tmp_path, environment_path, grace=0.5)
    assert (r.run.exit_code, r.run.orphans_seen, r.run.killed, r.run.confirmed) == (0, True, True, False)
    assert group_is_gone(r.run.pgid)
    assert r.rule == "OBS-18"
    assert r.bundle is not None
    assert r.bundle["executionObservation"]["process"] == {  # type: ignore[index]
        "exitCode": 0,
        "receiptCount": 1,
        "processGroupTerminationConfirmed": False,
    }


def test_hang_times_out_and_its_group_is_killed(target: Path, tmp_path: Path, environment_path: str) -> None:
    """A hanging stand-in is killed at the timeout, leaving no stdout and no receipt."""
    r = run_sci(standins.variant("sci", "hang").path, target, tmp_path, environment_path, timeout=1.0)
    assert (r.run.timed_out, r.run.killed, r.run.exit_code, r.run.signal) == (True, True, None, 9)
    assert group_is_gone(r.run.pgid)
    assert (r.run.stdout, r.bundle) == (b"", None)
    assert r.case.tmp_empty and r.case.home_empty


def strace_or_skip() -> str:
    """The machine's strace, when it can trace here; otherwise the test is skipped with the reason."""
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed: the stand-ins' traced file accesses are not checked here")
    probe = subprocess.run([strace, "-f", "-qq", "-e", "trace=%file", "-o", os.devnull, "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"ptrace is not allowed here: {probe.stderr.decode(errors='replace').strip()}")
    return strace


CLASS_A = (".sci", ".semantic-graph", ".ontology")


def successful_accesses(trace: str, prefix: str) -> list[str]:
    """Trace lines of file-access calls that name a path below ``prefix`` and did not fail."""
    return [line for line in trace.splitlines() if f'"{prefix}/' in line and " = -1 " not in line]


def test_traced_runs_show_what_touches_home(target: Path, tmp_path: Path, environment_path: str) -> None:
    """Under strace the normal stand-in touches nothing below HOME; the HOME variants do."""
    strace = strace_or_skip()
    found = {}
    for name in ("normal", "home-cache", "home-leftover"):
        work = tmp_path / name
        trace = work / "trace.txt"
        script = standins.variant("sci", name).path
        argv = [strace, "-f", "-qq", "-s", "4096", "-e", "trace=%file", "-o", str(trace)]
        argv += standins.sci_argv(work / "request.json", script)
        fresh = standin_fixture.copy_tree(target, work / "t")
        r = run_sci(script, fresh, work, environment_path, argv=argv)
        assert r.run.exit_code == 0, name
        text = trace.read_text(encoding="utf-8")
        found[name] = successful_accesses(text, str(r.home))
        class_a = [f'"{folder}{name}' for folder in ("", f"{fresh}/") for name in CLASS_A]
        assert [line for line in text.splitlines() if any(p in line for p in class_a) and " = -1 " not in line] == []
    assert found["normal"] == []  # class (b) untouched: a traced capture accepts the normal stand-in
    assert any("O_CREAT" in line and "index.json" in line for line in found["home-cache"])
    assert any("O_CREAT" in line and standins.SCI_LEFTOVER_NAME in line for line in found["home-leftover"])
