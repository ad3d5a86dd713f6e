"""Training data of the learned value (:mod:`agents.value`): seeded self-play games of one
policy (``net`` by default) through the runner; a few decisions of each game, chosen by the
game's seed, are recorded with the acting player's information-state tensor, and each gets
that seat's return at the end of the game.

A few positions per game and not every one, as in Silver et al. 2016's value network: the
positions of one game share its outcome, and a regression on all of them learns the games by
heart. Each batch of the runner writes ``<out>/data/p<players>_b<batch>.npz`` atomically; the
runner seeds the batches (the same files for any worker count) and resumes an interrupted run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import literally, njit

from agents.dispatch import g_act
from engines.protocol.chance import SEAT_WORDS, init_seat_memory, mix
from experiments.learn.collect import append_sparse
from engines.protocol.kernels import (
    g_apply_action,
    g_current_player,
    g_init_state,
    g_is_terminal,
    g_legal_actions,
    g_num_players,
    g_observation_tensor,
    g_returns,
    g_sizes,
)

__all__ = ["record_value_game", "value_batch", "run_value_collect", "read_value_data",
           "DATA_FORMAT"]

DATA_FORMAT = "boardlab.value-data/1"


@njit(cache=True)
def record_value_game(game, kind, cfg, seed, params, aux, every, x_idx, x_val, x_ptr, rec):
    """Play one game from seed word ``seed`` with every seat playing policy ``kind`` (a
    literal: only that policy is compiled in; seat ``p``'s parameter row ``params[p]``) and
    record about one unforced decision in ``every``: the
    decision at step ``t`` is recorded when ``mix(seed ^ t) % every == 0`` (a function of the
    game's seed only, so the games do not depend on it).

    Outputs (capacities from the caller): ``x_idx`` ``int32`` / ``x_val`` ``float32`` the
    nonzero positions and values of the acting player's ``observation_tensor``, ``x_ptr``
    ``int64 (D + 1,)`` their offsets; ``rec`` ``float64 (D, 4)``: player count, seat, step,
    and that seat's return at the end of the game (the core's ``returns``). Returns the number
    of decisions recorded, or -1 when a capacity was too small (the caller retries with
    larger buffers: the same game). ``game``: literal game id."""
    literally(game)
    literally(kind)
    sz = g_sizes(game)
    s = np.zeros(sz[0], dtype=np.int64)
    legal = np.empty(sz[1], dtype=np.int64)
    mem = np.zeros((sz[2], SEAT_WORDS), dtype=np.int64)
    x = np.empty(sz[7], dtype=np.float32)
    ret = np.zeros(sz[2], dtype=np.float64)
    g_init_state(game, cfg, seed, s)
    init_seat_memory(seed, mem)
    d = 0
    nz = 0
    step = 0
    x_ptr[0] = 0
    while not g_is_terminal(game, s):
        p = g_current_player(game, s)
        n = g_legal_actions(game, s, legal)
        if n > 1 and np.uint64(mix(seed ^ step)) % np.uint64(every) == 0:
            if d >= rec.shape[0]:
                return -1
            g_observation_tensor(game, s, p, x)
            nz = append_sparse(x, x_idx, x_val, nz)
            if nz < 0:
                return -1
            x_ptr[d + 1] = nz
            rec[d, 0] = g_num_players(game, s)
            rec[d, 1] = p
            rec[d, 2] = step
            d += 1
        a = legal[0] if n == 1 else g_act(game, kind, s, p, legal, n, params[p], aux,
                                          mem[p])
        g_apply_action(game, s, a)
        step += 1
    g_returns(game, s, ret)
    for j in range(d):
        rec[j, 3] = ret[np.int64(rec[j, 1])]
    return d


def value_batch(cell: dict, n_games: int, seed: np.random.SeedSequence) -> dict:
    """The runner's batch function (:mod:`experiments.runner`): play ``n_games`` games of
    ``cell`` (keys ``game``, ``players``, ``config``, ``policy`` (a registered name), ``every``,
    ``out``) and write the recorded decisions to
    :func:`experiments.learn.collect.batch_file` (atomically). Returns ``{"games",
    "positions"}``."""
    from agents.policy import resolve, table_aux
    from engines.protocol import GAME_IDS, chance, game_class
    from experiments.learn.collect import batch_file, save_batch
    from engines.protocol.kernels import call_literals
    from experiments.runner import MAX_BATCHES

    game = cell["game"]
    n = int(cell["players"])
    config = game_class(game)._as_config(dict(cell.get("config") or {}, n_players=n))
    kinds, rows, _ = resolve(game, cell["policy"], n)
    aux = table_aux(game, config)
    cfg = config.to_array()
    gid = GAME_IDS[game]
    every = int(cell["every"])
    batch = int(seed.spawn_key[0]) if seed.spawn_key else 0
    words = chance.game_seeds(int(seed.generate_state(1, dtype=np.uint64)[0]), n_games)
    parts: dict[str, list] = {k: [] for k in ("x_idx", "x_val", "x_len", "rec", "game")}
    cap = 64
    for g in range(n_games):
        while True:
            x_idx = np.empty(cap * 128, dtype=np.int32)
            x_val = np.empty(cap * 128, dtype=np.float32)
            x_ptr = np.zeros(cap + 1, dtype=np.int64)
            rec = np.zeros((cap, 4), dtype=np.float64)
            d = call_literals(record_value_game, (gid, int(kinds[0])), cfg, words[g], rows,
                              aux, every, x_idx, x_val, x_ptr, rec)
            if d >= 0:
                break
            cap *= 2
        nz = int(x_ptr[d])
        parts["x_idx"].append(x_idx[:nz].astype(np.int16))
        parts["x_val"].append(x_val[:nz])
        parts["x_len"].append(np.diff(x_ptr[:d + 1]).astype(np.int32))
        parts["rec"].append(rec[:d].astype(np.float32))
        parts["game"].append(np.full(d, g, dtype=np.int32))
    if batch >= MAX_BATCHES:  # the runner's compile-first game (outside its batches): no file
        return {"games": n_games, "positions": 0}
    arrays = {k: np.concatenate(v) for k, v in parts.items()}
    save_batch(batch_file(cell["out"], n, batch), arrays)
    return {"games": n_games, "positions": int(arrays["rec"].shape[0])}


def run_value_collect(game: str, out, players, n_games: int, *, policy: str = "net",
                      every: int = 20, seed: int = 0, jobs: int = 1, batch_size: int = 500,
                      config: dict | None = None, progress: bool = True):
    """Collect value data of ``game`` into folder ``out`` through the runner: ``n_games``
    self-play games of ``policy`` per player count of ``players``, about one unforced decision
    in ``every`` recorded (:func:`record_value_game`), in batches of ``batch_size`` seeded
    from ``seed`` (the same files for any ``jobs``; an interrupted run resumes). Writes
    ``out/meta.json`` and the batch files; returns the runner's result. Raises ``ValueError``
    for an unknown or search policy, bad player counts or ``every`` below 1."""
    from agents.net import layout_signature
    from agents.policy import get_spec
    from engines.protocol import normalize_game_name
    from experiments.learn.collect import player_counts, write_run_meta
    from experiments.io import code_version
    from experiments.runner import run_experiment

    game = normalize_game_name(game)
    spec = get_spec(game, policy)
    if spec.search or spec.sees_hidden:
        raise ValueError(f"policy {policy!r}: expected a fast fair policy of {game} (net, "
                         f"heuristic, ...): the value learns the games it plays")
    if int(every) < 1:
        raise ValueError(f"every {every!r}: expected a positive integer (one decision in "
                         f"EVERY is recorded)")
    players = player_counts(game, players)
    out = Path(out)
    cells = [{"game": game, "players": p, "config": dict(config or {}), "policy": policy,
              "every": int(every), "out": str(out.resolve())} for p in players]
    out.mkdir(parents=True, exist_ok=True)
    write_run_meta(out, {
        "format": DATA_FORMAT, "game": game, "policy": policy, "every": int(every),
        "players": players, "games_per_count": int(n_games), "seed": int(seed),
        "batch_size": int(batch_size), "config": dict(config or {}),
        "layout": layout_signature(game), "code_version": code_version()})
    return run_experiment(value_batch, cells, seed=int(seed), games_per_cell=int(n_games),
                          batch_size=int(batch_size), n_jobs=int(jobs), out_dir=out,
                          success_key="games", progress=progress)  # no success rate: games


def read_value_data(folders) -> dict:
    """The value data of run folders ``folders`` (an iterable of paths), concatenated:
    ``x_idx`` ``int16``, ``x_val`` ``float32``, ``x_ptr`` ``int64 (N + 1,)``, ``rec``
    ``float32 (N, 4)`` (player count, seat, step, return) and ``group`` ``int64 (N,)`` (one id
    per game, for a split by game), with ``meta`` (the first folder's meta.json). Raises
    ``ValueError`` naming a folder that is not value data or has no batch files, or folders
    of different games or tensor layouts."""
    import json

    parts: dict[str, list] = {k: [] for k in ("x_idx", "x_val", "x_len", "rec", "group")}
    meta = None
    gid = 0
    for folder in folders:
        f = Path(folder)
        try:
            m = json.loads((f / "meta.json").read_text())
        except (OSError, ValueError):
            raise ValueError(f"value data {f}: no readable meta.json (collect with `boardlab "
                             f"learn value-collect`)") from None
        if m.get("format") != DATA_FORMAT:
            raise ValueError(f"value data {f}: format {m.get('format')!r}, expected "
                             f"{DATA_FORMAT!r}")
        if meta is not None and (m["game"], m["layout"]) != (meta["game"], meta["layout"]):
            raise ValueError(f"value data {f}: game or tensor layout differs from "
                             f"{meta['game']!r} of the first folder")
        meta = meta or m
        files = sorted((f / "data").glob("p*_b*.npz"))
        files = [p for p in files if not p.name.endswith(".tmp.npz")]
        if not files:
            raise ValueError(f"value data {f}: no batch files in {f / 'data'}")
        for p in files:
            with np.load(p) as z:
                for k in ("x_idx", "x_val", "x_len", "rec"):
                    parts[k].append(z[k])
                parts["group"].append(z["game"].astype(np.int64) + gid)
                gid += int(z["game"].max()) + 1 if z["game"].size else 0
    out = {k: np.concatenate(v) for k, v in parts.items()}
    out["x_ptr"] = np.concatenate([[0], np.cumsum(out.pop("x_len"), dtype=np.int64)])
    out["meta"] = meta
    return out
