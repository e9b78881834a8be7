"""The blind self-check of a prepared input: the evaluator's own validation, and the availability capture saw.

:func:`self_check` runs :func:`ablation.experiment.validate_experiment` on the
exact bytes (never selection, never metrics: nothing is ranked during
preparation) after the size bound of the evaluator's input
(:data:`ablation.pipeline.DEFAULT_MAX_INPUT_BYTES`, read when called, ASM-9), and
then compares each case's structural availability with what ``capture``
recorded: available exactly when its usable SCI attempt ``succeeded``,
unavailable under the rule the ledger recorded when it ended ``unavailable``, and
unavailable (``SB-1``, a ``null`` bundle) for a case without ``[case.sci]`` (ASM-10).

A rejection names the evaluator's rule with its own ``expected`` and ``found``;
``<where>`` is ``prepared.json`` in D, then the evaluator's pointer.

Spec: PREPARE.md §6 ("Output", item 1), §9.3; §11 criteria 4, 11, 21, 23.
"""

from __future__ import annotations

from collections.abc import Sequence

from ablation import pipeline
from ablation.errors import InputRejected
from ablation.experiment import BUNDLE_FAILURE_PREFIX, ValidatedExperiment, validate_experiment
from ablation.prepare.assemble_input import Expectation
from ablation.prepare.findings import Finding, PrepareRejected
from ablation.prepare.tomltext import where

__all__ = ["failure_rule", "self_check"]


def failure_rule(failure: str | None) -> str | None:
    """The rule of a case's ``structural_failure`` string (``None`` for an available case).

    >>> failure_rule("structural_evidence_validation_failed:SB-15 at receipt: …"), failure_rule(None)
    ('SB-15', None)
    """
    if failure is None:
        return None
    return failure.removeprefix(BUNDLE_FAILURE_PREFIX).split(" ", 1)[0]


def _expected(expectation: Expectation) -> str:
    attempt = expectation.attempt
    recorded = (
        "the case has no [case.sci]"
        if attempt is None
        else f"capture recorded attempt {attempt.number} {attempt.outcome}"
        + (f" under {attempt.rule}" if attempt.rule else "")
    )
    if expectation.rule is None:
        return f"structural evidence available ({recorded})"
    return f"structural evidence unavailable under {expectation.rule} ({recorded})"


def self_check(data: bytes, expectations: Sequence[Expectation], shown: str) -> ValidatedExperiment:
    """Validate ``data`` as the evaluator does and compare availability with the capture (module docstring).

    Args:
        data: the prepared input's bytes.
        expectations: per case, in input order (:func:`ablation.prepare.assemble_input.build_input`).
        shown: ``prepared.json`` as messages name it (D as given, then the name).

    Raises:
        PrepareRejected: ASM-9 (over the input bound), the evaluator's REJECT rule, ASM-10 (exit 4).
    """
    bound = pipeline.DEFAULT_MAX_INPUT_BYTES
    if len(data) > bound:
        expected = f"at most the evaluator's input bound, {bound} bytes (nothing was written)"
        raise PrepareRejected([Finding("ASM-9", shown, expected, f"{len(data)} bytes")])
    try:
        validated = validate_experiment(data)
    except InputRejected as exc:
        raise PrepareRejected([Finding(exc.rule, f"{shown} -> {exc.where}", exc.expected, exc.found)]) from None
    for expectation, case in zip(expectations, validated.cases, strict=True):
        found = failure_rule(case.structural_failure)
        if found != expectation.rule:
            at = f"{where('case', expectation.case.index)} ({expectation.case.id})"
            shown_found = "available" if found is None else f"unavailable: {case.structural_failure}"
            raise PrepareRejected([Finding("ASM-10", at, _expected(expectation), shown_found)])
    return validated
