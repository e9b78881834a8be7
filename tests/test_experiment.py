"""``experiment``: whole-input validation into frozen records; the worked example is accepted whole.

Every rule it applies is tested with its family in ``tests/rules/``.
"""

from __future__ import annotations

from ablation.experiment import validate_experiment
from tests.builders.prepared import dumps, valid_minimal


def test_the_worked_example_is_accepted() -> None:
    experiment = validate_experiment(dumps(valid_minimal()))
    assert len(experiment.cases) == 10
    assert experiment.repositories[0].preparation.tracked_path_count == 12
