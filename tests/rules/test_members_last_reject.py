"""The last element of every REJECT rule's collection, and every member of its comparisons (issue 25 item 3).

Found by the review pass of issue 25: each loop of a rule check was made to
skip its last element (and each ``and``/``or`` chain to drop one operand),
one at a time, and the whole in-process suite run; the weakenings no test
noticed are pinned here. Each test breaks only the LAST element (or one
member) and asserts the whole SPEC §2.5 line.

- GIT-11: the tracked entries are compared with the items position by
  position; only the last position differs (index kind, or path).
- PREP-11, PREP-16, SL-10: an argv or extension list is an *array* of exactly
  the wanted strings; an object whose member names are those strings, in
  order, is not.
- PREP-3, STALE-11: "X minus K" covers every member whatever the member order;
  a digest member written first still leaves the last member covered.
- TOP-6 … TOP-11 (``--errors all``) and SB-0: every strictness violation of
  the file and of a source-list text is listed, and every bundle holding one
  fails SB-0, the last of several included.

Spec: SPEC.md §3.3, §4.3 (SL-10), §4.4 (PREP-3, PREP-11, PREP-16), §4.5 (GIT-11), §4.6 (STALE-11).
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

from ablation.canonical import canonical_digest
from ablation.errors import RejectedInput
from ablation.experiment import validate_experiment
from tests.builders import prepared as builder
from tests.rules.members_support import PATHS, accepted, items, minimal, rejection, rejections

PREP = "/repositories/0/sourceListPreparation"
B64 = f"{PREP}/trackedPathInventory/stdoutBase64"


def _with_records(records: list[builder.Record]) -> dict[str, Any]:
    """valid-minimal whose git evidence is ``records`` (every digest re-sealed)."""
    obj = minimal()
    repo = obj["repositories"][0]
    inventory = repo["sourceListPreparation"]["trackedPathInventory"]
    inventory["stdoutBase64"] = base64.b64encode(builder.tracked_path_bytes(records)).decode()
    builder.rehash_repository(repo)
    return obj


# ---------------------------------------------------------------- GIT-11: every position, the last included


@pytest.mark.parametrize("k", [0, 5, 11], ids=["first", "middle", "last"])
def test_GIT_11_the_index_kind_at_every_position(k: int) -> None:
    """Git says symlink where the item says regular, at one position only."""
    records = builder.tracked_path_records(items())
    _, oid, stage, path = records[k]
    records[k] = ("120000", oid, stage, path)
    assert rejection(_with_records(records)) == (
        f"GIT-11 at {B64}: expected tracked entry {k} = item {k} ({PATHS[k]!r}, regular); found ({PATHS[k]!r}, symlink)"
    )


def test_GIT_11_the_path_at_the_last_position() -> None:
    """The last record's path sorts last still, but is not the last item's path."""
    records = builder.tracked_path_records(items())
    mode, oid, stage, _ = records[-1]
    records[-1] = (mode, oid, stage, "src/zz.js")
    assert rejection(_with_records(records)) == (
        f"GIT-11 at {B64}: expected tracked entry 11 = item 11 ('src/zeta.js', regular); found ('src/zz.js', regular)"
    )


def test_GIT_11_a_conflicted_last_path() -> None:
    """Stages 1-3 for the last path make it conflicted; the item says regular."""
    records = builder.tracked_path_records(items())
    mode, oid, _, path = records.pop()
    records += [(mode, oid, stage, path) for stage in (1, 2, 3)]
    assert rejection(_with_records(records)) == (
        f"GIT-11 at {B64}: expected tracked entry 11 = item 11 ('src/zeta.js', regular); "
        "found ('src/zeta.js', conflicted)"
    )


# ---------------------------------------------------------------- PREP-11, PREP-16, SL-10: arrays, not objects


def _reseal_prep(obj: dict[str, Any]) -> dict[str, Any]:
    prep = obj["repositories"][0]["sourceListPreparation"]
    prep["observationDigest"] = canonical_digest({k: v for k, v in prep.items() if k != "observationDigest"})
    return obj


def test_PREP_11_an_object_named_like_the_argv_is_not_the_argv() -> None:
    """An object whose member names are the six argv strings, in order (``{nodePath: 0, path: 0, …}``)."""
    obj = minimal()
    prep = obj["repositories"][0]["sourceListPreparation"]
    prep["command"] = dict.fromkeys(prep["command"], 0)
    prep["commandDigest"] = canonical_digest(prep["command"])
    assert rejection(_reseal_prep(obj)) == (
        f"PREP-11 at {PREP}/command: expected the argv ['/usr/bin/node', "
        "'/opt/pinned/agent-scripts/scripts/source-list.mjs', '--repo', '.', '--full-list', '--json']; "
        "found an object with 6 members"
    )


def test_PREP_16_an_object_named_like_the_argv_is_not_the_argv() -> None:
    """The nine git arguments as member names of an object, in order."""
    obj = minimal()
    inventory = obj["repositories"][0]["sourceListPreparation"]["trackedPathInventory"]
    inventory["command"] = dict.fromkeys(builder.GIT_COMMAND, 0)
    inventory["commandDigest"] = canonical_digest(inventory["command"])
    assert rejection(_reseal_prep(obj)) == (
        f"PREP-16 at {PREP}/trackedPathInventory/command: expected the argv ['git', '-C', '.', "
        "'--literal-pathspecs', 'ls-files', '--cached', '--stage', '-z', '--']; found an object with 9 members"
    )


def test_SL_10_an_object_named_like_the_extensions_is_not_the_list() -> None:
    """The 24 default extensions as member names of an object, in order."""
    obj = minimal()
    repo = obj["repositories"][0]
    payload = builder.payload(repo)
    payload["supportedExtensions"] = dict.fromkeys(builder.SUPPORTED_EXTENSIONS, 0)
    builder.rehash_repository(repo, payload=payload)
    builder.rehash_input(obj)  # the cases follow the new rawSha256
    assert rejection(obj) == (
        "SL-10 at /repositories/0/sourceListArtifact/rawJson -> /supportedExtensions: "
        "expected the 24 default extensions in order; found an object with 24 members"
    )


# ---------------------------------------------------------------- "X minus K" whatever the member order


def test_PREP_3_the_digest_covers_every_member_when_it_is_written_first() -> None:
    """observationDigest first, the other members after it: still D(observation minus observationDigest)."""
    obj = minimal()
    repo = obj["repositories"][0]
    prep = repo["sourceListPreparation"]
    repo["sourceListPreparation"] = {"observationDigest": prep.pop("observationDigest"), **prep}
    accepted(obj)


def test_PREP_3_the_last_member_is_covered_when_the_digest_is_first() -> None:
    """A changed last member (trackedPathInventory) with observationDigest written first fails PREP-3."""
    obj = minimal()
    repo = obj["repositories"][0]
    prep = repo["sourceListPreparation"]
    stated = prep.pop("observationDigest")
    repo["sourceListPreparation"] = {"observationDigest": stated, **prep}
    repo["sourceListPreparation"]["trackedPathInventory"]["exitCode"] = 1
    recomputed = canonical_digest(prep)  # prep: the observation minus observationDigest, exitCode 1 included
    assert rejection(obj) == (
        f"PREP-3 at {PREP}/observationDigest: expected D(observation minus observationDigest) = {recomputed}; "
        f"found {stated!r}"
    )


def test_STALE_11_the_digest_covers_every_member_when_it_is_written_first() -> None:
    """sampleDigest first; the sample is still valid, and a changed last member (stalePaths) fails STALE-11."""
    obj = minimal()
    repo = obj["repositories"][0]
    sample = repo["metadataStalenessSample"]
    stated = sample.pop("sampleDigest")
    repo["metadataStalenessSample"] = {"sampleDigest": stated, **sample}
    accepted(obj)
    repo["metadataStalenessSample"]["stalePaths"] = [sample["sampledPaths"][0]]
    assert rejection(obj).startswith(
        "STALE-11 at /repositories/0/metadataStalenessSample/sampleDigest: expected D(sample minus sampleDigest) = "
    )


# ---------------------------------------------------------------- every strictness violation, the last included


def _nth_replace(text: str, old: str, new: str, ks: set[int]) -> str:
    """``text`` with the occurrences number ``ks`` (0-based) of ``old`` replaced by ``new``."""
    parts = text.split(old)
    assert len(parts) > max(ks) + 1, (old, ks)
    return parts[0] + "".join((new if k in ks else old) + part for k, part in enumerate(parts[1:]))


def test_errors_all_lists_every_strictness_violation_of_the_file() -> None:
    """A duplicate member in the first repository and a fraction in the last case: both listed, in text order."""
    commit = '"commit": "' + "a" * 40 + '",'
    text = _nth_replace(builder.dumps(minimal()).decode(), commit, commit + commit, {0})
    text = _nth_replace(text, '"maxItems": 2,', '"maxItems": 2.0,', {9})
    second = len(text[: text.index(commit) + len(commit)].encode("utf-8"))
    assert rejections_of(text.encode()) == [
        "TOP-6 at /repositories/0/commit: expected member names pairwise distinct; found a second member 'commit' "
        f"at byte {second}",
        "TOP-8 at /cases/9/maxItems: expected an integer literal (no fraction, no exponent); found 2.0",
    ]


def test_errors_all_lists_every_strictness_violation_of_a_source_list_text() -> None:
    """A duplicate member in the first and in the last item of the payload text: two TOP-6 lines (SL-4)."""
    obj = minimal()
    repo = obj["repositories"][0]
    member = '"metadataError": null'
    raw = _nth_replace(repo["sourceListArtifact"]["rawJson"], member, member + ", " + member, {0, 11})
    repo["sourceListArtifact"]["rawJson"] = raw
    builder.rehash_input(obj)
    where = "/repositories/0/sourceListArtifact/rawJson"
    first, last = raw.index(member) + len(member) + 2, raw.rindex(member)
    assert rejections(obj) == [
        f"TOP-6 at {where} -> /items/0/metadataError: expected member names pairwise distinct; "
        f"found a second member 'metadataError' at character {first}",
        f"TOP-6 at {where} -> /items/11/metadataError: expected member names pairwise distinct; "
        f"found a second member 'metadataError' at character {last}",
    ]


def test_SB_0_in_every_bundle_the_last_case_included() -> None:
    """A duplicate member in the bundles of the first and the last case: each of them fails SB-0, no other."""
    dup = '"producerWorkflow": "structural-evidence-export-v1",'
    text = _nth_replace(builder.dumps(minimal()).decode(), dup, dup + dup, {0, 9})
    failures = [c.structural_failure for c in validate_experiment(text.encode()).cases]
    assert failures == [
        _sb0(0),
        *[None] * 8,
        _sb0(9),
    ]


def _sb0(c: int) -> str:
    return (
        f"structural_evidence_validation_failed:SB-0 TOP-6 at /cases/{c}/structuralEvidence/expectedProvenance/"
        "producerWorkflow: expected member names pairwise distinct; found a second member 'producerWorkflow'"
    )


def rejections_of(data: bytes) -> list[str]:
    """Every violation ``--errors all`` reports for the input bytes ``data``."""
    with pytest.raises(RejectedInput) as info:
        validate_experiment(data, collect_all=True)
    return [str(v) for v in info.value.violations]


# ---------------------------------------------------------------- CASE-1, REPO-1: an array, not any non-empty value


@pytest.mark.parametrize(
    ("value", "shown"),
    [({"0": {}}, "an object with 1 member"), ("cases", "'cases'"), (1, "1"), (True, "true"), (None, "null")],
    ids=["object", "string", "number", "true", "null"],
)
def test_CASE_1_cases_is_an_array(value: object, shown: str) -> None:
    """A non-empty value that is not an array (an object, a string, a number) fails CASE-1 itself."""
    obj = minimal()
    obj["cases"] = value
    assert rejection(obj) == f"CASE-1 at /cases: expected an array with at least one case; found {shown}"


@pytest.mark.parametrize(
    ("value", "shown"),
    [({"0": {}}, "an object with 1 member"), ("repo", "'repo'"), (1, "1"), ([], "an array of 0 elements")],
    ids=["object", "string", "number", "empty"],
)
def test_REPO_1_repositories_is_a_non_empty_array(value: object, shown: str) -> None:
    """The same for /repositories (REPO-1)."""
    obj = minimal()
    obj["repositories"] = value
    assert rejection(obj) == (f"REPO-1 at /repositories: expected an array with at least one repository; found {shown}")


# ---------------------------------------------------------------- PREP-12, PREP-17: D(command) whatever the command is


def _object_command(obj: dict[str, Any], *, inventory: bool, digest_of_it: bool) -> dict[str, Any]:
    prep = obj["repositories"][0]["sourceListPreparation"]
    target = prep["trackedPathInventory"] if inventory else prep
    target["command"] = dict.fromkeys(target["command"], 0)
    target["commandDigest"] = canonical_digest(target["command"] if digest_of_it else [])
    return _reseal_prep(obj)


def test_PREP_12_holds_for_a_command_that_is_not_an_array_when_the_digest_is_its_own() -> None:
    """``--errors all``: an object as the argv fails PREP-11 only; its commandDigest is D(command), so PREP-12 holds."""
    lines = rejections(_object_command(minimal(), inventory=False, digest_of_it=True))
    assert [line.split(" at ")[0] for line in lines] == ["PREP-11"]


def test_PREP_12_fails_for_a_command_that_is_not_an_array_with_another_digest() -> None:
    """The same object with commandDigest D([]): PREP-11 and PREP-12."""
    lines = rejections(_object_command(minimal(), inventory=False, digest_of_it=False))
    assert lines[1] == f"PREP-12 at {PREP}/commandDigest: expected D(command); found {canonical_digest([])!r}"
    assert [line.split(" at ")[0] for line in lines] == ["PREP-11", "PREP-12"]


def test_PREP_17_holds_for_a_git_command_that_is_not_an_array_when_the_digest_is_its_own() -> None:
    """The same for the git argv: PREP-16 only, then the git evidence checks go on (nothing else fails)."""
    lines = rejections(_object_command(minimal(), inventory=True, digest_of_it=True))
    assert [line.split(" at ")[0] for line in lines] == ["PREP-16"]


def test_PREP_17_fails_for_a_git_command_that_is_not_an_array_with_another_digest() -> None:
    """The git argv as an object with commandDigest D([]): PREP-16 and PREP-17."""
    lines = rejections(_object_command(minimal(), inventory=True, digest_of_it=False))
    assert lines[1] == (
        f"PREP-17 at {PREP}/trackedPathInventory/commandDigest: expected D(command); found {canonical_digest([])!r}"
    )
    assert [line.split(" at ")[0] for line in lines] == ["PREP-16", "PREP-17"]
