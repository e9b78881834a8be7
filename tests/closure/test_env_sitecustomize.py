"""Vector 3 (issue 18): a ``sitecustomize`` nobody lists, written to hide itself.

Three places the interpreter finds one: a package folder ``<stdlib>/sitecustomize/``,
``<stdlib>/lib-dynload/sitecustomize.py``, and ``<prefix>/lib/python311.zip``
(the first ``sys.path`` entry, absent normally). Each removes itself from
``sys.modules``/``sys.path`` once it ran. The sealed start runs ``-S`` (no site,
so no sitecustomize), the whole standard-library tree is inventoried and the zip
must stay absent: refused, exit 3 naming it; and ``tools/closure-check.sh``
names each form from outside afterwards.
"""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.closure.env_vectors import REPOSITORY, Evaluation, base_env, refusal

_RESEAL = (
    "the interpreter's files changed since sealing: re-seal (make seal) after a system update, or rebuild the image"
)


def _hiding_sitecustomize(marker: Path) -> str:
    return (
        "import fractions, pathlib, sys\n"
        f"pathlib.Path({str(marker)!r}).write_text('ran')\n"
        "fractions.Fraction.__ge__ = lambda a, b: True\n"
        "sys.modules.pop('sitecustomize', None)\n"
        "sys.path[:] = [p for p in sys.path if not p.endswith('.zip')]\n"
    )


def _closure_check(env_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(REPOSITORY / "tools" / "closure-check.sh"), str(env_dir)],
        capture_output=True,
        text=True,
        check=False,
        env=base_env(),
    )


@pytest.fixture
def stdlib(private_env: Path) -> Path:
    return private_env.parent / "base" / "lib" / "python3.11"


@pytest.fixture
def placed(stdlib: Path, tmp_path: Path) -> Iterator[dict[str, Path]]:
    """Where each form goes; everything placed is removed afterwards."""
    places = {
        "package": stdlib / "sitecustomize",
        "lib-dynload": stdlib / "lib-dynload" / "sitecustomize.py",
        "zip": stdlib.parent / "python311.zip",
    }
    yield places
    for path in places.values():
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)


def _place(form: str, places: dict[str, Path], marker: Path) -> None:
    source = _hiding_sitecustomize(marker)
    if form == "package":
        places["package"].mkdir()
        (places["package"] / "__init__.py").write_text(source, encoding="utf-8")
    elif form == "lib-dynload":
        places["lib-dynload"].write_text(source, encoding="utf-8")
    else:
        with zipfile.ZipFile(places["zip"], "w") as archive:
            archive.writestr("sitecustomize.py", source)


@pytest.mark.parametrize("form", ["package", "lib-dynload", "zip"])
def test_the_hiding_sitecustomize_runs_in_an_interpreter_with_site(
    private_env: Path, placed: dict[str, Path], tmp_path: Path, form: str
) -> None:
    """The control: ``python -I`` (site on) runs each form."""
    marker = tmp_path / "ran"
    _place(form, placed, marker)
    probe = "import fractions; print(fractions.Fraction(1, 10) >= fractions.Fraction(1, 5))"
    completed = subprocess.run(
        [str(private_env / "bin" / "python"), "-IB", "-c", probe],
        capture_output=True,
        text=True,
        check=False,
        env=base_env(),
    )
    assert completed.stdout == "True\n", completed.stderr
    assert marker.read_text(encoding="utf-8") == "ran"


@pytest.mark.parametrize(
    ("form", "line"),
    [
        ("package", f"sitecustomize is not in the closure manifest (layer stdlib); {_RESEAL}"),
        ("lib-dynload", f"lib-dynload/sitecustomize.py is not in the closure manifest (layer stdlib); {_RESEAL}"),
        (
            "zip",
            "{zip} is on sys.path ahead of the standard library, and was absent when the environment was sealed; "
            "start the evaluator with the environment's bin/ablation (or python -IB -m ablation); nothing outside "
            "the sealed environment may be imported",
        ),
    ],
)
def test_a_hiding_sitecustomize_is_refused_and_named_from_outside(
    private_env: Path, placed: dict[str, Path], evaluation: Evaluation, tmp_path: Path, form: str, line: str
) -> None:
    marker = tmp_path / "ran"
    _place(form, placed, marker)
    out = tmp_path / "results.json"
    assert refusal(evaluation.run(private_env, out)) == "ablation: closure: " + line.format(zip=placed["zip"])
    assert not out.exists()
    assert not marker.exists()
    checked = _closure_check(private_env)
    assert checked.returncode == 1
    named = {"package": placed["package"], "lib-dynload": placed["lib-dynload"], "zip": placed["zip"]}[form]
    assert any(str(named) in shown for shown in checked.stdout.splitlines()), checked.stdout


def test_the_outside_check_lists_every_file_of_an_added_package(private_env: Path, placed: dict[str, Path]) -> None:
    _place("package", placed, Path("/nonexistent"))
    checked = _closure_check(private_env)
    assert checked.returncode == 1
    stdlib = placed["package"].parent
    assert checked.stdout.splitlines() == [
        f"closure-check: {stdlib}/sitecustomize is not in the manifest",
        f"closure-check: {stdlib}/sitecustomize/__init__.py is not in the manifest",
    ]


def test_the_outside_check_passes_on_the_private_environment(private_env: Path) -> None:
    checked = _closure_check(private_env)
    assert checked.returncode == 0, checked.stdout
