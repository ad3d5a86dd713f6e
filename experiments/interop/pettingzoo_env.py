"""The four boardlab games as PettingZoo environments (AEC; Lure also parallel).

``raw_env(game, players=None, config=None, render_mode=None)`` is the AEC environment of one
game and player count (``players``: the same name as the OpenSpiel games' parameter);
``env(...)`` wraps it in an order-enforcing wrapper (:class:`FastOrderEnforcingWrapper`:
PettingZoo's ``OrderEnforcingWrapper`` with the same checks and errors, whose hot paths skip
the generic attribute forwarding; ``benchmarks/interop.py`` times both, the figures are in
``docs/guides/interop.md``). Agents are ``"player_0" .. "player_{n-1}"`` (seat ``p`` =
``player_p``). Spaces (the same objects on every call):

- action space ``Discrete(NUM_DISTINCT_ACTIONS)``: the game's fixed action table
  (:mod:`engines.protocol`); an illegal action raises ``ValueError`` naming it;
- observation space ``Dict(observation=Box(-inf, inf, (TENSOR_SIZE,), float32),
  action_mask=Box(0, 1, (NUM_DISTINCT_ACTIONS,), int8))``: the core's ``observation_tensor`` of
  the agent (its information state) and the mask of its legal actions (all zero when another
  agent is to act).

Seeding: ``reset(seed=s)`` starts the game ``engines.protocol.new_game(game, config, s)`` (the
game ``agents.loop.play_batch`` plays for that seed); ``reset()`` without a seed takes the next
seed of a generator seeded by the last explicit seed (fresh entropy before any). Rewards are
the game's returns, given to every agent at the step that ends the game (0 before).
``render()`` returns ``str(state)``, the game's text table (``render_mode="human"`` prints it).

:func:`parallel_env` (Lure only; see :class:`LureParallelEnv`) plays the rules' simultaneous
secret cast as one parallel step per cast decision of every player.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.wrappers.order_enforcing import (AECOrderEnforcingIterable,
                                                       AECOrderEnforcingIterator)

from engines.protocol import chance
from engines.names import DESCRIPTIONS
from engines.protocol import core_of, game_class, normalize_game_name

__all__ = ["BoardlabAECEnv", "LureParallelEnv", "FastOrderEnforcingWrapper", "raw_env", "env",
           "parallel_env", "PARALLEL_GAMES"]

PARALLEL_GAMES = tuple(g for g, d in DESCRIPTIONS.items() if d.simultaneous)
"""Games with a simultaneous move in their rules, hence a :func:`parallel_env`."""


def _config_for(game: str, players, config):
    """The game's config with ``players`` seats (None: the config's own ``n_players``) and
    other fields from ``config`` (a config object, a dict of fields or None). Raises
    ``ValueError``."""
    cls = game_class(game)
    C = core_of(game)
    base = cls._as_config(config).to_dict()
    if players is not None:
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or not (
                C.MIN_PLAYERS <= players <= C.MAX_PLAYERS):
            raise ValueError(f"bad players {players!r} for {game}: expected an integer "
                             f"{C.MIN_PLAYERS}..{C.MAX_PLAYERS}")
        base["n_players"] = int(players)
    return cls._as_config(base)


class _SeedStream:
    """Game seeds for ``reset``: an explicit seed is used as is and reseeds the stream that
    gives the seeds of later ``reset()`` calls without one."""

    def __init__(self):
        self._rng = np.random.default_rng()

    def next(self, seed) -> int:
        if seed is None:
            return int(self._rng.integers(0, 2**64, dtype=np.uint64))
        s = chance.check_seed(seed)
        self._rng = np.random.default_rng(s)
        return s


class _TextRender:
    """``render()`` and ``close()`` shared by the AEC and parallel environments."""

    game_state = None
    render_mode = None

    def render(self) -> str | None:
        """The game's text table ``str(state)`` (printed, and None returned, in ``"human"``
        mode)."""
        if self.game_state is None:
            return None
        text = str(self.game_state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


class BoardlabAECEnv(_TextRender, AECEnv):
    """PettingZoo AEC environment of one boardlab game (module docstring).

    ``game``: ``"river_rats"``, ``"lure"``, ``"rats"`` or ``"recurring"``; ``players``: the
    player count (None: the config's); ``config``: the game's config, a dict of its fields or
    None; ``render_mode``: None, ``"ansi"`` or ``"human"``. Raises ``ValueError`` for a bad
    game, player count, config or render mode. After :meth:`reset`, ``game_state`` is the
    step-API game (:class:`engines.protocol.GameState`)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "boardlab_v0",
                "is_parallelizable": False}

    def __init__(self, game: str, players: int | None = None, config=None,
                 render_mode: str | None = None):
        super().__init__()
        self.game = normalize_game_name(game)
        if render_mode not in (None, "human", "ansi"):
            raise ValueError(f"bad render_mode {render_mode!r}: expected None, 'human' or "
                             f"'ansi'")
        self.render_mode = render_mode
        self.config = _config_for(self.game, players, config)
        C = self.core = core_of(self.game)
        self.metadata = dict(self.metadata, name=f"boardlab_{self.game}_v0")
        n = int(self.config.n_players)
        self.possible_agents = [f"player_{p}" for p in range(n)]
        self._seat = {a: p for p, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (C.TENSOR_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (C.NUM_DISTINCT_ACTIONS,), np.int8)})
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(C.NUM_DISTINCT_ACTIONS)
                              for a in self.possible_agents}
        self._legal = np.empty(C.MAX_LEGAL, dtype=np.int64)
        self._ret = np.zeros(C.MAX_PLAYERS, dtype=np.float64)
        self._seeds = _SeedStream()
        self._cls = game_class(self.game)
        self.game_state = None

    def observation_space(self, agent):
        """The observation space of ``agent`` (module docstring)."""
        return self.observation_spaces[agent]

    def action_space(self, agent):
        """``Discrete(NUM_DISTINCT_ACTIONS)``, the game's action table."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game: seed ``seed`` (``0 .. 2**64-1``; None: the next seed of the
        stream, module docstring). ``options`` is ignored. Raises ``ValueError`` for a bad
        seed."""
        s = self._seeds.next(seed)
        self.game_state = self._cls(self.config, s)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game_state.current_player()]

    def observe(self, agent) -> dict:
        """``{"observation": float32 (TENSOR_SIZE,), "action_mask": int8
        (NUM_DISTINCT_ACTIONS,)}`` of ``agent`` (fresh arrays, filled by the compiled
        kernels)."""
        p = self._seat[agent]
        s = self.game_state.state
        C = self.core
        tensor = np.zeros(C.TENSOR_SIZE, dtype=np.float32)
        C.observation_tensor(s, p, tensor)
        mask = np.zeros(C.NUM_DISTINCT_ACTIONS, dtype=np.int8)
        if C.current_player(s) == p:
            n = C.legal_actions(s, self._legal)
            mask[self._legal[:n]] = 1
        return {"observation": tensor, "action_mask": mask}

    def step(self, action) -> None:
        """Apply ``action`` (an int of the action table, legal for ``agent_selection``; None
        for an agent that is done). Raises ``ValueError`` for an illegal action (the game is
        unchanged)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        gs = self.game_state
        C = self.core
        n = C.legal_actions(gs.state, self._legal)
        if (isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer))
                or int(action) not in self._legal[:n].tolist()):
            gs.apply_action(action)  # raises the step API's ValueError naming the legal actions
        C.apply_action(gs.state, int(action))  # what GameState.apply_action does once checked
        gs.history.append(int(action))
        self._cumulative_rewards[agent] = 0.0
        if C.is_terminal(gs.state):
            C.returns(gs.state, self._ret)
            for p, a in enumerate(self.agents):
                self.rewards[a] = float(self._ret[p])
                self.terminations[a] = True
        else:
            self.agent_selection = self.possible_agents[int(C.current_player(gs.state))]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()


class LureParallelEnv(_TextRender, ParallelEnv):
    """PettingZoo parallel environment of Lure, whose *Cast* (rules step 2) is simultaneous.

    The rules core plays the secret cast seat by seat (each cast a short sequence of small
    decisions; ``engines/lure/core.py``), and a cast's legal decisions depend only on the
    caster's own dice and tokens, never on the others' casts (which stay hidden until all are
    done). So this environment plays the cast truly in parallel: when a cast phase starts,
    every player gets a private *scratch* copy of the state in which the seats the core would
    let cast first have finished a fixed placeholder cast (always the highest legal decision;
    it is hidden, so the player learns nothing from it); each parallel step takes the next cast
    decision of every player still casting, checked and applied on its scratch copy; when all
    have finished, the recorded casts are applied to the real game in the core's seat order
    (so ``game_state`` and its ``history`` are an ordinary sequential Lure game). Outside the
    cast (the adjust decisions after a group's roll) only the player to act has a non-zero
    action mask; the others' actions are ignored (the core hides a group member's adjustments
    from the others, so this turn order reveals nothing either).

    Spaces, seeding, rewards and ``render`` are those of :class:`BoardlabAECEnv`. During the
    cast a player's observation is its scratch copy's (where the seats before it show a
    finished cast and the ones after it none: a fixed pattern). ``players``: 2..5 (None: the
    config's); ``config``: a :class:`engines.lure.config.LureConfig`, a dict or None. Raises
    ``ValueError`` for bad arguments, a missing action of an acting player, or an illegal
    one (the game is then unchanged)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "boardlab_lure_parallel_v0"}

    def __init__(self, players: int | None = None, config=None,
                 render_mode: str | None = None):
        aec = BoardlabAECEnv("lure", players, config, render_mode)
        self._aec = aec
        self.render_mode = render_mode
        self.config = aec.config
        self.core = aec.core
        self.possible_agents = list(aec.possible_agents)
        self.observation_spaces = aec.observation_spaces
        self.action_spaces = aec.action_spaces
        self._seat = dict(aec._seat)
        self._legal = np.empty(self.core.MAX_LEGAL, dtype=np.int64)
        self._tensor = np.zeros(self.core.TENSOR_SIZE, dtype=np.float32)
        self._mask = np.zeros(self.core.NUM_DISTINCT_ACTIONS, dtype=np.int8)
        self._ret = np.zeros(self.core.MAX_PLAYERS, dtype=np.float64)
        self._seeds = _SeedStream()
        self.game_state = None
        self._cast = None
        self.agents: list = []

    def observation_space(self, agent):
        """See :class:`BoardlabAECEnv`."""
        return self.observation_spaces[agent]

    def action_space(self, agent):
        """``Discrete(NUM_DISTINCT_ACTIONS)``."""
        return self.action_spaces[agent]

    # ---- the simultaneous cast -------------------------------------------------------------
    def _in_cast(self, s) -> bool:
        C = self.core
        return int(s[C.H_PHASE]) == C.PH_CAST and int(C.current_player(s)) >= 0

    def _start_cast(self) -> None:
        """Build the scratch copies of a cast phase that starts in the real state."""
        C = self.core
        s = self.game_state.state
        if not self._in_cast(s):
            self._cast = None
            return
        round0 = int(s[C.H_ROUND])
        w = s.copy()
        order, scratch = [], {}
        while self._in_cast(w) and int(w[C.H_ROUND]) == round0:
            q = int(C.current_player(w))
            if q not in scratch:
                order.append(q)
                scratch[q] = w.copy()
            n = C.legal_actions(w, self._legal)
            C.apply_action(w, self._legal[n - 1])
        self._cast = {"order": order, "scratch": scratch, "round": round0,
                      "pending": {q: [] for q in order}, "done": {q: False for q in order}}

    def _acting(self) -> list[int]:
        if self._cast is not None:
            return [q for q in self._cast["order"] if not self._cast["done"][q]]
        p = int(self.core.current_player(self.game_state.state))
        return [p] if p >= 0 else []

    def _view(self, q: int):
        if self._cast is not None:
            return self._cast["scratch"][q]
        return self.game_state.state

    def _observe(self, q: int, acting) -> dict:
        C = self.core
        s = self._view(q)
        self._tensor.fill(0.0)
        C.observation_tensor(s, q, self._tensor)
        self._mask.fill(0)
        if q in acting:
            n = C.legal_actions(s, self._legal)
            self._mask[self._legal[:n]] = 1
        return {"observation": self._tensor.copy(), "action_mask": self._mask.copy()}

    def _all_obs(self) -> dict:
        acting = self._acting()
        return {a: self._observe(self._seat[a], acting) for a in self.agents}

    # ---- ParallelEnv API -------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None):
        """Start game ``new_game("lure", config, seed)`` (None: the next seed of the stream);
        returns ``(observations, infos)``. Raises ``ValueError`` for a bad seed."""
        s = self._seeds.next(seed)
        self.game_state = game_class("lure")(self.config, s)
        self.agents = list(self.possible_agents)
        self._start_cast()
        return self._all_obs(), {a: {} for a in self.agents}

    def _action_of(self, actions: dict, q: int, legal_state) -> int:
        agent = self.possible_agents[q]
        if agent not in actions or actions[agent] is None:
            raise ValueError(f"missing action for {agent}: expected one of its legal actions "
                             f"(its action_mask)")
        a = actions[agent]
        n = self.core.legal_actions(legal_state, self._legal)
        if (isinstance(a, bool) or not isinstance(a, (int, np.integer))
                or int(a) not in self._legal[:n]):
            raise ValueError(f"illegal action {a!r} for {agent}: expected one of "
                             f"{self._legal[:n].tolist()}")
        return int(a)

    def step(self, actions: dict):
        """Apply the actions of the acting players (a dict ``{agent: action}``; the other
        agents' entries are ignored); returns ``(observations, rewards, terminations,
        truncations, infos)``."""
        C = self.core
        gs = self.game_state
        acting = self._acting()
        if self._cast is not None:
            cast = self._cast
            chosen = {q: self._action_of(actions, q, cast["scratch"][q]) for q in acting}
            for q, a in chosen.items():
                w = cast["scratch"][q]
                C.apply_action(w, a)
                cast["pending"][q].append(a)
                if (int(C.current_player(w)) != q or int(w[C.H_PHASE]) != C.PH_CAST
                        or int(w[C.H_ROUND]) != cast["round"]):
                    cast["done"][q] = True
            if all(cast["done"].values()):
                for q in cast["order"]:
                    for a in cast["pending"][q]:
                        gs.apply_action(a)
                self._start_cast()
        elif acting:
            gs.apply_action(self._action_of(actions, acting[0], gs.state))
            self._start_cast()
        rewards = {a: 0.0 for a in self.agents}
        done = bool(C.is_terminal(gs.state))
        if done:
            C.returns(gs.state, self._ret)
            rewards = {a: float(self._ret[self._seat[a]]) for a in self.agents}
        obs = self._all_obs()
        terms = {a: done for a in self.agents}
        truncs = {a: False for a in self.agents}
        infos = {a: {} for a in self.agents}
        if done:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terms, truncs, infos


def parallel_env(game: str, players: int | None = None, config=None,
                 render_mode: str | None = None) -> LureParallelEnv:
    """The parallel environment of ``game`` (only Lure has a simultaneous move: its cast; see
    :class:`LureParallelEnv`). Raises ``ValueError`` for another game."""
    if normalize_game_name(game) not in PARALLEL_GAMES:
        raise ValueError(f"bad game {game!r} for parallel_env: expected one of "
                         f"{', '.join(PARALLEL_GAMES)} (the other games have no simultaneous "
                         f"move; use env())")
    return LureParallelEnv(players, config, render_mode)


class FastOrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` (a subclass: ``agent_iter`` and every check that
    looks for it still work) with the same errors and warnings before ``reset`` and after the
    end, whose per-step paths reach the environment directly: ``agents``,
    ``agent_selection``, ``rewards``, ``terminations``, ``truncations``, ``infos`` and
    ``_cumulative_rewards`` are properties (the base class finds them through two
    ``__getattr__`` calls each), :meth:`last`, :meth:`observe` and :meth:`step` call the
    environment's own methods once ``reset`` was called, and :meth:`agent_iter`'s iterator
    reads the environment directly (still asserting a ``step`` between two agents). Accessing
    those attributes before ``reset`` raises ``AttributeError`` as the base class does."""

    def _fwd(name):  # noqa: N805 - builds the forwarding properties below
        def get(self):
            if not self._has_reset:
                raise AttributeError(f"{name} cannot be accessed before reset")
            return getattr(self.env, name)

        def put(self, value):
            setattr(self.env, name, value)

        return property(get, put, doc=f"The environment's ``{name}`` (after ``reset``).")

    agents = _fwd("agents")
    agent_selection = _fwd("agent_selection")
    rewards = _fwd("rewards")
    terminations = _fwd("terminations")
    truncations = _fwd("truncations")
    infos = _fwd("infos")
    _cumulative_rewards = _fwd("_cumulative_rewards")
    del _fwd

    def last(self, observe: bool = True):
        """``(observation, cumulative reward, termination, truncation, info)`` of the agent to
        act (the environment's ``last``). Raises ``AttributeError`` before ``reset``."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def observe(self, agent):
        """The environment's ``observe(agent)`` (PettingZoo's error before ``reset``)."""
        if self._has_reset:
            return self.env.observe(agent)
        return super().observe(agent)

    def step(self, action) -> None:
        """The environment's ``step(action)``; before ``reset`` or once no agent is left,
        PettingZoo's error or warning as in ``OrderEnforcingWrapper``."""
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)

    def __str__(self) -> str:
        """The environment's name, as PettingZoo's wrapper shows it (``boardlab_rats_v0``)."""
        return str(self.env)

    def agent_iter(self, max_iter: int = 2**63):
        """Yields the agent to act until the game ends (at most ``max_iter`` times), as
        PettingZoo's ``agent_iter``; PettingZoo's error before ``reset``."""
        if not self._has_reset:
            return super().agent_iter(max_iter)
        return _FastIterable(self, max_iter)


class _FastIterable(AECOrderEnforcingIterable):
    def __iter__(self):
        return _FastIterator(self.env, self.max_iter)


class _FastIterator(AECOrderEnforcingIterator):
    """PettingZoo's ``AECOrderEnforcingIterator`` reading the wrapped environment directly."""

    def __next__(self):
        w = self.env
        raw = w.env
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert w._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        w._has_updated = False
        return raw.agent_selection


def raw_env(game: str, players: int | None = None, config=None,
            render_mode: str | None = None) -> BoardlabAECEnv:
    """The unwrapped :class:`BoardlabAECEnv` (arguments there)."""
    return BoardlabAECEnv(game, players, config, render_mode)


def env(game: str, players: int | None = None, config=None,
        render_mode: str | None = None) -> FastOrderEnforcingWrapper:
    """:func:`raw_env` in an order-enforcing wrapper, as the ``pettingzoo.classic`` games
    (:class:`FastOrderEnforcingWrapper`: PettingZoo's checks, without their per-step cost).
    Raises ``ValueError`` for bad arguments (:class:`BoardlabAECEnv`)."""
    return FastOrderEnforcingWrapper(raw_env(game, players, config, render_mode))
