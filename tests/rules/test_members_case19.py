"""CASE-19 for every declared repository, the last one included (issue 25).

CASE-19: at least ten cases reference each declared repository; one with
zero cases fails. The check loops over the repositories and counts the
valid cases of each, so the pins here put the short repository first, in the
middle and last, count per repository (never the total or another
repository's count), hold at exactly ten, and report every short repository
under ``--errors all``.

Spec: SPEC.md §4.7 (CASE-19), §2.5; preregistration "cohort minimum".
"""

from __future__ import annotations

import pytest

from tests.builders.prepared import prepared_input
from tests.rules.members_support import accepted, cases_of, experiment, minimal, rejection, rejections, repository


def _short(r: int, count: int) -> str:
    return f"CASE-19 at /repositories/{r}: expected at least 10 cases for 'repo-{r}'; found {count} cases"


def test_three_repositories_of_ten_cases_each_are_accepted() -> None:
    """Ten cases for each of three repositories: admissible, each case counted for its own repository."""
    validated = accepted(experiment([10, 10, 10]))
    assert [c.record.repository_index for c in validated.cases] == [0] * 10 + [1] * 10 + [2] * 10


@pytest.mark.parametrize("r", [0, 1, 2], ids=["first", "middle", "last"])
@pytest.mark.parametrize("count", [9, 0], ids=["nine", "zero"])
def test_each_repository_needs_ten_cases(r: int, count: int) -> None:
    """The first, the middle and the last repository each fail CASE-19 alone with nine or zero cases."""
    counts = [10, 10, 10]
    counts[r] = count
    assert rejection(experiment(counts)) == _short(r, count)


def test_two_repositories_only_the_last_short() -> None:
    """Two repositories: the second (last) one short is reported."""
    assert rejection(experiment([10, 9])) == _short(1, 9)


def test_cases_are_counted_per_repository_not_in_total() -> None:
    """Twenty cases in all, eleven and nine: the total (and the mean) is ten, repo-1 still has nine."""
    assert rejection(experiment([11, 9])) == _short(1, 9)


def test_a_repository_without_cases_is_not_covered_by_another_ones() -> None:
    """repo-0 has twenty cases, repo-1 none: every case counts for its own repository only."""
    repo0, repo1 = repository("repo-0"), repository("repo-1")
    obj = prepared_input([repo0, repo1], cases_of(repo0, 20))
    assert rejection(obj) == _short(1, 0)


def test_cases_of_the_last_repository_listed_first_count_for_it() -> None:
    """The cases' order does not decide which repository they count for: repo-1's ten come first."""
    repo0, repo1 = repository("repo-0"), repository("repo-1")
    obj = prepared_input([repo0, repo1], cases_of(repo1, 10) + cases_of(repo0, 9))
    assert rejection(obj) == _short(0, 9)


def test_every_short_repository_is_reported_with_errors_all() -> None:
    """``--errors all`` reports every short repository, in declaration order, the last one included."""
    assert rejections(experiment([9, 10, 0, 3])) == [_short(0, 9), _short(2, 0), _short(3, 3)]


def test_the_single_repository_of_valid_minimal_at_nine() -> None:
    """SPEC §11.1 valid-minimal with its last case removed: nine cases, the whole message."""
    obj = minimal()
    obj["cases"].pop()
    assert rejection(obj) == "CASE-19 at /repositories/0: expected at least 10 cases for 'repo'; found 9 cases"
