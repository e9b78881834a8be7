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

``capture`` (PREPARE.md §4, §5, §8):

- :mod:`~ablation.prepare.capture` (the steps in order, resume and retry) and
  :mod:`~ablation.prepare.capture_setup` (every refusal before anything runs, the plan);
- :mod:`~ablation.prepare.reviews`: the cases review;
- :mod:`~ablation.prepare.capture_steps` (tool versions, clones, source-list) and
  :mod:`~ablation.prepare.capture_sci` (one SCI case);
- :mod:`~ablation.prepare.spawn`: the one place ``capture`` starts a process (own session,
  output to files, child subreaper, grace, time-out, interruption);
  :mod:`~ablation.prepare.environment`: the clean environment;
- :mod:`~ablation.prepare.attempts`: attempt folders, private HOME and TMPDIR, recorded spawns;
  :mod:`~ablation.prepare.ledger`: ``attempts.jsonl``;
- :mod:`~ablation.prepare.targets`: clones and the observations of sources and targets;
  :mod:`~ablation.prepare.trace`: strace's trace and the prohibited-path classes;
- :mod:`~ablation.prepare.gates`: the evaluator's rules on captured files, placed in D;
- :mod:`~ablation.prepare.build` and :mod:`~ablation.prepare.build_case`: the input's pieces
  built from D exactly as ``assemble`` builds them; :mod:`~ablation.prepare.staleness`: the
  sample and its sheet.

``assemble``, ``freeze`` and ``check-freeze`` (PREPARE.md §6, §7), which start no process:

- :mod:`~ablation.prepare.assemble` (the steps in order, the outputs) with
  :mod:`~ablation.prepare.integrity` (D's files against the ledger),
  :mod:`~ablation.prepare.assemble_input` (the whole input from the usable attempts),
  :mod:`~ablation.prepare.staleness_review` (the staleness review) and
  :mod:`~ablation.prepare.selfcheck` (the blind self-check);
- :mod:`~ablation.prepare.record` and :mod:`~ablation.prepare.record_steps`: the preparation
  record; :mod:`~ablation.prepare.prerun_sheet`: the pre-run sheet;
- :mod:`~ablation.prepare.manifest`: D's files and the two ``SHA256SUMS`` manifests;
- :mod:`~ablation.prepare.freeze` with :mod:`~ablation.prepare.prerun_review`, and
  :mod:`~ablation.prepare.check_freeze`.
"""
