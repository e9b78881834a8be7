"""Issue 22 Why 5: ``notes --bundle b.tar.gz`` reads the bundle directly and recomputes, or refuses to draft.

No ``--results``, no extraction: the notes equal those of ``--results`` plus
``--bundle``, "What to cite" says the result was recomputed and in which
evaluator identity, and a bundle whose results file differs from the
recomputation is exit 3 with nothing drafted.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import tarfile
from pathlib import Path

import pytest

from ablation.bundle import sums, tarformat
from tests.notes.review_notes_made import captured, make_example


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The example's run, a key pair and its signed bundle."""
    return make_example(tmp_path_factory.mktemp("notes-bundle"))


def _fingerprint(pem: Path) -> str:
    import base64  # noqa: PLC0415

    body = "".join(line for line in pem.read_text(encoding="ascii").splitlines() if not line.startswith("-----"))
    return "sha256:" + hashlib.sha256(base64.b64decode(body)).hexdigest()


def test_notes_of_the_bundle_alone_recompute_without_extracting(
    example: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """notes --bundle alone: recomputed, nothing extracted, the same notes."""

    def no_extraction(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the bundle was extracted")

    monkeypatch.setattr(tarfile.TarFile, "extractall", no_extraction)
    monkeypatch.setattr(tarfile.TarFile, "extract", no_extraction)
    monkeypatch.setattr(tarfile, "open", no_extraction)
    monkeypatch.chdir(tmp_path)
    key = _fingerprint(example["k.pub"])
    code, alone, err = captured(
        "notes", "--bundle", example["b.tar.gz"], "--public-key", example["k.pub"], "--expect-key", key
    )
    assert (code, err) == (0, "")
    assert os.listdir(tmp_path) == []
    recorded = json.loads(example["results.json"].read_bytes())
    assert (
        "| Result recomputed | **yes**: `ablation notes` read the bundle without extracting it, recomputed `result` "
        "and `gateAssessment` from its input, and they equal its `results.json` byte for byte; recomputed in the "
        f"evaluator identity `{recorded['evaluator']['identityDigest']}` (the bundle's `identity.json`) |"
    ) in alone
    assert f"| Bundle signature | verified with the public key `{key}`, the one `--expect-key` named |" in alone
    _, both, _ = captured(
        "notes",
        "--results",
        example["results.json"],
        "--bundle",
        example["b.tar.gz"],
        "--public-key",
        example["k.pub"],
        "--expect-key",
        key,
    )
    assert both == alone


def test_a_recompressed_bundle_is_cited_as_such(example: dict[str, Path], tmp_path: Path) -> None:
    """A re-compressed bundle is cited as re-compressed."""
    path = tmp_path / "r.tar.gz"
    path.write_bytes(gzip.compress(gzip.decompress(example["b.tar.gz"].read_bytes()), compresslevel=1, mtime=0))
    code, out, err = captured("notes", "--bundle", path)
    assert (code, err) == (0, "")
    assert (
        f"| Evidence bundle SHA-256 | `{hashlib.sha256(path.read_bytes()).hexdigest()}` (**re-compressed**: not the "
        "bytes `archive` wrote; the content SHA-256 below names the same files, cite it) |"
    ) in out


def _members(bundle: Path) -> dict[str, bytes | None]:
    out: dict[str, bytes | None] = {}
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(bundle.read_bytes()))) as tar:
        for info in tar.getmembers():
            handle = tar.extractfile(info)
            out[info.name] = None if handle is None else handle.read()
    return out


def test_a_results_file_that_differs_from_the_recomputation_is_not_drafted(
    example: dict[str, Path], tmp_path: Path
) -> None:
    """The issue's edited file, bundled with consistent SHA256SUMS (unsigned): only the recomputation refuses it."""
    members = _members(example["b.tar.gz"])
    top = next(iter(members))
    value = json.loads(members[f"{top}/results.json"] or b"")
    for gate in value["gateAssessment"]["gates"]:
        if gate["id"] in ("G1", "G4b"):
            gate.update(status="pass", numericStatus="pass")
    value["gateAssessment"]["numericGatesPassed"] = True
    files = {name[len(top) + 1 :]: data for name, data in members.items() if data is not None}
    files["results.json"] = (json.dumps(value, indent=2) + "\n").encode()
    del files["SHA256SUMS.sig"], files["SHA256SUMS"]
    files["SHA256SUMS"] = sums.render_sums(files)
    path = tmp_path / "edited.tar.gz"
    path.write_bytes(tarformat.bundle_bytes(top, files))
    code, out, err = captured("notes", "--bundle", path)
    assert (code, out) == (3, "")
    assert err == (
        f"ablation: {top}/results.json: gateAssessment differs from the recomputation at "
        '/gateAssessment/gates/0/status: recorded "pass", recomputed "fail"\n'
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ((), "ablation: give the results file (--results), its bundle (--bundle), or both\n"),
        (
            ("--bundle", "{b}", "--expect-key", "sha256:" + "0" * 64),
            "ablation: --expect-key names the key that must have signed: give that key with --public-key too\n",
        ),
    ],
)
def test_usage_errors(args: tuple[str, ...], said: str, example: dict[str, Path]) -> None:
    """Neither file, or --expect-key without a key: exit 2."""
    code, out, err = captured("notes", *(a.format(b=example["b.tar.gz"]) for a in args))
    assert (code, out, err) == (2, "", said)
