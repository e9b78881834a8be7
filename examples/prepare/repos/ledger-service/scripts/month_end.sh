#!/bin/sh
# summary: Month-end close: reconcile, accrue interest, charge fees, write statements.
set -eu
python -m ledger.close "$@"
