"""Review notes: a Markdown draft for the independent reviewer, from one results file or its bundle.

The draft starts with what to cite (input, results, bundle and bundle-content
digests, whether the result was recomputed and in which evaluator identity,
the image ID as asserted, the signature), then the signature's status (checked
with ``--public-key`` and ``--expect-key`` as ``verify-archive`` does), the
container image (asserted; both IDs and a warning when ``--image-digest``
disagrees with the results file) and the digests with their basis. It shows
the populations with their denominators, the per-repository figures of every
pairwise treatment (each with two Mermaid ``xychart-beta`` charts, precision
and unnecessary files per case, whose syntax holds only our labels ``r0``,
``r1``, …, arm names and numbers; the tables stay the authority) and of the
all-four intersection, the adoption gates with their exact fractions,
staleness rates, structural availability, cost disclosure and the protocol's
limitations, and ends with an owner-decision section that is left empty:
``ablation`` never makes or suggests the ADOPT / REFINE / REJECT decision
(preregistration gate 8; issue 5).

The text depends only on the results file and the arguments: no dates, no
environment. Exact figures are :class:`fractions.Fraction` values computed from
the integer counts the results file records (hits, selections, omissions, case
counts) or copied from ``gateAssessment``'s ``exact`` strings; never from the
floats in ``result``; decimals beside them are rounded to 4 places.

What is drafted from is checked first (issue 22 items 5 and 6): the results
file is parsed once into typed records (:mod:`ablation.recorded`; a file that
is not what ``ablation run`` writes is one line naming where, never a
traceback), its gate rows are re-derived from its own exact figures and a
contradiction is refused (:mod:`ablation.recorded.derive`), and with
``--bundle`` the result is recomputed from the bundled input as
``verify-archive`` does. Every string from the file is shown inert, invisible
and bidirectional characters escaped (:mod:`ablation.notes.markdown`).

Modules, in import order: :mod:`~ablation.notes.markdown` (inert text),
:mod:`~ablation.notes.figures` (exact figures), :mod:`~ablation.notes.charts`,
:mod:`~ablation.notes.tables`, :mod:`~ablation.notes.cite`,
:mod:`~ablation.notes.review` (sections) and :mod:`~ablation.notes.draft` (the
whole text; the only one that reads files).
"""

from __future__ import annotations

from ablation.notes.cite import Recomputed, Signature, image_warning
from ablation.notes.draft import build_notes, render_notes

# Helpers under the names the tests use.
from ablation.notes.figures import _Results as _Results
from ablation.notes.markdown import _code as _code
from ablation.notes.markdown import _name as _name
from ablation.notes.markdown import _text as _text

__all__ = ["Recomputed", "Signature", "build_notes", "image_warning", "render_notes"]
