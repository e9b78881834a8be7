"""Tests that kill survivors of ``make mutate`` in the value modules (canonical, metrics, selection, …).

Each test names the behaviour it pins; the mutants they kill are listed in the
report (build/mutation/report.md) of the run before they were added.
"""

from __future__ import annotations

import pytest

from ablation.canonical import js_number

# ---------------------------------------------------------------- canonical.js_number (SPEC §9.1)


@pytest.mark.parametrize(
    ("value", "text"),
    [(1.5e-7, "1.5e-7"), (2.5e22, "2.5e+22"), (-1.5e-7, "-1.5e-7"), (1.25e-7, "1.25e-7"), (3e-7, "3e-7")],
)
def test_js_number_exponent_form_with_two_significant_digits(value: float, text: str) -> None:
    """k = 2 digits still get a decimal point in exponent form (k > 1, not k > 2)."""
    assert js_number(value) == text


# ---------------------------------------------------------------- metrics.delta (SPEC §7.4)


def test_delta_reduction_rate_is_null_when_paths_has_no_unnecessary_item() -> None:
    from ablation.metrics import delta

    paths = {"caseCount": 2, "macroPrecision": 1.0, "macroRecall": 0.5, "unnecessary": 0, "unnecessaryPerCase": 0.0,
             "omissions": 1, "omissionsPerCase": 0.5}  # fmt: skip
    treatment = {"caseCount": 2, "macroPrecision": 0.5, "macroRecall": 1.0, "unnecessary": 2, "unnecessaryPerCase": 1.0,
                 "omissions": 0, "omissionsPerCase": 0.0}  # fmt: skip
    assert delta(paths, treatment) == {
        "macroPrecision": -0.5, "macroRecall": 0.5, "unnecessary": 2, "unnecessaryReductionRate": None,
        "omissions": -1, "unnecessaryPerCase": 1.0, "omissionsPerCase": -0.5,
    }  # fmt: skip
    assert delta(treatment, paths)["unnecessaryReductionRate"] == 1.0  # type: ignore[index]
    assert delta(paths | {"caseCount": 0}, treatment) is None


# ---------------------------------------------------------------- selection (SPEC §5.1 … §5.4)

from ablation.contracts.source_list import CandidateUniverse  # noqa: E402
from ablation.selection import ARMS, Scores, _postings, index_repository, select_arms  # noqa: E402


def test_postings_keep_tokens_of_three_or_more_characters_once_per_text() -> None:
    assert _postings(["ab abc", None, "ABC/xyz1 abc", "Abc-ab"]) == {"abc": (0, 2, 3), "xyz1": (2,)}


def test_postings_with_wanted_keep_only_wanted_tokens_and_item_breaks() -> None:
    assert _postings(["abc xyz", "xyz", None, "qqq xyz"], frozenset({"xyz"})) == {"xyz": (0, 1, 3)}
    assert _postings(["abc xyz", "xyz"], frozenset()) == {}


def _universe() -> CandidateUniverse:
    return CandidateUniverse(
        paths=("src/alpha.js", "src/beta.js", "src/gamma.py"),
        index_kinds=("regular", "regular", "regular"),
        metadata_texts=("alpha parser owner", None, "beta gamma notes"),
        present_count=2,
    )


def test_index_repository_without_questions_indexes_every_token() -> None:
    index = index_repository(_universe())
    assert index.path_postings == {"src": (0, 1, 2), "alpha": (0,), "beta": (1,), "gamma": (2,)}
    assert index.metadata_postings == {"alpha": (0,), "parser": (0,), "owner": (0,), "beta": (2,), "gamma": (2,),
                                       "notes": (2,)}  # fmt: skip
    assert index.position == {"src/alpha.js": 0, "src/beta.js": 1, "src/gamma.py": 2}


def test_index_repository_with_questions_indexes_only_their_ranking_tokens() -> None:
    index = index_repository(_universe(), ["Where is the beta parser?", "gamma"])
    assert index.path_postings == {"beta": (1,), "gamma": (2,)}
    assert index.metadata_postings == {"parser": (0,), "beta": (2,), "gamma": (2,)}


def test_select_arms_fusion_alone_equals_fusion_among_all_arms() -> None:
    """fusion continues down the source_list order even when source_list itself is not requested."""
    scores = Scores(path={0: 2, 3: 4}, metadata={1: 1, 3: 1}, structural={2: (1, 0, 0, 0, 1, 0, 0)})
    everything = select_arms(scores, ARMS, 4, 6)
    assert everything["fusion"] == [2, 3, 0, 1]
    assert select_arms(scores, ["fusion"], 4, 6) == {"fusion": [2, 3, 0, 1]}
    assert select_arms(scores, ["structural", "fusion"], 4, 6)["fusion"] == [2, 3, 0, 1]


# ---------------------------------------------------------------- contracts.base: messages and the reporter (SPEC §2.5)

from ablation.contracts.base import SHOW_LIMIT, Reporter, Shape, show  # noqa: E402


def test_show_counts_with_singular_and_plural() -> None:
    assert [show([]), show([1]), show([1, 2]), show({}), show({"a": 1}), show({"a": 1, "b": 2})] == [
        "an array of 0 elements", "an array of 1 element", "an array of 2 elements",
        "an object with 0 members", "an object with 1 member", "an object with 2 members",
    ]  # fmt: skip


def test_show_cuts_at_80_characters_and_names_the_length_of_strings_only() -> None:
    exact = "s" * (SHOW_LIMIT - 2)  # repr adds two quotes: exactly 80 characters
    assert show(exact) == repr(exact)
    longer = "s" * (SHOW_LIMIT - 1)
    assert show(longer) == "'" + "s" * (SHOW_LIMIT - 2) + f"… ({SHOW_LIMIT - 1} characters)"
    big = 10**100
    assert show(big) == str(big)[: SHOW_LIMIT - 1] + "…"


def test_shape_problem_of_a_non_object_shows_it() -> None:
    assert Shape(["a"]).problem(5) == "5"
    assert Shape(["a"]).problem([1]) == "an array of 1 element"
    assert Shape(["a", "o"], ["o"]).problem({"a": 1, "o": 2}) is None
    assert Shape(["a"]).problem({"a": 1, "o": 2}) == "unknown member 'o'"


def test_shape_report_reports_the_members_and_the_problem() -> None:
    rep = Reporter(collect_all=True)
    assert Shape(["a", "o"], ["o"]).report(rep, "X-1", {"a": 1, "o": 2}, "/w") is True
    assert Shape(["a", "b"]).report(rep, "X-1", {"a": 1}, "/w") is False
    assert Shape(["a"]).report(rep, "X-2", {"a": 1, "o": 2}, "/v") is False
    assert [str(v) for v in rep.violations] == [
        "X-1 at /w: expected an object with exactly the members a, b; found missing member 'b'",
        "X-2 at /v: expected an object with exactly the members a; found unknown member 'o'",
    ]


# ---------------------------------------------------------------- git_index (SPEC §4.5)

import base64 as _base64  # noqa: E402
import math  # noqa: E402

from ablation.canonical import raw_digest  # noqa: E402
from ablation.contracts.git_index import (  # noqa: E402
    MAX_BASE64_CHARACTERS,
    MAX_DECODED_BYTES,
    derive_tracked_entries,
    validate_git_evidence,
)
from ablation.errors import InputRejected  # noqa: E402


def test_derive_tracked_entries_of_no_bytes_is_no_path() -> None:
    assert derive_tracked_entries(b"", "/x", Reporter()) == ([], 0)
    e = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    data = f"100644 {e} 1\tb.md\x00100644 {e} 2\tb.md\x00100644 {e} 0\ta.js\x00".encode()
    entries, distinct = derive_tracked_entries(data, "/x", Reporter())  # type: ignore[misc]
    assert (entries, distinct) == ([("a.js", "regular")], 2)


def _git_error(text: object, data: bytes | None = None) -> InputRejected:
    inventory = {"stdoutBase64": text, "stdoutSha256": raw_digest(data if data is not None else b"")}
    with pytest.raises(InputRejected) as info:
        validate_git_evidence(inventory, "/p", None, Reporter())
    return info.value


@pytest.mark.parametrize("value", [None, 5, ["QQ=="], {}], ids=["null", "number", "array", "object"])
def test_GIT_1_stdout_base64_not_a_string(value: object) -> None:
    error = _git_error(value)
    assert (error.rule, error.where) == ("GIT-1", "/p/stdoutBase64")


def test_GIT_1_base64_text_at_the_limit_and_one_past() -> None:
    at_limit = "A" * MAX_BASE64_CHARACTERS  # passes GIT-1 and GIT-2; decodes past GIT-3's bound
    assert _git_error(at_limit).rule == "GIT-3"
    assert _git_error(at_limit + "AAAA").rule == "GIT-1"


def test_GIT_3_decoded_bytes_at_the_limit_and_one_past() -> None:
    at_limit = b"\0" * MAX_DECODED_BYTES
    error = _git_error(_base64.b64encode(at_limit).decode(), at_limit)
    assert error.rule == "GIT-6"  # within GIT-3; the empty records come next
    past = at_limit + b"\0\0\0"
    error = _git_error(_base64.b64encode(past).decode(), past)
    assert str(error) == "GIT-3 at /p/stdoutBase64: expected at most 16777216 decoded bytes; found 16777219 bytes"


# ---------------------------------------------------------------- gates G7: cost disclosure (PRODUCT.md "gateAssessment")


def test_G7_discloses_raw_bytes_and_approximate_tokens() -> None:
    from ablation.pipeline import evaluate
    from tests.builder import dumps, valid_minimal

    obj = valid_minimal()
    evaluation = evaluate(dumps(obj))
    g7 = next(g for g in evaluation.gate_assessment["gates"] if g["id"] == "G7")  # type: ignore[index,union-attr]
    repo = obj["repositories"][0]
    git_bytes = len(_base64.b64decode(repo["sourceListPreparation"]["trackedPathInventory"]["stdoutBase64"]))
    raw_bytes = len(repo["sourceListArtifact"]["rawJson"].encode())
    assert (git_bytes, raw_bytes) == (767, 3622)
    assert g7["measured"]["repositories"] == [{  # type: ignore[index]
        "repositoryId": "repo",
        "sourceListRawBytes": {"bytes": raw_bytes, "approximateTokens": math.ceil(raw_bytes / 4)},
        "gitEvidenceBytes": {"bytes": git_bytes, "approximateTokens": math.ceil(git_bytes / 4)},
    }]
    receipts = [len(c["structuralEvidence"]["executionObservation"]["rawEvidence"]["receiptJson"].encode())
                for c in obj["cases"]]  # fmt: skip
    assert [c["sciReceiptRawBytes"] for c in g7["measured"]["cases"]] == [  # type: ignore[index]
        {"bytes": n, "approximateTokens": math.ceil(n / 4)} for n in receipts
    ]
    assert g7["measured"]["latency"] is None  # type: ignore[index]
