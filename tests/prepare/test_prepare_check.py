"""``ablation-prepare check``: one minimal experiment file per check of PREPARE.md §3, whole messages.

Each rejection starts from the valid experiment of :mod:`tests.prepare.prepfixtures`
(two real repositories, ``alpha`` a checkout and ``beta`` bare, ten cases each),
breaks one value, and asserts exit 4, an empty stdout and the whole one-line
message naming the rule (the SPEC rule where one exists, else a PRE rule) and
the TOML location. Warnings (tool files in the temporary directory) are not part
of the assertion; their own tests are below.

Spec: PREPARE.md §3, §11 criteria 2 and 20.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.prepare.gitfixtures import Gitlink, add_commit, make_repository, unreachable_commit
from tests.prepare.prepfixtures import (
    ALPHA_FILES,
    Made,
    Ran,
    errors_of,
    run_prepare,
    valid_experiment,
    write_experiment,
)

Doc = dict[str, Any]
Mutation = Callable[[Doc], None]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Made:
    return valid_experiment(tmp_path_factory.mktemp("check"))


@pytest.fixture(scope="module")
def made_two(tmp_path_factory: pytest.TempPathFactory) -> Made:
    return valid_experiment(tmp_path_factory.mktemp("check-two"), two=True, bare_beta=True)


def _check(tmp_path: Path, doc: Doc, *options: str) -> Ran:
    return run_prepare("check", write_experiment(tmp_path / "experiment.toml", doc), *options)


def _set(*path: str | int, value: Any) -> Mutation:
    def mutate(doc: Doc) -> None:
        target: Any = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return mutate


def _delete(*path: str | int) -> Mutation:
    def mutate(doc: Doc) -> None:
        target: Any = doc
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return mutate


def test_a_valid_experiment_passes_and_prints_its_sha256_last(made_two: Made, tmp_path: Path) -> None:
    made = made_two
    ran = _check(tmp_path, made.doc)
    assert (ran.code, errors_of(ran)) == (0, [])
    lines = ran.out.splitlines()
    data = (tmp_path / "experiment.toml").read_bytes()
    assert lines[-1] == f"{hashlib.sha256(data).hexdigest()}  {tmp_path / 'experiment.toml'}"
    assert lines[1] == (
        f"repository[0] 'alpha' at {made.repos['alpha'].commit}: 17 tracked paths, "
        "15 with a default extension; 10 cases"
    )
    assert lines[3] == "case[0] 'alpha-01' intentSignature " + (
        "sha256:92c0bee3598568d5f94ae03a0c317c10aa33ec831c9b5cd997ed25c121238547"
    )
    assert len(lines) == 1 + 2 + 20 + 1


# Each row: the one change, and the whole message it must give. {alpha} is alpha's folder.
REJECTIONS = [
    # check 1: schema, closed keys, ids, the protocol constant, experiment.id a Token
    pytest.param(
        _set("tools", "sci", "nmae", value="x"),
        "PRE-2 at tools.sci.nmae: expected one of the keys path, sha256, revision, revision_from_checkout, name, "
        "version, workflow, record_version, extra_pins in tools.sci; found an unknown key 'nmae'",
        id="PRE-2-unknown-key",
    ),
    pytest.param(
        _delete("experiment", "work_root"),
        "PRE-3 at experiment.work_root: expected a key work_root (a string); found no such key",
        id="PRE-3-missing-key",
    ),
    pytest.param(
        _delete("tools", "backend"),
        "PRE-3 at tools.backend: expected a key backend (a table); found no such key",
        id="PRE-3-backend-required-by-a-sci-case",
    ),
    pytest.param(
        _set("case", 2, "max_items", value=True),
        "PRE-4 at case[2].max_items: expected an integer; found a boolean true",
        id="PRE-4-boolean-for-an-integer",
    ),
    pytest.param(
        _set("case", 2, "sci", "paths", value=["src", 3]),
        "PRE-4 at case[2].sci.paths[1]: expected a string; found an integer 3",
        id="PRE-4-array-element",
    ),
    pytest.param(
        _set("experiment", "protocol", value="pi-context-packer-source-selection-ablation/v1"),
        "TOP-14 at experiment.protocol: expected 'pi-context-packer-source-selection-ablation/v2'; "
        "found 'pi-context-packer-source-selection-ablation/v1'",
        id="TOP-14-protocol",
    ),
    pytest.param(
        _set("experiment", "id", value="-ctx"),
        "PRE-5 at experiment.id: expected a Token (SPEC §4.0); found '-ctx'",
        id="PRE-5-experiment-id",
    ),
    pytest.param(
        _set("case", 1, "id", value="alpha-01"),
        "CASE-17 at case[1].id: expected a case id unique in the experiment; found the id of case[0]",
        id="CASE-17-case-ids-unique",
    ),
    # check 2: the commit exists and is reachable (more below, with repositories of their own)
    pytest.param(
        _set("repository", 0, "commit", value="0" * 40),
        "PRE-16 at repository[0].commit: expected a commit object in the source; found no such object",
        id="PRE-16-no-such-commit",
    ),
    pytest.param(
        _set("repository", 0, "source", value="repos/alpha"),
        "PRE-15 at repository[0].source: expected an absolute path; found 'repos/alpha'",
        id="PRE-15-relative-source",
    ),
    # check 3: questions NBText(4000) and Normalized, the normalised form shown
    pytest.param(
        _set("case", 0, "question", value="How  are ledger accounts\topened?"),
        "CASE-5 at case[0].question: expected a Normalized NBText(4000); "
        "normalised: \"How are ledger accounts opened?\"; found 'How  are ledger accounts\\topened?'",
        id="CASE-5-question-not-normalised",
    ),
    pytest.param(
        _set("case", 0, "question", value="x" * 4001),
        f"CASE-5 at case[0].question: expected a Normalized NBText(4000); found '{'x' * 78}… (4001 characters)",
        id="CASE-5-question-too-long",
    ),
    # check 4: identity tokens, unique intents and truth sets per repository
    pytest.param(
        _set("case", 0, "question", value="Case 12: 2024?"),
        "CASE-11 at case[0].question: expected at least one identity token (SPEC §5.1); found none",
        id="CASE-11-no-identity-token",
    ),
    pytest.param(
        _set("case", 1, "question", value="Case 7: how are ledger ACCOUNTS opened, frozen and closed?!"),
        "CASE-15 at case[1].question: expected an intent signature unique in 'alpha'; found the intent signature "
        "of case[0] (sha256:92c0bee3598568d5f94ae03a0c317c10aa33ec831c9b5cd997ed25c121238547)",
        id="CASE-15-same-intent",
    ),
    pytest.param(
        _set("case", 7, "truth", value=["tests/test_ledger.py", "src/alpha/ledger.py"]),
        "CASE-16 at case[7].truth: expected a truth set unique in 'alpha'; found the truth set of case[6]",
        id="CASE-16-same-truth-set-reordered",
    ),
    # check 5: at least 10 cases per repository; each case names a declared repository
    pytest.param(
        lambda doc: doc["case"].pop(3),
        "CASE-19 at repository[0]: expected at least 10 cases for 'alpha'; found 9 cases",
        id="CASE-19-nine-cases",
    ),
    pytest.param(
        _set("case", 0, "repository", value="gamma"),
        "CASE-4 at case[0].repository: expected the id of a declared repository ('alpha'); found 'gamma'",
        id="CASE-4-undeclared-repository",
    ),
    # check 6: truth lists non-empty; paths safe, distinct, tracked, with a default extension
    pytest.param(
        _set("case", 0, "truth", value=[]),
        "CASE-9 at case[0].truth: expected an array with at least one path; found an empty array",
        id="CASE-9-empty-truth",
    ),
    pytest.param(
        _set("case", 0, "truth", value=["./src/alpha/accounts.py"]),
        "CASE-10 at case[0].truth[0]: expected a SafePath (the path of an item); found './src/alpha/accounts.py'",
        id="CASE-10-truth-not-safe",
    ),
    pytest.param(
        _set("case", 0, "truth", value=["README.md"]),
        "CASE-10 at case[0].truth[0]: expected a path with a default extension (only those are items); "
        "found 'README.md'",
        id="CASE-10-truth-without-default-extension",
    ),
    pytest.param(
        _set("case", 0, "truth", value=["src/alpha/missing.py"]),
        "CASE-10 at case[0].truth[0]: expected a path tracked at the repository's commit; found 'src/alpha/missing.py'",
        id="CASE-10-truth-not-tracked",
    ),
    # check 7: max_items ≥ 1
    pytest.param(
        _set("case", 0, "max_items", value=0),
        "CASE-8 at case[0].max_items: expected an integer of at least 1; found 0",
        id="CASE-8-max-items-zero",
    ),
    # check 8: seeds, and the request through the evaluator's request contract
    pytest.param(
        _set("case", 0, "sci", "pattern", value="def  $NAME($$$ARGS)\n"),
        'REQ-9 at case[0].sci.pattern: expected a Normalized text seed; normalised: "def $NAME($$$ARGS)"; '
        "found 'def  $NAME($$$ARGS)\\n'",
        id="REQ-9-pattern-not-normalised",
    ),
    pytest.param(
        _set("case", 0, "sci", "language", value="/usr/bin/python3"),
        "REQ-7 at case[0].sci.language: expected a Portable NBText(4096); found '/usr/bin/python3'",
        id="REQ-7-language-not-portable",
    ),
    pytest.param(
        _set("case", 0, "sci", "paths", value=["src/alpha", "/home/jdoe/alpha"]),
        "REQ-7 at case[0].sci.paths[1]: expected a Portable NBText(4096); found '/home/jdoe/alpha'",
        id="REQ-7-path-seed-not-portable",
    ),
    pytest.param(
        _set("case", 0, "sci", "paths", value=["src/alpha/"]),
        "REQ-8 at case[0].sci.paths[0]: expected a SafePath (path seeds are never normalised); found 'src/alpha/'",
        id="REQ-8-path-seed-not-safe",
    ),
    pytest.param(
        _set("case", 0, "sci", "paths", value=["src/alpha"] * 255),
        "REQ-3 at case[0].sci.paths: expected at most 254 path seeds (REQ-3 allows 256 seeds; two are language "
        "and pattern); found 255 path seeds",
        id="REQ-3-255-path-seeds",
    ),
    pytest.param(
        _set("case", 0, "question", value="Why does /home/jdoe/alpha refuse a ledger account?"),
        "REQ-2 at case[0].question: expected a Portable question (it is sent to SCI); "
        "found 'Why does /home/jdoe/alpha refuse a ledger account?'",
        id="REQ-2-question-of-an-sci-case-not-portable",
    ),
    pytest.param(
        _set("case", 0, "sci", "paths", value=["src/gamma"]),
        "PRE-19 at case[0].sci.paths[0]: expected a path tracked at the commit, or a folder holding tracked paths; "
        "found 'src/gamma'",
        id="PRE-19-path-seed-not-tracked",
    ),
    # check 10: revisions and commits are Commits; the pins are bare hex
    pytest.param(
        _set("tools", "source_list", "revision", value="36792DE9"),
        "PREP-9 at tools.source_list.revision: expected a Commit: 40 or 64 lowercase hex digits; found '36792DE9'",
        id="PREP-9-source-list-revision",
    ),
    pytest.param(
        _set("tools", "sci", "revision", value="518d7cf"),
        "OBS-9 at tools.sci.revision: expected a Commit: 40 or 64 lowercase hex digits; found '518d7cf'",
        id="OBS-9-sci-revision",
    ),
    pytest.param(
        _set("repository", 0, "commit", value="HEAD"),
        "REPO-4 at repository[0].commit: expected a Commit: 40 or 64 lowercase hex digits; found 'HEAD'",
        id="REPO-4-commit-not-a-commit-id",
    ),
    pytest.param(
        _set("tools", "node", "sha256", value="sha256:" + "a" * 64),
        "PRE-9 at tools.node.sha256: expected a bare SHA-256: 64 lowercase hex digits; found 'sha256:" + "a" * 64 + "'",
        id="PRE-9-pin-with-prefix",
    ),
    pytest.param(
        _set("repository", 0, "expect_source_list_sha256", value=""),
        "PRE-9 at repository[0].expect_source_list_sha256: expected a bare SHA-256: 64 lowercase hex digits; found ''",
        id="PRE-9-empty-expected-stdout-sha256",
    ),
    pytest.param(
        _set("tools", "node", "path", value="node"),
        "PREP-7 at tools.node.path: expected an absolute path (AbsPath); found 'node'",
        id="PREP-7-node-path",
    ),
    pytest.param(
        _set("tools", "source_list", "path", value="scripts/source-list.mjs"),
        "PREP-8 at tools.source_list.path: expected an absolute path (AbsPath); found 'scripts/source-list.mjs'",
        id="PREP-8-source-list-path",
    ),
    pytest.param(
        _set("tools", "backend", "path", value="ast-grep"),
        "OBS-12 at tools.backend.path: expected an absolute path (AbsPath); found 'ast-grep'",
        id="OBS-12-backend-path",
    ),
    pytest.param(
        _set("tools", "git", "extra_pins", value=[{"path": "libexec/git-core", "sha256": "a" * 64}]),
        "PRE-10 at tools.git.extra_pins[0].path: expected an absolute path (AbsPath); found 'libexec/git-core'",
        id="PRE-10-extra-pin-path",
    ),
    pytest.param(
        _set("tools", "sci", "revision_from_checkout", value=True),
        "PRE-11 at tools.sci: expected exactly one of revision, revision_from_checkout; found both",
        id="PRE-11-both-revisions",
    ),
    pytest.param(
        _delete("tools", "source_list", "revision"),
        "PRE-11 at tools.source_list: expected exactly one of revision, revision_from_checkout; found neither",
        id="PRE-11-no-revision",
    ),
    # check 12: authority, work_root
    pytest.param(
        _set("experiment", "authority", value=" \u3000"),
        "PRE-6 at experiment.authority: expected a nonblank statement; found ' \\u3000'",
        id="PRE-6-blank-authority",
    ),
    pytest.param(
        _set("experiment", "work_root", value="/evidence//ctx/"),
        "PRE-7 at experiment.work_root: expected an absolute path in normal form, not '/', of at most 4000 "
        "characters; normal form: \"/evidence/ctx\"; found '/evidence//ctx/'",
        id="PRE-7-work-root-not-normal",
    ),
    pytest.param(
        _set("experiment", "environment_path", value="/usr/bin::bin"),
        "PRE-8 at experiment.environment_path: expected absolute folders separated by ':', none empty; "
        "found the entry ''",
        id="PRE-8-environment-path",
    ),
    # check 13: provenance
    pytest.param(
        _set("tools", "sci", "name", value="sci"),
        "RCPT-11 at tools.sci.name: expected 'semantic-code-intelligence'; found 'sci'",
        id="RCPT-11-producer-name",
    ),
    pytest.param(
        _set("tools", "sci", "version", value="2.0.0 beta"),
        "RCPT-11 at tools.sci.version: expected a Token; found '2.0.0 beta'",
        id="RCPT-11-producer-version-not-a-token",
    ),
    pytest.param(
        _set("tools", "sci", "workflow", value="structural-evidence-export-v2"),
        "SB-12 at tools.sci.workflow: expected 'structural-evidence-export-v1'; found 'structural-evidence-export-v2'",
        id="SB-12-workflow",
    ),
    pytest.param(
        _set("tools", "backend", "version", value=""),
        "RCPT-12 at tools.backend.version: expected a Token; found ''",
        id="RCPT-12-backend-version",
    ),
    pytest.param(
        _set("tools", "backend", "executable_name", value="ast grep"),
        "RCPT-13 at tools.backend.executable_name: expected a Token; found 'ast grep'",
        id="RCPT-13-executable-name",
    ),
    # check 14: identities and limits
    pytest.param(
        _set("repository", 0, "id", value="alpha  service"),
        'REPO-3 at repository[0].id: expected a Normalized NBText(128); normalised: "alpha service"; '
        "found 'alpha  service'",
        id="REPO-3-repository-id-not-normalised",
    ),
    pytest.param(
        _set("case", 0, "id", value="\u2003"),
        "CASE-3 at case[0].id: expected an NBText(128); found '\\u2003'",
        id="CASE-3-blank-case-id",
    ),
    pytest.param(
        _set("sci_defaults", value={"limits": {"max_candidates": 10_001}}),
        "REQ-13 at sci_defaults.limits.max_candidates: expected an integer from 1 to 10000; found 10001",
        id="REQ-13-limit-too-high",
    ),
    pytest.param(
        _set("sci_defaults", value={"limits": {"max_candidates": 100}}),
        "REQ-14 at sci_defaults.limits.max_candidates_per_file: expected at most max_candidates (100); found 200",
        id="REQ-14-per-file-above-overall",
    ),
    pytest.param(
        _set("sci_defaults", value={"process_timeout_s": 60}),
        "PRE-13 at sci_defaults.process_timeout_s: expected an integer of seconds from 1 with process_timeout_s "
        "× 1000 > timeout_ms (60000); found 60",
        id="PRE-13-process-timeout",
    ),
    pytest.param(
        _set("staleness", "rule", value="random"),
        "PRE-14 at staleness.rule: expected 'spread' or 'first'; found 'random'",
        id="PRE-14-staleness-rule",
    ),
    pytest.param(
        _set("staleness", "size", value=0),
        "PRE-14 at staleness.size: expected an integer of at least 1; found 0",
        id="PRE-14-staleness-size",
    ),
]


@pytest.mark.parametrize(("mutate", "line"), REJECTIONS)
def test_check_refuses_naming_the_rule_and_the_toml_location(
    made: Made, tmp_path: Path, mutate: Mutation, line: str
) -> None:
    doc = copy.deepcopy(made.doc)
    mutate(doc)
    ran = _check(tmp_path, doc)
    assert (ran.code, ran.out, errors_of(ran)) == (4, "", [line])


def test_PRE_22_a_work_root_inside_a_source_repository(made: Made, tmp_path: Path) -> None:
    alpha = made.repos["alpha"].path
    doc = copy.deepcopy(made.doc)
    doc["experiment"]["work_root"] = f"{alpha}/evidence"
    ran = _check(tmp_path, doc)
    assert (ran.code, errors_of(ran)) == (
        4,
        [
            "PRE-22 at experiment.work_root: expected a work_root outside every source repository (clones and request "
            f"files would dirty it); found inside repository[0] at '{alpha}'"
        ],
    )


def test_PRE_22_a_source_inside_the_work_root(made: Made, tmp_path: Path) -> None:
    folder = made.repos["alpha"].path.parent
    doc = copy.deepcopy(made.doc)
    doc["experiment"]["work_root"] = str(folder)
    ran = _check(tmp_path, doc)
    assert errors_of(ran)[0] == (
        f"PRE-22 at repository[0].source: expected a repository outside work_root; found '{folder}/alpha', "
        f"inside '{folder}'"
    )


def test_PRE_15_a_source_that_is_not_the_top_of_a_checkout(made: Made, tmp_path: Path) -> None:
    alpha = made.repos["alpha"].path
    doc = copy.deepcopy(made.doc)
    doc["repository"][0]["source"] = f"{alpha}/.git"
    assert errors_of(_check(tmp_path, doc)) == [
        "PRE-15 at repository[0].source: expected a bare repository or the top folder of a checkout; "
        "found a folder inside a checkout (its .git folder?)"
    ]
    for source in (f"{alpha}/src", "/nonexistent/alpha"):  # git's own words follow; they differ between versions
        doc["repository"][0]["source"] = source
        line = errors_of(_check(tmp_path, doc))[0]
        assert line.startswith("PRE-15 at repository[0].source: expected a git repository the pinned git can read; ")
        assert line.endswith(" (exit 128)")


def test_REPO_6_two_repositories_with_one_id(made_two: Made, tmp_path: Path) -> None:
    doc = copy.deepcopy(made_two.doc)
    doc["repository"][1]["id"] = "alpha"
    assert errors_of(_check(tmp_path, doc)) == [
        "REPO-6 at repository[1].id: expected an id no other repository has; found the id of repository[0]"
    ]


def test_CASE_10_a_truth_path_listed_twice(made: Made, tmp_path: Path) -> None:
    doc = copy.deepcopy(made.doc)
    doc["case"][0]["truth"] = ["src/alpha/accounts.py", "src/alpha/accounts.py"]
    assert errors_of(_check(tmp_path, doc)) == [
        "CASE-10 at case[0].truth[1]: expected a path not listed before; found the same as case[0].truth[0]"
    ]


def test_PRE_17_a_commit_no_branch_or_tag_reaches(made: Made, tmp_path: Path) -> None:
    repo = make_repository(tmp_path / "gamma", {"src/a.py": "a\n"})
    lost = unreachable_commit(repo, {"src/a.py": "b\n"})
    doc = copy.deepcopy(made.doc)
    doc["repository"][0] |= {"source": str(repo.path), "commit": lost}
    ran = _check(tmp_path, doc)
    assert errors_of(ran) == [
        "PRE-17 at repository[0].commit: expected a commit reachable from a branch or tag of the source "
        "(a clone copies nothing else); found no branch or tag reaches it"
    ]


def test_a_commit_behind_the_branch_tip_is_reachable(made: Made, tmp_path: Path) -> None:
    repo = make_repository(tmp_path / "delta", ALPHA_FILES)
    add_commit(repo, {**ALPHA_FILES, "CHANGELOG.md": "later\n"})  # the branch moves on
    doc = copy.deepcopy(made.doc)
    doc["repository"][0] |= {"source": str(repo.path), "commit": repo.commit}
    ran = _check(tmp_path, doc)
    assert (ran.code, errors_of(ran)) == (0, [])


def test_GIT_9_more_than_20000_tracked_paths(made: Made, tmp_path: Path) -> None:
    files: dict[str | bytes, Any] = {f"docs/{k // 100:03d}/{k % 100:02d}.md": "" for k in range(20_001)}
    repo = make_repository(tmp_path / "big", files, bare=True)
    doc = copy.deepcopy(made.doc)
    doc["repository"][0] |= {"source": str(repo.path), "commit": repo.commit}
    ran = _check(tmp_path, doc)
    assert errors_of(ran)[0] == (
        "GIT-9 at repository[0].commit: expected at most 20000 tracked paths at the commit; found 20001"
    )


def test_GIT_7_a_tracked_path_that_is_not_utf8(made: Made, tmp_path: Path) -> None:
    repo = make_repository(tmp_path / "latin1", {"src/a.py": "", b"docs/caf\xe9.md": ""}, bare=True)
    doc = copy.deepcopy(made.doc)
    doc["repository"][0] |= {"source": str(repo.path), "commit": repo.commit}
    ran = _check(tmp_path, doc)
    assert errors_of(ran)[0] == (
        "GIT-7 at repository[0].commit: expected every tracked path in UTF-8; found the path b'docs/caf\\xe9.md'"
    )


def test_PRE_18_a_tracked_default_extension_path_that_is_not_a_safe_path(made: Made, tmp_path: Path) -> None:
    files: dict[str | bytes, Any] = {"src/a.py": "", "src/tab\there.py": "", "notes/tab\there.md": ""}
    repo = make_repository(tmp_path / "tabs", files, bare=True)
    doc = copy.deepcopy(made.doc)
    doc["repository"][0] |= {"source": str(repo.path), "commit": repo.commit}
    ran = _check(tmp_path, doc)
    assert errors_of(ran)[0] == (
        "PRE-18 at repository[0].commit: expected every tracked path with a default extension a SafePath "
        "(else SL-13 or GIT-10 at capture); found the tracked path 'src/tab\\there.py'"
    )


def test_errors_all_reports_every_error_in_check_order(made: Made, tmp_path: Path) -> None:
    doc = copy.deepcopy(made.doc)
    doc["experiment"]["id"] = "-ctx"
    doc["case"][0]["max_items"] = 0
    ran = _check(tmp_path, doc, "--errors", "all")
    assert (ran.code, errors_of(ran)) == (
        4,
        [
            "PRE-5 at experiment.id: expected a Token (SPEC §4.0); found '-ctx'",
            "CASE-8 at case[0].max_items: expected an integer of at least 1; found 0",
        ],
    )
    assert errors_of(_check(tmp_path, doc)) == ["PRE-5 at experiment.id: expected a Token (SPEC §4.0); found '-ctx'"]


def test_check_accepts_what_spec_accepts(made: Made, tmp_path: Path) -> None:
    """A gitlink truth path, 64-hex commits and revisions, a path seed with two spaces in a row (§11 item 20)."""
    files = {**ALPHA_FILES, "vendor/rates.go": Gitlink("ab" * 32)}
    wide = make_repository(tmp_path / "wide", files, object_format="sha256")
    assert len(wide.commit) == 64
    doc = copy.deepcopy(made.doc)
    doc["repository"][0] |= {"source": str(wide.path), "commit": wide.commit}
    doc["tools"]["source_list"]["revision"] = "ab" * 32
    doc["tools"]["sci"]["revision"] = "cd" * 32
    doc["case"][2]["sci"]["paths"] = ["src/alpha/old  ledger.py"]
    assert doc["case"][9]["truth"] == ["vendor/rates.go"]  # the gitlink
    ran = _check(tmp_path, doc)
    assert (ran.code, errors_of(ran)) == (0, [])
    assert f"repository[0] 'alpha' at {wide.commit}: 17 tracked paths" in ran.out
