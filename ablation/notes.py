"""Review notes: a Markdown draft for the independent reviewer, from one results file.

The draft starts with what to cite (input, results, bundle and bundle-content
digests, evaluator identity, the image ID as asserted, the signature), then
the signature's status (checked with ``--public-key`` as ``verify-archive``
does), the container image (asserted; both IDs and a warning when
``--image-digest`` disagrees with the results file) and the digests with their
basis. It shows the populations with their denominators, the per-repository
figures of every pairwise treatment (each with a Mermaid ``xychart-beta``
whose syntax holds only our labels ``r0``, ``r1``, … and numbers; the tables
stay the authority) and of the all-four intersection, the adoption gates with
their exact fractions, staleness rates, structural availability, cost
disclosure and the protocol's limitations, and ends with an owner-decision
section that is left empty: ``ablation`` never makes or suggests the
ADOPT / REFINE / REJECT decision (preregistration gate 8; issue 5).

The text depends only on the results file and the arguments: no dates, no
environment. Exact figures are :class:`fractions.Fraction` values computed from
the integer counts the results file records (hits, selections, omissions, case
counts) or copied from ``gateAssessment``'s ``exact`` strings; never from the
floats in ``result``; decimals beside them are rounded to 4 places.

The results file is read as the bundle verifier reads a bundled one (:mod:`ablation.results_file`: JSON,
nesting, shape, its own evaluator digest) and the values computed with are
checked first (:func:`figures_problem`): a file that is not what ``ablation
run`` writes is one line naming where, never a traceback. Recorded values that
are not strings are shown in their JSON spelling (``null``, ``true``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ablation.canonical import js_number, sha256_hex
from ablation.errors import IntegrityError, UsageError
from ablation.gates import exact_text
from ablation.output import read_file
from ablation.results_file import check_input_hashes, load_results
from ablation.strictjson import MAX_SAFE_INTEGER, child

__all__ = ["Signature", "build_notes", "figures_problem", "image_warning", "render_notes"]

_ARMS = ("paths", "source_list", "structural", "fusion")
_TREATMENTS = ("source_list", "structural", "fusion")
_FAILURE_PREFIX = "structural_evidence_validation_failed:"
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]*")
_NONE = "—"
# A gateAssessment ``exact`` string as ablation writes it: an integer or n/d with d > 0.
_FRACTION = re.compile(r"-?(?:0|[1-9][0-9]{0,399})(?:/[1-9][0-9]{0,399})?")
_METRIC_LISTS = ("selected", "omittedTruth", "unnecessary")

Json = object


# ------------------------------------------------------------------ formatting


# Every string that comes from a results file, a bundle or a flag is rendered inert (issue 11 item 5):
# prose and table cells escape Markdown and HTML (:func:`_text`), code spans use a
# fence longer than any backtick run inside (:func:`_code`), and control or
# bidirectional-formatting characters are replaced by visible stand-ins (:func:`_visible`).
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}
# Escaped only where they could start a construct: "_" unless between letters or digits (CommonMark
# never reads an intraword "_" as emphasis), ":" in "://" (an autolink), "." after "www" (GFM's www autolink).
_ESCAPED = re.compile(r"[\\`*\[\]{}#!|~$@]|(?<![^\W_])_|_(?![^\W_])|:(?=//)|(?<=[Ww]{3})\.|[&<>\"]")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
_BACKTICKS = re.compile(r"`+")
_PIPE = re.compile(r"(\\*)\|")


def _visible(text: str) -> str:
    r"""``text`` with control characters as Unicode control pictures (U+2400…) and
    bidirectional or line-separating format characters as U+FFFD: nothing in a
    value can break a line, a table row or the reading order of the text around it.

    >>> _visible("a\nb\x1b[0m\u202e")
    'a␊b␛[0m�'
    """

    def picture(match: re.Match[str]) -> str:
        c = ord(match.group())
        if c < 0x20:
            return chr(0x2400 + c)
        return "\u2421" if c == 0x7F else "\ufffd"

    return _CONTROL.sub(picture, text)


def _escape(text: str) -> str:
    r"""Markdown and HTML made literal: entities for ``& < > "``, a backslash before Markdown punctuation.

    >>> _escape('**x** <img src=x> [a](https://e.invalid/) `c` # _y_ a&b')
    '\\*\\*x\\*\\* &lt;img src=x&gt; \\[a\\](https\\://e.invalid/) \\`c\\` \\# \\_y\\_ a&amp;b'
    """
    return _ESCAPED.sub(lambda m: _HTML.get(m.group()) or "\\" + m.group(), text)


def _pipes_escaped(text: str) -> str:
    r"""``|`` escaped for a GFM table cell inside a code span: an odd number of backslashes before it.

    GFM splits a row at every pipe not escaped by a backslash, code spans
    included, and then removes that one backslash.

    >>> _pipes_escaped("a|b"), _pipes_escaped("a\\|b")
    ('a\\|b', 'a\\\\\\|b')
    """
    return _PIPE.sub(lambda m: m.group(1) + ("\\" if len(m.group(1)) % 2 == 0 else "\\\\") + "|", text)


def _code(value: object, *, cell: bool = True) -> str:
    """A value as one inline code span that nothing inside can close or break.

    Strings as they are (control characters made visible), anything else in
    its JSON spelling. The fence is one backtick longer than the longest run
    inside; content that starts or ends with a backtick is padded with a
    space (CommonMark strips one). ``cell``: the span is in a table cell, so
    pipes are escaped (:func:`_pipes_escaped`). An empty string is ``(empty)``.

    >>> _code("sha256:ab"), _code("a`b"), _code("`x``"), _code(None), _code("")
    ('`sha256:ab`', '``a`b``', '``` `x`` ```', '`null`', '(empty)')
    """
    text = _visible(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if text == "":
        return "(empty)"
    if cell:
        text = _pipes_escaped(text)
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(text)), default=0) + 1)
    padded = text[0] == "`" or text[-1] == "`" or (text[0] == " " and text[-1] == " " and text.strip(" ") != "")
    pad = " " if padded else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _name(value: object, *, cell: bool = True) -> str:
    """An id or other string as inline code; anything unusual is shown as a JSON string.

    >>> _name("dspx"), _name("a b|c"), _name("x`y")
    ('`dspx`', '`"a b\\\\|c"`', '``"x`y"``')
    """
    if isinstance(value, str) and _PLAIN.fullmatch(value):
        return f"`{value}`"
    return _code(json.dumps(value, ensure_ascii=False), cell=cell)


def _text(value: object) -> str:
    """Free text for prose or a table cell: whitespace collapsed, Markdown and HTML escaped.

    Other values are shown as :func:`_value`.

    >>> _text("a\\n\\n<b>  *c*|d")
    'a &lt;b&gt; \\\\*c\\\\*\\\\|d'
    """
    if not isinstance(value, str):
        return _value(value)
    return _escape(_visible(" ".join(value.split())))


def _value(value: object) -> str:
    """A recorded value for the text: strings as :func:`_text`, anything else in its JSON spelling.

    >>> _value(None), _value(True), _value(3), _value(0.5), _value("a  b"), _value([1, None])
    ('null', 'true', '3', '0.5', 'a b', '\\\\[1, null\\\\]')
    """
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, float):
        return js_number(value)
    if isinstance(value, dict | list):
        return _text(json.dumps(value, ensure_ascii=False))
    return json.dumps(value)


def _exact(value: Fraction | None) -> str:
    """A fraction in lowest terms, sign on the numerator (:func:`ablation.gates.exact_text`); ``—`` for none.

    >>> _exact(Fraction(-2, 4)), _exact(Fraction(3)), _exact(None)
    ('-1/2', '3', '—')
    """
    if value is None:
        return _NONE
    try:
        return exact_text(value)
    except ValueError:  # more digits than Python converts to text
        return "(a fraction too long to print)"


def _decimal(value: Fraction | None) -> str:
    """``value`` rounded to 4 decimal places (half to even, from the exact value), ``≈`` when that changed it.

    A value that 4 places hold exactly is shown without trailing zeros.

    >>> _decimal(Fraction(5, 33)), _decimal(Fraction(3, 10)), _decimal(Fraction(-1, 8)), _decimal(Fraction(2))
    ('≈0.1515', '0.3', '-0.125', '2')
    >>> _decimal(Fraction(1, 30000)), _decimal(Fraction(-1, 30000)), _decimal(None)
    ('≈0.0000', '≈0.0000', '—')
    """
    if value is None:
        return _NONE
    scaled = round(value * 10000)
    whole, places = divmod(abs(scaled), 10000)
    try:
        text = f"{'-' if scaled < 0 else ''}{whole}.{places:04d}"
    except ValueError:  # more digits than Python converts to text
        return "(a number too long to print)"
    if Fraction(scaled, 10000) == value:
        return text.rstrip("0").rstrip(".")
    return "≈" + text


def _approx(value: Fraction | None) -> str:
    """An exact fraction first, then its decimal to 4 places (:func:`_decimal`), e.g. ``5/33 (≈0.1515)``.

    >>> _approx(Fraction(5, 33)), _approx(Fraction(3, 10)), _approx(Fraction(2))
    ('5/33 (≈0.1515)', '3/10 (0.3)', '2')
    """
    if value is None:
        return _NONE
    exact = _exact(value)
    if value.denominator == 1:
        return exact
    return f"{exact} ({_decimal(value)})"


def _repositories_text(n: int) -> str:
    """``1 repository`` / ``2 repositories``."""
    return f"{n} repository" if n == 1 else f"{n} repositories"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _get(value: object, *path: str | int) -> object:
    """Follow ``path`` through dicts and lists; ``None`` where it does not exist."""
    for key in path:
        if isinstance(value, dict) and isinstance(key, str):
            value = value.get(key)
        elif isinstance(value, list) and isinstance(key, int) and 0 <= key < len(value):
            value = value[key]
        else:
            return None
    return value


def _array(value: object) -> list[object]:
    """``value`` when it is an array, else no elements."""
    return value if isinstance(value, list) else []


def _measured_exact(value: object) -> Fraction | None:
    """A ``gateAssessment`` quantity ``{"exact": "n/d", …}`` as a Fraction; ``None`` when it is not one.

    >>> _measured_exact({"exact": "-2/4"}), _measured_exact({"exact": "1/0"}), _measured_exact(None)
    (Fraction(-1, 2), None, None)
    """
    exact = _get(value, "exact")
    if not isinstance(exact, str) or _FRACTION.fullmatch(exact) is None:
        return None
    return Fraction(exact)


# ------------------------------------------------------------------- figures


class _Rates:
    """Exact per-repository means of one arm over a list of cases (from the recorded counts)."""

    def __init__(self, metrics: Sequence[Mapping[str, object]]) -> None:
        n = len(metrics)
        self.cases = n
        precisions = []
        recalls = []
        unnecessary = 0
        omissions = 0
        for m in metrics:
            hits = int(m["hits"])  # type: ignore[call-overload]  # a metrics object checked by figures_problem
            selected = len(m["selected"])  # type: ignore[arg-type]  # a metrics object checked by figures_problem
            omitted = len(m["omittedTruth"])  # type: ignore[arg-type]  # a metrics object checked by figures_problem
            precisions.append(Fraction(hits, selected) if selected else Fraction(0))
            recalls.append(Fraction(hits, hits + omitted) if hits + omitted else Fraction(0))
            unnecessary += len(m["unnecessary"])  # type: ignore[arg-type]  # a metrics object checked by figures_problem
            omissions += omitted
        self.precision = sum(precisions, Fraction(0)) / n if n else None
        self.recall = sum(recalls, Fraction(0)) / n if n else None
        self.unnecessary = Fraction(unnecessary, n) if n else None
        self.omissions = Fraction(omissions, n) if n else None


def _mean(values: Sequence[Fraction | None]) -> Fraction | None:
    present = [v for v in values if v is not None]
    return sum(present, Fraction(0)) / len(present) if present else None


def _delta(a: Fraction | None, b: Fraction | None) -> Fraction | None:
    return None if a is None or b is None else b - a


def _reduction(paths: Fraction | None, treatment: Fraction | None) -> str:
    if paths is None or treatment is None:
        return _NONE
    if paths <= 0:
        return "not demonstrated (paths baseline 0)"
    return _approx((paths - treatment) / paths)


class _Results:
    """Typed access to the parts of a recorded results file the notes need."""

    def __init__(self, recorded: Mapping[str, object]) -> None:
        self.recorded = recorded
        result = recorded.get("result")
        self.result = result if isinstance(result, dict) else {}
        cases = self.result.get("cases")
        self.cases = [c for c in cases if isinstance(c, dict)] if isinstance(cases, list) else []
        self.case_by_id = {c.get("id"): c for c in self.cases if isinstance(c.get("id"), str)}
        repositories = self.result.get("repositories")
        self.repositories = [r for r in repositories if isinstance(r, dict)] if isinstance(repositories, list) else []
        gates = _get(recorded, "gateAssessment", "gates")
        self.gates = {g["id"]: g for g in _array(gates) if isinstance(g, dict) and isinstance(g.get("id"), str)}

    def rates(self, case_ids: object, arm: str) -> _Rates:
        metrics = []
        for case_id in _array(case_ids):
            if not isinstance(case_id, str):
                continue
            m = _get(self.case_by_id.get(case_id), "arms", arm, "metrics")
            if isinstance(m, dict):
                metrics.append(m)
        return _Rates(metrics)

    def cases_of(self, repository_id: object) -> int:
        return sum(1 for c in self.cases if c.get("repositoryId") == repository_id)


# ------------------------------------------------------------------- sections


@dataclass(frozen=True, slots=True)
class Signature:
    """What ``notes`` knows of a bundle's signature (from :func:`ablation.bundle.bundled.check_signature`).

    Attributes:
        status: ``verified``, ``unchecked`` (signed, no public key given) or ``absent``.
        fingerprint: ``sha256:<hex>`` of the public key's DER SubjectPublicKeyInfo, when one was given.
    """

    status: str
    fingerprint: str | None = None


def _recorded_image(r: _Results) -> object:
    return _get(r.recorded.get("evaluator"), "asserted", "imageDigest")


def _image_disagrees(r: _Results, image_digest: str | None) -> bool:
    recorded = _recorded_image(r)
    return image_digest is not None and recorded is not None and recorded != image_digest


def _cite(
    r: _Results,
    results_sha256: str,
    bundle: tuple[str, str] | None,
    signature: Signature | None,
    image_digest: str | None,
) -> list[str]:
    """The digests a reviewer cites, each in one row (issue 12 item 4); their basis follows in "Digests"."""
    rec = r.recorded
    pinned = "pinned by the run" if rec.get("inputSha256Pinned") is True else "**computed only, not pinned**"
    rows = [["Prepared input SHA-256 (JSON bytes)", f"{_code(rec.get('inputSha256'))} ({pinned})"]]
    if "inputGzipSha256" in rec:
        rows.append(["Prepared input file SHA-256 (the .json.gz)", _code(rec["inputGzipSha256"])])
    rows.append(["Results file SHA-256", _code(results_sha256)])
    if bundle is None:
        rows += [
            ["Evidence bundle SHA-256", "no bundle given (`--bundle`)"],
            ["Bundle content SHA-256 (of `SHA256SUMS`)", "no bundle given (`--bundle`)"],
        ]
    else:
        rows += [
            ["Evidence bundle SHA-256", _code(bundle[0])],
            ["Bundle content SHA-256 (of `SHA256SUMS`)", _code(bundle[1])],
        ]
    rows.append(["Evaluator identityDigest", _code(_get(rec.get("evaluator"), "identityDigest"))])
    recorded = _recorded_image(r)
    if _image_disagrees(r, image_digest):
        image = (
            f"{_code(recorded)} (asserted by the run); `--image-digest` says {_code(image_digest)}: "
            '**they differ**, see "Container image"'
        )
    elif recorded is not None:
        image = f"{_code(recorded)} (asserted by the run, not measured)"
    elif image_digest is not None:
        image = f"{_code(image_digest)} (asserted by `--image-digest`, not measured)"
    else:
        image = "not recorded (the run was not made in the container image)"
    rows.append(["Container image ID", image])
    rows.append(["Bundle signature", _signature_status(signature)])
    return ["## What to cite", "", *_table(["What", "Value"], rows)]


def _signature_status(signature: Signature | None) -> str:
    if signature is None:
        return "no bundle given (`--bundle`)"
    if signature.status == "verified":
        return f"verified with the public key {_code(signature.fingerprint)}"
    if signature.status == "unchecked":
        return "present, **not checked** (no `--public-key` given)"
    return "none (the bundle is not signed)"


def _signature(signature: Signature | None) -> list[str]:
    lines = ["## Signature", ""]
    if signature is None:
        lines.append("No bundle was given (`--bundle`), so there is no signature to report.")
    elif signature.status == "verified":
        lines.append(
            f"`SHA256SUMS.sig` is a valid Ed25519 signature over `SHA256SUMS` by the public key whose fingerprint "
            f"(SHA-256 of its DER SubjectPublicKeyInfo) is {_code(signature.fingerprint, cell=False)}. Compare it "
            "with the fingerprint from a trusted source: a signature proves only that the holder of that key "
            "signed `SHA256SUMS`, which names every file of the bundle by its SHA-256."
        )
    elif signature.status == "unchecked":
        lines.append(
            "The bundle holds `SHA256SUMS.sig`, which was **not checked**: no public key was given. Check it with "
            "`ablation notes --public-key P` or `ablation verify-archive --public-key P`."
        )
    else:
        lines.append("The bundle is **not signed** (it holds no `SHA256SUMS.sig`); its digests are not tied to a key.")
    return lines


def _image(r: _Results, image_digest: str | None) -> list[str]:
    recorded = _recorded_image(r)
    base = _get(r.recorded.get("evaluator"), "asserted", "baseImage")
    at_run = "**asserted** at run time (`evaluator.asserted.{}`); ablation did not measure or verify it"
    rows = []
    if recorded is not None:
        rows.append(["Image ID (results file)", _code(recorded), at_run.format("imageDigest")])
    if image_digest is not None and image_digest != recorded:
        by_caller = "**asserted** by the caller of `ablation notes`; ablation did not measure or verify it"
        rows.append(["Image ID (`--image-digest`)", _code(image_digest), by_caller])
    if not rows:
        rows.append(
            [
                "Image ID",
                "not recorded",
                "the run was not made in the container image, and no `--image-digest` was given",
            ]
        )
    rows.append(
        [
            "Base image",
            "not recorded" if base is None else _code(base),
            at_run.format("baseImage") if base is not None else "nothing was asserted",
        ]
    )
    lines = ["## Container image", "", *_table(["What", "Value", "Basis"], rows)]
    if _image_disagrees(r, image_digest):
        lines += [
            "",
            f"**Warning:** `--image-digest` {_code(image_digest, cell=False)} differs from the image ID the "
            f"results file records, {_code(recorded, cell=False)}. The run did not record the image you named: "
            "cite the recorded one, or find out which image made the results.",
        ]
    return lines


def _digests(r: _Results, results_sha256: str, bundle: tuple[str, str] | None) -> list[str]:
    rec = r.recorded
    pinned = rec.get("inputSha256Pinned") is True
    rows = [
        [
            "Prepared input (SHA-256 of the JSON bytes that were parsed)",
            _code(rec.get("inputSha256")),
            "pinned: the run was given this hash and it matched"
            if pinned
            else "computed only: the run was **not** bound to a preregistered hash; "
            "compare it with the preregistration record",
        ]
    ]
    if "inputGzipSha256" in rec:
        rows.append(
            ["Prepared input file (SHA-256 of the .json.gz)", _code(rec["inputGzipSha256"]), "measured by the run"]
        )
    rows.append(["Results file (SHA-256 of its bytes)", _code(results_sha256), "measured by `ablation notes`"])
    if bundle is None:
        rows.append(
            ["Evidence bundle (SHA-256)", "not given", "run `ablation archive`, then `ablation notes --bundle`"]
        )
    else:
        rows.append(
            [
                "Evidence bundle (SHA-256)",
                _code(bundle[0]),
                "measured by `ablation notes`; the bundle's results.json is this results file; "
                "check it with `ablation verify-archive`",
            ]
        )
        rows.append(
            [
                "Bundle content (SHA-256 of `SHA256SUMS`)",
                _code(bundle[1]),
                "measured by `ablation notes`: names what the bundle holds, whatever its compression",
            ]
        )
    evaluator = rec.get("evaluator")
    rows.append(
        [
            "Evaluator identityDigest",
            _code(_get(evaluator, "identityDigest")),
            "measured by the run: canonical digest of `evaluator.measured`",
        ]
    )
    closure = _get(evaluator, "measured", "closure", "state")
    manifest = _get(evaluator, "measured", "closure", "manifestDigest")
    rows.append(
        [
            "Evaluator closure",
            f"{_text(closure)}" + (f", manifest {_code(manifest)}" if manifest else ""),
            "measured by the run; `unsealed` means a development checkout, not a sealed build",
        ]
    )
    lock = _get(evaluator, "measured", "lock", "sha256")
    rows.append(["Dependency lock (SHA-256)", _code(lock) if lock else "none", "measured by the run"])
    return ["## Digests", "", *_table(["What", "Value", "Basis"], rows)]


def _repositories(r: _Results) -> list[str]:
    rows = []
    pins = []
    for repo in r.repositories:
        items = repo.get("candidateCount")
        present = repo.get("metadataPresentCount")
        coverage = Fraction(present, items) if isinstance(items, int) and isinstance(present, int) and items else None
        rows.append(
            [
                _name(repo.get("id")),
                _code(repo.get("commit")),
                _value(items),
                _value(repo.get("trackedPathCount")),
                _value(present),
                _approx(coverage),
                "yes" if repo.get("sourceListEligible") else "no (ineligible control)",
                str(r.cases_of(repo.get("id"))),
            ]
        )
        pins.append(
            [
                _name(repo.get("id")),
                _code(repo.get("rawSourceListArtifactSha256")),
                _code(repo.get("sourceListPreparationObservationDigest")),
                _code(repo.get("sourceListRevision")),
                _code(repo.get("sourceListExecutableArtifactSha256")),
            ]
        )
    return [
        "## Repositories",
        "",
        *_table(
            [
                "Repository",
                "Commit",
                "Candidates",
                "Tracked paths",
                "Metadata present",
                "Coverage (exact)",
                "source_list eligible (≥ 3/5)",
                "Cases",
            ],
            rows,
        ),
        "",
        "Owner-artifact digests and pins as recorded in the prepared input (claims, not authenticated):",
        "",
        *_table(
            [
                "Repository",
                "Raw source-list artifact",
                "Preparation observation",
                "source-list revision",
                "source-list executable",
            ],
            pins,
        ),
    ]


def _populations(r: _Results) -> list[str]:
    availability = r.result.get("availability")
    rows = []
    for arm in _ARMS:
        counts = _get(availability, arm)
        rows.append([f"`{arm}`", *(_value(_get(counts, k)) for k in ("eligible", "available", "unavailable"))])
    pop_rows = []
    for treatment in _TREATMENTS:
        pairwise = _get(r.result, "pairwise", treatment)
        pop_rows.append(_population_row(f"paths ∩ `{treatment}`", pairwise))
    pop_rows.append(_population_row("all four arms", r.result.get("allFour")))
    return [
        "## Populations and denominators",
        "",
        "Arm availability over all cases:",
        "",
        *_table(["Arm", "Eligible cases", "Available cases", "Unavailable cases"], rows),
        "",
        "Each treatment is compared with `paths` only on the cases where both are eligible and available; "
        "the all-four intersection is reported separately. Denominators as recorded in `result`:",
        "",
        *_table(
            [
                "Population",
                "Eligible repositories",
                "Available repositories",
                "Eligible cases",
                "Available cases",
                "Repositories in the equal-repository mean",
            ],
            pop_rows,
        ),
    ]


def _population_row(label: str, population: object) -> list[str]:
    d = _get(population, "denominators")
    macro = _get(population, "equalRepositoryMacro", "repositoryCount")
    return [
        label,
        *(
            _value(_get(d, k))
            for k in ("eligibleRepositoryCount", "availableRepositoryCount", "eligibleCaseCount", "availableCaseCount")
        ),
        _value(macro),
    ]


def _pairwise(r: _Results, treatment: str, labels: Mapping[str, str]) -> list[str]:
    pairwise = _get(r.result, "pairwise", treatment)
    per_repository = _get(pairwise, "perRepository")
    per_repository = per_repository if isinstance(per_repository, dict) else {}
    lines = [f"### paths vs `{treatment}`", ""]
    rows = []
    means: list[tuple[_Rates, _Rates]] = []
    charted: list[tuple[str, _Rates, _Rates]] = []
    for repo_id, entry in per_repository.items():
        case_ids = _get(entry, "caseIds")
        base, other = r.rates(case_ids, "paths"), r.rates(case_ids, treatment)
        if base.cases:
            means.append((base, other))
            charted.append((labels[repo_id], base, other))
        rows.append(_pairwise_row(_name(repo_id), base, other))
    if not means:
        eligible = _get(pairwise, "denominators", "eligibleCaseCount")
        lines.append(
            f"No case is available for both `paths` and `{treatment}` ({_value(eligible)} eligible cases): "
            "the population is empty and there is nothing to compare."
        )
        return lines
    macro = _MacroRates([b for b, _ in means]), _MacroRates([o for _, o in means])
    rows.append(_pairwise_row(f"**equal-repository mean** ({_repositories_text(len(means))})", *macro))
    lines += [*_chart(treatment, charted), "", "The authority, exact:", ""]
    lines += _table(
        [
            "Repository",
            "Cases",
            "Precision paths",
            f"Precision {treatment}",
            "Δ precision",
            "Recall paths",
            f"Recall {treatment}",
            "Unnecessary/case paths",
            f"Unnecessary/case {treatment}",
            "Unnecessary reduction",
            "Omissions/case paths",
            f"Omissions/case {treatment}",
        ],
        rows,
    )
    return lines


def _chart_labels(r: _Results) -> dict[str, str]:
    """``r0``, ``r1``, … for every repository id in ``result`` (its repositories first, in recorded order).

    Only these labels, our own numbers and fixed words enter a chart's syntax; the ids are shown,
    escaped, in the legend table (issue 12 item 4).
    """
    ids: list[str] = [i for i in (repo.get("id") for repo in r.repositories) if isinstance(i, str)]
    for population in [*(_get(r.result, "pairwise", t) for t in _TREATMENTS), r.result.get("allFour")]:
        per_repository = _get(population, "perRepository")
        ids += list(per_repository) if isinstance(per_repository, dict) else []
    labels: dict[str, str] = {}
    for repo_id in ids:
        labels.setdefault(repo_id, f"r{len(labels)}")
    return labels


def _chart_number(value: Fraction | None) -> str:
    """A value for a chart: :func:`_decimal` without its ``≈`` (the chart says it rounds)."""
    return _decimal(value).removeprefix("≈")


def _chart(treatment: str, charted: Sequence[tuple[str, _Rates, _Rates]]) -> list[str]:
    """One Mermaid ``xychart-beta`` of per-repository precision and unnecessary files per case.

    Four lines over the repositories' labels: precision of ``paths`` and of the
    treatment, then unnecessary per case of each. Values are the exact
    per-repository figures rounded to 4 places; the y axis runs from 0 to the
    next whole number above the largest (at least 1).
    """
    series = [
        [c[1].precision for c in charted],
        [c[2].precision for c in charted],
        [c[1].unnecessary for c in charted],
        [c[2].unnecessary for c in charted],
    ]
    largest = max((v for line in series for v in line if v is not None), default=Fraction(0))
    top = max(1, math.ceil(largest))
    return [
        f"Per repository at a glance (lines in order: 1 precision of `paths`, 2 precision of `{treatment}`, "
        f"3 unnecessary files per case of `paths`, 4 of `{treatment}`; values rounded to 4 places; labels as in "
        "the legend above):",
        "",
        "```mermaid",
        "xychart-beta",
        f'    title "paths vs {treatment}: precision (lines 1, 2) and unnecessary per case (lines 3, 4)"',
        f"    x-axis [{', '.join(c[0] for c in charted)}]",
        f'    y-axis "per repository" 0 --> {top}',
        *(f"    line [{', '.join(_chart_number(v) for v in line)}]" for line in series),
        "```",
    ]


class _MacroRates:
    """Equal-repository means of per-repository rates (every repository weighs the same)."""

    def __init__(self, per_repository: Sequence[_Rates]) -> None:
        self.cases = sum(x.cases for x in per_repository)
        self.precision = _mean([x.precision for x in per_repository])
        self.recall = _mean([x.recall for x in per_repository])
        self.unnecessary = _mean([x.unnecessary for x in per_repository])
        self.omissions = _mean([x.omissions for x in per_repository])


def _pairwise_row(label: str, base: _Rates | _MacroRates, other: _Rates | _MacroRates) -> list[str]:
    if not base.cases:
        return [label, "0", *([_NONE] * 10)]
    return [
        label,
        str(base.cases),
        _approx(base.precision),
        _approx(other.precision),
        _approx(_delta(base.precision, other.precision)),
        _approx(base.recall),
        _approx(other.recall),
        _approx(base.unnecessary),
        _approx(other.unnecessary),
        _reduction(base.unnecessary, other.unnecessary),
        _approx(base.omissions),
        _approx(other.omissions),
    ]


def _all_four(r: _Results) -> list[str]:
    population = r.result.get("allFour")
    per_repository = _get(population, "perRepository")
    per_repository = per_repository if isinstance(per_repository, dict) else {}
    lines = ["### All four arms (the all-four eligible-and-available intersection)", ""]
    rows = []
    by_arm: dict[str, list[_Rates]] = {arm: [] for arm in _ARMS}
    for repo_id, entry in per_repository.items():
        case_ids = _get(entry, "caseIds")
        for arm in _ARMS:
            rates = r.rates(case_ids, arm)
            if rates.cases:
                by_arm[arm].append(rates)
                rows.append(
                    [
                        _name(repo_id),
                        f"`{arm}`",
                        str(rates.cases),
                        _approx(rates.precision),
                        _approx(rates.recall),
                        _approx(rates.unnecessary),
                        _approx(rates.omissions),
                    ]
                )
    if not rows:
        eligible = _get(population, "denominators", "eligibleCaseCount")
        lines.append(
            f"No case is available in all four arms ({_value(eligible)} eligible cases): the all-four "
            "intersection is empty."
        )
        return lines
    for arm in _ARMS:
        macro = _MacroRates(by_arm[arm])
        rows.append(
            [
                f"**equal-repository mean** ({_repositories_text(len(by_arm[arm]))})",
                f"`{arm}`",
                str(macro.cases),
                _approx(macro.precision),
                _approx(macro.recall),
                _approx(macro.unnecessary),
                _approx(macro.omissions),
            ]
        )
    lines += _table(["Repository", "Arm", "Cases", "Precision", "Recall", "Unnecessary/case", "Omissions/case"], rows)
    return lines


def _per_repository(r: _Results) -> list[str]:
    labels = _chart_labels(r)
    lines = [
        "## Per-repository results",
        "",
        "Exact values from the per-case counts recorded in `result` (precision = hits/selected, recall = "
        "hits/truth, unnecessary and omissions per case), averaged per repository, then with equal weight per "
        "repository. Unnecessary reduction = (paths − treatment) / paths. Each comparison starts with a chart "
        "(Mermaid `xychart-beta`: drawn by forges that render Mermaid, plain text elsewhere); the tables are the "
        "authority. The charts label repositories by index:",
        "",
        *_table(["Chart label", "Repository"], [[f"`{label}`", _name(repo_id)] for repo_id, label in labels.items()]),
    ]
    for treatment in _TREATMENTS:
        lines += ["", *_pairwise(r, treatment, labels)]
    lines += ["", *_all_four(r)]
    return lines


def _gate_measure(gate: Mapping[str, object]) -> tuple[str, str, str]:
    """(measured text, value, threshold) of one gate row."""
    gate_id = gate.get("id")
    m = gate.get("measured")
    m = m if isinstance(m, dict) else {}
    if gate_id == "G1":
        ids = _get(m, "eligibleRepositoryIds")
        shown = ", ".join(_name(i) for i in ids) if isinstance(ids, list) and ids else "none"
        threshold = _exact(_measured_exact(_get(m, "threshold", "coverage")))
        count = _get(m, "eligibleRepositoryCount")
        plain = _repositories_text(count) if isinstance(count, int) else _value(count)
        return (
            f"{plain} with coverage ≥ {threshold} ({shown})",
            _value(count),
            f"≥ {_value(_get(m, 'threshold', 'repositories'))}",
        )
    if gate_id == "G2":
        counts = [_get(x, "caseCount") for x in _array(_get(m, "casesPerRepository"))]
        fewest = min((c for c in counts if isinstance(c, int)), default=None)
        minimum = _get(m, "minimumCasesPerRepository")
        return f"fewest cases in a repository: {_value(fewest)}", _value(fewest), f"≥ {_value(minimum)} per repository"
    if gate_id == "G3":
        return (
            f"{_value(_get(m, 'caseCount'))} cases; one candidate universe per case; positive maxItems: "
            f"{'yes' if _get(m, 'positiveMaxItems') else 'no'}",
            _NONE,
            "by construction",
        )
    if gate_id in ("G4a", "G4b", "G4c"):
        key = "reduction" if gate_id == "G4b" else "delta"
        paths, source_list = _measured_exact(m.get("paths")), _measured_exact(m.get("sourceList"))
        amount = _measured_exact(m.get(key))
        threshold = {"G4a": "≥ ", "G4b": "≥ ", "G4c": "≤ "}[gate_id]
        threshold += _exact(_measured_exact(m.get("threshold"))) if gate_id != "G4c" else "0"
        if amount is None:
            why = "paths baseline is 0" if paths is not None else "empty population"
            return f"{key} not demonstrated ({why})", _NONE, threshold
        return (
            f"{key} {_exact(amount)} (paths {_exact(paths)}, source_list {_exact(source_list)})",
            _decimal(amount),
            threshold,
        )
    if gate_id == "G5":
        repos = _get(m, "repositories")
        parts = [
            f"{_name(_get(x, 'repositoryId'))} {_exact(_measured_exact(_get(x, 'staleRate')))}"
            for x in (repos if isinstance(repos, list) else [])
        ]
        return "stale rates: " + (", ".join(parts) or "none"), _NONE, "review"
    if gate_id == "G6":
        parts = []
        for arm in ("structural", "fusion"):
            arm_counts = _get(m, arm)
            parts.append(
                f"{arm} {_value(_get(arm_counts, 'available'))}/{_value(_get(arm_counts, 'eligible'))} available"
            )
        return ", ".join(parts), _NONE, "review"
    if gate_id == "G7":
        repos = _get(m, "repositories")
        total = 0
        for x in repos if isinstance(repos, list) else []:
            for member in ("sourceListRawBytes", "gitEvidenceBytes"):
                b = _get(x, member, "bytes")
                total += b if isinstance(b, int) else 0
        return f"{total} bytes of source-list and git evidence; latency not in a v2 input", _NONE, "review"
    if gate_id == "G8":
        return "owner decision: see the last section (empty until the reviewer completes it)", _NONE, "review"
    return _NONE, _NONE, _NONE


def _gates(r: _Results) -> list[str]:
    assessment = r.recorded.get("gateAssessment")
    gates = _get(assessment, "gates")
    rows = []
    bases = []
    for gate in gates if isinstance(gates, list) else []:
        if not isinstance(gate, dict):
            continue
        measured, value, threshold = _gate_measure(gate)
        numeric = gate.get("numericStatus")
        rows.append(
            [
                _value(gate.get("id")),
                _name(gate.get("name")),
                measured,
                value,
                threshold,
                _NONE if numeric is None else _value(numeric),
                _value(gate.get("status")),
            ]
        )
        bases.append(f"- **{_value(gate.get('id'))}**: {_text(gate.get('basis'))}")
    passed = _get(assessment, "numericGatesPassed")
    return [
        "## Adoption gates",
        "",
        f"From `gateAssessment` (population {_code(_get(assessment, 'population'), cell=False)}, treatment "
        f"{_code(_get(assessment, 'treatment'), cell=False)}). Exact fractions from integer counts; "
        "the thresholds are the exact rationals 1/10 and 1/5. "
        "`status` is `requires_review` where the input cannot decide the gate.",
        "",
        *_table(
            ["Gate", "Name", "Measured (exact)", "Value (4 places)", "Threshold", "Numeric status", "Status"], rows
        ),
        "",
        f"- Numeric gates (G1, G4a, G4b, G4c) all pass: **{'yes' if passed is True else 'no'}**.",
        f"- Automatic adoption: **{'no' if _get(assessment, 'automaticAdoption') is False else 'INVALID VALUE'}** "
        "— the evaluator never makes an adoption decision; clearing every numeric gate would only permit a "
        "separate scoped task and owner review.",
        f"- Standing decision recorded in `result`: {_code(r.result.get('standingDecision'), cell=False)}.",
        "",
        "Basis of each gate:",
        "",
        *bases,
    ]


def _staleness(r: _Results) -> list[str]:
    rows = []
    for repo in r.repositories:
        sample = repo.get("metadataStalenessSample")
        sampled, stale = _get(sample, "sampled"), _get(sample, "stale")
        rate = Fraction(stale, sampled) if isinstance(sampled, int) and isinstance(stale, int) and sampled else None
        eligible = repo.get("sourceListEligible") is True
        rows.append(
            [
                _name(repo.get("id")),
                _value(sampled),
                _value(stale),
                _approx(rate),
                "eligible" if eligible else "ineligible control",
                _text(_get(sample, "method")),
                _code(_get(sample, "sampleDigest")),
            ]
        )
    return [
        "## Metadata staleness (G5)",
        "",
        "Staleness never changes ranking. Repositories below 60 % coverage stay visible as ineligible controls, "
        "not as positive metadata evidence.",
        "",
        *_table(["Repository", "Sampled", "Stale", "Stale rate (exact)", "Role", "Method", "Sample digest"], rows),
    ]


def _structural(r: _Results) -> list[str]:
    availability = r.result.get("availability")
    valid = sum(1 for c in r.cases if c.get("structuralEvidence") is not None)
    reasons: dict[str, int] = {}
    for case in r.cases:
        failures = _get(case, "arms", "structural", "failures")
        for failure in failures if isinstance(failures, list) else []:
            if isinstance(failure, str) and failure.startswith(_FAILURE_PREFIX):
                detail = failure[len(_FAILURE_PREFIX) :].split(" ", 1)[0] or "(no rule)"
                reason = f"structural evidence invalid: {detail}"
            elif isinstance(failure, str):
                reason = failure
            else:
                continue
            reasons[reason] = reasons.get(reason, 0) + 1
    rows = [
        [f"`{arm}`", *(_value(_get(availability, arm, k)) for k in ("eligible", "available", "unavailable"))]
        for arm in ("structural", "fusion")
    ]
    lines = [
        "## Structural evidence availability (G6)",
        "",
        f"{valid} of {len(r.cases)} cases carry a structural evidence bundle that validated. Unavailable arms have "
        "no metrics and never fall back to another arm; a structural or fusion improvement cannot substitute "
        "for the source-list gate.",
        "",
        *_table(["Arm", "Eligible cases", "Available cases", "Unavailable cases"], rows),
    ]
    if reasons:
        lines += ["", "Why the `structural` arm is unavailable (cases per first failure rule):", ""]
        lines += _table(["Reason", "Cases"], [[_text(k), str(v)] for k, v in sorted(reasons.items())])
    return lines


def _costs(r: _Results) -> list[str]:
    gate = r.gates.get("G7")
    m = _get(gate, "measured")
    rows = []
    for x in _array(_get(m, "repositories")):
        rows.append(
            [
                _name(_get(x, "repositoryId")),
                *(
                    _value(_get(x, member, key))
                    for member in ("sourceListRawBytes", "gitEvidenceBytes")
                    for key in ("bytes", "approximateTokens")
                ),
            ]
        )
    receipts = [_get(x, "sciReceiptRawBytes", "bytes") for x in _array(_get(m, "cases"))]
    sizes = [b for b in receipts if isinstance(b, int)]
    latency = _get(m, "latency")
    return [
        "## Cost disclosure (G7)",
        "",
        "Raw artifact sizes in UTF-8 bytes with approximate tokens (bytes/4, rounded up). This prices neither "
        "latency, nor review, nor maintenance.",
        "",
        *_table(["Repository", "Source-list text bytes", "≈ tokens", "Git evidence bytes", "≈ tokens"], rows),
        "",
        f"- SCI receipt texts: {len(sizes)} of {len(receipts)} cases carry one"
        + (f", {sum(sizes)} bytes in all (≈ {-(-sum(sizes) // 4)} tokens)." if sizes else "."),
        f"- Latency: {'not part of a v2 prepared input' if latency is None else _text(latency)}.",
    ]


_LIMITATIONS = (
    "Digests show that bytes did not change; they are not signatures and say nothing about who produced the "
    "bytes. A bundle signature only shows that the holder of one key signed `SHA256SUMS`.",
    "Neither owner artifact is authenticated here: the raw `source-list` output and the SCI receipts and "
    "execution observations are taken as the preparation recorded them.",
    "The executable revisions and artifact hashes recorded for `source-list`, SCI and its backend are claims "
    "made at preparation time; they must be corroborated outside this evaluator before anyone relies on them.",
    "The evaluator identity describes the environment that ran; the container image digest is asserted by "
    "its caller and was not measured.",
    "Questions of one repository are not independent replications. The intent-signature and target-basis "
    "gates only catch mechanical duplicates; synonyms, related target sets and shared causes can still make "
    "cases dependent, so case quality needs independent review.",
    "The experiment measures file selection against truth sets, a proxy: it is not answer quality, and "
    "contract completeness is not whole-program semantic accuracy.",
    "Metadata may be stale or written with the benchmark in mind; the size and method of the staleness "
    "sample need review.",
    "Metrics do not price latency, tokens, review effort or maintenance; G7 discloses bytes and approximate "
    "tokens only.",
    "A structural or fusion result cannot stand in for the source-list gate, and unavailable arms say nothing "
    "about those arms' quality.",
    "Clearing every numeric gate would not authorize production wiring or reverse the standing REJECT "
    "decision; an ADOPT decision only permits a separate scoped task and owner review.",
)


def _limitations() -> list[str]:
    return ["## Limitations", "", *(f"- {text}" for text in _LIMITATIONS)]


def _decision() -> list[str]:
    return [
        "## Owner decision (to be completed by the independent reviewer)",
        "",
        "This section is intentionally empty. `ablation` does not make, suggest or pre-fill this decision.",
        "",
        "- Decision (mark exactly one): [ ] ADOPT  [ ] REFINE  [ ] REJECT",
        "- Reviewer:",
        "- Independence from the experiment's authors:",
        "- Date:",
        "- Rationale (costs, limitations, case quality):",
        "- Conditions or follow-up:",
    ]


def build_notes(
    recorded: Mapping[str, object],
    *,
    results_sha256: str,
    bundle_sha256: str | None = None,
    sums_sha256: str | None = None,
    signature: Signature | None = None,
    image_digest: str | None = None,
) -> str:
    """The review-notes Markdown for a parsed results file (pure; no I/O).

    Args:
        recorded: the parsed results file.
        results_sha256: hex SHA-256 of the results file's bytes.
        bundle_sha256: hex SHA-256 of the evidence bundle, when one is cited.
        sums_sha256: hex SHA-256 of that bundle's ``SHA256SUMS`` (its content digest).
        signature: the bundle's signature status, when a bundle is cited.
        image_digest: a container image ID asserted by the caller.

    Returns:
        The Markdown text, ending in one newline.
    """
    r = _Results(recorded)
    bundle = None if bundle_sha256 is None else (bundle_sha256, sums_sha256 or _NONE)
    lines = [
        f"# Review notes (draft): {_code(r.result.get('protocol'), cell=False)}",
        "",
        "Drafted by `ablation notes` from one results file, for the independent reviewer. Every figure below is "
        "recorded in, or computed exactly from, that file. Nothing here is an adoption decision.",
        "",
        *_cite(r, results_sha256, bundle, signature, image_digest),
        "",
        *_signature(signature),
        "",
        *_image(r, image_digest),
        "",
        *_digests(r, results_sha256, bundle),
        "",
        *_repositories(r),
        "",
        *_populations(r),
        "",
        *_per_repository(r),
        "",
        *_gates(r),
        "",
        *_staleness(r),
        "",
        *_structural(r),
        "",
        *_costs(r),
        "",
        *_limitations(),
        "",
        *_decision(),
    ]
    return "\n".join(lines) + "\n"


def image_warning(recorded: Mapping[str, object], image_digest: str | None) -> str | None:
    """The warning when ``--image-digest`` differs from the image ID the results file records, else ``None``."""
    r = _Results(recorded)
    if not _image_disagrees(r, image_digest):
        return None
    return (
        f"--image-digest {image_digest!r} differs from the image ID the results file records, "
        f"{_recorded_image(r)!r}; the notes show both"
    )


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"the number {js_number(float(value)) if isinstance(value, float) else value}"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        return f"the string {text if len(text) <= 40 else text[:39] + '…'}"
    return "an array" if isinstance(value, list) else "an object"


def figures_problem(recorded: Mapping[str, object]) -> str | None:
    """The first recorded value the notes compute with that ablation never writes, as ``<pointer> is …``.

    Checked: ``result/cases`` is an array; every ``…/arms/<arm>/metrics`` object has
    ``hits``, a count (an integer from 0 to 2^53 - 1), and the arrays
    ``selected``, ``omittedTruth`` and ``unnecessary``; every ``exact`` member
    anywhere in ``gateAssessment`` is an integer or ``n/d`` with ``d > 0``
    (``"1/0"`` is refused). ``None`` when all are.

    >>> figures_problem({"result": {"cases": []}, "gateAssessment": {"gates": [{"measured": {"exact": "1/0"}}]}})
    '/gateAssessment/gates/0/measured/exact is the string "1/0", not an exact fraction n or n/d with d > 0'
    """
    result = recorded.get("result")
    cases = _get(result, "cases")
    if not isinstance(cases, list):
        found = _json_kind(cases) if isinstance(result, dict) and "cases" in result else "absent"
        return f"/result/cases is {found}, not an array"
    for k, case in enumerate(_array(cases)):
        arms = _get(case, "arms")
        for arm, entry in arms.items() if isinstance(arms, dict) else ():
            metrics = _get(entry, "metrics")
            if not isinstance(metrics, dict):
                continue
            where = child(child(child(f"/result/cases/{k}", "arms"), arm), "metrics")
            hits = metrics.get("hits")
            if type(hits) is not int or not 0 <= hits <= MAX_SAFE_INTEGER:
                return f"{where}/hits is {_json_kind(hits) if 'hits' in metrics else 'absent'}, not a count"
            for name in _METRIC_LISTS:
                if not isinstance(metrics.get(name), list):
                    found = _json_kind(metrics.get(name)) if name in metrics else "absent"
                    return f"{where}/{name} is {found}, not an array"
    stack: list[tuple[object, str]] = [(recorded.get("gateAssessment"), "/gateAssessment")]
    while stack:
        node, where = stack.pop()
        if isinstance(node, dict):
            exact = node.get("exact", "0")
            if not isinstance(exact, str) or _FRACTION.fullmatch(exact) is None:
                return f"{where}/exact is {_json_kind(exact)}, not an exact fraction n or n/d with d > 0"
            stack.extend((value, child(where, name)) for name, value in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((value, child(where, k)) for k, value in reversed(list(enumerate(node))))
    return None


def render_notes(
    *,
    results_path: str,
    bundle_path: str | None = None,
    image_digest: str | None = None,
    public_key_path: str | None = None,
    warn: Callable[[str], None] | None = None,
) -> str:
    """Read a results file (and the bundle it was archived in) and draft the review notes.

    The results file is read with :func:`ablation.results_file.load_results` (never
    a traceback: not JSON, nested too deep, the wrong shape are one line) and
    :func:`figures_problem`. With ``--bundle`` the bundle must hold the same
    results bytes, and the results file must name the bundled input's hashes
    (``inputGzipSha256`` exactly when that input is a ``.gz`` file); with
    ``--public-key`` its ``SHA256SUMS.sig`` must verify, as for
    ``verify-archive --public-key``. Without a bundle there is no input to
    compare with, so only the shape of ``inputSha256``/``inputGzipSha256`` is
    checked.

    Args:
        results_path: the results file written by ``ablation run``.
        bundle_path: the evidence bundle; its ``results.json`` must be the same bytes.
        image_digest: a container image ID to cite, marked as asserted.
        public_key_path: an Ed25519 PEM public key to check the bundle's signature with.
        warn: called with :func:`image_warning`'s text when there is one.

    Raises:
        UsageError: an unreadable file, a file that is not an ablation results file,
            ``--public-key`` without ``--bundle``, or a key that is not an Ed25519
            PEM public key or is weak (exit 2).
        IntegrityError: the results file's ``evaluator.identityDigest`` is not
            the digest of its ``evaluator.measured``; the bundle is unreadable,
            holds another results file, or an input whose hashes the results
            file does not name; a public key was given and the bundle is not
            signed or its signature is not by that key (exit 3).

    Side effects: reads the files.
    """
    from ablation.bundle.bundled import check_signature, read_bundled  # noqa: PLC0415 - the bundle's narrow interface

    if public_key_path is not None and bundle_path is None:
        msg = "--public-key checks a bundle's signature: give the bundle with --bundle"
        raise UsageError(msg)
    data = read_file(results_path, "results file")
    shown = f"results file {results_path!r}"
    recorded = load_results(data, shown, UsageError)
    problem = figures_problem(recorded)
    if problem is not None:
        msg = f"{shown}: not an ablation results file: {problem}"
        raise UsageError(msg)
    bundle_sha = sums_sha = signature = None
    if bundle_path is not None:
        bundled = read_bundled(bundle_path)
        bundle_sha, sums_sha = bundled.bundle_sha256, bundled.sums_sha256
        if bundled.results != data:
            msg = (
                f"{bundled.top}/results.json: the bundle {bundle_path!r} holds another results file "
                f"than {results_path!r}"
            )
            raise IntegrityError(msg)
        check_input_hashes(
            recorded,
            f"{bundled.top}/results.json",
            f"{bundled.top}/{bundled.input.member}",
            bundled.input.sha256,
            bundled.input.gzip_sha256,
        )
        checked = check_signature(bundled, public_key_path)
        signature = Signature(checked.status, checked.fingerprint)
    warning = image_warning(recorded, image_digest)
    if warning is not None and warn is not None:
        warn(warning)
    return build_notes(
        recorded,
        results_sha256=sha256_hex(data),
        bundle_sha256=bundle_sha,
        sums_sha256=sums_sha,
        signature=signature,
        image_digest=image_digest,
    )
