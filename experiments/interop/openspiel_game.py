"""The four boardlab games as OpenSpiel Python games (``pyspiel.register_game``).

Importing this module (``import experiments.interop.openspiel_game``, the one documented
import: OpenSpiel has no plugin discovery, so its registry only knows the Python games that were
imported) registers ``boardlab_river_rats``, ``boardlab_lure``, ``boardlab_rats`` and
``boardlab_recurring``; load one with ``pyspiel.load_game("boardlab_rats", {"players": 3})``
or ``pyspiel.load_game("boardlab_rats(players=3,seed=123)")``. Game parameters (OpenSpiel
``GameParameter`` values; ``players`` is also the name of the player count in
:mod:`experiments.interop.pettingzoo_env`):

==========  =======  ===========================================================================
name        type     meaning
==========  =======  ===========================================================================
players     int      the player count (the game's ``MIN_PLAYERS .. MAX_PLAYERS``)
seed        str      ``""`` (default): the game's seed is chosen by explicit chance nodes; a seed
                     ``0 .. 2**64-1`` as a number (``seed=123`` in a game string, ``{"seed":
                     123}``), a decimal string or ``0x`` + hex digits (``seed=0x7b``, the
                     canonical form in ``str(game)``): the seed is fixed and the game has no
                     chance node (the game of ``new_game(game, config, seed)`` and of
                     ``agents.loop.play_batch`` for that seed). OpenSpiel checks parameter
                     types strictly (``seed=123`` parses as an int, ``seed=0x7b`` as a string)
                     and its ints are 32-bit, so importing this module wraps
                     ``pyspiel.load_game`` (:func:`pyspiel_load_game`): for ``boardlab_*``
                     games a numeric seed is passed on as text; every other call is unchanged.
                     C++ callers of ``LoadGame`` use the text forms.
config      str      the game's other config fields as a JSON object (``""`` = defaults;
                     ``n_players`` comes from ``players``) or that JSON in unpadded base64url
                     (the canonical form in ``str(game)``: game strings cannot hold commas)
==========  =======  ===========================================================================

**Chance.** Our rules cores keep all chance in a splitmix64 word inside the state
(:mod:`engines.protocol.chance`), which OpenSpiel can neither see nor serialize. The adapter
therefore makes the one chance event explicit: the game starts with :data:`SEED_CHANCE_NODES` (8)
chance nodes of :data:`SEED_OUTCOMES` (256) equally likely outcomes each; outcome ``b_i`` of node
``i`` is byte ``i`` of the game's 64-bit seed (``seed = sum(b_i << 8 i)``, so every seed is
reachable and ``chance_outcomes()`` stays small). After the last seed byte the game is deterministic
given the seed, so the OpenSpiel history (8 chance picks + the actions) replays the state exactly,
and OpenSpiel's serialization round-trips (a pyspiel Python state is serialized as its history plus
its pickled Python data; both reproduce the state). ``max_chance_outcomes`` is 256 also with a fixed
seed (an upper bound). A game whose description has ``explicit_deals`` (Kuhn poker: 6) has instead
one chance node whose outcomes are its deals (equally likely), after which it is deterministic: the
whole game tree is small enough for OpenSpiel's CFR and exploitability.

**Views.** ``information_state_string(p)`` is perfect recall (Kuhn's sense, which CFR and
ISMCTS rely on): the step API's
:meth:`~engines.protocol.GameState.information_state_string` (the core's summary of what ``p``
knows now, which is what ``determinize`` needs but forgets the order of past events: a follow
of ``As, Ts`` and of ``Ts, As`` give the same summary) followed by ``p``'s own decisions in
order, each as ``action@digest`` where ``digest`` is 16 hex digits of a BLAKE2b hash of ``p``'s
summary when it decided: ``"rats p1: 3,0,... | p1 decisions: 41@5f0c... 17@a9e2..."``. Two
states share the string only if ``p`` took the same actions from the same summaries at every
one of its decisions and knows the same now, so no two different own-action sequences reach
one string. The decisions are not recorded per step: the string replays the history since the
last string request from a snapshot of the state then (a step costs nothing more). After
``resample_from_infostate(p, ...)`` the other seats' decisions before the resample are unknown
to the resampled world and show as ``?`` (their own actions would be hidden information).
``information_state_tensor`` is the core's ``observation_tensor`` (``float32 (TENSOR_SIZE,)``:
the core's summary only, so not perfect recall: learning code that needs the past keeps it,
e.g. with a recurrent network), ``observation_string`` the table as the player sees it
(``GameState.table(player)``; nothing that ``determinize`` for that player resamples),
``observation_tensor`` the core's ``observe``
array losslessly in ``float32 (3 * OBS_SIZE,)``: every ``int64`` word ``v`` as three exact
24-bit pieces, ``v & 0xFFFFFF``, ``(v >> 24) & 0xFFFFFF`` and ``v >> 48`` (all ``OBS_SIZE`` low
pieces first; :func:`observation_words` inverts it), so no value is rounded (Rats' card
bitmasks exceed ``2**24``). Tensors are written by the compiled kernels
into the observer's preallocated buffers. Before the seed is complete every view is empty (zeros,
``"... choosing the seed, byte k of 8"``).

**Speed.** Called from Python, ``legal_actions``, ``information_state_tensor``,
``observation_tensor`` and the two string accessors are Python methods of the state that call
the compiled kernels into preallocated buffers (the tensors come back as fresh ``float32`` numpy
arrays instead of OpenSpiel's lists: a list of a thousand floats costs more than the whole
step). C++ callers (``random_sim_test``, C++ bots) reach the same values through
``_legal_actions`` and the observers. ``benchmarks/interop.py`` measures a step against the
step API.

**Resampling.** ``resample_from_infostate(player, sampler)`` draws a 64-bit seed from two calls
of ``sampler`` (OpenSpiel's ``UniformProbabilitySampler``: floats in ``[0, 1)``) and returns a
state whose game is ``GameState.determinize(player, seed)`` (see :mod:`engines.protocol`); its
information-state string for ``player`` equals the original's (the other seats' earlier
decisions show as ``?``).

**Utility.** River Rats is cooperative (``IDENTICAL``: every seat gets +1 for a win, -1 for a
loss); Lure is ``CONSTANT_SUM`` (the winners share 1); Rats is ``GENERAL_SUM`` (the winners share
1, but nobody wins under ``max_rounds_tie="none"``); ReCURRRing is ``GENERAL_SUM`` (each seat's
points, ``0 .. N_IDS``). Rewards are terminal.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pyspiel

from engines.protocol import chance
from engines.names import describe
from engines.protocol import GAME_NAMES, core_of, game_class
from experiments.interop.openspiel_spec import (
    SEED_CHANCE_NODES,
    OBS_PIECE_MASK,
    OBS_PIECES,
    SEED_OUTCOMES,
    SHORT_NAMES,
    config_text,
    game_type,
    observation_words,
    parse_config,
    parse_seed,
    pyspiel_load_game,
    seed_text,
    seed_of_history,
    short_name,
    utility_of,
)

__all__ = ["SEED_CHANCE_NODES", "SEED_OUTCOMES", "SHORT_NAMES", "BoardlabGame", "BoardlabState",
           "BoardlabObserver", "short_name", "load_game", "seed_of_history", "game_state_of",
           "pyspiel_load_game", "recall_digest", "OBS_PIECES", "observation_words"]


class BoardlabGame(pyspiel.Game):
    """One boardlab game as an OpenSpiel Python game (a registered subclass per game sets
    ``game_name``). ``params``: the dict of :data:`module <experiments.interop.openspiel_game>`
    parameters (``players``, ``seed``, ``config``). Raises ``ValueError`` for a bad player
    count, seed or config."""

    game_name = ""

    def __init__(self, params=None):
        game = self.game_name
        params = dict(params or {})
        gtype = _GAME_TYPES[game]
        cls = game_class(game)
        C = core_of(game)
        n = params.get("players", int(cls.config_class().n_players))
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not (
                C.MIN_PLAYERS <= n <= C.MAX_PLAYERS):
            raise ValueError(f"bad players {n!r} for {game}: expected an integer "
                             f"{C.MIN_PLAYERS}..{C.MAX_PLAYERS}")
        extra = parse_config(params.get("config", ""), cls.config_class)
        extra.pop("n_players", None)
        base = cls.config_class().to_dict()
        base.update(extra)
        base["n_players"] = int(n)
        self.config = cls._as_config(base)
        self.fixed_seed = parse_seed(params.get("seed", ""))
        u, lo, hi, total = utility_of(game)
        n_chance = 0 if self.fixed_seed is not None else (1 if self.deals else SEED_CHANCE_NODES)
        self.num_chance_nodes = n_chance
        info = pyspiel.GameInfo(
            num_distinct_actions=int(C.NUM_DISTINCT_ACTIONS),
            max_chance_outcomes=self.chance_width,
            num_players=int(n),
            min_utility=lo,
            max_utility=hi,
            utility_sum=total,
            max_game_length=int(C.MAX_GAME_LENGTH))
        full = {"players": int(n), "seed": seed_text(self.fixed_seed),
                "config": config_text(extra)}
        super().__init__(gtype, info, full)
        self._outcomes = [(b, 1.0 / self.chance_width) for b in range(self.chance_width)]

    @property
    def deals(self) -> int:
        """The number of explicit deals (the description's ``explicit_deals``; 0: the seed's
        chance nodes)."""
        return describe(self.game_name).explicit_deals

    @property
    def chance_width(self) -> int:
        """Outcomes of each chance node: the deals, or the 256 values of a seed byte."""
        return self.deals or SEED_OUTCOMES

    @property
    def core(self):
        """The game's compiled rules core module (``engines.<game>.core``)."""
        return _CORES[self.game_name]

    @property
    def state_class(self) -> type:
        """The game's step-API class (:func:`engines.protocol.game_class`)."""
        return _STATE_CLASSES[self.game_name]

    def new_initial_state(self) -> BoardlabState:
        """A new game: at its first seed chance node, or (fixed ``seed``) at its first
        decision."""
        return BoardlabState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> BoardlabObserver:
        """An observer (OpenSpiel's PyObserver protocol): perfect recall -> information state
        (tensor ``float32 (TENSOR_SIZE,)``), otherwise the observation (``float32
        (3 * OBS_SIZE,)``, lossless). Raises ``ValueError`` for observer params (none are
        supported)."""
        perfect = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return BoardlabObserver(self, perfect, params)


class _Inner:
    """The Python-side data of a :class:`BoardlabState`, in one object whose ``deepcopy``
    (what OpenSpiel's ``clone`` of a Python state runs on the state's ``__dict__``) shares the
    game, core and buffers' shapes and clones the step-API game."""

    # recall: each seat's decisions as "action@digest" texts up to history index ``done``;
    # ``base``: a snapshot of the state at that index (never changed in place, so clones share
    # it); see _flush_recall
    __slots__ = ("game", "core", "seed_bytes", "legal", "ret", "n", "gs", "recall", "base",
                 "done")

    def __deepcopy__(self, memo):
        out = _Inner.__new__(_Inner)
        out.game = self.game
        out.core = self.core
        out.seed_bytes = list(self.seed_bytes)
        out.legal = np.empty_like(self.legal)
        out.ret = np.zeros_like(self.ret)
        out.n = self.n
        out.gs = None if self.gs is None else self.gs.clone()
        out.recall = [list(r) for r in self.recall]
        out.base = self.base
        out.done = self.done
        return out

    def __reduce__(self):
        _flush_recall(self)
        return _inner_from, (self.game, list(self.seed_bytes), self.gs, self.recall, self.base,
                             self.done)

    def start(self, gs) -> None:
        """Set the step-API game ``gs`` (its seed complete) and start recording decisions."""
        self.gs = gs
        self.recall = [[] for _ in range(self.n)]
        self.base = gs.state.copy()
        self.done = len(gs.history)


def _inner_from(game, seed_bytes, gs, recall=None, base=None, done=0) -> _Inner:
    """Rebuild an :class:`_Inner` from its pickled parts (game, seed bytes, step-API game and
    the decision record)."""
    x = _Inner()
    x.game = game
    x.core = game.core
    x.seed_bytes = list(seed_bytes)
    x.legal = np.empty(game.core.MAX_LEGAL, dtype=np.int64)
    x.ret = np.zeros(game.core.MAX_PLAYERS, dtype=np.float64)
    x.n = game.num_players()
    x.gs = gs
    x.recall = [list(r) for r in recall] if recall is not None else [[] for _ in range(x.n)]
    x.base = base
    x.done = int(done)
    return x


def recall_digest(info) -> str:
    """16 hex digits of the BLAKE2b hash (8 bytes) of an information-state summary (the core's
    ``information_state`` words, ``int64 (INFO_SIZE,)``, hashed as little-endian bytes): the
    part of a perfect-recall string that stands for what a seat knew when it decided."""
    return hashlib.blake2b(np.ascontiguousarray(info, dtype="<i8").tobytes(),
                           digest_size=8).hexdigest()


def _flush_recall(x: _Inner) -> None:
    """Bring ``x.recall`` up to the end of the history: replay the actions since ``x.done`` on a
    copy of ``x.base`` and record, for each, the acting seat's ``action@digest`` (its summary
    before acting). Raises ``RuntimeError`` if the replay does not reach the state (its
    step-API game was changed behind OpenSpiel's back)."""
    gs = x.gs
    if gs is None or x.done == len(gs.history):
        return
    C = x.core
    w = x.base.copy()
    info = np.zeros(C.INFO_SIZE, dtype=np.int64)
    for a in gs.history[x.done:]:
        p = int(C.current_player(w))
        info.fill(0)
        C.information_state(w, p, info)
        x.recall[p].append(f"{int(a)}@{recall_digest(info)}")
        C.apply_action(w, int(a))
    if not np.array_equal(w, gs.state):
        raise RuntimeError("the information-state record lost track of the game: its step-API "
                           "game_state was changed outside the OpenSpiel state (apply actions "
                           "to the OpenSpiel state only)")
    x.base = w
    x.done = len(gs.history)


class BoardlabState(pyspiel.State):
    """A state of a :class:`BoardlabGame`: the seed bytes chosen so far and, once the seed is
    complete, the step-API game :attr:`game_state` (an :class:`engines.protocol.GameState`;
    None during the seed chance nodes)."""

    def __init__(self, game: BoardlabGame):
        super().__init__(game)
        x = _Inner()
        x.game = game
        x.core = game.core
        x.seed_bytes = []
        x.legal = np.empty(game.core.MAX_LEGAL, dtype=np.int64)
        x.ret = np.zeros(game.core.MAX_PLAYERS, dtype=np.float64)
        x.n = game.num_players()
        x.gs = None
        x.recall = [[] for _ in range(x.n)]
        x.base = None
        x.done = 0
        if game.fixed_seed is not None:
            x.start(game.state_class(game.config, game.fixed_seed))
        self._x = x

    @property
    def game_state(self):
        """The step-API game (:class:`engines.protocol.GameState`), None before the seed is
        complete. Applying actions to it directly desynchronizes OpenSpiel's history."""
        return self._x.gs

    @property
    def seed_bytes(self) -> list[int]:
        """The seed bytes chosen so far (a copy)."""
        return list(self._x.seed_bytes)

    # ---- OpenSpiel API ---------------------------------------------------------------------
    def current_player(self) -> int:
        """The seat to act, ``PlayerId.CHANCE`` while the seed is chosen, ``PlayerId.TERMINAL``
        at the end."""
        x = self._x
        if x.gs is None:
            return pyspiel.PlayerId.CHANCE
        p = int(x.core.current_player(x.gs.state))
        return pyspiel.PlayerId.TERMINAL if p < 0 else p

    def _legal_actions(self, player: int) -> list[int]:
        """The legal actions of ``player`` (the seat to act), ascending ids of the game's
        action table."""
        x = self._x
        n = x.core.legal_actions(x.gs.state, x.legal)
        return x.legal[:n].tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The equally likely values of the next seed byte (256), or the deals of a game with
        explicit deals."""
        return self._x.game._outcomes

    # Python-side fast paths of OpenSpiel's accessors (module docstring, "Speed"): the C++ path
    # (used by C++ algorithms and ``pyspiel.State.<method>(state, ...)``) gives the same values
    # through ``_legal_actions`` and the observers.
    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal actions of ``player`` (None: the player to act; the seed bytes 0..255 at a
        chance node; empty for a seat that is not to act and at the end), ascending."""
        x = self._x
        if x.gs is None:
            if player is None or player == pyspiel.PlayerId.CHANCE:
                return list(range(x.game.chance_width))
            return []
        cur = int(x.core.current_player(x.gs.state))
        if cur < 0 or (player is not None and int(player) != cur):
            return []
        n = x.core.legal_actions(x.gs.state, x.legal)
        return x.legal[:n].tolist()

    def _observer(self, perfect: bool) -> BoardlabObserver:
        game = self._x.game
        key = (game.game_name, perfect)
        obs = _PY_OBSERVERS.get(key)
        if obs is None:
            obs = _PY_OBSERVERS[key] = BoardlabObserver(game, perfect)
        return obs

    def _seat(self, player) -> int:
        p = self.current_player() if player is None else player
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or not (
                0 <= int(p) < self._x.n):
            raise ValueError(f"bad player {player!r}: expected a seat 0..{self._x.n - 1}")
        return int(p)

    def information_state_tensor(self, player: int | None = None) -> np.ndarray:
        """``player``'s information-state tensor (None: the player to act), a fresh ``float32
        (TENSOR_SIZE,)`` array (OpenSpiel's C++ accessor returns the same values as a list).
        Raises ``ValueError`` for a bad seat."""
        obs = self._observer(True)
        obs.set_from(self, self._seat(player))
        return obs.tensor.copy()

    def observation_tensor(self, player: int | None = None) -> np.ndarray:
        """``player``'s observation tensor, a fresh ``float32 (3 * OBS_SIZE,)`` array (see
        :meth:`information_state_tensor`)."""
        obs = self._observer(False)
        obs.set_from(self, self._seat(player))
        return obs.tensor.copy()

    def information_state_string(self, player: int | None = None) -> str:
        """``player``'s information-state string (None: the player to act), perfect recall:
        the core's summary, then ``player``'s decisions in order (module docstring, "Views").
        Raises ``ValueError`` for a bad seat."""
        return self._observer(True).string_from(self, self._seat(player))

    def observation_string(self, player: int | None = None) -> str:
        """The table as ``player`` sees it (None: the player to act): equal in every world of
        :meth:`resample_from_infostate` for that player. Raises ``ValueError`` for a bad
        seat."""
        return self._observer(False).string_from(self, self._seat(player))

    def _apply_action(self, action: int) -> None:
        """A seed byte at a chance node, else a legal action of the player to act (checked by
        the step API: ``ValueError`` naming it otherwise)."""
        x = self._x
        if x.gs is None:
            b = int(action)
            if x.game.deals:
                if not 0 <= b < x.game.deals:
                    raise ValueError(f"bad chance outcome {action!r}: expected a deal "
                                     f"0..{x.game.deals - 1}")
                x.seed_bytes.append(b)
                x.start(x.game.state_class.from_deal(b, x.game.config))
                return
            if not 0 <= b < SEED_OUTCOMES:
                raise ValueError(f"bad chance outcome {action!r}: expected a seed byte 0..255")
            x.seed_bytes.append(b)
            if len(x.seed_bytes) == SEED_CHANCE_NODES:
                seed = sum(v << (8 * i) for i, v in enumerate(x.seed_bytes))
                x.start(x.game.state_class(x.game.config, seed))
            return
        a = int(action)
        gs = x.gs
        n = x.core.legal_actions(gs.state, x.legal)
        if a not in x.legal[:n].tolist():
            gs.apply_action(a)  # raises the step API's ValueError naming the legal actions
        x.core.apply_action(gs.state, a)  # what GameState.apply_action does once checked
        gs.history.append(a)

    def _action_to_string(self, player: int, action: int) -> str:
        """A seed byte (``"seed byte 3 = 17"``) or the game's action text in this state."""
        x = self._x
        if player == pyspiel.PlayerId.CHANCE or x.gs is None:
            if x.game.deals:
                return f"deal {int(action)}"
            return f"seed byte {len(x.seed_bytes)} = {int(action)}"
        return x.gs.action_to_string(int(action))

    def is_terminal(self) -> bool:
        """True once the game is over."""
        x = self._x
        return x.gs is not None and bool(x.core.is_terminal(x.gs.state))

    def returns(self) -> list[float]:
        """Each seat's return (0 until the end; see the module docstring for the utility)."""
        x = self._x
        if x.gs is None:
            return [0.0] * x.n
        x.core.returns(x.gs.state, x.ret)
        return x.ret[:x.n].tolist()

    def resample_from_infostate(self, player_id: int, probability_sampler) -> BoardlabState:
        """A state in ``player_id``'s information set: the game determinized for that seat
        (:meth:`engines.protocol.GameState.determinize`) with a 64-bit seed drawn from two calls
        of ``probability_sampler`` (floats in ``[0, 1)``); during the seed chance nodes, the
        chosen bytes are redrawn. ``player_id``'s information-state string is kept; the other
        seats' decisions before the resample show as ``?``. Raises ``ValueError`` for a bad
        seat."""
        p = self._seat(player_id)
        u1 = float(probability_sampler())
        u2 = float(probability_sampler())
        seed = (int(u1 * 2**32) % 2**32) | ((int(u2 * 2**32) % 2**32) << 32)
        x = self._x
        _flush_recall(x)
        out = self.clone()
        y = out._x
        if x.gs is None:
            y.seed_bytes = [(seed >> (8 * i)) & 255 for i in range(len(x.seed_bytes))]
            return out
        y.start(x.gs.determinize(p, seed))
        # the other seats' past decisions would carry what p may not know (their secret
        # actions, hashes of their hands): the resampled world keeps only p's own
        y.recall = [list(x.recall[q]) if q == p else ["?"] for q in range(y.n)]
        return out

    def __str__(self) -> str:
        """The game's text table (every card shown), or the seed bytes chosen so far."""
        x = self._x
        if x.gs is None and x.game.deals:
            return f"{x.game.get_type().long_name}: dealing"
        if x.gs is None:
            return (f"{x.game.get_type().long_name}: choosing the seed, byte "
                    f"{len(x.seed_bytes)} of {SEED_CHANCE_NODES}")
        return str(x.gs)


class BoardlabObserver:
    """OpenSpiel PyObserver of a boardlab game: ``tensor`` (``float32``, preallocated) and
    ``dict`` (``{"info_state": tensor}`` or ``{"observation": tensor}``) filled by
    :meth:`set_from` with the compiled kernels; :meth:`string_from` for strings. ``perfect``:
    True for the information state (core ``observation_tensor``, ``TENSOR_SIZE``), False for
    the observation (core ``observe``, ``OBS_SIZE``). Raises ``ValueError`` for params."""

    def __init__(self, game: BoardlabGame, perfect: bool, params=None):
        if params:
            raise ValueError(f"bad observer params {params!r}: boardlab observers take none")
        C = game.core
        self._core = C
        self._perfect = perfect
        self._n_chance = game.num_chance_nodes or SEED_CHANCE_NODES
        if perfect:
            self.tensor = np.zeros(C.TENSOR_SIZE, dtype=np.float32)
            self.dict = {"info_state": self.tensor}
        else:
            self.tensor = np.zeros(OBS_PIECES * C.OBS_SIZE, dtype=np.float32)
            self._ibuf = np.zeros(C.OBS_SIZE, dtype=np.int64)
            self.dict = {"observation": self.tensor}

    def set_from(self, state: BoardlabState, player: int) -> None:
        """Write ``player``'s view of ``state`` into ``tensor`` (zeros before the seed is
        complete)."""
        gs = state.game_state
        if gs is None:
            self.tensor.fill(0.0)
            return
        if self._perfect:
            self.tensor.fill(0.0)
            self._core.observation_tensor(gs.state, int(player), self.tensor)
        else:
            self._core.observe(gs.state, int(player), self._ibuf)
            v, n = self._ibuf, self._ibuf.shape[0]
            self.tensor[:n] = v & OBS_PIECE_MASK
            self.tensor[n:2 * n] = (v >> 24) & OBS_PIECE_MASK
            self.tensor[2 * n:] = v >> 48

    def string_from(self, state: BoardlabState, player: int) -> str:
        """``player``'s information-state string (perfect recall: the core's summary, then the
        player's decisions in order; module docstring, "Views") or the table as ``player``
        sees it (observation)."""
        gs = state.game_state
        if gs is None:
            return (f"p{int(player)}: choosing the seed, byte {len(state.seed_bytes)} of "
                    f"{self._n_chance}")
        p = int(player)
        if self._perfect:
            x = state._x
            _flush_recall(x)
            own = x.recall[p]
            return f"{gs.information_state_string(p)} | p{p} decisions: " + " ".join(own)
        return gs.table(p)


def _make_game_class(game: str) -> type:
    title = "".join(w.capitalize() for w in game.split("_"))
    return type(f"Boardlab{title}Game", (BoardlabGame,), {
        "game_name": game, "__doc__": f"OpenSpiel game ``{SHORT_NAMES[game]}`` "
        f"(see :class:`BoardlabGame`)."})


_PY_OBSERVERS: dict = {}
"""Observers of the Python fast paths, one per (game, perfect recall): they hold only buffers
whose sizes depend on the game, and the accessors copy their tensor out."""
_GAME_TYPES: dict = {}
_CORES = {g: core_of(g) for g in GAME_NAMES}
_STATE_CLASSES = {g: game_class(g) for g in GAME_NAMES}
GAME_CLASSES: dict = {}
"""``{game: its registered BoardlabGame subclass}`` (module attributes, so they pickle)."""
for _g in GAME_NAMES:
    _GAME_TYPES[_g] = game_type(_g)
    GAME_CLASSES[_g] = _make_game_class(_g)
    globals()[GAME_CLASSES[_g].__name__] = GAME_CLASSES[_g]
    if _GAME_TYPES[_g].short_name not in pyspiel.registered_names():
        pyspiel.register_game(_GAME_TYPES[_g], GAME_CLASSES[_g])


def load_game(game: str, players: int | None = None, seed: int | None = None,
              config: dict | None = None):
    """``pyspiel.load_game`` of ``boardlab_<game>`` with the given player count (None: the
    config default), fixed seed (None: chance nodes pick it; else ``0 .. 2**64-1``) and extra
    config fields (a dict). Raises ``ValueError`` for a bad game, player count, seed or
    config."""
    params: dict = {}
    if players is not None:
        params["players"] = players
    if seed is not None:
        params["seed"] = seed_text(chance.check_seed(seed))
    if config:
        params["config"] = json.dumps(config)
    return pyspiel.load_game(short_name(game), params)


def game_state_of(state) -> object:
    """The step-API game (:class:`engines.protocol.GameState`) behind an OpenSpiel state of a
    boardlab game. Raises ``ValueError`` for another kind of state or before the seed is
    complete."""
    gs = getattr(state, "game_state", None)
    if gs is None:
        raise ValueError(f"bad state {type(state).__name__}: expected a boardlab OpenSpiel "
                         f"state whose seed is chosen")
    return gs
