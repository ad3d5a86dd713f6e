"""The experiment runner: fixed-size seeded batches, joblib/Dask fan-out, running sums,
atomic partial results, resume, progress, and interval-driven stopping.

Every experiment of boardlab is a list of **cells** (one configuration each: a rat pair and a
player count, an agent line-up, ...) and a **batch function**::

    play_fn(cell: dict, n_games: int, seed: np.random.SeedSequence) -> dict[str, int | ndarray]

that plays ``n_games`` games of ``cell`` and returns **integer sums** (``"games"`` and the
success count named by ``success_key`` at least; any other counts or sums, scalars or int
arrays of a fixed shape). The runner:

- splits each cell's games into batches of ``batch_size`` (the last one may be shorter); batch
  ``b`` of *every* cell gets the seed ``SeedSequence(seed, spawn_key=(b,))``, the ``b``-th child
  of ``SeedSequence(seed).spawn(...)``: cells share their deals (common random numbers) and the
  numbers do not depend on the number of workers, the backend or the order batches finish in;
- fans the (cell, batch) work units out with :class:`joblib.Parallel` (``loky`` processes by
  default, ``threading``, or ``dask`` on a ``dask.distributed`` cluster);
- adds the integer sums per cell, so memory stays flat however many games are played, and
  integer addition makes the totals exact whatever the completion order;
- after each group of completed batches writes ``state.json`` (the totals and the set of done
  batches) atomically to ``out_dir``; running again with the same ``out_dir`` and the same
  experiment resumes and ends with exactly the totals of an uninterrupted run;
- with ``ci_width``, keeps adding rounds of ``group_batches`` batches to every cell whose 95%
  Wilson interval of the success rate is still wider than ``ci_width`` (``high - low``), until
  ``max_games`` per cell. Rounds are fixed in size, so the stopping point is reproducible.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import joblib
import numpy as np
from importlib.util import find_spec

if find_spec("ipywidgets") is not None:  # the notebook widget where it can be drawn
    from tqdm.auto import tqdm
else:  # tqdm.auto without ipywidgets warns "IProgress not found" in every notebook
    from tqdm.std import tqdm

from engines import source_hash
from experiments.io import code_version, machine_info, out_lock
from experiments.options import BACKENDS
from experiments.stats import wilson_interval

from experiments.run_state import STATE_FILE, RunState, resume_state, settings_fingerprint
from experiments.workers import batch_seed, make_parallel, run_unit, worker_count

__all__ = ["RunResult", "batch_seed", "run_experiment", "speed_summary", "BACKENDS",
           "STATE_FILE", "MAX_BATCHES", "tqdm"]

MAX_BATCHES = 1_000_000
"""Most batches one cell may be split into (the plan and the resume state list them)."""

"""Name of the partial-results file inside ``out_dir``."""


@dataclass
class RunResult:
    """What :func:`run_experiment` returns.

    ``cells``: the cells as given. ``totals``: one dict of integer sums per cell (numpy int64
    scalars or arrays). ``batches_done``: number of batches per cell. ``wall_time``: seconds
    of play in this call (not counting earlier, resumed runs, nor ``setup_time``: the seconds
    before the play, starting the workers and compiling the Numba kernels or loading them
    from the cache, one game played here first; with a dask scheduler given by address the
    workers compile in their first batches, which ``wall_time`` then includes).
    ``games_played``: games played in
    this call. ``resumed_batches``: batches found done in ``out_dir`` at the start.
    ``meta``: run facts (seed, batch size, backend, machine...) and ``runs``, the history of
    every run that played games for this result, oldest first (each: ``started_utc``,
    ``games_played``, ``wall_time_s``, ``games_per_s``, ``n_jobs``, ``backend``,
    ``code_version``, ``finished``); a re-run that finds everything done adds nothing, so the
    speed of the runs that played the games is never lost.
    """

    cells: list[dict]
    totals: list[dict[str, Any]]
    batches_done: list[int]
    wall_time: float
    games_played: int
    resumed_batches: int = 0
    meta: dict[str, Any] = field(default_factory=dict)
    setup_time: float = 0.0

    @property
    def games(self) -> np.ndarray:
        """Games per cell, int64 array of shape (n_cells,)."""
        return np.array([int(t["games"]) for t in self.totals], dtype=np.int64)


def speed_summary(result: RunResult, per_unit: int = 1) -> dict[str, Any]:
    """The speed facts of a result for its metadata file: ``runs`` (the history of the runs
    that played its games, see :class:`RunResult`), ``games_per_s`` (all those runs' games over
    their summed wall time, seconds) and ``games_per_s_this_run`` (``None`` when this call
    played nothing, e.g. a re-run that found every batch done). ``per_unit`` converts the
    runner's units to games (a tournament's unit is a deal of several games): each run's
    ``games_played`` and ``games_per_s`` count games, and with ``per_unit > 1`` the run also
    keeps its units as ``deals_played``."""
    runs = [dict(r) for r in result.meta.get("runs", [])]
    games = sum(int(r.get("games_played", 0)) for r in runs) * per_unit
    wall = sum(float(r.get("wall_time_s", 0.0)) for r in runs)
    if per_unit != 1:
        for r in runs:
            r["deals_played"] = int(r.get("games_played", 0))
            r["games_played"] = r["deals_played"] * per_unit
            if r.get("games_per_s") is not None:
                r["games_per_s"] = float(r["games_per_s"]) * per_unit
    return {"runs": runs, "games_per_s": games / wall if wall > 0 and games else None,
            "games_per_s_this_run": (result.games_played * per_unit / result.wall_time
                                     if result.games_played and result.wall_time > 0 else None)}


def _batch_sizes(n_games: int, batch_size: int) -> list[int]:
    full, rest = divmod(n_games, batch_size)
    return [batch_size] * full + ([rest] if rest else [])


def _check_options(n_jobs, backend, batch_size, games_per_cell, ci_width, max_games,
                   group_batches, success_key, cells, seed):
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed {seed!r}: expected a non-negative integer")
    if backend not in BACKENDS:
        raise ValueError(f"backend {backend!r}: expected one of {BACKENDS}")
    if not isinstance(n_jobs, int) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs {n_jobs!r}: expected a positive integer or -1 (all cores)")
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size {batch_size!r}: expected a positive integer")
    if not isinstance(games_per_cell, int) or games_per_cell < 1:
        raise ValueError(f"games_per_cell {games_per_cell!r}: expected a positive integer")
    if ci_width is not None and not 0 < ci_width < 1:
        raise ValueError(f"ci_width {ci_width!r}: expected a width in (0, 1), e.g. 0.02")
    for what, v in (("games_per_cell", games_per_cell), ("max_games", max_games)):
        if v is not None and isinstance(v, int) and -(-v // batch_size) > MAX_BATCHES:
            raise ValueError(f"{what} {v}: {-(-v // batch_size):,} batches of batch_size "
                             f"{batch_size} per cell; expected at most {MAX_BATCHES:,} (fewer "
                             "games or larger batches)")
    if max_games is not None and max_games < games_per_cell:
        raise ValueError(f"max_games {max_games!r}: expected at least games_per_cell "
                         f"({games_per_cell})")
    if group_batches < 1:
        raise ValueError(f"group_batches {group_batches!r}: expected a positive integer")
    if not success_key:
        raise ValueError("success_key must name the success count returned by play_fn")
    if not cells:
        raise ValueError("cells is empty: nothing to run")


def run_experiment(
    play_fn: Callable[[dict, int, np.random.SeedSequence], dict[str, Any]],
    cells: Sequence[dict],
    *,
    seed: int,
    games_per_cell: int,
    batch_size: int = 20_000,
    n_jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    out_dir: str | os.PathLike | None = None,
    ci_width: float | None = None,
    max_games: int | None = None,
    success_key: str = "wins",
    group_batches: int = 16,
    progress: bool = True,
    fingerprint_extra: Any = None,
    overwrite: bool = False,
) -> RunResult:
    """Play every cell's games in seeded batches, in parallel, and return the summed stats.

    ``play_fn`` must be a picklable module-level function (see the module docstring for its
    contract); ``cells`` are JSON-serializable dicts. ``games_per_cell`` games are played per
    cell (then more with ``ci_width``, up to ``max_games`` per cell, default 10x). ``n_jobs``
    workers (``-1``: all cores) on ``backend`` (``"loky"``, ``"threading"`` or ``"dask"``;
    with ``"dask"``, ``scheduler`` is the address of a running ``dask.distributed`` scheduler,
    else a local cluster of ``n_jobs`` single-threaded worker processes is started).
    ``out_dir``: where ``state.json`` (partial results, resume) is written; ``None`` keeps
    everything in memory. ``fingerprint_extra``: anything else that must match for a resume
    (e.g. the agents' parameters).

    Returns a :class:`RunResult`. Raises ``ValueError`` for bad options, and whatever
    ``play_fn`` raises. A ``state.json`` made by a different experiment (other cells, seed, batch
    size, options or batch function), by other sources of ``engines``/``agents``
    (:func:`engines.source_hash`; edits elsewhere, such as the README or results, do not
    count), or that cannot be read raises ``ValueError`` saying which, unless ``overwrite``
    (then the run starts over): a run never restarts silently. Two runs on one ``out_dir`` at
    once: the second raises ``ValueError`` naming the first's process
    (:func:`experiments.io.out_lock`; a lock left by a killed run is taken over).
    """
    t_start = time.perf_counter()
    cells = [dict(c) for c in cells]
    _check_options(n_jobs, backend, batch_size, games_per_cell, ci_width, max_games,
                   group_batches, success_key, cells, seed)
    with ExitStack() as guard:
        # workers (and a dask scheduler's answer) first: a failure there changes nothing on disk
        parallel = make_parallel(guard, n_jobs, backend, scheduler)
        if out_dir is not None:
            guard.enter_context(out_lock(out_dir))
        if max_games is None:
            max_games = games_per_cell * 10 if ci_width is not None else games_per_cell
        settings_fp = settings_fingerprint(cells, seed, batch_size, play_fn,
                                   [games_per_cell, ci_width, max_games, group_batches, success_key,
                                    fingerprint_extra])
        code_fp = source_hash()
        fp = f"{settings_fp}:{code_fp}"
        state_path = Path(out_dir) / STATE_FILE if out_dir is not None else None
        plan = _Schedule(games_per_cell, batch_size, max_games, group_batches)
        state = None
        if state_path is not None and state_path.exists():
            state = resume_state(state_path, out_dir, fp, settings_fp, code_fp, len(cells),
                                  plan, success_key, overwrite)
        if state is None:
            state = RunState(len(cells), fp)
        resumed = sum(len(d) for d in state.done)
        meta = {"code_version": code_version(), "seed": seed, "batch_size": batch_size,
                "backend": backend, "n_jobs": worker_count(n_jobs),
                "machine": machine_info()}
        planned = [plan.resumed_plan(done) for done in state.done]
        if scheduler is None and any(len(state.done[ci]) < planned[ci]
                                     for ci in range(len(cells))):
            # compile here (or load from the cache) before the clock of the play starts, so
            # that the run's games/s never counts compilation, with one worker as with many
            _compile_first(play_fn, cells[0], seed, progress,
                           parallel if backend == "loky" and n_jobs != 1 else None)
        setup = time.perf_counter() - t_start
        meta["setup_time_s"] = round(setup, 3)
        run = _RunRecord(state, meta, state_path)
        round_no = 0
        while True:
            round_no += 1
            units = [(ci, b, n) for ci in range(len(cells))
                     for b, n in enumerate(plan.sizes_for(planned[ci]))
                     if b not in state.done[ci]]
            if units:
                _play_round(parallel, play_fn, cells, units, seed, run, round_no, ci_width,
                            group_batches, progress)
            if ci_width is None or not _grow_wide_cells(state, planned, plan, ci_width,
                                                        success_key):
                break
        return run.finish(cells, resumed)


class _Schedule:
    """The batches of one cell: the first ``games_per_cell`` games in batches of at most
    ``batch_size``, then (with ``--ci-width``) rounds of ``group_batches`` more full batches,
    up to ``max_games`` games."""

    def __init__(self, games_per_cell: int, batch_size: int, max_games: int,
                 group_batches: int):
        self.base = _batch_sizes(games_per_cell, batch_size)
        self.batch_size = batch_size
        self.max_games = max_games
        self.group_batches = group_batches
        self.max_batches = len(self.base)
        while self.grow(self.max_batches) > self.max_batches:
            self.max_batches = self.grow(self.max_batches)

    def sizes_for(self, n_batches: int) -> list[int]:
        """The games of each of the first ``n_batches`` batches."""
        return self.base + [self.batch_size] * max(0, n_batches - len(self.base))

    def grow(self, n_batches: int) -> int:
        """Batches after one more round (``group_batches``, capped by ``max_games``)."""
        room = self.max_games - sum(self.sizes_for(n_batches))
        return n_batches + min(self.group_batches, max(0, -(-room // self.batch_size)))

    def batch_games(self, b: int) -> int:
        """The games of batch ``b``."""
        return self.base[b] if b < len(self.base) else self.batch_size

    def resumed_plan(self, done) -> int:
        """Batches planned for a cell whose batches ``done`` are finished: the rounds that
        earlier runs had started."""
        n = len(self.base)
        while done and max(done) >= n and self.grow(n) > n:
            n = self.grow(n)
        return n


class _RunRecord:
    """This run's figures (games played, wall time), kept in the state's ``runs`` and saved
    with it."""

    def __init__(self, state: RunState, meta: dict, state_path: Path | None):
        self.state, self.meta, self.state_path = state, meta, state_path
        self.t0 = time.perf_counter()
        self.played = 0
        self.this_run = {"started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                         "games_played": 0, "wall_time_s": 0.0, "games_per_s": None,
                         "n_jobs": meta["n_jobs"], "backend": meta["backend"],
                         "code_version": meta["code_version"], "finished": False}

    def record(self, finished: bool = False) -> None:
        """This run's figures into ``state.runs`` (once it has played games)."""
        wall_now = time.perf_counter() - self.t0
        self.this_run.update(games_played=self.played, wall_time_s=round(wall_now, 3),
                             games_per_s=(round(self.played / wall_now, 3) if wall_now > 0
                                          else None), finished=finished)
        if self.played and not any(r is self.this_run for r in self.state.runs):
            self.state.runs.append(self.this_run)

    def save(self) -> None:
        """Record, then write the state atomically (no-op without an output folder)."""
        if self.state_path is not None:
            self.record()
            self.state.save(self.state_path, self.meta)

    def finish(self, cells: list, resumed: int) -> RunResult:
        """The last record and save, and the run's :class:`RunResult`."""
        wall = time.perf_counter() - self.t0
        self.record(finished=True)
        if self.state_path is not None and self.played:
            self.state.save(self.state_path, self.meta)
        meta = self.meta
        meta["wall_time_s"] = wall
        meta["games_played_this_run"] = self.played
        meta["runs"] = [dict(r) for r in self.state.runs]
        return RunResult(cells=cells, totals=self.state.totals,
                         batches_done=[len(d) for d in self.state.done], wall_time=wall,
                         games_played=self.played, resumed_batches=resumed, meta=meta,
                         setup_time=float(meta.get("setup_time_s", 0.0)))


def _play_round(parallel, play_fn, cells, units, seed: int, run: _RunRecord, round_no: int,
                ci_width, group_batches: int, progress: bool) -> None:
    """Play the batches ``units`` (``(cell, batch, games)``) on ``parallel``, adding their
    stats to the state and saving it every ``group_batches`` batches and at the end; one
    progress bar per round, from 0 to its own games (never moves backwards)."""
    n_cells = len({ci for ci, _, _ in units})
    total = sum(n for _, _, n in units)
    desc = ("games" if round_no == 1 and ci_width is None else
            f"round {round_no}: {total:,} {'more ' if round_no > 1 else ''}games for "
            f"{n_cells} cell{'s' if n_cells > 1 else ''}")
    with tqdm(total=total, unit="game", unit_scale=True, disable=not progress,
              smoothing=0.05, desc=desc, dynamic_ncols=True) as bar:
        since_save = 0
        jobs = (joblib.delayed(run_unit)(play_fn, cells[ci], ci, b, n, seed, os.getpid())
                for ci, b, n in units)
        for ci, b, stats in parallel(jobs):
            run.state.add(ci, b, stats)
            run.played += int(stats["games"])
            bar.update(int(stats["games"]))
            since_save += 1
            if since_save >= group_batches:
                run.save()
                since_save = 0
        run.save()


def _grow_wide_cells(state: RunState, planned: list[int], plan: _Schedule, ci_width: float,
                     success_key: str) -> bool:
    """Plan one more round for every cell whose 95% interval is wider than ``ci_width`` and
    that may still grow; True if any did."""
    grew = False
    for ci in range(len(planned)):
        tot = state.totals[ci]
        lo, hi = wilson_interval(int(tot.get(success_key, 0)), int(tot.get("games", 0)))
        if float(hi - lo) > ci_width and plan.grow(planned[ci]) > planned[ci]:
            planned[ci] = plan.grow(planned[ci])
            grew = True
    return grew


def _import_for_play(module: str) -> int:
    """Worker warm-up task: import ``module`` (the batch function's) and the compiled game loop
    (:mod:`agents.loop`, with Numba), so the worker's first batch only loads kernels."""
    import importlib

    importlib.import_module(module)
    importlib.import_module("agents.loop")
    return os.getpid()


def _compile_first(play_fn, cell: dict, seed: int, progress: bool = False,
                   parallel: joblib.Parallel | None = None) -> None:
    """Play one game of ``cell`` here, before the workers start, so that this process compiles
    the Numba kernels (or loads them) once and writes them to the on-disk cache: the workers
    then load them instead of each compiling the same code from an empty cache (a cold start
    on a 2-core machine compiled everything once per process). Nothing of this game is kept;
    its seed is outside the runner's batch seeds. Meanwhile, ``parallel``'s workers start and
    import what a batch needs (:func:`_import_for_play`; a few seconds per worker that would
    otherwise come after the compile). With ``progress``, says so on stderr when it takes more
    than a few seconds (a first run on this machine)."""

    warm = None
    if parallel is not None:
        n = worker_count(parallel.n_jobs)
        tasks = [joblib.delayed(_import_for_play)(play_fn.__module__) for _ in range(n)]

        def start_workers() -> None:
            try:
                for _ in parallel(tasks):
                    pass
            except Exception:  # noqa: BLE001 - a warm-up only; the batches report real errors
                pass

        warm = threading.Thread(target=start_workers, name="boardlab-start-workers", daemon=True)
        warm.start()
    from experiments.notes import say_compiling

    note = threading.Timer(3.0, say_compiling)
    if progress:
        note.start()
    try:
        play_fn(cell, 1, np.random.SeedSequence(seed, spawn_key=(MAX_BATCHES,)))
    finally:
        note.cancel()
        if warm is not None:
            warm.join()


