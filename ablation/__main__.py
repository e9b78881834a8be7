"""``python -m ablation``: the same command line as the ``ablation`` script."""

from ablation.cli import main

raise SystemExit(main())
