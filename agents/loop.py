"""The one compiled game loop (door 2): whole games of compiled policies on any game's core.

:func:`play_games` plays one game per seed word with a policy per seat and writes each game's
returns and outcome statistics; it is written once against :mod:`engines.protocol.kernels` and
:mod:`agents.dispatch` and specialized per game at compile time (``numba.literally``), so the
batch tables, the tournaments, the tuner and the experiments all run this loop. The step API
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

from agents.dispatch import ANY_KINDS, MIXED_BASE, g_act_seat, g_legal_seat, table_kind
from agents.policy import USER_KIND, agents_module, get_spec, resolve, table_aux
from agents.precompile import policies_of_table, prepare_loop
from agents.search import H_INFER, K_NET_PIMC
from engines.protocol import chance
from engines.protocol.borrow import borrow, keep_alive
from engines.protocol.chance import SEAT_WORDS, init_seat_memory
from engines.protocol.history import LOG_S0, log_action, log_start
from engines.protocol.kernels import (
    call_literals,
    g_apply_action,
    g_current_player,
    g_init_state,
    g_is_terminal,
    g_outcome,
    g_returns,
    g_sizes,
)
from engines.protocol import (
    GAME_IDS,
    core_of,
    game_class,
    normalize_game_name,
)
from engines.protocol.game import _absent_seat_field

__all__ = ["play_games", "play_games_user", "run_games", "play_batch", "play_stepwise",
           "game_of_config", "wants_log", "MAX_USER"]

MAX_USER = 4
"""Different user policies one call may seat."""


@njit(cache=True)
def _call_user(u, s, p, legal, n, params, mem):
    """Call user policy ``u`` (``None`` in the cached loop, where this branch is pruned at
    compile time)."""
    if u is None:
        return legal[0]
    return u(s, p, legal, n, params, mem)


@njit(cache=True, inline="always")
def _play_one(game, one_kind, cfg, seed, kinds, params, aux, s, legal, mem, u0, u1, u2, u3):
    """Play one game from seed word ``seed`` into ``s``; returns -1, or the seat whose policy
    returned an illegal action (then ``legal[0]`` holds that action). ``one_kind`` (literal):
    the shipped kind every seat plays, so only that policy is compiled in, or the kinds of a
    table of several (:func:`agents.dispatch.table_kind`). Inlined into its caller, whose
    ``game`` and ``one_kind`` are literal."""
    g_init_state(game, cfg, seed, s)
    init_seat_memory(seed, mem)
    # the decision log (inference over hidden cards): never for a table of one other kind,
    # where one_kind, a literal, lets the compiler drop the branch from the loop
    logged = ((one_kind == ANY_KINDS or one_kind == K_NET_PIMC or one_kind < MIXED_BASE)
              and mem.shape[1] > SEAT_WORDS)
    if logged:
        log_start(mem, s)
    while not g_is_terminal(game, s):
        p = g_current_player(game, s)
        n = g_legal_seat(game, one_kind, s, legal)
        k = kinds[p]
        if k < USER_KIND:  # shipped policies return legal actions (tested)
            a = g_act_seat(game, one_kind, k, s, p, legal, n, params[p], aux, mem[p])
        else:
            if k == USER_KIND:
                a = _call_user(u0, s, p, legal, n, params[p], mem[p])
            elif k == USER_KIND + 1:
                a = _call_user(u1, s, p, legal, n, params[p], mem[p])
            elif k == USER_KIND + 2:
                a = _call_user(u2, s, p, legal, n, params[p], mem[p])
            else:
                a = _call_user(u3, s, p, legal, n, params[p], mem[p])
            ok = False
            for i in range(n):
                if legal[i] == a:
                    ok = True
                    break
            if not ok:
                legal[0] = a
                return p
        g_apply_action(game, s, a)
        if logged:
            log_action(mem, s.shape[0], a)
    return -1


@njit(cache=True)
def wants_log(kinds, params):
    """True when a seat of the table infers hidden cards (kind ``agents.search.K_NET_PIMC``
    with ``params[p, H_INFER] > 0``, :mod:`agents.inference`): the loop then keeps the game's
    decision log in the policy memories (:mod:`engines.protocol.history`). ``kinds``: ``int64
    (seats,)``; ``params``: ``float64 (seats, width)``."""
    for p in range(kinds.shape[0]):
        if kinds[p] == K_NET_PIMC and params.shape[1] > H_INFER and params[p, H_INFER] > 0.0:
            return True
    return False


@njit(cache=True, inline="always")
def _run(game, one_kind, cfg, seeds, kinds, params, aux, returns_out, outcome_out, bad, u0, u1,
         u2, u3):
    sz = g_sizes(game)
    s_own = np.zeros(sz[0], dtype=np.int64)
    legal_own = np.empty(sz[1], dtype=np.int64)
    width = SEAT_WORDS
    if wants_log(kinds, params):
        width = LOG_S0 + sz[0] + sz[4]
    mem_own = np.zeros((sz[2], width), dtype=np.int64)
    ret = np.zeros(sz[2], dtype=np.float64)
    # borrowed views (no reference counting down the call chain: issue 29, engines.protocol.borrow);
    # the owners above and the arguments live until this function returns
    s = borrow(s_own)
    legal = borrow(legal_own)
    mem = borrow(mem_own)
    cfg = borrow(cfg)
    kinds = borrow(kinds)
    params = borrow(params)
    aux = borrow(aux)
    outcome_out = borrow(outcome_out)
    for i in range(seeds.shape[0]):
        r = _play_one(game, one_kind, cfg, seeds[i], kinds, params, aux, s, legal, mem, u0, u1,
                      u2, u3)
        if r >= 0:
            bad[0] = i
            bad[1] = r
            bad[2] = legal[0]
            break
        g_returns(game, s, ret)
        for p in range(sz[2]):
            returns_out[i, p] = ret[p]
        g_outcome(game, s, outcome_out[i])
    keep_alive(s_own, legal_own, mem_own)  # the owners of the borrowed views live to here


@njit(cache=True)
def play_games(game, one_kind, cfg, seeds, kinds, params, aux, returns_out, outcome_out, bad):
    """Play one game per seed word and record it.

    ``game``: game id (:data:`engines.protocol.GAME_IDS`); ``one_kind``: the shipped policy
    kind of every seat when all seats share one (only that policy is then compiled into the
    loop: a table of one agent compiles fast), else ``agents.dispatch.OWN_KINDS`` (several of
    the game's own policies: only the game's ``act`` compiled in) or a
    :func:`agents.dispatch.mixed_kind` (search agents or ``net`` among them: only those
    compiled in besides the game's ``act``), as :func:`agents.dispatch.table_kind` tells; both
    literal (:func:`engines.protocol.kernels.call_literals`); ``cfg``: the config array;
    ``seeds``: ``int64 (G,)`` game seed words; ``kinds``: ``int64 (MAX_PLAYERS,)`` shipped
    policy kinds per seat; ``params``: ``float64 (MAX_PLAYERS, PARAMS_WIDTH)``; ``aux``: the
    game's ``table_aux(game, config)`` (:mod:`agents.policy`). Outputs: ``returns_out`` ``float64
    (G, MAX_PLAYERS)``, ``outcome_out`` ``int64 (G, len(OUTCOME_FIELDS))``. If a policy returns an
    illegal action the loop stops and ``bad`` (``int64 (3,)``) holds (game index, seat, action);
    ``bad[0]`` stays -1 otherwise."""
    literally(game)
    literally(one_kind)
    _run(game, one_kind, cfg, seeds, kinds, params, aux, returns_out, outcome_out, bad, None,
         None, None, None)


def _uncached_copy(dispatcher, name: str, **globals_override):
    """An uncached njit copy of a cached loop function whose globals ``globals_override``
    replace (the chain :func:`_run` -> :func:`_play_one` -> :func:`_call_user` specialized on
    user functions). Numba's on-disk cache cannot hold signatures that contain function
    objects: saving one pickles every signature of the cache index, and a user function that
    has since been garbage-collected makes that fail. So the user path never touches the
    cache, while the shipped path (``None`` in the user slots) stays cached."""
    import types as _types

    f = dispatcher.py_func
    g = dict(f.__globals__)
    g.update(globals_override)
    copy = _types.FunctionType(f.__code__, g, name, f.__defaults__, f.__closure__)
    copy.__doc__ = f.__doc__
    return njit(cache=False, **{k: v for k, v in dispatcher.targetoptions.items()
                                if k == "inline"})(copy)


_call_user_nc = _uncached_copy(_call_user, "_call_user_nc")
_play_one_nc = _uncached_copy(_play_one, "_play_one_nc", _call_user=_call_user_nc)
_run_nc = _uncached_copy(_run, "_run_nc", _play_one=_play_one_nc)


@njit
def play_games_user(game, one_kind, cfg, seeds, kinds, params, aux, returns_out, outcome_out,
                    bad, u0, u1, u2, u3):
    """:func:`play_games` with up to four user policies ``u0..u3`` (kinds ``USER_KIND + j``);
    compiled per set of functions in each process (never cached on disk). ``one_kind``: the
    literal ``agents.dispatch.OWN_KINDS`` or mixed kind of the shipped seats
    (:func:`agents.dispatch.table_kind`)."""
    literally(game)
    literally(one_kind)
    _run_nc(game, one_kind, cfg, seeds, kinds, params, aux, returns_out, outcome_out, bad, u0,
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
        call_literals(play_games, (gid, one), cfg, seeds, kinds, rows, aux, ret, out, bad)
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
        if not _absent_seat_field(c, n):
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
    from agents.policy import Agent

    game = normalize_game_name(game) if game is not None else game_of_config(config)
    st = game_class(game)(config, seed)
    n = st.n_players
    pols = [policies] * n if isinstance(policies, str) else list(policies)
    pars = list(params) if isinstance(params, (list, tuple)) and len(params) == n else [params] * n
    agents = [Agent(game, pols[p], pars[p]) for p in range(n)]
    while not st.is_terminal():
        st.apply_action(agents[st.current_player()](st))
    return st
