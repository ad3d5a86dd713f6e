"""The one policy protocol of boardlab, for every game: a compiled signature, a registry by name,
parameter vectors, and a step-API wrapper.

**A compiled policy** is an ``@njit`` function::

    policy(state, player, legal, n_legal, params, rng) -> action

``state``: the game's flat ``int64`` state (:mod:`engines.protocol`); ``player``: the seat to
act; ``legal[:n_legal]``: its legal actions, ascending; ``params``: a ``float64`` vector (a
family of heuristics is tuned without recompiling); ``rng``: the seat's **policy memory**,
``int64 (SEAT_WORDS,)``: word 0 is the seat's own splitmix64 stream (draw with
``engines.protocol.chance.rand_below(rng, 0, n)``), words 1..15 start at zero in every game and the
policy may keep there what it planned across its own decisions (a Rats lead or a Lure cast is
several small decisions; a policy that plans the whole lead at the first one may store the plan,
keyed by something in the state so that a stale plan is recognised). A policy reads only what
``player`` may see (tested for every shipped agent that claims so) and never writes ``state``.
It returns one of ``legal[:n_legal]``.

**Shipped policies** of a game live in ``agents/<game>.py``, which defines:

- ``SPECS``: the :class:`PolicySpec` of each agent (name, dispatch ``kind``, default parameter
  vector and its names, a one-line label, whether it sees hidden cards; the record is defined
  with the kinds in :mod:`agents.layout` and importable from here);
- ``act(kind, state, player, legal, n_legal, params, aux, rng)``: the compiled dispatch on
  ``kind``; ``aux`` is a ``float64`` array of game data that the game's shipped policies may
  need and that is the same for a whole experiment (Lure: the exact catch table of the deck;
  the other games: empty), built once by ``make_aux(config)``;
- ``PARAMS_WIDTH``: the length of every parameter row passed to ``act``.

:func:`resolve` turns names (and optional parameter vectors) into the ``kinds`` and ``params``
arrays of the compiled game loop (:mod:`agents.loop`); :class:`Agent` drives one policy through
the step API with the same streams as the loop, so both doors play identical games.
"""

from __future__ import annotations

import importlib

import numpy as np

from agents.contract import contract
from agents.layout import (
    H_EXPLORE,
    H_HORIZON,
    H_INFER,
    H_LEARNED_VALUE,
    H_PRIOR,
    H_ROLLOUT,
    H_SIMS,
    K_NET,
    K_NET_ISMCTS,
    K_NET_PIMC,
    LEAF_VALUE_AT,
    N_VALUE,
    ROLLOUT_AT,
    PolicySpec,
)
from agents.net import check_available, net_act, net_spec, weights_blob, weights_path
from agents.search import SEARCH_FUNCTIONS
from agents.value import has_value, value_path, value_tail
from engines.protocol import normalize_game_name

__all__ = ["PolicySpec", "agents_module", "table_aux", "specs", "search_specs", "names",
           "get_spec", "params_width", "resolve", "Agent"]


def agents_module(game: str):
    """The module ``agents.<game>`` (its ``SPECS``, ``act``, ``make_aux``, ``PARAMS_WIDTH``...),
    checked against the agents' contract (:mod:`agents.contract`: ``ValueError`` in one line
    naming a missing hook)."""
    return contract(game).module


_SEARCH_PRESETS = (
    # name, kind, simulations, horizon, exploration, label
    ("pimc-fast", 100, 8, 0, 0.0, "determinized Monte Carlo, 8 worlds per decision"),
    ("pimc", 100, 16, 0, 0.0, "determinized Monte Carlo, 16 worlds per decision"),
    ("pimc-strong", 100, 96, 0, 0.0, "determinized Monte Carlo, 96 worlds per decision"),
    ("ismcts-fast", 101, 100, 0, 0.7, "information-set MCTS, 100 simulations per decision"),
    ("ismcts", 101, 400, 0, 0.7, "information-set MCTS, 400 simulations per decision"),
    ("ismcts-strong", 101, 2000, 0, 0.7, "information-set MCTS, 2000 simulations per decision"),
    ("pimc-peek", 100, 16, 0, 0.0, "Monte Carlo on the true state, 16 rollouts per action "
     "(sees every hidden card and the future draws: analysis upper bound, not legal play)"),
)
"""The search agents of :mod:`agents.search` every game with a ``leaf_value`` offers; a game
module may set the horizon of all its presets in ``SEARCH_HORIZON`` and override a preset's
simulations, horizon or exploration in ``SEARCH_PRESETS``."""

_NET_SEARCH_PRESETS = (
    # name, worlds per decision, prior weight, net rollouts (else the game's rollout policy)
    ("net-search-lite", 6, 1.0, False),
    ("net-search-fast", 8, 1.0, True),
    ("net-search", 16, 1.0, True),
    ("net-search-strong", 64, 1.0, True),
)
"""The searches guided by the learned policy (:func:`agents.search.net_pimc`), offered where a
game has ``net`` weights: ``net`` plays the rollouts and, with a prior weight above 0, its
action probabilities regularize the choice; where the game also ships learned value weights
(:mod:`agents.value`), the presets with ``net`` rollouts score their leaves with the learned
value (times the game's ``LEARNED_VALUE_SCALE``); ``net-search-lite`` keeps the game's own rollout
policy and takes the prior alone (``pimc``'s strength at about twice its speed). A game module
may override a preset in ``NET_SEARCH_PRESETS`` (name -> (worlds, prior weight, net
rollouts)); the horizon is that of its ``pimc``."""


_NET_ISMCTS_PRESETS = (
    # name, simulations per decision, root prior weight in units of ismcts' exploration
    ("net-ismcts", 150, 1.0),
)
"""ISMCTS guided by the learned policy (:func:`agents.search.net_ismcts`): ``ismcts``'s
settings (horizon, exploration constant ``c``, the game's rollout policy) with ``net``'s
probabilities as a PUCT prior at the root, of weight ``c`` times the factor here (the prior's
term then has the scale of the exploration term), so fewer simulations reach ``ismcts``'s
strength. A game module may override it in ``NET_SEARCH_PRESETS`` (name -> (simulations,
prior weight factor))."""


def table_aux(game: str, config) -> np.ndarray:
    """The ``aux`` array (``float64``) of a table of ``game`` under ``config``: the game's
    ``make_aux(config)`` with the learned weights appended, ``[game data..., value blob...,
    len(value blob), net blob..., len(net blob)]`` (:func:`agents.value.value_tail`,
    :func:`agents.net.weights_blob`; a length 0 where this process has no usable file). The
    game's own policies read it from the front, so it serves them unchanged; ``net`` and the
    learned value find their blobs from the end (:mod:`agents.layout`)."""
    game = normalize_game_name(game)
    own = np.asarray(agents_module(game).make_aux(config), dtype=np.float64).ravel()
    value = value_tail(game)
    blob = weights_blob(game)
    tail = np.zeros(0) if blob is None else blob
    return np.concatenate([own, value, tail, np.array([float(tail.size)])])


def search_specs(game: str) -> tuple[PolicySpec, ...]:
    """The search-agent presets of ``game`` (:mod:`agents.search`): parameter vector =
    header (simulations, rollout policy kind, horizon, exploration, max rollout decisions),
    the game's leaf-value weights, the rollout policy's parameters (the slots:
    :mod:`agents.layout`)."""
    agents = contract(game)
    if not agents.has_search:
        return ()
    base = {s.name: s for s in agents.specs}
    roll = base[agents.rollout_policy]
    over = agents.search_presets
    vnames = agents.leaf_value_names + tuple(
        f"value_{i}" for i in range(len(agents.leaf_value_names), H_INFER - LEAF_VALUE_AT)) + (
        "infer_window", "infer_worlds", "infer_temperature", "learned_value")
    names = (("simulations", "rollout_kind", "horizon", "exploration", "max_rollout",
              "peek", "whole_tree", "prior_weight") + vnames
             + tuple(f"rollout_{x}" for x in roll.param_names))
    out = []
    horizon0 = agents.search_horizon
    for name, kind, sims, horizon, c, label in _SEARCH_PRESETS:
        horizon = horizon0 if horizon0 is not None else horizon
        sims, horizon, c = over.get(name, (sims, horizon, c))
        peek = name.endswith("-peek")
        head = [float(sims), float(roll.kind), float(horizon), float(c), 0.0, float(peek), 0.0,
                0.0]
        value = np.zeros(N_VALUE)
        value[:len(agents.leaf_value_default)] = agents.leaf_value_default
        vec = tuple(head) + tuple(float(x) for x in value) + tuple(roll.default_params)
        horizon_txt = ("to the end of the hand", "to the end of the round",
                       "to the end of the game")[int(horizon)]
        out.append(PolicySpec(game, name, kind, vec, names[:len(vec)],
                              f"{label}, {roll.name} rollouts {horizon_txt}", search=True,
                              sees_hidden=peek))
    return tuple(out)


def net_search_specs(game: str) -> tuple[PolicySpec, ...]:
    """The ``net-search`` presets of ``game`` (:data:`_NET_SEARCH_PRESETS`): the parameter
    vector of :func:`search_specs` with the search kind, ``net`` (``agents.layout.K_NET``) as
    rollout policy (its parameters: the heuristic's, whose choice the network sees) and the
    prior weight in ``params[agents.layout.H_PRIOR]``. Empty for a game without search."""
    agents = contract(game)
    if not agents.has_search:
        return ()
    base = next(sp for sp in search_specs(game) if sp.name == "pimc")
    net = net_spec(game)
    learned = agents.learned_value_scale if has_value(game) else 0.0
    over = getattr(agents.module, "NET_SEARCH_PRESETS", {})
    names = base.param_names[:ROLLOUT_AT] + tuple(f"rollout_{x}" for x in net.param_names)
    horizon = base.default_params[H_HORIZON]
    out = []
    own = base.default_params[H_ROLLOUT]
    for name, sims, prior, net_roll in _NET_SEARCH_PRESETS:
        sims, prior, net_roll = over.get(name, (sims, prior, net_roll))
        head = [float(sims), float(K_NET) if net_roll else own, horizon, 0.0, 0.0, 0.0, 0.0,
                float(prior)]
        value = list(base.default_params[LEAF_VALUE_AT:ROLLOUT_AT])
        if net_roll:
            value[H_LEARNED_VALUE - LEAF_VALUE_AT] = learned
        vec = tuple(head) + tuple(value) + tuple(net.default_params)
        roll = "net" if net_roll else agents.rollout_policy
        label = (f"determinized Monte Carlo guided by net, {sims:g} worlds per decision, {roll} "
                 f"rollouts" + (f", prior weight {prior:g}" if prior else "")
                 + (", learned leaf value" if net_roll and learned else ""))
        out.append(PolicySpec(game, name, K_NET_PIMC, vec, names[:len(vec)], label,
                              search=True))
    ism = next(sp for sp in search_specs(game) if sp.name == "ismcts")
    for name, sims, prior in _NET_ISMCTS_PRESETS:
        sims, prior = over.get(name, (sims, prior))
        vec = list(ism.default_params)
        vec[H_SIMS] = float(sims)
        prior = prior * vec[H_EXPLORE]
        vec[H_PRIOR] = float(prior)
        label = (f"information-set MCTS guided by net, {sims:g} simulations per decision, "
                 f"{agents.rollout_policy} rollouts, root prior weight {prior:g}")
        out.append(PolicySpec(game, name, K_NET_ISMCTS, tuple(vec), ism.param_names, label,
                              search=True))
    return tuple(out)


def _uses_net(spec: PolicySpec) -> bool:
    """True for ``net`` and the searches guided by it (they need a usable weights file)."""
    return spec.name == "net" or spec.kind in (K_NET_PIMC, K_NET_ISMCTS)


def params_width(game: str) -> int:
    """Length of every parameter row of ``game`` in the compiled loop: wide enough for the
    game's own policies and for the search agents (header + leaf value + rollout params)."""
    return ROLLOUT_AT + agents_module(game).PARAMS_WIDTH


def specs(game: str) -> dict[str, PolicySpec]:
    """Registry of ``game``: ``{name: PolicySpec}`` in display order (the game's own policies,
    the learned policy ``net`` of :mod:`agents.net` where the game has a weights file (shipped,
    or set by :func:`agents.net.use_weights`), then the search agents)."""
    has_net = weights_path(game).is_file()
    agents = contract(game)
    key = (agents.game, id(agents.specs), has_net, str(value_path(game)))
    reg = _SPECS_CACHE.get(key)
    if reg is None:  # built once per game (rebuilding it per table was a visible cost)
        net = (net_spec(game),) if has_net else ()
        reg = {s.name: s for s in agents.specs + net + search_specs(game)
               + (net_search_specs(game) if has_net else ())}
        _SPECS_CACHE[key] = reg
    return dict(reg)


_SPECS_CACHE: dict = {}


def names(game: str) -> list[str]:
    """Registered policy names of ``game``."""
    return list(specs(game))


def get_spec(game: str, name: str) -> PolicySpec:
    """The :class:`PolicySpec` of ``name``; ``ValueError`` naming it and the choices."""
    reg = specs(game)
    if not isinstance(name, str) or name not in reg:
        raise ValueError(f"unknown {game} policy {name!r}: expected one of {', '.join(reg)}")
    return reg[name]


def _param_row(spec: PolicySpec, vec, width: int, seat) -> np.ndarray:
    base = spec.params_array()
    if vec is None:
        v = base
    else:
        v = np.asarray(vec, dtype=np.float64).ravel()
        if v.size > max(base.size, 1) or not np.all(np.isfinite(v)):
            raise ValueError(f"bad params for {spec.name!r} (seat {seat}): {np.asarray(vec)!r}; "
                             f"expected at most {base.size} finite floats "
                             f"({', '.join(spec.param_names)})")
        full = base.copy()
        full[:v.size] = v
        v = full
    row = np.zeros(width, dtype=np.float64)
    row[:v.size] = v
    return row


def resolve(game: str, policies, n_players: int, params=None):
    """Seat policies -> ``(kinds, params, names)`` for the compiled loop.

    ``policies``: one name for every seat or a sequence of ``n_players`` names; ``params``:
    None (defaults), one vector for every seat, or a sequence of ``n_players`` vectors/None
    (a vector may be shorter than the default: its tail keeps the defaults). Returns ``int64
    (MAX_PLAYERS,)`` kinds, ``float64 (MAX_PLAYERS, params_width(game))`` params (unused seats
    repeat seat 0) and the list of names. Raises ``ValueError`` naming a bad name, count or
    vector."""
    core = importlib.import_module(f"engines.{normalize_game_name(game)}.core")
    if isinstance(policies, str):
        seat_names = [policies] * n_players
    else:
        seat_names = list(policies)
    if len(seat_names) != n_players:
        raise ValueError(f"{len(seat_names)} policies given for {n_players} players: expected "
                         f"one name for every seat or one per seat")
    per_seat = (list(params) if isinstance(params, (list, tuple)) and len(params) == n_players
                and all(p is None or np.ndim(p) == 1 for p in params) else [params] * n_players)
    width = params_width(game)
    kinds = np.zeros(core.MAX_PLAYERS, dtype=np.int64)
    rows = np.zeros((core.MAX_PLAYERS, width), dtype=np.float64)
    for p in range(core.MAX_PLAYERS):
        i = p if p < n_players else 0
        spec = get_spec(game, seat_names[i])
        if _uses_net(spec) and p == i:
            check_available(game)
        kinds[p] = spec.kind
        rows[p] = _param_row(spec, per_seat[i], width, i)
    return kinds, rows, seat_names


class Agent:
    """A registered policy (with its parameter vector) acting on step-API games.

    ``Agent(game, name, params=None)``; ``agent(state)`` returns the action of the player to
    act in ``state`` (a :class:`engines.protocol.GameState` of that game), drawing from and
    updating that seat's memory ``state.seat_memory[player]``, so a game driven this way equals
    the same game in :func:`agents.loop.play_batch`. Raises ``ValueError`` for an unknown name
    or bad params, or when called on a finished game."""

    def __init__(self, game: str, name: str, params=None):
        self.game = normalize_game_name(game)
        self.spec = get_spec(self.game, name)
        if _uses_net(self.spec):
            check_available(self.game)
        self.name = name
        mod = agents_module(self.game)
        self.params = _param_row(self.spec, params, params_width(self.game), 0)
        self._mod = mod
        self._aux_cfg = None
        self._aux = None

    def _aux_for(self, config) -> np.ndarray:
        if self._aux is None or (config is not self._aux_cfg and config != self._aux_cfg):
            self._aux = table_aux(self.game, config)
            self._aux_cfg = config
        return self._aux

    def __call__(self, state) -> int:
        if state.is_terminal():
            raise ValueError("the game is over: no action to choose")
        p = state.current_player()
        legal = np.array(state.legal_actions(), dtype=np.int64)
        aux = self._aux_for(state.config)
        if self.spec.name == "net":
            from engines.protocol.kernels import call_literal
            from engines.protocol import GAME_IDS

            a = call_literal(net_act, GAME_IDS[self.game], state.state, p, legal, len(legal),
                             self.params, aux, state.seat_memory[p])
        elif self.spec.search:
            from engines.protocol.kernels import call_literal
            from engines.protocol import GAME_IDS

            row = self._memory_row(state, p)
            # this agent's own function: only it is compiled (search_act would compile all four)
            a = call_literal(SEARCH_FUNCTIONS[self.spec.kind], GAME_IDS[self.game], state.state,
                             p, legal, len(legal), self.params, aux, row)
            state.seat_memory[p] = row[:state.seat_memory.shape[1]]
        else:
            a = self._mod.act(self.spec.kind, state.state, p, legal, len(legal), self.params,
                              aux, state.seat_memory[p])
        return int(a)

    def _memory_row(self, state, p: int) -> np.ndarray:
        """Seat ``p``'s policy memory for a search agent: the seat's row, widened with the
        game's decision log (:mod:`engines.protocol.history`) when the agent infers hidden
        cards (``net-search`` with ``params[agents.layout.H_INFER] > 0``), as the compiled loop
        keeps it; a determinized copy gets no log."""
        row = state.seat_memory[p].copy()
        if self.spec.kind != K_NET_PIMC or not self.params[H_INFER] > 0:
            return row
        from engines.protocol.history import LOG_N, LOG_ON, LOG_S0, log_width

        C = state.core
        wide = np.zeros(log_width(C.STATE_SIZE, C.MAX_GAME_LENGTH), dtype=np.int64)
        wide[:row.shape[0]] = row
        hist = state.history
        if not state.determinized and len(hist) <= C.MAX_GAME_LENGTH:
            wide[LOG_ON] = 1
            wide[LOG_N] = len(hist)
            wide[LOG_S0:LOG_S0 + C.STATE_SIZE] = state.initial
            o = LOG_S0 + C.STATE_SIZE
            wide[o:o + len(hist)] = hist
        return wide

    def __repr__(self) -> str:
        return f"Agent({self.game!r}, {self.name!r})"
