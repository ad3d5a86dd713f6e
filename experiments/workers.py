"""Where a runner's batches run: the seed of each batch (:func:`batch_seed`), the work unit a
worker plays (:func:`run_unit`, which also ends a loky worker whose run was killed), and the
joblib pool of each backend (:func:`make_parallel`: loky, threading, or a dask cluster, local
or at a scheduler's address, checked at once)."""

from __future__ import annotations

import os
import threading
import time
from contextlib import ExitStack

import joblib
import numpy as np

__all__ = ["CONNECT_TIMEOUT_S", "batch_seed", "run_unit", "worker_count", "make_parallel"]

CONNECT_TIMEOUT_S = 10
"""Seconds to wait for a dask scheduler given by address before giving up."""


def batch_seed(seed: int, batch: int) -> np.random.SeedSequence:
    """Seed of batch ``batch``: ``SeedSequence(seed).spawn(batch + 1)[batch]`` computed
    directly (``spawn_key=(batch,)``), so any batch's seed is known without the others."""
    return np.random.SeedSequence(seed, spawn_key=(batch,))


_WATCHDOG: list[threading.Thread] = []


def _exit_with_parent(parent: int) -> None:
    """Worker side: end this process soon after the run's process ``parent`` dies.

    A loky worker is a child of the run's process; when that process is killed (``kill -9``:
    no clean shutdown reaches the workers), each worker notices within a second that it has
    a new parent and exits, instead of idling until loky's timeout with hundreds of MB.
    Started once per worker process; never in the run's own process (threading backend) or
    in processes that are not its children (dask workers)."""
    if _WATCHDOG or os.getpid() == parent or os.getppid() != parent:
        return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    t = threading.Thread(target=watch, name="boardlab-parent-watchdog", daemon=True)
    t.start()
    _WATCHDOG.append(t)


def run_unit(play_fn, cell, cell_index, batch, n_games, seed, parent=None):
    """A worker's task: play batch ``batch`` (``n_games`` games) of cell ``cell_index`` with
    its seed (:func:`batch_seed`); returns ``(cell_index, batch, int64 sums)``. ``parent``:
    the run's process id (a loky worker then exits when that process dies)."""
    if parent is not None:
        _exit_with_parent(parent)
    stats = play_fn(cell, n_games, batch_seed(seed, batch))
    return cell_index, batch, {k: np.asarray(v, dtype=np.int64) for k, v in stats.items()}


def worker_count(n_jobs: int) -> int:
    """The worker processes ``n_jobs`` (a positive integer, or -1 for all cores as joblib counts
    them: CPU affinity and cgroup limits included) stands for."""
    return joblib.cpu_count() if n_jobs == -1 else n_jobs


def _scheduler_error(scheduler: str, why: str) -> ValueError:
    """The one-line error for a ``--scheduler`` address (as the user gave it) that cannot be
    used, ``why`` saying what happened."""
    return ValueError(f"scheduler {scheduler!r}: {why}; expected the address of a running dask "
                      "scheduler such as tcp://host:8786")


def _probe_scheduler(scheduler: str) -> None:
    """Fail at once, with one line, when the host of a ``tcp://host:port`` scheduler address
    refuses the connection or does not resolve (dask's client retries those until its timeout,
    :data:`CONNECT_TIMEOUT_S`), or when nothing answers within that timeout (dask would wait it
    out a second time); an unreachable network and other address forms are left to dask.
    Raises ``ValueError`` naming the address as given."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(scheduler if "://" in scheduler else "tcp://" + scheduler)
    try:
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is not a number: dask says what it expects
        return
    if parts.scheme != "tcp" or not host or port is None:
        return
    try:
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S).close()
    except ConnectionRefusedError:
        raise _scheduler_error(scheduler, f"{host}:{port} refused the connection") from None
    except socket.gaierror:
        raise _scheduler_error(scheduler, f"{host}:{port} is not a known host") from None
    except TimeoutError:
        raise _scheduler_error(scheduler, f"no dask scheduler answered within "
                                          f"{CONNECT_TIMEOUT_S} s (TimeoutError)") from None
    except OSError:  # an unreachable network: dask's own wait and message
        return


def make_parallel(stack: ExitStack, n_jobs: int, backend: str, scheduler: str | None):
    """The ``joblib.Parallel`` (unordered generator) of ``n_jobs`` workers on ``backend``; for
    ``"dask"`` a client of the scheduler at ``scheduler`` (checked at once) or of a local
    cluster, both closed with ``stack``. Raises a one-line ``ValueError`` for a scheduler that
    cannot be used or a missing cluster extra."""
    if backend == "dask":
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError as exc:  # pragma: no cover - the cluster extra is missing
            raise ValueError("backend 'dask' needs the cluster extra: "
                             "pip install 'boardlab[cluster]'") from exc
        if scheduler:
            _probe_scheduler(scheduler)
            try:
                client = stack.enter_context(Client(scheduler, timeout=CONNECT_TIMEOUT_S))
            except (OSError, TimeoutError) as exc:
                raise _scheduler_error(scheduler, f"no dask scheduler answered within "
                                       f"{CONNECT_TIMEOUT_S} s ({type(exc).__name__})") from None
        else:
            workers = worker_count(n_jobs)
            # no dashboard; the scheduler's own HTTP server on a free loopback port (it takes
            # 8787 otherwise, and warns when another local cluster holds it)
            cluster = stack.enter_context(LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"}))
            client = stack.enter_context(Client(cluster))
        stack.enter_context(joblib.parallel_config(backend="dask"))
        del client
        return joblib.Parallel(n_jobs=-1, return_as="generator_unordered")
    return joblib.Parallel(n_jobs=n_jobs, backend=backend, return_as="generator_unordered")
