"""Pins found by mutation testing of the raw evidence texts (OBS bounds, show_command) and of the one-parse loader.

The size bound of a raw text is pinned one past it in code points and in
UTF-8 bytes (16 MiB strings, built once), ``show_command`` at 240 characters,
and ``ParsedInput`` (``archive``, ``verify-archive``) fails fast: one
violation, as ``run`` reports it. SPEC §4.11, §2.5; PRODUCT.md ``archive``.
"""

from __future__ import annotations

import pytest

from ablation.bundle.prepared import ParsedInput
from ablation.contracts.raw_evidence import RAW_TEXT_MAX_BYTES, _check_text, show_command
from ablation.errors import BundleInvalid, InputRejected
from tests.builder import dumps, valid_minimal

EXPECTED = f"a non-empty string of at most {RAW_TEXT_MAX_BYTES} UTF-8 bytes"


def check_text(text: str) -> str:
    with pytest.raises(BundleInvalid) as caught:
        _check_text("OBS-21", {"requestJson": text, "requestSha256": "0" * 64}, "requestJson", "w")
    return str(caught.value)


def test_OBS_21_one_code_point_past_the_bound_is_counted_in_code_points() -> None:
    text = "x" * (RAW_TEXT_MAX_BYTES + 1)
    assert check_text(text) == f"OBS-21 at w/requestJson: expected {EXPECTED}; found a string of {len(text)} code points"


def test_OBS_21_at_the_bound_in_bytes_goes_on_and_one_byte_past_is_counted_in_bytes() -> None:
    assert check_text("x" * RAW_TEXT_MAX_BYTES).startswith("OBS-21 at w/requestSha256: expected a Digest")
    text = "é" + "x" * (RAW_TEXT_MAX_BYTES - 1)  # 2**24 code points, one byte more
    assert check_text(text) == (
        f"OBS-21 at w/requestJson: expected {EXPECTED}; found a string of {RAW_TEXT_MAX_BYTES + 1} UTF-8 bytes"
    )


def test_show_command_shows_240_characters_whole_and_cuts_241() -> None:
    fits = ["a" * 236]  # repr: ['aaa…'] = 240 characters
    assert show_command(fits) == repr(fits)
    longer = ["a" * 237]
    assert show_command(longer) == repr(longer)[:239] + "…"
    assert show_command(["a", 1]) == "an array of 2 elements"


def test_parsed_input_fails_fast_with_the_first_violation() -> None:
    obj = valid_minimal()
    data = dumps(obj).replace(b'"protocol":', b'"protocol":"x","protocol":', 1)
    with pytest.raises(InputRejected) as caught:
        ParsedInput(data)
    assert caught.value.rule == "TOP-6"
    obj["cases"][0]["maxItems"] = 0  # type: ignore[index]
    with pytest.raises(InputRejected) as caught:
        ParsedInput(dumps(obj)).evaluate()
    assert caught.value.rule == "CASE-8"
