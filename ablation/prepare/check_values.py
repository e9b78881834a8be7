"""Checks of the experiment file's own values: ``[experiment]``, ``[tools.*]``, defaults, repositories.

Nothing here reads a file or a repository. Where a value would break a SPEC
rule of the prepared input it names that rule (TOP-14, REPO-3, PREP-9, RCPT-11,
SB-12, REQ-13, …); otherwise a PRE rule. A text that is refused for not being
``Normalized`` is shown in its normalised form, as a TOML string to paste back.

Spec: PREPARE.md §3 checks 1, 10, 11, 13, 14; SPEC.md §4.0 (predicates).
"""

from __future__ import annotations

import os
import re
import tempfile

from ablation.contracts.base import show
from ablation.contracts.sci_request import LIMIT_MAXIMA
from ablation.experiment import PROTOCOL
from ablation.prepare.experiment_file import Experiment, Tool
from ablation.prepare.findings import Findings
from ablation.prepare.tomltext import toml_string, where
from ablation.text import W, is_abs_path, is_commit, is_nbtext, is_normalized, is_portable, is_token

__all__ = [
    "SCI_NAME",
    "SCI_WORKFLOW",
    "check_experiment_values",
    "is_within",
    "normalized",
    "normalized_expected",
]

SCI_NAME = "semantic-code-intelligence"
"""The only producer name a receipt may carry (RCPT-11)."""
SCI_WORKFLOW = "structural-evidence-export-v1"
"""The only producer workflow a bundle may expect (SB-12)."""

_HEX64 = re.compile(r"[0-9a-f]{64}")
_W_RUN = re.compile("[" + "".join(sorted(W)) + "]+")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_WORK_ROOT_LIMIT = 4000
# The SPEC rule that an AbsPath tool path would break, where the input records that path.
_PATH_RULES = {"node": "PREP-7", "source_list": "PREP-8", "sci": "OBS-9", "backend": "OBS-12"}
_REVISION_RULES = {"source_list": "PREP-9", "sci": "OBS-9"}
_HOMES = ("/home/", "/root/", "/Users/")


def normalized(text: str) -> str:
    """``norm(s)`` of SPEC §4.0: W trimmed at both ends, each run of W characters one space.

    >>> normalized("\\u3000How  does\\tit\\nwork? ")
    'How does it work?'
    """
    return _W_RUN.sub(" ", text).strip(" ")


def normalized_expected(what: str, text: str) -> str:
    """The expected part for a text that is not ``Normalized``: its normalised form, ready to paste."""
    return f"{what}; normalised: {toml_string(normalized(text))}"


def is_within(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies below it (both absolute and normalised)."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _check_meta(experiment: Experiment, findings: Findings) -> None:
    """``[experiment]``: the id, the protocol, the authority, ``work_root``, ``environment_path``."""
    if not is_token(experiment.id):
        findings.error("PRE-5", where("experiment", "id"), "a Token (SPEC §4.0)", show(experiment.id))
    if experiment.protocol != PROTOCOL:
        findings.error("TOP-14", where("experiment", "protocol"), show(PROTOCOL), show(experiment.protocol))
    if not is_nbtext(experiment.authority, 1 << 20):
        findings.error("PRE-6", where("experiment", "authority"), "a nonblank statement", show(experiment.authority))
    _check_work_root(experiment.work_root, findings)
    entries = experiment.environment_path.split(":")
    bad = [e for e in entries if not e.startswith("/") or _CONTROL.search(e) is not None]
    if bad:
        findings.error(
            "PRE-8",
            where("experiment", "environment_path"),
            "absolute folders separated by ':', none empty",
            f"the entry {show(bad[0])}",
        )


def _check_work_root(work_root: str, findings: Findings) -> None:
    """PRE-7, and the PRE-23 warning when it is not ``Portable`` (PREPARE.md §3 checks 11, 12)."""
    at = where("experiment", "work_root")
    expected = f"an absolute path in normal form, not '/', of at most {_WORK_ROOT_LIMIT} characters"
    if not is_abs_path(work_root) or _CONTROL.search(work_root) is not None or len(work_root) > _WORK_ROOT_LIMIT:
        findings.error("PRE-7", at, expected, show(work_root))
        return
    normal = os.path.normpath(work_root)
    if normal != work_root or normal == "/" or work_root.startswith("//"):
        findings.error("PRE-7", at, f"{expected}; normal form: {toml_string(normal)}", show(work_root))
        return
    if not is_portable(work_root):
        findings.warn(
            "PRE-23",
            at,
            "a Portable path (an exporter that echoes a request path into a message would break RCPT-15 or RCPT-40)",
            show(work_root),
        )


def _check_hex(value: str, at: str, findings: Findings) -> None:
    if _HEX64.fullmatch(value) is None:
        findings.error("PRE-9", at, "a bare SHA-256: 64 lowercase hex digits", show(value))


def _check_tool_path(path: str, at: str, rule: str, findings: Findings) -> None:
    if not is_abs_path(path):
        findings.error(rule, at, "an absolute path (AbsPath)", show(path))
        return
    temporary = {"/tmp/", tempfile.gettempdir().rstrip("/") + "/"}
    home = os.environ.get("HOME", "")
    homes = {*_HOMES, *([home.rstrip("/") + "/"] if home.startswith("/") and home.rstrip("/") else [])}
    if any(path.startswith(prefix) for prefix in homes):
        findings.warn("PRE-24", at, "a tool path outside home directories", show(path))
    elif any(path.startswith(prefix) for prefix in temporary):
        findings.warn("PRE-24", at, "a tool path outside the temporary directory", show(path))


def _check_revision(key: str, tool: Tool, findings: Findings) -> None:
    """PRE-11: ``source_list`` and ``sci`` carry exactly one of the two; a revision is a ``Commit``."""
    given = (tool.revision is not None) + (tool.revision_from_checkout is not None)
    if given != 1:
        found = "both" if given == 2 else "neither"
        findings.error("PRE-11", where("tools", key), "exactly one of revision, revision_from_checkout", found)
    elif tool.revision_from_checkout is False:
        findings.error("PRE-11", where("tools", key, "revision_from_checkout"), "true (or a revision instead)", "false")
    elif tool.revision is not None and not is_commit(tool.revision):
        at = where("tools", key, "revision")
        findings.error(_REVISION_RULES[key], at, "a Commit: 40 or 64 lowercase hex digits", show(tool.revision))


def _check_provenance(tools: dict[str, Tool], findings: Findings) -> None:
    """RCPT-11 … RCPT-13 and SB-12 on ``[tools.sci]`` and ``[tools.backend]`` (PREPARE.md §3 check 13)."""
    sci = tools.get("sci")
    if sci is not None:
        if sci.name != SCI_NAME:
            findings.error("RCPT-11", where("tools", "sci", "name"), show(SCI_NAME), show(sci.name))
        if not is_token(sci.version):
            findings.error("RCPT-11", where("tools", "sci", "version"), "a Token", show(sci.version))
        if sci.workflow != SCI_WORKFLOW:
            findings.error("SB-12", where("tools", "sci", "workflow"), show(SCI_WORKFLOW), show(sci.workflow))
    backend = tools.get("backend")
    if backend is not None:
        for rule, key, value in (
            ("RCPT-12", "name", backend.name),
            ("RCPT-12", "version", backend.version),
            ("RCPT-13", "executable_name", backend.executable_name),
            ("RCPT-13", "executable_version", backend.executable_version),
        ):
            if not is_token(value):
                findings.error(rule, where("tools", "backend", key), "a Token", show(value))


def _check_tools(experiment: Experiment, findings: Findings) -> None:
    for key, tool in experiment.tools.items():
        _check_tool_path(tool.path, where("tools", key, "path"), _PATH_RULES.get(key, "PRE-10"), findings)
        _check_hex(tool.sha256, where("tools", key, "sha256"), findings)
        for k, extra in enumerate(tool.extra_pins):
            _check_tool_path(extra.path, where("tools", key, "extra_pins", k, "path"), "PRE-10", findings)
            _check_hex(extra.sha256, where("tools", key, "extra_pins", k, "sha256"), findings)
        if key in _REVISION_RULES:
            _check_revision(key, tool, findings)
    _check_provenance(experiment.tools, findings)


def _check_defaults(experiment: Experiment, findings: Findings) -> None:
    """REQ-13, REQ-14 on the limits; PRE-13 on the process timeout; PRE-14 on the staleness sample."""
    limits = experiment.limits
    values = dict(zip(LIMIT_MAXIMA, (getattr(limits, k) for k in _LIMIT_NAMES), strict=True))
    for (name, maximum), key in zip(LIMIT_MAXIMA.items(), _LIMIT_NAMES, strict=True):
        if not 1 <= values[name] <= maximum:
            at = where("sci_defaults", "limits", key)
            findings.error("REQ-13", at, f"an integer from 1 to {maximum}", show(values[name]))
    if limits.max_candidates_per_file > limits.max_candidates >= 1:
        at = where("sci_defaults", "limits", "max_candidates_per_file")
        expected = f"at most max_candidates ({limits.max_candidates})"
        findings.error("REQ-14", at, expected, show(limits.max_candidates_per_file))
    timeout = experiment.process_timeout_s
    if timeout < 1 or timeout * 1000 <= limits.timeout_ms:
        expected = f"an integer of seconds from 1 with process_timeout_s × 1000 > timeout_ms ({limits.timeout_ms})"
        findings.error("PRE-13", where("sci_defaults", "process_timeout_s"), expected, show(timeout))
    if experiment.staleness_rule not in ("spread", "first"):
        findings.error("PRE-14", where("staleness", "rule"), "'spread' or 'first'", show(experiment.staleness_rule))
    if experiment.staleness_size < 1:
        findings.error(
            "PRE-14", where("staleness", "size"), "an integer of at least 1", show(experiment.staleness_size)
        )


_LIMIT_NAMES = ("max_candidates", "max_candidates_per_file", "max_evidence_bytes", "timeout_ms")


def _check_repositories(experiment: Experiment, findings: Findings) -> None:
    """REPO-3, REPO-6, REPO-4, PRE-15 (the source is absolute), PRE-9 (the expected stdout digest)."""
    first: dict[str, int] = {}
    for repo in experiment.repositories:
        r = repo.index
        if not is_nbtext(repo.id, 128):
            findings.error("REPO-3", where("repository", r, "id"), "a Normalized NBText(128)", show(repo.id))
        elif not is_normalized(repo.id):
            expected = normalized_expected("a Normalized NBText(128)", repo.id)
            findings.error("REPO-3", where("repository", r, "id"), expected, show(repo.id))
        k = first.setdefault(repo.id, r)
        if k != r:
            findings.error(
                "REPO-6",
                where("repository", r, "id"),
                "an id no other repository has",
                f"the id of {where('repository', k)}",
            )
        if not is_commit(repo.commit):
            at = where("repository", r, "commit")
            findings.error("REPO-4", at, "a Commit: 40 or 64 lowercase hex digits", show(repo.commit))
        if not is_abs_path(repo.source):
            findings.error("PRE-15", where("repository", r, "source"), "an absolute path", show(repo.source))
        if repo.expect_source_list_sha256 is not None:
            _check_hex(repo.expect_source_list_sha256, where("repository", r, "expect_source_list_sha256"), findings)


def check_experiment_values(experiment: Experiment, findings: Findings) -> None:
    """Every check of the experiment's own values outside ``[[case]]`` (PREPARE.md §3 checks 1, 10–14).

    Records, in this order: ``[experiment]`` (TOP-14, PRE-5 … PRE-8, the PRE-23
    warning), ``[tools.*]`` (PREP-7, PREP-8, OBS-9, OBS-12, PRE-9 … PRE-11,
    RCPT-11 … RCPT-13, SB-12, the PRE-24 warning), ``[sci_defaults]`` (REQ-13,
    REQ-14, PRE-13), ``[staleness]`` (PRE-14), ``[[repository]]`` (REPO-3,
    REPO-6, REPO-4, PRE-15, PRE-9).
    """
    _check_meta(experiment, findings)
    _check_tools(experiment, findings)
    _check_defaults(experiment, findings)
    _check_repositories(experiment, findings)
