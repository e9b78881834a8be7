"""The whole preparation of the example, end to end, with the owner stand-ins: ``make prepare-example``.

Usage, from the repository root, once ``.venv`` is built (``make prepare-example`` does both)::

    python3 examples/prepare/run_example.py [--venv .venv]

It makes the example's repositories and tool checkout (``make_repos.py``), then runs,
each as an operator would and printing what it prints:

1. ``ablation-prepare check`` and ``sheet cases`` (the case-review sheet);
2. ``capture --execute-owners --assert-no-index-access`` (the stand-ins run everywhere,
   ptrace or not; the record says "asserted, not traced" for every case);
3. ``assemble`` with ``staleness-review.toml``, made from the committed
   ``staleness-review.toml.in``: the reviewer's verdicts are committed, and this
   script fills in only the SHA-256 of the sheet capture wrote (it refuses when the
   sheet samples other paths than the template lists);
4. ``freeze`` with ``pre-run-review.toml``, from ``pre-run-review.toml.in``: the
   SHA-256 of ``SHA256SUMS.pre-review`` and the ``identityDigest`` that
   ``env -i .venv/bin/ablation identity`` prints here are filled in (the identity of
   the sealed ``.venv`` on this machine, the evaluator that runs the example);
5. ``check-freeze``; the sealed ``ablation verify --input-sha256``; ``ablation run`` with
   the one-shot marker ``attempt.json`` in D; ``check-freeze --results``;

and prints, last, ``<sha256>  <path>`` of the prepared input and of the results file.

Where things go: everything of one run under ``build/prepare-example/chain/`` (the
experiment file and the reviews, ``prep/`` = D, ``out/``); ``work_root`` is the fixed
``/var/tmp/ablation-prepare-example/work`` (it is frozen into the request paths, so two
clones at different paths prepare byte-identical inputs). Preparation deletes nothing,
so a second run needs both out of the way: this script **moves** an existing
``chain/`` and ``work/`` (from this clone or another) into
``build/prepare-example/moved/<n>/`` first, and says so. One example run at a time per
machine: two at once would share ``work_root``.

Spec: issue 21 item 4; PREPARE.md §10 "End to end".
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from examples.prepare import make_repos  # noqa: E402 - the example's own module, beside this one

BUILD = ROOT / "build" / "prepare-example"
STALENESS_TEMPLATE = HERE / "staleness-review.toml.in"
PRE_RUN_TEMPLATE = HERE / "pre-run-review.toml.in"
SHEET_SNIPPET = "## For staleness-review.toml\n\n```toml\n"


class Stopped(Exception):
    """A step failed (its own message is already on stderr) or something is not as the example expects."""


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _shown(path: Path) -> str:
    """A path as the example prints it: relative to the checkout when inside it."""
    return os.path.relpath(path, ROOT) if path.is_relative_to(ROOT) else str(path)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def move_aside(chain: Path, work: Path, moved: Path) -> Path | None:
    """Move an earlier run's ``chain`` and ``work`` into ``moved/<n>/`` (the first free n from 1); where, or None."""
    earlier = [p for p in (chain, work) if p.exists() or p.is_symlink()]
    if not earlier:
        return None
    n = 1
    while (moved / str(n)).exists():
        n += 1
    target = moved / str(n)
    target.mkdir(parents=True)
    for path in earlier:
        shutil.move(str(path), str(target / path.name))
        _say(f"moved aside: {_shown(path)} -> {_shown(target / path.name)} (preparation deletes nothing)")
    return target


def _run(argv: list[str], *, env: dict[str, str] | None = None) -> str:
    """Run one command of the chain, echoing it and its output; its stdout. Stops the example on failure."""
    _say("$ " + " ".join(argv))
    done = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True, check=False)
    sys.stdout.write(done.stdout)
    if done.returncode != 0:
        raise Stopped(f"{Path(argv[0]).name} {argv[1]} exited {done.returncode}")
    return done.stdout


def _fill(template: Path, values: dict[str, str]) -> str:
    text = template.read_text(encoding="utf-8")
    for name, value in values.items():
        text = text.replace(f"@{name}@", value)
    return text


def staleness_review(sheet: Path) -> str:
    """The committed staleness review bound to ``sheet`` (refused when the sheet samples other paths)."""
    snippet = sheet.read_text(encoding="utf-8").split(SHEET_SNIPPET, 1)[1].split("```", 1)[0]
    sampled = {r["id"]: r["sampled"] for r in tomllib.loads(snippet)["repository"]}
    text = _fill(STALENESS_TEMPLATE, {"SHEET_SHA256": _sha256(sheet)})
    reviewed = {r["id"]: r["sampled"] for r in tomllib.loads(text)["repository"]}
    if reviewed != sampled:
        raise Stopped(
            f"{_shown(sheet)} samples {sampled}, but {_shown(STALENESS_TEMPLATE)} reviewed {reviewed}: the stand-ins "
            "or the example's repositories changed; put the sheet's lists into the template and review them again"
        )
    return text


def main(argv: list[str] | None = None) -> int:
    """Run the example (module docstring); 0 when every step passed, 1 when one stopped it."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--venv", type=Path, default=ROOT / ".venv", help="the sealed environment (default .venv)")
    parser.add_argument("--build", type=Path, default=BUILD, help="folder of the repositories and the run (tests)")
    parser.add_argument("--fixed", type=Path, default=Path(make_repos.FIXED), help="folder of the tools and work_root")
    args = parser.parse_args(argv)
    build, fixed = args.build.resolve(), Path(os.path.abspath(args.fixed))
    chain = build / "chain"
    venv = _shown(args.venv.resolve())
    prepare, ablation = f"{venv}/bin/ablation-prepare", f"{venv}/bin/ablation"
    try:
        move_aside(chain, fixed / "work", build / "moved")
        chain.mkdir(parents=True)
        experiment, review, d = chain / "experiment.toml", chain / "cases-review.toml", chain / "prep"
        e, r, dd, c = _shown(experiment), _shown(review), _shown(d), _shown(chain)
        if make_repos.main(["--build", str(build), "--fixed", str(fixed), "--experiment", str(experiment)]) != 0:
            raise Stopped("make_repos.py refused (its message is above)")
        _run([prepare, "check", e])
        _run([prepare, "sheet", "cases", e, "--out", f"{c}/cases-review-sheet.md"])
        _run([prepare, "capture", e, "--dir", dd, "--cases-review", r, "--execute-owners", "--assert-no-index-access"])
        (chain / "staleness-review.toml").write_text(staleness_review(d / "staleness-sheet.md"), encoding="utf-8")
        _run([prepare, "assemble", "--dir", dd, "--staleness-review", f"{c}/staleness-review.toml"])
        identity = json.loads(_run([ablation, "identity"], env={}))["identityDigest"]
        values = {
            "PRE_REVIEW_MANIFEST_SHA256": _sha256(d / "SHA256SUMS.pre-review"),
            "EVALUATOR_IDENTITY_DIGEST": identity,
        }
        (chain / "pre-run-review.toml").write_text(_fill(PRE_RUN_TEMPLATE, values), encoding="utf-8")
        _run([prepare, "freeze", "--dir", dd, "--pre-run-review", f"{c}/pre-run-review.toml"])
        _run([prepare, "check-freeze", "--dir", dd])
        sha, manifest = _sha256(d / "prepared.json"), _sha256(d / "SHA256SUMS.pre-run")
        prepared, results = d / "prepared.json", chain / "out" / "example.results.json"
        p, o = _shown(prepared), _shown(results)
        _run([ablation, "verify", "--input", p, "--input-sha256", sha], env={})
        results.parent.mkdir()
        _run([ablation, "run", "--input", p, "--input-sha256", sha, "--output", o, "--attempt-record",
              f"{dd}/attempt.json", "--pre-run-manifest-sha256", manifest], env={})  # fmt: skip
        _run([prepare, "check-freeze", "--dir", dd, "--results", o])
    except (Stopped, OSError, KeyError, ValueError) as error:
        sys.stderr.write(f"prepare-example: {error}\n")
        return 1
    _say("")
    _say("the example's prepared input and its results (the first line is what a preregistration cites):")
    _say(f"{sha}  {_shown(prepared)}")
    _say(f"{_sha256(results)}  {_shown(results)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
