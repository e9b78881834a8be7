"""The sealed evaluator's first code: the environment it runs with, and the start of the closure check.

The sealed console script (``bin/ablation``, written by :mod:`ablation.closure.seal`) checks the
sealed bytecode of this module, of :mod:`ablation.closure.layerlines` and of :mod:`ablation.closure.verified`
against the SHA-256 values it was written with, runs them, and calls :func:`start`. Nothing of ablation
runs before; they import only what the interpreter has built in or frozen (``sys``, ``os``), so they run
before any other file of the closure is read.

**Stage 1** (whatever environment the caller gave): refuse (exit 3, one line) the variables that the
dynamic loader, the C library or the interpreter read when the process starts, before any check can
run (:data:`REFUSED_PREFIXES`, :data:`REFUSED_NAMES`), looked up both in the process's environment and
in ``/proc/self/environ`` (what the kernel started it with, which code that ran before may have hidden
from the former); refuse interpreter options that bypass the sealed bytecode. Then start the sealed
interpreter again, ``-IBS`` on the console script, with the environment of :func:`clean_environment`
and nothing else: a fixed locale (``LC_ALL=C.UTF-8``, ``LANGUAGE=C``), time zone (``TZ=UTC``), OpenSSL
configuration (the sealed ``ablation/closure/openssl.cnf``, which loads no module), and the product's
own variables (:data:`PASSED`).

**Stage 2** (``ABLATION_START=sealed``): the environment must be exactly that one,
in ``os.environ`` and in ``/proc/self/environ``; the interpreter must run ``-IBS``
without ``-O``, ``-X`` or ``-W``; ``/proc`` must be the kernel's; ``/etc/ld.so.preload``
absent or empty; ``sys.path`` the interpreter's own. Then
:mod:`ablation.closure.verified` makes every further import of the closure run
exactly the bytes it checked against the manifest, and the command line runs.

Every refusal is one line, ``ablation: closure: <what>; <remedy>``, exit 3.
``docs/explanation/identity.md`` and ``docs/explanation/threat-model.md`` say what
this proves and what it cannot.
"""

import os
import sys

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing and collections are files, read before any check
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import NoReturn

__all__ = [
    "COMMANDS",
    "FIXED",
    "PASSED",
    "PASSED_TO",
    "REFUSED_NAMES",
    "REFUSED_PREFIXES",
    "REMEDY",
    "START_MARKER",
    "clean_environment",
    "hold_start_signals",
    "leave",
    "option_problems",
    "refused_variables",
    "restore_start_signals",
    "shown",
    "start",
]

_REBUILD = "rebuild the environment (make venv) or the image"
_RESEAL = (
    "the interpreter's files changed since sealing: re-seal (make seal) after a system update, or rebuild the image"
)
_ENTRY = "start the evaluator with the environment's bin/ablation (or python -IB -m ablation)"

REMEDY = {
    "isolation": _ENTRY,
    "environment": "unset it; the sealed evaluator runs with nothing injected",
    "system": (
        "run the evaluator where the kernel's /proc is mounted and nothing is preloaded or mounted into its closure"
    ),
    "shadow": "run the sealed environment's bin/ablation (isolated), not the checkout",
    "outside": _ENTRY + "; nothing outside the sealed environment may be imported",
    "package": _REBUILD,
    "dependencies": _REBUILD,
    "stdlib": _RESEAL,
    "interpreter": _RESEAL,
}
"""What to do about a problem of each kind: how the process was started, then the four layers."""

REFUSED_PREFIXES = ("LD_",)
"""Every variable of the dynamic loader (``LD_PRELOAD``, ``LD_LIBRARY_PATH``, ``LD_AUDIT``, …)."""

REFUSED_NAMES = (
    "GCONV_PATH",
    "GETCONF_DIR",
    "GLIBC_TUNABLES",
    "HOSTALIASES",
    "LOCALDOMAIN",
    "LOCPATH",
    "MALLOC_TRACE",
    "NIS_PATH",
    "NLSPATH",
    "RESOLV_HOST_CONF",
    "RES_OPTIONS",
    "TZDIR",
    "NIX_PYTHONPATH",
    "PYTHONEXECUTABLE",
)
"""glibc's list of variables it ignores in secure-execution programs (``unsecvars.h``; ``TMPDIR``,
which only ``tempfile`` reads, is cleared instead), and the two the interpreter reads even under
``-I``: nixpkgs' ``NIX_PYTHONPATH`` and CPython's ``PYTHONEXECUTABLE``."""

START_MARKER = ("ABLATION_START", "sealed")
"""Set by stage 1 for stage 2 only."""

FIXED = {"LANGUAGE": "C", "LC_ALL": "C.UTF-8", "TZ": "UTC"}
"""The locale and time zone of stage 2 (with ``OPENSSL_CONF`` and :data:`START_MARKER`).

``LANGUAGE=C`` makes the message catalogues inert: Python's ``gettext`` (which argparse asks for
every message) otherwise expands ``C.UTF-8`` to ``en_US.UTF-8`` and looks for ``messages.mo`` below
the interpreter's ``share/locale``, a folder no layer lists, so a file added there would change the
wording of usage errors. Under ``C`` it looks for no catalogue, and neither does the C library."""

PASSED = ("ABLATION_BASE_IMAGE", "ABLATION_ENVIRONMENT", "ABLATION_IMAGE_DIGEST", "SOURCE_DATE_EPOCH")
"""The product's own variables (PRODUCT.md), passed to stage 2 unchanged when set."""

COMMANDS = {"ablation": "ablation.cli", "ablation-prepare": "ablation.prepare.cli"}
"""Each sealed console script (``bin/<command>``) and the module whose ``main`` it runs in stage 2."""

PASSED_TO = {"ablation-prepare": ("PATH",)}
"""Variables one command needs beyond :data:`PASSED`: ``ablation-prepare pin`` finds ``git`` on
``PATH`` (every other program preparation runs is pinned by its absolute path, and owners get an
environment of their own, PREPARE.md §4). ``PATH`` names no code this process loads."""

OPENSSL_CONFIG = "ablation/closure/openssl.cnf"
"""The sealed OpenSSL configuration, relative to ``site-packages``."""

_UNDER_I = "changes what runs even in an isolated interpreter"
_AT_START = "is read by the dynamic loader, the C library or the interpreter when the process starts, before any check"


_STOPPED = "interrupted by {}; stopped (an output file is written completely or not at all)"
"""The line of a SIGINT or SIGTERM, as :mod:`ablation.interrupts` words it (nothing is written during the start)."""

_HELD_AT_START: "dict[int, object]" = {}
"""The handlers :func:`hold_start_signals` replaced, which :func:`restore_start_signals` puts back."""


def hold_start_signals(command: str) -> None:
    """Make SIGINT and SIGTERM during the sealed start one line and exit 130 or 143, never a traceback.

    From here until the command's ``main`` takes over (:func:`restore_start_signals`, called by
    :mod:`ablation.closure.verified` just before it), a signal ends the process at once with
    ``<command>: interrupted by SIGINT; stopped (…)`` on stderr: the start writes no file, so there is
    nothing to finish. A signal the caller ignores (``SIG_IGN``: ``nohup``, a background job) stays
    ignored. Uses the built-in ``_signal`` (``signal`` is a file of the standard library, not yet checked).
    """
    signals = __import__("_signal")

    def stop(number: int, _frame: object) -> None:
        name = "SIGINT" if number == signals.SIGINT else "SIGTERM"
        try:
            if sys.stderr is not None:
                sys.stderr.write(f"{command}: {_STOPPED.format(name)}\n")
                sys.stderr.flush()
        finally:
            os._exit(128 + number)

    for number in (signals.SIGINT, signals.SIGTERM):
        handler = signals.getsignal(number)
        if handler == signals.SIG_IGN:
            continue
        _HELD_AT_START[number] = signals.SIG_DFL if handler is None else handler
        signals.signal(number, stop)


def restore_start_signals() -> None:
    """Give SIGINT and SIGTERM back the handlers they had before :func:`hold_start_signals`."""
    signals = __import__("_signal")
    while _HELD_AT_START:
        number, handler = _HELD_AT_START.popitem()
        signals.signal(number, handler)


class Refusal(Exception):
    """A start-up problem: the one line printed (without ``ablation: ``) and exit 3."""


def shown(name: str) -> str:
    """``name`` with every character that is not printable escaped (``a\\nb``), so that a refusal stays one line."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in name)


def _line(subject: str, what: str, kind: str, more: int = 0) -> str:
    suffix = f" (and {more} more closure problem{'s' if more > 1 else ''})" if more else ""
    return f"closure: {shown(subject)} {what}; {REMEDY[kind]}{suffix}"


def _refuse(problems: "Sequence[tuple[str, str, str]]") -> None:
    """Raise :class:`Refusal` for the first ``(subject, what, kind)``, counting the others."""
    if problems:
        subject, what, kind = problems[0]
        raise Refusal(_line(subject, what, kind, len(problems) - 1))


def option_problems(flags: object, pycache_prefix: str | None, *, no_site: bool) -> list[tuple[str, str, str]]:
    """Interpreter options that would run other bytecode or write into the closure: ``(subject, what, kind)``.

    ``flags`` is ``sys.flags``; ``no_site`` asks for ``-S`` as well (stage 2).
    """
    found = []
    if not getattr(flags, "isolated", 0):
        what = "runs without -I: PYTHON* variables, the user site and the current folder could change what is imported"
        found.append(("python", what, "isolation"))
    if not getattr(flags, "dont_write_bytecode", 0):
        found.append(("python", "runs without -B: it could write bytecode into the sealed environment", "isolation"))
    if getattr(flags, "optimize", 0):
        what = "runs with -O: modules would be compiled from source instead of the sealed bytecode"
        found.append(("python", what, "isolation"))
    if pycache_prefix is not None:
        what = "runs with -X pycache_prefix: bytecode would come from outside the sealed environment"
        found.append(("python", what, "isolation"))
    if no_site and not getattr(flags, "no_site", 0):
        found.append(("python", "runs without -S: site and any sitecustomize would run first", "isolation"))
    return found


def refused_variables(names: set[str]) -> list[tuple[str, str, str]]:
    """The refused variables among ``names``, sorted: ``(name, what, "environment")``."""
    found = []
    for name in sorted(names):
        if name in ("NIX_PYTHONPATH", "PYTHONEXECUTABLE"):
            found.append((name, f"is set, and {_UNDER_I}", "environment"))
        elif name.startswith(REFUSED_PREFIXES) or name in REFUSED_NAMES:
            found.append((name, f"is set: it {_AT_START}", "environment"))
    return found


def clean_environment(environ: "Mapping[bytes, bytes]", site: str, command: str = "ablation") -> dict[bytes, bytes]:
    """The whole environment of stage 2: :data:`FIXED`, ``OPENSSL_CONF``, the marker, :data:`PASSED`
    and what :data:`PASSED_TO` gives ``command``."""
    clean = {name.encode(): value.encode() for name, value in FIXED.items()}
    clean[b"OPENSSL_CONF"] = os.fsencode(f"{site}/{OPENSSL_CONFIG}")
    clean[START_MARKER[0].encode()] = START_MARKER[1].encode()
    for name in (*PASSED, *PASSED_TO.get(command, ())):
        value = environ.get(name.encode())
        if value is not None:
            clean[name.encode()] = value
    return clean


def _read_proc(name: str) -> bytes:
    """``/proc/self/<name>``, which must be the kernel's: a regular file of size 0 that reads non-empty
    (but ``environ``, which is empty under ``env -i``)."""
    path = f"/proc/self/{name}"
    try:
        with open(path, "rb") as stream:
            info = os.fstat(stream.fileno())
            data = stream.read()
    except OSError as error:
        raise Refusal(_line(path, f"cannot be read ({error.strerror})", "system")) from None
    if not (info.st_mode & 0o170000 == 0o100000 and info.st_size == 0 and (data or name == "environ")):
        raise Refusal(_line(path, "is not the kernel's (/proc is not procfs)", "system"))
    return data


def _initial_environment() -> dict[bytes, bytes]:
    """The environment the kernel started this process with (``/proc/self/environ``)."""
    pairs = (entry.partition(b"=") for entry in _read_proc("environ").split(b"\0") if entry)
    return {name: value for name, _, value in pairs}


def _command_arguments() -> list[bytes]:
    """The caller's arguments after the program (``sys.argv[1:]``), as the kernel has them (bytes)."""
    words = _read_proc("cmdline").split(b"\0")[:-1]
    count = len(sys.argv) - 1
    if count < 0 or len(words) < count:
        raise Refusal(_line("/proc/self/cmdline", "does not hold the command's arguments", "system"))
    return words[len(words) - count :] if count else []


def _stage_one(prefix: str, site: str, environ: dict[bytes, bytes], command: str) -> None:
    """Refuse or start stage 2 (``os.execve``; returns only by raising :class:`Refusal`)."""
    names = {os.fsdecode(name) for name in (*environ, *os.environb)}
    _refuse(option_problems(sys.flags, sys.pycache_prefix, no_site=False) + refused_variables(names))
    python, script = f"{prefix}/bin/python", f"{prefix}/bin/{command}"
    argv = [os.fsencode(python), b"-IBS", os.fsencode(script), *_command_arguments()]
    try:
        os.execve(python, argv, clean_environment(os.environb, site, command))
    except OSError as error:
        raise Refusal(_line(python, f"cannot be started ({error.strerror})", "isolation")) from None


def _environment_problems(environ: "Mapping[bytes, bytes]", site: str, command: str) -> list[tuple[str, str, str]]:
    """Stage 2: the environment is exactly the one stage 1 gives (``os.environ`` and the kernel's)."""
    expected = clean_environment(environ, site, command)
    found = []
    for name in sorted(set(environ) | set(expected)):
        if environ.get(name) == expected.get(name):
            continue
        shown = os.fsdecode(name)
        what = "is set" if name not in expected else f"is {os.fsdecode(environ.get(name, b'(unset)'))[:80]!r}"
        found.append((shown, f"{what} in the re-started evaluator, whose environment is fixed", "environment"))
    if dict(os.environb) != dict(environ):
        what = "differs from the process's environment: code that ran before this check changed it"
        found.append(("/proc/self/environ", what, "system"))
    return found


def _system_problems() -> list[tuple[str, str, str]]:
    """Stage 2: ``/proc`` is the kernel's and mounted as procfs; ``/etc/ld.so.preload`` absent or empty."""
    found = []
    _read_proc("maps")
    try:
        os.readlink("/proc/self/exe")
    except OSError as error:
        found.append(("/proc/self/exe", f"cannot be read ({error.strerror})", "system"))
    mounts = [line.split(b" - ", 1) for line in _read_proc("mountinfo").splitlines()]
    if not any(len(m) == 2 and m[0].split(b" ")[4:5] == [b"/proc"] and m[1].startswith(b"proc ") for m in mounts):
        found.append(("/proc", "is not mounted as procfs", "system"))
    try:
        with open("/etc/ld.so.preload", "rb") as stream:
            preload = stream.read()
    except FileNotFoundError:
        preload = b""
    except OSError as error:
        found.append(("/etc/ld.so.preload", f"cannot be read ({error.strerror})", "system"))
        preload = b""
    if preload.strip():
        what = "names libraries the dynamic loader loads into every process before any check"
        found.append(("/etc/ld.so.preload", what, "system"))
    return found


def _import_path(site: str) -> list[tuple[str, str, str]]:
    """Stage 2: ``sys.path`` is the interpreter's own (unused zip, standard library, extension folder)."""
    stdlib = getattr(sys, "_stdlib_dir", None) or ""
    if len(sys.path) != 3 or sys.path[1:] != [stdlib, f"{stdlib}/lib-dynload"]:
        return [("sys.path", f"is {sys.path!r}, not the interpreter's own", "outside")]
    if os.path.lexists(sys.path[0]):
        what = "is on sys.path ahead of the standard library, and was absent when the environment was sealed"
        return [(sys.path[0], what, "outside")]
    sys.path.append(site)
    return []


def _stage_two(
    prefix: str, site: str, entry: str, environ: dict[bytes, bytes], command: str
) -> list[tuple[str, str, str]]:
    """Every stage-2 problem before any closure file is read (empty when the start is sealed)."""
    found = _environment_problems(environ, site, command)
    found += option_problems(sys.flags, sys.pycache_prefix, no_site=True)
    if sys.warnoptions or getattr(sys, "_xoptions", None):
        found.append(("python", "runs with -W or -X options the sealed start does not give", "isolation"))
    if entry != "script":
        found.append(("__main__", "is not the console script in the re-started evaluator", "isolation"))
    return found + _system_problems() + _import_path(site)


def leave(code: int) -> "NoReturn":
    """End the sealed process with exit code ``code``, standard output and error flushed, without the
    interpreter's teardown.

    Called once the command has returned: its files are written and closed, and the start's hashing
    thread has ended (:func:`ablation.closure.verified.run`). What an ordinary exit would still do is
    free every object of about a hundred modules one by one, about 3.5 ms of every start (decision 20).
    A stream the program closed is left alone, as the interpreter's exit leaves it. When a stream
    cannot be flushed, the exit is the interpreter's after all (``SystemExit(code)``): it reports the
    stream as it always did (``Exception ignored in: <…stdout…>`` on stderr) and makes the code 120,
    whatever ``code`` was, so a caller sees the same bytes and code as without this shortcut.
    """
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None and not stream.closed:
                stream.flush()
    except BaseException:  # anything: the interpreter's own exit then says what it says
        raise SystemExit(code) from None
    os._exit(code)


def start(prefix: str, site: str, sha256: "Callable[..., object] | None", entry: str, command: str = "ablation") -> int:
    """Run the sealed evaluator from its console script (``entry="script"``) or ``-m ablation`` (``"module"``).

    Args:
        prefix: the environment's folder (``sys.prefix`` of its interpreter).
        site: its ``site-packages`` folder.
        sha256: ``_sha256.sha256``, which needs no OpenSSL, for the first hashes (``None`` from ``-m``,
            which only ever runs stage 1).
        entry: how this process was started.
        command: ``ablation`` or ``ablation-prepare`` (:data:`COMMANDS`): which console script stage 1
            starts again, and whose ``main`` stage 2 runs.

    Returns:
        3 after a refusal (one line). Otherwise stage 1 starts stage 2 in its place, and stage 2
        ends the process with the command's exit code (:func:`leave`).
    """
    hold_start_signals(command)
    try:
        environ = _initial_environment()
        if environ.get(START_MARKER[0].encode()) != START_MARKER[1].encode():
            _stage_one(prefix, site, environ, command)
        _refuse(_stage_two(prefix, site, entry, environ, command))
        if os.path.isfile(f"{prefix}/pyvenv.cfg"):  # what site.py would have done for a venv
            sys.prefix = sys.exec_prefix = prefix
        verified = sys.modules.get("ablation.closure.verified")
        if verified is None or sha256 is None:
            raise Refusal(_line("ablation/closure/verified.py", "was not loaded by the console script", "isolation"))
        leave(verified.run(prefix, site, sha256, command))
    except Refusal as refusal:
        sys.stderr.write(f"{command}: {refusal}\n")
        return 3
