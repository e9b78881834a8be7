"""The public conformance corpus and the real-repository inputs, end to end through the CLI.

Skipped with a stated reason when ``../shared`` (beside the repository) is absent.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from ablation.cli import main
from tests.builders.paths import CONFORMANCE, INPUTS, SHARED_ABSENT

PREFIX = "structural_evidence_validation_failed:"
pytestmark = pytest.mark.skipif(not CONFORMANCE.is_dir(), reason=SHARED_ABSENT)


def _load_exact(text: str) -> Any:
    """Parse keeping number literals as text so that 1 and 1.0 differ and member order is kept."""
    return json.loads(text, parse_int=lambda t: ("num", t), parse_float=lambda t: ("num", t))


def _mask(value: object) -> object:
    """Compare failure strings of structural bundles by their prefix only (SPEC §8.9)."""
    if isinstance(value, dict):
        return {k: _mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(v) for v in value]
    if isinstance(value, str) and value.startswith(PREFIX):
        return PREFIX
    return value


def _same_result(got: object, want: object) -> bool:
    def ordered(v: object) -> object:
        if isinstance(v, dict):
            return [(k, ordered(x)) for k, x in v.items()]
        if isinstance(v, list):
            return [ordered(x) for x in v]
        return v

    return ordered(_mask(got)) == ordered(_mask(want))


def _cases() -> list[Path]:
    return sorted(p for p in CONFORMANCE.iterdir() if (p / "expected.json").is_file()) if CONFORMANCE.is_dir() else []


def _allowed_rules(expected: dict[str, Any]) -> list[str] | None:
    """The rule IDs a reject case may report first: ``rules`` (SPEC §4.0 allows several) or ``rule``."""
    if "rules" in expected:
        return list(expected["rules"])
    if "rule" in expected:
        return [expected["rule"]]
    return None


def reject_rule_problem(expected: dict[str, Any], stderr: str) -> str | None:
    """Compare the first rejection line with the case's ``rule``/``rules`` annotation.

    Same semantics as ``../shared/tools/conformance_check.py``: the reported rule
    is the text before the first " at "; an unannotated case is not compared.
    """
    lines = stderr.strip().splitlines()
    line = lines[0] if lines else ""
    allowed = _allowed_rules(expected)
    got = line.split(" at ", 1)[0].strip()
    if allowed is not None and got not in allowed:
        return f"rejected with {got}, expected {' or '.join(allowed)}: {line[:160]}"
    return None


def structural_rule_problems(expected: dict[str, Any], result: Any) -> list[str]:
    """Compare each case's first structural failure with ``structuralRules`` (case id → rule ID).

    The failure must start ``structural_evidence_validation_failed:<rule> at `` (SPEC §8.9);
    ``_same_result`` masks failure texts to their prefix, so this is where the rule is checked.
    """
    wanted: dict[str, str] = expected.get("structuralRules", {})
    problems = []
    for case in result.get("cases", []):
        rule = wanted.get(case.get("id"))
        if rule is None:
            continue
        failures = case.get("arms", {}).get("structural", {}).get("failures", [])
        if not (failures and failures[0].startswith(f"{PREFIX}{rule} at ")):
            problems.append(
                f"/cases/{case.get('id')}: structural failure should name {rule}; got {(failures or ['none'])[0][:120]}"
            )
    return problems


def check_case(folder: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """Run one corpus folder through ``ablation run``; return what differs from its expectations."""
    expected = json.loads((folder / "expected.json").read_text())
    code = main(
        ["run", "--input", str(folder / "input.json"), "--input-sha256", expected["inputSha256"], "--output", str(out)]
    )
    err = capsys.readouterr().err
    if expected["verdict"] == "reject":
        if code != 4 or out.exists():
            return [f"expected reject (exit 4, no output), got exit {code}: {err[:160]}"]
        line = err.strip().splitlines()[0]
        if not (" at " in line and ": expected " in line and "; found " in line):
            return [f"rejection line lacks where/expected/found: {line}"]
        if line.split(" ", 1)[0].split("-")[0] not in {"TOP", "REPO", "SL", "PREP", "GIT", "STALE", "CASE"}:
            return [f"not a reject rule family: {line}"]
        problem = reject_rule_problem(expected, err)
        return [problem] if problem else []
    if code != 0:
        return [f"expected accept, got exit {code}: {err[:160]}"]
    got = _load_exact(out.read_text(encoding="utf-8"))["result"]
    want = _load_exact((folder / "reference-output.json").read_text(encoding="utf-8"))["result"]
    if not _same_result(got, want):
        return ["result differs from reference-output.json"]
    return structural_rule_problems(expected, json.loads(out.read_text(encoding="utf-8"))["result"])


@pytest.mark.parametrize("folder", _cases(), ids=lambda p: p.name)
def test_conformance_case(folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert check_case(folder, tmp_path / "out.json", capsys) == []


def test_conformance_corpus_annotates_rules() -> None:
    """Every reject case names its rule; the comparison above is not vacuous."""
    cases = [json.loads((f / "expected.json").read_text()) for f in _cases()]
    rejects = [c for c in cases if c["verdict"] == "reject"]
    assert rejects and all(_allowed_rules(c) for c in rejects)
    assert sum(len(c.get("structuralRules", {})) for c in cases) > 0


def _copy_with(folder: Path, tmp_path: Path, **annotation: object) -> Path:
    """A copy of a corpus folder (input by symlink) whose expected.json carries ``annotation``."""
    copy = tmp_path / folder.name
    copy.mkdir(parents=True)
    for name in ("input.json", "reference-output.json"):
        if (folder / name).exists():
            (copy / name).symlink_to(folder / name)
    expected = json.loads((folder / "expected.json").read_text()) | annotation
    (copy / "expected.json").write_text(json.dumps(expected))
    return copy


def test_a_wrong_rule_annotation_fails_the_comparison(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = CONFORMANCE / "reject-case-id-blank"
    assert check_case(folder, tmp_path / "a.json", capsys) == []
    wrong = _copy_with(folder, tmp_path, rule="CASE-4")
    problems = check_case(wrong, tmp_path / "b.json", capsys)
    assert len(problems) == 1 and problems[0].startswith("rejected with CASE-3, expected CASE-4: CASE-3 at /cases/"), (
        problems
    )
    several = _copy_with(folder, tmp_path / "several", rules=["CASE-2", "CASE-4"])
    assert check_case(several, tmp_path / "c.json", capsys)[0].startswith(
        "rejected with CASE-3, expected CASE-2 or CASE-4"
    )


def test_a_wrong_structural_annotation_fails_the_comparison(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = CONFORMANCE / "accept-four-repositories"
    expected = json.loads((folder / "expected.json").read_text())
    case_id = next(iter(expected["structuralRules"]))
    assert check_case(folder, tmp_path / "a.json", capsys) == []
    wrong = _copy_with(folder, tmp_path, structuralRules={case_id: "SB-2"})
    problems = check_case(wrong, tmp_path / "b.json", capsys)
    assert len(problems) == 1, problems
    assert problems[0].startswith(
        f"/cases/{case_id}: structural failure should name SB-2; got structural_evidence_validation_failed:SB-1 at "
    ), problems


def test_conformance_corpus_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Run the whole corpus once more, rule IDs compared, and report N/N (printed with -s)."""
    counts = {"accept": [0, 0], "reject": [0, 0]}
    for k, folder in enumerate(_cases()):
        verdict = json.loads((folder / "expected.json").read_text())["verdict"]
        counts[verdict][1] += 1
        counts[verdict][0] += check_case(folder, tmp_path / f"out-{k}.json", capsys) == []
    total = sum(c[1] for c in counts.values())
    ok = sum(c[0] for c in counts.values())
    with capsys.disabled():
        print(  # noqa: T201 - the corpus count, shown on purpose
            f"\nconformance: {ok}/{total} (accept {counts['accept'][0]}/{counts['accept'][1]}, "
            f"reject {counts['reject'][0]}/{counts['reject'][1]})"
        )
    assert ok == total == 118


REALISTIC = [
    ("realistic.json.gz", "5e61f30b5cc018dac70e2f89abcb95e64eb12902e25723c0c18a88635deec5fa"),
    ("realistic-structural.json.gz", "f476b09e4cf485720ba3749f7e74d805b1b0eccb5c1a45df92d36077790c0841"),
]


@pytest.mark.parametrize(("name", "sha"), REALISTIC, ids=[r[0] for r in REALISTIC])
def test_realistic_input_matches_reference(
    name: str, sha: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.json"
    code = main(["run", "--input", str(INPUTS / name), "--input-sha256", sha, "--output", str(out)])
    assert code == 0, capsys.readouterr().err
    document = _load_exact(out.read_text(encoding="utf-8"))
    reference = name.replace(".json.gz", ".reference-output.json.gz")
    with gzip.open(INPUTS / reference, "rt", encoding="utf-8") as handle:
        want = _load_exact(handle.read())
    assert _same_result(document["result"], want["result"])
    assert document["inputSha256"] == sha


def test_realistic_gate_quantities_are_exact(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.json"
    assert (
        main(
            [
                "run",
                "--input",
                str(INPUTS / "realistic.json.gz"),
                "--input-sha256",
                REALISTIC[0][1],
                "--output",
                str(out),
            ]
        )
        == 0
    )
    document = json.loads(out.read_text(encoding="utf-8"))
    gates = {g["id"]: g for g in document["gateAssessment"]["gates"]}
    assert document["result"]["pairwise"]["source_list"]["deltaFromPaths"]["macroPrecision"] == 0.12500000000000006
    assert (gates["G4a"]["numericStatus"], gates["G4a"]["measured"]["delta"]) == (
        "pass",
        {"exact": "1/8", "value": 0.125},
    )
    assert (gates["G4b"]["numericStatus"], gates["G4b"]["measured"]["reduction"]["exact"]) == ("fail", "5/33")
    assert (gates["G4c"]["numericStatus"], gates["G4c"]["measured"]["delta"]) == (
        "pass",
        {"exact": "-1/2", "value": -0.5},
    )
    assert gates["G1"]["measured"]["eligibleRepositoryIds"] == ["dspx", "engineering-core"]
    assert document["gateAssessment"]["numericGatesPassed"] is False
    assert document["gateAssessment"]["automaticAdoption"] is False
    capsys.readouterr()


def test_realistic_verify_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["verify", "--input", str(INPUTS / "realistic.json.gz"), "--input-sha256", REALISTIC[0][1], "--json"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    coverage = {r["id"]: (r["metadataCoverage"], r["sourceListEligible"]) for r in summary["repositories"]}
    assert coverage["dspx"][1] is True and str(coverage["dspx"][0]).startswith("0.720")
    assert coverage["engineering-core"] == (0.7, True)
    assert coverage["pi-extensions"][1] is False and str(coverage["pi-extensions"][0]).startswith("0.208")
    assert all(c["structuralAvailable"] is False for c in summary["cases"])
    assert all(c["structuralFailure"].startswith(PREFIX + "SB-1") for c in summary["cases"])
