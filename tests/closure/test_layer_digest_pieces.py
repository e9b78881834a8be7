"""A layer digest hashed in pieces is the digest of the whole ``sha256sum`` text (decision 20).

:func:`ablation.closure.manifest.layer_digest` makes and hashes 512 lines at a
time; these layers cross that boundary, exactly and not, with ASCII and other
paths and with files that are listed but not hashed.
"""

from __future__ import annotations

import hashlib

import pytest

from ablation.closure.manifest import layer_digest


def _whole_text_digest(files: dict[str, str | None]) -> str:
    hashed = sorted((p.encode("utf-8", "surrogateescape"), s) for p, s in files.items() if s is not None)
    text = b"".join(s.encode() + b"  " + p + b"\n" for p, s in hashed)
    return "sha256:" + hashlib.sha256(text).hexdigest()


@pytest.mark.parametrize("count", [511, 512, 513, 1024, 1300])
@pytest.mark.parametrize("name", ["mod{:05d}.py", "é{:05d}.py"])
def test_pieces_give_the_whole_text_s_digest(count: int, name: str) -> None:
    files: dict[str, str | None] = {
        name.format(n): hashlib.sha256(str(n).encode()).hexdigest() for n in reversed(range(count))
    }
    files["RECORD"] = None
    assert layer_digest(files) == (_whole_text_digest(files), count)


def test_a_known_digest() -> None:
    files: dict[str, str | None] = {f"p{n:04d}": "0" * 64 for n in range(600)}
    text = "".join(f"{'0' * 64}  p{n:04d}\n" for n in range(600))
    assert layer_digest(files) == ("sha256:" + hashlib.sha256(text.encode()).hexdigest(), 600)
