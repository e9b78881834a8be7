"""A damaged sealed environment is refused in one line (exit 3), whatever a name holds and whichever file is gone.

A refusal names the file or variable it is about. A name may hold a line feed or
another control character (a file created in ``site-packages`` or the venv, a variable
set by the caller): it is written escaped, so the refusal stays one line. A module
file of the package deleted before the run-time check could import it (the check's
own modules, the command line's) ends the same way as any other missing file: one
line, exit 3, no traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ablation.closure import boot
from ablation.closure.problem import Problem
from tests.closure.env_vectors import ablation, base_env, refusal, site_of


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("a\nb", "a\\nb"),
        ("t\tab", "t\\tab"),
        ("e\x1b[31m", "e\\x1b[31m"),
        ("l\u2028s", "l\\u2028s"),
        ("sé.py", "sé.py"),
    ],
)
def test_a_name_is_shown_on_one_line(name: str, shown: str) -> None:
    assert boot.shown(name) == shown
    assert Problem(name, "stdlib", "is not in the closure manifest").render() == (
        f"{shown} is not in the closure manifest (layer stdlib)"
    )


def test_a_file_named_with_a_line_feed_is_refused_in_one_line(
    sealed_copy: Path, change: Callable[[Path, bytes | None], None]
) -> None:
    change(site_of(sealed_copy) / "ablation" / "a\nb.py", b"")
    assert refusal(ablation(sealed_copy, "identity")).startswith("ablation: closure: ablation/a\\nb.py ")


def test_a_refused_variable_named_with_a_line_feed_is_refused_in_one_line(sealed_copy: Path) -> None:
    line = refusal(ablation(sealed_copy, "identity", env=base_env(**{"LD_PRELOAD\nX": "1"})))
    assert line.startswith("ablation: closure: LD_PRELOAD\\nX is set: ")


@pytest.mark.parametrize(
    "module", ["ablation/cli.py", "ablation/closure/problem.py", "ablation/closure/check.py", "ablation/__init__.py"]
)
def test_a_module_of_the_start_deleted_is_refused_in_one_line(
    sealed_copy: Path, change: Callable[[Path, bytes | None], None], module: str
) -> None:
    change(site_of(sealed_copy) / module, None)
    line = refusal(ablation(sealed_copy, "identity"))
    assert line.startswith("ablation: closure: ablation")
    assert line.endswith("rebuild the environment (make venv) or the image")
