"""The closure check takes the package folder as ``str`` or ``os.PathLike``, with or without a trailing ``/``.

It names files by the folder's last part and finds ``site-packages`` as its
parent; ``pathlib`` used to drop a trailing ``/`` before either, and
:func:`ablation.closure.check.package_folder` does so now.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import ablation
from ablation.closure import check

PACKAGE = Path(ablation.__file__).resolve().parent


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (PACKAGE, str(PACKAGE)),
        (f"{PACKAGE}/", str(PACKAGE)),
        (f"{PACKAGE}//", str(PACKAGE)),
        ("/", "/"),
        ("a/b/", "a/b"),
    ],
)
def test_package_folder(given: str | Path, expected: str) -> None:
    assert check.package_folder(given) == expected


def test_none_is_the_running_package() -> None:
    assert check.package_folder(None) == check.PACKAGE_DIR == str(PACKAGE)


@pytest.mark.parametrize("form", [PACKAGE, str(PACKAGE), f"{PACKAGE}/"])
def test_every_form_names_the_same_files(form: str | Path) -> None:
    files = check.package_files(form, sealed=False)
    assert files == check.package_files(PACKAGE, sealed=False)
    assert files[0][0].startswith("ablation/")
    assert check.closure_state(form) == "unsealed"
    assert check.check_closure(form, environ={}).problems == ()
