"""Hypothesis: a layer's digest sorts its files by their paths' UTF-8 bytes, whichever way it sorts them.

:func:`ablation.closure.manifest.layer_digest` sorts ASCII paths as strings and every other layer by the
``surrogateescape`` bytes of its paths; both must give the order and the digest of the bytes.
"""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from ablation.closure.manifest import layer_digest

_ESCAPED_BYTES = st.sampled_from([chr(0xDC80), chr(0xDCC3), chr(0xDCFF)])  # undecodable bytes (os.fsdecode)
# "é" is C3 A9 in UTF-8 and "\udcc3" the undecodable byte C3: their strings and their bytes sort differently.
# Other surrogates cannot be in a path: os.fsdecode makes only these.
characters = st.characters(blacklist_categories=["Cs"]) | _ESCAPED_BYTES | st.sampled_from(["é", "x"])
paths = st.text(characters, min_size=1, max_size=6)
ascii_paths = st.text(st.characters(max_codepoint=127), min_size=1, max_size=6)
digests = st.none() | st.sampled_from(["0" * 64, "a" * 64, "f" * 64])


def _by_bytes(files: dict[str, str | None]) -> tuple[str, int]:
    """The definition: hashed files in the order of their paths' bytes, one ``<sha>  <path>`` line each."""
    hashed = sorted((p.encode("utf-8", "surrogateescape"), sha) for p, sha in files.items() if sha is not None)
    text = b"".join(sha.encode() + b"  " + path + b"\n" for path, sha in hashed)
    return "sha256:" + hashlib.sha256(text).hexdigest(), len(hashed)


@given(st.dictionaries(paths, digests, max_size=10))
def test_layer_digest_orders_by_utf8_bytes(files: dict[str, str | None]) -> None:
    assert layer_digest(files) == _by_bytes(files)


@given(st.dictionaries(ascii_paths, digests, max_size=10))
def test_layer_digest_of_ascii_paths_orders_by_bytes(files: dict[str, str | None]) -> None:
    assert layer_digest(files) == _by_bytes(files)


def test_layer_digest_pins_an_order_the_strings_do_not_have() -> None:
    files = {"é": "e" * 64, "\udcc3x": "c" * 64, "a": "a" * 64, "R": None}
    assert sorted(files) == ["R", "a", "é", "\udcc3x"]  # the strings' order; the bytes put C3 78 before C3 A9
    text = f"{'a' * 64}  a\n{'c' * 64}  ".encode() + b"\xc3x\n" + f"{'e' * 64}  é\n".encode()
    assert layer_digest(files) == ("sha256:" + hashlib.sha256(text).hexdigest(), 3)
