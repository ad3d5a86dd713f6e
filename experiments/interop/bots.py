"""Our policies inside OpenSpiel: registered policies as ``pyspiel.Bot`` objects, our rollout
policy and leaf value as an MCTS evaluator, and a budget-matched OpenSpiel ISMCTS bot.

- :class:`PolicyBot` plays a registered policy (:class:`agents.policy.Agent`) on the OpenSpiel
  states of :mod:`experiments.interop.openspiel_game`. It draws from the seat's policy memory of
  the step-API game behind the state (``game_state.seat_memory[player]``), so a game played by
  OpenSpiel's ``evaluate_bots`` with a :class:`PolicyBot` per seat on ``boardlab_<game>(seed=s)``
  is exactly game ``s`` of :func:`agents.loop.play_batch` (tested in ``tests/interop``).
- :class:`RolloutEvaluator` implements OpenSpiel's MCTS ``Evaluator`` protocol
  (``evaluate(state)``, ``prior(state)``) with the rollout of a search preset: play on with the
  preset's compiled rollout policy (``heuristic`` for every game) to the preset's horizon and
  score with the game's leaf value (:mod:`agents.search`), i.e. what ``pimc-fast`` does for one
  action of one world.
- :class:`MatchedISMCTSBot` runs OpenSpiel's Python ``ISMCTSBot`` with a budget per decision of
  ``worlds * len(legal_actions)`` simulations, the number of rollouts ``pimc-fast`` makes, and
  seeds the determinizations from its own generator.

The rollout calls :func:`agents.search.rollout`, the compiled rollout of our search agents.
"""

from __future__ import annotations

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts

from agents.policy import Agent, agents_module, get_spec, table_aux
from numba import literally, njit

from agents.game_hooks import g_leaf_value
from agents.layout import H_HORIZON, H_MAX_STEPS, LEAF_VALUE_AT, N_VALUE
from agents.search import rollout
from engines.protocol import chance
from engines.protocol.kernels import call_literal
from engines.protocol import GAME_IDS, core_of, normalize_game_name

__all__ = ["PolicyBot", "RolloutEvaluator", "MatchedISMCTSBot", "policy_bots",
           "rollout_value"]


@njit(cache=True)
def rollout_value(game, w, level, start, params, aux, legal, mem, max_steps, weights, out):
    """Play ``w`` (``int64 (STATE_SIZE,)``, modified) on with the search preset ``params``'s
    rollout policy up to horizon ``level`` (counter value ``start``) or ``max_steps``
    decisions, then write each seat's leaf value (weights ``weights``) into ``out``
    (``float64 (MAX_PLAYERS,)``). ``game`` is a literal game id (call through
    :func:`engines.protocol.kernels.call_literal`); ``mem``: ``int64 (MAX_PLAYERS,
    SEAT_WORDS)`` policy memories of the rollout."""
    literally(game)
    rollout(game, w, level, start, params, aux, legal, mem, max_steps)
    g_leaf_value(game, w, weights, out)


class PolicyBot(pyspiel.Bot):
    """A registered boardlab policy as an OpenSpiel bot.

    ``game``: game name; ``name``: a policy of :func:`agents.policy.names` (``"heuristic"``,
    ``"pimc-fast"``, ...); ``player``: the seat it plays; ``params``: its parameter vector
    (None: defaults). :meth:`step` returns the policy's action (an int of the action table) for
    a boardlab OpenSpiel state whose player to act is ``player``; it advances that seat's policy
    stream inside the state's step-API game. Raises ``ValueError`` for an unknown policy, a
    state of another game, or a state where another seat (or chance) is to act."""

    def __init__(self, game: str, name: str, player: int, params=None):
        super().__init__()
        self.game = normalize_game_name(game)
        self.agent = Agent(self.game, name, params)
        self.player = int(player)
        self.name = name

    def step(self, state) -> int:
        """The policy's action in ``state`` (see the class docstring)."""
        gs = getattr(state, "game_state", None)
        if gs is None or gs.game_name != self.game:
            raise ValueError(f"bad state {str(state)[:60]!r}: expected a boardlab_{self.game} "
                             f"state with its seed chosen")
        p = gs.current_player()
        if p != self.player:
            raise ValueError(f"bad state: seat {p} is to act, expected seat {self.player} "
                             f"(this bot's seat)")
        return self.agent(gs)

    def restart_at(self, state) -> None:
        """Nothing to reset: the policy's memory lives in the state's game."""

    def inform_action(self, state, player_id, action) -> None:
        """Nothing to track (the state holds everything)."""

    def provides_policy(self) -> bool:
        """False: the bot returns actions, not distributions."""
        return False

    def __repr__(self) -> str:
        return f"PolicyBot({self.game!r}, {self.name!r}, player={self.player})"


def policy_bots(game: str, names, players: int) -> list[PolicyBot]:
    """One :class:`PolicyBot` per seat: ``names`` is one policy name for every seat or a list
    of ``players`` names (``players``: the player count, named as in both adapters). Raises
    ``ValueError`` for a bad count or name."""
    seat_names = [names] * players if isinstance(names, str) else list(names)
    if len(seat_names) != players:
        raise ValueError(f"{len(seat_names)} policy names for {players} players: expected "
                         f"one name or one per seat")
    return [PolicyBot(game, nm, p) for p, nm in enumerate(seat_names)]


class RolloutEvaluator:
    """OpenSpiel MCTS evaluator from a boardlab search preset's rollout (module docstring).

    ``game``: game name; ``preset``: a search agent of :func:`agents.policy.names`
    (``"pimc-fast"``: rollout policy ``heuristic``, the game's search horizon and leaf value);
    ``seed``: seed of the rollout policies' streams (``0 .. 2**64-1``). :meth:`evaluate` returns
    ``float64 (n_players,)``: the leaf value of each seat after the rollout (at the end of the
    game these are the leaf value's win terms, not the raw returns). Raises ``ValueError`` for
    a preset that is not a search agent."""

    def __init__(self, game: str, preset: str = "pimc-fast", seed: int = 0):
        self.game = normalize_game_name(game)
        spec = get_spec(self.game, preset)
        if not spec.search:
            raise ValueError(f"bad preset {preset!r}: expected a search agent of {self.game} "
                             f"(e.g. 'pimc-fast')")
        mod = agents_module(self.game)
        C = core_of(self.game)
        self._gid = GAME_IDS[self.game]
        self._core = C
        self.params = Agent(self.game, preset).params
        self._weights = self.params[LEAF_VALUE_AT:LEAF_VALUE_AT + N_VALUE].copy()
        self._level = int(self.params[H_HORIZON])
        steps = int(self.params[H_MAX_STEPS])
        self._max_steps = steps if steps > 0 else int(C.MAX_GAME_LENGTH)
        self._aux_cfg = None
        self._aux = None
        self._mod = mod
        self._w = np.zeros(C.STATE_SIZE, dtype=np.int64)
        self._legal = np.empty(C.MAX_LEGAL, dtype=np.int64)
        self._mem = np.zeros((C.MAX_PLAYERS, chance.SEAT_WORDS), dtype=np.int64)
        self._val = np.zeros(C.MAX_PLAYERS, dtype=np.float64)
        self._rng = np.random.default_rng(chance.check_seed(seed))
        self.rollouts = 0

    def evaluate(self, state) -> np.ndarray:
        """Roll ``state`` (a boardlab OpenSpiel state) out with the preset's policy to its
        horizon; each seat's leaf value, ``float64 (n_players,)``."""
        gs = state.game_state
        if self._aux is None or (gs.config is not self._aux_cfg and gs.config != self._aux_cfg):
            self._aux = table_aux(self.game, gs.config)
            self._aux_cfg = gs.config
        w = self._w
        w[:] = gs.state
        n = gs.n_players
        word = np.int64(self._rng.integers(-2**63, 2**63 - 1, dtype=np.int64))
        chance.init_seat_memory(word, self._mem)
        level = self._level
        start = int(self._core.progress(w, level)) if level < 2 else 0
        self._val.fill(0.0)
        call_literal(rollout_value, self._gid, w, level, start, self.params, self._aux,
                     self._legal, self._mem, self._max_steps, self._weights, self._val)
        self.rollouts += 1
        return self._val[:n].copy()

    def prior(self, state) -> list[tuple[int, float]]:
        """Uniform prior over the legal actions (the chance outcomes at a chance node)."""
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


class MatchedISMCTSBot(pyspiel.Bot):
    """OpenSpiel's Python ISMCTS bot (``open_spiel.python.algorithms.ismcts.ISMCTSBot``) with
    ``worlds * len(legal_actions)`` simulations per decision (the rollouts of our PIMC with
    ``worlds`` worlds) and determinizations seeded from its own generator.

    ``game``: the loaded OpenSpiel game; ``evaluator``: e.g. :class:`RolloutEvaluator`;
    ``worlds``: the budget multiplier (``pimc-fast``: 8); ``uct_c``: exploration constant;
    ``seed``: the bot's generator seed. ``simulations`` counts the simulations run. Raises
    ``ValueError`` for ``worlds < 1``."""

    def __init__(self, game, evaluator, worlds: int = 8, uct_c: float = 2.0, seed: int = 0):
        super().__init__()
        if isinstance(worlds, bool) or not isinstance(worlds, (int, np.integer)) or worlds < 1:
            raise ValueError(f"bad worlds {worlds!r}: expected an integer >= 1")
        self.worlds = int(worlds)
        self._rs = np.random.RandomState(seed % 2**32)
        self._bot = ismcts.ISMCTSBot(
            game=game, evaluator=evaluator, uct_c=uct_c, max_simulations=1,
            random_state=self._rs, final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
            use_observation_string=False, allow_inconsistent_action_sets=True)
        self._bot.set_resampler(self._resample)
        self.simulations = 0

    def _resample(self, state, player):
        return state.resample_from_infostate(player, self._rs.random_sample)

    def step(self, state) -> int:
        """The search's action in ``state`` (the player to act is the bot's seat)."""
        n = len(state.legal_actions())
        self._bot._max_simulations = self.worlds * n
        if n > 1:
            self.simulations += self.worlds * n
        return int(self._bot.step(state))

    def restart_at(self, state) -> None:
        """Nothing to reset (the search tree is rebuilt each decision)."""

    def inform_action(self, state, player_id, action) -> None:
        """Nothing to track."""

    def provides_policy(self) -> bool:
        """False."""
        return False
