"""``python -m ablation.prepare``: the same command line as the ``ablation-prepare`` script.

In a sealed environment (the package holds its closure manifest) this is stage 1
of the sealed start (:mod:`ablation.closure.boot`), as ``python -m ablation`` is:
it refuses or starts the environment's ``bin/ablation-prepare`` again with the
environment it defines. A development checkout runs in place.
"""

import os
import sys

from ablation.closure import boot

_SITE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(boot.__file__))))

if os.path.isfile(os.path.join(_SITE, "ablation", "CLOSURE.json")):
    raise SystemExit(boot.start(sys.prefix, _SITE, None, "module", "ablation-prepare"))

from ablation.prepare.cli import main  # noqa: E402 - only for an unsealed checkout

raise SystemExit(main())
