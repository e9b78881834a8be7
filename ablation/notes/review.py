"""The gate, staleness, structural-availability, cost, limitation and owner-decision sections."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from functools import partial

from ablation.experiment import BUNDLE_FAILURE_PREFIX
from ablation.notes.figures import _approx, _array, _decimal, _exact, _get, _measured_exact, _Results
from ablation.notes.markdown import _NONE, _code, _name, _repositories_text, _table, _text, _value

Measured = dict[str, object]
Measure = tuple[str, str, str]


def _g1(m: Measured) -> Measure:
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


def _g2(m: Measured) -> Measure:
    counts = [_get(x, "caseCount") for x in _array(_get(m, "casesPerRepository"))]
    fewest = min((c for c in counts if isinstance(c, int)), default=None)
    minimum = _get(m, "minimumCasesPerRepository")
    return f"fewest cases in a repository: {_value(fewest)}", _value(fewest), f"≥ {_value(minimum)} per repository"


def _g3(m: Measured) -> Measure:
    return (
        f"{_value(_get(m, 'caseCount'))} cases; one candidate universe per case; positive maxItems: "
        f"{'yes' if _get(m, 'positiveMaxItems') else 'no'}",
        _NONE,
        "by construction",
    )


def _g4(gate_id: str, m: Measured) -> Measure:
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


def _g5(m: Measured) -> Measure:
    repos = _get(m, "repositories")
    parts = [
        f"{_name(_get(x, 'repositoryId'))} {_exact(_measured_exact(_get(x, 'staleRate')))}"
        for x in (repos if isinstance(repos, list) else [])
    ]
    return "stale rates: " + (", ".join(parts) or "none"), _NONE, "review"


def _g6(m: Measured) -> Measure:
    parts = []
    for arm in ("structural", "fusion"):
        arm_counts = _get(m, arm)
        parts.append(f"{arm} {_value(_get(arm_counts, 'available'))}/{_value(_get(arm_counts, 'eligible'))} available")
    return ", ".join(parts), _NONE, "review"


def _g7(m: Measured) -> Measure:
    repos = _get(m, "repositories")
    total = 0
    for x in repos if isinstance(repos, list) else []:
        for member in ("sourceListRawBytes", "gitEvidenceBytes"):
            b = _get(x, member, "bytes")
            total += b if isinstance(b, int) else 0
    return f"{total} bytes of source-list and git evidence; latency not in a v2 input", _NONE, "review"


def _g8(m: Measured) -> Measure:
    return "owner decision: see the last section (empty until the reviewer completes it)", _NONE, "review"


_MEASURES: dict[str, Callable[[Measured], Measure]] = {
    "G1": _g1,
    "G2": _g2,
    "G3": _g3,
    "G4a": partial(_g4, "G4a"),
    "G4b": partial(_g4, "G4b"),
    "G4c": partial(_g4, "G4c"),
    "G5": _g5,
    "G6": _g6,
    "G7": _g7,
    "G8": _g8,
}


def _gate_measure(gate: Mapping[str, object]) -> Measure:
    """(measured text, value, threshold) of one gate row; ``—`` three times for an unknown gate."""
    gate_id = gate.get("id")
    m = gate.get("measured")
    measure = _MEASURES.get(gate_id) if isinstance(gate_id, str) else None
    if measure is None:
        return _NONE, _NONE, _NONE
    return measure(m if isinstance(m, dict) else {})


def _gates(r: _Results) -> list[str]:
    assessment = r.recorded.gate_assessment
    gates = assessment.get("gates")
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
    passed = assessment.get("numericGatesPassed")
    return [
        "## Adoption gates",
        "",
        f"From `gateAssessment` (population {_code(assessment.get('population'), cell=False)}, treatment "
        f"{_code(assessment.get('treatment'), cell=False)}). Exact fractions from integer counts; "
        "the thresholds are the exact rationals 1/10 and 1/5. "
        "`status` is `requires_review` where the input cannot decide the gate.",
        "",
        *_table(
            ["Gate", "Name", "Measured (exact)", "Value (4 places)", "Threshold", "Numeric status", "Status"], rows
        ),
        "",
        f"- Numeric gates (G1, G4a, G4b, G4c) all pass: **{'yes' if passed is True else 'no'}**.",
        f"- Automatic adoption: **{'no' if assessment.get('automaticAdoption') is False else 'INVALID VALUE'}** "
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
            if isinstance(failure, str) and failure.startswith(BUNDLE_FAILURE_PREFIX):
                detail = failure[len(BUNDLE_FAILURE_PREFIX) :].split(" ", 1)[0] or "(no rule)"
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
