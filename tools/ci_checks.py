"""The checks of ``.ci/run`` that are more than a command, one subcommand each.

    tools/ci_checks.py results FILE --sha256 HEX   a `make run` output: members, pinned hash, sealed venv identity
    tools/ci_checks.py identity FILE               an `ablation identity` of the image: sealed, container, pinned
        (both: --source-revision REV, the identity names the commit REV the build was made from)
    tools/ci_checks.py member FILE PATH            print one member of a JSON file (PATH: dotted, e.g. a.b.c)
    tools/ci_checks.py flip-byte FILE OFFSET       change one bit of one byte of FILE in place (a tamper test)
    tools/ci_checks.py no-dev-tools                exit 1, naming them, when pip, pytest … are importable

Each check prints one ``ci: …`` line saying what held and exits 0, or prints
``ci: FAILED: …`` on stderr and exits 1. ``no-dev-tools`` and ``flip-byte``
use the standard library only, so they run under the image's own
interpreter; the others read the results with the checkout's ``ablation``.
``tests/tools/test_ci_checks.py`` pins what each one accepts and refuses.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

#: Development tools the sealed runtime must not be able to import (PRODUCT.md "Sealed environment").
DEV_TOOLS = ("pip", "setuptools", "wheel", "pytest", "hypothesis", "piptools", "_distutils_hack")
#: The results file's members, in order (PRODUCT.md "The output file").
RESULTS_MEMBERS = ["inputSha256", "inputSha256Pinned", "result", "gateAssessment", "evaluator"]


class CheckFailed(Exception):
    """A check did not hold; the message says what was found."""


def _canonical_digest(value: object) -> str:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from ablation.canonical import canonical_digest  # noqa: PLC0415 - only these checks need the checkout

    return canonical_digest(value)


def _require(condition: bool, what: str) -> None:
    if not condition:
        raise CheckFailed(what)


def _source_revision(measured: Any, expected: str | None) -> str:
    """With ``expected``: the identity's ``package.sourceRevision`` is it (", source revision …"), else ""."""
    if expected is None:
        return ""
    found = measured["package"].get("sourceRevision")
    _require(found == expected, f"package.sourceRevision {found!r}, not {expected!r}")
    return f", source revision {expected}"


def check_results(data: bytes, sha256: str, source_revision: str | None = None) -> str:
    """The output of ``make run`` on the example: members in order, the pinned hash, a sealed venv's identity."""
    document: Any = json.loads(data)
    _require(list(document) == RESULTS_MEMBERS, f"members {list(document)}, not {RESULTS_MEMBERS}")
    _require(document["inputSha256"] == sha256, f"inputSha256 {document['inputSha256']}, not {sha256}")
    _require(document["inputSha256Pinned"] is True, "inputSha256Pinned is not true")
    _require(data.endswith(b"}\n") and not data.endswith(b"\n\n"), "the file does not end in one newline")
    evaluator = document["evaluator"]
    measured = evaluator["measured"]
    _require(measured["closure"]["state"] == "sealed", f"closure {measured['closure']}")
    _require(measured["environment"]["kind"] == "venv", f"environment {measured['environment']}")
    digest = _canonical_digest(measured)
    _require(evaluator["identityDigest"] == digest, f"identityDigest {evaluator['identityDigest']}, not {digest}")
    _require(document["gateAssessment"]["automaticAdoption"] is False, "automaticAdoption is not false")
    revision = _source_revision(measured, source_revision)
    return f"ci: output members, pinned hash, sealed venv identity {evaluator['identityDigest']}{revision}: ok"


def check_identity(data: bytes, source_revision: str | None = None) -> str:
    """``ablation identity`` in the image: a sealed closure, the container environment, every pin with a version."""
    measured: Any = json.loads(data)["measured"]
    _require(measured["closure"]["state"] == "sealed", f"closure {measured['closure']}")
    container = {"kind": "container", "nixStorePath": None}
    _require(measured["environment"] == container, f"environment {measured['environment']}")
    _require(all(d["version"] for d in measured["lock"]["distributions"]), "a distribution without a version")
    files = measured["package"]["fileCount"]
    revision = _source_revision(measured, source_revision)
    return f"ci: container identity: closure sealed, environment container, {files} package files{revision}"


def member(data: bytes, path: str) -> str:
    """The member at a dotted ``path`` of a JSON document, as text (strings bare, anything else as JSON)."""
    value: Any = json.loads(data)
    for key in path.split("."):
        _require(isinstance(value, dict) and key in value, f"no member {key!r} on the way to {path}")
        value = value[key]
    return value if isinstance(value, str) else json.dumps(value)


def flip_byte(path: Path, offset: int) -> str:
    """Change the lowest bit of the byte at ``offset`` of ``path``, in place."""
    data = bytearray(path.read_bytes())
    _require(0 <= offset < len(data), f"offset {offset} is outside the {len(data)} bytes of {path}")
    data[offset] ^= 1
    path.write_bytes(bytes(data))
    return f"ci: flipped a bit of byte {offset} of {path}"


def importable_dev_tools() -> list[str]:
    """The development tools of :data:`DEV_TOOLS` this interpreter can import."""
    return [name for name in DEV_TOOLS if importlib.util.find_spec(name) is not None]


def _run(args: argparse.Namespace) -> str:
    if args.command == "results":
        return check_results(Path(args.file).read_bytes(), args.sha256, args.source_revision)
    if args.command == "identity":
        return check_identity(Path(args.file).read_bytes(), args.source_revision)
    if args.command == "member":
        return member(Path(args.file).read_bytes(), args.path)
    if args.command == "flip-byte":
        return flip_byte(Path(args.file), args.offset)
    found = importable_dev_tools()
    _require(found == [], f"the interpreter can import {', '.join(found)}")
    return f"ci: {sys.executable} imports none of {', '.join(DEV_TOOLS)}"


def main(argv: list[str] | None = None) -> int:
    """Run one check; 0 when it holds, 1 when not (one line on stderr), 2 on usage."""
    parser = argparse.ArgumentParser(prog="tools/ci_checks.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    results = sub.add_parser("results", help="check a make run output")
    results.add_argument("file")
    results.add_argument("--sha256", required=True, help="the input's SHA-256, as pinned")
    identity = sub.add_parser("identity", help="check the image's identity")
    identity.add_argument("file")
    for checked in (results, identity):
        checked.add_argument("--source-revision", help="the commit the identity must name (git rev-parse HEAD)")
    members = sub.add_parser("member", help="print one member of a JSON file")
    members.add_argument("file")
    members.add_argument("path", help="dotted member path, e.g. evaluator.asserted.imageDigest")
    flip = sub.add_parser("flip-byte", help="change one bit of one byte of a file")
    flip.add_argument("file")
    flip.add_argument("offset", type=int)
    sub.add_parser("no-dev-tools", help="fail when a development tool is importable")
    args = parser.parse_args(argv)
    try:
        print(_run(args))
    except (CheckFailed, OSError, ValueError, KeyError, TypeError) as exc:
        print(f"ci: FAILED: {args.command}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
