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

__all__ = ["PACKAGE_NAME", "__version__"]

PACKAGE_NAME = "ablation"
__version__ = "0.1.0"
