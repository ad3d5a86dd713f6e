"""Batch simulator of River Rats (door 2): whole games in compiled code, one policy per seat.

Three levels, all on the kernels of :mod:`engines.river_rats.core`:

- :func:`play_batch` (Python): a pandas DataFrame with one row per game;
- :func:`play_games` (compiled): plays ``n_games`` and fills an ``int64`` outcome array
  ``(n_games, len(COLUMNS))`` plus the per-game seeds;
- :func:`play_sums` (compiled): plays ``n_games`` and adds sufficient statistics per ordered
  Rat pair into an ``int64`` array ``(16, len(SUM_FIELDS))`` (row ``4 * first + second``), so
  an experiment over 10^8 games keeps flat memory (see :func:`summary_frame`).

Game ``g`` of a batch with seed ``seed`` uses seed :func:`core.game_seed` ``(seed, g)``; the
step API game ``new_game(config, game_seed(seed, g))`` driven by the same policies (see
:func:`play_game_stepwise`) is the identical game.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from agents import river_rats as _agents
from engines.river_rats import core as C
from engines.river_rats.config import SUIT_LETTERS, as_config

__all__ = ["COLUMNS", "SUM_FIELDS", "play_batch", "play_games", "play_sums", "summary_frame",
           "play_game_stepwise", "outcome_row", "resolve_policies"]

COLUMNS = ("won", "rounds", "hands_won", "hands_lost", "player_debt", "rat1_debt", "rat2_debt",
           "rats_defeated", "jokers_earned", "jokers_used", "loss_reason", "n_actions", "turns",
           "rat1", "rat2")
"""Outcome columns of :func:`play_games` (``int64``): ``won`` 0/1; ``rounds`` collective hands
resolved; ``hands_won``/``hands_lost`` by the players; ``player_debt`` final players' debt;
``rat1_debt``/``rat2_debt`` debt the first/second Rat reached; ``rats_defeated`` 0..2;
``jokers_earned``/``jokers_used``; ``loss_reason`` (core.LOSS_*); ``n_actions``; ``turns``;
``rat1``/``rat2`` suits 0..3 of the first (active) and second (waiting) Rat."""
(O_WON, O_ROUNDS, O_HW, O_HL, O_PDEBT, O_R1, O_R2, O_DEF, O_JE, O_JU, O_LOSS, O_NACT, O_TURNS,
 O_RAT1, O_RAT2) = range(len(COLUMNS))

SUM_FIELDS = ("games", "won", "rounds", "rounds_sq", "hands_won", "hands_lost", "player_debt",
              "rat1_debt", "rat2_debt", "rats_defeated", "jokers_earned", "jokers_used",
              "lost_on_debt", "stalled", "n_actions")
"""Columns of the sums of :func:`play_sums` (``rounds_sq`` = sum of rounds squared)."""


@njit(cache=True)
def _fill_outcome(s, row):
    row[O_WON] = 1 if s[C.STATUS] == C.WON else 0
    row[O_ROUNDS] = s[C.ROUND]
    row[O_HW] = s[C.HANDS_WON]
    row[O_HL] = s[C.HANDS_LOST]
    row[O_PDEBT] = s[C.PDEBT]
    row[O_R1] = s[C.RAT_DEBT1]
    row[O_R2] = s[C.RAT_DEBT2]
    row[O_DEF] = s[C.DEFEATED]
    row[O_JE] = s[C.JOKERS_EARNED]
    row[O_JU] = s[C.JOKERS_USED]
    row[O_LOSS] = s[C.LOSS_REASON]
    row[O_NACT] = s[C.N_ACTIONS]
    row[O_TURNS] = s[C.TURNS]
    row[O_RAT1] = s[C.FIRST_RAT]
    row[O_RAT2] = s[C.SECOND_RAT]


@njit(cache=True)
def _play_one(cfg, pol_ids, params, gs, s, legal, prng):
    C.init_state(cfg, gs, s)
    C.policy_rngs(gs, prng)
    while s[C.STATUS] == C.RUNNING:
        n = C.legal_actions(s, legal)
        p = s[C.CUR]
        a = _agents.dispatch(pol_ids[p], s, p, legal, n, params[p], prng[p:p + 1])
        ok = False
        for i in range(n):
            if legal[i] == a:
                ok = True
                break
        if not ok:
            raise ValueError("a policy returned an illegal action")
        C.apply_action(s, a)


@njit(cache=True)
def play_games(cfg, pol_ids, params, n_games, seed, out, seeds):
    """Play ``n_games`` games with seed ``seed`` (``uint64``-compatible) and fill ``out``
    (``int64``, shape ``(n_games, len(COLUMNS))``) and ``seeds`` (``uint64``, ``(n_games,)``).

    ``cfg``: config array (``Config.to_array()``); ``pol_ids``: ``int64`` ``(4,)`` policy ids of
    :data:`agents.river_rats.POLICY_IDS` per seat; ``params``: ``float64`` ``(4, P)`` parameter
    vector per seat. Raises ``ValueError`` if a policy returns an illegal action."""
    s = np.zeros(C.STATE_SIZE, dtype=np.int64)
    legal = np.empty(C.MAX_LEGAL, dtype=np.int64)
    prng = np.empty(4, dtype=np.uint64)
    for g in range(n_games):
        gs = C.game_seed(seed, g)
        seeds[g] = gs
        _play_one(cfg, pol_ids, params, gs, s, legal, prng)
        _fill_outcome(s, out[g])


@njit(cache=True)
def play_sums(cfg, pol_ids, params, n_games, seed, sums):
    """Play ``n_games`` like :func:`play_games` but add sufficient statistics into ``sums``
    (``int64``, shape ``(16, len(SUM_FIELDS))``, row ``4 * first_rat + second_rat``) instead of
    keeping rows: flat memory for any number of games. Raises like :func:`play_games`."""
    s = np.zeros(C.STATE_SIZE, dtype=np.int64)
    legal = np.empty(C.MAX_LEGAL, dtype=np.int64)
    prng = np.empty(4, dtype=np.uint64)
    row = np.zeros(len(COLUMNS), dtype=np.int64)
    for g in range(n_games):
        gs = C.game_seed(seed, g)
        _play_one(cfg, pol_ids, params, gs, s, legal, prng)
        _fill_outcome(s, row)
        r = 4 * row[O_RAT1] + row[O_RAT2]
        sums[r, 0] += 1
        sums[r, 1] += row[O_WON]
        sums[r, 2] += row[O_ROUNDS]
        sums[r, 3] += row[O_ROUNDS] * row[O_ROUNDS]
        sums[r, 4] += row[O_HW]
        sums[r, 5] += row[O_HL]
        sums[r, 6] += row[O_PDEBT]
        sums[r, 7] += row[O_R1]
        sums[r, 8] += row[O_R2]
        sums[r, 9] += row[O_DEF]
        sums[r, 10] += row[O_JE]
        sums[r, 11] += row[O_JU]
        sums[r, 12] += 1 if row[O_LOSS] == C.LOSS_DEBT else 0
        sums[r, 13] += 1 if row[O_LOSS] == C.LOSS_STALL else 0
        sums[r, 14] += row[O_NACT]


def resolve_policies(policies, n_players: int, params=None):
    """Normalise ``policies`` into ``(ids, params, names)`` for the kernels.

    ``policies``: one registry name (every seat) or a sequence of ``n_players`` names (see
    :data:`agents.river_rats.POLICY_IDS`). ``params``: None (each policy's defaults), one
    float vector (every seat) or a sequence of per-seat vectors (None = default). Returns
    ``int64 (4,)`` ids, ``float64 (4, P)`` params and the list of names. Raises ``ValueError``
    for an unknown name, a wrong number of seats or a bad parameter vector."""
    if isinstance(policies, str):
        names = [policies] * n_players
    else:
        names = list(policies)
    if len(names) != n_players:
        raise ValueError(f"bad policies: {len(names)} given for {n_players} players "
                         f"(expected one name for all seats or one per seat)")
    ids = np.zeros(4, dtype=np.int64)
    for i, nm in enumerate(names):
        if nm not in _agents.POLICY_IDS:
            raise ValueError(f"bad policy {nm!r} for seat {i}: expected one of "
                             f"{sorted(_agents.POLICY_IDS)}")
        ids[i] = _agents.POLICY_IDS[nm]
    per_seat = list(params) if _is_per_seat(params, n_players) else [params] * n_players
    P = _agents.N_PARAMS
    out = np.zeros((4, P), dtype=np.float64)
    for i in range(4):
        nm = names[i] if i < n_players else names[0]
        v = per_seat[i] if i < n_players else None
        out[i] = _agents.default_params(nm) if v is None else _agents.check_params(v)
    return ids, out, names


def _is_per_seat(params, n_players) -> bool:
    """A list/tuple of ``n_players`` entries, each None or a vector, is one vector per seat."""
    return (isinstance(params, (list, tuple)) and len(params) == n_players
            and all(p is None or np.ndim(p) == 1 for p in params))


def play_batch(config, policies, n_games: int, seed: int = 0, params=None) -> pd.DataFrame:
    """Play ``n_games`` whole games in compiled code; one row per game.

    ``config``: :class:`engines.river_rats.Config` (or dict/None); ``policies``: a registry name
    for every seat or one entry per seat, each a name (:data:`agents.river_rats.POLICY_IDS`) or
    a compiled policy (``@njit`` function ``policy(s, player, legal, n_legal, params, rng) ->
    action``, see :mod:`agents.river_rats`; such a mix compiles a kernel once per process);
    ``seed``: int ``0..2**64-1``; ``params``: see :func:`resolve_policies`.

    Returns a DataFrame with the :data:`COLUMNS` (``won`` as bool, ``rat1``/``rat2`` as suit
    letters ``C D H S``), ``rat_pair`` (e.g. ``"DS"``) and ``seed`` (``uint64``, the game's
    seed for :func:`engines.river_rats.new_game`). Raises ``ValueError`` for a bad config, policy,
    parameter vector, ``n_games`` or seed.
    """
    from engines.river_rats.state import _check_seed

    cfg = as_config(config)
    sd = _check_seed(seed)
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 0:
        raise ValueError(f"bad n_games: {n_games!r} (expected an integer >= 0)")
    out = np.zeros((int(n_games), len(COLUMNS)), dtype=np.int64)
    seeds = np.zeros(int(n_games), dtype=np.uint64)
    if isinstance(policies, str) or all(isinstance(x, str) for x in policies):
        ids, par, _ = resolve_policies(policies, cfg.n_players, params)
        play_games(cfg.to_array(), ids, par, int(n_games), np.uint64(sd), out, seeds)
    else:
        fns, par = _policy_functions(policies, cfg.n_players, params)
        _custom_kernel(fns)(cfg.to_array(), par, int(n_games), np.uint64(sd), out, seeds)
    return _frame(out, seeds)


def _policy_functions(policies, n_players: int, params):
    """Per-seat compiled policy functions (names looked up in the registry, compiled
    functions as given) and the ``(4, P)`` parameter array; raises ``ValueError``."""
    from numba.core.registry import CPUDispatcher

    pols = list(policies)
    if len(pols) != n_players:
        raise ValueError(f"bad policies: {len(pols)} given for {n_players} players "
                         f"(expected one name for all seats or one per seat)")
    per_seat = list(params) if _is_per_seat(params, n_players) else [params] * n_players
    fns = []
    par = np.zeros((4, _agents.N_PARAMS), dtype=np.float64)
    for i, pol in enumerate(pols):
        if isinstance(pol, str):
            if pol not in _agents.POLICY_FUNCTIONS:
                raise ValueError(f"bad policy {pol!r} for seat {i}: expected one of "
                                 f"{sorted(_agents.POLICY_IDS)} or a compiled policy")
            fns.append(_agents.POLICY_FUNCTIONS[pol])
            par[i] = (_agents.default_params(pol) if per_seat[i] is None
                      else _agents.check_params(per_seat[i]))
        elif isinstance(pol, CPUDispatcher):
            fns.append(pol)
            par[i] = (_agents.DEFAULT_PARAMS if per_seat[i] is None
                      else _agents.check_params(per_seat[i]))
        else:
            raise ValueError(f"bad policy {pol!r} for seat {i}: expected a registry name or an "
                             f"@njit function policy(s, player, legal, n_legal, params, rng)")
    while len(fns) < 4:
        fns.append(fns[0])
    return tuple(fns), par


_CUSTOM_KERNELS: dict = {}


def _custom_kernel(fns):
    """A batch kernel (like :func:`play_games`, same seeds) calling the four given compiled
    policies by seat; compiled once per tuple of functions (not cached on disk)."""
    key = tuple(id(f) for f in fns)
    if key in _CUSTOM_KERNELS:
        return _CUSTOM_KERNELS[key][1]
    f0, f1, f2, f3 = fns

    @njit
    def kernel(cfg, params, n_games, seed, out, seeds):
        s = np.zeros(C.STATE_SIZE, dtype=np.int64)
        legal = np.empty(C.MAX_LEGAL, dtype=np.int64)
        prng = np.empty(4, dtype=np.uint64)
        for g in range(n_games):
            gs = C.game_seed(seed, g)
            seeds[g] = gs
            C.init_state(cfg, gs, s)
            C.policy_rngs(gs, prng)
            while s[C.STATUS] == C.RUNNING:
                n = C.legal_actions(s, legal)
                p = s[C.CUR]
                r = prng[p:p + 1]
                if p == 0:
                    a = f0(s, p, legal, n, params[p], r)
                elif p == 1:
                    a = f1(s, p, legal, n, params[p], r)
                elif p == 2:
                    a = f2(s, p, legal, n, params[p], r)
                else:
                    a = f3(s, p, legal, n, params[p], r)
                ok = False
                for i in range(n):
                    if legal[i] == a:
                        ok = True
                        break
                if not ok:
                    raise ValueError("a policy returned an illegal action")
                C.apply_action(s, a)
            _fill_outcome(s, out[g])

    _CUSTOM_KERNELS[key] = (fns, kernel)
    return kernel


def _frame(out: np.ndarray, seeds: np.ndarray) -> pd.DataFrame:
    df = pd.DataFrame(out, columns=list(COLUMNS))
    df["won"] = df["won"].astype(bool)
    letters = np.array(list(SUIT_LETTERS))
    df["rat1"] = letters[out[:, O_RAT1]] if len(out) else pd.Series(dtype=object)
    df["rat2"] = letters[out[:, O_RAT2]] if len(out) else pd.Series(dtype=object)
    df["rat_pair"] = df["rat1"] + df["rat2"]
    df["seed"] = seeds
    return df


def summary_frame(sums: np.ndarray) -> pd.DataFrame:
    """The sums of :func:`play_sums` as a DataFrame indexed by ``rat_pair`` (``"DS"``: first
    Rat ♦, second ♠), rows with no games dropped; ``int64`` columns :data:`SUM_FIELDS`."""
    pairs = [SUIT_LETTERS[a] + SUIT_LETTERS[w] for a in range(4) for w in range(4)]
    df = pd.DataFrame(np.asarray(sums), columns=list(SUM_FIELDS),
                      index=pd.Index(pairs, name="rat_pair"))
    return df[df["games"] > 0]


def outcome_row(arr: np.ndarray) -> dict:
    """The :data:`COLUMNS` of one final state (``won`` as bool, Rats as suit letters)."""
    row = np.zeros(len(COLUMNS), dtype=np.int64)
    _fill_outcome(arr, row)
    d = {k: int(v) for k, v in zip(COLUMNS, row, strict=True)}
    d["won"] = bool(d["won"])
    d["rat1"] = SUIT_LETTERS[d["rat1"]]
    d["rat2"] = SUIT_LETTERS[d["rat2"]]
    return d


def play_game_stepwise(config, policies, seed: int, params=None):
    """Play one game through the step API from Python, each seat's compiled policy called on
    the state array: the reference for "step API = batch" (game ``g`` of
    ``play_batch(config, policies, n, s)`` equals ``play_game_stepwise(config, policies,
    game_seed(s, g))``). Returns the final :class:`State`."""
    from engines.river_rats.state import new_game

    st = new_game(config, seed)
    ids, par, _ = resolve_policies(policies, st.config.n_players, params)
    prng = np.empty(4, dtype=np.uint64)
    C.policy_rngs(np.uint64(st.seed), prng)
    legal = np.empty(C.MAX_LEGAL, dtype=np.int64)
    while not st.is_terminal():
        n = C.legal_actions(st.array, legal)
        p = int(st.array[C.CUR])
        a = _agents.dispatch(ids[p], st.array, p, legal, n, par[p], prng[p:p + 1])
        st.apply_action(int(a))
    return st
