"""archive and verify-archive read and parse the input once (issue 13, "Read and parse once").

A whole-file parse is counted where every strict parse goes through: the fast
path's decoder in :mod:`ablation.strictjson.fast`, looked up at each call, so a
second parse by any module is seen. The input file's opens are counted on
``os.open``, which ``ablation.files.open_regular`` uses for ``load_input`` and ``output.read_file`` alike.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from ablation.bundle.layout import derive_evidence
from ablation.bundle.prepared import ParsedInput
from ablation.bundle.sums import render_sums
from ablation.cli import main
from ablation.errors import InputRejected
from ablation.pipeline import evaluate, load_input
from ablation.strictjson import decode_utf8, fast, parse_text
from tests.builders.paths import EXAMPLE
from tests.builders.prepared import dumps, valid_minimal


class _CountingDecoder:
    """Stands in for the fast path's decoder; counts decodes of texts ``size`` characters long."""

    def __init__(self, real: json.JSONDecoder, size: int) -> None:
        self.real, self.size, self.count = real, size, 0

    def decode(self, text: str) -> object:
        self.count += len(text) == self.size
        return self.real.decode(text)  # a json.JSONDecoder


@pytest.fixture
def run_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example input, plain and gzipped, each with its results file."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    (tmp_path / "in.json").write_bytes(EXAMPLE.read_bytes())
    (tmp_path / "in.json.gz").write_bytes(gzip.compress(EXAMPLE.read_bytes(), mtime=0))
    for name in ("in.json", "in.json.gz"):
        assert main(["run", "--input", str(tmp_path / name), "--output", str(tmp_path / f"{name}.results")]) == 0
    return tmp_path


def _whole_file_parses(monkeypatch: pytest.MonkeyPatch) -> _CountingDecoder:
    counting = _CountingDecoder(fast._fast_decoder, len(EXAMPLE.read_text(encoding="utf-8")))
    monkeypatch.setattr(fast, "_fast_decoder", counting)
    return counting


def _opens_of(monkeypatch: pytest.MonkeyPatch, path: Path) -> list[str]:
    opened: list[str] = []
    real = os.open

    def counting_open(file: str, flags: int, *args: Any, **kwargs: Any) -> int:
        if kwargs.get("dir_fd") is None and Path(file).resolve() == path.resolve():
            opened.append(str(file))
        return real(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", counting_open)
    return opened


@pytest.mark.parametrize("name", ["in.json", "in.json.gz"])
def test_archive_reads_and_parses_the_input_once(run_dir: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    parses = _whole_file_parses(monkeypatch)
    opens = _opens_of(monkeypatch, run_dir / name)
    bundle = run_dir / f"{name}.tar.gz"
    args = ["archive", "--input", str(run_dir / name), "--results", str(run_dir / f"{name}.results")]
    assert main([*args, "--bundle", str(bundle)]) == 0
    assert (parses.count, len(opens)) == (1, 1)
    parses.count = 0
    assert main(["verify-archive", str(bundle)]) == 0
    assert parses.count == 1


def test_the_bundled_input_is_the_file_as_read(run_dir: Path) -> None:
    compressed = (run_dir / "in.json.gz").read_bytes()
    loaded = load_input(str(run_dir / "in.json.gz"))
    assert loaded.as_given == compressed
    assert loaded.gzip_sha256 == hashlib.sha256(compressed).hexdigest()
    assert loaded.data == EXAMPLE.read_bytes()
    plain = load_input(str(run_dir / "in.json"))
    assert plain.as_given is plain.data


def test_one_parse_gives_the_evidence_and_the_evaluation_of_its_own() -> None:
    data = EXAMPLE.read_bytes()
    parsed = ParsedInput(data)
    files, index = parsed.evidence(input_sha256="0" * 64, input_member="input/in.json")
    again = parsed.evidence(input_sha256="0" * 64, input_member="input/in.json")
    assert (files, index) == again
    alone = parse_text(decode_utf8(data))
    assert (files, index) == derive_evidence(
        alone.value, input_sha256="0" * 64, input_member="input/in.json", violations=alone.violations
    )
    assert len(files) == 209  # verify-archive of the example's bundle: "209 evidence files and evidence/index.json …"
    evaluation, expected = parsed.evaluate(), evaluate(data)
    assert (evaluation.result, evaluation.gate_assessment) == (expected.result, expected.gate_assessment)
    with pytest.raises(RuntimeError, match="the parse was dropped by evaluate"):
        parsed.evidence(input_sha256="0" * 64, input_member="input/in.json")


def test_sums_take_the_digests_already_computed() -> None:
    files = {"b": b"", "a": b"x"}
    assert render_sums(files, {"a": "f" * 64}) == (
        f"{'f' * 64}  a\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  b\n".encode()
    )
    assert render_sums(files, {}) == render_sums(files)


# ---------------------------------------------------------------- the one parse fails fast (mutation testing)


def test_parsed_input_fails_fast_with_the_first_violation() -> None:
    obj = valid_minimal()
    data = dumps(obj).replace(b'"protocol":', b'"protocol":"x","protocol":', 1)
    with pytest.raises(InputRejected) as caught:
        ParsedInput(data)
    assert caught.value.rule == "TOP-6"
    obj["cases"][0]["maxItems"] = 0
    with pytest.raises(InputRejected) as caught:
        ParsedInput(dumps(obj)).evaluate()
    assert caught.value.rule == "CASE-8"
