"""A venv made through a symbolic link (``make venv VENV=/link/venv``) seals a manifest it then accepts.

Sealing takes the package folder resolved and the prefix as the venv was made.
Its ``site-packages`` was compared with the prefix in those two forms, found
outside it, and inventoried as part of the prefix's tree; the manifest written
afterwards was then "not in the closure manifest" at every start. Both are now
compared resolved, and ``site-packages`` is the prefix tree's ``skip`` entry.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ablation.closure import seal

SITE = "lib/python3.11/site-packages"


def _venv(root: Path) -> Path:
    venv = root / "real" / "venv"
    (venv / SITE / "ablation").mkdir(parents=True)
    (venv / SITE / "ablation" / "__init__.py").write_text("")
    (venv / "bin").mkdir()
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "stdlib").mkdir()
    return venv


@pytest.mark.parametrize("through_link", [False, True])
def test_site_packages_is_the_prefix_trees_skip_entry(tmp_path: Path, through_link: bool) -> None:
    venv = _venv(tmp_path)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    prefix = tmp_path / "link" / "venv" if through_link else venv
    layers: dict[str, dict[str, str | None]] = {
        "package": {"ablation/__init__.py": None},
        "dependencies": {},
        "stdlib": {},
        "interpreter": {},
    }
    trees = seal._trees(prefix, (venv / SITE).resolve(), tmp_path / "stdlib", layers)
    assert trees["prefix"] == {"bin": "dir", "lib": "dir", "lib/python3.11": "dir", SITE: "skip"}  # no local file
