"""Offline checks of ``requirements.lock`` against itself and ``requirements.in``.

Usage: ``python tools/lockcheck.py [--in requirements.in] [--lock requirements.lock]``
(exit 0 when every check passes, 1 with one line per problem otherwise).

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
   PyPI; CI runs both).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

__all__ = ["REQUIRED_FLAGS", "Pin", "check_consistency", "check_lock", "main", "parse_lock"]

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
_IN_SOURCE = "-r requirements.in"


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


def _read_in(text: str, name: str) -> tuple[dict[str, Requirement], list[str]]:
    """The requirements of ``requirements.in`` by normalised name, and its problems."""
    requirements: dict[str, Requirement] = {}
    problems: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        where = f"{name}:{number}"
        if line.startswith("-"):
            problems.append(f"{where}: option lines are not used here: {line!r}")
            continue
        try:
            requirement = Requirement(line)
        except InvalidRequirement as error:
            problems.append(f"{where}: not a requirement ({error})")
            continue
        if requirement.url:
            problems.append(f"{where}: {requirement.name} names a URL; only index releases can be hash-pinned")
        requirements[canonicalize_name(requirement.name)] = requirement
    return requirements, problems


def check_consistency(in_text: str, lock_text: str, in_name: str = "requirements.in") -> list[str]:
    """Does the lock still answer ``requirements.in`` (step 2)? Every problem, sorted by name.

    Args:
        in_text: the text of ``requirements.in``.
        lock_text: the text of ``requirements.lock``.
        in_name: the file name used in problem lines.
    """
    requirements, problems = _read_in(in_text, in_name)
    pins, _ = parse_lock(lock_text)
    by_name = {pin.name: pin for pin in pins}
    top_level = {pin.name for pin in pins if _IN_SOURCE in pin.via}
    for missing in sorted(requirements.keys() - top_level):
        if missing in by_name:
            problems.append(f"{in_name}: {missing} is listed but the lock does not record it as a top-level requirement; re-lock")
        else:
            problems.append(f"{in_name}: {missing} is listed but not pinned in requirements.lock; re-lock")
    problems.extend(
        f"{in_name}: requirements.lock pins {extra} as a top-level requirement, but it is no longer listed; re-lock"
        for extra in sorted(top_level - requirements.keys())
    )
    for key in sorted(requirements.keys() & by_name.keys()):
        specifier = requirements[key].specifier
        pin = by_name[key]
        if specifier and not specifier.contains(pin.version, prereleases=True):
            problems.append(f"{in_name}: {key}{specifier} is not satisfied by the pinned {pin.version}; re-lock")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Check the lock; print one line per problem, or one summary line. Returns the exit status."""
    root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description="Offline checks of requirements.lock.")
    parser.add_argument("--in", dest="in_path", type=Path, default=root / "requirements.in")
    parser.add_argument("--lock", dest="lock_path", type=Path, default=root / "requirements.lock")
    args = parser.parse_args(argv)
    in_text = args.in_path.read_text(encoding="utf-8")
    lock_text = args.lock_path.read_text(encoding="utf-8")
    pins, problems = parse_lock(lock_text, args.lock_path.name)
    problems += check_consistency(in_text, lock_text, args.in_path.name)
    for problem in problems:
        print(f"lockcheck: {problem}", file=sys.stderr)
    if problems:
        return 1
    hashes = sum(pin.hashes for pin in pins)
    top = sum(1 for pin in pins if _IN_SOURCE in pin.via)
    print(f"lockcheck: {args.lock_path.name} OK: {len(pins)} pins ({top} from {args.in_path.name}), {hashes} sha256 hashes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
