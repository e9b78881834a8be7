"""PREP — the preparation observation (SPEC §4.4): one test per rule, every member and argv position, messages."""

from __future__ import annotations

import pytest

from ablation.canonical import canonical_digest, raw_digest
from tests.builders.messages import Snapshot, ids, reject_inputs, reject_messages
from tests.builders.prepared import valid_minimal
from tests.builders.reject import (
    PREP,
    Mutation,
    Obj,
    accepted,
    assert_first_rule,
    first,
    prep,
    rejected,
    rows,
    rule_of,
    set_path,
    set_prep,
)

MUTATIONS: list[tuple[str, Mutation]] = [
    ("PREP-1-unknown-member", prep(lambda o: o.__setitem__("extra", 1))),
    ("PREP-2-schema", prep(lambda o: o.__setitem__("schema", "x.v2"))),
    (
        "PREP-3-observation-digest",
        set_path(("repositories", 0, "sourceListPreparation", "observationDigest"), raw_digest("x")),
    ),
    ("PREP-4-commit", prep(lambda o: o.__setitem__("repositoryCommit", "b" * 40))),
    ("PREP-5-artifact-binding", prep(lambda o: o.__setitem__("rawArtifactSha256", raw_digest("x")))),
    ("PREP-6-executable-member", prep(lambda o: o["sourceListExecutable"].__setitem__("x", 1))),
    ("PREP-7-node-path", prep(lambda o: o["sourceListExecutable"].__setitem__("nodePath", "node"))),
    ("PREP-8-path", prep(lambda o: o["sourceListExecutable"].__setitem__("path", "x.mjs"))),
    ("PREP-9-revision", prep(lambda o: o["sourceListExecutable"].__setitem__("revision", "b" * 39))),
    ("PREP-10-artifact-sha", prep(lambda o: o["sourceListExecutable"].__setitem__("artifactSha256", "x"))),
    (
        "PREP-11-command",
        prep(
            lambda o: (
                o["command"].append("--x"),
                o.__setitem__("commandDigest", canonical_digest(o["command"])),
            )
        ),
    ),
    ("PREP-12-command-digest", prep(lambda o: o.__setitem__("commandDigest", raw_digest("x")))),
    ("PREP-13-exit-code-boolean", prep(lambda o: o.__setitem__("exitCode", False))),
    ("PREP-14-dirty", prep(lambda o: o["targetState"].__setitem__("statusAfter", " M x"))),
    ("PREP-15-inventory-member", prep(lambda o: o["trackedPathInventory"].__setitem__("x", 1))),
    (
        "PREP-16-git-command",
        prep(
            lambda o: (
                o["trackedPathInventory"]["command"].pop(),
                o["trackedPathInventory"].__setitem__(
                    "commandDigest", canonical_digest(o["trackedPathInventory"]["command"])
                ),
            )
        ),
    ),
    (
        "PREP-17-git-command-digest",
        prep(
            lambda o: o["trackedPathInventory"].__setitem__(
                "commandDigest",
                raw_digest("x"),
            )
        ),
    ),
    ("PREP-18-git-exit", prep(lambda o: o["trackedPathInventory"].__setitem__("exitCode", 1))),
]


@pytest.mark.parametrize("mutate", rows(MUTATIONS))
def test_rule(mutate: Mutation, request: pytest.FixtureRequest) -> None:
    assert_first_rule(mutate, rule_of(request))


# ---------------------------------------------------------------- PREP: every member and position


@pytest.mark.parametrize("k", range(6))
def test_PREP_11_every_argv_position(k: int) -> None:
    obj = valid_minimal()

    def change(o: Obj) -> None:
        o["command"][k] = o["command"][k] + "x"
        o["commandDigest"] = canonical_digest(o["command"])

    set_prep(obj, change)
    assert first(obj) == ("PREP-11", f"{PREP}/command")


@pytest.mark.parametrize("k", range(9))
def test_PREP_16_every_git_argv_position(k: int) -> None:
    obj = valid_minimal()

    def change(o: Obj) -> None:
        inventory = o["trackedPathInventory"]
        inventory["command"][k] = inventory["command"][k] + "x"
        inventory["commandDigest"] = canonical_digest(inventory["command"])

    set_prep(obj, change)
    assert first(obj) == ("PREP-16", f"{PREP}/trackedPathInventory/command")


@pytest.mark.parametrize(
    ("member", "value", "rule"),
    [
        ("nodePath", "/", None),
        ("nodePath", "usr/bin/node", "PREP-7"),
        ("nodePath", "/" + "n" * 4095, None),
        ("nodePath", "/" + "n" * 4096, "PREP-7"),
        ("path", " ", "PREP-8"),
        ("path", "/" + "p" * 4096, "PREP-8"),
        ("revision", "b" * 64, None),
        ("revision", "b" * 63, "PREP-9"),
        ("revision", "B" * 40, "PREP-9"),
        ("artifactSha256", "sha256:" + "0" * 64, None),
        ("artifactSha256", "sha256:" + "0" * 63, "PREP-10"),
    ],
    ids=lambda v: str(v)[:12],
)
def test_PREP_7_to_PREP_10_executable_members(member: str, value: str, rule: str | None) -> None:
    obj = valid_minimal()

    def change(o: Obj) -> None:
        o["sourceListExecutable"][member] = value
        o["command"] = [
            o["sourceListExecutable"]["nodePath"],
            o["sourceListExecutable"]["path"],
            "--repo",
            ".",
            "--full-list",
            "--json",
        ]
        o["commandDigest"] = canonical_digest(o["command"])

    set_prep(obj, change)
    if rule is None:
        accepted(obj)
    else:
        assert first(obj) == (rule, f"{PREP}/sourceListExecutable/{member}")


@pytest.mark.parametrize(
    ("path", "value", "rule"),
    [
        (("exitCode",), 1, "PREP-13"),
        (("exitCode",), None, "PREP-13"),
        (("trackedPathInventory", "exitCode"), False, "PREP-18"),
        (("trackedPathInventory", "exitCode"), -1, "PREP-18"),
    ],
    ids=["exit-1", "exit-null", "git-exit-false", "git-exit-minus-1"],
)
def test_PREP_13_PREP_18_exit_codes(path: tuple[str, ...], value: object, rule: str) -> None:
    obj = valid_minimal()

    def change(o: Obj) -> None:
        target = o
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    set_prep(obj, change)
    assert first(obj) == (rule, PREP + "/" + "/".join(path))


@pytest.mark.parametrize(
    ("member", "rule", "where"),
    [
        ("schema", "PREP-1", PREP),
        ("sourceListExecutable/revision", "PREP-6", PREP + "/sourceListExecutable"),
        ("targetState/cleanAfter", "PREP-14", PREP + "/targetState"),
        ("trackedPathInventory/exitCode", "PREP-15", PREP + "/trackedPathInventory"),
    ],
    ids=["PREP-1", "PREP-6", "PREP-14", "PREP-15"],
)
def test_preparation_closed_objects_missing_member(member: str, rule: str, where: str) -> None:
    obj = valid_minimal()
    keys = member.split("/")
    set_prep(obj, lambda o: o[keys[0]].pop(keys[1]) if len(keys) == 2 else o.pop(keys[0]))
    assert first(obj) == (rule, where)


# ---------------------------------------------------------------- PREP-14: every member


PREP_14_MEMBERS = [
    ("headBefore", "b" * 40),
    ("headAfter", "b" * 40),
    ("statusBefore", " M src/alpha.js"),
    ("statusAfter", " M src/alpha.js"),
    ("cleanBefore", False),
    ("cleanAfter", False),
    ("cleanBefore", 1),
    ("statusBefore", None),
]


@pytest.mark.parametrize(("member", "value"), PREP_14_MEMBERS, ids=[f"{m}-{v!r}" for m, v in PREP_14_MEMBERS])
def test_PREP_14_each_target_state_member_is_compared(member: str, value: object) -> None:
    obj = valid_minimal()
    set_prep(obj, lambda o: o["targetState"].__setitem__(member, value))
    error = rejected(obj)
    assert (error.rule, error.where) == ("PREP-14", f"{PREP}/targetState/{member}"), str(error)


def test_PREP_14_status_before_compared() -> None:
    obj = valid_minimal()
    set_prep(obj, lambda o: o["targetState"].__setitem__("statusBefore", "?? new.js"))
    assert str(rejected(obj)) == (f"PREP-14 at {PREP}/targetState/statusBefore: expected ''; found '?? new.js'")


# ---------------------------------------------------------------- whole messages (tests/rules/messages/prep.json)

MESSAGES = Snapshot("prep")


@pytest.mark.parametrize(("name", "data"), list(reject_inputs(MUTATIONS)), ids=ids)
def test_reject_messages(name: str, data: bytes) -> None:
    MESSAGES.check(name, reject_messages(data))


def test_zz_snapshot_covers_every_row() -> None:
    """Runs last: writes the file in write mode, else checks that it holds exactly this family's rows."""
    MESSAGES.finish(name for name, _ in reject_inputs(MUTATIONS))
