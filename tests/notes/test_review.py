"""Notes a reviewer can cite and look at (issue 12 item 4): what to cite, the signature, the container
image, the per-treatment charts, and every new string rendered inert."""

from __future__ import annotations

import base64
import contextlib
import copy
import hashlib
import io
import json
import re
from pathlib import Path

import pytest

from ablation import notes
from ablation.results_file import load_results
from tests.builders.paths import INPUTS
from tests.builders.run import run_ablation

STRUCTURAL = INPUTS / "realistic-structural.json.gz"
STRUCTURAL_SHA256 = "f476b09e4cf485720ba3749f7e74d805b1b0eccb5c1a45df92d36077790c0841"
# SubjectPublicKeyInfo of an Ed25519 key: this 12-byte DER prefix, then the 32 raw bytes.
_SPKI_PREFIX = bytes.fromhex("302a300506032b6570032100")


def _pem(raw: bytes) -> bytes:
    body = base64.b64encode(_SPKI_PREFIX + raw).decode()
    return f"-----BEGIN PUBLIC KEY-----\n{body}\n-----END PUBLIC KEY-----\n".encode()


def _fingerprint(pem: Path) -> str:
    lines = pem.read_text().splitlines()
    der = base64.b64decode("".join(line for line in lines if not line.startswith("-----")))
    return "sha256:" + hashlib.sha256(der).hexdigest()


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The operator's day on the structural real-repository input: results, a signed and an unsigned bundle, keys."""
    if not STRUCTURAL.is_file():
        pytest.skip(f"{STRUCTURAL} is not available (../shared is absent)")
    folder = tmp_path_factory.mktemp("day")
    f = {
        name: folder / name
        for name in ("results.json", "signed.tar.gz", "unsigned.tar.gz", "k.pem", "k.pub", "other.pem", "other.pub")
    }
    assert (
        run_ablation("run", "--input", STRUCTURAL, "--input-sha256", STRUCTURAL_SHA256, "--output", f["results.json"])
        == 0
    )
    assert run_ablation("keygen", "--private-key", f["k.pem"], "--public-key", f["k.pub"]) == 0
    assert run_ablation("keygen", "--private-key", f["other.pem"], "--public-key", f["other.pub"]) == 0
    assert (
        run_ablation(
            "archive",
            "--input",
            STRUCTURAL,
            "--results",
            f["results.json"],
            "--bundle",
            f["signed.tar.gz"],
            "--sign-key",
            f["k.pem"],
        )
        == 0
    )
    assert (
        run_ablation("archive", "--input", STRUCTURAL, "--results", f["results.json"], "--bundle", f["unsigned.tar.gz"])
        == 0
    )
    return f


def _notes(capsys: pytest.CaptureFixture[str], *args: object) -> str:
    capsys.readouterr()
    assert run_ablation("notes", *args) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    return captured.out


def _section(text: str, heading: str) -> str:
    return text.split(f"\n{heading}\n\n", 1)[1].split("\n## ", 1)[0]


def _sums_sha256(bundle: Path) -> str:
    """SHA-256 of the bundle's SHA256SUMS, from verify-archive's report."""
    lines = [line for line in _verify_archive_report(bundle) if line.startswith("  content sha256")]
    return lines[0].split()[2]


def _verify_archive_report(bundle: Path) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert run_ablation("verify-archive", bundle) == 0
    return out.getvalue().splitlines()


def test_what_to_cite_comes_first_with_every_digest(day: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    text = _notes(
        capsys, "--results", day["results.json"], "--bundle", day["signed.tar.gz"], "--public-key", day["k.pub"]
    )
    assert text.split("\n## ")[1].startswith("What to cite\n")
    recorded = json.loads(day["results.json"].read_bytes())
    bundle_sha = hashlib.sha256(day["signed.tar.gz"].read_bytes()).hexdigest()
    assert _section(text, "## What to cite").splitlines() == [
        "| What | Value |",
        "|---|---|",
        f"| Prepared input SHA-256 (JSON bytes) | `{STRUCTURAL_SHA256}` (pinned by the run) |",
        f"| Prepared input file SHA-256 (the .json.gz) | `{hashlib.sha256(STRUCTURAL.read_bytes()).hexdigest()}` |",
        f"| Results file SHA-256 | `{hashlib.sha256(day['results.json'].read_bytes()).hexdigest()}` |",
        # issue 22 item 5
        "| Result recomputed | **yes**: `ablation notes` read the bundle without extracting it, recomputed "
        "`result` and `gateAssessment` from its input, and they equal its `results.json` byte for byte; recomputed "
        f"in the evaluator identity `{recorded['evaluator']['identityDigest']}` (the bundle's `identity.json`) |",
        f"| Evidence bundle SHA-256 | `{bundle_sha}` |",
        f"| Bundle content SHA-256 (of `SHA256SUMS`) | `{_sums_sha256(day['signed.tar.gz'])}` |",
        f"| Evaluator identityDigest | `{recorded['evaluator']['identityDigest']}` |",
        "| Evaluator source revision | none: an unsealed development checkout; no commit names this code |",
        "| Container image ID | not recorded (the run was not made in the container image) |",
        f"| Bundle signature | verified with the public key `{_fingerprint(day['k.pub'])}` |",
    ]


def test_signed_and_verified(day: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    text = _notes(
        capsys, "--results", day["results.json"], "--bundle", day["signed.tar.gz"], "--public-key", day["k.pub"]
    )
    assert _section(text, "## Signature") == (
        "`SHA256SUMS.sig` is a valid Ed25519 signature over `SHA256SUMS` by the public key whose fingerprint "
        f"(SHA-256 of its DER SubjectPublicKeyInfo) is `{_fingerprint(day['k.pub'])}`. Compare it with the "
        "fingerprint from a trusted source: a signature proves only that the holder of that key signed "
        "`SHA256SUMS`, which names every file of the bundle by its SHA-256.\n"
    )


def test_signed_but_unchecked(day: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    text = _notes(capsys, "--results", day["results.json"], "--bundle", day["signed.tar.gz"])
    assert _section(text, "## Signature") == (
        "The bundle holds `SHA256SUMS.sig`, which was **not checked**: no public key was given. Check it with "
        "`ablation notes --public-key P` or `ablation verify-archive --public-key P`.\n"
    )
    assert "| Bundle signature | present, **not checked** (no `--public-key` given) |" in text


def test_unsigned(day: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    text = _notes(capsys, "--results", day["results.json"], "--bundle", day["unsigned.tar.gz"])
    assert _section(text, "## Signature") == (
        "The bundle is **not signed** (it holds no `SHA256SUMS.sig`); its digests are not tied to a key.\n"
    )
    assert "| Bundle signature | none (the bundle is not signed) |" in text
    text = _notes(capsys, "--results", day["results.json"])
    assert _section(text, "## Signature") == "No bundle was given (`--bundle`), so there is no signature to report.\n"


def test_a_key_that_did_not_sign_is_refused(day: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert (
        run_ablation(
            "notes",
            "--results",
            day["results.json"],
            "--bundle",
            day["signed.tar.gz"],
            "--public-key",
            day["other.pub"],
        )
        == 3
    )
    captured = capsys.readouterr()
    top = "ablation-bundle-" + STRUCTURAL_SHA256[:12]
    assert (captured.out, captured.err) == (
        "",
        (
            f"ablation: {top}/SHA256SUMS.sig: not a valid signature over SHA256SUMS by public key "
            f"{_fingerprint(day['other.pub'])}\n"
        ),
    )
    assert (
        run_ablation(
            "notes", "--results", day["results.json"], "--bundle", day["unsigned.tar.gz"], "--public-key", day["k.pub"]
        )
        == 3
    )
    assert capsys.readouterr().err == f"ablation: {top}/SHA256SUMS.sig: missing, but a public key was given\n"


def test_a_weak_key_or_a_key_without_bundle_is_a_usage_error(
    day: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    weak = tmp_path / "weak.pub"
    weak.write_bytes(_pem(bytes([1]) + bytes(31)))  # the identity point
    capsys.readouterr()
    assert (
        run_ablation("notes", "--results", day["results.json"], "--bundle", day["signed.tar.gz"], "--public-key", weak)
        == 2
    )
    assert capsys.readouterr() == (
        "",
        (
            f"ablation: public key {str(weak)!r} is a weak Ed25519 key: a small-order point (y = 1), which verifies "
            "forged signatures\n"
        ),
    )
    assert run_ablation("notes", "--results", day["results.json"], "--public-key", day["k.pub"]) == 2
    assert capsys.readouterr() == (
        "",
        ("ablation: --public-key checks a bundle's signature: give the bundle with --bundle\n"),
    )


def _with_asserted(results: Path, folder: Path, image: str | None, base: str | None) -> Path:
    recorded = json.loads(results.read_bytes())
    recorded["evaluator"]["asserted"] = {"imageDigest": image, "baseImage": base}
    path = folder / "asserted.results.json"
    path.write_text(json.dumps(recorded, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def test_image_digest_disagreeing_with_the_results_file(
    day: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recorded_id, given = "sha256:" + "1" * 64, "sha256:" + "2" * 64
    results = _with_asserted(day["results.json"], tmp_path, recorded_id, "ablation-base:bookworm")
    capsys.readouterr()
    assert run_ablation("notes", "--results", results, "--image-digest", given) == 0
    captured = capsys.readouterr()
    assert captured.err == (
        f"ablation: warning: --image-digest {given!r} differs from the image ID the results "
        f"file records, {recorded_id!r}; the notes show both\n"
    )
    assert _section(captured.out, "## Container image") == "\n".join(
        [
            "| What | Value | Basis |",
            "|---|---|---|",
            f"| Image ID (results file) | `{recorded_id}` | **asserted** at run time "
            "(`evaluator.asserted.imageDigest`); "
            "ablation did not measure or verify it |",
            f"| Image ID (`--image-digest`) | `{given}` | **asserted** by the caller of `ablation notes`; "
            "ablation did not "
            "measure or verify it |",
            "| Base image | `ablation-base:bookworm` | **asserted** at run time (`evaluator.asserted.baseImage`); "
            "ablation did not measure or verify it |",
            "",
            f"**Warning:** `--image-digest` `{given}` differs from the image ID the results file records, "
            f"`{recorded_id}`. The run did not record the image you named: cite the recorded one, or find out which "
            "image made the results.",
            "",
        ]
    )
    assert (
        f"| Container image ID | `{recorded_id}` (asserted by the run); `--image-digest` says `{given}`: "
        '**they differ**, see "Container image" |'
    ) in captured.out
    # the same ID given again agrees: one row, no warning
    text = _notes(capsys, "--results", results, "--image-digest", recorded_id)
    assert "Image ID (`--image-digest`)" not in text
    assert "**Warning:**" not in text
    assert f"| Container image ID | `{recorded_id}` (asserted by the run, not measured) |" in text


_CHART_LINE = re.compile(
    r"(---|config:|  xyChart:|    width: 760|    height: \d+|    showLegend: true|  themeVariables:|"
    r'    xyChart:|      plotColorPalette: "#2f6db5"|xychart-beta horizontal|    title "[A-Za-z_ :]+"|'
    r'    x-axis "repository and arm" \["r\d+ [a-z_]+"(, "r\d+ [a-z_]+")*\]|'
    r'    y-axis "[a-z =/]+" 0 --> \d+|'
    r'    bar "[a-z ]+" \[\d+(\.\d{1,4})?(, \d+(\.\d{1,4})?)*\])'
)


def _charts(text: str) -> dict[str, list[str]]:
    """Each chart's lines by the treatment its section compares and the chart's index (issue 22: two per section;
    their figures are checked in tests/notes/test_review_notes_charts.py)."""
    charts = {}
    for treatment in ("source_list", "structural", "fusion"):
        section = text.split(f"### paths vs `{treatment}`\n", 1)[1].split("\n### ", 1)[0]
        for k, block in enumerate(section.split("```mermaid\n")[1:]):
            charts[f"{treatment} {k}"] = block.split("\n```", 1)[0].splitlines()
    return charts


def test_decimals_are_rounded_to_four_places_after_the_exact_fraction(
    day: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    text = _notes(capsys, "--results", day["results.json"])
    assert (
        "| **equal-repository mean** (3 repositories) | 30 | 23/120 (≈0.1917) | 13/30 (≈0.4333) | 29/120 (≈0.2417) "
        "| 2/5 (0.4) | 157/180 (≈0.8722) | 97/30 (≈3.2333) | 34/15 (≈2.2667) | 29/97 (≈0.2990) | 37/30 (≈1.2333) "
        "| 4/15 (≈0.2667) |"
    ) in text
    decimals = re.findall(r"\((≈?-?\d+\.\d+)\)", text)
    assert decimals and all(len(d.split(".")[1]) <= 4 for d in decimals)


HOSTILE_ID = 'r0 | `x` <b>\n]"--> [evil'


def test_every_new_string_is_inert(day: dict[str, Path]) -> None:
    recorded = json.loads(day["results.json"].read_bytes())
    hostile = copy.deepcopy(recorded)
    result = hostile["result"]
    result["repositories"][0]["id"] = HOSTILE_ID
    for population in [*result["pairwise"].values(), result["allFour"]]:
        population["perRepository"] = {
            HOSTILE_ID if k == "dspx" else k: v for k, v in population["perRepository"].items()
        }
    hostile["evaluator"]["asserted"] = {"imageDigest": "sha256:`|<i>", "baseImage": "base\n## ADOPT [x](y)"}
    text = notes.build_notes(
        load_results(json.dumps(hostile).encode(), "results"),
        results_sha256="0" * 64,
        bundle_sha256="1" * 64,
        sums_sha256="2" * 64,
        signature=notes.Signature("verified", "sha256:`k`|<b>"),
        image_digest="*x*\u202e|",
    )
    lines = text.splitlines()
    assert '| `r0` | ``"r0 \\| `x` <b>\\n]\\"--> [evil"`` |' in lines
    assert (
        "| Image ID (results file) | ``sha256:`\\|<i>`` | **asserted** at run time "
        "(`evaluator.asserted.imageDigest`); ablation did not measure or verify it |" in lines
    )
    assert (
        "| Image ID (`--image-digest`) | `*x*\\u202e\\|` | **asserted** by the caller of `ablation notes`; "
        "ablation did not measure or verify it |" in lines
    )
    assert (
        "| Base image | `base␊## ADOPT [x](y)` | **asserted** at run time (`evaluator.asserted.baseImage`); "
        "ablation did not measure or verify it |" in lines
    )
    assert "| Bundle signature | verified with the public key ``sha256:`k`\\|<b>`` |" in lines
    assert (
        "**Warning:** `--image-digest` `*x*\\u202e|` differs from the image ID the results file records, "
        "``sha256:`|<i>``. The run did not record the image you named: cite the recorded one, or find out "
        "which image made the results."
    ) in lines
    assert "is ``sha256:`k`|<b>``. Compare it" in text
    assert "evil" not in "\n".join(line for block in _charts(text).values() for line in block)
    for block in _charts(text).values():
        assert all(_CHART_LINE.fullmatch(line) for line in block), block
    assert [line for line in lines if line.startswith("#")] == [
        line for line in lines if line.startswith(("# ", "## ", "### "))
    ]
    assert "<b>" not in text.replace("``sha256:`k`\\|<b>``", "").replace("``sha256:`k`|<b>``", "").replace(
        '``"r0 \\| `x` <b>\\n]\\"--> [evil"``', ""
    )
