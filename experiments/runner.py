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

import hashlib
import json
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
from experiments.io import code_version, machine_info, out_lock, read_json, write_json
from experiments.options import BACKENDS
from experiments.stats import wilson_interval

__all__ = ["RunResult", "batch_seed", "run_experiment", "speed_summary", "BACKENDS",
           "STATE_FILE", "tqdm"]

STATE_FILE = "state.json"
CONNECT_TIMEOUT_S = 10
"""Seconds to wait for a dask scheduler given by address before giving up."""
MAX_BATCHES = 1_000_000
"""Most batches one cell may be split into (the plan and the resume state list them)."""
"""Name of the partial-results file inside ``out_dir``."""
STATE_VERSION = 1


def batch_seed(seed: int, batch: int) -> np.random.SeedSequence:
    """Seed of batch ``batch``: ``SeedSequence(seed).spawn(batch + 1)[batch]`` computed
    directly (``spawn_key=(batch,)``), so any batch's seed is known without the others."""
    return np.random.SeedSequence(seed, spawn_key=(batch,))


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


def _run_unit(play_fn, cell, cell_index, batch, n_games, seed, parent=None):
    if parent is not None:
        _exit_with_parent(parent)
    stats = play_fn(cell, n_games, batch_seed(seed, batch))
    return cell_index, batch, {k: np.asarray(v, dtype=np.int64) for k, v in stats.items()}


def _fingerprint(cells, seed, batch_size, play_fn, extra) -> str:
    name = f"{getattr(play_fn, '__module__', '')}.{getattr(play_fn, '__qualname__', play_fn)}"
    blob = json.dumps({"cells": cells, "seed": seed, "batch_size": batch_size, "fn": name,
                       "extra": extra}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


class _State:
    """Running totals and done batches; saved atomically as JSON."""

    def __init__(self, n_cells: int, fingerprint: str):
        self.fingerprint = fingerprint
        self.totals: list[dict[str, np.ndarray]] = [{} for _ in range(n_cells)]
        self.done: list[set[int]] = [set() for _ in range(n_cells)]
        self.runs: list[dict] = []

    def add(self, ci: int, batch: int, stats: dict[str, np.ndarray]) -> None:
        if batch in self.done[ci]:
            return
        tot = self.totals[ci]
        for k, v in stats.items():
            tot[k] = tot[k] + v if k in tot else v.copy()
        self.done[ci].add(batch)

    def save(self, path: Path, meta: dict) -> None:
        write_json(path, {
            "version": STATE_VERSION,
            "fingerprint": self.fingerprint,
            "done": [sorted(d) for d in self.done],
            "totals": [{k: v.tolist() for k, v in t.items()} for t in self.totals],
            "runs": self.runs,
            "meta": meta,
        })

    @classmethod
    def from_saved(cls, data: dict, n_cells: int, fingerprint: str) -> _State | None:
        """The state saved as ``data`` (a parsed ``state.json``) if it was made by this
        experiment and code version, else ``None``. Its contents are not checked here: see
        :func:`_validate_state`."""
        if data.get("version") != STATE_VERSION or data.get("fingerprint") != fingerprint:
            return None
        st = cls(n_cells, fingerprint)
        if len(data["done"]) != n_cells:
            return None
        st.done = [set(d) for d in data["done"]]
        st.totals = [{k: np.asarray(v, dtype=np.int64) for k, v in t.items()}
                     for t in data["totals"]]
        runs = data.get("runs", [])
        st.runs = [dict(r) for r in runs] if isinstance(runs, list) else []
        return st


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _validate_state(data: dict, n_cells: int, sizes: Callable[[int], int], max_batches: int,
                    success_key: str) -> str | None:
    """What is wrong with a parsed ``state.json`` of this experiment, in a few words, or
    ``None`` when it is consistent: one ``done`` list and one ``totals`` dict per cell; batch
    indices integers in ``0..max_batches-1``, each listed once; ``totals["games"]`` equal to the
    summed sizes of the batches listed (``sizes(b)``: games of batch ``b``); every total an
    integer or a (nested) list of integers; the success count within ``0..games``; ``runs`` a
    list of objects. Never repairs."""
    done, totals = data.get("done"), data.get("totals")
    if not isinstance(done, list) or len(done) != n_cells:
        return f"'done' is not a list of {n_cells} batch lists"
    if not isinstance(totals, list) or len(totals) != n_cells:
        return f"'totals' is not a list of {n_cells} objects"
    runs = data.get("runs", [])
    if not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs):
        return "'runs' is not a list of objects"
    for ci, (d, t) in enumerate(zip(done, totals, strict=True)):
        if not isinstance(d, list) or not all(_is_int(b) for b in d):
            return f"cell {ci}: 'done' is not a list of batch numbers"
        bad = sorted({b for b in d if not 0 <= b < max_batches})
        if bad:
            return (f"cell {ci} lists batch {bad[0]}, outside 0..{max_batches - 1} (this "
                    "experiment's batches)")
        dup = sorted({b for b in d if d.count(b) > 1})
        if dup:
            return f"cell {ci} lists batch {dup[0]} {d.count(dup[0])} times"
        if not isinstance(t, dict):
            return f"cell {ci}: its totals are not an object"
        if not d:
            if t:
                return f"cell {ci} has totals but no finished batch"
            continue
        for k, v in t.items():
            arr = np.asarray(v, dtype=object)
            if not all(_is_int(x) for x in arr.ravel().tolist()) or arr.size == 0:
                return f"cell {ci}: total {k!r} is not an integer or a list of integers"
        games = t.get("games")
        expected = sum(sizes(b) for b in d)
        if games != expected:
            return (f"cell {ci} counts {games} games for {len(d)} batches of {expected} games "
                    "in all")
        wins = t.get(success_key)
        if not _is_int(wins) or not 0 <= wins <= games:
            return (f"cell {ci} counts {wins} {success_key} for {games} games (expected 0.."
                    f"{games})")
    return None


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
        parallel = _make_parallel(guard, n_jobs, backend, scheduler)
        if out_dir is not None:
            guard.enter_context(out_lock(out_dir))
        if max_games is None:
            max_games = games_per_cell * 10 if ci_width is not None else games_per_cell
        settings_fp = _fingerprint(cells, seed, batch_size, play_fn,
                                   [games_per_cell, ci_width, max_games, group_batches, success_key,
                                    fingerprint_extra])
        code_fp = source_hash()
        fp = f"{settings_fp}:{code_fp}"
        state_path = Path(out_dir) / STATE_FILE if out_dir is not None else None
        plan = _Schedule(games_per_cell, batch_size, max_games, group_batches)
        state = None
        if state_path is not None and state_path.exists():
            state = _resume_state(state_path, out_dir, fp, settings_fp, code_fp, len(cells),
                                  plan, success_key, overwrite)
        if state is None:
            state = _State(len(cells), fp)
        resumed = sum(len(d) for d in state.done)
        meta = {"code_version": code_version(), "seed": seed, "batch_size": batch_size,
                "backend": backend, "n_jobs": _worker_count(n_jobs),
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


def _resume_state(state_path: Path, out_dir, fp: str, settings_fp: str, code_fp: str,
                  n_cells: int, plan: _Schedule, success_key: str, overwrite: bool):
    """The :class:`_State` to resume from ``state_path`` (this experiment's, checked whole
    before any of it is used, never repaired), or None to start over (only with
    ``overwrite``). Raises ``ValueError`` naming the file for an unreadable, damaged or other
    experiment's state."""
    try:
        saved = read_json(state_path)
    except (ValueError, OSError) as exc:
        saved = {"fingerprint": f"unreadable: {type(exc).__name__}"}
    if not (isinstance(saved, dict) and isinstance(saved.get("fingerprint"), str)
            and isinstance(saved.get("done"), list)
            and isinstance(saved.get("totals"), list)):
        if not (isinstance(saved, dict)
                and str(saved.get("fingerprint", "")).startswith("unreadable")):
            saved = {"fingerprint": "unreadable: not a state file of the runner"}
    if str(saved.get("fingerprint", "")).startswith("unreadable") and not overwrite:
        raise ValueError(f"{state_path} cannot be read ({saved['fingerprint'][12:]}): "
                         "start over with --force (overwrite=True), or remove it")
    state = None
    problem = (_validate_state(saved, n_cells, plan.batch_games, plan.max_batches, success_key)
               if saved.get("version") == STATE_VERSION and saved.get("fingerprint") == fp
               else None)
    if problem is None:
        try:
            state = _State.from_saved(saved, n_cells, fp) if "done" in saved else None
        except (TypeError, KeyError, ValueError, AttributeError) as exc:
            problem = f"{type(exc).__name__}: {exc}"
    if problem is not None:
        if not overwrite:
            raise ValueError(f"{state_path} is damaged ({problem}): start over with "
                             "--force (overwrite=True), or remove it")
        state = None
    old_settings, _, old_code = str(saved.get("fingerprint") or "").partition(":")
    if state is None and not overwrite:
        if old_settings != settings_fp:
            what = ("of a different experiment (other cells, seed, games or options)")
        elif old_code != code_fp:
            what = (f"made by other engine or agent code (sources {old_code or 'unknown'}, "
                    f"now {code_fp}), which may play other games")
        else:
            what = "in a format this version cannot resume"
        raise ValueError(
            f"{out_dir} holds partial results {what}: choose another output folder, or "
            f"start over with --force (overwrite=True)")
    return state


class _RunRecord:
    """This run's figures (games played, wall time), kept in the state's ``runs`` and saved
    with it."""

    def __init__(self, state: _State, meta: dict, state_path: Path | None):
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
        jobs = (joblib.delayed(_run_unit)(play_fn, cells[ci], ci, b, n, seed, os.getpid())
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


def _grow_wide_cells(state: _State, planned: list[int], plan: _Schedule, ci_width: float,
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


def _worker_count(n_jobs: int) -> int:
    """The worker processes ``n_jobs`` (a positive integer, or -1 for all cores as joblib counts
    them: CPU affinity and cgroup limits included) stands for."""
    return joblib.cpu_count() if n_jobs == -1 else n_jobs


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
        n = _worker_count(parallel.n_jobs)
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


def _make_parallel(stack: ExitStack, n_jobs: int, backend: str, scheduler: str | None):
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
            workers = _worker_count(n_jobs)
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
