"""Offline checks of the two hashed locks against themselves and their ``.in`` files.

Usage: ``python tools/lockcheck.py`` checks both pairs (``requirements.in`` →
``requirements.lock``, the runtime; ``requirements-dev.in`` →
``requirements-dev.lock``, the development environment) and how they relate;
``python tools/lockcheck.py --in X.in --lock X.lock`` checks one pair (exit 0
when every check passes, 1 with one line per problem otherwise).

1. Form: the lock was made by ``pip-compile`` with the flags PRODUCT.md names;
   every requirement is ``name==version`` with at least one
   ``--hash=sha256:<64 hex>``; no option line (index, find-links, editable,
   nested requirement or constraint file), no URL, no ``file:`` path, no
   duplicate name.
2. Freshness without network: the names that ``requirements.in`` lists are
   exactly the names the lock annotates ``# via -r requirements.in``, and each
   pinned version satisfies the specifier written in ``requirements.in``. So an
   edit of ``requirements.in`` that adds, removes or tightens a requirement
   without re-locking fails here. The full check, re-compiling with
   ``pip-compile`` and comparing bytes, is ``tools/relock.sh --check`` (needs
   PyPI; CI runs both). A ``.in`` file may name the other lock as a
   constraint (``-c requirements.lock``) and include ``requirements.in``
   (``-r requirements.in``); the included names count as its own.
3. Between the locks: the runtime lock holds none of the development-only
   distributions (:data:`NOT_AT_RUN_TIME`), and every distribution both locks
   pin has the same version in each.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

__all__ = [
    "NOT_AT_RUN_TIME",
    "REQUIRED_FLAGS",
    "Pin",
    "check_between",
    "check_consistency",
    "check_lock",
    "main",
    "parse_lock",
]

REQUIRED_FLAGS = frozenset(
    {
        "--generate-hashes",
        "--allow-unsafe",
        "--strip-extras",
        "--no-emit-index-url",
        "--no-emit-find-links",
    }
)
"""The ``pip-compile`` flags of PRODUCT.md "Sealed environment"; the lock header must show each."""

_PIN_RE = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9][A-Za-z0-9.+!_-]*)( \\)?")
_HASH_RE = re.compile(r"    --hash=sha256:[0-9a-f]{64}( \\)?")
_VIA_ONE_RE = re.compile(r"    # via (.+)")
_VIA_MANY_RE = re.compile(r"    #   (.+)")
_HEADER_CMD_RE = re.compile(r"#    pip-compile (.*)")
NOT_AT_RUN_TIME = frozenset({"pip", "setuptools", "wheel", "pytest", "hypothesis", "pip-tools", "ujson"})
"""Distributions the sealed runtime must not hold (PRODUCT.md "Sealed environment")."""

_OPTION_RE = re.compile(r"-([rc]) ([A-Za-z0-9._-]+)")


@dataclass(slots=True)
class Pin:
    """One requirement of the lock: where it starts, its pin, its hashes and its ``via`` sources."""

    line: int
    name: str
    version: str
    hashes: int = 0
    via: list[str] = field(default_factory=list)


def parse_lock(text: str, name: str = "requirements.lock") -> tuple[list[Pin], list[str]]:
    """Read a pip-compile lock into pins, and list every line that breaks its form.

    Args:
        text: the lock's text.
        name: the file name used in problem lines.

    Returns:
        ``(pins, problems)``; each problem is ``<name>:<line>: <what>``.
    """
    pins: list[Pin] = []
    problems: list[str] = []
    header_flags: set[str] | None = None
    current: Pin | None = None
    in_via_list = False
    for number, line in enumerate(text.splitlines(), start=1):
        where = f"{name}:{number}"
        if not line.strip():
            current, in_via_list = None, False
            continue
        if header_flags is None and (match := _HEADER_CMD_RE.fullmatch(line)):
            header_flags = {part.split("=", 1)[0] for part in match.group(1).split()}
            continue
        if line.startswith("#"):
            continue
        if match := _PIN_RE.fullmatch(line):
            current = Pin(line=number, name=canonicalize_name(match.group(1)), version=match.group(2))
            pins.append(current)
            in_via_list = False
            if match.group(3) is None:
                problems.append(f"{where}: {current.name}=={current.version} has no --hash lines")
            continue
        if _HASH_RE.fullmatch(line):
            if current is None:
                problems.append(f"{where}: a --hash line outside a requirement")
            else:
                current.hashes += 1
            continue
        if current is not None and (match := _VIA_ONE_RE.fullmatch(line)):
            current.via.append(match.group(1))
            continue
        if current is not None and line == "    # via":
            in_via_list = True
            continue
        if current is not None and in_via_list and (match := _VIA_MANY_RE.fullmatch(line)):
            current.via.append(match.group(1))
            continue
        if line.lstrip().startswith("#"):
            continue
        problems.append(f"{where}: not a 'name==version' pin or a sha256 hash line: {line.strip()!r}")
    if header_flags is None:
        problems.append(f"{name}: no 'pip-compile' command in the header")
    else:
        problems.extend(
            f"{name}: the header's pip-compile command lacks {flag}" for flag in sorted(REQUIRED_FLAGS - header_flags)
        )
    seen: dict[str, int] = {}
    for pin in pins:
        if pin.name in seen:
            problems.append(f"{name}:{pin.line}: {pin.name} is pinned twice (first at line {seen[pin.name]})")
        seen.setdefault(pin.name, pin.line)
        if pin.hashes == 0:
            problems.append(f"{name}:{pin.line}: {pin.name}=={pin.version} has no sha256 hash")
    if not pins:
        problems.append(f"{name}: no pins")
    return pins, problems


def check_lock(text: str, name: str = "requirements.lock") -> list[str]:
    """Every problem with the lock's form (step 1); empty when it is sound."""
    return parse_lock(text, name)[1]


def _read_in(
    text: str, name: str, included: dict[str, str] | None = None
) -> tuple[dict[str, Requirement], list[str], list[str]]:
    """The requirements of a ``.in`` file by normalised name, its problems and its sources.

    ``-c <file>`` lines are accepted (the constraint is checked between the
    locks); ``-r <file>`` adds that file's requirements, read from
    ``included[<file>]``. The sources are ``-r <name>`` and one per included file:
    the ``# via`` annotations that mark a pin as top-level.
    """
    requirements: dict[str, Requirement] = {}
    problems: list[str] = []
    sources = [f"-r {name}"]
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        where = f"{name}:{number}"
        if option := _OPTION_RE.fullmatch(line):
            kind, target = option.groups()
            if kind == "r":
                if included is None or target not in included:
                    problems.append(f"{where}: includes {target}, which is not given to this check")
                    continue
                nested, nested_problems, _ = _read_in(included[target], target)
                requirements.update(nested)
                problems.extend(nested_problems)
                sources.append(f"-r {target}")
            continue
        if line.startswith("-"):
            problems.append(f"{where}: option lines other than -r/-c are not used here: {line!r}")
            continue
        try:
            requirement = Requirement(line)
        except InvalidRequirement as error:
            problems.append(f"{where}: not a requirement ({error})")
            continue
        if requirement.url:
            problems.append(f"{where}: {requirement.name} names a URL; only index releases can be hash-pinned")
        requirements[canonicalize_name(requirement.name)] = requirement
    return requirements, problems, sources


def check_consistency(
    in_text: str,
    lock_text: str,
    in_name: str = "requirements.in",
    *,
    lock_name: str = "requirements.lock",
    included: dict[str, str] | None = None,
) -> list[str]:
    """Does the lock still answer its ``.in`` file (step 2)? Every problem, sorted by name.

    Args:
        in_text: the text of the ``.in`` file.
        lock_text: the text of the lock compiled from it.
        in_name: the ``.in`` file's name, used in problem lines.
        lock_name: the lock's name, used in problem lines.
        included: the texts of files the ``.in`` file includes with ``-r``, by name.
    """
    requirements, problems, sources = _read_in(in_text, in_name, included)
    pins, _ = parse_lock(lock_text, lock_name)
    by_name = {pin.name: pin for pin in pins}
    top_level = {pin.name for pin in pins if any(source in pin.via for source in sources)}
    for missing in sorted(requirements.keys() - top_level):
        if missing in by_name:
            problems.append(
                f"{in_name}: {missing} is listed but the lock does not record it as a top-level requirement; re-lock"
            )
        else:
            problems.append(f"{in_name}: {missing} is listed but not pinned in {lock_name}; re-lock")
    problems.extend(
        f"{in_name}: {lock_name} pins {extra} as a top-level requirement, but it is no longer listed; re-lock"
        for extra in sorted(top_level - requirements.keys())
    )
    for key in sorted(requirements.keys() & by_name.keys()):
        specifier = requirements[key].specifier
        pin = by_name[key]
        if specifier and not specifier.contains(pin.version, prereleases=True):
            problems.append(f"{in_name}: {key}{specifier} is not satisfied by the pinned {pin.version}; re-lock")
    return problems


def check_between(runtime_text: str, dev_text: str) -> list[str]:
    """Step 3: the runtime lock is lean and the development lock agrees with it.

    Returns one problem per development-only distribution the runtime lock
    pins (:data:`NOT_AT_RUN_TIME`) and per distribution pinned at different
    versions in the two locks.
    """
    runtime, _ = parse_lock(runtime_text)
    dev, _ = parse_lock(dev_text, "requirements-dev.lock")
    problems = [
        f"requirements.lock: {pin.name} is a development tool; the sealed runtime must not hold it"
        for pin in runtime
        if pin.name in NOT_AT_RUN_TIME
    ]
    dev_versions = {pin.name: pin.version for pin in dev}
    for pin in runtime:
        other = dev_versions.get(pin.name)
        if other is not None and other != pin.version:
            problems.append(
                f"requirements-dev.lock pins {pin.name}=={other}, requirements.lock {pin.version}; re-lock both"
            )
    return problems


def _check_pair(in_path: Path, lock_path: Path) -> tuple[list[str], str]:
    """Steps 1 and 2 for one ``.in``/lock pair: the problems and a summary line."""
    in_text = in_path.read_text(encoding="utf-8")
    lock_text = lock_path.read_text(encoding="utf-8")
    included = {path.name: path.read_text(encoding="utf-8") for path in in_path.parent.glob("*.in") if path != in_path}
    pins, problems = parse_lock(lock_text, lock_path.name)
    problems += check_consistency(in_text, lock_text, in_path.name, lock_name=lock_path.name, included=included)
    hashes = sum(pin.hashes for pin in pins)
    return problems, f"{lock_path.name} OK: {len(pins)} pins, {hashes} sha256 hashes"


def main(argv: list[str] | None = None) -> int:
    """Check the locks; print one line per problem, or one summary line per lock. Returns the exit status."""
    root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description="Offline checks of requirements.lock and requirements-dev.lock.")
    parser.add_argument("--in", dest="in_path", type=Path, help="check only this .in file (with --lock)")
    parser.add_argument("--lock", dest="lock_path", type=Path, help="the lock compiled from --in")
    args = parser.parse_args(argv)
    if (args.in_path is None) != (args.lock_path is None):
        parser.error("--in and --lock go together")
    if args.in_path is not None:
        pairs = [(args.in_path, args.lock_path)]
    else:
        pairs = [
            (root / "requirements.in", root / "requirements.lock"),
            (root / "requirements-dev.in", root / "requirements-dev.lock"),
        ]
    problems: list[str] = []
    summaries: list[str] = []
    for in_path, lock_path in pairs:
        found, summary = _check_pair(in_path, lock_path)
        problems += found
        summaries.append(summary)
    if args.in_path is None:
        problems += check_between(pairs[0][1].read_text(encoding="utf-8"), pairs[1][1].read_text(encoding="utf-8"))
    for problem in problems:
        print(f"lockcheck: {problem}", file=sys.stderr)
    if problems:
        return 1
    for summary in summaries:
        print(f"lockcheck: {summary}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
