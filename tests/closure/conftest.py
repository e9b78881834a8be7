"""Fixtures of the environment vectors (issue 18); the helpers live in :mod:`env_vectors`."""

from tests.closure.env_vectors import change, clean_results, evaluation, payload, private_env, sealed_copy

__all__ = ["change", "clean_results", "evaluation", "payload", "private_env", "sealed_copy"]
