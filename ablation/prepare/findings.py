"""What preparation reports: one finding per broken rule, and the error that carries the first one.

A finding is a rule ID (``PRE-n``, or the SPEC rule the experiment file
already breaks: ``CASE-5``, ``REQ-9``, …), a location, what was expected and
what was found: the one-line form of SPEC §2.5,
``<RULE-ID> at <where>: expected <expected>; found <found>``. For the
experiment file ``<where>`` is a TOML location (:mod:`ablation.prepare.tomltext`).

Errors stop the command (exit 4, or 3 for an integrity rule such as a tool pin);
warnings are printed and never change the exit code (PREPARE.md §3 checks 9, 11).

Spec: PREPARE.md §2 (exit codes, error format), §3; SPEC.md §2.5.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from ablation.errors import AblationError, clip

__all__ = ["EXIT_INTEGRITY", "EXIT_REJECTED", "Finding", "Findings", "PrepareRejected"]

EXIT_REJECTED = 4
EXIT_INTEGRITY = 3

Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One broken rule: ``<rule> at <where>: expected <expected>; found <found>``.

    Attributes:
        rule: ``PRE-n`` or a SPEC rule ID.
        where: the TOML location (``case[2].sci.pattern``) or another location the rule names.
        expected: what the rule requires. Never cut: it may carry the normalised form
            of a refused text, which the author pastes back into the file.
        found: what was found (cut to 200 characters when printed).
        severity: ``error`` (the command refuses) or ``warning``.
        exit_code: 4 (rejected) or 3 (integrity: a tool whose bytes do not match its pin).
    """

    rule: str
    where: str
    expected: str
    found: str
    severity: Severity = "error"
    exit_code: int = EXIT_REJECTED

    def line(self) -> str:
        """The one-line form (SPEC §2.5), ``found`` cut by :func:`ablation.errors.clip`."""
        return f"{self.rule} at {self.where}: expected {self.expected}; found {clip(self.found)}"


class PrepareRejected(AblationError):
    """The first error (and, with ``--errors all``, every error) of a preparation command.

    ``str()`` gives one line per finding, each in the SPEC §2.5 form;
    :attr:`exit_code` is that of the first finding (4 rejected, 3 integrity).
    """

    def __init__(self, findings: Iterable[Finding]) -> None:
        self.findings = tuple(findings)
        if not self.findings:
            msg = "PrepareRejected needs at least one finding"
            raise ValueError(msg)
        super().__init__(self.findings)
        self.exit_code = self.findings[0].exit_code

    def __str__(self) -> str:
        return "\n".join(f.line() for f in self.findings)


class Findings:
    """The findings of one command, in the order the checks ran.

    Checks call :meth:`error` and :meth:`warn`; callers skip checks that depend
    on a failed one (:meth:`count` before and after tells them).
    """

    def __init__(self) -> None:
        self.items: list[Finding] = []

    def error(self, rule: str, where: str, expected: str, found: str, *, exit_code: int = EXIT_REJECTED) -> None:
        """Record a broken rule that stops the command (exit 4, or ``exit_code``)."""
        self.items.append(Finding(rule, where, expected, found, "error", exit_code))

    def warn(self, rule: str, where: str, expected: str, found: str) -> None:
        """Record a warning (printed; the exit code stays 0)."""
        self.items.append(Finding(rule, where, expected, found, "warning"))

    @property
    def errors(self) -> list[Finding]:
        """The errors, in the order found."""
        return [f for f in self.items if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        """The warnings, in the order found."""
        return [f for f in self.items if f.severity == "warning"]

    def error_count(self) -> int:
        """How many errors were recorded so far."""
        return sum(1 for f in self.items if f.severity == "error")

    def raise_errors(self, *, collect_all: bool) -> None:
        """Raise :class:`PrepareRejected` with the first error (every error with ``collect_all``), if any."""
        errors = self.errors
        if errors:
            raise PrepareRejected(errors if collect_all else errors[:1])
