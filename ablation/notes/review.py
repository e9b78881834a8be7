"""The gate, staleness, structural-availability, cost, limitation and owner-decision sections."""

from __future__ import annotations

from fractions import Fraction

from ablation.experiment import BUNDLE_FAILURE_PREFIX
from ablation.notes.figures import _approx, _decimal, _exact, _quantity, _Results
from ablation.notes.markdown import _NONE, _code, _name, _repositories_text, _table, _text, _value
from ablation.recorded.gates import (
    CaseCohorts,
    CostDisclosure,
    EligibleRepositories,
    Gate,
    IdenticalUniverses,
    OmissionDelta,
    PrecisionDelta,
    Staleness,
    StructuralSeparate,
    UnnecessaryReduction,
)

Measure = tuple[str, str, str]


def _g1(m: EligibleRepositories) -> Measure:
    shown = ", ".join(_name(i) for i in m.eligible_ids) or "none"
    threshold = _exact(m.threshold.coverage.fraction)
    return (
        f"{_repositories_text(m.eligible_count)} with coverage ≥ {threshold} ({shown})",
        str(m.eligible_count),
        f"≥ {m.threshold.repositories}",
    )


def _g2(m: CaseCohorts) -> Measure:
    fewest = min((x.case_count for x in m.cases_per_repository), default=None)
    shown = _NONE if fewest is None else str(fewest)
    return f"fewest cases in a repository: {shown}", shown, f"≥ {m.minimum} per repository"


def _g3(m: IdenticalUniverses) -> Measure:
    return (
        f"{m.case_count} cases; one candidate universe per case; positive maxItems: "
        f"{'yes' if m.positive_max_items else 'no'}",
        _NONE,
        "by construction",
    )


def _g4(gate_id: str, m: PrecisionDelta | UnnecessaryReduction | OmissionDelta) -> Measure:
    key = "reduction" if gate_id == "G4b" else "delta"
    paths, source_list, amount = _quantity(m.paths), _quantity(m.source_list), _quantity(m.amount)
    threshold = {"G4a": "≥ ", "G4b": "≥ ", "G4c": "≤ "}[gate_id]
    recorded_threshold = getattr(m, "threshold", None)
    threshold += "0" if gate_id == "G4c" else _exact(_quantity(recorded_threshold))
    if amount is None:
        why = "paths baseline is 0" if paths is not None else "empty population"
        return f"{key} not demonstrated ({why})", _NONE, threshold
    return (
        f"{key} {_exact(amount)} (paths {_exact(paths)}, source_list {_exact(source_list)})",
        _decimal(amount),
        threshold,
    )


def _g5(m: Staleness) -> Measure:
    parts = [f"{_name(x.repository_id)} {_exact(x.stale_rate.fraction)}" for x in m.repositories]
    return "stale rates: " + (", ".join(parts) or "none"), _NONE, "review"


def _g6(m: StructuralSeparate) -> Measure:
    arms = (("structural", m.structural), ("fusion", m.fusion))
    parts = [f"{arm} {counts.available}/{counts.eligible} available" for arm, counts in arms]
    return ", ".join(parts), _NONE, "review"


def _g7(m: CostDisclosure) -> Measure:
    total = sum(x.bytes or 0 for repo in m.repositories for x in (repo.source_list_raw_bytes, repo.git_evidence_bytes))
    return f"{total} bytes of source-list and git evidence; latency not in a v2 input", _NONE, "review"


def _gate_measure(gate: Gate) -> Measure:
    """(measured text, value, threshold) of one gate row."""
    m = gate.measured
    if isinstance(m, EligibleRepositories):
        return _g1(m)
    if isinstance(m, CaseCohorts):
        return _g2(m)
    if isinstance(m, IdenticalUniverses):
        return _g3(m)
    if isinstance(m, PrecisionDelta | UnnecessaryReduction | OmissionDelta):
        return _g4(gate.id, m)
    if isinstance(m, Staleness):
        return _g5(m)
    if isinstance(m, StructuralSeparate):
        return _g6(m)
    if isinstance(m, CostDisclosure):
        return _g7(m)
    return "owner decision: see the last section (empty until the reviewer completes it)", _NONE, "review"


def _gates(r: _Results) -> list[str]:
    assessment = r.assessment
    rows = []
    bases = []
    for gate in assessment.gates:
        measured, value, threshold = _gate_measure(gate)
        numeric = gate.numeric_status
        rows.append(
            [
                _value(gate.id),
                _name(gate.name),
                measured,
                value,
                threshold,
                _NONE if numeric is None else _value(numeric),
                _value(gate.status),
            ]
        )
        bases.append(f"- **{_value(gate.id)}**: {_text(gate.basis)}")
    passed = assessment.numeric_gates_passed
    return [
        "## Adoption gates",
        "",
        f"From `gateAssessment` (population {_code(assessment.population, cell=False)}, treatment "
        f"{_code(assessment.treatment, cell=False)}). Exact fractions from integer counts; "
        "the thresholds are the exact rationals 1/10 and 1/5. "
        "`status` is `requires_review` where the input cannot decide the gate. Every row's statuses were "
        "re-derived by `ablation notes` from the exact figures recorded beside them and agree with them.",
        "",
        *_table(
            ["Gate", "Name", "Measured (exact)", "Value (4 places)", "Threshold", "Numeric status", "Status"], rows
        ),
        "",
        f"- Numeric gates (G1, G4a, G4b, G4c) all pass: **{'yes' if passed else 'no'}**.",
        f"- Automatic adoption: **{'no' if not assessment.automatic_adoption else 'INVALID VALUE'}** "
        "— the evaluator never makes an adoption decision; clearing every numeric gate would only permit a "
        "separate scoped task and owner review.",
        f"- Standing decision recorded in `result`: {_code(r.result.standing_decision, cell=False)}.",
        "",
        "Basis of each gate:",
        "",
        *bases,
    ]


def _staleness(r: _Results) -> list[str]:
    rows = []
    for repo in r.repositories:
        sample = repo.staleness
        rate = Fraction(sample.stale, sample.sampled) if sample.sampled else None
        rows.append(
            [
                _name(repo.id),
                str(sample.sampled),
                str(sample.stale),
                _approx(rate),
                "eligible" if repo.source_list_eligible else "ineligible control",
                _text(sample.method),
                _code(sample.sample_digest),
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
    availability = r.result.availability
    valid = sum(1 for c in r.cases if c.structural_evidence is not None)
    reasons: dict[str, int] = {}
    for case in r.cases:
        arm = case.arms.get("structural")
        for failure in () if arm is None else arm.failures:
            if failure.startswith(BUNDLE_FAILURE_PREFIX):
                detail = failure[len(BUNDLE_FAILURE_PREFIX) :].split(" ", 1)[0] or "(no rule)"
                reason = f"structural evidence invalid: {detail}"
            else:
                reason = failure
            reasons[reason] = reasons.get(reason, 0) + 1
    rows = []
    for arm_name in ("structural", "fusion"):
        counts = availability.get(arm_name)
        shown = (
            [_NONE] * 3 if counts is None else [str(counts.eligible), str(counts.available), str(counts.unavailable)]
        )
        rows.append([f"`{arm_name}`", *shown])
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
    m = r.gates["G7"].measured
    assert isinstance(m, CostDisclosure)  # the typed G7 row
    rows = [
        [
            _name(x.repository_id),
            *(
                _value(size)
                for a in (x.source_list_raw_bytes, x.git_evidence_bytes)
                for size in (a.bytes, a.approximate_tokens)
            ),
        ]
        for x in m.repositories
    ]
    sizes = [x.sci_receipt_raw_bytes.bytes for x in m.cases if x.sci_receipt_raw_bytes.bytes is not None]
    return [
        "## Cost disclosure (G7)",
        "",
        "Raw artifact sizes in UTF-8 bytes with approximate tokens (bytes/4, rounded up). This prices neither "
        "latency, nor review, nor maintenance.",
        "",
        *_table(["Repository", "Source-list text bytes", "≈ tokens", "Git evidence bytes", "≈ tokens"], rows),
        "",
        f"- SCI receipt texts: {len(sizes)} of {len(m.cases)} cases carry one"
        + (f", {sum(sizes)} bytes in all (≈ {-(-sum(sizes) // 4)} tokens)." if sizes else "."),
        "- Latency: not part of a v2 prepared input.",
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
