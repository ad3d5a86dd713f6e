"""Door 1 into Kuhn poker: the step API (:class:`KuhnPokerState`, a
:class:`engines.protocol.GameState`) and action text (rules: ``docs/rules/kuhn_poker.md``;
kernels: :mod:`engines.kuhn_poker.core`). Action text: ``"pass"`` and ``"bet"`` (``"check"``,
``"fold"`` and ``"call"`` are accepted too)."""

from __future__ import annotations

from engines.protocol import chance
from engines.kuhn_poker import core
from engines.kuhn_poker.config import KuhnPokerConfig
from engines.protocol import GameState

__all__ = ["KuhnPokerState", "STATE_CLASS", "new_game"]

_ALIASES = {"pass": core.PASS, "check": core.PASS, "fold": core.PASS, "p": core.PASS,
            "bet": core.BET, "call": core.BET, "b": core.BET}


class KuhnPokerState(GameState):
    """One game of Kuhn poker behind the step API. Besides the protocol: :meth:`card`; a game
    with a given deal (exact analysis) is :meth:`engines.protocol.GameState.from_deal`."""

    game_name = "kuhn_poker"
    config_class = KuhnPokerConfig
    core = core
    rules_summary = """Kuhn poker (2 players): a deck of three cards, J < Q < K. Each player antes 1
chip and gets one card; player 0 acts first. A player may pass (check, or fold facing a bet)
or bet (bet 1 chip, or call a bet). pass-pass: showdown, the higher card wins 1. bet-pass or
pass-bet-pass: the bettor wins 1. bet-bet or pass-bet-bet: showdown, the higher card wins 2.
Moves: "pass" (or check, fold), "bet" (or call)."""

    def card(self, player: int) -> str:
        """The card of ``player`` (``"J"``, ``"Q"`` or ``"K"``): the whole deal is shown here;
        a player's view is :meth:`table` or :meth:`observation`."""
        return core.CARD_NAMES[int(self.state[core.CARD + self._check_player(player)])]

    def _action_text(self, action: int) -> str:
        return "bet" if int(action) == core.BET else "pass"

    def _parse_action(self, text: str) -> int | None:
        return _ALIASES.get(text.strip().lower())

    def observation(self, player: int) -> dict:
        """What ``player`` sees: its card, the betting so far, the opponent's card once shown."""
        p = self._check_player(player)
        s = self.state
        hist = [self._action_text(int(a)) for a in s[core.HIST:core.HIST + int(s[core.HLEN])]]
        return {"player": p, "card": core.CARD_NAMES[int(s[core.CARD + p])],
                "opponent_card": (core.CARD_NAMES[int(s[core.CARD + 1 - p])] if s[core.SHOW]
                                  else None),
                "betting": hist, "to_act": int(s[core.CUR])}

    def table(self, viewer: int | None = None) -> str:
        """The table as ``viewer`` sees it (None: both cards shown)."""
        s = self.state
        cards = []
        for p in range(2):
            shown = viewer is None or viewer == p or s[core.SHOW]
            cards.append(core.CARD_NAMES[int(s[core.CARD + p])] if shown else "?")
        hist = " ".join(self._action_text(int(a))
                        for a in s[core.HIST:core.HIST + int(s[core.HLEN])])
        line = f"Kuhn poker: player 0 {cards[0]}, player 1 {cards[1]}; betting: {hist or '-'}"
        if self.is_terminal():
            r = self.returns()
            line += f"; over: player 0 {r[0]:+.0f}, player 1 {r[1]:+.0f}"
        else:
            line += f"; player {self.current_player()} to act"
        return line


STATE_CLASS = KuhnPokerState


def new_game(config=None, seed: int = 0) -> KuhnPokerState:
    """A new Kuhn poker game (``config``: :class:`KuhnPokerConfig`, dict or None; ``seed`` in
    ``0 .. 2**64-1``). Raises ``ValueError`` for a bad config or seed."""
    chance.check_seed(seed)
    return KuhnPokerState(config, seed)
