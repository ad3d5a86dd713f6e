"""Door 1 into ReCURRRing: the step API (:class:`RecurringGame`), action text, JSON records.

The class wraps the compiled kernels of :mod:`engines.recurring.core` (one rules core) and adds
legality checks (an illegal action raises ``ValueError`` and changes nothing), action text, a
readable ``__str__``, observations that hide other hands, and records that replay (rules:
``../shared/rules/recurring.md``).

Action text: ``"pass"``; ``"play 7-7-7"`` (three 7s), ``"play R"``. Parsing also accepts
``"777"``, ``"7 7 7"``, ``"RRR"`` and ``"3x7"`` (count x number), with or without ``play``.
"""

from __future__ import annotations

import json
import re

import numpy as np

from engines.recurring import core as C
from engines.recurring.config import RecurringConfig
from engines.splitmix import seed_word

__all__ = ["RecurringGame", "new_game", "action_to_string", "parse_play", "replay",
           "RECORD_VERSION"]

RECORD_VERSION = 1
_COUNT_X = re.compile(r"^(\d+)\s*[x*]\s*([1-9rR])$")


def _num_text(v: int) -> str:
    return "R" if v == C.R else str(v)


def action_to_string(action: int) -> str:
    """``"pass"`` or ``"play 7-7-7"``; raises ``ValueError`` for a code that is no action."""
    a = int(action)
    if a == C.PASS:
        return "pass"
    v, k = a & 15, a >> 4
    if not 1 <= v <= C.N_NUMBERS or k < 1:
        raise ValueError(f"action code {a} is not a play: expected 0 (pass) or 16 * count + "
                         f"number with number 1..10")
    return "play " + "-".join([_num_text(v)] * k)


def parse_play(text: str) -> int:
    """Action code of a text play (see the module docstring); raises ``ValueError`` naming the
    text when it is not a pass or k cards of one number."""
    t = text.strip()
    if t.lower().startswith("play"):
        t = t[4:].strip()
    if t.lower() == "pass":
        return C.PASS
    m = _COUNT_X.match(t)
    if m:
        k, sym = int(m.group(1)), m.group(2).upper()
        syms = [sym] * k
    else:
        syms = [s.upper() for s in re.sub(r"[\s,\-]+", "", t)]
    if not syms or any(s not in "123456789R" for s in syms) or len(set(syms)) != 1 \
            or len(syms) > 12:
        raise ValueError(f"bad play {text!r}: expected 'pass' or 1..12 cards of one number, "
                         f"e.g. '7-7-7', '777', 'R', '3x7'")
    v = C.R if syms[0] == "R" else int(syms[0])
    return 16 * len(syms) + v


class RecurringGame:
    """One game of ReCURRRing behind the step API (rules ``../shared/rules/recurring.md``).

    Create with :func:`new_game`. ``self.state`` is the ``int64`` state (layout in
    :mod:`engines.recurring.core`); ``self.history`` the applied action codes.
    """

    def __init__(self, config: RecurringConfig, seed: int, game_index: int, state: np.ndarray):
        self.config = config
        self.seed = int(seed)
        self.game_index = int(game_index)
        self.state = state
        self.history: list[int] = []
        self._buf = np.empty(C.MAX_LEGAL, dtype=np.int64)

    @property
    def n_players(self) -> int:
        """Number of seats (3..5)."""
        return int(self.state[C.N_PLAYERS])

    def current_player(self) -> int:
        """Seat to act, or -1 when the game is over."""
        return -1 if self.is_terminal() else int(self.state[C.CUR])

    def legal_actions(self) -> np.ndarray:
        """``int64`` array of legal action codes (``PASS`` = 0 first when allowed)."""
        n = C.legal_actions(self.state, self._buf)
        return self._buf[:n].copy()

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return bool(C.is_terminal(self.state))

    def returns(self) -> np.ndarray:
        """``float64`` (n_players,): points of each seat at the end, zeros before."""
        return C.returns(self.state)

    def hand(self, player: int) -> dict[str, int]:
        """Seat ``player``'s hand as ``{"1": count, ..., "R": count}`` (non-zero counts)."""
        return self._counts(C.HAND, player)

    def score_pile(self, player: int) -> dict[str, int]:
        """Seat ``player``'s face-up score pile as counts per number."""
        return self._counts(C.SCORE, player)

    def face_down(self, player: int) -> dict[str, int]:
        """Seat ``player``'s face-down cards as counts per number."""
        return self._counts(C.FACEDOWN, player)

    def table(self) -> tuple[str, int] | None:
        """The play on the table as ``(text, owner)``, or ``None`` when empty."""
        v = int(self.state[C.TABLE_NUM])
        if v == 0:
            return None
        text = "-".join([_num_text(v)] * int(self.state[C.TABLE_COUNT]))
        return text, int(self.state[C.TABLE_OWNER])

    def action_to_string(self, action: int) -> str:
        """Text of an action code (``"pass"``, ``"play 7-7-7"``)."""
        return action_to_string(action)

    def apply_action(self, action: int | str) -> None:
        """Apply a legal action (a code from :meth:`legal_actions` or its text).

        Raises ``ValueError`` (state unchanged) if the game is over, the text does not parse,
        or the action is not legal now (naming it and the legal ones).
        """
        if self.is_terminal():
            raise ValueError("the game is over: no action can be applied")
        a = parse_play(action) if isinstance(action, str) else int(action)
        legal = self.legal_actions()
        if not np.any(legal == a):
            try:
                what = action_to_string(a)
            except ValueError:
                what = f"code {a}, which is not a play"
            raise ValueError(
                f"illegal action {what!r} for seat {self.current_player()}: legal are "
                f"{[action_to_string(x) for x in legal]}")
        C.apply_action(self.state, a)
        self.history.append(a)

    def clone(self) -> RecurringGame:
        """An independent copy (state and history)."""
        g = RecurringGame(self.config, self.seed, self.game_index, self.state.copy())
        g.history = list(self.history)
        return g

    def observation_array(self, player: int) -> np.ndarray:
        """``int64`` state-layout array of what seat ``player`` sees (:func:`core.observe`)."""
        self._check_seat(player)
        return C.observe(self.state, player)

    def observation(self, player: int) -> dict:
        """What seat ``player`` may see, as a dict: own hand, every hand size, the table,
        passes, score and face-down piles (public), round and final-round flag."""
        self._check_seat(player)
        n = self.n_players
        return {
            "player": player,
            "round": int(self.state[C.ROUND]),
            "final_round": bool(self.state[C.FINAL]),
            "current_player": self.current_player(),
            "hand": self.hand(player),
            "hand_sizes": [int(self.state[C.HAND + C.BLOCK * q]) for q in range(n)],
            "table": self.table(),
            "passed": [bool(self.state[C.PASSED + q]) for q in range(n)],
            "score_piles": [self.score_pile(q) for q in range(n)],
            "face_down": [self.face_down(q) for q in range(n)],
        }

    def __str__(self) -> str:
        s = self.state
        n = self.n_players
        t = self.table()
        lines = [f"ReCURRRing, {n} players, round {int(s[C.ROUND])}"
                 + (" (final round)" if s[C.FINAL] else "")
                 + f", table: {t[0] + ' by seat ' + str(t[1]) if t else 'empty'}"]
        for q in range(n):
            tag = ">" if q == self.current_player() else " "
            hand = " ".join(f"{k}x{c}" for k, c in self.hand(q).items()) or "-"
            score = " ".join(f"{k}x{c}" for k, c in self.score_pile(q).items()) or "-"
            extra = " passed" if s[C.PASSED + q] else ""
            down = int(s[C.FACEDOWN + C.BLOCK * q])
            lines.append(f"{tag} seat {q}: hand [{hand}] score pile [{score}]"
                         + (f" face down {down}" if down else "") + extra)
        if self.is_terminal():
            lines.append(f"game over: points {self.returns().astype(int).tolist()}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"RecurringGame(n_players={self.n_players}, round={int(self.state[C.ROUND])}, "
                f"decisions={len(self.history)}, terminal={self.is_terminal()})")

    def to_record(self) -> dict:
        """JSON-ready record: config, seed, game index, actions as text, outcome when over."""
        rec = {"game": "recurring", "version": RECORD_VERSION, "config": self.config.to_dict(),
               "seed": self.seed, "game_index": self.game_index,
               "actions": [action_to_string(a) for a in self.history]}
        if self.is_terminal():
            rec["points"] = self.returns().astype(int).tolist()
            rec["rounds"] = int(self.state[C.ROUND])
        return rec

    def to_json(self) -> str:
        """:meth:`to_record` as a JSON string."""
        return json.dumps(self.to_record())

    def _counts(self, block: int, player: int) -> dict[str, int]:
        self._check_seat(player)
        base = block + C.BLOCK * int(player)
        return {_num_text(v): int(self.state[base + v]) for v in range(1, C.N_NUMBERS + 1)
                if self.state[base + v]}

    def _check_seat(self, player: int) -> None:
        if not 0 <= int(player) < self.n_players:
            raise ValueError(f"player {player!r} out of range: expected 0..{self.n_players - 1}")


def new_game(config: RecurringConfig | None = None, seed: int = 0,
             game_index: int = 0) -> RecurringGame:
    """A new game: the deal of game ``game_index`` of ``play_batch(config, ..., seed=seed)``.

    ``config`` defaults to :class:`RecurringConfig()` (4 players). Raises ``ValueError`` for a
    bad config type, negative seed or game index.
    """
    config = RecurringConfig() if config is None else config
    if not isinstance(config, RecurringConfig):
        raise ValueError(f"config {config!r} is not a RecurringConfig")
    word = seed_word(seed, game_index)
    return RecurringGame(config, seed, game_index, C.init_state(config.to_array(), np.int64(word)))


def replay(record: dict | str) -> RecurringGame:
    """Rebuild a game from a record (dict or JSON text). Raises ``ValueError`` if it is not a
    ReCURRRing record, an action is illegal (naming its index) or the outcome differs."""
    rec = json.loads(record) if isinstance(record, str) else record
    if rec.get("game") != "recurring":
        raise ValueError(f"record game {rec.get('game')!r}: expected 'recurring'")
    if rec.get("version") != RECORD_VERSION:
        raise ValueError(f"record version {rec.get('version')!r}: expected {RECORD_VERSION}")
    g = new_game(RecurringConfig.from_dict(rec["config"]), rec["seed"], rec.get("game_index", 0))
    for i, text in enumerate(rec["actions"]):
        try:
            g.apply_action(text)
        except ValueError as exc:
            raise ValueError(f"record action {i} ({text!r}): {exc}") from None
    if "points" in rec:
        if not g.is_terminal():
            raise ValueError("record says the game ended, but the replay is not over")
        if g.returns().astype(int).tolist() != rec["points"]:
            raise ValueError(f"replay points {g.returns().astype(int).tolist()} differ from the "
                             f"record's {rec['points']}")
    return g
