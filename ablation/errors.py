"""The exception tree of ablation, grouped by who must act, each with its exit code.

Only :mod:`ablation.cli` turns these into exit codes and stderr lines
(PRODUCT.md "Command line": 0 ok, 2 usage, 3 integrity, 4 input rejected,
5 output refused, 6 resources exhausted, 1 internal error).

Every message is bounded here, in one place (no error line grows unbounded): a value echoed into a
message (a member name, a path, a found value) is cut by :func:`clip`, so a
64 MiB name in an input never becomes a 64 MB line on stderr.
"""

from __future__ import annotations

import errno

__all__ = [
    "NO_ROOM_ERRNOS",
    "RESOURCE_ERRNOS",
    "AblationError",
    "BundleInvalid",
    "InputRejected",
    "IntegrityError",
    "OutputRefused",
    "RejectedInput",
    "ResourcesExhausted",
    "UsageError",
    "clip",
    "format_where",
]

CLIP_LIMIT = 200
_LINE_LIMIT = 1000


def clip(text: str, limit: int = CLIP_LIMIT) -> str:
    """``text`` when it has at most ``limit`` characters, else its first ``limit`` and its full length.

    >>> clip("abc"), clip("x" * 300)[-19:]
    ('abc', 'x… (300 characters)')
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text)} characters)"


def _bounded(message: str) -> str:
    """A free-form message with every line cut to a bounded length, keeping its head and its tail.

    The tail usually says why (``…: Permission denied``), so a long line keeps
    its last ``CLIP_LIMIT`` characters and says how many were left out.
    """
    return "\n".join(_middle_cut(line) for line in message.split("\n"))


def _middle_cut(text: str) -> str:
    """``text`` when it has at most 1000 characters, else its first 800 and last 200 with the count cut between."""
    if len(text) <= _LINE_LIMIT:
        return text
    head, tail = _LINE_LIMIT - CLIP_LIMIT, CLIP_LIMIT
    return f"{text[:head]} …({len(text) - head - tail} characters cut)… {text[-tail:]}"


class AblationError(Exception):
    """Base of every error ablation reports on purpose (never a bug)."""

    exit_code = 1

    def __str__(self) -> str:
        """The message, each line bounded (values echoed into it are cut)."""
        return _bounded(super().__str__())


class UsageError(AblationError):
    """The command line is wrong (exit 2)."""

    exit_code = 2


class IntegrityError(AblationError):
    """A hash, closure, lock, archive digest or signature does not match (exit 3)."""

    exit_code = 3


class OutputRefused(AblationError):
    """The output path exists, is a symlink or cannot be written (exit 5)."""

    exit_code = 5


class ResourcesExhausted(AblationError):
    """Memory or file descriptors ran out (exit 6); the command stopped without a partial output."""

    exit_code = 6


# OSError numbers that mean the machine, not the file or the caller, ran short (exit 6).
RESOURCE_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM})
# OSError numbers of a write that found no room: a full disk, a quota, a file over its size limit (exit 5).
NO_ROOM_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def format_where(where: str) -> str:
    """Write a location for a message: the empty JSON Pointer is written ``""`` (SPEC §2.5).

    >>> format_where("")
    '""'
    >>> format_where("/cases/0")
    '/cases/0'
    """
    return '""' if where == "" else where


class InputRejected(AblationError):
    """One violated REJECT rule (SPEC §4.0): rule ID, where, expected and found.

    ``str()`` gives the SPEC §2.5 line
    ``<RULE-ID> at <where>: expected <expected>; found <found>``.

    Args:
        rule: the rule ID, e.g. ``"SL-13"``.
        where: a JSON Pointer, ``outer -> inner`` pointer, or ``byte N`` /
            ``<pointer> -> character N`` for encoding and grammar errors.
        expected: what the rule requires, in words.
        found: what was found (values shown with ``repr``, truncated).

    When printed, ``expected`` and ``found`` are cut by :func:`clip`, and
    ``where`` (a pointer up to 256 levels deep is legitimately long) keeps its
    first 800 and last 200 characters when it has more than 1000; the
    attributes keep the full text.
    """

    exit_code = 4

    def __init__(self, rule: str, where: str, expected: str, found: str) -> None:
        super().__init__(rule, where, expected, found)
        self.rule = rule
        self.where = where
        self.expected = expected
        self.found = found

    def __str__(self) -> str:
        where, expected, found = _middle_cut(format_where(self.where)), clip(self.expected), clip(self.found)
        return f"{self.rule} at {where}: expected {expected}; found {found}"


class RejectedInput(AblationError):
    """Every violation found with ``--errors all`` (at least one), in the order found.

    The first entry equals the error the fail-fast mode would have raised.
    """

    exit_code = 4

    def __init__(self, violations: list[InputRejected]) -> None:
        super().__init__(violations)
        self.violations = violations

    def __str__(self) -> str:
        return "\n".join(str(v) for v in self.violations)


class BundleInvalid(Exception):
    """A structural bundle violates an SB/REQ/RCPT/OBS rule (UNAVAILABLE, SPEC §4.0, §6).

    Not an :class:`AblationError`: it never leaves validation. The case's
    ``structural`` and ``fusion`` arms become unavailable with the failure
    ``structural_evidence_validation_failed:<rule> <detail>``.
    """

    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(rule, detail)
        self.rule = rule
        self.detail = detail

    def __str__(self) -> str:
        return f"{self.rule} {self.detail}"
