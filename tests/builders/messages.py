"""Whole failure messages of the rule tests, compared with one snapshot file per rule family (SPEC §2.5).

The rule tests assert the rule ID and where it is reported; a message's
expected and found parts, and what ``--errors all`` reports after the first
violation, would be free to change without these snapshots (mutation testing
showed it). Each family's test file runs every row of its table through
:func:`reject_messages` or :func:`bundle_message` and compares the result
with ``tests/rules/messages/<family>.json`` through a :class:`Snapshot`.

The files were written from the evaluator's output and read line by line;
after an intended message change, rewrite them with
``ABLATION_PIN_MESSAGES=write .venv-dev/bin/python -m pytest tests/rules``
and review the diff.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ablation.errors import BundleInvalid, InputRejected, RejectedInput
from ablation.experiment import validate_experiment
from tests.builders.bundle import mutated, validate
from tests.builders.prepared import dumps, valid_minimal

FOLDER = Path(__file__).resolve().parents[1] / "rules" / "messages"
WRITE = os.environ.get("ABLATION_PIN_MESSAGES") == "write"

Mutation = Callable[[dict[str, Any]], object]


class Snapshot:
    """The stored messages of one rule family, ``tests/rules/messages/<family>.json``: ``{row name: messages}``."""

    def __init__(self, family: str) -> None:
        self.path = FOLDER / f"{family}.json"
        self.stored: dict[str, Any] = json.loads(self.path.read_text(encoding="utf-8")) if self.path.is_file() else {}
        self.written: dict[str, Any] = {}

    def check(self, name: str, got: object) -> None:
        """Compare ``got`` with the stored messages of row ``name`` (in write mode, keep it for :meth:`finish`)."""
        if WRITE:
            self.written[name] = got
            return
        assert name in self.stored, f"{name}: no stored messages in {self.path.name}; rewrite the snapshots"
        assert got == self.stored[name]

    def finish(self, names: Iterable[str]) -> None:
        """Write the file in write mode; otherwise check that it holds exactly the rows ``names``."""
        if WRITE:
            text = json.dumps(self.written, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
            self.path.write_text(text, encoding="utf-8")
            return
        assert sorted(self.stored) == sorted(names)


def reject_inputs(*tables: Iterable[tuple[str, Mutation]]) -> Iterator[tuple[str, bytes]]:
    """``(row name, input bytes)`` of each mutation row, applied to SPEC §11.1's valid input."""
    for table in tables:
        for name, mutate in table:
            obj = valid_minimal()
            mutate(obj)
            yield name, dumps(obj)


def bundle_inputs(table: Iterable[Any]) -> Iterator[tuple[str, tuple[Mutation, Iterable[str]]]]:
    """``(row id, (mutation, skipped reseal steps))`` of each row of a bundle rule table (``rule_cases``)."""
    for param in table:
        _, _, mutation, skip = param.values
        yield param.id, (mutation, skip)


def reject_messages(data: bytes) -> dict[str, Any]:
    """The fail-fast message and every ``--errors all`` message of a rejected input."""
    with pytest.raises(InputRejected) as first:
        validate_experiment(data)
    with pytest.raises(RejectedInput) as every:
        validate_experiment(data, collect_all=True)
    return {"first": str(first.value), "all": [str(v) for v in every.value.violations]}


def bundle_message(mutation: Mutation, skip: Iterable[str]) -> str:
    """The message of the first failing rule of the §11.1 bundle after ``mutation``."""
    with pytest.raises(BundleInvalid) as info:
        validate(mutated(mutation, skip))
    return str(info.value)


def ids(value: object) -> str:
    """A parametrize id: the row name, nothing for the data."""
    return value if isinstance(value, str) else ""
