"""One test per REJECT rule ID (TOP, REPO, SL, PREP, GIT, STALE, CASE): SPEC §4.1–§4.7.

Each mutation starts from SPEC §11.1's valid input (built by ``tests.builder``),
breaks exactly one rule, re-seals every digest that is not the target, and
asserts the rule ID reported. Removing the rule makes its test fail: the input
would then be accepted or rejected for another rule.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

import pytest

from ablation.canonical import canonical_digest, raw_digest
from ablation.contracts.base import Reporter
from ablation.contracts.cases import RepositoryRef, validate_cases
from ablation.contracts.git_index import derive_tracked_entries
from ablation.errors import InputRejected, RejectedInput
from ablation.experiment import validate_experiment
from tests import builder
from tests.builder import dumps, rehash_case, rehash_input, rehash_repository, valid_minimal

Obj = dict[str, object]
A40 = "a" * 40
E = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"


def rejected(data: bytes) -> InputRejected:
    with pytest.raises(InputRejected) as info:
        validate_experiment(data)
    return info.value


def repo0(obj: Obj) -> Obj:
    return obj["repositories"][0]  # type: ignore[index,no-any-return]


def payload_of(obj: Obj) -> Obj:
    return json.loads(repo0(obj)["sourceListArtifact"]["rawJson"])  # type: ignore[index]


def with_payload(change: Callable[[Obj], None], *, git: bool = False) -> Callable[[Obj], None]:
    """Mutate the source-list payload, rewrite rawJson and re-seal everything bound to it."""

    def mutate(obj: Obj) -> None:
        payload = payload_of(obj)
        change(payload)
        repo0(obj)["sourceListArtifact"]["rawJson"] = builder.raw_text(payload)  # type: ignore[index]
        rehash_input(obj)
        if git:
            rehash_repository(repo0(obj), regenerate_git=True)  # type: ignore[arg-type]

    return mutate


def item(k: int, **members: object) -> Callable[[Obj], None]:
    def change(payload: Obj) -> None:
        payload["items"][k].update(members)  # type: ignore[index]

    return with_payload(change)


def prep(change: Callable[[Obj], None]) -> Callable[[Obj], None]:
    """Mutate the preparation observation, then re-seal only its observationDigest."""

    def mutate(obj: Obj) -> None:
        observation = repo0(obj)["sourceListPreparation"]
        change(observation)  # type: ignore[arg-type]
        observation["observationDigest"] = canonical_digest(  # type: ignore[index]
            {k: v for k, v in observation.items() if k != "observationDigest"}  # type: ignore[union-attr]
        )

    return mutate


def git_bytes(data: bytes, *, text: str | None = None) -> Callable[[Obj], None]:
    """Replace the tracked-path evidence by ``data`` (or a literal base64 ``text``)."""

    def change(observation: Obj) -> None:
        inventory = observation["trackedPathInventory"]
        inventory["stdoutBase64"] = text if text is not None else base64.b64encode(data).decode()  # type: ignore[index]
        inventory["stdoutSha256"] = raw_digest(data)  # type: ignore[index]

    return prep(change)


def records(*rows: tuple[str, int, str], oid: str = E) -> bytes:
    return b"".join(f"{mode} {oid} {stage}\t{path}".encode() + b"\0" for mode, stage, path in rows)


MINIMAL_ROWS = [("100644", 0, f"src/{n}.js") for n in (
    "alpha", "beta", "cache", "config", "exporter", "graph", "parser", "ranking", "receipt", "runner", "security",
    "zeta")]  # fmt: skip


def sample(change: Callable[[Obj], None]) -> Callable[[Obj], None]:
    def mutate(obj: Obj) -> None:
        change(repo0(obj)["metadataStalenessSample"])  # type: ignore[arg-type]
        rehash_repository(repo0(obj))  # type: ignore[arg-type]

    return mutate


def case(k: int, reseal: bool = True, **members: object) -> Callable[[Obj], None]:
    def mutate(obj: Obj) -> None:
        obj["cases"][k].update(members)  # type: ignore[index]
        if reseal:
            rehash_case(obj["cases"][k], repo0(obj))  # type: ignore[index,arg-type]

    return mutate


def top(change: Callable[[Obj], None]) -> Callable[[Obj], None]:
    return change


def _set(path: tuple[object, ...], value: object) -> Callable[[Obj], None]:
    def mutate(obj: Obj) -> None:
        target = obj
        for key in path[:-1]:
            target = target[key]  # type: ignore[index]
        target[path[-1]] = value  # type: ignore[index]

    return mutate


def _drop_cases_of_repo(obj: Obj) -> None:
    obj["cases"] = obj["cases"][:9]  # type: ignore[index]


def _second_repo_same_id(obj: Obj) -> None:
    obj["repositories"].append(json.loads(json.dumps(repo0(obj))))  # type: ignore[union-attr]


def _empty_universe(payload: Obj) -> None:
    payload["items"] = []
    payload.update(totalCount=0, returnedCount=0, pageSize=1)


def _swap_items(payload: Obj) -> None:
    items = payload["items"]
    items[0], items[1] = items[1], items[0]  # type: ignore[index]


def _duplicate_item(payload: Obj) -> None:
    payload["items"][1] = dict(payload["items"][0])  # type: ignore[index]


MUTATIONS: list[tuple[str, Callable[[Obj], None]]] = [
    ("TOP-13-top-level-array", lambda obj: None),  # replaced below by a bytes-level case
    ("TOP-13-unknown-member", _set(("extra",), 1)),
    ("TOP-14-protocol-v1", _set(("protocol",), "pi-context-packer-source-selection-ablation/v1")),
    ("REPO-1-empty", _set(("repositories",), [])),
    ("REPO-2-unknown-member", lambda obj: repo0(obj).__setitem__("metadataCoverage", 1)),
    ("REPO-2-not-object", _set(("repositories", 0), "repo")),
    ("REPO-3-not-normalized", lambda obj: (repo0(obj).__setitem__("id", "repo  x"),
                                           [c.__setitem__("repositoryId", "repo  x") for c in obj["cases"]],  # type: ignore[attr-defined]
                                           rehash_input(obj))),  # fmt: skip
    ("REPO-4-uppercase-commit", _set(("repositories", 0, "commit"), "A" * 40)),
    ("REPO-5-empty-universe", with_payload(_empty_universe, git=True)),
    ("REPO-6-duplicate-id", _second_repo_same_id),
    ("SL-1-unknown-member", lambda obj: repo0(obj)["sourceListArtifact"].__setitem__("x", 1)),  # type: ignore[index]
    ("SL-2-empty-raw", _set(("repositories", 0, "sourceListArtifact", "rawJson"), "")),
    ("SL-3-wrong-raw-sha", _set(("repositories", 0, "sourceListArtifact", "rawSha256"), raw_digest("x"))),
    ("SL-5-unknown-payload-member", with_payload(lambda p: p.__setitem__("extra", 0))),
    ("SL-5-payload-null", lambda obj: (repo0(obj)["sourceListArtifact"].__setitem__("rawJson", "null\n"),  # type: ignore[attr-defined]
                                       rehash_input(obj))),  # fmt: skip
    ("SL-6-contract-version", with_payload(lambda p: p.__setitem__("contractVersion", "source-list.v2"))),
    ("SL-7-mode", with_payload(lambda p: p.__setitem__("mode", "page"))),
    ("SL-8-repository", with_payload(lambda p: p.__setitem__("repository", "/repo"))),
    ("SL-9-ok-false", with_payload(lambda p: p.__setitem__("ok", False))),
    ("SL-10-extensions", with_payload(lambda p: p["supportedExtensions"].reverse())),  # type: ignore[attr-defined]
    ("SL-11-items-not-array", with_payload(lambda p: p.__setitem__("items", {}))),
    ("SL-12-unknown-item-member", item(0, extra=1)),
    ("SL-13-absolute-path", item(0, path="/src/alpha.js")),
    ("SL-14-index-kind", item(0, indexKind="file")),
    ("SL-15-worktree-kind", item(0, worktreeKind="file")),
    ("SL-16-extension-uppercase", item(0, extension=".JS")),
    ("SL-17-status", item(0, metadataStatus="stale")),
    ("SL-18-present-symlink-worktree", item(0, worktreeKind="symlink")),
    ("SL-19-summary-control", item(0, summary="owner\u0085x\x01")),
    ("SL-20-six-read-when", item(0, readWhen=["a"] * 6)),
    ("SL-21-present-error", item(0, metadataError="invalid_summary")),
    ("SL-22-absent-summary", item(0, metadataStatus="absent")),
    ("SL-23-absent-read-when", item(0, metadataStatus="absent", summary=None, readWhen=["x"])),
    ("SL-24-absent-symlink", item(0, metadataStatus="absent", summary=None, worktreeKind="symlink")),
    ("SL-25-invalid-error", item(0, metadataStatus="invalid", summary=None, metadataError="oops")),
    ("SL-26-unreadable-index", item(0, metadataStatus="unreadable", summary=None, indexKind="symlink",
                                    worktreeKind="missing", metadataError="ENOENT")),  # fmt: skip
    ("SL-27-unreadable-regular", item(0, metadataStatus="unreadable", summary=None, metadataError="ENOENT")),
    ("SL-28-not-applicable-regular", item(0, metadataStatus="not_applicable", summary=None)),
    ("SL-29-not-applicable-worktree", item(0, metadataStatus="not_applicable", summary=None, indexKind="symlink",
                                           worktreeKind="regular")),  # fmt: skip
    ("SL-30-not-applicable-error", item(0, metadataStatus="not_applicable", summary=None, indexKind="symlink",
                                        worktreeKind="symlink", metadataError="x")),  # fmt: skip
    ("SL-31-unsorted", with_payload(_swap_items)),
    ("SL-31-duplicate", with_payload(_duplicate_item)),
    ("SL-32-total-count-string", with_payload(lambda p: p.__setitem__("totalCount", "12"))),
    ("SL-33-returned-count", with_payload(lambda p: p.__setitem__("returnedCount", 11))),
    ("SL-34-page-boolean", with_payload(lambda p: p.__setitem__("page", True))),
    ("SL-35-page-size", with_payload(lambda p: p.__setitem__("pageSize", 100))),
    ("SL-36-truncated", with_payload(lambda p: p.__setitem__("truncated", True))),
    ("SL-37-violations", with_payload(lambda p: p.__setitem__("violationCount", 1))),
    ("PREP-1-unknown-member", prep(lambda o: o.__setitem__("extra", 1))),
    ("PREP-2-schema", prep(lambda o: o.__setitem__("schema", "x.v2"))),
    ("PREP-3-observation-digest", _set(("repositories", 0, "sourceListPreparation", "observationDigest"),
                                       raw_digest("x"))),  # fmt: skip
    ("PREP-4-commit", prep(lambda o: o.__setitem__("repositoryCommit", "b" * 40))),
    ("PREP-5-artifact-binding", prep(lambda o: o.__setitem__("rawArtifactSha256", raw_digest("x")))),
    ("PREP-6-executable-member", prep(lambda o: o["sourceListExecutable"].__setitem__("x", 1))),  # type: ignore[index]
    ("PREP-7-node-path", prep(lambda o: o["sourceListExecutable"].__setitem__("nodePath", "node"))),  # type: ignore[index]
    ("PREP-8-path", prep(lambda o: o["sourceListExecutable"].__setitem__("path", "x.mjs"))),  # type: ignore[index]
    ("PREP-9-revision", prep(lambda o: o["sourceListExecutable"].__setitem__("revision", "b" * 39))),  # type: ignore[index]
    ("PREP-10-artifact-sha", prep(lambda o: o["sourceListExecutable"].__setitem__("artifactSha256", "x"))),  # type: ignore[index]
    ("PREP-11-command", prep(lambda o: (o["command"].append("--x"),  # type: ignore[attr-defined]
                                        o.__setitem__("commandDigest", canonical_digest(o["command"]))))),  # fmt: skip
    ("PREP-12-command-digest", prep(lambda o: o.__setitem__("commandDigest", raw_digest("x")))),
    ("PREP-13-exit-code-boolean", prep(lambda o: o.__setitem__("exitCode", False))),
    ("PREP-14-dirty", prep(lambda o: o["targetState"].__setitem__("statusAfter", " M x"))),  # type: ignore[index]
    ("PREP-15-inventory-member", prep(lambda o: o["trackedPathInventory"].__setitem__("x", 1))),  # type: ignore[index]
    ("PREP-16-git-command", prep(lambda o: (o["trackedPathInventory"]["command"].pop(),  # type: ignore[index]
                                            o["trackedPathInventory"].__setitem__(  # type: ignore[index]
                                                "commandDigest",
                                                canonical_digest(o["trackedPathInventory"]["command"]))))),  # type: ignore[index]  # fmt: skip
    ("PREP-17-git-command-digest", prep(lambda o: o["trackedPathInventory"].__setitem__("commandDigest",  # type: ignore[index]
                                                                                          raw_digest("x")))),  # fmt: skip
    ("PREP-18-git-exit", prep(lambda o: o["trackedPathInventory"].__setitem__("exitCode", 1))),  # type: ignore[index]
    ("GIT-1-line-wrapped", git_bytes(records(*MINIMAL_ROWS), text="YWJj\nZGVm")),
    ("GIT-2-noncanonical-padding", git_bytes(b"a", text="YR==")),
    ("GIT-1-junk-after-padding", git_bytes(b"a", text="YQ==YWJj")),
    ("GIT-2-missing-padding", git_bytes(b"a", text="YQ")),
    ("GIT-4-stdout-sha", prep(lambda o: o["trackedPathInventory"].__setitem__("stdoutSha256", raw_digest("x")))),  # type: ignore[index]
    ("GIT-5-no-final-nul", git_bytes(records(*MINIMAL_ROWS)[:-1])),
    ("GIT-6-empty-record", git_bytes(records(*MINIMAL_ROWS) + b"\0")),
    ("GIT-7-invalid-utf8", git_bytes(records(*MINIMAL_ROWS) + b"100644 " + E.encode() + b" 0\tbad\xff.js\0")),
    ("GIT-8-bom", git_bytes(b"\xef\xbb\xbf" + records(*MINIMAL_ROWS))),
    ("GIT-8-unicode-digit-stage", git_bytes(records(*MINIMAL_ROWS) + "100644 e 0\t\u0660.js\0".encode()
                                            .replace(b" 0\t\xd9", b" \xd9\xa0\t\xd9"))),  # fmt: skip
    ("GIT-9-over-20000", git_bytes(records(*MINIMAL_ROWS, *[("100644", 0, f"d/{k}.md") for k in range(19_989)]))),
    ("GIT-10-count", git_bytes(records(*MINIMAL_ROWS[:-1]))),
    ("GIT-11-kind", git_bytes(records(("120000", 0, "src/alpha.js"), *MINIMAL_ROWS[1:]))),
    ("GIT-11-dotdot-js-kept", git_bytes(records(*MINIMAL_ROWS, ("100644", 0, "src/..js"))[:0]
                                        + records(("100644", 0, "..js"), *MINIMAL_ROWS[1:]))),  # fmt: skip
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
    ("STALE-11-digest", _set(("repositories", 0, "metadataStalenessSample", "sampleDigest"), raw_digest("x"))),
    ("CASE-1-empty", _set(("cases",), [])),
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
MUTATIONS[0] = ("TOP-13-top-level-array", lambda obj: None)


@pytest.mark.parametrize(("mutate",), [(m,) for _, m in MUTATIONS[1:]], ids=[n for n, _ in MUTATIONS[1:]])
def test_rule(mutate: Callable[[Obj], None], request: pytest.FixtureRequest) -> None:
    rule = "-".join(request.node.callspec.id.split("-")[:2])
    obj = valid_minimal()
    mutate(obj)
    error = rejected(dumps(obj))
    assert error.rule == rule, str(error)


def test_the_worked_example_is_accepted() -> None:
    experiment = validate_experiment(dumps(valid_minimal()))
    assert len(experiment.cases) == 10
    assert experiment.repositories[0].preparation.tracked_path_count == 12


def _bytes_case(transform: Callable[[bytes], bytes]) -> InputRejected:
    return rejected(transform(dumps(valid_minimal())))


BYTES = [
    ("TOP-1-invalid-utf8", lambda d: d.replace(b"Locate alpha", b"Locate \xffalpha", 1), "byte "),
    ("TOP-2-bom", lambda d: b"\xef\xbb\xbf" + d, "byte 0"),
    ("TOP-3-truncated", lambda d: d[:-3], "byte "),
    ("TOP-4-nan", lambda d: d.replace(b'"maxItems": 2', b'"maxItems": NaN', 1), "byte "),
    ("TOP-5-trailing-garbage", lambda d: d + b"x", "byte "),
    ("TOP-6-duplicate-protocol", lambda d: d.replace(b'"protocol": ', b'"protocol": "x", "protocol": ', 1), "/protocol"),
    ("TOP-6-escaped-duplicate", lambda d: d.replace(b'"protocol": ', b'"protocol": "x", "\\u0070rotocol": ', 1),
     "/protocol"),
    ("TOP-7-1e400", lambda d: d.replace(b'"maxItems": 2', b'"maxItems": 1e400', 1), "/cases/0/maxItems"),
    ("TOP-8-float", lambda d: d.replace(b'"maxItems": 2', b'"maxItems": 2.0', 1), "/cases/0/maxItems"),
    ("TOP-9-unsafe", lambda d: d.replace(b'"maxItems": 2', b'"maxItems": 9007199254740993', 1), "/cases/0/maxItems"),
    ("TOP-9-4301-digits-reports-overflow-first", lambda d: d.replace(b'"maxItems": 2', b'"maxItems": ' + b"1" * 4301, 1),
     "/cases/0/maxItems"),
    ("TOP-10-lone-surrogate", lambda d: d.replace(b"Locate alpha", b"Locate \\ud800alpha", 1), "/cases/0/question"),
    ("TOP-11-deep", lambda d: d.replace(b'"maxItems": 2', b'"maxItems": ' + b"[" * 300 + b"]" * 300, 1),
     "/cases/0/maxItems" + "/0" * 253 + ":"),
    ("TOP-13-top-level-array", lambda d: b"[" + d + b"]", '""'),
]


@pytest.mark.parametrize(("transform", "where"), [b[1:] for b in BYTES], ids=[b[0] for b in BYTES])
def test_file_rule(transform: Callable[[bytes], bytes], where: str, request: pytest.FixtureRequest) -> None:
    name = request.node.callspec.id
    rule = "-".join(name.split("-")[:2])
    if name.startswith("TOP-9-4301"):
        rule = "TOP-7"  # the value breaks TOP-7 and TOP-9; the lowest rule is named (SPEC §2.4)
    error = _bytes_case(transform)
    assert error.rule == rule, str(error)
    assert str(error).startswith(f"{rule} at {where}"), str(error)


def test_TOP_6_names_the_byte_offset_of_the_second_member() -> None:
    data = dumps(valid_minimal()).replace(b'"protocol": ', b'"protocol": "x", "protocol": ', 1)
    error = rejected(data)
    offset = data.index(b'"protocol"', data.index(b'"protocol"') + 1)
    assert str(error) == f"TOP-6 at /protocol: expected member names pairwise distinct; found a second member 'protocol' at byte {offset}"


def test_TOP_12_scope_source_list_text_rejects_with_inner_pointer() -> None:
    """SL-4/TOP-12: a strictness violation inside a source-list text rejects, located outer -> inner."""
    obj = valid_minimal()
    raw = repo0(obj)["sourceListArtifact"]["rawJson"]  # type: ignore[index]
    repo0(obj)["sourceListArtifact"]["rawJson"] = raw.replace('"ok": true', '"ok": true, "ok": true')  # type: ignore[index]
    rehash_input(obj)
    error = rejected(dumps(obj))
    assert error.rule == "TOP-6"
    assert error.where == "/repositories/0/sourceListArtifact/rawJson -> /ok"


def test_SL_4_grammar_inside_source_list_text() -> None:
    obj = valid_minimal()
    repo0(obj)["sourceListArtifact"]["rawJson"] += "x"  # type: ignore[index]
    rehash_input(obj)
    error = rejected(dumps(obj))
    assert error.rule == "TOP-5"
    assert error.where.startswith("/repositories/0/sourceListArtifact/rawJson -> character ")


def test_TOP_12_scope_bundle_violations_never_reject() -> None:
    """Inside /cases/{c}/structuralEvidence a strictness violation is SB-0, not a rejection."""
    data = dumps(valid_minimal())
    at = data.index(b'"structuralEvidence": {') + len(b'"structuralEvidence": {')
    data = data[:at] + b'"x": 1.5, "x": 2, ' + data[at:]
    experiment = validate_experiment(data)
    failure = experiment.cases[0].structural_failure
    assert failure is not None
    assert failure.startswith("structural_evidence_validation_failed:SB-0 TOP-8 at /cases/0/structuralEvidence/x")
    assert all(c.structural_failure is None for c in experiment.cases[1:])


def test_SL_2_oversized_raw_text() -> None:
    obj = valid_minimal()
    raw = repo0(obj)["sourceListArtifact"]["rawJson"]  # type: ignore[index]
    repo0(obj)["sourceListArtifact"]["rawJson"] = raw + " " * (16_777_217 - len(raw.encode()))  # type: ignore[index]
    rehash_input(obj)
    assert rejected(dumps(obj)).rule == "SL-2"


def test_GIT_3_decoded_bytes_bound() -> None:
    data = b"\0" * 16_777_217
    obj = valid_minimal()
    git_bytes(data)(obj)
    assert rejected(dumps(obj)).rule == "GIT-3"


def test_CASE_18_question_id_uniqueness_by_its_own_function() -> None:
    """CASE-18 is implied by CASE-15 end to end; the rule's own check still fires."""
    obj = valid_minimal()
    repo = repo0(obj)
    ref = RepositoryRef(id="repo", commit=A40, raw_sha256=repo["sourceListArtifact"]["rawSha256"],  # type: ignore[index]
                        item_count=12, item_paths=frozenset(builder.item_paths(repo)))  # type: ignore[arg-type]  # fmt: skip
    rep = Reporter(collect_all=True)
    cases = obj["cases"]
    cases.append(json.loads(json.dumps(cases[0])))  # type: ignore[union-attr,index]
    cases[-1]["id"] = "repo-11"  # type: ignore[index]
    validate_cases(cases, [ref], rep)
    assert [v.rule for v in rep.violations] == ["CASE-15", "CASE-16", "CASE-18"]


GIT_VECTORS = [
    ("1", records(("100644", 0, "\tx.js"), ("100644", 0, "a\nb.py"), ("100644", 0, "sp ace.ts"), ("100644", 0, "README.md")),
     [("\tx.js", "regular"), ("a\nb.py", "regular"), ("sp ace.ts", "regular")]),
    ("2", records(("100644", 1, "f.js"), ("100644", 2, "f.js"), ("100644", 3, "f.js")), [("f.js", "conflicted")]),
    ("3", records(("160000", 0, "sub.go"), ("120000", 0, "ln.sh"), ("100755", 0, "x.PY"), ("040000", 0, "weird.c")),
     [("ln.sh", "symlink"), ("sub.go", "gitlink"), ("weird.c", "other"), ("x.PY", "regular")]),
    ("4", records(("120000", 0, "d.js"), ("100644", 0, "d.js")), [("d.js", "symlink")]),
    ("8", b"", []),
    ("12", records(("100644", 0, "..js"), ("100644", 0, ".js")), [("..js", "regular")]),
    ("13", base64.b64decode("OTk5OTk5IGEgMwl6LnJzAA=="), [("z.rs", "conflicted")]),
]


@pytest.mark.parametrize(("data", "entries"), [v[1:] for v in GIT_VECTORS], ids=[f"vector-{v[0]}" for v in GIT_VECTORS])
def test_git_parser_vectors(data: bytes, entries: list[tuple[str, str]]) -> None:
    derived = derive_tracked_entries(data, "/x", Reporter())
    assert derived is not None
    assert [(e.path, e.index_kind) for e in derived[0]] == entries


@pytest.mark.parametrize(
    ("data", "rule"),
    [
        (b"\xef\xbb\xbf" + records(("100644", 0, "src/a.js")), "GIT-8"),
        (b"\xef\xbb\xbf\xef\xbb\xbf" + records(("100644", 0, "src/a.js")), "GIT-8"),
        (records(("100644", 0, "p.js"))[:-1], "GIT-5"),
        (b"100644 " + E.encode() + b" 0\tbad\xff.js\0", "GIT-7"),
        ("100644 {} \u0660\tx.js\0".format(E).encode(), "GIT-8"),
        (records(("100644", 0, "p.js")) + b"\0", "GIT-6"),
    ],
    ids=["vector-5", "vector-6", "vector-7", "vector-9", "vector-10", "vector-11"],
)
def test_git_parser_fault_vectors(data: bytes, rule: str) -> None:
    with pytest.raises(InputRejected) as info:
        derive_tracked_entries(data, "/x", Reporter())
    assert info.value.rule == rule


def test_errors_all_lists_every_violation_first_equals_fail_fast() -> None:
    obj = valid_minimal()
    obj["protocol"] = "v1"
    obj["cases"][0]["maxItems"] = 0  # type: ignore[index]
    obj["cases"][1]["question"] = "a  b"  # type: ignore[index]
    data = dumps(obj)
    first = rejected(data)
    with pytest.raises(RejectedInput) as info:
        validate_experiment(data, collect_all=True)
    rules = [v.rule for v in info.value.violations]
    assert rules == ["TOP-14", "CASE-8", "CASE-5"]
    assert str(info.value.violations[0]) == str(first)


def test_nfc_and_nfd_paths_are_different_paths() -> None:
    """SPEC §9.18: no Unicode normalisation — an NFD truth path is not the NFC item."""
    obj = valid_minimal()
    nfc, nfd = "src/z\u00e9ta.js", "src/ze\u0301ta.js"

    def rename(payload: Obj) -> None:
        payload["items"][-1]["path"] = nfc  # type: ignore[index]

    with_payload(rename, git=True)(obj)
    assert validate_experiment(dumps(obj)).repositories[0].source_list.universe.paths[-1] == nfc
    case(0, truth=[nfd])(obj)
    assert rejected(dumps(obj)).rule == "CASE-10"


def test_paths_with_tab_and_newline_are_kept() -> None:
    obj = valid_minimal()

    def rename(payload: Obj) -> None:
        payload["items"][0]["path"] = "\tsrc/a\nb.js"  # type: ignore[index]

    with_payload(rename, git=True)(obj)
    # SafePath forbids control characters in item paths (SL-13) even though git keeps them.
    assert rejected(dumps(obj)).rule == "SL-13"


def test_SB_0_strictness_inside_a_bundle_names_the_first_violation_in_text_order() -> None:
    """SB-0: several violations in one bundle → the first in text order; one value → its lowest rule."""
    data = dumps(valid_minimal())
    at = data.index(b'"structuralEvidence": {', data.index(b'"repo-2"')) + len(b'"structuralEvidence": {')
    data = data[:at] + b'"y": 1e400, "x": 2.5, "x": 1, ' + data[at:]
    experiment = validate_experiment(data)
    assert [c.structural_failure is None for c in experiment.cases] == [True, False] + [True] * 8
    assert experiment.cases[1].structural_failure == (
        "structural_evidence_validation_failed:SB-0 TOP-7 at /cases/1/structuralEvidence/y: "
        "expected a number that does not overflow an IEEE-754 double; found 1e400"
    )


def test_SB_0_duplicated_structural_evidence_member_counts_as_inside() -> None:
    data = dumps(valid_minimal())
    at = data.index(b'"structuralEvidence": {')
    data = data[:at] + b'"structuralEvidence": null, ' + data[at:]
    experiment = validate_experiment(data)
    failure = experiment.cases[0].structural_failure
    assert failure is not None
    assert failure.startswith("structural_evidence_validation_failed:SB-0 TOP-6 at /cases/0/structuralEvidence:")


@pytest.mark.parametrize(
    ("member", "value", "expected"),
    [
        (
            "readWhen",
            [1],
            "SL-20 at /repositories/0/sourceListArtifact/rawJson -> /items/0/readWhen/0: "
            "expected a MetaScalar; found 1",
        ),
        (
            "readWhen",
            ["when parsing", None],
            "SL-20 at /repositories/0/sourceListArtifact/rawJson -> /items/0/readWhen/1: "
            "expected a MetaScalar; found null",
        ),
    ],
)
def test_SL_20_errors_all_reports_a_hint_of_another_type_instead_of_crashing(
    member: str, value: object, expected: str
) -> None:
    """``--errors all`` goes on past a violation: a present item's text is joined only from strings."""
    obj = valid_minimal()
    repo = obj["repositories"][0]  # type: ignore[index]
    items = builder.payload(repo)
    items["items"][0][member] = value  # type: ignore[index]
    rehash_repository(repo, payload=items)
    rehash_input(obj)
    with pytest.raises(RejectedInput) as info:
        validate_experiment(dumps(obj), collect_all=True)
    assert [str(v) for v in info.value.violations] == [expected]
    assert str(rejected(dumps(obj))) == expected
