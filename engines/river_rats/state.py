"""Step API of River Rats (door 1): :func:`new_game` returns a :class:`State` to step through.

The state is the flat ``int64`` array of :mod:`engines.river_rats.core`; every method calls the
compiled kernels there, so the step API and :func:`engines.river_rats.play_batch` share one
rules core. Game records (config, seed, actions) are JSON and replay to the same final state.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from engines.river_rats import core as C
from engines.river_rats import text as T
from engines.river_rats.config import SUIT_LETTERS, Config, as_config

__all__ = ["State", "new_game", "replay", "load_record", "RECORD_FORMAT"]

RECORD_FORMAT = "boardlab.river_rats.record/1"
"""Value of the ``format`` key of a JSON game record."""

_U64 = 2**64


def _check_seed(seed) -> int:
    if (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
            or not 0 <= int(seed) < _U64):
        raise ValueError(f"bad seed: {seed!r} (expected an integer 0 <= seed < 2**64)")
    return int(seed)


class State:
    """One River Rats game in progress (``../shared/rules/river_rats.md``).

    Build it with :func:`new_game`. ``array`` is the flat ``int64`` state (layout in
    :mod:`engines.river_rats.core`); ``history`` the actions applied so far. Methods follow the
    usual step API: :meth:`current_player`, :meth:`legal_actions`, :meth:`apply_action`,
    :meth:`is_terminal`, :meth:`returns`, :meth:`clone`, :meth:`observation`,
    :meth:`action_to_string`; ``str(state)`` is a readable table of every card.
    """

    def __init__(self, config: Config, seed: int, array: np.ndarray, history: list[int]):
        self.config = config
        self.seed = seed
        self.array = array
        self.history = history
        self._buf = np.empty(C.MAX_LEGAL, dtype=np.int64)

    # ---- the step API ----------------------------------------------------------------------
    def current_player(self) -> int:
        """Seat (0..n_players-1) to act; -1 once the game is over."""
        return -1 if self.is_terminal() else int(self.array[C.CUR])

    def legal_actions(self) -> list[int]:
        """Legal actions (ints, see :mod:`engines.river_rats.core`) of the player to act; empty
        once the game is over."""
        n = C.legal_actions(self.array, self._buf)
        return [int(x) for x in self._buf[:n]]

    def apply_action(self, action: int) -> None:
        """Apply a legal action. Raises ``ValueError`` naming the action and the legal ones if
        it is illegal (the state is then unchanged)."""
        try:
            a = int(action)
        except (TypeError, ValueError):
            raise ValueError(f"bad action {action!r}: expected an int from "
                             f"legal_actions()") from None
        legal = self.legal_actions()
        if a not in legal:
            if self.is_terminal():
                raise ValueError(f"illegal action {a}: the game is over")
            shown = ", ".join(f"{x} ({self.action_to_string(x)})" for x in legal)
            raise ValueError(f"illegal action {a}: seat {self.current_player()} may play one of "
                             f"{shown}")
        C.apply_action(self.array, a)
        self.history.append(a)

    def is_terminal(self) -> bool:
        """True once the players have won or lost."""
        return bool(self.array[C.STATUS] != C.RUNNING)

    def returns(self) -> list[float]:
        """Return of each seat: +1.0 all if won, -1.0 all if lost, 0.0 while running."""
        out = np.zeros(int(self.array[C.N_PLAYERS]))
        C.returns(self.array, out)
        return out.tolist()

    def clone(self) -> State:
        """Independent copy (the array, including its random generator, and the history)."""
        return State(self.config, self.seed, self.array.copy(), list(self.history))

    def observation_array(self, player: int) -> np.ndarray:
        """What ``player`` may see as the ``int64`` array of :func:`core.observe`
        (shape ``(OBS_SIZE,)``). Raises ``ValueError`` for a seat out of range."""
        self._check_player(player)
        out = np.empty(C.OBS_SIZE, dtype=np.int64)
        C.observe(self.array, int(player), out)
        return out

    def observation(self, player: int) -> dict:
        """What ``player`` may see ("Communication"), as a dict: card lists (ids) ``hand``,
        ``market``, ``collective`` (the face-down card only if this player played it, else
        ``-1``), ``rat_face_up``, ``jokers_up``, ``out``; and the scalars of
        :data:`core.OBS_SCALARS` (counts of hidden cards, debts, stake, prediction, ...).
        Raises ``ValueError`` for a seat out of range."""
        obs = self.observation_array(player)
        s = self.array
        loc = obs[:C.OBS_CARDS]
        coll = []
        for i in range(int(s[C.COLL])):
            c = int(s[C.COLL + 1 + i])
            visible = loc[c] in (C.LOC_COLLECTIVE, C.LOC_MY_FACEDOWN)
            coll.append(c if visible else -1)
        d = {
            "hand": T.pile(s, C.hand_base(int(player))),
            "market": T.pile(s, C.MARKET),
            "collective": coll,
            "revealed": T.pile(s, C.REVEAL),
            "rat_face_up": [int(c) for c in np.flatnonzero((loc == C.LOC_RAT_UP)
                                                           | (loc == C.LOC_ACTIVE_KING))],
            "jokers_up": T.pile(s, C.JUP),
            "out": T.pile(s, C.OUT),
        }
        for i, name in enumerate(C.OBS_SCALARS):
            d[name] = int(obs[C.OBS_CARDS + i])
        return d

    def action_to_string(self, action: int) -> str:
        """Readable text of ``action`` in this state (see :func:`text.action_to_string`)."""
        return T.action_to_string(self.array, action)

    def string_to_action(self, text: str) -> int:
        """The legal action whose text (:meth:`action_to_string`) equals ``text`` (case and
        surrounding spaces ignored). Raises ``ValueError`` listing the legal texts otherwise."""
        want = text.strip().lower()
        opts = {self.action_to_string(a).lower(): a for a in self.legal_actions()}
        if want in opts:
            return opts[want]
        raise ValueError(f"no legal action {text!r}: expected one of {sorted(opts)}")

    def table(self, viewer: int | None = None) -> str:
        """The table as text; ``viewer`` hides what that seat may not see (None shows all)."""
        return T.table_string(self.array, viewer)

    def __str__(self) -> str:
        return self.table(None)

    def __repr__(self) -> str:
        return (f"<river_rats.State seed={self.seed} round={self.round} "
                f"actions={len(self.history)} status={int(self.array[C.STATUS])}>")

    def _check_player(self, player) -> None:
        n = int(self.array[C.N_PLAYERS])
        if (isinstance(player, bool) or not isinstance(player, (int, np.integer))
                or not 0 <= player < n):
            raise ValueError(f"bad player {player!r}: expected a seat 0..{n - 1}")

    # ---- outcome -------------------------------------------------------------------------
    @property
    def won(self) -> bool:
        """True if the players defeated both Rats."""
        return bool(self.array[C.STATUS] == C.WON)

    @property
    def round(self) -> int:
        """Collective hands resolved so far."""
        return int(self.array[C.ROUND])

    def outcome(self) -> dict:
        """The per-game outcome the batch simulator records (same keys as its table's columns,
        :data:`engines.river_rats.batch.COLUMNS`)."""
        from engines.river_rats.batch import outcome_row

        return outcome_row(self.array)

    # ---- records -------------------------------------------------------------------------
    def record(self) -> dict:
        """JSON-able game record: format, config, seed and the actions (with their texts)."""
        texts = []
        st = new_game(self.config, self.seed)
        for a in self.history:
            texts.append(st.action_to_string(a))
            st.apply_action(a)
        return {"format": RECORD_FORMAT, "config": self.config.to_dict(), "seed": self.seed,
                "actions": list(self.history), "action_texts": texts,
                "result": {"won": self.won, "rounds": self.round,
                           "terminal": self.is_terminal()}}

    def save_record(self, path) -> None:
        """Write :meth:`record` as JSON to ``path``."""
        Path(path).write_text(json.dumps(self.record(), indent=1, ensure_ascii=False))


def new_game(config: Config | dict | None = None, seed: int = 0) -> State:
    """A new game of River Rats ("Setup" and the first "Round setup").

    ``config``: :class:`Config` (or its dict, or None for the defaults); ``seed``: integer in
    ``0..2**64-1``, the game's only source of chance (:func:`core.game_seed` gives the seed of
    game ``g`` of a batch). Raises ``ValueError`` for a bad config field or seed.
    """
    cfg = as_config(config)
    sd = _check_seed(seed)
    arr = np.zeros(C.STATE_SIZE, dtype=np.int64)
    C.init_state(cfg.to_array(), np.uint64(sd), arr)
    return State(cfg, sd, arr, [])


def replay(record: dict) -> State:
    """Replay a game record (:meth:`State.record`) and return the final state. Raises
    ``ValueError`` for a record of another format, bad config, or an illegal action (naming
    its position)."""
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise ValueError(f"not a River Rats game record: expected format {RECORD_FORMAT!r}")
    st = new_game(Config.from_dict(record["config"]), record["seed"])
    for i, a in enumerate(record["actions"]):
        try:
            st.apply_action(a)
        except ValueError as exc:
            raise ValueError(f"record action #{i} ({a}): {exc}") from None
    return st


def load_record(path) -> State:
    """Read a JSON game record from ``path`` and :func:`replay` it."""
    return replay(json.loads(Path(path).read_text()))


def rat_pair_text(arr: np.ndarray) -> str:
    """``"DS"``-style letters of the game's (first, second) Rat."""
    return SUIT_LETTERS[int(arr[C.FIRST_RAT])] + SUIT_LETTERS[int(arr[C.SECOND_RAT])]
