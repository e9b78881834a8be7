"""The input of ``archive`` and ``verify-archive``, parsed once: its evidence files, then its evaluation.

Both commands need the input's parsed value twice: for the evidence files
(the raw strings, :func:`ablation.bundle.layout.derive_evidence`) and for the
evaluation. The strict parse is a pure function of the bytes, so one parse
serves both; the evaluation drops it once the input is validated, so it and
the evaluation's structures are never in memory together beyond what ``run``
holds. docs/reference/evidence-bundle.md.
"""

from __future__ import annotations

from ablation.bundle.layout import EvidenceFile, derive_evidence
from ablation.experiment import parse_input, validate_parsed
from ablation.pipeline import Evaluation, evaluate_experiment
from ablation.strictjson import ParsedText

__all__ = ["ParsedInput"]


class ParsedInput:
    """One input's JSON bytes, parsed once by the strict profile (:func:`ablation.experiment.parse_input`).

    :meth:`evidence` may be asked any number of times before :meth:`evaluate`,
    which is asked at most once.
    """

    def __init__(self, data: bytes) -> None:
        """Decode and parse ``data``.

        Raises:
            InputRejected: TOP-1 … TOP-11 outside the structural bundles (exit 4).
        """
        self._parsed: ParsedText | None = parse_input(data)

    def _parse(self) -> ParsedText:
        if self._parsed is None:
            msg = "the parse was dropped by evaluate()"
            raise RuntimeError(msg)
        return self._parsed

    def evidence(self, *, input_sha256: str, input_member: str) -> tuple[tuple[EvidenceFile, ...], bytes]:
        """The evidence files and ``evidence/index.json`` (:func:`ablation.bundle.layout.derive_evidence`)."""
        parsed = self._parse()
        return derive_evidence(
            parsed.value, input_sha256=input_sha256, input_member=input_member, violations=parsed.violations
        )

    def evaluate(self) -> Evaluation:
        """Validate the parse, drop it, and evaluate (:func:`ablation.pipeline.evaluate` without its parse).

        Raises:
            InputRejected: the input is not admissible (exit 4).
        """
        parsed, self._parsed = self._parse(), None
        experiment = validate_parsed(parsed)
        del parsed
        return evaluate_experiment(experiment)
