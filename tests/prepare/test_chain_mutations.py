"""Single-byte mutations of a prepared input and of a preparation directory, and the rule each one meets.

PREPARE.md §10 "Mutation", on the chain's ``prepared.json`` (tests/prepare/chainfixtures.py):

(i) one ASCII letter or digit changed to another in each captured region, nothing
    rehashed: ``ablation verify`` rejects naming the rule this evaluator reports
    first (pinned here; mostly the digest of the enclosing record), or the case's
    structural arm is unavailable under OBS-3;
(ii) with the enclosing digests recomputed (``tests/builders/prepared.rehash_input``,
    ``rehash_bundle``), the deeper rule names the byte: GIT-11, SL-31, GIT-8, GIT-10 and
    the raw-text rules OBS-25 … OBS-36 (the first SPEC §4.12's order reaches, pinned);
(iii) one byte of a raw file of D: ``assemble`` exits 3 naming it (ASM-2); of a frozen
    file: ``check-freeze`` exits 3 naming it (FRZ-2); of the signature: exit 3 (FRZ-8).

In (ii), a changed mode that stays in GIT-8's grammar (``100644`` → ``100645``, still
``regular`` by SPEC §4.5 step 3) or another hex digit of an object id is no error after
rehashing: SPEC compares neither. Without rehashing, PREP-3 catches every such byte (i).

Spec: PREPARE.md §10 "Mutation"; §11 criterion 8.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ablation.cli import main as ablation_main
from tests.builders.prepared import rehash_bundle, rehash_input
from tests.prepare.chainfixtures import Chain, copy_d, staleness_review
from tests.prepare.prepfixtures import errors_of, run_prepare

_NEXT = {
    **{chr(c): chr(c + 1) for c in range(ord("0"), ord("9"))},
    "9": "8",
    **{chr(c): chr(c + 1) for c in range(ord("a"), ord("f"))},
    "f": "e",
}
OBS_3 = (
    "structural_evidence_validation_failed:OBS-3 at executionObservation/observationDigest: expected D(observation "
    "minus observationDigest) = "
)


def flip(data: bytes, marker: str) -> bytes:
    """``data`` with one ASCII letter or digit after ``marker`` changed to another (hex stays hex).

    The byte is inside a word (the two bytes before it are letters or digits) and no
    backslash is near, so it is never a quote or part of an escape.
    """
    i = data.index(marker.encode()) + len(marker)
    while not (all(chr(b).isalnum() and b < 0x80 for b in data[i - 2 : i + 1]) and b"\\" not in data[i - 6 : i]):
        i += 1
    c = chr(data[i])
    new = _NEXT.get(c) or ("a" if c == "z" else "A" if c == "Z" else chr(ord(c) + 1))
    return data[:i] + new.encode() + data[i + 1 :]


def verify(data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, Any]:
    """``ablation verify --json`` of ``data`` in this process: the exit code, the rejection line, the summary."""
    path = tmp_path / f"mutated-{len(list(tmp_path.iterdir()))}.json"
    path.write_bytes(data)
    capsys.readouterr()
    code = ablation_main(["verify", "--input", str(path), "--json"])
    out, err = capsys.readouterr()
    rejected = err.splitlines()[-1] if code else ""
    return code, rejected, json.loads(out) if code == 0 else None


def _data(chain: Chain) -> bytes:
    return (chain.d / "prepared.json").read_bytes()


@pytest.mark.parametrize(
    ("marker", "line"),
    [
        ('"rawJson": "', "SL-3 at /repositories/0/sourceListArtifact/rawSha256: expected R(rawJson) = sha256:"),
        (
            '"stdoutBase64": "',
            "PREP-3 at /repositories/0/sourceListPreparation/observationDigest: expected D("
            "observation minus observationDigest) = sha256:",
        ),
        (
            '"observationDigest": "sha256:',
            "PREP-3 at /repositories/0/sourceListPreparation/observationDigest: "
            "expected D(observation minus observationDigest) = sha256:",
        ),
        (
            '"sampleDigest": "sha256:',
            "STALE-11 at /repositories/0/metadataStalenessSample/sampleDigest: expected D("
            "sample minus sampleDigest) = sha256:",
        ),
        (
            '"truth": [\n        "',
            "CASE-10 at /cases/0/truth/0: expected the path of an item of the repository; found 'srd/alpha.py'",
        ),
    ],
    ids=["rawJson", "stdoutBase64", "observationDigest", "sampleDigest", "truth"],
)
def test_i_a_flipped_byte_rejects_with_the_enclosing_rule(
    marker: str, line: str, chain: Chain, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, rejected, _ = verify(flip(_data(chain), marker), tmp_path, capsys)
    assert (code, rejected[: len(line)]) == (4, line)


@pytest.mark.parametrize(
    "member", ["requestJson", "receiptJson", "stdout", "stateJson", "processJson", "transcriptJson"]
)
def test_i_a_flipped_byte_in_a_raw_sci_text_makes_the_case_unavailable_under_obs_3(
    member: str, chain: Chain, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, summary = verify(flip(_data(chain), f'"{member}": "'), tmp_path, capsys)
    assert code == 0
    failures = [c["structuralFailure"] for c in summary["cases"][:3]]
    assert failures[0].startswith(OBS_3) and failures[1:] == [None, None]


def _dump(value: object) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _raw_path(chain: Chain, old: str, new: str) -> bytes:
    value = json.loads(_data(chain))
    artifact = value["repositories"][0]["sourceListArtifact"]
    assert f'"path": "{old}"' in artifact["rawJson"]
    artifact["rawJson"] = artifact["rawJson"].replace(f'"path": "{old}"', f'"path": "{new}"')
    return _dump(rehash_input(value))


def _git_records(chain: Chain, change: Callable[[bytes], bytes]) -> bytes:
    value = json.loads(_data(chain))
    inventory = value["repositories"][0]["sourceListPreparation"]["trackedPathInventory"]
    records = base64.b64decode(inventory["stdoutBase64"])
    changed = change(records)
    assert len(changed) == len(records) and sum(a != b for a, b in zip(changed, records, strict=True)) == 1
    inventory["stdoutBase64"] = base64.b64encode(changed).decode("ascii")
    return _dump(rehash_input(value))


_GIT = "at /repositories/0/sourceListPreparation/trackedPathInventory/stdoutBase64: expected"


@pytest.mark.parametrize(
    ("mutate", "line"),
    [
        (
            lambda c: _raw_path(c, "link.sh", "lint.sh"),  # neither truth nor sampled; UTF-8 order kept
            f"GIT-11 {_GIT} tracked entry 2 = item 2 ('lint.sh', symlink); found ('link.sh', symlink)",
        ),
        (
            lambda c: _raw_path(c, "link.sh", "zink.sh"),  # the order broken
            "SL-31 at /repositories/0/sourceListArtifact/rawJson -> /items/3/path: expected a path after 'zink.sh' in "
            "UTF-8 order (unique); found 'src/Upper.JS'",
        ),
        (
            lambda c: _raw_path(c, "src/alpha.py", "src/alphb.py"),  # a truth and sampled path: GIT-11 comes first
            f"GIT-11 {_GIT} tracked entry 4 = item 4 ('src/alphb.py', regular); found ('src/alpha.py', regular)",
        ),
        (
            lambda c: _git_records(c, lambda b: b.replace(b"100644 ", b"10064a ", 1)),
            f"GIT-8 {_GIT} '<6 digits> <hex oid> <stage 0-3>\\t<path>'; found record 0: '10064a ",
        ),
        (
            lambda c: _git_records(c, lambda b: b[:7] + b"g" + b[8:]),
            f"GIT-8 {_GIT} '<6 digits> <hex oid> <stage 0-3>\\t<path>'; found record 0: '100644 g",
        ),
        (
            lambda c: _git_records(c, lambda b: b.replace(b" 0\tsrc/beta.js", b" 4\tsrc/beta.js", 1)),
            f"GIT-8 {_GIT} '<6 digits> <hex oid> <stage 0-3>\\t<path>'; found record ",
        ),
        (
            lambda c: _git_records(c, lambda b: b.replace(b"src/beta.js\0", b"src/beta.ks\0", 1)),
            f"GIT-10 {_GIT} 11 tracked source paths (one per item); found 10 tracked source paths",
        ),
        (
            lambda c: _git_records(c, lambda b: b.replace(b"link.sh\0", b"lint.sh\0", 1)),
            f"GIT-11 {_GIT} tracked entry 2 = item 2 ('link.sh', symlink); found ('lint.sh', symlink)",
        ),
    ],
    ids=[
        "rawJson-path",
        "rawJson-order",
        "rawJson-truth",
        "git-mode",
        "git-object-id",
        "git-stage",
        "git-extension",
        "git-path",
    ],
)
def test_ii_rehashed_the_deeper_rule_names_the_byte(
    mutate: Callable[[Chain], bytes], line: str, chain: Chain, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, rejected, _ = verify(mutate(chain), tmp_path, capsys)
    assert (code, rejected[: len(line)]) == (4, line)


def test_ii_in_grammar_mode_and_object_id_changes_are_no_error_once_rehashed(
    chain: Chain, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for change in (lambda b: b.replace(b"100644 ", b"100645 ", 1), lambda b: b[:7] + b"1" + b[8:]):
        code, rejected, _ = verify(_git_records(chain, change), tmp_path, capsys)
        assert (code, rejected) == (0, "")


def _sci_text(chain: Chain, member: str, change: Callable[[str], str]) -> bytes:
    value = json.loads(_data(chain))
    bundle = value["cases"][0]["structuralEvidence"]
    raw = bundle["executionObservation"]["rawEvidence"]
    changed = change(raw[member])
    assert len(changed) == len(raw[member]) and changed != raw[member]
    raw[member] = changed
    rehash_bundle(bundle, keep=(member,))
    return _dump(value)


def _head(text: str) -> str:
    return re.sub(r'("headBefore": ")(.)', lambda m: m.group(1) + ("1" if m.group(2) == "0" else "0"), text, count=1)


@pytest.mark.parametrize(
    ("member", "change", "failure"),
    [
        (
            "stateJson",
            _head,
            "OBS-33 at executionObservation/rawEvidence/stateJson: expected a text whose value is "
            "canonically equal to targetState",
        ),
        (
            "processJson",
            lambda t: t.replace('"exitCode": 0', '"exitCode": 1', 1),
            "OBS-32 at executionObservation/rawEvidence/processJson: expected a text whose value is canonically equal "
            "to process",
        ),
        (
            "requestJson",
            lambda t: t.replace("Where", "Wherf", 1),
            "OBS-25 at executionObservation/rawEvidence/requestJson: expected a text whose value is canonically equal "
            "to receipt.request",
        ),
        (
            "receiptJson",
            lambda t: t.replace("stand-in", "stand-im", 1),
            "OBS-26 at executionObservation/rawEvidence/receiptJson: expected a text whose value is canonically equal "
            "to receipt",
        ),
        (
            "stdout",
            lambda t: t.replace("stand-in", "stand-im", 1),
            "OBS-29 at executionObservation/rawEvidence/stdout: expected exactly receiptJson",
        ),
        (
            "transcriptJson",
            lambda t: t.replace("experimental", "experimentam", 1),
            "OBS-36 at executionObservation/rawEvidence/transcriptJson -> /command: expected canonically the "
            "observation's command",
        ),
    ],
    ids=["stateJson", "processJson", "requestJson", "receiptJson", "stdout", "transcriptJson"],
)
def test_ii_a_byte_in_one_raw_sci_text_meets_that_texts_own_rule(
    member: str,
    change: Callable[[str], str],
    failure: str,
    chain: Chain,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, summary = verify(_sci_text(chain, member, change), tmp_path, capsys)
    assert code == 0
    assert summary["cases"][0]["structuralFailure"].startswith(f"structural_evidence_validation_failed:{failure}")


def test_iii_a_changed_raw_file_stops_assemble_naming_it(chain: Chain, tmp_path: Path) -> None:
    d = copy_d(chain.made.dir, tmp_path / "D")
    stdout = d / "raw/cases/0001/attempt-1/stdout"
    data = stdout.read_bytes()
    stdout.write_bytes(flip(data, '"'))
    review = tmp_path / "staleness-review.toml"
    review.write_text(staleness_review(d), encoding="utf-8")
    ran = run_prepare("assemble", "--dir", d, "--staleness-review", review)
    recorded = hashlib.sha256(data).hexdigest()
    assert (ran.code, errors_of(ran)) == (
        3,
        [
            f"ASM-2 at {stdout}: expected the SHA-256 the ledger records, {recorded}; found "
            f"{hashlib.sha256(stdout.read_bytes()).hexdigest()}: the file changed"
        ],
    )
    assert sorted(p.name for p in d.iterdir()) == sorted(p.name for p in chain.made.dir.iterdir())
