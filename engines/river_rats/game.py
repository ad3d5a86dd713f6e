"""Step API of River Rats (door 1): :class:`RiverRatsState`, one game to step through.

The state is the flat ``int64`` array of :mod:`engines.river_rats.core`; every method calls the
compiled kernels there (the protocol of :mod:`engines.protocol`), so the step API and the
compiled game loop of :mod:`agents.loop` share one rules core. Records (config, seed, actions)
are the one JSON format of :func:`engines.protocol.replay`.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from engines import cards
from engines.protocol import GameState
from engines.river_rats import core
from engines.river_rats import text as table_text
from engines.river_rats.config import SUIT_LETTERS, RiverRatsConfig

__all__ = ["RiverRatsState", "new_game", "STATE_CLASS", "RULES_SUMMARY", "finish_frame"]

RULES_SUMMARY = """\
River Rats (1-4 players, cooperative): beat two River Rats at poker.
- Each Rat has a hand: its King, 5 face-up and 2+ face-down cards. Each round the players
  build one 5-card collective hand together; it must beat the Rat's best 5 (ties go to the Rat).
- Your turn: refill your hand to 3 cards (market or deck, one at a time), play one card into
  the collective hand, then optionally its suit action, or your character's power if the card
  has your suit:  ♣ push a hand card to the market (power: up to 2) · ♦ swap a collective card
  with a hand card (power: with a market card) · ♥ add the top deck card to the debt at stake
  (power: turn a Rat card face up first) · ♠ discard from hand or market (power: any number).
  Or play an earned joker (wild; one per collective hand).
- Resolution at 5 cards: the debt at stake (the prediction card + ♥ additions) goes to the
  loser. A Rat with 5 debt is defeated (its defeat bonus helps you); defeat both to win.
  Players with 5 debt lose. Make the predicted category (A straight flush, K quads, Q-10 full
  house, 9-6 flush, 5-2 straight) to earn a joker (at most 2).
- Rat abilities: ♥ +1 debt when it wins, ♠ first collective card face down, ♣ 2 more face-down
  cards, ♦ starts the collective hand with a deck card.
Type an action's number or its text (e.g. "draw 7h", "deck", "play Qs", "push 7h", "none")."""


class RiverRatsState(GameState):
    """One River Rats game in progress (``docs/rules/river_rats.md``); see
    :class:`engines.protocol.GameState` for the methods. Actions are ``kind * 64 + arg``
    (:mod:`engines.river_rats.core`); ``str(state)`` shows every card, :meth:`table` ``(seat)``
    what that seat sees."""

    game_name = "river_rats"
    config_class = RiverRatsConfig
    core = core
    rules_summary = RULES_SUMMARY

    def _action_text(self, action: int) -> str:
        return table_text.action_to_string(self.state, action)

    def table(self, viewer: int | None = None) -> str:
        """The table as text; ``viewer`` (a seat) hides what it may not see, None shows all.
        Raises ``ValueError`` for a bad seat."""
        if viewer is not None:
            self._check_player(viewer)
        return table_text.table_string(self.state, viewer)

    def observation(self, player: int) -> dict:
        """What ``player`` may see ("Communication"), as a dict: card lists (ids) ``hand``,
        ``market``, ``collective`` (the face-down card only if this player played it, else
        ``-1``), ``revealed``, ``rat_face_up``, ``jokers_up``, ``out``; and the scalars of
        :data:`core.OBS_SCALARS` (counts of hidden cards, debts, stake, prediction, ...).
        Raises ``ValueError`` for a seat out of range."""
        obs = self.observation_array(player)
        s = self.state
        loc = obs[:core.OBS_CARDS]
        coll = []
        for i in range(int(s[core.COLL])):
            c = int(s[core.COLL + 1 + i])
            visible = loc[c] in (core.LOC_COLLECTIVE, core.LOC_MY_FACEDOWN)
            coll.append(c if visible else -1)
        d = {
            "hand": table_text.pile(s, core.hand_base(int(player))),
            "market": table_text.pile(s, core.MARKET),
            "collective": coll,
            "revealed": table_text.pile(s, core.REVEAL),
            "rat_face_up": [int(c) for c in np.flatnonzero((loc == core.LOC_RAT_UP)
                                                           | (loc == core.LOC_ACTIVE_KING))],
            "jokers_up": table_text.pile(s, core.JUP),
            "out": table_text.pile(s, core.OUT),
        }
        for i, name in enumerate(core.OBS_SCALARS):
            d[name] = int(obs[core.OBS_CARDS + i])
        return d

    _KIND_WORDS = (
        (("draw", "take", "market"), core.K_DRAW_MARKET),
        (("push", "market"), core.K_PUSH),
        (("swap", "out"), core.K_SWAP_OUT),
        (("swap", "in"), core.K_SWAP_IN),
        (("discard",), core.K_DISCARD),
    )

    def _parse_action(self, text: str) -> int | None:
        """Short forms: ``"deck"`` / ``"draw deck"``, ``"none"``/``"no action"``, ``"stop"``,
        ``"joker"``, ``"stake"``, ``"reveal"``, ``"pass"``, and a card with an optional verb
        (``"7h"``, ``"draw 7h"``, ``"play 7h"``, ``"push 7h"``, ``"swap 7h"``,
        ``"discard 7h"``): the legal action with that card, if the words pick exactly one."""
        words = re.sub(r"[:,]", " ", text.strip().lower()).split()
        legal = self.legal_actions()
        kinds = {a >> 6 for a in legal}
        single = {"deck": core.K_DRAW_DECK, "none": core.K_NONE, "stop": core.K_STOP,
                  "stake": None, "reveal": None, "pass": core.K_STUCK, "joker": None,
                  "keep": core.K_ESTOP}
        if words == ["no", "action"]:
            words = ["none"]
        if len(words) == 2 and words[0] == "draw" and words[1] in ("deck", "top"):
            words = ["deck"]
        if len(words) == 1 and words[0] in single:
            w = words[0]
            cands = [a for a in legal if (a >> 6) == single[w]] if single[w] is not None else []
            if w == "stake":
                cands = [a for a in legal if (a >> 6) in (core.K_STAKE, core.K_PSTAKE)]
            elif w == "reveal":
                cands = [a for a in legal if (a >> 6) in (core.K_PREVEAL, core.K_EREVEAL)]
            elif w == "joker":
                cands = [a for a in legal if (a >> 6) in (core.K_JOKER, core.K_JREMOVE)]
            return cands[0] if len(cands) == 1 else None
        card = None
        rest = []
        for w in words:
            try:
                c = cards.parse_card(w)
            except ValueError:
                rest.append(w)
                continue
            card = c
        if card is None:
            return None
        verbs = set(rest)
        cands = [a for a in legal if (a & 63) == card and (a >> 6) not in (core.K_JREMOVE,)]
        if verbs:
            def fits(a):
                t = self.action_to_string(a).lower()
                return all(v in t for v in verbs)
            cands = [a for a in cands if fits(a)]
        del kinds
        return cands[0] if len(cands) == 1 else None

    def outcome(self) -> dict:
        """The per-game statistics (``core.OUTCOME_FIELDS``; ``won`` as bool, the Rats as
        suit letters) and ``returns``."""
        d = super().outcome()
        d["won"] = bool(d["won"])
        d["rat1"] = SUIT_LETTERS[d["rat1"]]
        d["rat2"] = SUIT_LETTERS[d["rat2"]]
        return d

    def news(self, viewer: int) -> list[str]:
        """Lines to show a player after an action: the last resolution, once per round."""
        prev = getattr(self, "_news_round", 0)
        self._news_round = self.round
        if self.round > prev and self.state[core.LAST_WINNER] >= 0:
            return [table_text.last_resolution_string(self.state)]
        return []

    @property
    def won(self) -> bool:
        """True if the players defeated both Rats."""
        return bool(self.state[core.STATUS] == core.WON)

    @property
    def round(self) -> int:
        """Collective hands resolved so far."""
        return int(self.state[core.ROUND])

    def rat_pair(self) -> str:
        """``"DS"``-style letters of the game's (first, second) Rat (full information)."""
        return SUIT_LETTERS[int(self.state[core.FIRST_RAT])] + SUIT_LETTERS[
            int(self.state[core.SECOND_RAT])]


STATE_CLASS = RiverRatsState


def new_game(config: RiverRatsConfig | dict | None = None, seed: int = 0) -> RiverRatsState:
    """A new game of River Rats ("Setup" and the first "Round setup"). ``config``:
    :class:`RiverRatsConfig` (or its dict, or None for the defaults); ``seed``: ``0 .. 2**64-1``,
    the
    game's only source of chance (game ``g`` of ``agents.loop.play_batch(..., seed=s)`` has seed
    ``engines.protocol.chance.game_seed(s, g)``). Raises ``ValueError`` for a bad config or seed."""
    return RiverRatsState(config, seed)


def finish_frame(df: pd.DataFrame, n_players: int) -> pd.DataFrame:
    """Readable columns for :func:`agents.loop.play_batch`: ``won`` as bool, ``rat1``/``rat2``
    as suit letters and ``rat_pair`` (e.g. ``"DS"``)."""
    df["won"] = df["won"].astype(bool)
    letters = np.array(list(SUIT_LETTERS), dtype=object)
    pairs = np.array([a + b for a in SUIT_LETTERS for b in SUIT_LETTERS], dtype=object)
    r1 = df["rat1"].to_numpy()
    r2 = df["rat2"].to_numpy()
    df["rat1"] = letters[r1]
    df["rat2"] = letters[r2]
    df["rat_pair"] = pairs[4 * r1 + r2]
    return df
