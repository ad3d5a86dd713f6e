"""Option values shared by the runner and the command line, importable without the runner's
heavy dependencies (so ``boardlab --help`` stays fast)."""

from __future__ import annotations

__all__ = ["BACKENDS", "PAIRS_DEFAULT_AGENT"]

BACKENDS = ("loky", "threading", "dask")
"""Parallel backends of :func:`experiments.runner.run_experiment`."""
PAIRS_DEFAULT_AGENT = "heuristic"
"""The policy ``boardlab river-rats pairs`` (and ``make run``) puts in every seat by default."""
