"""The command line, run in-process on the checkout (unsealed), for tests that need only its exit code and output."""

from __future__ import annotations

from ablation.cli import main


def run_ablation(*args: object) -> int:
    """``ablation <args>`` in this process (each argument as ``str``); returns the exit code, never raises for one."""
    return main([str(a) for a in args])
