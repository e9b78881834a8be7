"""Exact figures of the review notes, from the counts a results file records.

:class:`_Results` gives the notes the typed records of a results file
(:class:`~ablation.recorded.ResultsFile`, parsed once) and each arm's exact
per-repository rates (:class:`ablation.rates.RepositoryRates`, computed as the
gates compute them); numbers are shown as exact fractions with a 4-place
decimal beside them.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ablation.notes.markdown import _NONE
from ablation.rates import RepositoryRates, exact_text, repository_rates
from ablation.recorded import ResultsFile
from ablation.recorded.derive import case_counts
from ablation.recorded.gates import Quantity
from ablation.results_file import RecordedResults


def _exact(value: Fraction | None) -> str:
    """A fraction in lowest terms, sign on the numerator (:func:`ablation.rates.exact_text`); ``—`` for none.

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


def _quantity(value: Quantity | None) -> Fraction | None:
    """A recorded exact quantity as a Fraction (``None`` for none)."""
    return None if value is None else value.fraction


def _shown(rates: RepositoryRates | None) -> tuple[Fraction | None, Fraction | None, Fraction | None, Fraction | None]:
    """(precision, recall, unnecessary per case, omissions per case) of ``rates``; four ``None`` for no case."""
    if rates is None:
        return None, None, None, None
    return rates.precision, rates.recall, rates.unnecessary_per_case, rates.omissions_per_case


def _delta(a: Fraction | None, b: Fraction | None) -> Fraction | None:
    return None if a is None or b is None else b - a


def _reduction(paths: Fraction | None, treatment: Fraction | None) -> str:
    if paths is None or treatment is None:
        return _NONE
    if paths <= 0:
        return "not demonstrated (paths baseline 0)"
    return _approx((paths - treatment) / paths)


class _Results:
    """A results file as the notes read it: its typed records and each arm's exact per-repository rates.

    Built from a :class:`~ablation.recorded.ResultsFile` (or a
    :class:`~ablation.results_file.RecordedResults`, typed here; raises
    :class:`~ablation.recorded.schema.ShapeError` when it is not what ``run`` writes).
    """

    def __init__(self, recorded: ResultsFile | RecordedResults) -> None:
        typed = recorded if isinstance(recorded, ResultsFile) else ResultsFile.from_recorded(recorded)
        self.recorded = typed
        self.result = typed.result
        self.cases = typed.result.cases
        self.case_by_id = {c.id: c for c in self.cases}
        self.repositories = typed.result.repositories
        self.assessment = typed.gate_assessment
        self.gates = {g.id: g for g in typed.gate_assessment.gates}

    def rates(self, case_ids: Sequence[str], arm: str) -> RepositoryRates | None:
        """Exact rates of ``arm`` over the listed cases that record its metrics; ``None`` when none does."""
        counts = []
        for case_id in case_ids:
            case = self.case_by_id.get(case_id)
            entry = None if case is None else case.arms.get(arm)
            if entry is not None and entry.metrics is not None:
                counts.append(case_counts(entry.metrics))
        return repository_rates(counts) if counts else None

    def cases_of(self, repository_id: str) -> int:
        """How many cases the repository has."""
        return sum(1 for c in self.cases if c.repository_id == repository_id)
