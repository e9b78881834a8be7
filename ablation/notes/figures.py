"""Exact figures of the review notes, from the counts a results file records.

:class:`_Results` gives the notes the parts of a recorded results file
(:class:`~ablation.results_file.RecordedResults`) they read below its checked
members, and each arm's exact per-repository rates
(:class:`ablation.rates.RepositoryRates`, computed as the gates compute them);
numbers are shown as exact fractions with a 4-place decimal beside them.
:func:`figures_problem` checks first that the values computed with are what
``ablation run`` writes; everything deeper is read as untrusted (absent when
it is not what ``run`` writes).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from fractions import Fraction

from ablation.canonical import js_number
from ablation.notes.markdown import _NONE
from ablation.rates import CaseCounts, RepositoryRates, exact_text, repository_rates
from ablation.results_file import RecordedResults
from ablation.strictjson import MAX_SAFE_INTEGER, child

# A gateAssessment ``exact`` string as ablation writes it: an integer or n/d with d > 0.
_FRACTION = re.compile(r"-?(?:0|[1-9][0-9]{0,399})(?:/[1-9][0-9]{0,399})?")


_METRIC_LISTS = ("selected", "omittedTruth", "unnecessary")


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


def _metrics_problem(metrics: Mapping[str, object], where: str) -> str | None:
    """Why a recorded ``metrics`` object is not one the notes compute with, as ``<where>/<member> is …``.

    >>> _metrics_problem({"hits": 1, "selected": [], "omittedTruth": [], "unnecessary": None}, "/m")
    '/m/unnecessary is null, not an array'
    """
    hits = metrics.get("hits")
    if type(hits) is not int or not 0 <= hits <= MAX_SAFE_INTEGER:
        return f"{where}/hits is {_json_kind(hits) if 'hits' in metrics else 'absent'}, not a count"
    for name in _METRIC_LISTS:
        if not isinstance(metrics.get(name), list):
            found = _json_kind(metrics.get(name)) if name in metrics else "absent"
            return f"{where}/{name} is {found}, not an array"
    return None


def _counts(metrics: Mapping[str, object]) -> CaseCounts | None:
    """The counts of a recorded ``metrics`` object; ``None`` when :func:`_metrics_problem` finds one."""
    hits, selected, omitted, unnecessary = (metrics.get(name) for name in ("hits", *_METRIC_LISTS))
    if _metrics_problem(metrics, "") is not None:
        return None
    assert isinstance(hits, int) and isinstance(selected, list)  # _metrics_problem checked them
    assert isinstance(omitted, list) and isinstance(unnecessary, list)
    return CaseCounts(hits=hits, selected=len(selected), unnecessary=len(unnecessary), omitted=len(omitted))


class _Results:
    """The parts of a recorded results file the notes read below its checked members (untrusted: absent when odd)."""

    def __init__(self, recorded: RecordedResults) -> None:
        self.recorded = recorded
        self.result = recorded.result
        cases = self.result.get("cases")
        self.cases = [c for c in cases if isinstance(c, dict)] if isinstance(cases, list) else []
        self.case_by_id = {c.get("id"): c for c in self.cases if isinstance(c.get("id"), str)}
        repositories = self.result.get("repositories")
        self.repositories = [r for r in repositories if isinstance(r, dict)] if isinstance(repositories, list) else []
        gates = recorded.gate_assessment.get("gates")
        self.gates = {g["id"]: g for g in _array(gates) if isinstance(g, dict) and isinstance(g.get("id"), str)}

    def rates(self, case_ids: object, arm: str) -> RepositoryRates | None:
        """Exact rates of ``arm`` over the listed cases that record its metrics; ``None`` when none does."""
        counts = []
        for case_id in _array(case_ids):
            if not isinstance(case_id, str):
                continue
            m = _get(self.case_by_id.get(case_id), "arms", arm, "metrics")
            found = _counts(m) if isinstance(m, dict) else None
            if found is not None:
                counts.append(found)
        return repository_rates(counts) if counts else None

    def cases_of(self, repository_id: object) -> int:
        return sum(1 for c in self.cases if c.get("repositoryId") == repository_id)


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


def figures_problem(recorded: RecordedResults) -> str | None:
    """The first recorded value the notes compute with that ablation never writes, as ``<pointer> is …``.

    Checked: ``result/cases`` is an array; every ``…/arms/<arm>/metrics`` object has
    ``hits``, a count (an integer from 0 to 2^53 - 1), and the arrays
    ``selected``, ``omittedTruth`` and ``unnecessary``; every ``exact`` member
    anywhere in ``gateAssessment`` is an integer or ``n/d`` with ``d > 0``
    (``"1/0"`` is refused). ``None`` when all are.
    """
    return _cases_problem(recorded.result) or _exact_problem(recorded.gate_assessment)


def _cases_problem(result: Mapping[str, object]) -> str | None:
    """The first value of ``result/cases`` that :func:`figures_problem` refuses.

    >>> _cases_problem({"cases": [{"arms": {"paths": {"metrics": {"hits": -1}}}}]})
    '/result/cases/0/arms/paths/metrics/hits is the number -1, not a count'
    """
    cases = result.get("cases")
    if not isinstance(cases, list):
        found = _json_kind(cases) if "cases" in result else "absent"
        return f"/result/cases is {found}, not an array"
    for k, case in enumerate(cases):
        arms = _get(case, "arms")
        for arm, entry in arms.items() if isinstance(arms, dict) else ():
            metrics = _get(entry, "metrics")
            if not isinstance(metrics, dict):
                continue
            problem = _metrics_problem(metrics, child(child(child(f"/result/cases/{k}", "arms"), arm), "metrics"))
            if problem is not None:
                return problem
    return None


def _exact_problem(gate_assessment: Mapping[str, object]) -> str | None:
    """The first ``exact`` member in ``gateAssessment`` that is not an exact fraction.

    >>> _exact_problem({"gates": [{"measured": {"exact": "1/0"}}]})
    '/gateAssessment/gates/0/measured/exact is the string "1/0", not an exact fraction n or n/d with d > 0'
    """
    stack: list[tuple[object, str]] = [(gate_assessment, "/gateAssessment")]
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
