"""The experiment file: a TOML document written by the operator, read into frozen records (PRE-1 … PRE-4).

:func:`load_experiment` parses the exact bytes with the standard library's
``tomllib`` and reads every table against its closed key list
(:mod:`ablation.prepare.schema`). It checks the file's shape only: UTF-8 and
TOML (PRE-1), no unknown key (PRE-2), every required key (PRE-3), every value
of its type (PRE-4). What the values must satisfy is :mod:`ablation.prepare.checks`'s.
Defaults are applied here (``[sci_defaults]``, ``staleness.rule``, the backend's
``executable_*``), so every later step sees one value per setting.

The experiment's identity is the SHA-256 of its bytes (:attr:`Experiment.sha256`):
reviews bind to it, and nothing here rewrites or normalises a value.

Spec: PREPARE.md §3; TOML 1.0.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass

from ablation.prepare.findings import Findings
from ablation.prepare.schema import Table

__all__ = [
    "CASE_KEYS",
    "DEFAULT_LIMITS",
    "DEFAULT_PROCESS_TIMEOUT_S",
    "TOOL_KEYS",
    "Case",
    "Experiment",
    "ExtraPin",
    "Limits",
    "Repository",
    "SciSeeds",
    "Tool",
    "load_experiment",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ExtraPin:
    """One more file a tool runs (``extra_pins``): its absolute path and bare-hex SHA-256 pin."""

    path: str
    sha256: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Tool:
    """One ``[tools.<key>]`` table, as written (the backend's ``executable_*`` defaulted).

    Attributes:
        key: ``git``, ``node``, ``source_list``, ``sci``, ``backend`` or ``strace``.
        path: the file that runs (absolute).
        sha256: its pin, bare 64 lowercase hex.
        revision: a ``Commit`` (``source_list`` and ``sci``), or ``None``.
        revision_from_checkout: derive the revision as ``pin`` does.
        record_version: run ``<path> --version`` once at capture (PREPARE.md §4).
        extra_pins: further files the tool runs, pinned the same way.
        name, version, workflow: ``sci`` provenance; ``name``, ``version`` of the backend.
        executable_name, executable_version: the backend executable's (default: name, version).
    """

    key: str
    path: str
    sha256: str
    revision: str | None = None
    revision_from_checkout: bool | None = None
    record_version: bool = False
    extra_pins: tuple[ExtraPin, ...] = ()
    name: str | None = None
    version: str | None = None
    workflow: str | None = None
    executable_name: str | None = None
    executable_version: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """``[sci_defaults].limits``: every request's ``limits`` (REQ-12 … REQ-14)."""

    max_candidates: int = 2000
    max_candidates_per_file: int = 200
    max_evidence_bytes: int = 1_048_576
    timeout_ms: int = 60_000

    def request_limits(self) -> dict[str, int]:
        """The request's ``limits`` object, members in REQ-12's order."""
        return {
            "maxCandidates": self.max_candidates,
            "maxCandidatesPerFile": self.max_candidates_per_file,
            "maxEvidenceBytes": self.max_evidence_bytes,
            "timeoutMs": self.timeout_ms,
        }


DEFAULT_LIMITS = Limits()
DEFAULT_PROCESS_TIMEOUT_S = 300


@dataclass(frozen=True, slots=True, kw_only=True)
class Repository:
    """One ``[[repository]]``: ``index`` is its 0-based position in the array."""

    index: int
    id: str
    source: str
    commit: str
    expect_source_list_sha256: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SciSeeds:
    """``[case.sci]``: the ``language`` and ``pattern`` seeds and the path seeds, in the file's order."""

    language: str
    pattern: str
    paths: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Case:
    """One ``[[case]]``: ``index`` is its 0-based position; ``repository`` the id it names; ``sci`` or ``None``."""

    index: int
    id: str
    repository: str
    question: str
    truth: tuple[str, ...]
    max_items: int
    sci: SciSeeds | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Experiment:
    """A whole experiment file whose shape is right (PRE-1 … PRE-4 hold; values are checked later).

    Attributes:
        path: the file as named on the command line.
        sha256: bare hex SHA-256 of its exact bytes: what reviews bind to.
        tools: the ``[tools.*]`` tables by key, in the order of :data:`TOOL_KEYS`.
    """

    path: str
    sha256: str
    id: str
    protocol: str
    authority: str
    work_root: str
    environment_path: str
    tools: dict[str, Tool]
    limits: Limits
    process_timeout_s: int
    staleness_rule: str
    staleness_size: int
    repositories: tuple[Repository, ...]
    cases: tuple[Case, ...]

    def repository(self, repository_id: str) -> Repository | None:
        """The declared repository with this id (the first, should ids repeat), or ``None``."""
        return next((r for r in self.repositories if r.id == repository_id), None)


_TOP_KEYS = ("experiment", "tools", "sci_defaults", "staleness", "repository", "case")
_EXPERIMENT_KEYS = ("id", "protocol", "authority", "work_root", "environment_path")
_PIN = ("path", "sha256")
_ALWAYS = ("record_version", "extra_pins")
#: Every ``[tools.*]`` table and its closed key list (PREPARE.md §3).
TOOL_KEYS: dict[str, tuple[str, ...]] = {
    "git": (*_PIN, *_ALWAYS),
    "node": (*_PIN, *_ALWAYS),
    "source_list": (*_PIN, "revision", "revision_from_checkout", "extra_pins"),
    "sci": (*_PIN, "revision", "revision_from_checkout", "name", "version", "workflow", *_ALWAYS),
    "backend": (*_PIN, "name", "version", "executable_name", "executable_version", *_ALWAYS),
    "strace": (*_PIN, *_ALWAYS),
}
_REQUIRED_TOOLS = ("git", "node", "source_list")
_SCI_TOOLS = ("sci", "backend")
_DEFAULTS_KEYS = ("limits", "process_timeout_s")
_LIMIT_KEYS = ("max_candidates", "max_candidates_per_file", "max_evidence_bytes", "timeout_ms")
_STALENESS_KEYS = ("rule", "size")
_REPOSITORY_KEYS = ("id", "source", "commit", "expect_source_list_sha256")
#: The closed key list of a ``[[case]]`` table.
CASE_KEYS = ("id", "repository", "question", "truth", "max_items", "sci")
_SCI_KEYS = ("language", "pattern", "paths")
_TOML_POSITION = re.compile(r"(.*) \(at (line \d+, column \d+|end of document)\)")


def _parse(data: bytes, findings: Findings) -> dict[str, object] | None:
    """PRE-1: the bytes as UTF-8 text and that text as TOML; ``None`` (and a finding) when not."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        findings.error("PRE-1", f"byte {exc.start}", "UTF-8 text", f"the byte 0x{data[exc.start]:02x}")
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        position = _TOML_POSITION.fullmatch(message)
        at, why = (position.group(2), position.group(1)) if position else ("(top level)", message)
        findings.error("PRE-1", at, "a TOML 1.0 document", why)
        return None


def _extra_pins(table: Table) -> tuple[ExtraPin, ...] | None:
    tables = table.tables("extra_pins", _PIN, required=False)
    if tables is None:
        return None if "extra_pins" in table.value else ()
    pins = [(t.string("path"), t.string("sha256")) for t in tables]
    if any(path is None or sha is None for path, sha in pins):
        return None
    return tuple(ExtraPin(path=path, sha256=sha) for path, sha in pins if path is not None and sha is not None)


_NAMED = ("name", "version", "workflow", "executable_name", "executable_version")
_NAMED_REQUIRED = frozenset({"name", "version", "workflow"})


def _tool(key: str, table: Table) -> Tool | None:
    """One ``[tools.<key>]`` table; ``None`` when one of its values is missing or mistyped."""
    before = table.findings.error_count()
    allowed = frozenset(TOOL_KEYS[key])
    path, sha256 = table.string("path"), table.string("sha256")
    extra = _extra_pins(table)
    named = {k: table.string(k, required=k in _NAMED_REQUIRED) for k in _NAMED if k in allowed}
    revision = table.string("revision", required=False) if "revision" in allowed else None
    from_checkout = table.boolean("revision_from_checkout") if "revision_from_checkout" in allowed else None
    record = table.boolean("record_version") if "record_version" in allowed else None
    if table.findings.error_count() != before or path is None or sha256 is None or extra is None:
        return None
    if key == "backend":
        named["executable_name"] = named["executable_name"] or named["name"]
        named["executable_version"] = named["executable_version"] or named["version"]
    return Tool(
        key=key,
        path=path,
        sha256=sha256,
        revision=revision,
        revision_from_checkout=from_checkout,
        record_version=bool(record),
        extra_pins=extra,
        **named,
    )


def _tools(top: Table) -> dict[str, Tool] | None:
    """Every ``[tools.*]`` table; ``sci`` and ``backend`` are required once some case has ``[case.sci]``."""
    tools = top.table("tools", tuple(TOOL_KEYS))
    if tools is None:
        return None
    cases = top.value.get("case")
    any_sci = isinstance(cases, list) and any(isinstance(c, dict) and "sci" in c for c in cases)
    found: dict[str, Tool] = {}
    for key, keys in TOOL_KEYS.items():
        required = key in _REQUIRED_TOOLS or (any_sci and key in _SCI_TOOLS)
        table = tools.table(key, keys, required=required)
        tool = _tool(key, table) if table is not None else None
        if tool is not None:
            found[key] = tool
    return found


def _defaults(top: Table) -> tuple[Limits, int] | None:
    """``[sci_defaults]``: every key optional, each absent one taking its default."""
    if "sci_defaults" not in top.value:
        return DEFAULT_LIMITS, DEFAULT_PROCESS_TIMEOUT_S
    before = top.findings.error_count()
    defaults = top.table("sci_defaults", _DEFAULTS_KEYS)
    if defaults is None:
        return None
    timeout = defaults.integer("process_timeout_s", required=False)
    limits = DEFAULT_LIMITS
    limits_table = defaults.table("limits", _LIMIT_KEYS, required=False)
    if limits_table is not None:
        values = {k: limits_table.integer(k) for k in _LIMIT_KEYS if k in limits_table.value}
        limits = Limits(**{k: v for k, v in values.items() if v is not None})
    if top.findings.error_count() != before:
        return None
    return limits, DEFAULT_PROCESS_TIMEOUT_S if timeout is None else timeout


def _repositories(top: Table) -> tuple[Repository, ...] | None:
    tables = top.tables("repository", _REPOSITORY_KEYS)
    if tables is None:
        return None
    found = []
    for r, t in enumerate(tables):
        values = (t.string("id"), t.string("source"), t.string("commit"))
        expect = t.string("expect_source_list_sha256", required=False)
        repo_id, source, commit = values
        if repo_id is not None and source is not None and commit is not None:
            found.append(
                Repository(index=r, id=repo_id, source=source, commit=commit, expect_source_list_sha256=expect)
            )
    return tuple(found) if len(found) == len(tables) else None


def _case(c: int, t: Table) -> Case | None:
    before = t.findings.error_count()
    case_id, repository, question = t.string("id"), t.string("repository"), t.string("question")
    truth, max_items = t.strings("truth"), t.integer("max_items")
    sci = None
    sci_table = t.table("sci", _SCI_KEYS, required=False)
    if sci_table is not None:
        language, pattern = sci_table.string("language"), sci_table.string("pattern")
        paths = sci_table.strings("paths", required=False) or []
        if language is not None and pattern is not None:
            sci = SciSeeds(language=language, pattern=pattern, paths=tuple(paths))
    if t.findings.error_count() != before:
        return None
    assert case_id is not None and repository is not None and question is not None
    assert truth is not None and max_items is not None
    return Case(
        index=c, id=case_id, repository=repository, question=question, truth=tuple(truth), max_items=max_items, sci=sci
    )


def _cases(top: Table) -> tuple[Case, ...] | None:
    tables = top.tables("case", CASE_KEYS)
    if tables is None:
        return None
    found = [_case(c, t) for c, t in enumerate(tables)]
    return tuple(c for c in found if c is not None) if all(c is not None for c in found) else None


def load_experiment(data: bytes, path: str, findings: Findings) -> Experiment | None:
    """Read an experiment file's bytes into an :class:`Experiment`.

    Args:
        data: the file's exact bytes.
        path: the file as named on the command line (kept for messages and sheets).
        findings: receives PRE-1 … PRE-4, every one found, in document order.

    Returns:
        The experiment, or ``None`` when a finding was recorded.

    Spec: PREPARE.md §3 (keys, defaults), check 1.
    """
    document = _parse(data, findings)
    if document is None:
        return None
    before = findings.error_count()
    top = Table(document, (), _TOP_KEYS, findings)
    meta = top.table("experiment", _EXPERIMENT_KEYS)
    texts = {k: meta.string(k) for k in _EXPERIMENT_KEYS} if meta is not None else {}
    repositories = _repositories(top)
    cases = _cases(top)
    tools = _tools(top)
    defaults = _defaults(top)
    staleness = top.table("staleness", _STALENESS_KEYS)
    rule = staleness.string("rule", required=False) if staleness is not None else None
    size = staleness.integer("size") if staleness is not None else None
    if findings.error_count() != before:
        return None
    assert tools is not None and defaults is not None and repositories is not None and cases is not None
    assert size is not None and all(v is not None for v in texts.values())
    return Experiment(
        path=path,
        sha256=hashlib.sha256(data).hexdigest(),
        id=str(texts["id"]),
        protocol=str(texts["protocol"]),
        authority=str(texts["authority"]),
        work_root=str(texts["work_root"]),
        environment_path=str(texts["environment_path"]),
        tools=tools,
        limits=defaults[0],
        process_timeout_s=defaults[1],
        staleness_rule="spread" if rule is None else rule,
        staleness_size=size,
        repositories=repositories,
        cases=cases,
    )
