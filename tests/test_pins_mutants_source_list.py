"""Pins found by mutation testing of the source-list artifact (SL-2, SL-3, SL-35, TOP rules inside rawJson).

Whole messages where only the rule was pinned (a rawJson of another type, a
strictness violation inside rawJson, at its root too, the page size of a
one-item list), and what --errors all reports once SL-3 failed: the
candidate universe of a raw text that is not the pinned one is not used
(no REPO-5 on top). SPEC §4.3, §2.4.
"""

from __future__ import annotations

import pytest

from ablation.errors import RejectedInput
from ablation.experiment import validate_experiment
from tests.builder import dumps, rehash_input, valid_minimal

try:
    from test_rules_reject import rejected, repo0, with_payload
except ImportError:  # pragma: no cover - importlib import mode
    from tests.test_rules_reject import rejected, repo0, with_payload

RAW = "/repositories/0/sourceListArtifact/rawJson"


def test_SL_2_a_raw_json_of_another_type_is_shown() -> None:
    obj = valid_minimal()
    repo0(obj)["sourceListArtifact"]["rawJson"] = 5  # type: ignore[index]
    rehash_input(obj)
    assert str(rejected(dumps(obj))) == f"SL-2 at {RAW}: expected a non-empty string of at most 16777216 UTF-8 bytes; found 5"


def test_TOP_8_inside_raw_json_is_located_without_a_character_offset() -> None:
    obj = valid_minimal()

    def change(payload: dict[str, object]) -> None:
        payload["page"] = 1.5

    with_payload(change)(obj)
    assert str(rejected(dumps(obj))) == (
        f"TOP-8 at {RAW} -> /page: expected an integer literal (no fraction, no exponent); found 1.5"
    )


def test_TOP_8_at_the_root_of_raw_json_is_located_at_the_empty_pointer() -> None:
    obj = valid_minimal()
    repo0(obj)["sourceListArtifact"]["rawJson"] = "1.5"  # type: ignore[index]
    rehash_input(obj)
    assert str(rejected(dumps(obj))) == (
        f'TOP-8 at {RAW} -> "": expected an integer literal (no fraction, no exponent); found 1.5'
    )


def _one_page(items: int, page_size: int) -> dict[str, object]:
    obj = valid_minimal()

    def change(payload: dict[str, object]) -> None:
        payload["items"] = payload["items"][:items]  # type: ignore[index]
        payload.update(totalCount=items, returnedCount=items, pageSize=page_size)

    with_payload(change)(obj)
    return obj


@pytest.mark.parametrize("items", [0, 1], ids=["no-item", "one-item"])
def test_SL_35_the_page_size_of_a_list_of_at_most_one_item_is_1(items: int) -> None:
    assert str(rejected(dumps(_one_page(items, 5)))) == f"SL-35 at {RAW} -> /pageSize: expected 1; found 5"


def test_REPO_5_only_for_the_pinned_raw_text_errors_all() -> None:
    obj = _one_page(0, 1)
    with pytest.raises(RejectedInput) as caught:
        validate_experiment(dumps(obj), collect_all=True)
    assert [v.rule for v in caught.value.violations][:1] == ["REPO-5"]
    repo0(obj)["sourceListArtifact"]["rawSha256"] = "0" * 64  # type: ignore[index]
    with pytest.raises(RejectedInput) as caught:
        validate_experiment(dumps(obj), collect_all=True)
    assert "REPO-5" not in [v.rule for v in caught.value.violations]
    assert caught.value.violations[0].rule == "SL-3"
