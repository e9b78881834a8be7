"""What the sealed start does not import: modules that cost every start time and that it does not need.

Each was taken out of the start on purpose (decision 20): ``typing`` (the records
are :mod:`ablation.closure.record`), ``pathlib`` (``os.path``), ``platform``
(``sys.version`` and ``os.uname``), ``shutil`` with ``bz2`` and ``lzma`` (the help
formatter), ``tempfile`` (imported only to publish a file), ``dataclasses`` and
``importlib.metadata``; then ``copy`` (the cached identity is copied by parsing its
JSON text), ``threading`` (only the main thread can set signal handlers: ``signal``
says so itself) and ``math`` (an extension module, loaded and checked for one test of a
float). A fresh interpreter imports what ``ablation identity``
imports and parses its command line; none of them may appear.
"""

from __future__ import annotations

from tests.builders.run import run_checkout_python

NOT_AT_START = (
    "typing",
    "pathlib",
    "platform",
    "shutil",
    "bz2",
    "lzma",
    "tempfile",
    "dataclasses",
    "inspect",
    "importlib.metadata",
    "copy",
    "threading",
    "math",
)


def test_the_start_imports_none_of_them() -> None:
    code = (
        "import ablation.cli, ablation.closure.check, ablation.identity, ablation.output, ablation.canonical\n"
        "from ablation.arguments import parse_arguments\n"
        "parse_arguments(['identity'])\n"
        f"print(sorted(name for name in {NOT_AT_START!r} if name in sys.modules))"
    )
    done = run_checkout_python(code)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"[]\n", b"")
