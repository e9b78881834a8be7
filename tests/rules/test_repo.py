"""REPO — the repositories (SPEC §4.2): one test per rule, both bounds, whole messages.

Each row of :data:`MUTATIONS` breaks exactly one rule of SPEC §11.1's valid
input and re-seals every other digest (``tests/builders/reject.py``); the
other tests pin what a name alone does not: both bounds of every limit and
every member a rule names.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from ablation.errors import RejectedInput
from ablation.experiment import validate_experiment
from tests.builders.messages import Snapshot, ids, reject_inputs, reject_messages
from tests.builders.prepared import dumps, rehash_input, valid_minimal
from tests.builders.reject import (
    Mutation,
    Obj,
    accepted,
    assert_first_rule,
    first,
    minimal_with,
    one_page,
    repo0,
    rows,
    rule_of,
    set_path,
    with_payload,
)


def _second_repo_same_id(obj: Obj) -> None:
    obj["repositories"].append(json.loads(json.dumps(repo0(obj))))


def _empty_universe(payload: Obj) -> None:
    payload["items"] = []
    payload.update(totalCount=0, returnedCount=0, pageSize=1)


MUTATIONS: list[tuple[str, Mutation]] = [
    ("REPO-1-empty", set_path(("repositories",), [])),
    ("REPO-2-unknown-member", lambda obj: repo0(obj).__setitem__("metadataCoverage", 1)),
    ("REPO-2-not-object", set_path(("repositories", 0), "repo")),
    (
        "REPO-3-not-normalized",
        lambda obj: (
            repo0(obj).__setitem__("id", "repo  x"),
            [c.__setitem__("repositoryId", "repo  x") for c in obj["cases"]],
            rehash_input(obj),
        ),
    ),
    ("REPO-4-uppercase-commit", set_path(("repositories", 0, "commit"), "A" * 40)),
    ("REPO-5-empty-universe", with_payload(_empty_universe, git=True)),
    ("REPO-6-duplicate-id", _second_repo_same_id),
]


@pytest.mark.parametrize("mutate", rows(MUTATIONS))
def test_rule(mutate: Mutation, request: pytest.FixtureRequest) -> None:
    assert_first_rule(mutate, rule_of(request))


# ---------------------------------------------------------------- REPO


def _repo_id(value: str) -> Callable[[Obj], None]:
    def change(obj: Obj) -> None:
        repo0(obj)["id"] = value
        for c in obj["cases"]:
            c["repositoryId"] = value
        rehash_input(obj)

    return change


def test_REPO_3_id_of_128_accepted_129_rejected() -> None:
    accepted(minimal_with(_repo_id("r" * 128)))
    accepted(minimal_with(_repo_id("\u00e9" * 128)))
    assert first(minimal_with(_repo_id("r" * 129))) == ("REPO-3", "/repositories/0/id")


@pytest.mark.parametrize(
    "value",
    ["\u3000", " repo", "repo ", "re\tpo", "", "re\u00a0po"],
    ids=["blank", "leading", "trailing", "tab", "empty", "nbsp"],
)
def test_REPO_3_id_blank_or_not_normalized(value: str) -> None:
    assert first(minimal_with(_repo_id(value))) == ("REPO-3", "/repositories/0/id")


@pytest.mark.parametrize("value", ["a" * 39, "a" * 41, "a" * 63, "a" * 65, "g" * 40, 40], ids=str)
def test_REPO_4_commit_is_40_or_64_lowercase_hex(value: object) -> None:
    obj = valid_minimal()
    repo0(obj)["commit"] = value
    assert first(obj) == ("REPO-4", "/repositories/0/commit")


def test_REPO_5_only_for_the_pinned_raw_text_errors_all() -> None:
    obj = one_page(0, 1)
    with pytest.raises(RejectedInput) as caught:
        validate_experiment(dumps(obj), collect_all=True)
    assert [v.rule for v in caught.value.violations][:1] == ["REPO-5"]
    repo0(obj)["sourceListArtifact"]["rawSha256"] = "0" * 64
    with pytest.raises(RejectedInput) as caught:
        validate_experiment(dumps(obj), collect_all=True)
    assert "REPO-5" not in [v.rule for v in caught.value.violations]
    assert caught.value.violations[0].rule == "SL-3"


EXTRA_REJECTS: list[tuple[str, Mutation]] = [
    ("REPO-3-alone", lambda obj: obj["repositories"][0].__setitem__("id", "repo ")),
    (
        "REPO-2-then-source-list-text",
        lambda obj: (
            obj["repositories"][0].__setitem__("extra", 1),
            obj["repositories"][0]["sourceListArtifact"].__setitem__(
                "rawJson",
                obj["repositories"][0]["sourceListArtifact"]["rawJson"].replace('"ok": true', '"ok": true, "ok": 1'),
            ),
        ),
    ),
]


# ---------------------------------------------------------------- whole messages (tests/rules/messages/repo.json)

MESSAGES = Snapshot("repo")


@pytest.mark.parametrize(("name", "data"), list(reject_inputs(MUTATIONS, EXTRA_REJECTS)), ids=ids)
def test_reject_messages(name: str, data: bytes) -> None:
    MESSAGES.check(name, reject_messages(data))


def test_zz_snapshot_covers_every_row() -> None:
    """Runs last: writes the file in write mode, else checks that it holds exactly this family's rows."""
    MESSAGES.finish(name for name, _ in reject_inputs(MUTATIONS, EXTRA_REJECTS))
