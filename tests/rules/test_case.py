"""CASE — the cases: members, identity digests, clone gates, cohort minimum (SPEC §4.7).

One test per rule (the rows of :data:`MUTATIONS`), both bounds of every
limit, every binding to the repository, and whole messages, fail-fast and
with ``--errors all``.
"""

from __future__ import annotations

import json

import pytest

from ablation.canonical import raw_digest
from ablation.contracts.base import Reporter
from ablation.contracts.cases import RepositoryRef, validate_cases
from ablation.experiment import validate_experiment
from tests.builders import prepared
from tests.builders.messages import Snapshot, ids, reject_inputs, reject_messages
from tests.builders.prepared import dumps, rehash_case, valid_minimal
from tests.builders.reject import (
    A40,
    Mutation,
    Obj,
    accepted,
    assert_first_rule,
    case,
    first,
    rejected,
    repo0,
    rows,
    rule_of,
    set_path,
    with_payload,
)


def _drop_cases_of_repo(obj: Obj) -> None:
    obj["cases"] = obj["cases"][:9]


MUTATIONS: list[tuple[str, Mutation]] = [
    ("CASE-1-empty", set_path(("cases",), [])),
    ("CASE-2-unknown-member-candidates", case(0, candidates=[])),
    ("CASE-3-id-blank", case(0, id=" \t")),
    ("CASE-4-unknown-repository", case(0, reseal=False, repositoryId="other")),
    ("CASE-5-question-not-normalized", case(0, question="Locate  alpha request parsing.")),
    ("CASE-6-commit", case(0, repositoryCommit="b" * 40)),
    ("CASE-7-artifact", case(0, sourceListArtifactSha256=raw_digest("x"))),
    ("CASE-8-max-items-over-universe", case(0, maxItems=13)),
    ("CASE-8-max-items-boolean", case(0, maxItems=True)),
    ("CASE-9-truth-empty", case(0, reseal=False, truth=[])),
    ("CASE-10-truth-unknown-path", case(0, reseal=False, truth=["src/omega.js"])),
    ("CASE-10-truth-duplicate", case(0, reseal=False, truth=["src/alpha.js", "src/alpha.js"])),
    ("CASE-10-truth-element-array", case(0, reseal=False, truth=[["src/alpha.js"]])),
    ("CASE-10-truth-element-object", case(0, reseal=False, truth=[{"path": "src/alpha.js"}])),
    ("CASE-11-no-identity-token", case(0, question="Example 12 number 3 scenario")),
    ("CASE-12-intent", case(0, reseal=False, intentSignature=raw_digest("x"))),
    ("CASE-13-target-basis", case(0, reseal=False, truth=["src/beta.js"])),
    ("CASE-14-question-id", case(0, reseal=False, questionId="question:" + raw_digest("x"))),
    ("CASE-15-clone-numbered", case(1, question="Question 2: locate ALPHA request parsing and validation behavior")),
    ("CASE-16-duplicate-truth-set", case(1, truth=["src/alpha.js"])),
    ("CASE-17-duplicate-id", case(1, reseal=False, id="repo-1")),
    ("CASE-19-nine-cases", _drop_cases_of_repo),
]


@pytest.mark.parametrize("mutate", rows(MUTATIONS))
def test_rule(mutate: Mutation, request: pytest.FixtureRequest) -> None:
    assert_first_rule(mutate, rule_of(request))


def test_CASE_18_question_id_uniqueness_by_its_own_function() -> None:
    """CASE-18 is implied by CASE-15 end to end; the rule's own check still fires."""
    obj = valid_minimal()
    repo = repo0(obj)
    ref = RepositoryRef(
        id="repo",
        commit=A40,
        raw_sha256=repo["sourceListArtifact"]["rawSha256"],
        item_count=12,
        item_paths=frozenset(prepared.item_paths(repo)),
    )
    rep = Reporter(collect_all=True)
    cases = obj["cases"]
    cases.append(json.loads(json.dumps(cases[0])))
    cases[-1]["id"] = "repo-11"
    validate_cases(cases, [ref], rep)
    assert [v.rule for v in rep.violations] == ["CASE-15", "CASE-16", "CASE-18"]


def test_nfc_and_nfd_paths_are_different_paths() -> None:
    """SPEC §9.18: no Unicode normalisation — an NFD truth path is not the NFC item."""
    obj = valid_minimal()
    nfc, nfd = "src/z\u00e9ta.js", "src/ze\u0301ta.js"

    def rename(payload: Obj) -> None:
        payload["items"][-1]["path"] = nfc

    with_payload(rename, git=True)(obj)
    assert validate_experiment(dumps(obj)).repositories[0].source_list.universe.paths[-1] == nfc
    case(0, truth=[nfd])(obj)
    assert rejected(dumps(obj)).rule == "CASE-10"


# ---------------------------------------------------------------- CASE


def _question(obj: Obj, k: int, question: str) -> None:
    obj["cases"][k]["question"] = question
    rehash_case(obj["cases"][k], repo0(obj))


def test_CASE_5_question_of_4000_accepted_4001_rejected() -> None:
    obj = valid_minimal()
    q = obj["cases"][0]["question"]
    _question(obj, 0, q + " " + "x" * (4000 - len(q) - 1))
    accepted(obj)
    _question(obj, 0, q + " " + "x" * (4001 - len(q) - 1))
    assert first(obj) == ("CASE-5", "/cases/0/question")


@pytest.mark.parametrize(
    ("value", "ok"),
    [(1, True), (12, True), (0, False), (13, False), (-1, False), ("2", False), (None, False)],
    ids=["1", "12", "0", "13", "-1", "string", "null"],
)
def test_CASE_8_max_items_between_1_and_item_count(value: object, ok: bool) -> None:
    obj = valid_minimal()
    obj["cases"][0]["maxItems"] = value
    rehash_case(obj["cases"][0], repo0(obj))
    if ok:
        accepted(obj)
    else:
        assert first(obj) == ("CASE-8", "/cases/0/maxItems")


def test_CASE_9_truth_not_an_array() -> None:
    obj = valid_minimal()
    obj["cases"][0]["truth"] = "src/alpha.js"
    assert first(obj) == ("CASE-9", "/cases/0/truth")


def test_CASE_17_duplicate_id_names_the_second_case() -> None:
    obj = valid_minimal()
    obj["cases"][4]["id"] = obj["cases"][2]["id"]
    assert first(obj) == ("CASE-17", "/cases/4/id")


def test_CASE_19_ten_cases_of_a_repository_accepted_nine_rejected() -> None:
    obj = valid_minimal()
    assert len(obj["cases"]) == 10
    accepted(obj)
    obj["cases"].pop()
    assert first(obj)[0] == "CASE-19"


# ---------------------------------------------------------------- CASE bindings and digests


@pytest.mark.parametrize(
    ("member", "value", "rule"),
    [
        ("repositoryId", "repo ", "CASE-4"),
        ("repositoryCommit", "A" * 40, "CASE-6"),
        ("sourceListArtifactSha256", "sha256:" + "0" * 64, "CASE-7"),
    ],
    ids=["CASE-4", "CASE-6", "CASE-7"],
)
def test_CASE_4_6_7_bindings_to_the_repository(member: str, value: str, rule: str) -> None:
    obj = valid_minimal()
    obj["cases"][7][member] = value
    rehash_case(obj["cases"][7], repo0(obj))
    assert first(obj) == (rule, f"/cases/7/{member}")


@pytest.mark.parametrize(
    ("member", "rule"), [("intentSignature", "CASE-12"), ("targetBasisDigest", "CASE-13"), ("questionId", "CASE-14")]
)
def test_CASE_12_13_14_digest_of_another_case(member: str, rule: str) -> None:
    obj = valid_minimal()
    obj["cases"][6][member] = obj["cases"][5][member]
    assert first(obj) == (rule, f"/cases/6/{member}")


def test_CASE_13_truth_order_is_free() -> None:
    obj = valid_minimal()
    obj["cases"][0]["truth"] = ["src/beta.js", "src/alpha.js"]
    rehash_case(obj["cases"][0], repo0(obj))
    digest = obj["cases"][0]["targetBasisDigest"]
    accepted(obj)
    obj["cases"][0]["truth"] = ["src/alpha.js", "src/beta.js"]
    rehash_case(obj["cases"][0], repo0(obj))
    assert obj["cases"][0]["targetBasisDigest"] == digest
    accepted(obj)


def test_CASE_16_reordered_truth_is_the_same_truth_set() -> None:
    obj = valid_minimal()
    obj["cases"][0]["truth"] = ["src/alpha.js", "src/zeta.js"]
    obj["cases"][1]["truth"] = ["src/zeta.js", "src/alpha.js"]
    rehash_case(obj["cases"][0], repo0(obj))
    rehash_case(obj["cases"][1], repo0(obj))
    assert first(obj) == ("CASE-16", "/cases/1/targetBasisDigest")


def test_CASE_15_same_tokens_in_another_order_is_the_same_intent() -> None:
    obj = valid_minimal()
    q = obj["cases"][0]["question"]
    words = q.rstrip(".").split(" ")
    obj["cases"][1]["question"] = " ".join(reversed(words)) + "."
    rehash_case(obj["cases"][1], repo0(obj))
    assert first(obj) == ("CASE-15", "/cases/1/intentSignature")


@pytest.mark.parametrize("value", [["repo"], {"id": "repo"}, None, 5], ids=["array", "object", "null", "number"])
def test_CASE_4_repository_id_not_a_string(value: object) -> None:
    obj = valid_minimal()
    obj["cases"][2]["repositoryId"] = value
    error = rejected(obj)
    assert (error.rule, error.where) == ("CASE-4", "/cases/2/repositoryId")


def test_CASE_18_message_names_the_first_case() -> None:
    obj = valid_minimal()
    repo = repo0(obj)
    ref = RepositoryRef(
        id="repo",
        commit="a" * 40,
        raw_sha256=repo["sourceListArtifact"]["rawSha256"],
        item_count=12,
        item_paths=frozenset(prepared.item_paths(repo)),
    )
    cases = obj["cases"]
    cases.append(json.loads(json.dumps(cases[4])))
    cases[-1]["id"] = "repo-11"
    rep = Reporter(collect_all=True)
    validate_cases(cases, [ref], rep)
    assert [str(v) for v in rep.violations][-1] == (
        "CASE-18 at /cases/10/questionId: expected a question id unique in the input; found the same as /cases/4"
    )


def _case_id(obj: Obj, value: str) -> None:
    obj["cases"][0]["id"] = value
    rehash_case(obj["cases"][0], repo0(obj))


def test_CASE_3_id_of_128_accepted() -> None:
    obj = valid_minimal()
    _case_id(obj, "c" * 128)
    accepted(obj)


def test_CASE_3_id_of_129_rejected() -> None:
    obj = valid_minimal()
    _case_id(obj, "c" * 129)
    error = rejected(obj)
    assert (error.rule, error.where) == ("CASE-3", "/cases/0/id")


def test_CASE_3_controls_and_unnormalized_accepted_non_ascii_counted_in_code_points() -> None:
    obj = valid_minimal()
    _case_id(obj, " a\x01  b ")
    accepted(obj)
    _case_id(obj, "\U0001f600" * 128)
    accepted(obj)
    _case_id(obj, "\U0001f600" * 129)
    assert rejected(obj).rule == "CASE-3"


EXTRA_REJECTS: list[tuple[str, Mutation]] = [
    (
        "CASE-4-then-more-cases",
        lambda obj: (
            obj["cases"][1].__setitem__("repositoryId", "elsewhere"),
            obj["cases"][3].__setitem__("maxItems", 0),
        ),
    ),
    (
        "CASE-11-then-more-cases",
        lambda obj: (
            obj["cases"][1].__setitem__("question", "Example 12 number 3 scenario"),
            obj["cases"][3].__setitem__("maxItems", 0),
        ),
    ),
    (
        "CASE-2-then-more-cases",
        lambda obj: (
            obj["cases"][1].__setitem__("extra", 1),
            obj["cases"][1].__setitem__("maxItems", 0),
            obj["cases"][3].__setitem__("maxItems", 0),
            obj["cases"][5].pop("truth"),
            obj["cases"][7].__setitem__("maxItems", 99),
        ),
    ),
]


# ---------------------------------------------------------------- whole messages (tests/rules/messages/case.json)

MESSAGES = Snapshot("case")


@pytest.mark.parametrize(("name", "data"), list(reject_inputs(MUTATIONS, EXTRA_REJECTS)), ids=ids)
def test_reject_messages(name: str, data: bytes) -> None:
    MESSAGES.check(name, reject_messages(data))


def test_zz_snapshot_covers_every_row() -> None:
    """Runs last: writes the file in write mode, else checks that it holds exactly this family's rows."""
    MESSAGES.finish(name for name, _ in reject_inputs(MUTATIONS, EXTRA_REJECTS))
