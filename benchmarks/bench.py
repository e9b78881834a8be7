"""``make bench`` (issues 6, 11, 13): wall time and peak RSS of verify, run, archive, verify-archive and the floor.

Usage, from anywhere (``make bench`` runs it with the ``.venv`` interpreter)::

    python3 benchmarks/bench.py [--scales S,M,L] [--runs 5] [--json benchmarks/results/bench.json]

For each scale it makes the input if ``benchmarks/data/<scale>.json`` is missing
(``benchmarks/generate.py``, into a temporary file renamed into place), then runs
each of these ``--runs`` times as a whole process, interleaved (verify, run,
floor, verify, run, floor, …) so that a change of machine load falls on all three
alike:

* ``python -m ablation verify --input F --input-sha256 H``
* ``python -m ablation run --input F --input-sha256 H --output <new temporary file>``
* ``python -m ablation archive --input F --results <that run's output> --bundle <new temporary file>``
* ``python -m ablation verify-archive <that bundle>``
* ``python benchmarks/floor.py F`` (read, SHA-256, ``json.loads`` of the file and
  of every embedded raw JSON text)

``python`` is the interpreter running this script, for all three. The children
run in the repository root, so ``-m ablation`` imports the checkout's package
(the path is printed and recorded). Each child is reaped with ``os.wait4`` (by
the launcher described below): wall time is measured around it, and its rusage
gives the peak RSS (``ru_maxrss``) and CPU time (user + system; less sensitive
to other load than wall time).

It prints a table of medians per command and scale, with the ratios to the floor,
then archive/run and verify-archive/run (issue 13: wall at most 1.8 and 1.3 at
L; issue 11: verify-archive peak RSS at most 1.5 × run's), and writes the same
figures, every single measurement, the load average before and after, and the
machine and checkout state as JSON. Figures only: nothing is asserted about
them, and the exit status is non-zero only when a command fails or an input
cannot be made.

Linux carries the peak RSS of the memory a process was forked from across
``exec``, so a child started from this script could never report less than this
script's own peak (about 20 MiB once its modules are imported). Each command is
therefore started by a launcher, ``python -I -S -c`` with a few lines that
``posix_spawn`` the command, time it and ``wait4`` it, whose own peak (about
8 MiB) is below that of any Python process. This script never loads an input
(it hashes in chunks).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["COMMANDS", "main"]

ROOT = Path(__file__).resolve().parent.parent
BENCH_DIR = ROOT / "benchmarks"
DATA_DIR = BENCH_DIR / "data"
DEFAULT_JSON = BENCH_DIR / "results" / "bench.json"
SCALE_NAMES = ("S", "M", "L")
COMMANDS = ("verify", "run", "archive", "verify-archive", "floor")
#: Commands compared with ``run`` (issue 13 wall bounds, issue 11 RSS bound), for reference only.
RUN_BOUNDS = {"archive": {"wall": 1.8}, "verify-archive": {"wall": 1.3, "rss": 1.5}}
MIB = 1024 * 1024
#: The bounds issue 6 sets at L, printed beside the ratios for reference only.
ISSUE_BOUNDS = {"wall": 4.0, "rss": 2.0}
#: The sealed entry point users run; without it, ``python -m ablation`` from the checkout.
SEALED = ROOT / ".venv" / "bin" / "ablation"
#: The start-up bound of issue 9 for ``ablation identity`` (closure check included), for reference only.
STARTUP_BOUND_MS = 150
_ABLATION: list[str] = []


@dataclass(frozen=True)
class Measurement:
    """One finished child process."""

    wall_s: float
    cpu_s: float
    peak_rss_mib: float
    stdout: str

    def as_json(self) -> dict[str, float]:
        """The figures as recorded in the JSON report."""
        return {"wallS": round(self.wall_s, 4), "cpuS": round(self.cpu_s, 4), "peakRssMiB": round(self.peak_rss_mib, 2)}


class CommandFailed(Exception):
    """A measured or helper process exited non-zero."""


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _sha256_file(path: Path) -> str:
    """SHA-256 of a file, read in chunks (the inputs are tens of MB)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _recorded_sha256() -> dict[str, str]:
    """``generate.EXPECTED_SHA256``, read in a child (importing generate imports the test builder)."""
    code = "import json, generate; print(json.dumps(generate.EXPECTED_SHA256))"
    try:
        out = subprocess.run([sys.executable, "-c", code], cwd=BENCH_DIR, capture_output=True, text=True, check=True)
        return dict(json.loads(out.stdout))
    except (subprocess.CalledProcessError, ValueError) as exc:
        _log(f"bench: could not read the recorded SHA-256 values from generate.py: {exc}")
        return {}


def ensure_input(scale: str, data_dir: Path) -> Path:
    """Return ``data_dir/<scale>.json``, generating it first when it is missing.

    The generator writes a temporary file in the same folder, renamed into place
    when complete, so a concurrent reader never sees a partial input.
    """
    path = data_dir / f"{scale}.json"
    if path.is_file():
        return path
    data_dir.mkdir(parents=True, exist_ok=True)
    tmp = data_dir / f".{scale}.json.{os.getpid()}.tmp"
    _log(f"bench: generating {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} (scale {scale}) …")
    try:
        done = subprocess.run(
            [sys.executable, str(BENCH_DIR / "generate.py"), "--scale", scale, "--out", str(tmp)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            msg = f"generate.py --scale {scale} exited {done.returncode}:\n{done.stderr}"
            raise CommandFailed(msg)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


#: Run by ``python -I -S -c``: spawn argv[2:], time and reap it, write the figures to argv[1].
_LAUNCHER = """
import os, sys, time
argv = sys.argv[2:]
started = time.perf_counter()
pid = os.posix_spawn(argv[0], argv, os.environ)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - started
with open(sys.argv[1], "w") as out:
    out.write(f"{os.waitstatus_to_exitcode(status)} {wall!r} {usage.ru_utime!r} {usage.ru_stime!r} {usage.ru_maxrss}")
"""


def measure(argv: list[str], workdir: Path) -> Measurement:
    """Run ``argv`` (absolute program path first) to completion in ``ROOT``.

    Returns:
        Its wall time, CPU time (user + system), peak RSS and standard output.

    Raises:
        CommandFailed: a non-zero exit, with the child's stderr.
    """
    figures = workdir / "figures"
    figures.unlink(missing_ok=True)
    with (workdir / "stdout").open("w+b") as out, (workdir / "stderr").open("w+b") as err:
        launcher = [sys.executable, "-I", "-S", "-c", _LAUNCHER, str(figures), *argv]
        done = subprocess.run(launcher, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=out, stderr=err, check=False)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    if done.returncode != 0 or not figures.is_file():
        msg = f"the launcher for {' '.join(argv)}\nexited {done.returncode}:\n{stderr[-4000:]}"
        raise CommandFailed(msg)
    code, wall, utime, stime, maxrss_kib = figures.read_text(encoding="ascii").split()
    if int(code) != 0:
        msg = f"{' '.join(argv)}\nexited {code}:\n{stderr[-4000:]}"
        raise CommandFailed(msg)
    # ru_maxrss is in KiB on Linux.
    return Measurement(float(wall), float(utime) + float(stime), int(maxrss_kib) / 1024, stdout)


def _argv(command: str, path: Path, sha256: str, output: Path) -> list[str]:
    ablation = _ABLATION
    bundle = output.with_name(output.name.replace(".results.json", ".bundle.tar.gz"))
    if command == "archive":
        return [*ablation, "archive", "--input", str(path), "--results", str(output), "--bundle", str(bundle)]
    if command == "verify-archive":
        return [*ablation, "verify-archive", str(bundle)]
    if command == "verify":
        return [*ablation, "verify", "--input", str(path), "--input-sha256", sha256]
    if command == "run":
        return [*ablation, "run", "--input", str(path), "--input-sha256", sha256, "--output", str(output)]
    return [sys.executable, str(BENCH_DIR / "floor.py"), str(path)]


def bench_startup(runs: int) -> dict[str, float]:
    """Wall time of ``ablation identity`` (start-up, closure check included): median and minimum of ``runs``, in ms."""
    with tempfile.TemporaryDirectory(prefix="ablation-bench-") as tmp:
        walls = sorted(measure([*_ABLATION, "identity"], Path(tmp)).wall_s * 1000 for _ in range(runs))
    return {"medianMs": round(statistics.median(walls), 1), "minMs": round(walls[0], 1), "runs": runs}


def bench_scale(scale: str, path: Path, sha256: str, runs: int) -> dict[str, object]:
    """Measure the three commands ``runs`` times each on one input, interleaved."""
    samples: dict[str, list[Measurement]] = {c: [] for c in COMMANDS}
    run_outputs: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="ablation-bench-") as tmp:
        workdir = Path(tmp)
        for i in range(1, runs + 1):
            for command in COMMANDS:
                output = workdir / f"{scale}-{i}.results.json"
                m = measure(_argv(command, path, sha256, output), workdir)
                samples[command].append(m)
                if command == "run":
                    run_outputs.add(m.stdout.split()[0] if m.stdout.split() else "")
                if command == "verify-archive":  # the run's output and its bundle are no longer needed
                    output.unlink(missing_ok=True)
                    output.with_name(output.name.replace(".results.json", ".bundle.tar.gz")).unlink(missing_ok=True)
                _log(
                    f"bench: {scale} {command:<6} run {i}/{runs}: {m.wall_s:7.2f} s wall, {m.cpu_s:7.2f} s cpu, "
                    f"{m.peak_rss_mib:8.1f} MiB, load {os.getloadavg()[0]:.2f}"
                )
    medians = {
        c: {
            "wallS": round(statistics.median(m.wall_s for m in ms), 4),
            "cpuS": round(statistics.median(m.cpu_s for m in ms), 4),
            "peakRssMiB": round(statistics.median(m.peak_rss_mib for m in ms), 2),
            "wallMinS": round(min(m.wall_s for m in ms), 4),
            "wallMaxS": round(max(m.wall_s for m in ms), 4),
        }
        for c, ms in samples.items()
    }
    floor = medians["floor"]
    ratios = {
        f"{c}/floor": {
            "wall": round(medians[c]["wallS"] / floor["wallS"], 3),
            "cpu": round(medians[c]["cpuS"] / floor["cpuS"], 3),
            "rss": round(medians[c]["peakRssMiB"] / floor["peakRssMiB"], 3),
        }
        for c in COMMANDS
        if c != "floor"
    }
    run = medians["run"]
    ratios.update(
        {
            f"{c}/run": {
                "wall": round(medians[c]["wallS"] / run["wallS"], 3),
                "rss": round(medians[c]["peakRssMiB"] / run["peakRssMiB"], 3),
            }
            for c in RUN_BOUNDS
        }
    )
    return {
        "scale": scale,
        "input": str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path),
        "inputBytes": path.stat().st_size,
        "inputSha256": sha256,
        "runs": runs,
        "median": medians,
        "ratios": ratios,
        "runOutputSha256": sorted(run_outputs),
        "samples": {c: [m.as_json() for m in ms] for c, ms in samples.items()},
    }


def _git_state() -> dict[str, Any]:
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    try:
        head = git("rev-parse", "HEAD")
        dirty = git("status", "--porcelain", "--", "ablation")
    except OSError:
        return {}
    return {"head": head, "ablationChanges": dirty.splitlines() if dirty else []}


def _ablation_path() -> str:
    code = "import ablation; print(ablation.__file__)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    return done.stdout.strip() or f"(not importable: {done.stderr.strip()[-200:]})"


def render_table(results: list[dict[str, Any]]) -> str:
    """The printed table: medians per command and scale, then the ratios."""
    lines = [
        f"{'scale':<5} {'input MiB':>9} {'command':<14} {'wall s':>8} {'cpu s':>8} {'peak RSS MiB':>12}"
        f"  {'wall/floor':>10} {'cpu/floor':>9} {'RSS/floor':>9}",
    ]
    lines.append("-" * len(lines[0]))
    for result in results:
        medians: dict[str, dict[str, float]] = result["median"]
        ratios: dict[str, dict[str, float]] = result["ratios"]
        size = f"{result['inputBytes'] / MIB:.1f}"
        for command in COMMANDS:
            m = medians[command]
            r = ratios.get(f"{command}/floor")
            ratio = f"  {r['wall']:>10.2f} {r['cpu']:>9.2f} {r['rss']:>9.2f}" if r else f"  {'—':>10} {'—':>9} {'—':>9}"
            lines.append(
                f"{result['scale'] if command == COMMANDS[0] else '':<5} {size if command == COMMANDS[0] else '':>9} "
                f"{command:<14} {m['wallS']:>8.2f} {m['cpuS']:>8.2f} {m['peakRssMiB']:>12.1f}{ratio}"
            )
        lines.extend(
            f"{'':<5} {'':>9} {c + '/run':<18} wall {ratios[f'{c}/run']['wall']:.2f}, "
            f"peak RSS {ratios[f'{c}/run']['rss']:.2f}"
            for c in RUN_BOUNDS
        )
    return "\n".join(lines)


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--scales", default=",".join(SCALE_NAMES), help="comma-separated scales (default S,M,L)")
    parser.add_argument("--runs", type=int, default=5, help="runs of each command per scale (default 5)")
    parser.add_argument(
        "--json", type=Path, default=DEFAULT_JSON, help=f"JSON output (default {DEFAULT_JSON.relative_to(ROOT)})"
    )
    parser.add_argument(
        "--data-dir", type=Path, default=DATA_DIR, help="where the inputs are (default benchmarks/data)"
    )
    args = parser.parse_args(argv)
    scales = [s.strip().upper() for s in args.scales.split(",") if s.strip()]
    unknown = [s for s in scales if s not in SCALE_NAMES]
    if not scales or unknown:
        parser.error(f"--scales: expected a comma-separated subset of {','.join(SCALE_NAMES)}, got {args.scales!r}")
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    args.scales = scales
    return args


def main(argv: list[str] | None = None) -> int:
    """Command line; 0 when every command succeeded, 1 otherwise."""
    args = _parse_args(argv)
    load_before = os.getloadavg()
    started = time.time()
    git_before = _git_state()
    recorded = _recorded_sha256()
    _ABLATION[:] = [str(SEALED)] if SEALED.is_file() else [sys.executable, "-m", "ablation"]
    ablation_path = str(SEALED) if SEALED.is_file() else _ablation_path()
    _log(
        f"bench: {sys.executable} (Python {platform.python_version()}), "
        f"ablation: {' '.join(_ABLATION)} ({ablation_path})"
    )
    _log(f"bench: load average {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, {os.cpu_count()} CPUs")
    results: list[dict[str, Any]] = []
    try:
        for scale in args.scales:
            path = ensure_input(scale, args.data_dir.resolve())
            sha256 = _sha256_file(path)
            if recorded.get(scale) and recorded[scale] != sha256:
                _log(
                    f"bench: note: {path.name} has SHA-256 {sha256}, not the {recorded[scale]} recorded in generate.py"
                )
            result = bench_scale(scale, path, sha256, args.runs)
            result["inputAsRecorded"] = recorded.get(scale) == sha256
            results.append(result)
        startup = bench_startup(max(10, args.runs))
    except CommandFailed as exc:
        _log(f"bench: failed: {exc}")
        return 1
    load_after = os.getloadavg()
    harness_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    table = render_table(results)
    print(table)
    print(
        f"start-up: {' '.join(_ABLATION)} identity (closure check included): median {startup['medianMs']:.0f} ms, "
        f"min {startup['minMs']:.0f} ms of {startup['runs']} runs (issue 9 bound, for reference: {STARTUP_BOUND_MS} ms)"
    )
    print(
        f"medians of {args.runs} runs; MiB = 2^20 bytes; cpu = user + system. load average "
        f"{load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f} before, "
        f"{load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f} after; {os.cpu_count()} CPUs."
    )
    git_after = _git_state()
    if git_before != git_after:
        print(
            f"note: the checkout changed during the run (HEAD {str(git_before.get('head'))[:12]} -> "
            f"{str(git_after.get('head'))[:12]}; ablation/ changes {len(git_before.get('ablationChanges', []))} -> "
            f"{len(git_after.get('ablationChanges', []))}); the figures may mix two versions."
        )
    print(
        f"issue 6 bounds at L (for reference, not checked): run/floor wall <= {ISSUE_BOUNDS['wall']:g}, "
        f"peak RSS <= {ISSUE_BOUNDS['rss']:g}; issues 13 and 11: archive/run wall <= 1.8, "
        "verify-archive/run wall <= 1.3 and peak RSS <= 1.5."
    )
    report = {
        "schema": "ablation-bench/1",
        "startedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "elapsedS": round(time.time() - started, 1),
        "python": {"executable": sys.executable, "version": platform.python_version()},
        "ablationModule": ablation_path,
        "git": {"before": git_before, "after": git_after},
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
        "loadAverage": {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in load_after]},
        "harnessPeakRssMiB": round(harness_rss, 2),
        "issueBounds": ISSUE_BOUNDS,
        "startup": startup,
        "runBounds": RUN_BOUNDS,
        "results": results,
        "table": table,
    }
    json_path: Path = args.json
    json_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = json_path.with_name(f".{json_path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, json_path)
    print(f"wrote {json_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
