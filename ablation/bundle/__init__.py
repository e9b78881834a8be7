"""The evidence bundle (PRODUCT.md "Evidence bundle"; docs/reference/evidence-bundle.md), one module per job.

- :mod:`~ablation.bundle.layout`: fixed names, the top folder, evidence files derived from an input;
- :mod:`~ablation.bundle.sums`: the ``SHA256SUMS`` format;
- :mod:`~ablation.bundle.tarformat`: the deterministic tar and gzip bytes (shared by writer and reader);
- :mod:`~ablation.bundle.gzipstream` and :mod:`~ablation.bundle.reader`: the streaming reader (any
  well-formed RFC 1952 framing, exactly the writer's tar); :mod:`~ablation.bundle.repacked`: what a
  tar that is not the writer's still shows;
- :mod:`~ablation.bundle.bundled`: the layout of a read bundle (its ``.json.gz`` input read by
  :mod:`ablation.gzipfile`, as ``run`` reads one);
- :mod:`~ablation.bundle.evidence`: the ``--evidence`` walk (descriptors, no link followed, bounded);
- :mod:`~ablation.bundle.keys`: Ed25519 keys and signatures;
- :mod:`~ablation.bundle.recompute`: comparing a results file with a recomputation;
- :mod:`~ablation.bundle.writer` (``archive``), :mod:`~ablation.bundle.verifier` (``verify-archive``,
  and ``notes --bundle`` through it) and :mod:`~ablation.bundle.report` (what it prints).

Imports go one way: cli → {bundle, notes} → pipeline → …; nothing here prints.
"""
