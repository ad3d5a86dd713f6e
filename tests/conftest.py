"""Shared test settings: hypothesis profiles (``HYPOTHESIS_PROFILE=ci`` is the default), and no
second compiling process (:mod:`agents.precompile`) while parallel test workers already keep
every core busy: there it only competes with the other worker (the ``pairs`` command starts one
before it can tell whether the kernel cache is warm: about 25 such processes in a run, 0.7-0.8
CPU-s each with a warm cache). ``tests/test_precompile.py`` turns it back on for the tests of
that process."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
if _WORKERS >= (os.cpu_count() or 1):
    # before any test imports agents.precompile; the tests' subprocesses inherit it
    os.environ.setdefault("BOARDLAB_SIDE_COMPILE", "0")
