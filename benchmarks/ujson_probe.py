"""Is ``ujson`` correct and faster anywhere the evaluator could use it? (issue 6, item 3)

Usage, from the repository root (``ujson`` is pinned in ``requirements.lock``, so
the ``.venv`` interpreter has it)::

    .venv-dev/bin/python benchmarks/ujson_probe.py [--scales M,L] [--repeat 7] \
        [--json benchmarks/results/ujson_probe.json]

``ujson`` is never the parser of record for the strict profile. The probe looks at
the two places where it could stand in for the standard library without being one:

1. **Parsing** — ``ujson.loads`` against ``json.loads`` (what the floor does) and
   against ``ablation.strictjson.parse_text`` (what the evaluator does: the C
   scanner with hooks that notice duplicate names and unsafe numbers) on the whole
   file and on every embedded raw JSON text the floor parses. Correct means the
   same value, types and member order included. It also lists texts the strict
   profile rejects that ``ujson.loads`` accepts without a trace in its result,
   which is what rules it out as a fast path: a fast path must notice trouble.
2. **Canonical text** — ``ujson.dumps(v, ensure_ascii=False,
   escape_forward_slashes=False, sort_keys=True)`` against
   ``ablation.canonical.canon(v)``. Correct means byte-identical output on the
   SPEC §3.5 vectors (whose digests ``canon`` is checked against too), on extra
   vectors (every C0 control, U+007F, U+2028, U+2029, astral characters, member
   order where UTF-8 and UTF-16 orders differ) and on every receipt, request,
   evidence identity and execution observation of each scale's input (and on the
   whole M input). Speed is timed on the shapes the evaluator canonicalises:
   whole receipts, one evidence identity at a time, and execution observations
   (which carry the raw texts as long strings).

3. **End to end** — ``ablation run`` on the largest scale asked for, in a fresh
   process per run, with ``canon``'s encoder wrapped by a timer, once as it is and
   once replaced by the ``ujson.dumps`` call above (nothing under ``ablation/`` is
   edited; the probe swaps the module's encoder object in its own child process).
   It reports the time spent in ``canon``, the run's wall time and whether the
   output files are byte-identical, so the saving can be read as a share of a run.

Each timing is ``--repeat`` passes over all the items of a kind; the median and the
fastest pass are reported. The machine's load average is printed and recorded.
Results go to stdout and, as JSON, to ``--json`` (``benchmarks/results/`` is
git-ignored). Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# The checkout's package, not an installed copy.
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from bench import ensure_input  # type: ignore[import-not-found]  # noqa: E402 - a script beside this one
from floor import embedded_texts  # type: ignore[import-not-found]  # noqa: E402 - a script beside this one

from ablation.canonical import canon, raw_digest  # noqa: E402
from ablation.strictjson import JsonGrammarError, parse_text  # noqa: E402

try:
    import ujson
except ImportError:  # pragma: no cover - depends on the environment
    ujson = None  # type: ignore[assignment]  # main() says ujson is missing and stops

__all__ = ["EXTRA_VECTORS", "SPEC_VECTORS", "main"]

UJSON_CANON_OPTIONS: dict[str, Any] = {"ensure_ascii": False, "escape_forward_slashes": False, "sort_keys": True}

_A40 = "a" * 40
_V1 = "sha256:0549f81f476e5697093ee1bb8fa574b7f75e25788685c7a5f97ee216985ce249"
_V2 = "sha256:4b087856159915ff9f43db03148c0cfb55342633edd017ad7b5895256f90bd82"

#: SPEC §3.5: (number, value, expected digest of the canonical text).
SPEC_VECTORS: list[tuple[str, object, str]] = [
    ("1", ["alpha", "and", "behavior", "locate", "parsing", "request", "validation"], _V1),
    (
        "2",
        {
            "truth": ["src/alpha.js"],
            "repositoryCommit": _A40,
            "sourceListArtifactSha256": "sha256:193fc8861672ce1e716f9a49cc806dfc5f593a6d3ca489fe8b6dd54379b38015",
        },
        _V2,
    ),
    (
        "3",
        {"targetBasisDigest": _V2, "repositoryId": "repo", "intentSignature": _V1},
        "sha256:e8cc751fac3c0848a865183553b6ab326d21c0e6313e06e8010a2df884cff918",
    ),
    (
        "4",
        ["git", "-C", ".", "--literal-pathspecs", "ls-files", "--cached", "--stage", "-z", "--"],
        "sha256:b1f07241a29c137e07c2d0de654d74da7102ba763daeb19d1a11be689da12272",
    ),
    (
        "5",
        ["/usr/bin/node", "/opt/pinned/agent-scripts/scripts/source-list.mjs", "--repo", ".", "--full-list", "--json"],
        "sha256:75d8233991c9b59edfd4bd8b0b2ed9be54fe45564628c2b04627589b2bcd9bca",
    ),
    (
        "6",
        {
            "path": "src/alpha.js",
            "kind": "match",
            "range": {"start": {"line": 0, "column": 0}, "end": {"line": 0, "column": 5}},
        },
        "sha256:66430d70df6d03a2e042b45e6033c58fdd9897fa5e6194d332c2afe109829858",
    ),
    (
        "7",
        [
            "/opt/pinned/semantic-code-intelligence",
            "experimental",
            "structural-evidence-receipt",
            "--request-file",
            "/evidence/prepared-request.json",
        ],
        "sha256:10ad16673aff94a89e59df78f966535fd199d7a2cae8c54d82bfad8205381ef5",
    ),
    ("8", {"a": "\u00e9"}, "sha256:b3a092a6af48807fa9482b2ee140105575daa26d5b24b3c0e60a7e2dee6683b1"),
    ("9", {"\U0001f600": 2, "\uff21": 1}, "sha256:e3207e8ca18e6d266f11ec625254ff3bd274ce9567347abb344ad45e86d622f7"),
    (
        "10",
        {"k": "\x00\x08\x09\x0a\x0c\x0d\x22\x5c\x2f\x1f\x7f\u2028\u00e9\U0001f600"},
        "sha256:3b33f2a1f6f63a2910e1111ac85dbe810e4daf7b6ed560c0e7b78d1eb1aba43e",
    ),
    (
        "11",
        [0, -0, 9007199254740991, -9007199254740991, True, False, None, "", [], {}],
        "sha256:025dbf578bfb74bf610f2037aba185e1c00a74b419e06b84966b6064df981a19",
    ),
    (
        "12",
        {"b": 1, "a": 2, "B": 3, "\u00e9": 4, "e": 5, "": 6, "a b": 7, "~": 8},
        "sha256:1881729fefe72d698e26fb8d4fea11624c110d5b764f91a9ac30297924c12a57",
    ),
    (
        "15",
        {
            "question": "Locate alpha request parsing and validation behavior.",
            "operations": ["structural_search"],
            "limits": {"timeoutMs": 30000, "maxEvidenceBytes": 65536, "maxCandidatesPerFile": 5, "maxCandidates": 20},
            "seeds": [
                {"value": "JavaScript", "kind": "text", "id": "seed:language"},
                {"value": "$MATCH", "kind": "text", "id": "seed:pattern"},
                {"value": "src", "kind": "path", "id": "seed:path"},
            ],
        },
        "sha256:1446d8d6f56e6ac92cbf0a3e12d9621f29905a63576491548d5596b815b6f9ff",
    ),
]

#: More values where an encoder could differ from ``JSON.stringify``: (name, value).
EXTRA_VECTORS: list[tuple[str, object]] = [
    ("every C0 control, U+007F, U+2028, U+2029", {"s": "".join(map(chr, range(0x20))) + "\x7f\u2028\u2029"}),
    ("C0 controls as member names", {chr(c): c for c in range(0x20)}),
    ("U+E000 before U+1F600 (UTF-8 order; UTF-16 puts the astral one first)", {"\U0001f600": 1, "\ue000": 2}),
    ("astral and BMP names sharing a prefix", {"a\U00010000": 1, "a\uffff": 2, "a": 3, "a\x00": 4}),
    ("slashes, quotes, backslashes", {"p": 'a/b\\c"d</script>', "/": "//"}),
    ("HTML-significant characters", {"h": "<>&'\u2028"}),
    ("safe-integer bounds and zero", [9007199254740991, -9007199254740991, 0, -1, 1, 10**15]),
    ("nested empties and deep nesting", [[[[[]]]], {"a": {"b": {"c": {}}}}, [{}], {"": []}]),
    ("long non-ASCII string", {"t": "\u00e9\u4e2d\U0001f600 " * 1000}),
    ("noncharacters and BOM", {"n": "\ufffe\uffff\ufeff\U0010ffff"}),
    ("arrays nested 256 deep (the profile's limit)", json.loads("[" * 256 + "]" * 256)),
    ("objects nested 256 deep", json.loads('{"a":' * 255 + "{}" + "}" * 255)),
]

#: Texts the strict profile rejects (SPEC §2.3): (name, text).
STRICT_REJECTS: list[tuple[str, str]] = [
    ("duplicate member name", '{"a":1,"a":2}'),
    ("leading zero", "[01]"),
    ("raw control character in a string", '["a\x01b"]'),
    ("fraction", "[1.0]"),
    ("exponent", "[1e2]"),
    ("unsafe integer", "[9007199254740993]"),
    ("NaN", "[NaN]"),
    ("lone surrogate escape", '["\\ud800"]'),
    ("trailing comma", "[1,]"),
]


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _exact_text(value: object) -> str:
    """A text that differs whenever two parsed values differ in type, value or member order."""
    return json.dumps(value, ensure_ascii=False, allow_nan=True)


def _ujson_canon(value: object) -> str:
    return ujson.dumps(value, **UJSON_CANON_OPTIONS)


def _timed(function: Callable[[Any], object], items: list[Any], repeat: int) -> dict[str, float]:
    """Median and fastest of ``repeat`` passes of ``function`` over ``items``, in ms."""
    passes = []
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        for item in items:
            function(item)
        passes.append(time.perf_counter() - started)
    return {"medianMs": round(statistics.median(passes) * 1000, 3), "minMs": round(min(passes) * 1000, 3)}


def _compare(
    name: str, items: list[Any], baseline: Callable[[Any], object], candidate: Callable[[Any], object], repeat: int
) -> dict[str, object]:
    """Time ``baseline`` then ``candidate`` over ``items``, twice; the lower median of each."""
    base = _timed(baseline, items, repeat)
    cand = _timed(candidate, items, repeat)
    base2 = _timed(baseline, items, repeat)
    cand2 = _timed(candidate, items, repeat)
    base_ms = min(base["medianMs"], base2["medianMs"])
    cand_ms = min(cand["medianMs"], cand2["medianMs"])
    return {
        "what": name,
        "items": len(items),
        "baselineMedianMs": base_ms,
        "ujsonMedianMs": cand_ms,
        "speedup": round(base_ms / cand_ms, 2) if cand_ms else None,
    }


def check_vectors() -> list[dict[str, object]]:
    """Canon against the SPEC digests, and ujson's bytes against canon's, per vector."""
    rows: list[dict[str, object]] = []
    for number, value, digest in SPEC_VECTORS:
        text = canon(value)
        rows.append(
            {
                "vector": f"SPEC §3.5 #{number}",
                "canonMatchesSpec": raw_digest(text) == digest,
                "ujsonIdentical": _ujson_canon(value).encode("utf-8") == text.encode("utf-8"),
            }
        )
    for name, value in EXTRA_VECTORS:
        rows.append(
            {
                "vector": name,
                "canonMatchesSpec": None,
                "ujsonIdentical": _ujson_canon(value).encode("utf-8") == canon(value).encode("utf-8"),
            }
        )
    return rows


def check_strictness() -> list[dict[str, object]]:
    """For each strict-profile reject: what parse_text reports and what ujson.loads returns."""
    rows: list[dict[str, object]] = []
    for name, text in STRICT_REJECTS:
        try:
            parsed = parse_text(text)
            record = f"{len(parsed.violations)} violation(s): " + ", ".join(v.rule for v in parsed.violations)
        except JsonGrammarError as exc:
            record = f"grammar violation {exc.rule}"
        try:
            fast: str = repr(ujson.loads(text))
        except ValueError as exc:
            fast = f"raises {type(exc).__name__}"
        rows.append({"text": name, "parserOfRecord": record, "ujsonLoads": fast})
    return rows


def _bundle_values(document: dict[str, Any]) -> dict[str, list[Any]]:
    """The values the evaluator canonicalises, grouped by shape."""
    receipts: list[Any] = []
    embedded_receipts: list[Any] = []
    requests: list[Any] = []
    identities: list[Any] = []
    observations: list[Any] = []
    for case in document.get("cases", []):
        evidence = case.get("structuralEvidence")
        if not isinstance(evidence, dict):
            continue
        receipt = evidence.get("receipt")
        if isinstance(receipt, dict):
            receipts.append(receipt)
            requests.append(receipt.get("request"))
            identities.extend(
                e["identity"] for e in receipt.get("evidence", []) if isinstance(e, dict) and "identity" in e
            )
        if "expectedRequest" in evidence:
            requests.append(evidence["expectedRequest"])
        observation = evidence.get("executionObservation")
        if isinstance(observation, dict):
            observations.append(observation)
            text = observation.get("rawEvidence", {}).get("receiptJson")
            if isinstance(text, str):
                embedded_receipts.append(json.loads(text))
    return {
        "receipts": receipts,
        "receiptJson values": embedded_receipts,
        "requests": requests,
        "evidence identities": identities,
        "execution observations": observations,
    }


def probe_scale(scale: str, path: Path, repeat: int, whole_document_canon: bool) -> dict[str, object]:
    """Correctness and timings of both uses on one input."""
    data = path.read_bytes()
    text = data.decode("utf-8")
    document = json.loads(text)
    texts = list(embedded_texts(document))
    result: dict[str, object] = {
        "scale": scale,
        "input": path.name,
        "inputBytes": len(data),
        "inputSha256": hashlib.sha256(data).hexdigest(),
        "embeddedTexts": len(texts),
    }

    # 1. Parsing: same values?
    mismatched = [i for i, t in enumerate([text, *texts]) if _exact_text(json.loads(t)) != _exact_text(ujson.loads(t))]
    result["loadsIdentical"] = {"texts": len(texts) + 1, "mismatched": len(mismatched)}
    _log(f"probe: {scale}: loads compared on {len(texts) + 1} texts, {len(mismatched)} mismatched; timing …")
    result["loads"] = [
        _compare("whole file: json.loads vs ujson.loads", [text], json.loads, ujson.loads, repeat),
        _compare("embedded texts: json.loads vs ujson.loads", texts, json.loads, ujson.loads, repeat),
        _compare("whole file: strictjson.parse_text vs ujson.loads", [text], parse_text, ujson.loads, repeat),
        _compare("embedded texts: strictjson.parse_text vs ujson.loads", texts, parse_text, ujson.loads, repeat),
    ]

    # 2. Canonical text: byte-identical?
    groups = _bundle_values(document)
    identical: dict[str, dict[str, int]] = {}
    for name, values in groups.items():
        differing = sum(1 for v in values if _ujson_canon(v).encode("utf-8") != canon(v).encode("utf-8"))
        identical[name] = {"values": len(values), "differing": differing}
    if whole_document_canon:
        identical["whole input"] = {"values": 1, "differing": int(_ujson_canon(document) != canon(document))}
    result["canonIdentical"] = identical
    _log(f"probe: {scale}: canonical text compared ({identical}); timing …")
    result["canon"] = [
        _compare(f"{name}: canon vs ujson.dumps", values, canon, _ujson_canon, repeat)
        for name, values in groups.items()
        if name in {"receiptJson values", "evidence identities", "execution observations"}
    ]
    return result


#: Run in a child (cwd = repository root): ``ablation run`` with canon's encoder timed,
#: as it is (argv[1] == "json") or replaced by ujson.dumps (argv[1] == "ujson").
_END_TO_END = """
import hashlib, json, os, sys, tempfile, time
sys.path.insert(0, os.getcwd())
import ablation.canonical as canonical
from ablation import cli
mode, path, sha256 = sys.argv[1:4]
spent = [0.0, 0]
if mode == "ujson":
    import ujson
    options = json.loads(sys.argv[4])
    encode = lambda value: ujson.dumps(value, **options)
else:
    encode = canonical._canon_encoder.encode
class Timed:
    def encode(self, value):
        started = time.perf_counter()
        try:
            return encode(value)
        finally:
            spent[0] += time.perf_counter() - started
            spent[1] += 1
canonical._canon_encoder = Timed()
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "results.json")
    started = time.perf_counter()
    code = cli.main(["run", "--input", path, "--input-sha256", sha256, "--output", out])
    wall = time.perf_counter() - started
    digest = hashlib.sha256(open(out, "rb").read()).hexdigest() if code == 0 else None
print(json.dumps({"exit": code, "wallS": wall, "canonS": spent[0], "canonCalls": spent[1], "outputSha256": digest}))
"""


def end_to_end(scale: str, path: Path, runs: int) -> dict[str, object]:
    """``ablation run`` with canon timed, with the standard encoder and with ujson, interleaved."""
    sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
    samples: dict[str, list[dict[str, Any]]] = {"json": [], "ujson": []}
    for i in range(runs):
        for mode in samples:
            argv = [sys.executable, "-c", _END_TO_END, mode, str(path), sha256, json.dumps(UJSON_CANON_OPTIONS)]
            done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                msg = f"end-to-end run ({mode}) exited {done.returncode}: {done.stderr[-2000:]}"
                raise RuntimeError(msg)
            sample = json.loads(done.stdout.strip().splitlines()[-1])
            samples[mode].append(sample)
            _log(
                f"probe: {scale} run {i + 1}/{runs} with canon by {mode}: {sample['wallS']:.2f} s wall, "
                f"{sample['canonS']:.3f} s in canon ({sample['canonCalls']} calls)"
            )
    summary: dict[str, object] = {"scale": scale, "runs": runs}
    for mode, rows in samples.items():
        summary[mode] = {
            "wallMedianS": round(statistics.median(r["wallS"] for r in rows), 3),
            "canonMedianS": round(statistics.median(r["canonS"] for r in rows), 3),
            "canonCalls": rows[0]["canonCalls"],
            "outputSha256": sorted({r["outputSha256"] for r in rows}),
        }
    summary["outputsIdentical"] = len({r["outputSha256"] for rows in samples.values() for r in rows}) == 1
    return summary


def _print_report(report: dict[str, Any]) -> None:
    print(
        f"ujson {report['ujson']}, Python {report['python']}; load average "
        f"{' '.join(map(str, report['loadAverage']['before']))} before, "
        f"{' '.join(map(str, report['loadAverage']['after']))} after"
    )
    print("\ncanonical text, vectors (ujson.dumps byte-identical to canon):")
    for row in report["vectors"]:
        spec = "" if row["canonMatchesSpec"] is None else f"  canon = SPEC digest: {row['canonMatchesSpec']}"
        print(f"  {row['vector']:<72} {'identical' if row['ujsonIdentical'] else 'DIFFERS'}{spec}")
    print("\nstrict-profile rejects (what a fast path would have to notice):")
    for row in report["strictness"]:
        print(f"  {row['text']:<36} parser of record: {row['parserOfRecord']:<34} ujson.loads: {row['ujsonLoads']}")
    for scale in report["scales"]:
        print(f"\nscale {scale['scale']}: {scale['inputBytes']:,} bytes, {scale['embeddedTexts']} embedded texts")
        li = scale["loadsIdentical"]
        print(f"  loads: json and ujson values identical on {li['texts'] - li['mismatched']}/{li['texts']} texts")
        for name, c in scale["canonIdentical"].items():
            print(f"  canon: ujson.dumps identical on {c['values'] - c['differing']}/{c['values']} {name}")
        print(f"  {'what':<62} {'items':>6} {'baseline ms':>12} {'ujson ms':>10} {'speed-up':>9}")
        for row in [*scale["loads"], *scale["canon"]]:
            print(
                f"  {row['what']:<62} {row['items']:>6} {row['baselineMedianMs']:>12.1f} "
                f"{row['ujsonMedianMs']:>10.1f} {row['speedup']:>8.2f}x"
            )
    print(f"\nmedians of {report['repeat']} passes (the lower of two interleaved rounds); speed-up = baseline / ujson.")
    e2e = report.get("endToEnd")
    if e2e:
        j, u = e2e["json"], e2e["ujson"]
        print(
            f"\nend to end, ablation run at {e2e['scale']} (medians of {e2e['runs']} runs each, in-process wall time):"
        )
        print(
            f"  canon by json.JSONEncoder: {j['canonMedianS']:.3f} s in canon ({j['canonCalls']} calls) "
            f"of {j['wallMedianS']:.2f} s ({100 * j['canonMedianS'] / j['wallMedianS']:.1f} %)"
        )
        print(
            f"  canon by ujson.dumps:      {u['canonMedianS']:.3f} s in canon of {u['wallMedianS']:.2f} s; "
            f"saved in canon {j['canonMedianS'] - u['canonMedianS']:.3f} s "
            f"({100 * (j['canonMedianS'] - u['canonMedianS']) / j['wallMedianS']:.1f} % of the run)"
        )
        print(f"  output files byte-identical across all runs: {e2e['outputsIdentical']}")


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--scales", default="M,L", help="comma-separated scales (default M,L)")
    parser.add_argument("--repeat", type=int, default=7, help="timed passes per measurement (default 7)")
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "ujson_probe.json")
    parser.add_argument("--data-dir", type=Path, default=ROOT / "benchmarks" / "data")
    parser.add_argument(
        "--end-to-end-runs",
        type=int,
        default=3,
        help="ablation run at the largest scale, per encoder (default 3; 0 skips it)",
    )
    args = parser.parse_args(argv)
    args.scales = [s.strip().upper() for s in args.scales.split(",") if s.strip()]
    if not args.scales or any(s not in {"S", "M", "L"} for s in args.scales):
        parser.error("--scales: a comma-separated subset of S,M,L")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    """Command line; 2 when ujson is not installed."""
    args = _parse_args(argv)
    if ujson is None:
        print(
            "ujson_probe: ujson is not installed here; it is pinned in requirements.lock "
            "(use .venv-dev/bin/python, or pip install ujson)",
            file=sys.stderr,
        )
        return 2
    load_before = os.getloadavg()
    report: dict[str, Any] = {
        "schema": "ablation-ujson-probe/1",
        "ujson": ujson.__version__,
        "python": platform.python_version(),
        "repeat": args.repeat,
        "ujsonCanonOptions": UJSON_CANON_OPTIONS,
        "vectors": check_vectors(),
        "strictness": check_strictness(),
        "scales": [],
    }
    for scale in args.scales:
        path = ensure_input(scale, args.data_dir.resolve())
        report["scales"].append(probe_scale(scale, path, args.repeat, whole_document_canon=scale == "M"))
        gc.collect()
    if args.end_to_end_runs > 0:
        largest = max(args.scales, key="SML".index)
        report["endToEnd"] = end_to_end(largest, args.data_dir.resolve() / f"{largest}.json", args.end_to_end_runs)
    report["loadAverage"] = {
        "before": [round(x, 2) for x in load_before],
        "after": [round(x, 2) for x in os.getloadavg()],
    }
    _print_report(report)
    json_path: Path = args.json
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {json_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
