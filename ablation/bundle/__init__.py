"""The evidence bundle (PRODUCT.md "Evidence bundle"; docs/reference/evidence-bundle.md), one module per job.

- :mod:`~ablation.bundle.layout`: fixed names, the top folder, evidence files derived from an input;
- :mod:`~ablation.bundle.sums`: the ``SHA256SUMS`` format;
- :mod:`~ablation.bundle.tarformat`: the deterministic tar and gzip bytes (shared by writer and reader);
- :mod:`~ablation.bundle.gzipstream` and :mod:`~ablation.bundle.reader`: the strict streaming reader;
- :mod:`~ablation.bundle.bundled`: the layout of a read bundle (its ``.json.gz`` input read by
  :mod:`ablation.gzipfile`, as ``run`` reads one), and ``notes``' narrow reader interface;
- :mod:`~ablation.bundle.evidence`: the ``--evidence`` walk (descriptors, no link followed, bounded);
- :mod:`~ablation.bundle.keys`: Ed25519 keys and signatures;
- :mod:`~ablation.bundle.recompute`: comparing a results file with a recomputation;
- :mod:`~ablation.bundle.writer` (``archive``) and :mod:`~ablation.bundle.verifier` (``verify-archive``).

Imports go one way: cli → {bundle, notes} → pipeline → …; nothing here prints.
"""
