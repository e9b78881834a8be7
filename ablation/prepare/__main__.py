"""``python -m ablation.prepare``: the same command line as the ``ablation-prepare`` script."""

from ablation.prepare.cli import main

raise SystemExit(main())
