"""The start's layers are checked 512 digests at a time: a malformed digest is found in any batch.

:func:`ablation.closure.manifest.read_manifest`, given the layers the sealed start
read, checks every digest is 64 lowercase hex digits without joining a whole layer
into one new string (decision 20).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ablation.closure.manifest import Manifest, ManifestUnusable, read_manifest, render_manifest

_EMPTY: dict[str, dict[str, str | None]] = {"package": {}, "dependencies": {}, "stdlib": {}, "interpreter": {}}


def _stdlib(count: int) -> dict[str, dict[str, str | None]]:
    return {**_EMPTY, "stdlib": {f"m{n:04d}.py": f"{n:064x}" for n in range(count)}}


def _read(tmp_path: Path, layers: dict[str, dict[str, str | None]]) -> Manifest:
    data = render_manifest(package={"name": "ablation", "sourceRevision": None}, distributions=[], layers=layers,
                           local={})  # fmt: skip
    return read_manifest(tmp_path / "unread", "ablation/CLOSURE.json", data, layers)


@pytest.mark.parametrize("where", [0, 511, 512, 1023, 1299])
@pytest.mark.parametrize("bad", ["A" * 64, "g" * 64, "é" * 64])
def test_a_malformed_digest_in_any_batch_is_refused(tmp_path: Path, where: int, bad: str) -> None:
    layers = _stdlib(1300)
    layers["stdlib"][f"m{where:04d}.py"] = bad
    with pytest.raises(ManifestUnusable) as caught:
        _read(tmp_path, layers)
    assert caught.value.why == "has a malformed stdlib layer"


def test_well_formed_batches_are_taken(tmp_path: Path) -> None:
    layers = _stdlib(1300)
    assert _read(tmp_path, layers).layers["stdlib"] == layers["stdlib"]
