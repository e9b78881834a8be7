"""``tools/imageinspect.py`` on small docker-archives made here (PRODUCT.md "Reproducible image").

CI runs ``imageinspect.py dates`` on the built image; these tests pin what it
reports on archives whose dates and contents are known.
"""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path
from types import ModuleType

import pytest

from tests.builders.paths import load_tool

EPOCH = 1_700_000_000  # 2023-11-14T22:13:20Z, day 19675
ISO = "2023-11-14T22:13:20Z"


def _load() -> ModuleType:
    return load_tool("imageinspect")


imageinspect = _load()


def _tar(members: dict[str, tuple[bytes | None, int]]) -> bytes:
    """A layer tar: ``{path: (content or None for a folder, mtime)}``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path, (content, mtime) in members.items():
            info = tarfile.TarInfo(path)
            info.mtime = mtime
            if content is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                info.size, info.mode = len(content), 0o644
                tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def _archive(
    path: Path,
    layers: list[dict[str, tuple[bytes | None, int]]],
    created: str = ISO,
    history: list[str] | None = None,
    labels: dict[str, str] | None = None,
) -> Path:
    config = {
        "created": created,
        "architecture": "amd64",
        "os": "linux",
        "config": {
            "Labels": labels if labels is not None else {"io.ablation.source-date-epoch": str(EPOCH)},
            "Entrypoint": ["/opt/ablation/bin/ablation"],
        },
        "history": [{"created": h, "created_by": f"step {i}"} for i, h in enumerate(history or [ISO, ISO])],
    }
    layer_names = [f"layer{i}.tar" for i in range(len(layers))]
    outer_members = {
        "config.json": json.dumps(config).encode(),
        "manifest.json": json.dumps([{"Config": "config.json", "RepoTags": [], "Layers": layer_names}]).encode(),
    }
    outer_members.update({name: _tar(layer) for name, layer in zip(layer_names, layers, strict=True)})
    with tarfile.open(path, "w") as outer:
        for name, data in outer_members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            outer.addfile(info, io.BytesIO(data))
    return path


SHADOW_OK = b"root:*::0:99999:7:::\nablation:!:19675:0:99999:7:::\n"
BASE = {"etc": (None, EPOCH), "etc/shadow": (b"root:*::0:99999:7:::\n", EPOCH), "usr/bin/python3": (b"\x7fELF", EPOCH)}


def test_iso_is_the_builders_form() -> None:
    assert imageinspect.iso(EPOCH) == ISO
    assert imageinspect.iso(0) == "1970-01-01T00:00:00Z"


def test_an_image_dated_only_by_the_epoch_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    archive = _archive(
        tmp_path / "ok.tar",
        [BASE, {"etc/shadow": (SHADOW_OK, EPOCH), "opt": (None, EPOCH)}],
        created="2023-11-14T22:13:20.000000000Z",
    )
    assert imageinspect.main(["dates", str(archive)]) == 0
    assert capsys.readouterr().out == (
        f"imageinspect: only SOURCE_DATE_EPOCH={EPOCH} ({ISO}): config created, 2 history entries, "
        "5 members in 2 layers, /etc/shadow last-change fields\n"
    )


def test_every_other_date_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    later = EPOCH + 86_400
    archive = _archive(
        tmp_path / "dated.tar",
        [
            BASE,
            {
                "etc/shadow": (b"root:*::0:99999:7:::\nablation:!:19676:0:99999:7:::\n", EPOCH),
                "opt/x.pyc": (b"", later),
            },
        ],
        created="2023-11-15T22:13:20Z",
        history=[ISO, "2023-11-15T22:13:20Z"],
    )
    assert imageinspect.main(["dates", str(archive)]) == 3
    prefix = f"imageinspect: date other than SOURCE_DATE_EPOCH={EPOCH}: "
    assert capsys.readouterr().out.splitlines() == [
        prefix + f"config created 2023-11-15T22:13:20Z, expected {ISO}",
        prefix + f"history[1] created 2023-11-15T22:13:20Z, expected {ISO} (step 1)",
        prefix + f"layer 1: 1 member(s) with mtime other than {ISO}: opt/x.pyc (2023-11-15T22:13:20Z)",
        prefix + "layer 1 /etc/shadow line 2 (ablation): last change day 19676, "
        "expected empty or 19675 (SOURCE_DATE_EPOCH // 86400)",
    ]


def test_epoch_option_overrides_the_label_and_a_missing_label_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = _archive(tmp_path / "nolabel.tar", [BASE], labels={})
    assert imageinspect.main(["dates", str(archive)]) == 2
    assert "no --epoch and no io.ablation.source-date-epoch label" in capsys.readouterr().err
    assert imageinspect.main(["dates", "--epoch", str(EPOCH), str(archive)]) == 0


def test_not_an_archive_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.tar"
    bad.write_bytes(b"not a tar")
    assert imageinspect.main(["dates", str(bad)]) == 2
    assert capsys.readouterr().err.startswith(f"imageinspect: {bad}: not a readable docker-archive")


def test_diff_names_the_changed_file_and_label(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    app: dict[str, tuple[bytes | None, int]] = {
        "opt/ablation/canonical.py": (b"x = 1\n", EPOCH),
        "opt/ablation/same.py": (b"", EPOCH),
    }
    changed: dict[str, tuple[bytes | None, int]] = {
        "opt/ablation/canonical.py": (b"y = 1\n", EPOCH),
        "opt/ablation/same.py": (b"", EPOCH),
    }
    expected = _archive(tmp_path / "a.tar", [BASE, app], labels={"org.opencontainers.image.revision": "abc"})
    rebuilt = _archive(tmp_path / "b.tar", [BASE, changed], labels={"org.opencontainers.image.revision": "abc-dirty"})
    assert imageinspect.main(["diff", str(expected), str(rebuilt)]) == 3
    assert capsys.readouterr().out.splitlines() == [
        "image-check: label org.opencontainers.image.revision: expected 'abc', rebuilt 'abc-dirty'",
        "image-check: layer 1: /opt/ablation/canonical.py differs in content",
    ]
    assert imageinspect.main(["diff", str(expected), str(expected)]) == 0


def test_shadow_findings_accept_empty_and_the_epoch_day() -> None:
    text = "a:*::0:::::\nb:!:19675:0:::::\nc:!:1:0:::::\nshort\n"
    assert imageinspect.shadow_findings(text, EPOCH, "layer 0") == [
        "layer 0 /etc/shadow line 3 (c): last change day 1, expected empty or 19675 (SOURCE_DATE_EPOCH // 86400)",
    ]
