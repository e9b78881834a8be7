"""A results file as frozen, typed records, parsed once: :class:`ResultsFile` (issue 22 item 4).

:func:`ablation.results_file.load_results` parses the file and checks its
envelope (the members, the input hashes, the evaluator's own digest);
:meth:`ResultsFile.from_recorded` then types everything inside ``result``
(:mod:`ablation.recorded.result`) and ``gateAssessment``
(:mod:`ablation.recorded.gates`) from that one parse, and
:meth:`ResultsFile.to_json` gives the same JSON back (``render_output`` of it
is the file's bytes for every file ``run`` writes). What the gate statuses
should be is re-derived from the recorded exact figures by
:mod:`ablation.recorded.derive`. ``notes`` reads only these records.

Modules: :mod:`~ablation.recorded.schema` (the record machinery),
:mod:`~ablation.recorded.result`, :mod:`~ablation.recorded.gates`,
:mod:`~ablation.recorded.derive`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ablation.errors import AblationError, IntegrityError
from ablation.recorded.gates import GateAssessment
from ablation.recorded.result import Result
from ablation.recorded.schema import ShapeError
from ablation.results_file import RecordedIdentity, RecordedResults, load_results, results_from_value

__all__ = ["ResultsFile", "load_results_file"]


@dataclass(frozen=True, slots=True)
class ResultsFile:
    """A results file written by ``ablation run`` (PRODUCT.md "run"), every member typed.

    Attributes:
        input_sha256: ``inputSha256``.
        input_gzip_sha256: ``inputGzipSha256``, ``None`` when the member is absent (a plain ``.json`` input).
        input_sha256_pinned: ``inputSha256Pinned``.
        result: ``result`` (:class:`~ablation.recorded.result.Result`).
        gate_assessment: ``gateAssessment`` (:class:`~ablation.recorded.gates.GateAssessment`).
        evaluator: ``evaluator``, its ``identityDigest`` checked (its ``measured`` kept as recorded).
    """

    input_sha256: str
    input_gzip_sha256: str | None
    input_sha256_pinned: bool
    result: Result
    gate_assessment: GateAssessment
    evaluator: RecordedIdentity

    @classmethod
    def from_recorded(cls, recorded: RecordedResults) -> ResultsFile:
        """Type ``result`` and ``gateAssessment`` of a results file whose envelope :func:`load_results` checked.

        Raises:
            ShapeError: the first value that is not what ``run`` writes, by its JSON Pointer.
        """
        return cls(
            input_sha256=recorded.input_sha256,
            input_gzip_sha256=recorded.input_gzip_sha256,
            input_sha256_pinned=recorded.input_sha256_pinned,
            result=Result.from_json(recorded.result, "/result"),
            gate_assessment=GateAssessment.from_json(recorded.gate_assessment, "/gateAssessment"),
            evaluator=recorded.evaluator,
        )

    @classmethod
    def from_json(
        cls, value: object, member: str = "results file", error: type[AblationError] = IntegrityError
    ) -> ResultsFile:
        """A parsed results file, checked and typed.

        Raises:
            AblationError: ``error`` (or :class:`IntegrityError` for a wrong
                evaluator digest): ``<member>: not an ablation results file: <why>``.
        """
        return _typed(results_from_value(value, member, error), member, error)

    def to_json(self) -> dict[str, object]:
        """The results object, members in the order ``run`` writes them."""
        out: dict[str, object] = {"inputSha256": self.input_sha256}
        if self.input_gzip_sha256 is not None:
            out["inputGzipSha256"] = self.input_gzip_sha256
        out["inputSha256Pinned"] = self.input_sha256_pinned
        out["result"] = self.result.to_json()
        out["gateAssessment"] = self.gate_assessment.to_json()
        out["evaluator"] = self.evaluator.to_json()
        return out


def _typed(recorded: RecordedResults, member: str, error: type[AblationError]) -> ResultsFile:
    try:
        return ResultsFile.from_recorded(recorded)
    except ShapeError as exc:
        msg = f"{member}: not an ablation results file: {exc}"
        raise error(msg) from None


def load_results_file(
    data: bytes, member: str, error: type[AblationError] = IntegrityError
) -> tuple[RecordedResults, ResultsFile]:
    """A results file's bytes parsed once: its checked envelope and its typed records.

    Raises:
        AblationError: as :func:`ablation.results_file.load_results`, and
            ``error`` for a value inside ``result`` or ``gateAssessment`` that is
            not what ``run`` writes (``<member>: not an ablation results file: <pointer> is …``).
    """
    recorded = load_results(data, member, error)
    return recorded, _typed(recorded, member, error)
