"""ablation.prepare: the ``ablation-prepare`` command, which makes a prepared input (PREPARE.md).

A separate console script from ``ablation``: no evaluator command imports this
package, and ``subprocess`` is imported only here (and by the build-time
:mod:`ablation.closure.seal`). Digests are computed by the evaluator's own
functions (:mod:`ablation.canonical`, :mod:`ablation.text`, :mod:`ablation.contracts`).

Modules (one concept each):

- :mod:`~ablation.prepare.cli` (arguments, exit codes) and :mod:`~ablation.prepare.commands` (handlers);
- :mod:`~ablation.prepare.findings`: rule findings and the error that carries them;
- :mod:`~ablation.prepare.tomltext`: TOML strings, keys and locations (``case[2].sci.pattern``);
- :mod:`~ablation.prepare.schema` and :mod:`~ablation.prepare.experiment_file`: the experiment
  file read into frozen records (PRE-1 … PRE-4);
- :mod:`~ablation.prepare.check_values`, :mod:`~ablation.prepare.check_cases`,
  :mod:`~ablation.prepare.check_sources` and :mod:`~ablation.prepare.checks`: ``check`` (PREPARE.md §3);
- :mod:`~ablation.prepare.gitread`: the audited read-only git helper, the only process ``pin``,
  ``check`` and ``sheet`` start;
- :mod:`~ablation.prepare.pins`: tool pins and revisions; :mod:`~ablation.prepare.requests`: the SCI
  request of a case; :mod:`~ablation.prepare.layout`: ``<nnn>`` names and paths;
- :mod:`~ablation.prepare.sheet`: the case-review sheet.
"""
