"""Batching, seeding, parallel fan-out, statistics, plots and the ``boardlab`` command line."""
