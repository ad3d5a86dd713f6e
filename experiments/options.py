"""Option values shared by the runner and the command line, importable without the runner's
heavy dependencies (so ``boardlab --help`` stays fast)."""

from __future__ import annotations

import numbers

__all__ = ["BACKENDS", "PAIRS_DEFAULT_AGENT", "check_int"]

BACKENDS = ("loky", "threading", "dask")
"""Parallel backends of :func:`experiments.runner.run_experiment`."""
PAIRS_DEFAULT_AGENT = "heuristic"
"""The policy ``boardlab river-rats pairs`` (and ``make run``) puts in every seat by default."""


def check_int(value, what: str, minimum: int = 1) -> int:
    """``value`` as an ``int`` when it is an integer (Python or NumPy, not a bool) of at least
    ``minimum``; else ``ValueError("<what> <value!r>: expected an integer >= <minimum>")``, so
    ``what`` names the option as the user gave it (``"bad --trials"``, ``"n_trials
    (--trials)"``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{what} {value!r}: expected an integer >= {minimum}")
    return int(value)
