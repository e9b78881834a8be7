# summary: Public entry points of the ledger package.
"""The ledger package."""

from ledger.postings import post

__all__ = ["post"]
