"""STALE — the metadata staleness sample (SPEC §4.6): one test per rule, bounds, messages."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ablation.canonical import raw_digest
from tests.builders.messages import Snapshot, ids, reject_inputs, reject_messages
from tests.builders.prepared import rehash_repository, valid_minimal
from tests.builders.reject import (
    SAMPLE,
    Mutation,
    Obj,
    accepted,
    assert_first_rule,
    first,
    minimal_with,
    rejected,
    repo0,
    rows,
    rule_of,
    sample,
    sample_paths,
    set_item,
    set_path,
)

MUTATIONS: list[tuple[str, Mutation]] = [
    ("STALE-1-unknown-member", sample(lambda s: s.__setitem__("x", 1))),
    ("STALE-2-commit", sample(lambda s: s.__setitem__("commit", "b" * 40))),
    ("STALE-3-artifact", sample(lambda s: s.__setitem__("rawArtifactSha256", raw_digest("x")))),
    ("STALE-4-method-blank", sample(lambda s: s.__setitem__("method", "\u3000"))),
    ("STALE-5-sampled-not-array", sample(lambda s: s.__setitem__("sampledPaths", "src/alpha.js"))),
    ("STALE-6-stale-not-array", sample(lambda s: s.__setitem__("stalePaths", None))),
    ("STALE-7-unsorted", sample(lambda s: s.__setitem__("sampledPaths", ["src/beta.js", "src/alpha.js"]))),
    ("STALE-8-empty", sample(lambda s: s.__setitem__("sampledPaths", []))),
    ("STALE-9-not-an-item", sample(lambda s: s.__setitem__("sampledPaths", ["src/omega.js"]))),
    ("STALE-10-stale-not-sampled", sample(lambda s: s.__setitem__("stalePaths", ["src/beta.js"]))),
    ("STALE-11-digest", set_path(("repositories", 0, "metadataStalenessSample", "sampleDigest"), raw_digest("x"))),
]


@pytest.mark.parametrize("mutate", rows(MUTATIONS))
def test_rule(mutate: Mutation, request: pytest.FixtureRequest) -> None:
    assert_first_rule(mutate, rule_of(request))


# ---------------------------------------------------------------- STALE


def _method(value: object) -> Callable[[Obj], None]:
    def change(obj: Obj) -> None:
        repo0(obj)["metadataStalenessSample"]["method"] = value
        rehash_repository(repo0(obj))

    return change


def test_STALE_4_method_of_2000_accepted_2001_rejected() -> None:
    accepted(minimal_with(_method("m" * 2000)))
    assert first(minimal_with(_method("m" * 2001))) == ("STALE-4", f"{SAMPLE}/method")


@pytest.mark.parametrize("value", ["a  b", " a", "a\tb", "", None], ids=["double", "leading", "tab", "empty", "null"])
def test_STALE_4_method_normalized_nonblank(value: object) -> None:
    assert first(minimal_with(_method(value))) == ("STALE-4", f"{SAMPLE}/method")


def test_STALE_9_sampled_path_of_an_absent_item() -> None:
    obj = valid_minimal()
    set_item(obj, 1, metadataStatus="absent", summary=None)
    sample = repo0(obj)["metadataStalenessSample"]
    sample["sampledPaths"] = ["src/alpha.js", "src/beta.js"]
    rehash_repository(repo0(obj))
    assert first(obj) == ("STALE-9", f"{SAMPLE}/sampledPaths/1")


@pytest.mark.parametrize("member", ["commit", "rawArtifactSha256"])
def test_STALE_2_STALE_3_bindings(member: str) -> None:
    obj = valid_minimal()
    repo0(obj)["metadataStalenessSample"][member] = "b" * 40 if member == "commit" else raw_digest("x")
    rehash_repository(repo0(obj))
    assert first(obj) == ("STALE-2" if member == "commit" else "STALE-3", f"{SAMPLE}/{member}")


# ---------------------------------------------------------------- STALE-7: distinct and increasing


@pytest.mark.parametrize(
    ("sampled", "stale", "where"),
    [
        (["src/alpha.js", "src/alpha.js"], [], "sampledPaths/1"),
        (["src/alpha.js", "src/beta.js"], ["src/alpha.js", "src/alpha.js"], "stalePaths/1"),
        (["src/beta.js", "src/alpha.js"], [], "sampledPaths/1"),
        (["src/alpha.js", "src/beta.js"], ["src/beta.js", "src/alpha.js"], "stalePaths/1"),
        (["src/alpha.js", "/src/beta.js"], [], "sampledPaths/1"),
    ],
    ids=["duplicate-sampled", "duplicate-stale", "unsorted-sampled", "unsorted-stale", "unsafe-path"],
)
def test_STALE_7_duplicate_sampled_paths(sampled: list[str], stale: list[str], where: str) -> None:
    obj = valid_minimal()
    sample = repo0(obj)["metadataStalenessSample"]
    sample["sampledPaths"], sample["stalePaths"] = sampled, stale
    rehash_repository(repo0(obj))
    error = rejected(obj)
    assert (error.rule, error.where) == ("STALE-7", f"{SAMPLE}/{where}"), str(error)


def test_STALE_7_two_distinct_increasing_paths_accepted() -> None:
    obj = valid_minimal()
    sample = repo0(obj)["metadataStalenessSample"]
    sample["sampledPaths"], sample["stalePaths"] = ["src/alpha.js", "src/beta.js"], ["src/beta.js"]
    rehash_repository(repo0(obj))
    accepted(obj)


EXTRA_REJECTS: list[tuple[str, Mutation]] = [
    ("STALE-7-several", sample_paths(["/a.js", 7, "src/alpha.js", "src/alpha.js", "src/beta.js/"], [])),
    ("STALE-7-stale-several", sample_paths(["src/alpha.js"], ["/x.js", "src/alpha.js", "src/alpha.js"])),
    (
        "STALE-9-STALE-10-several",
        sample_paths(["src/alpha.js", "src/omega.js", "src/zulu.js"], ["src/x.js", "src/y.js"]),
    ),
    ("STALE-5-STALE-6", sample_paths(None, 5)),
    ("STALE-5-valid-stale", sample_paths("src/alpha.js", ["src/alpha.js"])),
    ("STALE-6-valid-sampled", sample_paths(["src/alpha.js"], {})),
    ("STALE-8-empty-stale-outside", sample_paths([], ["src/alpha.js"])),
]


# ---------------------------------------------------------------- whole messages (tests/rules/messages/stale.json)

MESSAGES = Snapshot("stale")


@pytest.mark.parametrize(("name", "data"), list(reject_inputs(MUTATIONS, EXTRA_REJECTS)), ids=ids)
def test_reject_messages(name: str, data: bytes) -> None:
    MESSAGES.check(name, reject_messages(data))


def test_zz_snapshot_covers_every_row() -> None:
    """Runs last: writes the file in write mode, else checks that it holds exactly this family's rows."""
    MESSAGES.finish(name for name, _ in reject_inputs(MUTATIONS, EXTRA_REJECTS))
