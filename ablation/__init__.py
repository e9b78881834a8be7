"""ablation: a sealed, reproducible evaluator for preregistered source-selection ablations.

The package reads one prepared input (protocol
``pi-context-packer-source-selection-ablation/v2``), validates it fail-closed,
runs the four selection arms and writes the ``result`` object of SPEC.md §8
with the gate assessment and the evaluator identity of PRODUCT.md.

Pipeline (one module per concept): :mod:`ablation.strictjson` (bytes → values)
→ :mod:`ablation.contracts` (values → frozen records) → :mod:`ablation.experiment`
→ :mod:`ablation.selection` → :mod:`ablation.metrics` → :mod:`ablation.result`
→ :mod:`ablation.rates` → :mod:`ablation.gates`, :mod:`ablation.output`, :mod:`ablation.identity`,
:mod:`ablation.results_file`, :mod:`ablation.bundle` (the evidence bundle), :mod:`ablation.notes`.
"""

__all__ = ["PACKAGE_NAME"]

PACKAGE_NAME = "ablation"
"""The distribution's and the package's name. ablation has no version number: a sealed build is named by
the git commit it was built from (``ablation --version``, the identity's ``package.sourceRevision``;
docs/decisions/0017-source-revision.md)."""
