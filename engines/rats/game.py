"""Door 1 into Rats: the step API :class:`RatsState` (rules: ``docs/rules/rats.md``).

:class:`RatsState` is the game's subclass of :class:`engines.protocol.GameState` (legality
checks, clone, determinize, records and replay come from there) over the compiled core
:mod:`engines.rats.core`. This module adds the action texts, the readable table, the
observation dict and the text forms of moves.

Action texts (one per decision, ids in :mod:`engines.rats.core`): a leader declares
``"lead single"``, ``"lead set"`` or ``"lead run"``, adds cards in ascending id order
(``"add 7s"``) and ends with ``"finish lead"``, even when no card could be added (only a
single and a lead that empties the hand complete by themselves); a follower plays ``"play
7h"``, one card per decision. Short forms (:meth:`RatsState.
string_to_action`): ``"set"``, ``"run"``, ``"single"``, a bare card ``"7h"``, ``"finish"``.
Whole moves (:meth:`RatsState.parse_move`): ``"set 7s 7h X1"``, ``"lead run 5s 6s X1"``,
``"7s"`` (a single), ``"play 7h 8h"``.
"""

from __future__ import annotations

from engines import cards as cardtext
from engines.protocol import GameState
from engines.rats import core
from engines.rats.config import RatsConfig

__all__ = ["RatsState", "STATE_CLASS", "new_game", "mask_to_cards", "cards_to_mask",
           "RULES_SUMMARY"]

RULES_SUMMARY = """\
Rats (2-5 players, 52 cards + 2 jokers; rules: docs/rules/rats.md)
- Deal 54 // n cards each; the rest (the kitty) stays face down. D0 = the first hand size.
- A round is a series of tricks until the hands are empty. The leader leads a single card
  (a lone joker may not be led, unless it is the leader's only card), a set (2+ cards of one
  rank) or a run (3-13 cards of one suit in a row, ace low only by default); jokers are wild
  in sets and runs.
- Every other player then plays as many cards as the leader, one at a time, any cards.
- Singles: highest card of the led suit wins. Sets: highest rank, the later play wins ties;
  two jokers count as aces. Runs: stronger suit (spades > hearts > diamonds > clubs) first,
  then the higher top card; a run with jokers reads as strongly as it can; ties to the later
  play. Plays that do not match the lead cannot win.
- The winner captures the trick and leads the next one. At the end of a round a player who
  captured nothing is out; the winner of round 1's last trick also takes the kitty. Each
  survivor's holding = this round's captures + the cards set aside earlier.
- Later rounds: H = min(D0, smallest holding); each survivor draws H random cards of the
  holding as the hand and sets the rest aside. The last trick's winner leads.
- The game ends when one player is left (the winner). Variant max_rounds: most cards held
  wins, ties by spades, hearts, diamonds. After 200 rounds the game ends as in the variant,
  flagged truncated.
Moves: 'lead single|set|run', then 'add <card>' in ascending order and 'finish lead'
(a single, or a lead that empties the hand, ends by itself; or the whole lead at once:
'set 7s 7h X1', 'run 5s 6s 7s', '7s'); followers 'play 7h'."""

_KIND_WORDS = {"single": core.KIND_SINGLE, "set": core.KIND_SET, "run": core.KIND_SEQ,
               "sequence": core.KIND_SEQ, "seq": core.KIND_SEQ}
_FINISH_WORDS = ("finish", "done", "end", "stop")
_VERBS = ("lead", "play", "add")


def mask_to_cards(mask: int) -> list[int]:
    """Card ids (ascending) of a 54-bit card mask (an ``int``)."""
    m = int(mask) & core.CARD_BITS
    return [c for c in range(core.N_CARDS) if (m >> c) & 1]


def cards_to_mask(card_ids) -> int:
    """Card mask (``int``) of card ids; raises ``ValueError`` on an id outside 0..53 or a
    duplicate."""
    m = 0
    for c in card_ids:
        c = int(c)
        if not 0 <= c < core.N_CARDS:
            raise ValueError(f"card id {c} out of range: expected 0..53")
        if (m >> c) & 1:
            raise ValueError(f"card {cardtext.format_card(c)} given twice")
        m |= 1 << c
    return m


def _cards_text(mask: int) -> str:
    ids = sorted(mask_to_cards(mask), key=lambda c: (c >= 52, c & 3, c >> 2, c))
    return cardtext.format(ids)


class RatsState(GameState):
    """One game of Rats behind the step API (rules ``docs/rules/rats.md``).

    Build it with :func:`new_game` (or :func:`engines.protocol.new_game`). ``state`` is the
    flat ``int64 (STATE_SIZE,)`` array of :mod:`engines.rats.core`; every method of
    :class:`engines.protocol.GameState` applies (legal actions are ints of the core's action
    table; illegal input raises ``ValueError`` and changes nothing). Extras: :meth:`hand`,
    :meth:`holding`, :meth:`places`, :meth:`phase`, :meth:`parse_move`.
    """

    game_name = "rats"
    config_class = RatsConfig
    core = core
    rules_summary = RULES_SUMMARY

    # ---- queries -------------------------------------------------------------------------
    def phase(self) -> str:
        """``"declare"``, ``"build"`` (the leader adds cards), ``"follow"`` or ``"over"``."""
        return core.PHASE_NAMES[int(self.state[core.PHASE])]

    def is_leading(self) -> bool:
        """True while the player to act leads (declares a kind or builds the lead)."""
        return int(self.state[core.PHASE]) in (core.PHASE_DECLARE, core.PHASE_BUILD)

    def hand(self, player: int) -> list[int]:
        """Card ids in seat ``player``'s hand (full information; see :meth:`observation`).
        Raises ``ValueError`` for a seat out of range."""
        p = self._check_player(player)
        return mask_to_cards(self.state[core.HAND + p])

    def holding(self, player: int) -> list[int]:
        """Card ids of seat ``player``'s holding besides the hand: captured this round plus
        set aside (full information). Raises ``ValueError`` for a seat out of range."""
        p = self._check_player(player)
        return mask_to_cards(self.state[core.CAPT + p] | self.state[core.ASIDE + p])

    def places(self) -> list[int]:
        """Final places per seat, 1 = winner (zeros before the end)."""
        return [int(x) for x in self.state[core.PLACE:core.PLACE + self.n_players]]

    # ---- text ----------------------------------------------------------------------------
    def _action_text(self, a: int) -> str:
        if a == core.FINISH:
            return "finish lead"
        if a >= core.LEAD_SINGLE:
            return f"lead {core.KIND_NAMES[a - core.LEAD_SINGLE]}"
        verb = "add" if int(self.state[core.PHASE]) == core.PHASE_BUILD else "play"
        return f"{verb} {cardtext.format_card(a)}"

    def _parse_action(self, text: str) -> int | None:
        """Short forms of one decision: ``"set"``/``"run"``/``"single"`` (declare), a bare
        card ``"7h"`` (add or play; a leader naming the joker it may not use yet gets the
        interchangeable one), ``"finish"``/``"done"``; ``None`` otherwise."""
        words = text.strip().lower().split()
        if words and words[0] in _VERBS:
            words = words[1:]
        if len(words) == 2 and words[0] in _FINISH_WORDS and words[1] == "lead":
            words = words[:1]
        if len(words) != 1:
            return None
        w = words[0]
        if w in _KIND_WORDS:
            return core.LEAD_SINGLE + _KIND_WORDS[w]
        if w in _FINISH_WORDS:
            return core.FINISH
        try:
            c = int(cardtext.parse_card(w))
        except ValueError:
            return None
        if c >= 52 and int(self.state[core.PHASE]) == core.PHASE_BUILD:
            legal = self.legal_actions()
            if c not in legal:
                other = 105 - c
                if other in legal:
                    return other
        return c

    def parse_move(self, text: str) -> list[int]:
        """The decisions of a whole move named by ``text``, validated on a clone.

        A single decision (any text :meth:`string_to_action` accepts) gives one action. A
        leader about to declare may name a whole lead: ``"set 7s 7h X1"``, ``"lead run 5s 6s
        X1"``, ``"7s"`` (a single), ``"7s 7h"`` (a set); the result is the declaration, the
        cards in ascending id order (jokers: the interchangeable ones the hand holds, lower
        id first) and ``FINISH`` unless the lead completes by itself (a single, or a lead that
        empties the hand). A leader building a lead may name cards to add, with a trailing
        ``finish`` (ignored when the cards empty the hand). A follower names cards to
        play (``"play 7h 8h"``). Raises a one-line ``ValueError`` naming the text when it is
        not a legal move (or names both a set and a run: add the kind)."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"bad move {text!r}: expected e.g. 'set 7s 7h', 'run 5s 6s 7s', "
                             f"'play 7h'")
        if self.is_terminal():
            raise ValueError(f"no move {text!r}: the game is over")
        try:
            return [self.string_to_action(text)]
        except ValueError:
            pass
        words = text.strip().lower().split()
        if words and words[0] in _VERBS:
            words = words[1:]
        kind = None
        if words and words[0] in _KIND_WORDS:
            kind = _KIND_WORDS[words[0]]
            words = words[1:]
        finish = False
        if words and words[-1] in _FINISH_WORDS:
            finish = True
            words = words[:-1]
        if words and words[-1] == "lead" and len(words) >= 2 and words[-2] in _FINISH_WORDS:
            finish = True
            words = words[:-2]
        try:
            ids = [int(c) for c in cardtext.parse(" ".join(words))] if words else []
            cards_to_mask(ids)
        except ValueError as exc:
            raise ValueError(f"bad move {text!r}: {exc}") from None
        ph = int(self.state[core.PHASE])
        p = self.current_player()
        if ph == core.PHASE_DECLARE:
            kinds = [kind] if kind is not None else (
                [core.KIND_SINGLE] if len(ids) == 1 else [core.KIND_SET, core.KIND_SEQ])
            found = []
            for k in kinds:
                seq = [core.LEAD_SINGLE + k] + self._lead_cards(ids, self.state[core.HAND + p])
                ok = self._try(seq, lead_done=True)
                if ok is not None:
                    found.append(ok)
            if not found:
                raise ValueError(f"no legal lead {text!r} for seat {p}: expected a single, set "
                                 f"or run of the hand (e.g. 'set 7s 7h'); see legal_actions()")
            if len(found) > 1:
                raise ValueError(f"ambiguous lead {text!r}: the cards form a set and a run; "
                                 f"say 'set ...' or 'run ...'")
            return found[0]
        if ph == core.PHASE_BUILD and kind is None:
            seq = self._lead_cards(ids, self.state[core.HAND + p])
            ok = self._try(seq, lead_done=finish) if seq or finish else None
            if ok is None:
                raise ValueError(f"no legal cards {text!r} to add to the lead of seat {p}; "
                                 f"legal now: {', '.join(t for _, t in self.legal_action_texts())}")
            return ok
        if ph == core.PHASE_FOLLOW and kind is None and not finish and ids:
            ok = self._try(ids, lead_done=False)
            if ok is None:
                raise ValueError(f"no legal play {text!r} for seat {p}: expected at most "
                                 f"{int(self.state[core.LEAD_N]) - int(self.state[core.CHOSEN])} "
                                 f"card(s) of the hand")
            return ok
        raise ValueError(f"no legal move {text!r} for seat {p} in phase {self.phase()}: "
                         f"legal now: {', '.join(t for _, t in self.legal_action_texts()[:20])}")

    @staticmethod
    def _lead_cards(ids: list[int], hand: int) -> list[int]:
        """``ids`` in ascending order with the jokers named replaced by the lowest jokers of
        ``hand`` (jokers are interchangeable in a lead)."""
        nat = sorted(c for c in ids if c < 52)
        k = sum(1 for c in ids if c >= 52)
        held = [j for j in (52, 53) if (int(hand) >> j) & 1]
        jok = held[:k] if k <= len(held) else [c for c in ids if c >= 52]
        return nat + sorted(jok)

    def _try(self, seq: list[int], lead_done: bool) -> list[int] | None:
        """``seq`` (plus ``FINISH`` when a lead must end and did not end by itself) if it is
        legal from this state, else ``None``. Works on a clone."""
        g = self.clone()
        p = g.current_player()
        out = list(seq)
        try:
            for a in seq:
                g.apply_action(a)
            if (lead_done and int(g.state[core.PHASE]) == core.PHASE_BUILD
                    and g.current_player() == p):
                g.apply_action(core.FINISH)
                out.append(core.FINISH)
        except ValueError:
            return None
        return out

    # ---- views ---------------------------------------------------------------------------
    def observation(self, player: int) -> dict:
        """What seat ``player`` knows, as a readable dict (built from
        :meth:`information_state`, so it shows nothing the seat may not know): ``player``,
        ``round``, ``phase``, ``current_player``, ``leader``, ``lead_kind`` (name or None),
        ``lead_n``, own ``hand`` and ``set_aside`` (card ids), ``table`` and ``captured`` per
        seat (public), ``alive``, ``hand_sizes``, ``captured_sizes``, ``set_aside_sizes``,
        ``kitty_size``, and ``known_holdings`` (per seat ``hand | set aside`` from round 2
        on, else None). Raises ``ValueError`` for a seat out of range."""
        p = self._check_player(player)
        o = self.information_state(p)
        n = self.n_players
        kind = int(o[core.LEAD_KIND])
        late = int(o[core.ROUND]) >= 2
        return {
            "player": p,
            "round": int(o[core.ROUND]),
            "phase": core.PHASE_NAMES[int(o[core.PHASE])],
            "current_player": self.current_player(),
            "leader": int(o[core.LEADER]),
            "lead_kind": core.KIND_NAMES[kind] if kind >= 0 else None,
            "lead_n": int(o[core.LEAD_N]),
            "hand_size": int(o[core.HAND_SIZE]),
            "hand": mask_to_cards(o[core.HAND + p]),
            "set_aside": mask_to_cards(o[core.ASIDE + p]),
            "table": [mask_to_cards(o[core.TABLE + q]) for q in range(n)],
            "captured": [mask_to_cards(o[core.CAPT + q]) for q in range(n)],
            "alive": [bool(o[core.ALIVE + q]) for q in range(n)],
            "hand_sizes": [int(o[core.OBS_HAND_N + q]) for q in range(n)],
            "captured_sizes": [int(o[core.OBS_CAPT_N + q]) for q in range(n)],
            "set_aside_sizes": [int(o[core.OBS_ASIDE_N + q]) for q in range(n)],
            "kitty_size": int(o[core.OBS_KITTY_N]),
            "known_holdings": ([mask_to_cards(o[core.INFO_HOLD + q]) for q in range(n)]
                               if late else None),
        }

    def table(self, viewer: int | None = None) -> str:
        """The table as text: a header (round, hand size, tricks, kitty), one line per seat
        (hand, captured and set-aside counts, cards on the table; ``>`` marks the seat to
        act), the lead in progress and, at the end, places and returns. ``viewer`` (a seat)
        hides the other hands and the kitty; None shows everything. Raises ``ValueError``
        for a bad viewer."""
        s = self.state
        n = self.n_players
        if viewer is not None:
            viewer = self._check_player(viewer)
        kit = int(core.popcount(s[core.KITTY]))
        kit_text = (f"kitty [{_cards_text(s[core.KITTY])}]" if viewer is None and kit
                    else f"kitty {kit} cards")
        lines = [f"Rats, {n} players, round {int(s[core.ROUND])} (hand size "
                 f"{int(s[core.HAND_SIZE])}), {int(s[core.TRICKS])} tricks, {kit_text}"]
        cur = self.current_player()
        for q in range(n):
            tag = ">" if q == cur else " "
            if not s[core.ALIVE + q]:
                lines.append(f"{tag} seat {q}: out (round {int(s[core.ELIM_ROUND + q])})"
                             + (f", set aside {int(core.popcount(s[core.ASIDE + q]))}"
                                if s[core.ASIDE + q] else ""))
                continue
            hand = s[core.HAND + q]
            shown = (f"[{_cards_text(hand)}]" if viewer is None or viewer == q
                     else f"{int(core.popcount(hand))} cards")
            played = _cards_text(s[core.TABLE + q])
            lines.append(f"{tag} seat {q}: hand {shown}, "
                         f"captured {int(core.popcount(s[core.CAPT + q]))}"
                         f", set aside {int(core.popcount(s[core.ASIDE + q]))}"
                         + (f" | played {played}" if played else ""))
        ph = int(s[core.PHASE])
        if ph == core.PHASE_BUILD:
            lines.append(f"seat {cur} is leading a {core.KIND_NAMES[int(s[core.LEAD_KIND])]}: "
                         f"{_cards_text(s[core.TABLE + cur]) or '(no card yet)'}")
        elif ph == core.PHASE_FOLLOW:
            lines.append(f"lead: {core.KIND_NAMES[int(s[core.LEAD_KIND])]} of "
                         f"{int(s[core.LEAD_N])} by "
                         f"seat {int(s[core.LEADER])}; seat {cur} has played "
                         f"{int(s[core.CHOSEN])} of {int(s[core.LEAD_N])}")
        elif ph == core.PHASE_DECLARE:
            lines.append(f"seat {cur} leads the next trick")
        else:
            lines.append(f"game over: places {self.places()}, returns {self.returns()}"
                         + (" (truncated)" if s[core.TRUNCATED] else ""))
        return "\n".join(lines)

    def events(self, before, action: int, who) -> list[str]:
        """Lines on who took a trick (and its cards), the kitty and who was eliminated at a
        round's end; ``boardlab play`` prints them (:meth:`engines.protocol.GameState.events`)."""
        s = self.state
        lines = []
        if int(s[core.TRICKS]) != int(before[core.TRICKS]) or (
                int(s[core.ROUND]) != int(before[core.ROUND])):
            w = int(s[core.LAST_WINNER])
            mask = 0
            for q in range(int(before[core.N_PLAYERS])):
                mask |= int(before[core.TABLE + q])
            if 0 <= action < core.N_CARDS:
                mask |= 1 << int(action)
            ids = [c for c in range(core.N_CARDS) if mask >> c & 1]
            lines.append(f"  -> {who(w)} takes the trick ({len(ids)} card"
                         f"{'s' if len(ids) != 1 else ''}: "
                         f"{' '.join(cardtext.format_card(c) for c in ids)})")
            rnd = int(before[core.ROUND])
            if int(s[core.ROUND]) != rnd or self.is_terminal():
                out = [q for q in range(int(s[core.N_PLAYERS]))
                       if int(s[core.ELIM_ROUND + q]) == rnd and int(before[core.ALIVE + q])]
                kitty = int(before[core.KITTY]).bit_count() if rnd == 1 else 0
                lines.append(f"  -> round {rnd} ends" + (
                    f"; {who(w)} takes the kitty ({kitty} cards)" if kitty else "") + (
                    f"; {', '.join(who(q) for q in out)} captured nothing and "
                    f"{'is' if len(out) == 1 else 'are'} out" if out else ""))
        return lines


STATE_CLASS = RatsState


def new_game(config: RatsConfig | dict | None = None, seed: int = 0) -> RatsState:
    """A new game of Rats: ``config`` a :class:`RatsConfig`, a dict of its fields or None
    (defaults: 4 players); ``seed`` in ``0 .. 2**64-1`` (game ``g`` of ``agents.loop.
    play_batch(config, ..., seed=s)`` has seed ``engines.protocol.chance.game_seed(s, g)``). Raises
    ``ValueError`` for a bad config or seed."""
    return RatsState(config, seed)
