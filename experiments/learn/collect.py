"""Teacher data for the learned policies: seeded games through the runner, every decision of
every seat recorded with the acting player's information-state tensor, the legal actions, the
teacher's value of each legal action and its choice.

The teacher is a PIMC preset of :mod:`agents.search` (``pimc-fast``, ``pimc``, ...) or a search
guided by ``net`` (``net-search*``: a round of expert iteration, Anthony, Tian and Barber
2017): its action values (:func:`agents.search.pimc_values`) are richer labels than its choice
alone. Round 0 is
behaviour cloning: the teacher plays. A DAgger round (Ross, Gordon and Bagnell 2011) seats the
student ``net`` (a weights file) instead: the student plays, the teacher labels every state the
student reaches. Forced moves (one legal action) are not recorded.

Each batch of the runner writes one file ``<out>/data/p<players>_b<batch>.npz`` (atomically;
:mod:`experiments.learn.data` reads them) and returns counts; the runner gives the batches
their seeds (the same data for any worker count) and resumes an interrupted run.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from numba import literally, njit

from agents.game_hooks import g_act_base, g_action_features
from agents.layout import K_NET, K_NET_PIMC, K_PIMC
from agents.net import net_act
from agents.search import net_pimc_values, pimc_values
from engines.protocol import chance
from engines.protocol.chance import SEAT_WORDS, init_seat_memory
from engines.protocol.kernels import (
    g_apply_action,
    g_current_player,
    g_init_state,
    g_is_terminal,
    g_legal_actions,
    g_num_players,
    g_observation_tensor,
    g_sizes,
)

__all__ = ["record_game", "collect_batch", "batch_file", "save_batch", "player_counts",
           "write_run_meta", "run_collect"]


@njit(cache=True)
def append_sparse(x, x_idx, x_val, nz):
    """Append the non-zero entries of the tensor ``x`` (``float32``) to the sparse rows
    ``x_idx`` (``int32``/``int64`` positions) and ``x_val`` (values) from entry ``nz``; returns
    the new entry count, or -1 when they are full. The information-state tensors of the
    recorded decisions and positions are stored this way (CSR rows)."""
    for i in range(x.shape[0]):
        if x[i] != 0.0:
            if nz >= x_idx.shape[0]:
                return -1
            x_idx[nz] = i
            x_val[nz] = x[i]
            nz += 1
    return nz


@njit(cache=True)
def record_game(game, cfg, seed, t_kind, t_params, s_kind, s_params, h_kind, h_params, aux,
                x_idx, x_val, x_ptr, leg, q, dec, fs, fa):
    """Play one game from seed word ``seed`` and record its unforced decisions.

    ``game``: literal game id; ``cfg``: config array; ``t_kind``/``t_params``: the teacher's
    kind and parameter row (a PIMC preset, or a ``net-search`` preset: then each action's
    value is its mean plus the prior term of :func:`agents.search.net_pimc`); ``s_kind``: -1
    (the teacher plays its choice) or ``agents.layout.K_NET`` (the student ``net`` plays with
    ``s_params``: a DAgger round);
    ``h_kind``/``h_params``: the game's heuristic (a kind of the game's own ``act``), whose
    choice is recorded too (on a copy of the seat's memory, so the games do not depend on it);
    only those policies are compiled in (not every search agent); ``aux``:
    the table's aux (:func:`agents.policy.table_aux`). Outputs (capacities from the caller):
    ``x_idx`` ``int32`` / ``x_val`` ``float32`` the tensor's nonzero positions and values of
    every decision, ``x_ptr`` ``int64 (D + 1,)`` their offsets; ``leg`` ``int32 (D, MAX_LEGAL)``
    the legal actions (-1 padded), ``q`` ``float32 (D, MAX_LEGAL)`` the teacher's mean value of
    each; ``dec`` ``int64 (D, 7)``: player count, seat, teacher's choice, action played, number
    of legal actions, decision index in the game, the heuristic's choice; ``fs`` ``float32
    (D, S)`` and ``fa`` ``float32 (D, MAX_LEGAL, F)`` the game's action features
    (:func:`agents.game_hooks.g_action_features` with the heuristic's parameters and the seat's
    memory as it is at the decision; ``S = F = 0`` for a game without them). Returns the number
    of decisions recorded, or -1 when a capacity was too small (the caller retries with larger
    buffers: the same game)."""
    literally(game)
    sz = g_sizes(game)
    s = np.zeros(sz[0], dtype=np.int64)
    legal = np.empty(sz[1], dtype=np.int64)
    mem = np.zeros((sz[2], SEAT_WORDS), dtype=np.int64)
    x = np.empty(sz[7], dtype=np.float32)
    hmem = np.zeros(SEAT_WORDS, dtype=np.int64)
    sums = np.zeros(sz[1], dtype=np.float64)
    g_init_state(game, cfg, seed, s)
    init_seat_memory(seed, mem)
    d = 0
    nz = 0
    step = 0
    x_ptr[0] = 0
    k = max(1.0, t_params[0])
    while not g_is_terminal(game, s):
        p = g_current_player(game, s)
        n = g_legal_actions(game, s, legal)
        if n == 1:
            g_apply_action(game, s, legal[0])
            step += 1
            continue
        if d >= dec.shape[0]:
            return -1
        hmem[:] = mem[p]
        hc = g_act_base(game, h_kind, s, p, legal, n, h_params, aux, hmem)
        g_observation_tensor(game, s, p, x)
        g_action_features(game, s, p, legal, n, h_params, mem[p], fs[d], fa[d])
        nz = append_sparse(x, x_idx, x_val, nz)
        if nz < 0:
            return -1
        x_ptr[d + 1] = nz
        if t_kind == K_NET_PIMC:  # its sums carry the prior term: their best is its choice
            net_pimc_values(game, s, p, legal, n, t_params, aux, mem[p], sums)
        else:
            pimc_values(game, s, p, legal, n, t_params, aux, mem[p], sums)
        best = 0
        for i in range(n):
            leg[d, i] = legal[i]
            q[d, i] = sums[i] / k
            if sums[i] > sums[best]:
                best = i
        for i in range(n, leg.shape[1]):
            leg[d, i] = -1
            q[d, i] = 0.0
        a = legal[best]
        if s_kind >= 0:
            a = net_act(game, s, p, legal, n, s_params, aux, mem[p])
        dec[d, 0] = g_num_players(game, s)
        dec[d, 1] = p
        dec[d, 2] = legal[best]
        dec[d, 3] = a
        dec[d, 4] = n
        dec[d, 5] = step
        dec[d, 6] = hc
        d += 1
        g_apply_action(game, s, a)
        step += 1
    return d


def batch_file(out: str | os.PathLike, players: int, batch: int) -> Path:
    """The data file of batch ``batch`` at ``players`` players under run folder ``out``."""
    return Path(out) / "data" / f"p{players}_b{batch:06d}.npz"


def collect_batch(cell: dict, n_games: int, seed: np.random.SeedSequence) -> dict:
    """The runner's batch function (:mod:`experiments.runner`): play ``n_games`` games of
    ``cell`` (keys ``game``, ``players``, ``config`` (dict of the game's config fields),
    ``teacher`` (a PIMC preset name), ``student`` ("" or a weights file: the student plays),
    ``out`` (the run folder)) and write their decisions to :func:`batch_file`. Returns
    ``{"games", "decisions"}``."""
    from agents.net import feature_sizes, use_weights
    from agents.policy import resolve, table_aux
    from engines.protocol.kernels import call_literal
    from engines.protocol import GAME_IDS, core_of, game_class
    from experiments.runner import MAX_BATCHES

    game = cell["game"]
    n = int(cell["players"])
    cls = game_class(game)
    config = cls._as_config(dict(cell.get("config") or {}, n_players=n))
    C = core_of(game)
    t_kinds, t_rows, _ = resolve(game, cell["teacher"], n)
    t_params = t_rows[0]
    h_kinds, h_rows, _ = resolve(game, "heuristic", n)
    s_kind = -1
    s_params = np.zeros_like(t_params)
    if cell.get("student"):
        use_weights(game, cell["student"])
        s_kind = K_NET
    aux = table_aux(game, config)
    cfg = config.to_array()
    gid = GAME_IDS[game]
    batch = int(seed.spawn_key[0]) if seed.spawn_key else 0
    words = chance.game_seeds(int(seed.generate_state(1, dtype=np.uint64)[0]), n_games)
    S, F = feature_sizes(game)
    parts: dict[str, list] = {k: [] for k in ("x_idx", "x_val", "x_len", "legal", "q", "dec",
                                              "game", "fs", "fa")}
    cap = 256
    for g in range(n_games):
        while True:
            x_idx = np.empty(cap * 256, dtype=np.int32)
            x_val = np.empty(cap * 256, dtype=np.float32)
            x_ptr = np.zeros(cap + 1, dtype=np.int64)
            leg = np.empty((cap, C.MAX_LEGAL), dtype=np.int32)
            q = np.empty((cap, C.MAX_LEGAL), dtype=np.float32)
            dec = np.empty((cap, 7), dtype=np.int64)
            fs = np.zeros((cap, S), dtype=np.float32)
            fa = np.zeros((cap, C.MAX_LEGAL, F), dtype=np.float32)
            d = call_literal(record_game, gid, cfg, words[g], int(t_kinds[0]), t_params,
                             s_kind, s_params,
                             int(h_kinds[0]), h_rows[0], aux, x_idx, x_val, x_ptr, leg, q, dec,
                             fs, fa)
            if d >= 0:
                break
            cap *= 2
        nz = int(x_ptr[d])
        parts["x_idx"].append(x_idx[:nz].astype(np.int16))
        parts["x_val"].append(x_val[:nz])
        parts["x_len"].append(np.diff(x_ptr[:d + 1]).astype(np.int32))
        parts["legal"].append(leg[:d])
        parts["q"].append(q[:d])
        parts["dec"].append(dec[:d])
        parts["game"].append(np.full(d, g, dtype=np.int32))
        parts["fs"].append(fs[:d])
        parts["fa"].append(fa[:d][np.arange(C.MAX_LEGAL)[None, :] < dec[:d, 4:5]])
    if batch >= MAX_BATCHES:  # the runner's compile-first game (outside its batches): no file
        return {"games": n_games, "decisions": 0}
    arrays = {k: np.concatenate(v) if v else np.zeros(0) for k, v in parts.items()}
    arrays["legal"] = arrays["legal"].astype(np.int16)
    arrays["dec"] = arrays["dec"].astype(np.int16)
    save_batch(batch_file(cell["out"], n, batch), arrays)
    return {"games": n_games, "decisions": int(arrays["dec"].shape[0])}


def save_batch(path: Path, arrays: dict) -> None:
    """Write ``arrays`` to the batch file ``path`` (compressed npz) atomically: a temporary
    file beside it, then a rename, so a killed run never leaves half a batch."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **arrays)
    os.replace(tmp, path)


def write_run_meta(out: Path, meta: dict) -> None:
    """Write a collection's ``out/meta.json``, unless the folder already holds another
    collection's: then ``ValueError`` in one line naming the first setting that differs, and
    nothing is written (the same settings resume; ``code_version`` and ``games_per_count``
    may change between runs)."""
    import json

    from experiments.io import write_json

    path = out / "meta.json"
    if path.is_file():
        try:
            old = json.loads(path.read_text())
        except (OSError, ValueError):
            old = None
        loose = ("code_version", "games_per_count")
        new = json.loads(json.dumps(meta, default=str))
        if not isinstance(old, dict):
            raise ValueError(f"--out {out}: holds a meta.json that is not a collection's; "
                             f"expected a new folder")
        diff = next((k for k in sorted(set(old) | set(new)) if k not in loose
                     and old.get(k) != new.get(k)), None)
        if diff is not None:
            raise ValueError(f"--out {out}: holds another collection ({diff} "
                             f"{old.get(diff)!r}, this run {new.get(diff)!r}); expected a new "
                             f"folder, or the same settings to resume")
    write_json(path, meta)


def player_counts(game: str, players) -> list[int]:
    """``players`` as a list of ints, each a player count ``game`` allows; ``ValueError`` in
    one line naming them and the allowed range otherwise (or when there are none)."""
    from engines.protocol import core_of

    C = core_of(game)
    players = [int(p) for p in players]
    bad = [p for p in players if not C.MIN_PLAYERS <= p <= C.MAX_PLAYERS]
    if bad or not players:
        raise ValueError(f"players {players}: expected counts in {C.MIN_PLAYERS}.."
                         f"{C.MAX_PLAYERS}")
    return players


def run_collect(game: str, out, players, n_games: int, *, teacher: str = "pimc",
                student: str | None = None, seed: int = 0, jobs: int = 1,
                batch_size: int = 50, config: dict | None = None, progress: bool = True):
    """Collect teacher data for ``game`` into folder ``out`` through the runner
    (:func:`experiments.runner.run_experiment`): ``n_games`` games per player count of
    ``players`` (ints), in batches of ``batch_size`` seeded from ``seed`` (the same files for
    any ``jobs``; an interrupted run resumes). ``teacher``: a PIMC preset; ``student``: None
    (behaviour cloning: the teacher plays) or a weights file (DAgger: the student plays). The
    runner's compile-first game (``jobs > 1``) writes no file.
    Writes ``out/meta.json`` (game, teacher, student, seed, settings, tensor layout, code
    version) and the batch files; returns the :class:`experiments.runner.RunResult`. Raises
    ``ValueError`` for a teacher that is not a PIMC preset, bad player counts or options."""
    from agents.net import layout_signature
    from agents.policy import get_spec
    from engines.protocol import normalize_game_name
    from experiments.io import code_version
    from experiments.runner import run_experiment

    game = normalize_game_name(game)
    spec = get_spec(game, teacher)
    if spec.kind not in (K_PIMC, K_NET_PIMC) or spec.sees_hidden:
        raise ValueError(f"teacher {teacher!r}: expected a fair PIMC preset of {game} "
                         f"(pimc-fast, pimc, pimc-strong, or net-search-fast, net-search, "
                         f"net-search-strong where net is shipped): its action values are the "
                         f"labels")
    players = player_counts(game, players)
    out = Path(out)
    student = str(Path(student).resolve()) if student else ""
    cells = [{"game": game, "players": p, "config": dict(config or {}), "teacher": teacher,
              "student": student, "out": str(out.resolve())} for p in players]
    out.mkdir(parents=True, exist_ok=True)
    meta = {"format": "boardlab.learn-data/1", "game": game, "teacher": teacher,
            "teacher_params": list(spec.default_params), "student": student,
            "players": players, "games_per_count": int(n_games), "seed": int(seed),
            "batch_size": int(batch_size), "config": dict(config or {}),
            "layout": layout_signature(game), "code_version": code_version()}
    write_run_meta(out, meta)
    return run_experiment(collect_batch, cells, seed=int(seed), games_per_cell=int(n_games),
                          batch_size=int(batch_size), n_jobs=int(jobs), out_dir=out,
                          success_key="games", progress=progress)  # no success rate: games
