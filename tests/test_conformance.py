"""The public conformance corpus and the real-repository inputs, end to end through the CLI.

Skipped with a stated reason when ``../shared`` (beside the repository) is absent.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from ablation.cli import main

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "conformance"
INPUTS = SHARED / "inputs"
PREFIX = "structural_evidence_validation_failed:"
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"shared corpus not found at {CORPUS}")


def _load_exact(text: str) -> object:
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
    return sorted(p for p in CORPUS.iterdir() if (p / "expected.json").is_file()) if CORPUS.is_dir() else []


@pytest.mark.parametrize("folder", _cases(), ids=lambda p: p.name)
def test_conformance_case(folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = json.loads((folder / "expected.json").read_text())
    out = tmp_path / "out.json"
    code = main(["run", "--input", str(folder / "input.json"), "--input-sha256", expected["inputSha256"],
                 "--output", str(out)])  # fmt: skip
    err = capsys.readouterr().err
    if expected["verdict"] == "reject":
        assert code == 4, err
        assert not out.exists()
        line = err.strip().splitlines()[0]
        assert " at " in line and ": expected " in line and "; found " in line, line
        assert line.split(" ", 1)[0].split("-")[0] in {"TOP", "REPO", "SL", "PREP", "GIT", "STALE", "CASE"}, line
        return
    assert code == 0, err
    got = _load_exact(out.read_text(encoding="utf-8"))["result"]  # type: ignore[index]
    want = _load_exact((folder / "reference-output.json").read_text(encoding="utf-8"))["result"]  # type: ignore[index]
    assert _same_result(got, want)


def test_conformance_corpus_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Run the whole corpus once more and report N/N (printed with -s)."""
    counts = {"accept": [0, 0], "reject": [0, 0]}
    for k, folder in enumerate(_cases()):
        expected = json.loads((folder / "expected.json").read_text())
        out = tmp_path / f"out-{k}.json"
        code = main(["run", "--input", str(folder / "input.json"), "--input-sha256", expected["inputSha256"],
                     "--output", str(out)])  # fmt: skip
        verdict = expected["verdict"]
        counts[verdict][1] += 1
        if verdict == "reject":
            counts[verdict][0] += code == 4 and not out.exists()
        elif code == 0:
            got = _load_exact(out.read_text(encoding="utf-8"))["result"]  # type: ignore[index]
            want = _load_exact((folder / "reference-output.json").read_text(encoding="utf-8"))["result"]  # type: ignore[index]
            counts[verdict][0] += _same_result(got, want)
    capsys.readouterr()
    total = sum(c[1] for c in counts.values())
    ok = sum(c[0] for c in counts.values())
    with capsys.disabled():
        print(f"\nconformance: {ok}/{total} (accept {counts['accept'][0]}/{counts['accept'][1]}, "
              f"reject {counts['reject'][0]}/{counts['reject'][1]})")  # fmt: skip
    assert ok == total == 118


REALISTIC = [
    ("realistic.json.gz", "5e61f30b5cc018dac70e2f89abcb95e64eb12902e25723c0c18a88635deec5fa"),
    ("realistic-structural.json.gz", "f476b09e4cf485720ba3749f7e74d805b1b0eccb5c1a45df92d36077790c0841"),
]


@pytest.mark.parametrize(("name", "sha"), REALISTIC, ids=[r[0] for r in REALISTIC])
def test_realistic_input_matches_reference(name: str, sha: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.json"
    code = main(["run", "--input", str(INPUTS / name), "--input-sha256", sha, "--output", str(out)])
    assert code == 0, capsys.readouterr().err
    document = _load_exact(out.read_text(encoding="utf-8"))
    reference = name.replace(".json.gz", ".reference-output.json.gz")
    with gzip.open(INPUTS / reference, "rt", encoding="utf-8") as handle:
        want = _load_exact(handle.read())
    assert _same_result(document["result"], want["result"])  # type: ignore[index]
    assert document["inputSha256"] == sha  # type: ignore[index]


def test_realistic_gate_quantities_are_exact(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.json"
    assert main(["run", "--input", str(INPUTS / "realistic.json.gz"), "--input-sha256", REALISTIC[0][1],
                 "--output", str(out)]) == 0  # fmt: skip
    document = json.loads(out.read_text(encoding="utf-8"))
    gates = {g["id"]: g for g in document["gateAssessment"]["gates"]}
    assert document["result"]["pairwise"]["source_list"]["deltaFromPaths"]["macroPrecision"] == 0.12500000000000006
    assert (gates["G4a"]["numericStatus"], gates["G4a"]["measured"]["delta"]) == ("pass", {"exact": "1/8", "value": 0.125})
    assert (gates["G4b"]["numericStatus"], gates["G4b"]["measured"]["reduction"]["exact"]) == ("fail", "5/33")
    assert (gates["G4c"]["numericStatus"], gates["G4c"]["measured"]["delta"]) == ("pass", {"exact": "-1/2", "value": -0.5})
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
