"""Door 1 into Rats: the step API (:class:`RatsGame`), action text and JSON game records.

The class wraps the compiled kernels of :mod:`engines.rats.core` (one rules core); it adds
legality checks (an illegal action raises ``ValueError`` and changes nothing), text forms of
actions, a readable ``__str__``, observations that hide other players' cards, and records that
replay (rules: ``../shared/rules/rats.md``).

Action text: a leader's actions read ``"lead 7s"``, ``"lead set 7s 7h X1"``,
``"lead run 5s 6s X1"``; a follower's ``"play 7h"`` (one card per decision).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import numpy as np

from engines import cards as cardtext
from engines.rats import core as C
from engines.rats.config import RatsConfig
from engines.splitmix import seed_word

__all__ = [
    "RatsGame",
    "new_game",
    "action_to_string",
    "mask_to_cards",
    "cards_to_mask",
    "replay",
    "RECORD_VERSION",
]

RECORD_VERSION = 1
_KIND_WORD = {C.KIND_SINGLE: "", C.KIND_SET: "set ", C.KIND_SEQ: "run "}


def mask_to_cards(mask: int) -> list[int]:
    """Card ids (ascending) of a 54-bit card mask."""
    m = int(mask) & C.CARD_BITS
    return [c for c in range(C.N_CARDS) if (m >> c) & 1]


def cards_to_mask(card_ids: Iterable[int]) -> int:
    """Card mask of card ids; raises ``ValueError`` on an id outside 0..53 or a duplicate."""
    m = 0
    for c in card_ids:
        c = int(c)
        if not 0 <= c < C.N_CARDS:
            raise ValueError(f"card id {c} out of range: expected 0..53")
        if (m >> c) & 1:
            raise ValueError(f"card {cardtext.format_card(c)} given twice")
        m |= 1 << c
    return m


def _cards_text(mask: int) -> str:
    ids = sorted(mask_to_cards(mask), key=lambda c: (c >= 52, c & 3, c >> 2, c))
    return cardtext.format(ids)


def action_to_string(action: int, leading: bool) -> str:
    """Text of an action: ``"lead set 7s 7h"`` when ``leading``, else ``"play 7h"``."""
    a = int(action)
    kind = a >> C.KIND_SHIFT
    if kind not in _KIND_WORD:
        raise ValueError(f"action {a} has kind {kind}: expected 0 (single), 1 (set) or 2 (run)")
    mask = a & C.CARD_BITS
    if leading:
        return f"lead {_KIND_WORD[kind]}{_cards_text(mask)}"
    return f"play {_cards_text(mask)}"


class RatsGame:
    """One game of Rats behind the step API (rules ``../shared/rules/rats.md``).

    Create with :func:`new_game`. The state is ``self.state``, an ``int64`` array of shape
    ``(core.STATE_SIZE,)`` laid out as in :mod:`engines.rats.core`; ``self.history`` lists the
    applied actions (``int``).
    """

    def __init__(self, config: RatsConfig, seed: int, game_index: int, state: np.ndarray):
        self.config = config
        self.seed = int(seed)
        self.game_index = int(game_index)
        self.state = state
        self.history: list[int] = []
        self._buf = np.empty(C.MAX_LEGAL, dtype=np.int64)

    # -- queries ------------------------------------------------------------------------
    @property
    def n_players(self) -> int:
        """Number of seats (2..5)."""
        return int(self.state[C.N_PLAYERS])

    def current_player(self) -> int:
        """Seat to act, or -1 when the game is over."""
        return -1 if self.is_terminal() else int(self.state[C.CUR])

    def is_leading(self) -> bool:
        """True when the current player leads a trick (their action is a whole lead)."""
        return int(self.state[C.PHASE]) == C.PHASE_LEAD

    def legal_actions(self) -> np.ndarray:
        """``int64`` array of the current player's legal actions (empty when over)."""
        n = C.legal_actions(self.state, self._buf)
        return self._buf[:n].copy()

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return bool(C.is_terminal(self.state))

    def returns(self) -> np.ndarray:
        """``float64`` (n_players,): win shares (1 or 1/k), zeros before the end."""
        return C.returns(self.state)

    def places(self) -> np.ndarray:
        """``int64`` (n_players,): final places, 1 = winner (zeros before the end)."""
        return self.state[C.PLACE:C.PLACE + self.n_players].copy()

    def hand(self, player: int) -> list[int]:
        """Card ids in seat ``player``'s hand (full information; see :meth:`observation`)."""
        self._check_seat(player)
        return mask_to_cards(self.state[C.HAND + player])

    def holding(self, player: int) -> list[int]:
        """Card ids of seat ``player``'s holding: captured this round plus set aside."""
        self._check_seat(player)
        return mask_to_cards(self.state[C.CAPT + player] | self.state[C.ASIDE + player])

    # -- actions ------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        """Text of ``action`` for the current phase (``"lead set 7s 7h"``, ``"play 7h"``)."""
        return action_to_string(action, self.is_leading())

    def parse_action(self, text: str) -> int:
        """The legal action named by ``text``.

        Accepts the forms of :meth:`action_to_string` and, without the verb, bare cards
        (``"7s 7h"``, ``"run 5s 6s X1"``). Raises ``ValueError`` if it names no legal action or
        several (a leader's ``"7s X1 X2"`` may be a set or a run: add ``set``/``run``).
        """
        words = text.strip().split()
        if not words:
            raise ValueError("empty action text: expected e.g. 'lead 7s', 'play 7h', 'set 7s 7h'")
        kinds = None
        w0 = words[0].lower()
        if w0 in ("lead", "play"):
            words = words[1:]
            w0 = words[0].lower() if words else ""
        if w0 in ("set", "run", "sequence", "single"):
            kinds = {"set": [C.KIND_SET], "run": [C.KIND_SEQ], "sequence": [C.KIND_SEQ],
                     "single": [C.KIND_SINGLE]}[w0]
            words = words[1:]
        mask = cards_to_mask(cardtext.parse(" ".join(words)).tolist())
        legal = self.legal_actions()
        if not self.is_leading():
            matches = [int(a) for a in legal if int(a) == mask]
            if len(mask_to_cards(mask)) != 1:
                raise ValueError(f"{text!r}: a follower plays one card per decision")
        else:
            matches = [int(a) for a in legal if (int(a) & C.CARD_BITS) == mask
                       and (kinds is None or (int(a) >> C.KIND_SHIFT) in kinds)]
        if not matches:
            raise ValueError(f"{text!r} is not a legal action of seat {self.current_player()} "
                             f"now ({len(legal)} legal actions; see legal_actions())")
        if len(matches) > 1:
            raise ValueError(f"{text!r} is ambiguous: say 'set' or 'run' "
                             f"({', '.join(self.action_to_string(a) for a in matches)})")
        return matches[0]

    def apply_action(self, action: int | str) -> None:
        """Apply a legal action (an ``int`` from :meth:`legal_actions` or its text).

        Raises ``ValueError`` (state unchanged) if the game is over or the action is illegal.
        """
        if self.is_terminal():
            raise ValueError("the game is over: no action can be applied")
        if isinstance(action, str):
            a = self.parse_action(action)
        else:
            a = int(action)
            legal = self.legal_actions()
            if not np.any(legal == a):
                try:
                    what = self.action_to_string(a)
                except ValueError:
                    what = str(a)
                raise ValueError(
                    f"illegal action {a} ({what}) for seat {self.current_player()} "
                    f"({'leading' if self.is_leading() else 'following'}; "
                    f"{len(legal)} legal actions, see legal_actions())")
        C.apply_action(self.state, a)
        self.history.append(a)

    def clone(self) -> RatsGame:
        """An independent copy (state and history)."""
        g = RatsGame(self.config, self.seed, self.game_index, self.state.copy())
        g.history = list(self.history)
        return g

    # -- views --------------------------------------------------------------------------
    def observation_array(self, player: int) -> np.ndarray:
        """``int64`` state-layout array of what seat ``player`` sees (:func:`core.observe`)."""
        self._check_seat(player)
        return C.observe(self.state, player)

    def observation(self, player: int) -> dict:
        """What seat ``player`` may see, as a dict: own hand, captures and holding; every seat's
        hand/capture/holding sizes, alive flags; the cards on the table; round and trick info.
        Other players' cards and the kitty are hidden."""
        o = self.observation_array(player)
        n = self.n_players
        return {
            "player": player,
            "round": int(o[C.ROUND]),
            "hand_size": int(o[C.HAND_SIZE]),
            "current_player": self.current_player(),
            "leader": int(o[C.LEADER]),
            "lead_kind": int(o[C.LEAD_KIND]),
            "lead_n": int(o[C.LEAD_N]),
            "hand": mask_to_cards(o[C.HAND + player]),
            "captured": mask_to_cards(o[C.CAPT + player]),
            "set_aside": mask_to_cards(o[C.ASIDE + player]),
            "table": [mask_to_cards(o[C.TABLE + q]) for q in range(n)],
            "alive": [bool(o[C.ALIVE + q]) for q in range(n)],
            "hand_sizes": [int(o[C.OBS_HAND_N + q]) for q in range(n)],
            "captured_sizes": [int(o[C.OBS_CAPT_N + q]) for q in range(n)],
            "set_aside_sizes": [int(o[C.OBS_ASIDE_N + q]) for q in range(n)],
            "kitty_size": int(o[C.OBS_KITTY_N]),
        }

    def __str__(self) -> str:
        s = self.state
        n = self.n_players
        lines = [f"Rats, {n} players, round {int(s[C.ROUND])} (hand size {int(s[C.HAND_SIZE])}), "
                 f"{int(s[C.TRICKS])} tricks, kitty {C.popcount(s[C.KITTY])} cards"]
        for q in range(n):
            tag = ">" if q == self.current_player() else " "
            if not s[C.ALIVE + q]:
                lines.append(f"{tag} seat {q}: out (round {int(s[C.ELIM_ROUND + q])})")
                continue
            table = _cards_text(s[C.TABLE + q])
            lines.append(
                f"{tag} seat {q}: hand [{_cards_text(s[C.HAND + q])}] captured "
                f"{C.popcount(s[C.CAPT + q])} set aside {C.popcount(s[C.ASIDE + q])}"
                + (f" | played {table}" if table else ""))
        if self.is_terminal():
            lines.append(f"game over: places {self.places().tolist()}, returns "
                         f"{self.returns().tolist()}" + (" (truncated)" if s[C.TRUNCATED] else ""))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"RatsGame(n_players={self.n_players}, round={int(self.state[C.ROUND])}, "
                f"decisions={len(self.history)}, terminal={self.is_terminal()})")

    # -- records ------------------------------------------------------------------------
    def to_record(self) -> dict:
        """JSON-ready record: config, seed, game index, the actions as text (in order), and the
        outcome when over. :func:`replay` rebuilds the game from it."""
        replayer = new_game(self.config, self.seed, self.game_index)
        actions = []
        for a in self.history:
            actions.append(replayer.action_to_string(a))
            C.apply_action(replayer.state, a)
        rec = {"game": "rats", "version": RECORD_VERSION, "config": self.config.to_dict(),
               "seed": self.seed, "game_index": self.game_index, "actions": actions}
        if self.is_terminal():
            rec["returns"] = self.returns().tolist()
            rec["places"] = self.places().tolist()
            rec["rounds"] = int(self.state[C.ROUND])
            rec["truncated"] = bool(self.state[C.TRUNCATED])
        return rec

    def to_json(self) -> str:
        """:meth:`to_record` as a JSON string."""
        return json.dumps(self.to_record(), ensure_ascii=False)

    def _check_seat(self, player: int) -> None:
        if not 0 <= int(player) < self.n_players:
            raise ValueError(f"player {player!r} out of range: expected 0..{self.n_players - 1}")


def new_game(config: RatsConfig | None = None, seed: int = 0, game_index: int = 0) -> RatsGame:
    """A new game: the deal of game ``game_index`` of ``play_batch(config, ..., seed=seed)``.

    ``config`` defaults to :class:`RatsConfig()` (4 players). Raises ``ValueError`` for a bad
    config type, negative seed or game index.
    """
    config = RatsConfig() if config is None else config
    if not isinstance(config, RatsConfig):
        raise ValueError(f"config {config!r} is not a RatsConfig")
    word = seed_word(seed, game_index)
    st = C.init_state(config.to_array(), np.int64(word))
    return RatsGame(config, seed, game_index, st)


def replay(record: dict | str) -> RatsGame:
    """Rebuild a game from a record (:meth:`RatsGame.to_record`, dict or JSON text).

    Raises ``ValueError`` naming the problem if the record is not a Rats record, an action does
    not parse or is illegal (with its index), or the replayed outcome differs from the recorded
    one.
    """
    rec = json.loads(record) if isinstance(record, str) else record
    if rec.get("game") != "rats":
        raise ValueError(f"record game {rec.get('game')!r}: expected 'rats'")
    if rec.get("version") != RECORD_VERSION:
        raise ValueError(f"record version {rec.get('version')!r}: expected {RECORD_VERSION}")
    g = new_game(RatsConfig.from_dict(rec["config"]), rec["seed"], rec.get("game_index", 0))
    for i, text in enumerate(rec["actions"]):
        try:
            g.apply_action(text)
        except ValueError as exc:
            raise ValueError(f"record action {i} ({text!r}): {exc}") from None
    if "returns" in rec:
        if not g.is_terminal():
            raise ValueError("record says the game ended, but the replay is not over")
        if not np.allclose(g.returns(), rec["returns"]) or g.places().tolist() != rec["places"]:
            raise ValueError(f"replay outcome {g.returns().tolist()} / places "
                             f"{g.places().tolist()} differs from the record's "
                             f"{rec['returns']} / {rec['places']}")
    return g
