"""The one compiled game loop (door 2): whole games of compiled policies on any game's core.

:func:`run_games` plays one game per seed word with a policy per seat through the game's own
``play_table`` (in ``agents/<game>.py``), whose body is the one loop of
:func:`agents.table_loop.run_table`, written once and compiled per game, so the batch tables,
the tournaments, the tuner and the experiments all run this loop. The step API
with :class:`agents.policy.Agent` in every seat (:func:`play_stepwise`) plays the same games:
game ``i`` of seed words ``seeds`` starts from ``seeds[i]`` and seat ``p`` draws from
``chance.seat_seed(seeds[i], p)``.

User policies (compiled functions with the signature of :mod:`agents.policy`) sit in a seat
with kind ``USER_KIND + j``; the loop then is compiled for that set of functions in this process
(:func:`play_games_user`; Numba cannot cache code specialized on function objects).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numba import literally, njit

from agents.dispatch import table_kind
from agents.layout import USER_KIND
from agents.policy import Agent, agents_module, get_spec, resolve, table_aux
from agents.precompile import policies_of_table, prepare_loop
from agents.table_loop import run_table
from engines.protocol import GAME_IDS, chance, core_of, game_class, normalize_game_name
from engines.protocol.game import absent_seat_field
from engines.protocol.kernels import call_literals

__all__ = ["play_games_user", "run_games", "play_batch", "play_stepwise", "game_of_config",
           "MAX_USER"]

MAX_USER = 4
"""Different user policies one call may seat."""


@njit
def play_games_user(game, one_kind, cfg, seeds, kinds, params, aux, returns_out, outcome_out,
                    bad, u0, u1, u2, u3):
    """The game loop (:func:`agents.table_loop.run_table`) of game ``game`` (a literal id) with
    up to four user policies ``u0..u3`` (kinds ``USER_KIND + j``); compiled per set of
    functions in each process (never cached on disk). ``one_kind``: the
    literal ``agents.dispatch.OWN_KINDS`` or mixed kind of the shipped seats
    (:func:`agents.dispatch.table_kind`)."""
    literally(game)
    literally(one_kind)
    run_table(game, one_kind, cfg, seeds, kinds, params, aux, returns_out, outcome_out, bad, u0,
              u1, u2, u3)


def game_of_config(config) -> str:
    """The game name of a config object (its class lives in ``engines.<game>.config``)."""
    mod = type(config).__module__.split(".")
    if len(mod) >= 2 and mod[0] == "engines" and mod[1] in GAME_IDS:
        return mod[1]
    raise ValueError(f"bad config {config!r}: expected the config of a game "
                     f"(engines.<game>.config: RiverRatsConfig, LureConfig...), or pass game=")


def _seat_functions(game: str, policies, n_players: int):
    """Split per-seat policies into registry names and user functions; returns (names for
    :func:`resolve` with user seats replaced by the first registry name, user kinds by seat,
    the tuple of user functions)."""
    from numba.core.registry import CPUDispatcher

    pols = [policies] * n_players if isinstance(policies, str) or isinstance(
        policies, CPUDispatcher) else list(policies)
    if len(pols) != n_players:
        raise ValueError(f"{len(pols)} policies given for {n_players} players: expected one for "
                         f"every seat or one per seat")
    fns: list = []
    user_kind = {}
    names = []
    for i, pol in enumerate(pols):
        if isinstance(pol, str):
            get_spec(game, pol)
            names.append(pol)
        elif isinstance(pol, CPUDispatcher):
            if pol not in fns:
                fns.append(pol)
            if len(fns) > MAX_USER:
                raise ValueError(f"at most {MAX_USER} different user policies in one game")
            user_kind[i] = USER_KIND + fns.index(pol)
            names.append(None)
        else:
            raise ValueError(f"bad policy {pol!r} for seat {i}: expected a registry name or an "
                             f"@njit function policy(state, player, legal, n_legal, params, rng)")
    return names, user_kind, tuple(fns)


def run_games(config, policies, seeds: np.ndarray, params=None, game: str | None = None):
    """Play one game per seed word (``int64`` array) with ``policies`` (names and/or compiled
    user functions, one for all seats or one per seat) and return ``(returns (G, n_players)
    float64, outcome (G, len(OUTCOME_FIELDS)) int64)``. Raises ``ValueError`` for bad input or
    when a policy returns an illegal action (naming the seat, game and action)."""
    game = normalize_game_name(game) if game is not None else game_of_config(config)
    cls = game_class(game)
    config = cls._as_config(config)
    C = core_of(game)
    n = int(config.n_players)
    names, user_kind, fns = _seat_functions(game, policies, n)
    filler = next((x for x in names if x is not None), agents_module(game).SPECS[0].name)
    per_seat = (list(params) if isinstance(params, (list, tuple)) and len(params) == n
                and all(p is None or np.ndim(p) == 1 for p in params) else [params] * n)
    kinds, rows, _ = resolve(game, [x if x is not None else filler for x in names], n,
                             [per_seat[i] if names[i] is not None else None for i in range(n)])
    shipped = {id(f): nm for nm, f in agents_module(game).POLICY_FUNCTIONS.items()}
    for i, k in user_kind.items():
        kinds[i] = k
        fn = fns[k - USER_KIND]
        if per_seat[i] is None:  # a shipped function keeps its defaults; others get zeros
            rows[i] = 0.0
            if id(fn) in shipped:
                d = get_spec(game, shipped[id(fn)]).params_array()
                rows[i, :d.size] = d
        else:
            v = np.asarray(per_seat[i], dtype=np.float64).ravel()
            if v.size > rows.shape[1] or not np.all(np.isfinite(v)):
                raise ValueError(f"bad params for the user policy of seat {i}: expected at most "
                                 f"{rows.shape[1]} finite floats")
            rows[i] = 0.0
            rows[i, :v.size] = v
    seeds = np.ascontiguousarray(seeds, dtype=np.int64)
    G = seeds.shape[0]
    ret = np.zeros((G, C.MAX_PLAYERS))
    out = np.zeros((G, len(C.OUTCOME_FIELDS)), dtype=np.int64)
    bad = np.full(3, -1, dtype=np.int64)
    aux = table_aux(game, config)
    cfg = config.to_array()
    gid = GAME_IDS[game]
    if fns:
        u = list(fns) + [fns[0]] * (MAX_USER - len(fns))
        call_literals(play_games_user, (gid, table_kind(kinds[:n])), cfg, seeds, kinds, rows,
                      aux, ret, out, bad, *u)
    else:
        one = table_kind(kinds[:n])
        prepare_loop(game, config, policies_of_table(game, one))
        call_literals(agents_module(game).play_table, (one,), cfg, seeds, kinds, rows, aux, ret,
                      out, bad)
    if bad[0] >= 0:
        who = names[int(bad[1])] or f"user policy of seat {int(bad[1])}"
        raise ValueError(f"policy {who!r} (seat {int(bad[1])}) returned the illegal action "
                         f"{int(bad[2])} in game {int(bad[0])} (seed word "
                         f"{chance.word_to_seed(seeds[int(bad[0])])})")
    return ret[:, :n], out


def play_batch(config, policies, n_games: int, seed: int = 0, params=None,
               game: str | None = None) -> pd.DataFrame:
    """Play ``n_games`` whole games in compiled code; one DataFrame row per game.

    ``config``: a game's config (its class tells the game; or a dict/None with ``game=``);
    ``policies``: a registry name for every seat or one entry per seat, each a name of
    :func:`agents.policy.names` or a compiled user policy; ``seed``: ``0 .. 2**64-1``, game
    ``g`` has seed ``chance.game_seed(seed, g)`` (column ``seed``) and
    ``new_game(config, that seed)`` replays it; ``params``: see :func:`agents.policy.resolve`.

    Columns: ``seed`` (``uint64``), ``return_p`` per seat, then the core's ``OUTCOME_FIELDS``
    (and the game's own extra columns, e.g. River Rats' ``rat_pair``). Raises ``ValueError``
    for a bad config, policy, parameter vector, ``n_games`` or seed."""
    if isinstance(n_games, (bool, np.bool_)) or not isinstance(n_games, (int, np.integer)) \
            or n_games < 0:
        raise ValueError(f"bad n_games {n_games!r}: expected an integer >= 0")
    sd = chance.check_seed(seed)
    seeds = chance.game_seeds(sd, int(n_games))
    game = normalize_game_name(game) if game is not None else game_of_config(config)
    ret, out = run_games(config, policies, seeds, params=params, game=game)
    C = core_of(game)
    cols = {"seed": seeds.view(np.uint64)}
    for p in range(ret.shape[1]):
        cols[f"return_{p}"] = ret[:, p]
    n = ret.shape[1]  # per-seat fields of absent seats ("place_4" at 4 players) are dropped
    for j, c in enumerate(C.OUTCOME_FIELDS):
        if not absent_seat_field(c, n):
            cols[c] = out[:, j]
    df = pd.DataFrame(cols)  # one frame from one dict: a tenth of the old frame-building time
    finish = getattr(importlib_game(game), "finish_frame", None)
    return finish(df, ret.shape[1]) if finish is not None else df


def importlib_game(game: str):
    """The step-API module ``engines.<game>.game``."""
    import importlib

    return importlib.import_module(f"engines.{normalize_game_name(game)}.game")


def play_stepwise(config, policies, seed: int, params=None, game: str | None = None):
    """Play one game through the step API from Python with :class:`agents.policy.Agent` in
    every seat: the reference for "step API = batch" (game ``g`` of
    ``play_batch(config, policies, n, s)`` equals ``play_stepwise(config, policies, seed)``
    with ``seed`` from that frame's ``seed`` column, i.e.
    ``chance.word_to_seed(chance.game_seed(chance.as_word(s), g))``). Returns the final
    :class:`engines.protocol.GameState`."""
    game = normalize_game_name(game) if game is not None else game_of_config(config)
    st = game_class(game)(config, seed)
    n = st.n_players
    pols = [policies] * n if isinstance(policies, str) else list(policies)
    pars = list(params) if isinstance(params, (list, tuple)) and len(params) == n else [params] * n
    agents = [Agent(game, pols[p], pars[p]) for p in range(n)]
    while not st.is_terminal():
        st.apply_action(agents[st.current_player()](st))
    return st
