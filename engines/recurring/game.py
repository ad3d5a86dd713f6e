"""Door 1 into ReCURRRing: the step API (:class:`RecurringState`, a
:class:`engines.protocol.GameState`), action text and scenario states (rules:
``docs/rules/recurring.md``; kernels: :mod:`engines.recurring.core`).

Action text: ``"pass"``; ``"play 7-7-7"`` (three 7s), ``"play R"``. Parsing also accepts
``"777"``, ``"7 7 7"``, ``"RRR"`` and ``"3x7"`` (count x number), with or without ``play``.
Every move is one decision, so :meth:`RecurringState.parse_move` returns one action.
"""

from __future__ import annotations

import re

from engines.protocol import GameState
from engines.recurring import core
from engines.recurring.config import RecurringConfig

__all__ = ["RecurringState", "STATE_CLASS", "new_game", "action_text", "parse_play",
           "finish_frame"]

_COUNT_X = re.compile(r"^(\d+)\s*[x*]\s*([1-9rR])$")


def _num_text(v: int) -> str:
    return "R" if v == core.R else str(v)


def _is_play(a: int) -> bool:
    v, k = a & 15, a >> 4
    return 1 <= v <= core.N_NUMBERS and 1 <= k <= core.MAX_COUNT


def action_text(action: int) -> str:
    """Text of an action id: ``"pass"`` (0), ``"play 7-7-7"`` (``16 * 3 + 7``), ``"play R"``;
    an unused id of the table gives ``"unused id <a>"``. Raises ``ValueError`` for an int
    outside ``0 .. NUM_DISTINCT_ACTIONS - 1``."""
    a = int(action)
    if not 0 <= a < core.NUM_DISTINCT_ACTIONS:
        raise ValueError(f"bad action {action!r}: not in the action table "
                         f"(0..{core.NUM_DISTINCT_ACTIONS - 1})")
    if a == core.PASS:
        return "pass"
    if not _is_play(a):
        return f"unused id {a}"
    return "play " + "-".join([_num_text(a & 15)] * (a >> 4))


def parse_play(text: str) -> int:
    """Action id of a text play: ``"pass"``, ``"play 7-7-7"``, ``"777"``, ``"7 7 7"``,
    ``"RRR"``, ``"3x7"`` (``play`` optional, case ignored). Raises ``ValueError`` naming the
    text when it is not a pass or 1..12 cards of one number."""
    if not isinstance(text, str):
        raise ValueError(f"bad play {text!r}: expected text such as 'pass', '7-7-7', '3x7'")
    t = text.strip()
    if t.lower().startswith("play"):
        t = t[4:].strip()
    if t.lower() == "pass":
        return core.PASS
    m = _COUNT_X.match(t)
    if m:
        syms = [m.group(2).upper()] * int(m.group(1))
    else:
        syms = [s.upper() for s in re.sub(r"[\s,\-]+", "", t)]
    if not syms or any(s not in "123456789R" for s in syms) or len(set(syms)) != 1 \
            or len(syms) > core.MAX_COUNT:
        raise ValueError(f"bad play {text!r}: expected 'pass' or 1..12 cards of one number, "
                         f"e.g. '7-7-7', '777', 'R', '3x7'")
    v = core.R if syms[0] == "R" else int(syms[0])
    return 16 * len(syms) + v


class RecurringState(GameState):
    """One game of ReCURRRing behind the step API (:class:`engines.protocol.GameState`).

    Build it with :func:`new_game` (a dealt game) or :meth:`from_hands` (a scenario). Besides
    the protocol methods: :meth:`hand`, :meth:`score_pile`, :meth:`face_down`,
    :meth:`known_cards` (counts per number as ``{"7": 2, "R": 1}``), :meth:`table_play` and
    :meth:`points`.
    """

    game_name = "recurring"
    config_class = RecurringConfig
    core = core
    rules_summary = """ReCURRRing (3-5 players): a climbing game with 57 cards, number cards 1-9 (v
copies of v) and 12 R cards; fewer cards with 3 or 4 players. All cards are dealt.
The holder of the 1 starts. The start player of every round opens with exactly one card.
Then, clockwise, each player plays a stronger play or passes; a pass is final for the round.
A play is cards of one number: the same count as the table or one more. More cards beat
fewer; with equal counts the smaller number wins; R is the weakest number.
Whoever plays takes the play it replaces into their HAND. When all others have passed, the
owner of the table's play banks it face up in their score pile and opens the next round.
Players with empty hands are skipped. Whoever plays their last card puts the replaced play
face down instead (it never scores) and the round becomes the final round; at its end the
game is over. Score: 1 point per face-up card in your score pile; R cards count only for a
player who emptied their hand. (A match is 3 games; the engine plays one game.)
Moves: "pass", "play 7-7" (or "77", "2x7"), "play R"."""

    def __init__(self, config=None, seed: int = 0):
        super().__init__(config, seed)
        self.scenario = False

    # ---- scenarios -----------------------------------------------------------------------
    @classmethod
    def from_hands(cls, hands, start: int = 0, config=None, **options) -> RecurringState:
        """A scenario state at the start of round 1 with the given hands (rules tests and
        worked examples): ``hands`` one dict ``{number: count}`` per seat (10 = R), ``start``
        the start player, ``config`` a :class:`RecurringConfig` (or ``options`` for one with
        ``n_players = len(hands)``). The cards in play are exactly those of the hands. Such a
        state has no record. Raises ``ValueError`` for bad hands, start player or config."""
        if config is None:
            config = RecurringConfig(n_players=len(hands), **options)
        g = cls(config, 0)
        g.state[:] = core.state_from_hands(g.config.to_array(), hands, start)
        g.scenario = True
        return g

    def record(self) -> dict:
        """The game's JSON record (:meth:`engines.protocol.GameState.record`). Raises
        ``ValueError`` for a scenario (:meth:`from_hands`) or determinized state."""
        if getattr(self, "scenario", False):
            raise ValueError("a scenario state (from_hands) has no replayable record")
        return super().record()

    # ---- readable views ------------------------------------------------------------------
    def _counts(self, block: int, player: int) -> dict[str, int]:
        p = self._check_player(player)
        base = block + core.BLOCK * p
        return {_num_text(v): int(self.state[base + v]) for v in range(1, core.N_NUMBERS + 1)
                if self.state[base + v]}

    def hand(self, player: int) -> dict[str, int]:
        """Seat ``player``'s hand as ``{"1": count, ..., "R": count}`` (non-zero counts).
        ``ValueError`` for a seat out of range."""
        return self._counts(core.HAND, player)

    def score_pile(self, player: int) -> dict[str, int]:
        """Seat ``player``'s face-up score pile as counts per number."""
        return self._counts(core.SCORE, player)

    def face_down(self, player: int) -> dict[str, int]:
        """Seat ``player``'s face-down cards as counts per number (public: they were on the
        table)."""
        return self._counts(core.FACEDOWN, player)

    def known_cards(self, player: int) -> dict[str, int]:
        """The cards every seat knows to be in ``player``'s hand (taken back from the table and
        not played since; the first start player's 1), as counts per number."""
        return self._counts(core.KNOWN, player)

    def table_play(self) -> tuple[str, int] | None:
        """The play on the table as ``(text, owner)`` (``("7-7", 2)``), or ``None`` when the
        table is empty."""
        v = int(self.state[core.TABLE_NUM])
        if v == 0:
            return None
        return "-".join([_num_text(v)] * int(self.state[core.TABLE_COUNT])), int(
            self.state[core.TABLE_OWNER])

    def points(self) -> list[int]:
        """Each seat's points so far from its score pile (rules "Scoring"; R cards only for
        a player who emptied their hand)."""
        return [int(core.points_of(self.state, p)) for p in range(self.n_players)]

    def _action_text(self, action: int) -> str:
        return action_text(action)

    def _parse_action(self, text: str) -> int | None:
        try:
            return parse_play(text)
        except ValueError:
            return None

    def parse_move(self, text: str) -> list[int]:
        """The actions of the move named by ``text`` (one decision in ReCURRRing: a one-element
        list), e.g. ``"pass"``, ``"777"``, ``"play R-R"``. Raises a one-line ``ValueError``
        naming the text when it is no legal move now; nothing changes."""
        try:
            a = self.string_to_action(text)
        except ValueError as exc:
            raise ValueError(f"bad move {text!r}: {exc}") from None
        return [a]

    def observation(self, player: int) -> dict:
        """What seat ``player`` may see (and remembers), as a dict: ``player``, ``round``,
        ``final_round``, ``current_player``, ``hand`` (own), ``hand_sizes``, ``known``
        (cards known to be in each hand), ``table`` (:meth:`table_play`), ``passed``,
        ``emptied``, ``score_piles``, ``face_down``, ``terminal``. ``ValueError`` for a seat
        out of range."""
        p = self._check_player(player)
        n = self.n_players
        s = self.state
        return {
            "player": p,
            "round": int(s[core.ROUND]),
            "final_round": bool(s[core.FINAL]),
            "current_player": self.current_player(),
            "hand": self.hand(p),
            "hand_sizes": [int(s[core.HAND + core.BLOCK * q]) for q in range(n)],
            "known": [self.known_cards(q) for q in range(n)],
            "table": self.table_play(),
            "passed": [bool(s[core.PASSED + q]) for q in range(n)],
            "emptied": [bool(s[core.EMPTIED + q]) for q in range(n)],
            "score_piles": [self.score_pile(q) for q in range(n)],
            "face_down": [self.face_down(q) for q in range(n)],
            "terminal": self.is_terminal(),
        }

    def table(self, viewer: int | None = None) -> str:
        """The table as text: round, the play on the table, then one line per seat (hand,
        score pile, face-down count, passed). ``viewer`` (a seat) sees only its own hand and,
        of the others, the hand size and the cards known to be there; ``None`` shows all.
        ``ValueError`` for a bad viewer."""
        if viewer is not None:
            viewer = self._check_player(viewer)
        s = self.state
        n = self.n_players
        t = self.table_play()
        lines = [f"ReCURRRing, {n} players, round {int(s[core.ROUND])}"
                 + (" (final round)" if s[core.FINAL] else "")
                 + f", table: {t[0] + ' by seat ' + str(t[1]) if t else 'empty'}"]
        cur = self.current_player()

        def fmt(d):
            return " ".join(f"{k}x{c}" for k, c in d.items()) or "-"

        for q in range(n):
            tag = ">" if q == cur else " "
            size = int(s[core.HAND + core.BLOCK * q])
            if viewer is None or viewer == q:
                hand = f"hand [{fmt(self.hand(q))}]"
            else:
                known = self.known_cards(q)
                hand = f"hand {size} cards" + (f" (known {fmt(known)})" if known else "")
            down = int(s[core.FACEDOWN + core.BLOCK * q])
            lines.append(f"{tag} seat {q}{' (you)' if viewer == q else ''}: {hand} score pile "
                         f"[{fmt(self.score_pile(q))}]"
                         + (f" face down [{fmt(self.face_down(q))}]" if down else "")
                         + (" passed" if s[core.PASSED + q] else "")
                         + (" emptied" if s[core.EMPTIED + q] else ""))
        if self.is_terminal():
            lines.append(f"game over{' (truncated)' if s[core.TRUNCATED] else ''}: points "
                         f"{[int(x) for x in self.returns()]}")
        return "\n".join(lines)

    def events(self, before, action: int, who) -> list[str]:
        """Lines on who won a round (the others passed) and where its cards went; ``boardlab
        play`` prints them (:meth:`engines.protocol.GameState.events`)."""
        s = self.state
        lines = []
        if int(s[core.ROUNDS_DONE]) != int(before[core.ROUNDS_DONE]):
            o, tv, tk = (int(before[core.TABLE_OWNER]), int(before[core.TABLE_NUM]),
                         int(before[core.TABLE_COUNT]))
            face = (int(s[core.FACEDOWN + core.BLOCK * o])
                    > int(before[core.FACEDOWN + core.BLOCK * o]))
            text = "-".join(["R" if tv == core.R else str(tv)] * tk)
            lines.append(f"  -> round {int(before[core.ROUND])}: the others passed; {who(o)} "
                         f"takes {text} {'face down' if face else 'to the score pile'}")
        return lines


STATE_CLASS = RecurringState


def new_game(config=None, seed: int = 0) -> RecurringState:
    """A new dealt game: ``config`` a :class:`RecurringConfig` (or a dict of its fields, or
    None for the 4-player default), ``seed`` in ``0 .. 2**64-1`` (game ``g`` of
    ``agents.loop.play_batch(config, ..., seed=s)`` has seed ``chance.game_seed(s, g)``, the
    frame's ``seed`` column). Raises ``ValueError`` for a bad config or seed."""
    return RecurringState(config, seed)


def finish_frame(df, n_players: int):
    """The ReCURRRing columns of :func:`agents.loop.play_batch`'s frame: drops
    ``points_p``/``emptied_p`` of seats the game does not have and makes ``emptied_p`` and
    ``truncated`` booleans."""
    drop = [f"{c}_{p}" for c in ("points", "emptied") for p in range(n_players, core.MAX_PLAYERS)]
    df = df.drop(columns=[c for c in drop if c in df.columns])
    for c in [f"emptied_{p}" for p in range(n_players)] + ["truncated"]:
        if c in df.columns:
            df[c] = df[c].astype(bool)
    return df
