"""Stage 2 reads no message catalogue: ``LANGUAGE=C`` (``boot.FIXED``).

argparse words every message through Python's ``gettext``. Under ``LC_ALL=C.UTF-8``
alone, ``gettext`` expands the locale to ``en_US.UTF-8`` and looks for
``<localedir>/en_US…/LC_MESSAGES/messages.mo``; the default folder is the
interpreter's ``share/locale``, which no layer lists, so a catalogue added there
would reword usage errors. Here the folder is a temporary one holding such a
catalogue: found under the old fixed environment, not under stage 2's.
"""

from __future__ import annotations

import gettext
import os
from pathlib import Path

import pytest

from ablation.closure import boot


def _catalogue(root: Path) -> Path:
    folder = root / "en_US.UTF-8" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    path = folder / "messages.mo"
    path.write_bytes(b"not read")
    return path


def _stage_two_environment() -> dict[str, str]:
    clean = boot.clean_environment({}, "/v/lib/python3.11/site-packages")
    return {os.fsdecode(name): os.fsdecode(value) for name, value in clean.items()}


def test_without_language_c_gettext_finds_a_catalogue_outside_the_closure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _catalogue(tmp_path)
    environment = _stage_two_environment()
    del environment["LANGUAGE"]
    monkeypatch.setattr(os, "environ", environment)
    assert gettext.find("messages", str(tmp_path)) == str(path)


def test_stage_two_looks_for_no_catalogue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _catalogue(tmp_path)
    environment = _stage_two_environment()
    assert environment["LANGUAGE"] == "C"
    monkeypatch.setattr(os, "environ", environment)
    assert gettext.find("messages", str(tmp_path)) is None
    assert gettext.find("messages", str(tmp_path), all=True) == []
