"""The manifest as the sealed start reads it (:func:`ablation.closure.manifest.read_manifest` given the layers
:func:`ablation.closure.layerlines.read_layers` cut from it): every digest must be 64 lowercase hex digits."""

from __future__ import annotations

from pathlib import Path

import pytest

from ablation.closure.layerlines import read_layers
from ablation.closure.manifest import ManifestUnusable, read_manifest, render_manifest


def _manifest(digest: str) -> bytes:
    layers: dict[str, dict[str, str | None]] = {
        "package": {"ablation/__init__.py": "a" * 64, "ablation/cli.py": digest, "RECORD": None},
        "dependencies": {},
        "stdlib": {"os.py": "b" * 64},
        "interpreter": {},
    }
    return render_manifest(package={"name": "ablation", "sourceRevision": None}, distributions=[], layers=layers,
                           local={})  # fmt: skip


def test_the_start_layers_are_taken_when_every_digest_is_lowercase_hex(tmp_path: Path) -> None:
    data = _manifest("0123456789abcdef" * 4)
    manifest = read_manifest(tmp_path / "unread.json", "ablation/CLOSURE.json", data, read_layers(data))
    assert manifest.layers["package"] == {
        "RECORD": None,
        "ablation/__init__.py": "a" * 64,
        "ablation/cli.py": "0123456789abcdef" * 4,
    }


@pytest.mark.parametrize(
    "digest",
    ["A" * 64, "a" * 63 + "g", "a" * 63, "é" + "a" * 63, "a" * 63 + "\u0660", "a" * 62 + "  ", "a" * 63 + "-"],
    ids=["upper", "not-hex", "short", "non-ascii", "arabic-digit", "spaces", "dash"],
)
def test_a_start_layer_with_a_malformed_digest_is_refused(tmp_path: Path, digest: str) -> None:
    data = _manifest(digest)
    with pytest.raises(ManifestUnusable) as caught:
        read_manifest(tmp_path / "unread.json", "ablation/CLOSURE.json", data, read_layers(data))
    assert caught.value.why == "has a malformed package layer"


def test_a_digest_too_long_is_refused_even_when_the_lengths_add_up(tmp_path: Path) -> None:
    layers: dict[str, dict[str, str | None]] = {
        "package": {"a": "a" * 65, "b": "b" * 63},  # 128 characters for two digests
        "dependencies": {},
        "stdlib": {},
        "interpreter": {},
    }
    data = _manifest("c" * 64)
    with pytest.raises(ManifestUnusable, match="has a malformed package layer"):
        read_manifest(tmp_path / "unread.json", "ablation/CLOSURE.json", data, layers)


def test_a_digest_with_an_undecodable_byte_is_refused_not_raised(tmp_path: Path) -> None:
    layers: dict[str, dict[str, str | None]] = {
        "package": {"a": "\udcc3" + "a" * 63},  # what the start's surrogateescape reading gives for a byte C3
        "dependencies": {},
        "stdlib": {},
        "interpreter": {},
    }
    with pytest.raises(ManifestUnusable, match="has a malformed package layer"):
        read_manifest(tmp_path / "unread.json", "ablation/CLOSURE.json", _manifest("c" * 64), layers)
