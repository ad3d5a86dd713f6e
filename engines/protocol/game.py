"""The one game protocol of boardlab: the kernels every rules core offers, and the step API.

Every game (River Rats, Lure, Rats, ReCURRRing) has one compiled rules core,
``engines/<game>/core.py``, over a flat ``int64`` state array whose layout is the table in
that module's docstring. Each core offers the **same kernels with the same argument order**
(the shape of pgx's ``init/step/observe`` and OpenSpiel's ``State``), so that a capability
(the game loop, search agents, adapters to other frameworks) is written once for all games:

==========================================  ====================================================
kernel (``@njit(cache=True)``)              contract
==========================================  ====================================================
``init_state(cfg, seed, out)``              a new game in ``out`` (``int64 (STATE_SIZE,)``) from
                                            the config array ``cfg`` (``int64 (CONFIG_SIZE,)``,
                                            ``<Game>Config.to_array()``) and the game's seed word
                                            ``seed`` (``int64``); all later chance comes from the
                                            word kept in the state
``legal_actions(s, out) -> n``              the legal actions of the player to act, written to
                                            ``out`` (``int64 (MAX_LEGAL,)``) in **ascending**
                                            order, distinct, each in ``0 .. NUM_DISTINCT_ACTIONS
                                            - 1``; 0 once the game is over
``apply_action(s, a)``                      apply legal action ``a`` in place, then every forced
                                            step and chance event up to the next decision
``is_terminal(s) -> bool``                  the game is over
``returns(s, out)``                         each seat's return, ``float64 (MAX_PLAYERS,)`` (seats
                                            beyond the player count get 0)
``current_player(s) -> int``                the seat to act, -1 once the game is over
``num_players(s) -> int``                   the player count of this game
``observe(s, p, out)``                      what seat ``p`` sees now (``int64 (OBS_SIZE,)``,
                                            layout in the core's docstring)
``information_state(s, p, out)``            what ``p`` knows now, as a fixed summary
                                            (``int64 (INFO_SIZE,)``): the observation plus what
                                            ``p`` remembers of public events (where each card
                                            went while ``p`` could see it), all that
                                            ``determinize`` needs; not perfect recall (it keeps
                                            no order of past events: a follow of ``As, Ts``
                                            and of ``Ts, As`` give one summary; the OpenSpiel
                                            adapter's information-state string adds ``p``'s
                                            decisions in order)
``observation_tensor(s, p, out)``           the information state (the summary above, so not
                                            perfect recall either) as ``float32
                                            (TENSOR_SIZE,)`` (one-hot locations, scaled counts)
                                            for learning code
``determinize(s, p, seed, out)``            a copy of ``s`` in ``out`` in which everything ``p``
                                            cannot know is resampled uniformly among the
                                            placements consistent with ``p``'s information state
                                            and the chance word is reseeded from ``seed``; a
                                            function of (``information_state(s, p)``, ``seed``)
                                            only, so it carries nothing ``p`` may not see
``observed_action(s, a, p) -> int``         the action ``a`` (about to be taken in ``s`` by the
                                            player to act) as seat ``p`` perceives it: ``a``
                                            itself if ``p`` acts or the action is public, else
                                            ``HIDDEN_ACTION`` plus a public part (the core says)
``inventory(s, out)``                       count of each physical item (card id, token kind)
                                            in play, ``int64 (INVENTORY_SIZE,)``: constant over
                                            a game and under ``determinize`` (conservation)
``outcome(s, out)``                         the per-game statistics of the batch tables,
                                            ``int64 (len(OUTCOME_FIELDS),)``
``progress(s, level) -> int``               counters for search horizons: ``level`` 0 = the
                                            game's smallest unit (trick, collective hand, turn
                                            of fishing), 1 = a round (a deal of cards, a Lure
                                            round); a rollout "to the end of the hand" stops
                                            when the counter changes
==========================================  ====================================================

and the constants ``GAME_NAME``, ``MIN_PLAYERS``, ``MAX_PLAYERS``, ``CONFIG_SIZE``,
``STATE_SIZE``, ``NUM_DISTINCT_ACTIONS`` (the fixed action table), ``MAX_LEGAL``,
``MAX_GAME_LENGTH`` (decisions; the rules core ends a game that reaches it), ``OBS_SIZE``,
``INFO_SIZE``, ``TENSOR_SIZE``, ``INVENTORY_SIZE``, ``OUTCOME_FIELDS`` and ``HIDDEN_ACTION``
(``NUM_DISTINCT_ACTIONS``: ids at or above it are observed actions, never played).

Where a turn has many combinations (a Rats lead, a Lure cast or adjust) it is a short sequence
of small decisions, as in OpenSpiel's games: every game has at most a few thousand distinct
actions and a legal list of at most a few dozen.

**Door 1, the step API**: :class:`GameState` below, one subclass per game in
``engines/<game>/game.py``; :func:`new_game` and :func:`replay` work for every game.
**Door 2** (whole games of compiled policies) lives above the engines, in :mod:`agents.loop`.

Why the fair-search pieces look like this (see Cowling, Powley and Whitehouse, "Information Set
Monte Carlo Tree Search", IEEE TCIAIG 4(2), 2012, and OpenSpiel's
``resample_from_infostate``): a plain ``clone()`` copies the hidden cards *and* the chance word,
so a search on clones sees the future. Search agents therefore sample worlds with
:meth:`GameState.determinize`; the determinization test of ``tests/test_protocol.py`` checks
card conservation, that the player's information state and legal actions are unchanged, that
placements are uniform (chi-square) and that the result does not depend on where the hidden
cards really are.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from engines.protocol import chance
from engines.names import GAME_IDS, GAME_NAMES, GAME_TITLES, normalize_game_name

__all__ = ["GAME_IDS", "GAME_NAMES", "RECORD_FORMAT", "GameState", "game_class", "core_of",
           "new_game", "replay", "load_record", "normalize_game_name", "absent_seat_field"]

RECORD_FORMAT = "boardlab.record/1"
"""Value of the ``format`` key of every JSON game record (all four games)."""
_TITLES = GAME_TITLES


def core_of(game: str):
    """The compiled rules core module ``engines.<game>.core``."""
    return importlib.import_module(f"engines.{normalize_game_name(game)}.core")


def game_class(game: str) -> type[GameState]:
    """The step-API class of ``game`` (a :class:`GameState` subclass)."""
    name = normalize_game_name(game)
    mod = importlib.import_module(f"engines.{name}.game")
    return mod.STATE_CLASS


class GameState:
    """One game in progress behind the step API (door 1), the same for all four games.

    Build it with :func:`new_game` (or the game's own ``new_game``). Attributes: ``config``
    (the game's frozen config dataclass), ``seed`` (the game's seed, ``0 .. 2**64-1``),
    ``state`` (the flat ``int64`` state of the rules core; ``array`` is an alias),
    ``history`` (the actions applied, ints; ``initial``: the state they were applied to, so
    replaying them gives every past state), ``seat_memory`` (``int64 (MAX_PLAYERS,
    SEAT_WORDS)``: each seat's policy stream and memory, so compiled agents driven through the
    step API play exactly the games of :func:`agents.loop.play_batch`).

    Methods follow OpenSpiel's names: :meth:`current_player`, :meth:`legal_actions`,
    :meth:`apply_action`, :meth:`is_terminal`, :meth:`returns`, :meth:`clone`,
    :meth:`observation`, :meth:`information_state`, :meth:`determinize`,
    :meth:`action_to_string`, :meth:`string_to_action`, :meth:`record`; ``str(state)`` is the
    whole table (every card shown) and :meth:`table` ``(viewer)`` what one seat sees.

    Subclasses set ``game_name``, ``config_class`` and ``core`` and implement
    :meth:`_action_text`, :meth:`table` and :meth:`observation`; they may extend
    :meth:`_parse_action` (text forms beyond the exact action texts) and :meth:`outcome`.
    """

    game_name: ClassVar[str] = ""
    config_class: ClassVar[type] = object
    core: ClassVar[Any] = None
    rules_summary: ClassVar[str] = ""
    """A one-screen summary of the game's rules (shown by ``help`` in ``boardlab play``)."""

    def __init__(self, config=None, seed: int = 0):
        self.config = self._as_config(config)
        self.seed = chance.check_seed(seed)
        C = self.core
        self.state = np.zeros(C.STATE_SIZE, dtype=np.int64)
        C.init_state(self.config.to_array(), chance.as_word(self.seed), self.state)
        self.initial = self.state.copy()
        self.history: list[int] = []
        self.seat_memory = np.zeros((C.MAX_PLAYERS, chance.SEAT_WORDS), dtype=np.int64)
        chance.init_seat_memory(chance.as_word(self.seed), self.seat_memory)
        self.determinized = False
        self._buf = np.empty(C.MAX_LEGAL, dtype=np.int64)

    # ---- construction helpers --------------------------------------------------------------
    @classmethod
    def _as_config(cls, config):
        if config is None:
            return cls.config_class()
        if isinstance(config, cls.config_class):
            return config
        if isinstance(config, dict):
            return cls.config_class.from_dict(config)
        raise ValueError(f"bad config {config!r}: expected a {cls.config_class.__name__}, a dict "
                         f"of its fields or None (the defaults)")

    @property
    def array(self) -> np.ndarray:
        """The flat ``int64`` state (alias of ``state``)."""
        return self.state

    @property
    def n_players(self) -> int:
        """Number of seats of this game."""
        return int(self.core.num_players(self.state))

    @property
    def title(self) -> str:
        """The game's display name (``"River Rats"``, ...)."""
        return _TITLES[self.game_name]

    # ---- the step API --------------------------------------------------------------------
    def current_player(self) -> int:
        """Seat to act (``0 .. n_players-1``), -1 once the game is over."""
        return int(self.core.current_player(self.state))

    def legal_actions(self) -> list[int]:
        """The legal actions of the player to act, ascending ints of the action table; empty
        once the game is over."""
        n = self.core.legal_actions(self.state, self._buf)
        return [int(x) for x in self._buf[:n]]

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return bool(self.core.is_terminal(self.state))

    def returns(self) -> list[float]:
        """Each seat's return (``n_players`` floats; 0 while the game runs; see the core)."""
        out = np.zeros(self.core.MAX_PLAYERS)
        self.core.returns(self.state, out)
        return out[:self.n_players].tolist()

    def _check_action(self, action) -> int:
        """``action`` as a legal int, or ``ValueError`` naming it (nothing changes)."""
        C = self.core
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"bad action {action!r}: expected an int of the action table "
                             f"(0..{C.NUM_DISTINCT_ACTIONS - 1}) from legal_actions(); use "
                             f"string_to_action() for text")
        a = int(action)
        if not 0 <= a < C.NUM_DISTINCT_ACTIONS:
            raise ValueError(f"bad action {a}: not in the action table (0.."
                             f"{C.NUM_DISTINCT_ACTIONS - 1})")
        if self.is_terminal():
            raise ValueError(f"illegal action {a} ({self._safe_text(a)}): the game is over")
        legal = self.legal_actions()
        if a not in legal:
            shown = "; ".join(f"{x} = {self.action_to_string(x)}" for x in legal[:40])
            more = f" (and {len(legal) - 40} more)" if len(legal) > 40 else ""
            raise ValueError(f"illegal action {a} ({self._safe_text(a)}) for seat "
                             f"{self.current_player()}: legal are {shown}{more}")
        return a

    def apply_action(self, action: int) -> None:
        """Apply a legal action, an ``int`` from :meth:`legal_actions`. Raises ``ValueError``
        naming the action (and the legal ones) for anything else, floats and digit strings
        included; the state is then unchanged. Text goes through :meth:`string_to_action`."""
        a = self._check_action(action)
        self.core.apply_action(self.state, a)
        self.history.append(a)

    def is_legal(self, action) -> bool:
        """True if ``action`` is an int that is legal now."""
        try:
            self._check_action(action)
        except ValueError:
            return False
        return True

    @classmethod
    def from_deal(cls, deal: int, config=None) -> GameState:
        """A new game whose only chance event, the deal, is ``deal`` (``0 .. explicit_deals -
        1`` of the game's description; the core's ``init_deal``); chance word and seat
        memory of seed 0. Raises ``ValueError`` for a game without explicit deals or a bad
        deal."""
        from engines.names import describe

        n = describe(cls.game_name).explicit_deals
        if n == 0:
            raise ValueError(f"{cls.game_name} has no explicit deals (its chance comes from "
                             f"the seed)")
        if isinstance(deal, (bool, np.bool_)) or not isinstance(deal, (int, np.integer)) or not (
                0 <= deal < n):
            raise ValueError(f"bad deal {deal!r}: expected 0..{n - 1}")
        st = cls(config, 0)
        st.core.init_deal(st.config.to_array(), int(deal), st.state)
        st.initial = st.state.copy()
        return st

    def events(self, before, action: int, who) -> list[str]:
        """Lines on what ``action`` resolved that the table no longer shows (a trick taken, a
        round's catches...), for a person following the game (``boardlab play``): ``before``
        is the state array before ``action``, this game is after it, ``who(seat)`` names a
        seat. The base class has none; each game says what its table hides."""
        return []

    def clone(self) -> GameState:
        """An independent copy: state (with its chance word: the same future), history and
        seat memory. For search use :meth:`determinize`, which does not carry hidden cards."""
        g = object.__new__(type(self))
        g.__dict__.update(self.__dict__)
        g.state = self.state.copy()
        g.history = list(self.history)
        g.seat_memory = self.seat_memory.copy()
        g._buf = np.empty_like(self._buf)
        return g

    # ---- views ---------------------------------------------------------------------------
    def _check_player(self, player) -> int:
        n = self.n_players
        if (isinstance(player, (bool, np.bool_)) or not isinstance(player, (int, np.integer))
                or not 0 <= int(player) < n):
            raise ValueError(f"bad player {player!r}: expected a seat 0..{n - 1}")
        return int(player)

    def observation_array(self, player: int) -> np.ndarray:
        """What ``player`` sees now, ``int64 (OBS_SIZE,)`` (layout: the core's docstring).
        Raises ``ValueError`` for a seat out of range."""
        p = self._check_player(player)
        out = np.zeros(self.core.OBS_SIZE, dtype=np.int64)
        self.core.observe(self.state, p, out)
        return out

    def observation_tensor(self, player: int) -> np.ndarray:
        """:meth:`information_state` as ``float32 (TENSOR_SIZE,)`` for learning code."""
        p = self._check_player(player)
        out = np.zeros(self.core.TENSOR_SIZE, dtype=np.float32)
        self.core.observation_tensor(self.state, p, out)
        return out

    def information_state(self, player: int) -> np.ndarray:
        """What ``player`` knows now, ``int64 (INFO_SIZE,)`` (the core's summary: the
        observation plus what the seat remembers of public events): two states with the same
        information state for ``player`` give the same :meth:`determinize` results. Not
        perfect recall: different sequences of ``player``'s own actions can reach one summary
        (two orders of the same cards in one turn); the OpenSpiel adapter's
        ``information_state_string`` is (:mod:`experiments.interop.openspiel_game`). Raises
        ``ValueError`` for a seat out of range."""
        p = self._check_player(player)
        out = np.zeros(self.core.INFO_SIZE, dtype=np.int64)
        self.core.information_state(self.state, p, out)
        return out

    def information_state_string(self, player: int) -> str:
        """:meth:`information_state` as a stable string (``"<game> p<seat>: v,v,..."``): the
        summary, not perfect recall (see there). Raises ``ValueError`` for a bad seat."""
        arr = self.information_state(player)
        return f"{self.game_name} p{int(player)}: " + ",".join(str(int(x)) for x in arr)

    def observation(self, player: int) -> dict:
        """What ``player`` may see, as a readable dict (subclasses)."""
        raise NotImplementedError

    def determinize(self, player: int, seed: int) -> GameState:
        """A game in the same information state for ``player`` in which everything ``player``
        cannot know (other hands, deck order, face-down cards, secret choices) is resampled
        uniformly and the chance word reseeded from ``seed`` (``0 .. 2**64-1``). The result
        has no replayable history (``determinized`` is True). Raises ``ValueError`` for a bad
        seat or seed."""
        p = self._check_player(player)
        sd = chance.check_seed(seed)
        g = self.clone()
        self.core.determinize(self.state, p, chance.as_word(sd), g.state)
        g.determinized = True
        return g

    def outcome(self) -> dict:
        """The per-game statistics of :func:`agents.loop.play_batch` for this state, a dict
        ``{field: int}`` over the core's ``OUTCOME_FIELDS`` (without the per-seat fields of
        seats this game does not have) plus ``returns``."""
        out = np.zeros(len(self.core.OUTCOME_FIELDS), dtype=np.int64)
        self.core.outcome(self.state, out)
        n = self.n_players
        d = {k: int(v) for k, v in zip(self.core.OUTCOME_FIELDS, out, strict=True)
             if not absent_seat_field(k, n)}
        d["returns"] = self.returns()
        return d

    # ---- text ----------------------------------------------------------------------------
    def _action_text(self, action: int) -> str:  # pragma: no cover - per game
        raise NotImplementedError

    def action_to_string(self, action: int) -> str:
        """Readable text of ``action`` in the current state (e.g. ``"play 7h"``). Raises
        ``ValueError`` for an int outside the action table."""
        C = self.core
        if (isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer))
                or not 0 <= int(action) < C.NUM_DISTINCT_ACTIONS):
            raise ValueError(f"bad action {action!r}: not in the action table "
                             f"(0..{C.NUM_DISTINCT_ACTIONS - 1})")
        return self._action_text(int(action))

    def _safe_text(self, a: int) -> str:
        try:
            return self.action_to_string(a)
        except (ValueError, IndexError):
            return "?"

    def legal_action_texts(self) -> list[tuple[int, str]]:
        """``(action, text)`` of every legal action, ascending."""
        return [(a, self.action_to_string(a)) for a in self.legal_actions()]

    def _parse_action(self, text: str) -> int | None:
        """Game-specific text forms (subclasses); ``None`` when ``text`` is not one."""
        return None

    def string_to_action(self, text: str) -> int:
        """The legal action named by ``text``: its exact text from :meth:`action_to_string`
        (case and spacing ignored) or a game-specific short form. Raises ``ValueError``
        naming the text and listing the legal texts when it names no legal action."""
        if not isinstance(text, str) or not text.strip():
            legal = self.legal_action_texts()
            hint = f"expected e.g. {legal[0][1]!r}" if legal else "the game is over"
            raise ValueError(f"bad action text {text!r}: {hint}")
        want = " ".join(text.strip().lower().split())
        opts = {" ".join(t.lower().split()): a for a, t in self.legal_action_texts()}
        if want in opts:
            return opts[want]
        a = self._parse_action(text)
        if a is not None and a in self.legal_actions():
            return int(a)
        listed = "; ".join(sorted(opts)[:30])
        raise ValueError(f"no legal action {text!r} for seat {self.current_player()}: "
                         f"expected one of: {listed}" + (" ..." if len(opts) > 30 else ""))

    def table(self, viewer: int | None = None) -> str:  # pragma: no cover - per game
        """The table as text; ``viewer`` hides what that seat may not see (None: all)."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.table(None)

    def __repr__(self) -> str:
        return (f"<{self.game_name} n_players={self.n_players} seed={self.seed} "
                f"actions={len(self.history)} terminal={self.is_terminal()}>")

    # ---- records -------------------------------------------------------------------------
    def record(self) -> dict:
        """The game's JSON record (one format for every game): ``format``, ``game``,
        ``config``, ``seed``, ``actions`` (ints) and their ``action_texts``, and ``result``
        (returns, terminal). :func:`replay` rebuilds the game from it. Raises ``ValueError``
        for a determinized state (it has no history that replays)."""
        if self.determinized:
            raise ValueError("a determinized state has no replayable history")
        g = type(self)(self.config, self.seed)
        texts = []
        for a in self.history:
            texts.append(g.action_to_string(a))
            g.core.apply_action(g.state, a)
        return {"format": RECORD_FORMAT, "game": self.game_name,
                "config": self.config.to_dict(), "seed": self.seed,
                "actions": list(self.history), "action_texts": texts,
                "result": {"terminal": self.is_terminal(), "returns": self.returns()}}

    def to_json(self) -> str:
        """:meth:`record` as JSON text."""
        return json.dumps(self.record(), ensure_ascii=False)

    def save_record(self, path) -> None:
        """Write :meth:`record` as JSON to ``path``."""
        Path(path).write_text(json.dumps(self.record(), indent=1, ensure_ascii=False))


def absent_seat_field(name: str, n_players: int) -> bool:
    """True for a per-seat outcome field (``"place_3"``) of a seat this game does not have
    (per-card fields ``card_i`` are not per seat)."""
    stem, _, idx = name.rpartition("_")
    return bool(stem) and idx.isdigit() and stem != "card" and int(idx) >= n_players


def new_game(game: str, config=None, seed: int = 0) -> GameState:
    """A new game of ``game`` (``"river_rats"``, ``"lure"``, ``"rats"``, ``"recurring"``) with
    ``config`` (the game's config, a dict of its fields, or None) and seed ``seed``
    (``0 .. 2**64-1``; game ``g`` of ``agents.loop.play_batch(..., seed=s)`` has the seed in
    that frame's ``seed`` column, ``chance.word_to_seed(chance.game_seed(chance.as_word(s),
    g))``). Raises ``ValueError`` for a bad game, config or seed."""
    return game_class(game)(config, seed)


def replay(record: dict | str) -> GameState:
    """Rebuild a game from its record (:meth:`GameState.record`, a dict or JSON text) and
    return the final state. Raises ``ValueError`` naming the problem: not a record, an unknown
    game, a bad config, an illegal action (with its index), or a result that differs."""
    rec = record
    if isinstance(rec, str):
        try:
            rec = json.loads(rec)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not a game record: {exc}") from None
    if not isinstance(rec, dict) or rec.get("format") != RECORD_FORMAT:
        raise ValueError(f"not a boardlab game record: expected a JSON object with format "
                         f"{RECORD_FORMAT!r}")
    for key in ("game", "config", "seed", "actions"):
        if key not in rec:
            raise ValueError(f"game record without {key!r}: expected game, config, seed, actions")
    g = new_game(rec["game"], rec["config"], rec["seed"])
    if not isinstance(rec["actions"], list):
        raise ValueError("record 'actions' must be a list of ints")
    for i, a in enumerate(rec["actions"]):
        try:
            g.apply_action(a)
        except ValueError as exc:
            raise ValueError(f"record action #{i} ({a!r}): {exc}") from None
    res = rec.get("result")
    if isinstance(res, dict) and "returns" in res:
        if bool(res.get("terminal")) != g.is_terminal() or not np.allclose(
                g.returns(), res["returns"]):
            raise ValueError(f"replayed result {g.returns()} (terminal {g.is_terminal()}) "
                             f"differs from the record's {res['returns']}")
    return g


def load_record(path) -> GameState:
    """Read a JSON record from ``path`` and :func:`replay` it."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read record {path}: {exc.strerror}") from None
    return replay(text)
