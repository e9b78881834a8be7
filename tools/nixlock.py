"""The Nix form of ``requirements.lock``: ``nix/requirements-lock.nix`` (PRODUCT.md
"Sealed environment", "One lock for every environment").

Usage::

    python tools/nixlock.py            # regenerate (needs the package index: pip download)
    python tools/nixlock.py --check    # offline: the file matches the lock (tests/tools/test_nixlock.py)

The generated file lists, per Nix system, one wheel for CPython 3.11 for each
pin of the lock: the lock's name, the wheel's distribution name (``pname``),
the version, the wheel file's tags (``dist`` = its python tag, ``python``,
``abi``, ``platform``) and its SHA-256, which must be one of the lock's hashes
for that pin. No index host is written: ``flake.nix`` fetches each wheel with
nixpkgs' ``fetchPypi``. A system is listed only when every pin has a wheel for
it. The file also records the SHA-256 of the lock it was made from.

Regenerating downloads, for each system, the best wheel pip finds for those
tags with ``pip download --require-hashes`` (the machine's pip configuration
chooses the index), and hashes the files. The check needs no network: the
recorded lock digest equals the lock's, every system lists exactly the lock's
pins and versions with one of their hashes, and rendering the parsed entries
again gives the file byte for byte. Exit 0 when it matches, 1 listing each
problem.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from packaging.utils import canonicalize_name, parse_wheel_filename

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
OUTPUT = ROOT / "nix" / "requirements-lock.nix"
PYTHON = "3.11"
# The glibc of the nixpkgs release the flake follows (nixos-24.11: 2.40) bounds the manylinux tags.
GLIBC_MINOR = 40
SYSTEMS = {"aarch64-linux": "aarch64", "x86_64-linux": "x86_64"}

_PIN_RE = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+?)( \\)?")
_HASH_RE = re.compile(r"\s+--hash=sha256:([0-9a-f]{64})( \\)?")
_SYSTEM_RE = re.compile(r'    "([a-z0-9_-]+)" = \[')
_WHEEL_RE = re.compile(
    r'      \{ name = "([^"]+)"; pname = "([^"]+)"; version = "([^"]+)"; dist = "([^"]+)"; '
    r'python = "([^"]+)"; abi = "([^"]+)"; platform = "([^"]+)"; sha256 = "([0-9a-f]{64})"; \}'
)
_LOCK_SHA_RE = re.compile(r'  lockSha256 = "([0-9a-f]{64})";')


@dataclass(frozen=True, order=True)
class Wheel:
    """One wheel of a pin for one Nix system (field order is the rendering order)."""

    name: str
    pname: str
    version: str
    dist: str
    python: str
    abi: str
    platform: str
    sha256: str


def read_lock(text: str) -> dict[str, tuple[str, frozenset[str]]]:
    """The lock's pins: ``{canonical name: (version, {sha256 hex})}``.

    Raises:
        ValueError: a hash line outside a pin.
    """
    pins: dict[str, tuple[str, set[str]]] = {}
    current: str | None = None
    for line in text.splitlines():
        if match := _PIN_RE.fullmatch(line):
            current = canonicalize_name(match.group(1))
            pins[current] = (match.group(2), set())
        elif match := _HASH_RE.fullmatch(line):
            if current is None:
                raise ValueError(f"a --hash line outside a pin: {line.strip()}")
            pins[current][1].add(match.group(1))
        elif line and not line.startswith(" "):
            current = None
    return {name: (version, frozenset(hashes)) for name, (version, hashes) in pins.items()}


def wheel_from_file(name: str, path: Path) -> Wheel:
    """The :class:`Wheel` of a downloaded file: tags from its name, SHA-256 of its bytes."""
    version = parse_wheel_filename(path.name)[1]
    # The tag triple as the file name writes it: a compressed tag set (e.g.
    # manylinux2014_x86_64.manylinux_2_17_x86_64) stays one string, as fetchPypi needs it.
    python, abi, platform = path.name[: -len(".whl")].split("-")[-3:]
    file_pname = path.name.split("-", 1)[0]
    return Wheel(
        name, file_pname, str(version), python, python, abi, platform, hashlib.sha256(path.read_bytes()).hexdigest()
    )


def render(lock_sha256: str, wheels: dict[str, list[Wheel]]) -> str:
    """The generated file's text for ``{system: [Wheel]}`` (systems and wheels sorted)."""
    systems = sorted(wheels)
    lines = [
        "# GENERATED from requirements.lock by tools/nixlock.py: do not edit.",
        "# Regenerate with `make nix-lock` (needs the package index); `make test` checks it offline.",
        "# Per Nix system, one CPython 3.11 wheel for each pin of the lock: the lock's name, the",
        "# wheel's distribution name, version and tags, and its SHA-256 (one of the lock's hashes",
        "# for that pin). flake.nix fetches them with nixpkgs' fetchPypi; no index host is written.",
        "{",
        f'  lockSha256 = "{lock_sha256}";',
        f'  python = "{PYTHON}";',
        "  systems = [ " + " ".join(f'"{s}"' for s in systems) + " ];",
        "  wheels = {",
    ]
    for system in systems:
        lines.append(f'    "{system}" = [')
        for w in sorted(wheels[system]):
            lines.append(
                f'      {{ name = "{w.name}"; pname = "{w.pname}"; version = "{w.version}"; dist = "{w.dist}"; '
                f'python = "{w.python}"; abi = "{w.abi}"; platform = "{w.platform}"; sha256 = "{w.sha256}"; }}'
            )
        lines.append("    ];")
    lines += ["  };", "}"]
    return "\n".join(lines) + "\n"


def parse(text: str) -> tuple[str, dict[str, list[Wheel]]]:
    """Read a generated file back: ``(lock sha256, {system: [Wheel]})``.

    Raises:
        ValueError: the text is not in the generated form (a line naming where).
    """
    lock_sha = ""
    wheels: dict[str, list[Wheel]] = {}
    system: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if match := _LOCK_SHA_RE.fullmatch(line):
            lock_sha = match.group(1)
        elif match := _SYSTEM_RE.fullmatch(line):
            system = match.group(1)
            wheels[system] = []
        elif match := _WHEEL_RE.fullmatch(line):
            if system is None:
                raise ValueError(f"line {number}: a wheel outside a system")
            wheels[system].append(Wheel(*match.groups()))
        elif line.lstrip().startswith("{ name"):
            raise ValueError(f"line {number}: a wheel entry not in the generated form")
    if not lock_sha:
        raise ValueError("no lockSha256 line")
    return lock_sha, wheels


def check(lock_text: bytes, nix_text: str) -> list[str]:
    """Problems of the generated file against the lock (empty when it matches)."""
    try:
        recorded, wheels = parse(nix_text)
    except ValueError as exc:
        return [f"nix/requirements-lock.nix: {exc}"]
    pins = read_lock(lock_text.decode("utf-8"))
    problems = []
    actual = hashlib.sha256(lock_text).hexdigest()
    if recorded != actual:
        problems.append(
            f"nix/requirements-lock.nix was made from a requirements.lock with SHA-256 {recorded}; "
            f"the lock's is now {actual}"
        )
    if not wheels:
        problems.append("nix/requirements-lock.nix lists no system")
    for system, entries in sorted(wheels.items()):
        names = {w.name for w in entries}
        for name in sorted(set(pins) - names):
            problems.append(f"{system}: {name}=={pins[name][0]} of the lock has no wheel")
        for w in entries:
            if w.name not in pins:
                problems.append(f"{system}: {w.name}=={w.version} is not pinned by the lock")
                continue
            version, hashes = pins[w.name]
            if w.version != version:
                problems.append(f"{system}: {w.name} is {w.version}, the lock pins {version}")
            if w.sha256 not in hashes:
                problems.append(f"{system}: {w.name}=={w.version} sha256 {w.sha256} is not one of the lock's hashes")
    if render(recorded, wheels) != nix_text:
        problems.append("nix/requirements-lock.nix is not byte-identical to its regeneration from the same entries")
    return problems


def platforms(arch: str) -> list[str]:
    """pip ``--platform`` values a wheel for ``arch`` may carry, newest glibc first."""
    tags = [f"manylinux_2_{minor}_{arch}" for minor in range(GLIBC_MINOR, 16, -1)]
    return [*tags, f"manylinux2014_{arch}"]


def download(lock: Path, arch: str, dest: Path) -> bool:
    """``pip download`` the lock's wheels for CPython 3.11 on ``arch`` into ``dest``; False when one is missing."""
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--quiet",
        "--no-deps",
        "--require-hashes",
        "--only-binary=:all:",
        "--implementation",
        "cp",
        "--python-version",
        PYTHON,
        "--abi",
        "cp" + PYTHON.replace(".", ""),
        "--abi",
        "abi3",
        "--abi",
        "none",
        "-r",
        str(lock),
        "-d",
        str(dest),
    ]
    for platform in platforms(arch):
        command += ["--platform", platform]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["pip download failed"])[-1]
        print(f"nixlock: no complete wheel set for {arch}: {last}", file=sys.stderr)
        return False
    return True


def generate(lock: Path) -> str:
    """Download and hash the wheels for every system that has them all; the file's text.

    Raises:
        SystemExit: no system has a wheel for every pin.
    """
    lock_bytes = lock.read_bytes()
    wheels: dict[str, list[Wheel]] = {}
    for system, arch in sorted(SYSTEMS.items()):
        with tempfile.TemporaryDirectory(prefix="nixlock-") as tmp:
            if not download(lock, arch, Path(tmp)):
                continue
            entries = []
            for path in sorted(Path(tmp).glob("*.whl")):
                name = canonicalize_name(parse_wheel_filename(path.name)[0])
                entries.append(wheel_from_file(name, path))
            wheels[system] = entries
    if not wheels:
        raise SystemExit("nixlock: no Nix system has a wheel for every pin of the lock")
    text = render(hashlib.sha256(lock_bytes).hexdigest(), wheels)
    problems = check(lock_bytes, text)
    if problems:
        raise SystemExit("nixlock: " + "; ".join(problems))
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="offline: compare the file with the lock")
    parser.add_argument("--lock", type=Path, default=LOCK)
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    if args.check:
        if not args.output.is_file():
            print(f"nixlock: {args.output} is missing; run `make nix-lock`", file=sys.stderr)
            return 1
        problems = check(args.lock.read_bytes(), args.output.read_text(encoding="utf-8"))
        for problem in problems:
            print(f"nixlock: {problem}; run `make nix-lock`", file=sys.stderr)
        return 1 if problems else 0
    text = generate(args.lock)
    args.output.write_text(text, encoding="utf-8")
    systems = ", ".join(parse(text)[1])
    print(
        f"nixlock: wrote {args.output.relative_to(ROOT) if args.output.is_relative_to(ROOT) else args.output} "
        f"({systems})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
