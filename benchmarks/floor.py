"""The floor of issue 6: the work on a prepared input that no evaluator can skip.

Usage, from the repository root::

    python3 benchmarks/floor.py benchmarks/data/L.json

It reads the file's bytes, SHA-256-hashes them, parses them with ``json.loads``,
then parses every embedded raw JSON text once with ``json.loads``:

* each repository's ``sourceListArtifact.rawJson``;
* each case's ``structuralEvidence.executionObservation.rawEvidence`` members
  ``requestJson``, ``receiptJson``, ``processJson``, ``stateJson`` and
  ``transcriptJson``, where present and strings.

Nothing is validated. The file's bytes and its parsed document stay alive to the
end (an evaluator needs both); each embedded text's parsed value is dropped as
soon as it is made. It prints one line: the SHA-256, the byte count and the
number of embedded texts parsed. ``benchmarks/bench.py`` runs it as a whole
process and measures its wall time and peak RSS next to ``ablation verify`` and
``ablation run``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator

__all__ = ["BUNDLE_TEXTS", "embedded_texts", "main"]

#: The raw JSON members of a case's ``rawEvidence`` that the floor parses.
BUNDLE_TEXTS = ("requestJson", "receiptJson", "processJson", "stateJson", "transcriptJson")


def _member(value: object, *names: str) -> object:
    """Follow object members ``names`` from ``value``; ``None`` where one is missing."""
    for name in names:
        if not isinstance(value, dict):
            return None
        value = value.get(name)
    return value


def embedded_texts(document: object) -> Iterator[str]:
    """Yield the embedded raw JSON texts of a parsed prepared input, in document order."""
    repositories = _member(document, "repositories")
    for repository in repositories if isinstance(repositories, list) else ():
        text = _member(repository, "sourceListArtifact", "rawJson")
        if isinstance(text, str):
            yield text
    cases = _member(document, "cases")
    for case in cases if isinstance(cases, list) else ():
        raw = _member(case, "structuralEvidence", "executionObservation", "rawEvidence")
        for name in BUNDLE_TEXTS:
            text = _member(raw, name)
            if isinstance(text, str):
                yield text


def main(argv: list[str] | None = None) -> int:
    """Command line: ``floor.py FILE``; exit 0, or 2 for a usage error."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: floor.py FILE", file=sys.stderr)
        return 2
    with open(args[0], "rb") as handle:
        data = handle.read()
    digest = hashlib.sha256(data).hexdigest()
    document = json.loads(data)
    count = 0
    for text in embedded_texts(document):
        json.loads(text)
        count += 1
    print(f"{digest}  {len(data)} bytes, {count} embedded texts parsed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
