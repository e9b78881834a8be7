"""``measured.interpreter.version`` and ``measured.platform`` are what :mod:`platform` gives.

The identity reads them from ``sys.version`` and ``os.uname()`` instead of
importing :mod:`platform` at every start (decision 20); these tests keep the
values equal to the library's.
"""

from __future__ import annotations

import platform
import sys

import pytest

from ablation import identity


def test_python_version_is_platforms() -> None:
    assert identity.python_version() == platform.python_version()


def test_platform_member_is_platforms() -> None:
    assert identity.platform_member() == {"system": platform.system(), "machine": platform.machine()}


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("3.11.7 (main, Nov 30 2026, 10:00:00) [GCC 12.2.0]", "3.11.7"),
        ("3.12.0rc1 (main, Sep  1 2023, 10:00:00) [GCC 12.2.0]", "3.12.0rc1"),
        ("3.13 (main) [Clang]", "3.13.0"),
        ("3.11.7+ (heads/3.11:abc, Jan  1 2024) [GCC]", "3.11.7+"),
    ],
)
def test_python_version_spelling(monkeypatch: pytest.MonkeyPatch, version: str, expected: str) -> None:
    monkeypatch.setattr(sys, "version", version)
    assert identity.python_version() == expected
