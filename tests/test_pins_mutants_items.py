"""Pins found by mutation testing of the source-list items (SL-12, SL-13, SL-16, SL-20 and the metadata text).

The fast path for plain items may only send an item to the rule-by-rule
checks, never accept one they refuse: an extension that is not the path's
(SL-16, a dotfile's extension is empty), a path that is not a string (SL-13).
Off the fast path (a non-ASCII path) a valid item keeps all its hints, up to
five, in its metadata text. With ``--errors all`` an item that is not an
object does not stop the scan. SPEC §4.3, §9.9.
"""

from __future__ import annotations

import pytest

from ablation.errors import RejectedInput
from ablation.experiment import validate_experiment
from tests.builder import dumps, valid_minimal

try:
    from test_rules_reject import item, rejected, with_payload
except ImportError:  # pragma: no cover - importlib import mode
    from tests.test_rules_reject import item, rejected, with_payload

ITEMS = "/repositories/0/sourceListArtifact/rawJson -> /items"


def test_SL_13_a_path_that_is_not_a_string_is_refused_not_read() -> None:
    obj = valid_minimal()
    item(0, path=7)(obj)
    assert str(rejected(dumps(obj))) == f"SL-13 at {ITEMS}/0/path: expected a SafePath; found 7"


@pytest.mark.parametrize(
    ("path", "extension", "expected"),
    [
        ("src/alpha.js", ".ts", "'.js'"),
        ("src/.js", ".js", "''"),
        ("src/x/.js", ".js", "''"),
    ],
    ids=["other-extension", "dotfile", "nested-dotfile"],
)
def test_SL_16_the_fast_path_never_accepts_an_extension_that_is_not_the_paths(
    path: str, extension: str, expected: str
) -> None:
    obj = valid_minimal()
    item(0, path=path, extension=extension)(obj)
    assert str(rejected(dumps(obj))) == (
        f"SL-16 at {ITEMS}/0/extension: expected lower(extname(path)) = {expected}, one of the default extensions; "
        f"found {extension!r}"
    )


@pytest.mark.parametrize("hints", [["h1"], ["h1", "h2", "h3", "h4", "h5"]], ids=["one-hint", "five-hints"])
def test_SL_20_off_the_fast_path_an_item_keeps_up_to_five_hints_in_its_text(hints: list[str]) -> None:
    obj = valid_minimal()

    def rename(payload: dict[str, object]) -> None:
        last = payload["items"][-1]  # type: ignore[index]
        last.update(path="src/z\u00e9ta.js", metadataStatus="present", summary="zeta", readWhen=hints)

    with_payload(rename, git=True)(obj)
    universe = validate_experiment(dumps(obj)).repositories[0].source_list.universe
    assert universe.paths[-1] == "src/z\u00e9ta.js"
    assert universe.metadata_texts[-1] == " ".join(["zeta", *hints])


def test_SL_12_errors_all_goes_on_past_an_item_that_is_not_an_object() -> None:
    obj = valid_minimal()

    def change(payload: dict[str, object]) -> None:
        payload["items"][0] = 1  # type: ignore[index]
        payload["items"][1]["path"] = 7  # type: ignore[index]

    with_payload(change)(obj)
    with pytest.raises(RejectedInput) as caught:
        validate_experiment(dumps(obj), collect_all=True)
    assert [(v.rule, v.where) for v in caught.value.violations][:2] == [
        ("SL-12", f"{ITEMS}/0"),
        ("SL-13", f"{ITEMS}/1/path"),
    ]
