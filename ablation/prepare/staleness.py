"""The staleness sample of each repository and ``staleness-sheet.md``, the staleness reviewer's sheet.

After every repository passed its source-list gates, ``capture`` picks each
repository's sample from its usable source-list stdout
(:func:`ablation.prepare.build.staleness_pick`: ``spread`` by default, ``first``
on request; fewer present items than the size are all taken) and writes the
sheet: per repository the sampled paths in UTF-8 order (the order of
``sampledPaths``, which the review's ``sampled`` repeats), their ``summary`` and
``readWhen``, the blob id at the commit (from the evidence listing), and the
source-list artifact's SHA-256; and the ``sampled`` lines of a
``staleness-review.toml`` to paste. No truth, no rankings. The sheet is a pure
function of the captured files, so a ``--resume`` recomputes it byte for byte.

Every value from a repository is rendered inert (:mod:`ablation.notes.markdown`).

Spec: PREPARE.md §4 ("staleness sample", "Staleness sample"), §3 ("staleness-review.toml").
"""

from __future__ import annotations

from dataclasses import dataclass

from ablation.canonical import raw_digest
from ablation.notes.markdown import _code, _text
from ablation.prepare.build import staleness_pick
from ablation.prepare.experiment_file import Experiment, Repository
from ablation.prepare.tomltext import toml_string, where
from ablation.strictjson import parse_text

__all__ = ["SHEET_NAME", "SampledPath", "StalenessPick", "pick_sample", "render_staleness_sheet"]

SHEET_NAME = "staleness-sheet.md"
"""The sheet's file name in D."""
_HOW = {
    "spread": "the present paths ordered by SHA-256 of the artifact digest, a line feed and the path; the first",
    "first": "the first present paths in artifact order (UTF-8 order)",
}


@dataclass(frozen=True, slots=True)
class SampledPath:
    """One sampled item: its path, ``summary``, ``readWhen`` and blob id at the commit."""

    path: str
    summary: str
    read_when: tuple[str, ...]
    blob: str | None


@dataclass(frozen=True, slots=True)
class StalenessPick:
    """One repository's sample.

    Attributes:
        repository: the ``[[repository]]`` entry.
        raw_sha256: the source-list artifact's ``rawSha256`` (``sha256:`` + hex).
        item_count, present_count: the artifact's items and metadata-present items.
        sampled: the sample, in UTF-8 order.
    """

    repository: Repository
    raw_sha256: str
    item_count: int
    present_count: int
    sampled: tuple[SampledPath, ...]


def _blobs(evidence: bytes) -> dict[str, str]:
    """Path → object id from ``ls-files --cached --stage -z`` output (stage-0 entries)."""
    found = {}
    for record in evidence.split(b"\0")[:-1]:
        head, _, path = record.partition(b"\t")
        fields = head.decode("ascii", "replace").split(" ")
        if len(fields) == 3 and fields[2] == "0":
            found[path.decode("utf-8", "replace")] = fields[1]
    return found


def pick_sample(experiment: Experiment, repository: Repository, stdout: bytes, evidence: bytes) -> StalenessPick:
    """The sample of one repository from its usable source-list stdout (which passed the gates).

    Args:
        experiment: for ``[staleness]``'s rule and size.
        repository: the repository.
        stdout: source-list's stdout bytes (a valid ``source-list.v1`` artifact).
        evidence: the evidence command's stdout (blob ids).
    """
    payload = parse_text(stdout.decode("utf-8")).value
    assert isinstance(payload, dict)
    items = payload["items"]
    assert isinstance(items, list)
    present = {item["path"]: item for item in items if item["metadataStatus"] == "present"}
    raw_sha256 = raw_digest(stdout)
    paths = staleness_pick(experiment.staleness_rule, experiment.staleness_size, raw_sha256, list(present))
    blobs = _blobs(evidence)
    sampled = tuple(
        SampledPath(path, present[path]["summary"], tuple(present[path]["readWhen"]), blobs.get(path)) for path in paths
    )
    return StalenessPick(repository, raw_sha256, len(items), len(present), sampled)


def _repository_lines(pick: StalenessPick) -> list[str]:
    repo = pick.repository
    lines = [
        "",
        f"## {where('repository', repo.index)} {_code(repo.id, cell=False)}",
        "",
        f"- commit: {_code(repo.commit, cell=False)}",
        f"- source-list artifact: `{pick.raw_sha256}` ({pick.item_count} items, {pick.present_count} metadata-present)",
        f"- sampled: {len(pick.sampled)} of {pick.present_count} metadata-present paths",
        "",
    ]
    for n, item in enumerate(pick.sampled, start=1):
        blob = _code(item.blob, cell=False) if item.blob else "(not in the index listing)"
        hints = "; ".join(_code(h, cell=False) for h in item.read_when) or "none"
        lines += [
            f"{n}. {_code(item.path, cell=False)}, blob {blob}",
            f"   - summary: {_text(item.summary)}",
            f"   - readWhen: {hints}",
        ]
    return lines


def _review_snippet(picks: list[StalenessPick]) -> list[str]:
    body = []
    for pick in picks:
        sampled = ", ".join(toml_string(item.path) for item in pick.sampled)
        body += [
            "[[repository]]",
            f"id = {toml_string(pick.repository.id)}",
            f"sampled = [{sampled}]",
            "stale = []",
            "",
        ]
    # Every line starts with a TOML key or table header, never a backtick: the fence cannot close early.
    return ["", "## For staleness-review.toml", "", "```toml", *body[:-1], "```"]


def render_staleness_sheet(experiment: Experiment, picks: list[StalenessPick]) -> str:
    """The sheet's Markdown text (ends with one line feed); ``picks`` in the experiment's repository order."""
    rule = experiment.staleness_rule
    lines = [
        f"# Staleness-review sheet: {_code(experiment.id, cell=False)}",
        "",
        f"- experiment SHA-256: `{experiment.sha256}`",
        f"- rule: `{rule}`, size {experiment.staleness_size}: {_HOW[rule]} {experiment.staleness_size} are sampled",
        "- for each sampled path: do its `summary` and `readWhen` still describe the file at the commit?",
        "- the review (`staleness-review.toml`) names this sheet's SHA-256 as `sheet_sha256`, repeats each",
        "  repository's `sampled` list in this order, and lists the stale paths among them as `stale`",
        "",
        "No truth, no rankings: only the sampled metadata is shown.",
    ]
    for pick in picks:
        lines += _repository_lines(pick)
    lines += _review_snippet(picks)
    return "\n".join(lines) + "\n"
