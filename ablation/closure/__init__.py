"""The sealed closure: everything that can execute in the evaluator's process (PRODUCT.md "evaluator").

Four layers, each a set of files with their SHA-256, written once at build
time into the closure manifest and checked at run time:

``package``
    the installed ``ablation`` package and its distribution metadata;
``dependencies``
    every file of each runtime distribution the lock pins;
``stdlib``
    the standard library tree the interpreter imports from, extension modules included;
``interpreter``
    the interpreter executable and the shared-object closure of it and of
    every extension module in the other layers.

Modules, in the order a run uses them:

- :mod:`ablation.closure.boot`, :mod:`ablation.closure.layerlines`,
  :mod:`ablation.closure.verified` — the sealed start, run by the console script
  from checked bytecode: the environment, the manifest's layers read line by line,
  imports that run the bytes they checked;
- :mod:`ablation.closure.layout` — where each layer lives in this process, which
  layer a file belongs to, hashing, what the process has loaded and mapped;
- :mod:`ablation.closure.manifest` — the manifest format and the layer digests;
- :mod:`ablation.closure.check` — the run-time check (before evaluator modules are
  imported, and again before an output file is written);
- :mod:`ablation.closure.seal` — writing the manifest at build time.
"""

LAYERS = ("package", "dependencies", "stdlib", "interpreter")
"""The closure's layers, in the order the identity lists them."""

__all__ = ["LAYERS"]
