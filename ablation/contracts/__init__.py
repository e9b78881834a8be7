"""The owner contracts of the prepared input and of the SCI bundle, one module per contract."""
