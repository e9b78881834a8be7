"""Tests of the prepared-input builder (``tests/builders/prepared.py``), the example and the benchmark generator.

The builder is checked against the worked example of SPEC §11 byte for byte and
digest by digest; the re-hash helpers must leave a valid input unchanged; the
synthetic generator must be deterministic and meet the validation rules it
promises (CASE-15, CASE-16, CASE-19, SL-31, RCPT-35 … RCPT-37).
"""

from __future__ import annotations

import base64
import copy
import hashlib
import importlib.util
import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ablation.canonical import canonical_digest, raw_digest
from ablation.text import identity_tokens
from tests.builders import prepared
from tests.builders.paths import ROOT, load_script

MINIMAL_SHA256 = "2a36b1e40c4024c0442e141d53af6b00aaacfe3bfc1322a52956f256f8980d10"
TWO_REPO_SHA256 = "8552d8c46b7f9e9ef4d7e59143bd3f6a35cad46f2b88e19fa5f1dfb0d8045669"
#: SHA-256 of dumps(synthetic(2, 40, 10, evidence_per_receipt=6, present_fraction=(0.6, 0.9), seed=11)).
SYNTHETIC_SMALL_SHA256 = "ccfe6dbe4358ca12be508a0cb18f7f70cb3d9115354981dbefe0c39b2b3eeff9"

# SPEC §11.2: (intentSignature, targetBasisDigest, questionId) of repo-1 … repo-10.
IDENTITY_DIGESTS = [
    (
        "0549f81f476e5697093ee1bb8fa574b7f75e25788685c7a5f97ee216985ce249",
        "4b087856159915ff9f43db03148c0cfb55342633edd017ad7b5895256f90bd82",
        "e8cc751fac3c0848a865183553b6ab326d21c0e6313e06e8010a2df884cff918",
    ),
    (
        "8ac7c502c854a75c69732a3473cde74d67a6ffe5f5f908d3925992ecf3797a7d",
        "7b57e0a939c7f43568dcbb17add8161cc6c9025218207e252d55a4e93dd82369",
        "97faf3244569165855ed0e4ac06ea4326c65d1cbb84b18e40b6a872b1976c641",
    ),
    (
        "f56885cbac6ce4b64d667b63c8aacec3798932153fbeb9dfbc46d6c05b8711b5",
        "a7135aee91266dde4eb49b60a7fe3ca1aafb1a05fbbfad6291e278edcb174516",
        "2b94706258cec8ac1f13d9dd59471f7dab60f39e065f4f401f171adeb9dae13c",
    ),
    (
        "01b1d5688e91c6e39a7ce02fa66ca00f73fa8c936c2f200d487e85d184f52cce",
        "3d3f05cbcb2d9faab6349a7b6698e86ebca759caf2728a346907e4ae2924b64f",
        "06f7bd18cd98a21ce670b03e41382d97b25cfcd7a888f25d165312697d1ecd03",
    ),
    (
        "cffecde643e7b56bd26b65ab2268d6782c727b0265f889e9442aed0e16bf6850",
        "11580b1c59f87e1344201b352c49fffa3b0144394b99075678a23271600143d3",
        "6bf4ac628549da5fef431203053d6053650d96d487a85f8cbad9b42549f53b84",
    ),
    (
        "22dd9da1367e0808aea87b7a764c1c024b2e869cf5a384d51786c34306836aef",
        "2a208d5b7467153f850bddad840d07fb9773dbbd223571797dda518dcbb91968",
        "535b6abdcc06e549558f7a571275554997ce30b9423b7ff6080c41fd1f62c2d9",
    ),
    (
        "536b895f4cf71b0b6e889861c66615f338e86fec8c57a9aca0a214dbad33f4b8",
        "a5ee7e62afb71cee71e377a4daac3af4498aad10020f77028dfd20eef7b8f43a",
        "22e3dcfe5cca7a7adc854354ad1eb0e89adf473ea245b4687f90dbdf224d018f",
    ),
    (
        "75d5cb09c9d322cff9f98612adb10c290ae950e4618098d6ba54bf6caa1db854",
        "156653e6a576023e419a71e01e7e232ad2f248831f6446fc2d3c2dd272f97562",
        "c34e98ac2bfa51e76926026c5fcb383455593b967580c7d0ca071e557bbeadf8",
    ),
    (
        "aad86c9c64ffb42d3e995c991e7754b50ab5d46f4e790e850c71adb16f57f89e",
        "89f884b4ee67c66a68a8b11755d22db8247e9fbfc33b9e8813d2c62ae49b1d21",
        "a01baf8c938184bf2adb5912444075be8fe866ac3319e136276bb8d2ca540546",
    ),
    (
        "d8ae6622f52ddc151b664c5b41d14e5c39de4780c88ffb579168866fb8d03779",
        "bb7c5a3c10536d3daaf21f2bf41a77058fac9bbcc7761a054b7292d2a01996cc",
        "b680642d86a7b0ffe275e06177027cec09a9cccacebd183129a4186cefdf1804",
    ),
]


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _minus(obj: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k != key}


def _load(name: str, path: Path) -> ModuleType:
    return load_script(path, name)


@pytest.fixture(scope="module")
def minimal() -> dict[str, Any]:
    return prepared.valid_minimal()


@pytest.fixture(scope="module")
def two_repo() -> dict[str, Any]:
    return prepared.valid_two_repo()


@pytest.fixture(scope="module")
def small_synthetic() -> dict[str, Any]:
    return prepared.synthetic(2, 40, 10, evidence_per_receipt=6, present_fraction=(0.6, 0.9), seed=11)


# --- SPEC §11.1 / §11.5 bytes -------------------------------------------------------------


def test_valid_minimal_bytes_match_spec_11_1(minimal: dict[str, Any]) -> None:
    data = prepared.dumps(minimal)
    assert len(data) == 161_960
    assert _sha256(data) == MINIMAL_SHA256


def test_valid_two_repo_bytes_match_spec_11_5(two_repo: dict[str, Any]) -> None:
    data = prepared.dumps(two_repo)
    assert len(data) == 382_837
    assert _sha256(data) == TWO_REPO_SHA256


def test_dumps_is_two_space_raw_utf8_with_trailing_newline() -> None:
    assert prepared.dumps({"a": ["é"]}) == '{\n  "a": [\n    "é"\n  ]\n}\n'.encode()


# --- SPEC §11.1 / §11.2 intermediate digests ---------------------------------------------------


def test_repository_digests_match_spec_11_1(minimal: dict[str, Any]) -> None:
    repo = minimal["repositories"][0]
    inventory = repo["sourceListPreparation"]["trackedPathInventory"]
    assert repo["sourceListArtifact"]["rawSha256"] == (
        "sha256:193fc8861672ce1e716f9a49cc806dfc5f593a6d3ca489fe8b6dd54379b38015"
    )
    assert repo["sourceListArtifact"]["rawJson"].endswith("}\n")
    assert len(base64.b64decode(inventory["stdoutBase64"])) == 767
    assert inventory["stdoutSha256"] == "sha256:d74749a8f4b0612625d8bb429b4b8a486d1331f6f17c50e2bbce27ae5e38d150"
    assert inventory["commandDigest"] == "sha256:b1f07241a29c137e07c2d0de654d74da7102ba763daeb19d1a11be689da12272"
    assert repo["sourceListPreparation"]["commandDigest"] == (
        "sha256:75d8233991c9b59edfd4bd8b0b2ed9be54fe45564628c2b04627589b2bcd9bca"
    )
    assert repo["sourceListPreparation"]["observationDigest"] == (
        "sha256:a5b704a5baa6b47699917ebf6e959a55ad8c6fce3f41b472a6ed08268c2d9670"
    )
    assert repo["metadataStalenessSample"]["sampleDigest"] == (
        "sha256:cd0676ec24c41976db642809e9852014daab9b67735bfc326abb990b7cde554d"
    )


@pytest.mark.parametrize("number", range(1, 11), ids=[f"repo-{n}" for n in range(1, 11)])
def test_case_identity_digests_match_spec_11_2(minimal: dict[str, Any], number: int) -> None:
    case = minimal["cases"][number - 1]
    intent, basis, question_id = IDENTITY_DIGESTS[number - 1]
    assert case["id"] == f"repo-{number}"
    assert case["intentSignature"] == "sha256:" + intent
    assert case["targetBasisDigest"] == "sha256:" + basis
    assert case["questionId"] == "question:sha256:" + question_id


def test_structural_digests_of_repo_1_match_spec_11_2(minimal: dict[str, Any]) -> None:
    bundle = minimal["cases"][0]["structuralEvidence"]
    observation = bundle["executionObservation"]
    raw = observation["rawEvidence"]
    assert (
        bundle["expectedRequestDigest"]
        == bundle["receipt"]["requestDigest"]
        == ("sha256:1446d8d6f56e6ac92cbf0a3e12d9621f29905a63576491548d5596b815b6f9ff")
    )
    assert bundle["receipt"]["receiptDigest"] == (
        "sha256:d204767fb25a97af540bdc106e1877504795546dd6310bc525bfcb3bf9871298"
    )
    assert raw["requestSha256"] == "sha256:fb5c08a792d259bf80d50386b08e5f031671ad1af014b1038c7f87d0de46b30b"
    assert (
        raw["receiptSha256"]
        == raw["stdoutSha256"]
        == ("sha256:af4969bb05a5718b22da64c7bf913e46f0453fa6a46f9641995d0c1194e8c597")
    )
    assert raw["stderrSha256"] == "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert raw["processSha256"] == "sha256:2974ebbacd8c9b9feae97af13c3a2ec659440a720b8ffa4f479ff976b75c734f"
    assert raw["stateSha256"] == "sha256:e5ed33f0c77221d32121a11c6dcee03316853f2715651fd62cdcfc5a17dd5d0e"
    assert raw["transcriptSha256"] == "sha256:357157da27afe03e05cae7b2c46aa241d9bf430a44b39fb2f7acfef9ed25b695"
    assert observation["commandDigest"] == "sha256:10ad16673aff94a89e59df78f966535fd199d7a2cae8c54d82bfad8205381ef5"
    assert observation["observationDigest"] == (
        "sha256:fae70fd1ce21b7432d65500dd4d61523a1625746b28eb8c371fb9d00c1225958"
    )
    assert [e["id"] for e in bundle["receipt"]["evidence"]] == [
        "candidate:sha256:66430d70df6d03a2e042b45e6033c58fdd9897fa5e6194d332c2afe109829858"
    ]


def test_structural_digests_of_repo_2_match_spec_11_2(minimal: dict[str, Any]) -> None:
    bundle = minimal["cases"][1]["structuralEvidence"]
    assert bundle["receipt"]["receiptDigest"] == (
        "sha256:db596ad8b37d271ab85f33eaf9563c20be6b906007547fcc08769da28e5b0c3c"
    )
    assert bundle["executionObservation"]["observationDigest"] == (
        "sha256:3bb69b23b52efb5b0929af3630eb4f3ddb5f013ce240b25c9a0b00249d63a5b0"
    )


def test_every_raw_text_ends_with_one_newline(minimal: dict[str, Any]) -> None:
    raw = minimal["cases"][0]["structuralEvidence"]["executionObservation"]["rawEvidence"]
    for member in ("requestJson", "receiptJson", "stdout", "transcriptJson", "processJson", "stateJson"):
        assert raw[member].endswith("}\n") and not raw[member].endswith("\n\n"), member
    assert raw["stderr"] == ""


def test_repo_b_digests_match_spec_11_5(two_repo: dict[str, Any]) -> None:
    repo_b = two_repo["repositories"][1]
    assert repo_b["id"] == "repo-b"
    assert repo_b["sourceListArtifact"]["rawSha256"] == (
        "sha256:9770d90e9ad39b82a27f094189ff675450312828ec114457bc2dbc98379f4ada"
    )
    assert repo_b["sourceListPreparation"]["observationDigest"] == (
        "sha256:b17989d49f2800ea2bc1344a4016583b7200bbd98bb5d20e90d72795e0239795"
    )
    assert two_repo["cases"][0]["structuralEvidence"]["executionObservation"]["cleanup"]["completed"] is False


# --- building blocks -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "options", "expected"),
    [
        ("present", {}, ("regular", "regular", "owner record", None)),
        ("absent", {}, ("regular", "regular", None, None)),
        ("invalid", {}, ("regular", "regular", None, "invalid_summary")),
        ("unreadable", {}, ("regular", "missing", None, "ENOENT: file vanished during listing")),
        ("not_applicable", {"index_kind": "gitlink"}, ("gitlink", "gitlink", None, None)),
    ],
    ids=["present", "absent", "invalid", "unreadable", "not_applicable"],
)
def test_source_list_item_defaults_follow_status(
    status: str, options: dict[str, Any], expected: tuple[Any, ...]
) -> None:
    item = prepared.source_list_item("Src/Main.PY", status, **options)
    assert list(item) == [
        "path",
        "indexKind",
        "extension",
        "worktreeKind",
        "metadataStatus",
        "summary",
        "readWhen",
        "metadataError",
    ]
    assert item["extension"] == ".py"
    assert (item["indexKind"], item["worktreeKind"], item["summary"], item["metadataError"]) == expected


def test_tracked_path_records_encode_index_kinds_and_extra_paths() -> None:
    items = [
        prepared.source_list_item("a.js", "not_applicable", index_kind="symlink"),
        prepared.source_list_item("b.go", "not_applicable", index_kind="conflicted"),
        prepared.source_list_item("c.rs"),
    ]
    data = prepared.tracked_path_bytes(prepared.tracked_path_records(items, ["README.md"]))
    oid = prepared.GIT_OBJECT_ID
    records = [
        ("100644", 0, "README.md"),
        ("120000", 0, "a.js"),
        ("100644", 1, "b.go"),
        ("100644", 2, "b.go"),
        ("100644", 3, "b.go"),
        ("100644", 0, "c.rs"),
    ]
    assert data == b"".join(f"{mode} {oid} {stage}\t{path}\x00".encode() for mode, stage, path in records)
    with pytest.raises(ValueError, match="supported extension"):
        prepared.tracked_path_records(items, ["extra.py"])


def test_case_with_bundle_none_writes_null(minimal: dict[str, Any]) -> None:
    repo = minimal["repositories"][0]
    case = prepared.case(repo, "x", "Locate alpha.", ["src/alpha.js"], 1, bundle=None)
    assert case["structuralEvidence"] is None
    assert list(case)[-1] == "structuralEvidence"


def test_structural_bundle_limits_grow_to_fit_evidence(minimal: dict[str, Any]) -> None:
    repo = minimal["repositories"][0]
    evidence = [prepared.match("src/alpha.js", line, "x" * 1000) for line in range(30)]
    limits = prepared.structural_bundle(repo, "Locate alpha.", evidence)["expectedRequest"]["limits"]
    assert limits == {"maxCandidates": 30, "maxCandidatesPerFile": 30, "maxEvidenceBytes": 65536, "timeoutMs": 30000}
    empty = prepared.structural_bundle(repo, "Locate alpha.", [])["expectedRequest"]["limits"]
    assert empty == prepared.DEFAULT_LIMITS


# --- re-hash helpers --------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["valid_minimal", "valid_two_repo", "example"])
def test_rehash_input_leaves_a_valid_input_unchanged(preset: str) -> None:
    if preset == "example":
        obj = _load("make_example", ROOT / "examples" / "make_example.py").build_example()
    else:
        obj = getattr(prepared, preset)()
    before = prepared.dumps(obj)
    assert prepared.dumps(prepared.rehash_input(obj)) == before


def test_rehash_input_leaves_synthetic_unchanged(small_synthetic: dict[str, Any]) -> None:
    obj = copy.deepcopy(small_synthetic)
    assert prepared.dumps(prepared.rehash_input(obj)) == prepared.dumps(small_synthetic)


def test_rehash_repository_after_payload_change_rebinds_and_rehashes(minimal: dict[str, Any]) -> None:
    obj = copy.deepcopy(minimal)
    repo = obj["repositories"][0]
    old = repo["sourceListArtifact"]["rawSha256"]
    changed = prepared.payload(repo)
    changed["items"][0]["summary"] = "a different owner record"
    prepared.rehash_repository(repo, payload=changed)
    new = repo["sourceListArtifact"]["rawSha256"]
    prep, sample = repo["sourceListPreparation"], repo["metadataStalenessSample"]
    assert new != old
    assert new == raw_digest(repo["sourceListArtifact"]["rawJson"])
    assert prep["rawArtifactSha256"] == sample["rawArtifactSha256"] == new
    assert prep["observationDigest"] == canonical_digest(_minus(prep, "observationDigest"))
    assert sample["sampleDigest"] == canonical_digest(_minus(sample, "sampleDigest"))
    assert json.loads(repo["sourceListArtifact"]["rawJson"])["items"][0]["summary"] == "a different owner record"


def test_rehash_repository_keeps_a_broken_binding(minimal: dict[str, Any]) -> None:
    repo = copy.deepcopy(minimal["repositories"][0])
    repo["sourceListPreparation"]["rawArtifactSha256"] = "sha256:" + "0" * 64  # the PREP-5 defect under test
    changed = prepared.payload(repo)
    changed["items"][1]["summary"] = "changed"
    prepared.rehash_repository(repo, payload=changed)
    prep = repo["sourceListPreparation"]
    assert prep["rawArtifactSha256"] == "sha256:" + "0" * 64
    assert prep["observationDigest"] == canonical_digest(_minus(prep, "observationDigest"))


def test_rehash_repository_regenerates_git_evidence(minimal: dict[str, Any]) -> None:
    repo = copy.deepcopy(minimal["repositories"][0])
    changed = prepared.payload(repo)
    changed["items"][-1]["path"] = "src/zulu.js"
    prepared.rehash_repository(repo, payload=changed, regenerate_git=True)
    inventory = repo["sourceListPreparation"]["trackedPathInventory"]
    stdout = base64.b64decode(inventory["stdoutBase64"])
    assert stdout.endswith(b"\tsrc/zulu.js\0")
    assert inventory["stdoutSha256"] == raw_digest(stdout)


def test_rehash_case_follows_truth_and_ignores_truth_order(minimal: dict[str, Any]) -> None:
    repo = minimal["repositories"][0]
    case = copy.deepcopy(minimal["cases"][0])
    case["truth"] = ["src/zeta.js", "src/alpha.js"]
    prepared.rehash_case(case, repo)
    reordered = prepared.rehash_case({**copy.deepcopy(case), "truth": ["src/alpha.js", "src/zeta.js"]}, repo)
    assert case["targetBasisDigest"] == reordered["targetBasisDigest"] != minimal["cases"][0]["targetBasisDigest"]
    assert case["intentSignature"] == canonical_digest(identity_tokens(case["question"]))
    assert case["questionId"] == "question:" + canonical_digest(
        {
            "repositoryId": "repo",
            "intentSignature": case["intentSignature"],
            "targetBasisDigest": case["targetBasisDigest"],
        }
    )


def test_rehash_bundle_after_observation_change(minimal: dict[str, Any]) -> None:
    bundle = copy.deepcopy(minimal["cases"][0]["structuralEvidence"])
    bundle["executionObservation"]["process"]["exitCode"] = 1
    prepared.rehash_bundle(bundle)
    observation = bundle["executionObservation"]
    raw = observation["rawEvidence"]
    assert json.loads(raw["processJson"]) == observation["process"]
    assert raw["processSha256"] == raw_digest(raw["processJson"])
    assert json.loads(raw["transcriptJson"])["processSha256"] == raw["processSha256"]
    assert raw["transcriptSha256"] == raw_digest(raw["transcriptJson"])
    assert observation["observationDigest"] == canonical_digest(_minus(observation, "observationDigest"))
    # the receipt is untouched
    assert bundle["receipt"] == minimal["cases"][0]["structuralEvidence"]["receipt"]


def test_rehash_bundle_after_evidence_change(minimal: dict[str, Any]) -> None:
    bundle = copy.deepcopy(minimal["cases"][0]["structuralEvidence"])
    receipt = bundle["receipt"]
    receipt["evidence"][0]["identity"]["range"]["end"]["column"] = 9
    prepared.rehash_bundle(bundle)
    raw = bundle["executionObservation"]["rawEvidence"]
    assert receipt["evidence"][0]["id"] == "candidate:" + canonical_digest(receipt["evidence"][0]["identity"])
    assert receipt["receiptDigest"] == canonical_digest(_minus(receipt, "receiptDigest"))
    assert bundle["executionObservation"]["receiptDigest"] == receipt["receiptDigest"]
    assert json.loads(raw["receiptJson"]) == receipt
    assert raw["stdout"] == raw["receiptJson"]


def test_rehash_bundle_keeps_named_texts(minimal: dict[str, Any]) -> None:
    bundle = copy.deepcopy(minimal["cases"][0]["structuralEvidence"])
    raw = bundle["executionObservation"]["rawEvidence"]
    raw["requestJson"] = '{"question": NaN}\n'  # the OBS-22 defect under test
    prepared.rehash_bundle(bundle, keep=["requestJson"])
    assert raw["requestJson"] == '{"question": NaN}\n'
    assert raw["requestSha256"] == raw_digest(raw["requestJson"])
    assert bundle["executionObservation"]["requestArtifact"]["sha256"] == raw["requestSha256"]
    assert json.loads(raw["transcriptJson"])["requestSha256"] == raw["requestSha256"]


def test_rehash_bundle_tolerates_missing_members(minimal: dict[str, Any]) -> None:
    bundle = copy.deepcopy(minimal["cases"][0]["structuralEvidence"])
    del bundle["executionObservation"]["rawEvidence"]
    del bundle["receipt"]["evidence"]
    prepared.rehash_bundle(bundle)
    observation = bundle["executionObservation"]
    assert observation["observationDigest"] == canonical_digest(_minus(observation, "observationDigest"))


# --- synthetic ----------------------------------------------------------------------------


def test_synthetic_is_deterministic(small_synthetic: dict[str, Any]) -> None:
    again = prepared.synthetic(2, 40, 10, evidence_per_receipt=6, present_fraction=(0.6, 0.9), seed=11)
    data = prepared.dumps(small_synthetic)
    assert prepared.dumps(again) == data
    assert _sha256(data) == SYNTHETIC_SMALL_SHA256
    other = prepared.synthetic(2, 40, 10, evidence_per_receipt=6, present_fraction=(0.6, 0.9), seed=12)
    assert prepared.dumps(other) != data


def test_synthetic_meets_the_rules_it_promises(small_synthetic: dict[str, Any]) -> None:
    obj = small_synthetic
    repos = {repo["id"]: repo for repo in obj["repositories"]}
    assert len(repos) == 2
    for repo in repos.values():
        paths = prepared.item_paths(repo)
        assert len(paths) == 40
        encoded = [p.encode() for p in paths]
        assert encoded == sorted(set(encoded))  # SL-31
        assert all(40 <= len(p) <= 80 for p in encoded)
        present = sum(1 for i in json.loads(repo["sourceListArtifact"]["rawJson"])["items"] if i["summary"])
        assert 0.6 * 40 <= present <= 0.9 * 40
    per_repository = Counter(c["repositoryId"] for c in obj["cases"])
    assert per_repository == dict.fromkeys(repos, 10)  # CASE-19
    assert len({(c["repositoryId"], c["intentSignature"]) for c in obj["cases"]}) == 20  # CASE-15
    assert len({(c["repositoryId"], c["targetBasisDigest"]) for c in obj["cases"]}) == 20  # CASE-16
    for case in obj["cases"]:
        known = set(prepared.item_paths(repos[case["repositoryId"]]))
        assert set(case["truth"]) <= known
        receipt = case["structuralEvidence"]["receipt"]
        limits = receipt["request"]["limits"]
        evidence = receipt["evidence"]
        assert len(evidence) == 6
        assert {e["identity"]["path"] for e in evidence} <= known  # SB-15
        assert len({e["id"] for e in evidence}) == 6  # RCPT-30
        assert len(evidence) <= limits["maxCandidates"]  # RCPT-35
        assert sum(e["byteCount"] for e in evidence) <= limits["maxEvidenceBytes"]  # RCPT-36
        assert max(Counter(e["identity"]["path"] for e in evidence).values()) <= limits["maxCandidatesPerFile"]


def test_synthetic_rejects_impossible_shapes() -> None:
    with pytest.raises(ValueError, match="paths of 5-8 bytes"):
        prepared.synthetic(1, 100, 10, seed=1, path_bytes=(5, 8))
    with pytest.raises(ValueError, match="cannot make 500 distinct paths of 14-15 bytes"):
        prepared.synthetic(1, 500, 10, seed=1, path_bytes=(14, 15))
    with pytest.raises(ValueError, match="distinct truth sets"):
        prepared.synthetic(1, 1, 10, seed=1)
    with pytest.raises(ValueError, match="unsupported shape"):
        prepared.synthetic(1, 20_001, 10, seed=1)


# --- examples/ and benchmarks/ ------------------------------------------------------------


def test_example_regenerates_the_committed_bytes() -> None:
    make_example = _load("make_example", ROOT / "examples" / "make_example.py")
    data = prepared.dumps(make_example.build_example())
    assert data == (ROOT / "examples" / "prepared-input.json").read_bytes()
    expected_line = f"{_sha256(data)}  prepared-input.json\n"
    assert (ROOT / "examples" / "prepared-input.json.sha256").read_text(encoding="utf-8") == expected_line


def test_example_has_the_documented_shape() -> None:
    obj = json.loads((ROOT / "examples" / "prepared-input.json").read_text(encoding="utf-8"))
    coverage = {}
    for repo in obj["repositories"]:
        items = json.loads(repo["sourceListArtifact"]["rawJson"])["items"]
        coverage[repo["id"]] = (sum(i["metadataStatus"] == "present" for i in items), len(items))
    assert coverage == {"ledger-api": (14, 18), "console-web": (6, 15), "edge-router": (10, 13)}
    assert Counter(c["repositoryId"] for c in obj["cases"]) == {"ledger-api": 10, "console-web": 10, "edge-router": 10}
    assert any(not c["question"].isascii() for c in obj["cases"])
    assert "src/i18n/übersetzungen.ts" in prepared.item_paths(obj["repositories"][1])


def test_benchmark_scale_s_matches_its_recorded_sha256() -> None:
    generate = _load("benchmarks_generate", ROOT / "benchmarks" / "generate.py")
    assert _sha256(generate.generate("S")) == generate.EXPECTED_SHA256["S"]


def _verify_command() -> list[str] | None:
    """``python -m ablation verify`` once the package has it, else None."""
    if importlib.util.find_spec("ablation.cli") is None:
        return None
    probe = subprocess.run(
        [sys.executable, "-m", "ablation", "verify", "--help"], cwd=ROOT, capture_output=True, check=False
    )
    return [sys.executable, "-m", "ablation", "verify", "--input"] if probe.returncode == 0 else None


@pytest.mark.parametrize("preset", ["valid_minimal", "valid_two_repo", "synthetic", "example"])
def test_builder_output_verifies(preset: str, tmp_path: Path, small_synthetic: dict[str, Any]) -> None:
    command = _verify_command()
    if command is None:
        pytest.skip("`python -m ablation verify` is not available yet")
    target = tmp_path / "input.json"
    if preset == "example":
        shutil.copyfile(ROOT / "examples" / "prepared-input.json", target)
    else:
        obj = small_synthetic if preset == "synthetic" else getattr(prepared, preset)()
        target.write_bytes(prepared.dumps(obj))
    completed = subprocess.run([*command, str(target)], cwd=ROOT, capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr
