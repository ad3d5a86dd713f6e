"""Door 1 of Lure: the step API :class:`LureState` (a :class:`engines.protocol.GameState`).

Thin Python over the compiled kernels of :mod:`engines.lure.core` (the only copy of the rules,
``docs/rules/lure.md``). ``LureState(config, seed)`` with the game's seed (``0 ..
2**64-1``) plays exactly game ``g`` of :func:`agents.loop.play_batch` whose ``seed`` column is
that seed, when driven by the same policies (:class:`agents.policy.Agent`); records replay with
:func:`engines.protocol.replay` (the config, deck included, is in the record).

Action text (one small decision; the table is in :mod:`engines.lure.core`): ``"3d6"``,
``"special d12+d20"`` / ``"special none"``, ``"lure x3"`` / ``"lure adjust"`` / ``"lure
boost"``, ``"finish cast"``, ``"d6#2+1"`` / ``"d20-1"``, ``"stop adjusting"``. Short forms:
``"d12 d20"``, ``"none"`` (no special die, or stop adjusting), ``"x3"``, ``"boost"``,
``"finish"``, ``"stop"``. Text starting with ``cast`` or ``adjust`` is a whole *move* of several
decisions: :meth:`LureState.parse_move` reads ``"cast 2d6 d20 lures adjust*2 x3 boost"`` or
``"adjust d6#1+2 d20-1"`` (the texts of the previous one-action encoding) into its decisions.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from engines.lure import core
from engines.lure import decks
from engines.lure.config import LURE_KINDS, LureConfig
from engines.protocol import GameState

__all__ = ["LureState", "STATE_CLASS", "new_game", "finish_frame", "card_outcomes",
           "SLOT_NAMES", "SPECIAL_NAMES"]

SLOT_NAMES = ("d6#1", "d6#2", "d6#3", "d6#4", "d6#5", "d12", "d20", "d4")
SPECIAL_NAMES = ("d12", "d20", "d4")
_PHASES = {core.PH_CAST: "cast", core.PH_ADJUST: "adjust", core.PH_END: "end"}
_CAST_STEPS = ("number of d6", "special dice", "lures (or finish)", "done")
_KIND_ALIASES = {"adj": "adjust", "adjusts": "adjust", "boosts": "boost"}
_SKIP_WORDS = {"cast", "lures", "lure", "+", "with", "and", "nothing", "finish", "done"}
_STOP_WORDS = {"none", "stop", "skip", "unused"}

RULES_SUMMARY = """\
Lure (Allplay, 2024), 2-5 players: fish cards with a catch number and requirements.
Each round: 1. Splash: reveal 3 fish (2 with 2-3 players) next to those left over; a fish+ icon
reveals one more, a lure icon makes every player draw a lure token. Emptying the deck makes
this the final round. 2. Cast, secretly and at once: any of your five d6 and your special dice
(d12, d20; Deep Waters also a d4; a special die rolled last round rests), and any of your lure
tokens: adjust (+-1 on one die after rolling, never past a face), extra die 1..6 (counts as a
die showing that value, not for turn order), boost (kept for 2 points if you catch anything).
3. Fish: fewest dice first, equal counts together: roll, adjust, then catch EVERY fish whose
catch number (the sum) and requirements (pair, distinct, has:V, lure, no_lure, odd, even,
special2) you meet; together, the lower sum takes a fish, equal sums leave it; a stubborn fish
goes at the round's end to the last player who met it. Caught nothing: draw a lure.
End: fish points + 2 per kept boost (+5 for the most trophies in Deep Waters); the highest
score wins, ties to fewer fish, then shared.
Here a cast is several decisions: '2d6', 'special d12', 'lure x3' ..., 'finish cast' (or the
whole move 'cast 2d6 d12 lures x3'); an adjust is one decision per adjust lure: 'd6#1+1' ...,
'stop adjusting' (or the whole move 'adjust d6#1+1 d20-1')."""


def _action_text(a: int) -> str:
    if a < core.A_SPECIAL:
        return f"{a}d6"
    if a < core.A_LURE:
        m = a - core.A_SPECIAL
        names = [SPECIAL_NAMES[i] for i in range(3) if m & (1 << i)]
        return "special " + ("+".join(names) if names else "none")
    if a < core.A_FINISH:
        return f"lure {LURE_KINDS[a - core.A_LURE]}"
    if a == core.A_FINISH:
        return "finish cast"
    if a < core.A_STOP:
        t = (a - core.A_ADJUST) >> 1
        return f"{SLOT_NAMES[t]}{'+1' if (a - core.A_ADJUST) % 2 == 0 else '-1'}"
    return "stop adjusting"


ACTION_TEXTS = tuple(_action_text(a) for a in range(core.NUM_DISTINCT_ACTIONS))
"""Text of every action id (Lure's texts do not depend on the state)."""


class LureState(GameState):
    """One game of Lure behind the step API (:class:`engines.protocol.GameState`).

    ``LureState(config=None, seed=0)``: ``config`` a :class:`LureConfig` (deck included), a
    dict of its fields or None (4 players, base game); ``seed`` in ``0 .. 2**64-1``. Raises
    ``ValueError`` for a bad config or seed. Besides the protocol methods: :attr:`phase`,
    :attr:`round`, :attr:`deck`, :meth:`scores`, :meth:`caught`, :meth:`fish_on_table`,
    :meth:`parse_move` and :meth:`play_move` (a whole cast or adjust as text)."""

    game_name = "lure"
    config_class = LureConfig
    core = core
    rules_summary = RULES_SUMMARY

    # ---- game facts ----------------------------------------------------------------------
    @property
    def deck(self) -> decks.Deck:
        """The fish deck of this game (``config.deck``)."""
        return self.config.deck

    @property
    def phase(self) -> str:
        """``"cast"``, ``"adjust"`` or ``"end"``."""
        return _PHASES[int(self.state[core.H_PHASE])]

    @property
    def round(self) -> int:
        """Current round (1-based)."""
        return int(self.state[core.H_ROUND])

    def _pb(self, p: int) -> int:
        return core.PB + p * core.PSTRIDE

    def scores(self) -> list[int]:
        """Final scores, one int per seat. Raises ``ValueError`` before the end."""
        if not self.is_terminal():
            raise ValueError("scores are known only at the end of the game")
        return [int(self.state[self._pb(p) + core.P_SCORE]) for p in range(self.n_players)]

    def fish_on_table(self) -> list[str]:
        """Ids of the fish on the table, in reveal order."""
        n = int(self.state[core.H_NTABLE])
        return [self.deck.ids[int(c)] for c in self.state[core.TABLE:core.TABLE + n]]

    def caught(self, p: int) -> list[str]:
        """Ids of the fish seat ``p`` has caught (deck order). Raises ``ValueError`` for a bad
        seat."""
        p = self._check_player(p)
        loc = self.state[core.LOC:core.LOC + len(self.deck)]
        return [self.deck.ids[c] for c in np.flatnonzero(loc == core.LOC_CAUGHT + p)]

    # ---- text of actions -----------------------------------------------------------------
    def _action_text(self, action: int) -> str:
        return ACTION_TEXTS[action]

    def _parse_action(self, text: str) -> int | None:
        """Short forms of one decision: ``d12 d20`` / ``d12+d20`` / ``none`` (special dice),
        ``x3`` / ``adjust`` / ``boost`` (a lure), ``finish`` / ``done``, ``d6#2+`` (a step),
        ``stop`` / ``none`` (stop adjusting). Text starting with ``cast`` or ``adjust`` is a
        whole move (:meth:`parse_move`), never one decision."""
        t = " ".join(text.strip().lower().split())
        if self.is_terminal() or t.startswith(("cast", "adjust ")):
            return None
        if self.phase == "adjust":
            if t in _STOP_WORDS:
                return core.A_STOP
            m = re.fullmatch(r"(d6#[1-5]|d12|d20|d4) ?([+-])1?", t)
            if m:
                s = SLOT_NAMES.index(m.group(1))
                return core.A_ADJUST + 2 * s + (0 if m.group(2) == "+" else 1)
            return None
        step = int(self.state[self._pb(self.current_player()) + core.P_CSTEP])
        if step == core.CS_SPECIAL:
            words = [w for w in re.split(r"[\s,+]+", t) if w and w != "special"]
            if words in (["none"], ["nothing"]):
                return core.A_SPECIAL
            if words and all(w in SPECIAL_NAMES for w in words):
                return core.A_SPECIAL + sum(1 << SPECIAL_NAMES.index(w) for w in set(words))
            return None
        if step != core.CS_LURES:
            return None
        if t in ("finish", "done", "end"):
            return core.A_FINISH
        w = t.removeprefix("lure ").strip()
        w = _KIND_ALIASES.get(w, w)
        if w in LURE_KINDS:
            return core.A_LURE + LURE_KINDS.index(w)
        return None

    # ---- whole moves ---------------------------------------------------------------------
    def parse_move(self, text: str) -> list[int]:
        """The decisions of one whole move given as text, validated on a clone.

        In the cast phase: ``"cast 2d6 d20 lures adjust*2 x3 boost"`` (``"cast nothing"``)
        -> the remaining decisions of the current player's cast (d6, special dice, the lures in
        kind order, finish). In the adjust phase: ``"adjust d6#1+2 d20-1"`` -> one decision per
        step, then ``adjust stop`` for adjusts left unused (or, when adjusts must be used, pairs
        of opposite steps; ``"adjust none"`` uses none). Raises a one-line ``ValueError``
        naming the text when it is not a legal move; nothing changes."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"bad move {text!r}: expected text such as 'cast 2d6 d12 lures x3' "
                             f"or 'adjust d6#1+1'")
        if self.is_terminal():
            raise ValueError(f"bad move {text!r}: the game is over")
        toks = [t for t in re.split(r"[\s,]+", text.strip().lower()) if t]
        if self.phase == "adjust":
            acts = self._adjust_move(text, toks)
        else:
            acts = self._cast_move(text, toks)
        g = self.clone()
        for a in acts:
            if a not in g.legal_actions():
                raise ValueError(f"bad move {text!r}: {ACTION_TEXTS[a]!r} is not legal then "
                                 f"(legal: {', '.join(t for _, t in g.legal_action_texts())})")
            g.core.apply_action(g.state, a)
        return acts

    def _cast_move(self, text: str, toks: list[str]) -> list[int]:
        n6, spec = None, 0
        spec_named = False
        counts = [0] * core.NK
        for t in toks:
            if t in _SKIP_WORDS or t in ("special", "none"):
                continue
            m = re.fullmatch(r"([0-5])d6", t)
            if m:
                n6 = int(m.group(1))
                continue
            if t in SPECIAL_NAMES:
                spec |= 1 << SPECIAL_NAMES.index(t)
                spec_named = True
                continue
            m = re.fullmatch(r"([a-z0-9]+)(?:\*(\d+))?", t)
            kind = _KIND_ALIASES.get(m.group(1), m.group(1)) if m else None
            if kind not in LURE_KINDS:
                raise ValueError(f"bad move {text!r}: cast token {t!r}; expected Nd6 (N 0..5), "
                                 f"d12, d20, d4, adjust, x1..x6 or boost (optionally *N)")
            counts[LURE_KINDS.index(kind)] += int(m.group(2) or 1)
        p = self.current_player()
        step = int(self.state[self._pb(p) + core.P_CSTEP])
        acts = []
        if step == core.CS_D6:
            acts.append(core.A_CAST_D6 + (n6 or 0))
        elif n6 is not None:
            raise ValueError(f"bad move {text!r}: the d6 of this cast are already chosen")
        if step <= core.CS_SPECIAL:
            acts.append(core.A_SPECIAL + spec)
        elif spec_named:
            raise ValueError(f"bad move {text!r}: the special dice of this cast are already "
                             f"chosen")
        for k in range(core.NK):
            acts += [core.A_LURE + k] * counts[k]
        acts.append(core.A_FINISH)
        return acts

    def _adjust_move(self, text: str, toks: list[str]) -> list[int]:
        b = self._pb(self.current_player())
        left = int(self.state[b + core.P_ADJ_LEFT])
        acts = []
        for t in toks:
            if t == "adjust" or t in _STOP_WORDS:
                continue
            m = re.fullmatch(r"(d6#[1-5]|d12|d20|d4)([+-])(\d+)", t)
            if not m:
                raise ValueError(f"bad move {text!r}: adjust token {t!r}; expected e.g. "
                                 f"'d6#2+1' or 'd20-2', or 'none'")
            s = SLOT_NAMES.index(m.group(1))
            a = core.A_ADJUST + 2 * s + (0 if m.group(2) == "+" else 1)
            acts += [a] * int(m.group(3))
        if len(acts) > left:
            raise ValueError(f"bad move {text!r}: {len(acts)} adjust steps but only {left} "
                             f"adjust lures to use")
        rest = left - len(acts)
        if rest:
            if self.config.adjust_may_be_unused:
                acts.append(core.A_STOP)
            elif rest % 2:
                raise ValueError(f"bad move {text!r}: every adjust must move a die "
                                 f"(adjust_may_be_unused is False) and {rest} would be left")
            else:
                dice = [int(self.state[b + core.P_DICE + s]) for s in range(core.NSLOT)]
                for a in acts:
                    s = (a - core.A_ADJUST) >> 1
                    dice[s] += 1 if (a - core.A_ADJUST) % 2 == 0 else -1
                s = next(s for s in range(core.NSLOT) if self.state[b + core.P_RAW + s] >= 0)
                up = dice[s] < int(core.SLOT_FACES[s])
                away = core.A_ADJUST + 2 * s + (0 if up else 1)
                back = core.A_ADJUST + 2 * s + (1 if up else 0)
                acts += [away, back] * (rest // 2)
        return acts

    def play_move(self, text: str) -> list[int]:
        """Apply :meth:`parse_move` ``(text)``; returns the actions applied. Raises
        ``ValueError`` (nothing changes) when ``text`` is not a legal move."""
        acts = self.parse_move(text)
        for a in acts:
            self.apply_action(a)
        return acts

    # ---- views ---------------------------------------------------------------------------
    def _view(self, viewer) -> np.ndarray:
        if viewer is None:
            return self.state
        p = self._check_player(viewer)
        out = np.zeros(core.OBS_SIZE, np.int64)
        core.observe(self.state, p, out)
        return out

    def _card_text(self, c: int) -> str:
        d = self.deck
        req = d.requirement_text(c)
        extra = []
        if d.info[c, decks.I_SPLASH]:
            extra.append(decks.SPLASH_NAMES[d.info[c, decks.I_SPLASH]])
        if d.info[c, decks.I_TROPHY]:
            extra.append("trophy")
        return (f"{d.ids[c]}[{int(d.catch_numbers[c])}{' ' + req if req else ''}: "
                f"{int(d.points[c])}pt{' ' + ' '.join(extra) if extra else ''}]")

    @staticmethod
    def _cast_text(o, b) -> str:
        parts = [f"{int(o[b + core.P_N6])}d6"] if o[b + core.P_N6] else []
        parts += [SPECIAL_NAMES[i] for i in range(3) if o[b + core.P_SPEC] & (1 << i)]
        lures = [LURE_KINDS[k] + (f"*{int(o[b + core.P_CAST + k])}" if o[b + core.P_CAST + k] > 1
                                   else "") for k in range(core.NK) if o[b + core.P_CAST + k] > 0]
        text = " ".join(parts) if parts else "no dice"
        return text + (" lures " + " ".join(lures) if lures else "")

    def table(self, viewer: int | None = None) -> str:
        """The table as text: round, phase, the fish on the table, each player's catch, tokens,
        cast and dice. ``viewer`` (a seat) hides what that seat may not see (other players'
        tokens by kind, secret casts, adjusted dice not yet resolved, where another player to
        act stands in its cast or adjusts: ``"to act: P1, cast (secret)"``), exactly what
        :meth:`determinize` for that seat resamples, so the text is equal in every world of
        that seat; None shows everything.
        Raises ``ValueError`` for a bad seat."""
        o = self._view(viewer)
        n = self.n_players
        dw = " + Deep Waters" if o[core.H_DEEP] else ""
        final = " (final)" if o[core.H_FINAL] else ""
        lines = [f"Lure, {n} players{dw}, round {int(o[core.H_ROUND])}{final}, phase {self.phase}; "
                 f"fish left in the deck {int(o[core.H_NDRAW])}, bag {int(o[core.H_BAGN])} tokens, "
                 f"discard {int(o[core.H_DISCN])}"]
        tab = [self._card_text(int(c)) for c in o[core.TABLE:core.TABLE + o[core.H_NTABLE]]]
        lines.append("table: " + (" ".join(tab) if tab else "(empty)"))
        casting = o[core.H_PHASE] == core.PH_CAST
        for p in range(n):
            b = self._pb(p)
            if o[b + core.P_HELD] >= 0:
                held = " ".join(f"{LURE_KINDS[k]}*{int(o[b + core.P_HELD + k])}"
                                if o[b + core.P_HELD + k] > 1 else LURE_KINDS[k]
                                for k in range(core.NK) if o[b + core.P_HELD + k] > 0) or "none"
            else:
                held = f"{int(o[b + core.P_NHELD])} hidden" if o[b + core.P_NHELD] else "none"
            trophies = f", {int(o[b + core.P_TROPHY])} trophies" if o[b + core.P_TROPHY] else ""
            line = (f"P{p}: {int(o[b + core.P_POINTS])} fish pts ({len(self.caught(p))} fish"
                    f"{trophies}), {int(o[b + core.P_KEPT])} boosts kept, lures: {held}")
            rest = [SPECIAL_NAMES[i] for i in range(3) if o[b + core.P_RESTING] & (1 << i)]
            if rest and not self.is_terminal():
                line += f", resting {' '.join(rest)}"
            if casting:
                if o[b + core.P_N6] < 0:
                    line += "; cast: " + ("secret (done)" if o[b + core.P_CAST_DONE] else "secret")
                elif o[b + core.P_CAST_DONE] or o[b + core.P_CSTEP] > 0:
                    line += f"; cast: {self._cast_text(o, b)}" + (
                        "" if o[b + core.P_CAST_DONE] else " (in progress)")
            elif not self.is_terminal():
                line += f"; cast: {self._cast_text(o, b)}"
                roll = " ".join(f"{SLOT_NAMES[s]}={int(o[b + core.P_DICE + s])}"
                                for s in range(core.NSLOT) if o[b + core.P_DICE + s] >= 0)
                if roll:
                    line += f"; dice {roll}"
            if self.is_terminal():
                line += (f"; score {int(o[b + core.P_SCORE])}"
                         + (" WINNER" if o[b + core.P_WIN] else ""))
            lines.append(line)
        if not self.is_terminal():
            p = self.current_player()
            if viewer is not None and p != viewer:
                # another seat's cast step and adjusts left are secret (the core's observe
                # hides them and determinize resamples them): only the phase shows
                what = "cast (secret)" if casting else "adjust (secret)"
            elif casting:
                what = _CAST_STEPS[int(self.state[self._pb(p) + core.P_CSTEP])]
            else:
                what = f"adjust ({int(self.state[self._pb(p) + core.P_ADJ_LEFT])} left)"
            lines.append(f"to act: P{p}, {what}")
        return "\n".join(lines)

    def observation(self, player: int) -> dict:
        """What ``player`` may see, as a JSON-ready dict (``None`` where hidden: other
        players' tokens by kind, their secret cast until every cast is in; other members of the
        acting group show their raw roll until it resolves). Raises ``ValueError`` for a bad
        seat."""
        o = self._view(player)
        players = []
        casting = o[core.H_PHASE] == core.PH_CAST
        for p in range(self.n_players):
            b = self._pb(p)
            cast = None
            if o[b + core.P_N6] >= 0 and (not casting or o[b + core.P_CAST_DONE] or p == player):
                cast = {"d6": int(o[b + core.P_N6]),
                        "special": [SPECIAL_NAMES[i] for i in range(3)
                                    if o[b + core.P_SPEC] & (1 << i)],
                        "lures": {LURE_KINDS[k]: int(o[b + core.P_CAST + k])
                                  for k in range(core.NK) if o[b + core.P_CAST + k] > 0}}
            last = None
            if o[b + core.P_LAST_NDICE] >= 0:
                last = {"cast": {"d6": int(o[b + core.P_LAST_N6]),
                                 "special": [SPECIAL_NAMES[i] for i in range(3)
                                             if o[b + core.P_LAST_SPEC] & (1 << i)],
                                 "lures": {LURE_KINDS[k]: int(o[b + core.P_LAST_CAST + k])
                                           for k in range(core.NK)
                                           if o[b + core.P_LAST_CAST + k] > 0}},
                        "dice": {SLOT_NAMES[s]: int(o[b + core.P_LAST_DICE + s])
                                 for s in range(core.NSLOT) if o[b + core.P_LAST_DICE + s] >= 0},
                        "sum": int(o[b + core.P_LAST_SUM]),
                        "turn_order": int(o[b + core.P_LAST_GROUPR]),
                        "caught": int(o[b + core.P_LAST_CAUGHT])}
            players.append({
                "seat": p,
                "lures": None if o[b + core.P_HELD] < 0 else {
                    LURE_KINDS[k]: int(o[b + core.P_HELD + k]) for k in range(core.NK)},
                "n_lures": int(o[b + core.P_NHELD]),
                "cast_done": bool(o[b + core.P_CAST_DONE]),
                "cast": cast,
                "roll": {SLOT_NAMES[s]: int(o[b + core.P_RAW + s]) for s in range(core.NSLOT)
                         if o[b + core.P_RAW + s] >= 0},
                "dice": {SLOT_NAMES[s]: int(o[b + core.P_DICE + s]) for s in range(core.NSLOT)
                         if o[b + core.P_DICE + s] >= 0},
                "adjusts_left": int(o[b + core.P_ADJ_LEFT]),
                "resting": [SPECIAL_NAMES[i] for i in range(3) if o[b + core.P_RESTING] & (1 << i)],
                "caught": self.caught(p),
                "fish_points": int(o[b + core.P_POINTS]),
                "boosts_kept": int(o[b + core.P_KEPT]),
                "trophies": int(o[b + core.P_TROPHY]),
                "last_round": last,
            })
        return {
            "player": int(player), "phase": self.phase, "round": int(o[core.H_ROUND]),
            "final_round": bool(o[core.H_FINAL]), "current_player": int(o[core.H_CUR]),
            "table": self.fish_on_table(), "fish_left_in_deck": int(o[core.H_NDRAW]),
            "bag_size": int(o[core.H_BAGN]),
            "discard": {LURE_KINDS[k]: int(o[core.H_DISC + k]) for k in range(core.NK)},
            "players": players,
            "scores": self.scores() if self.is_terminal() else None,
        }

    def events(self, before, action: int, who) -> list[str]:
        """Lines on who caught what in a round; ``boardlab play`` prints them
        (:meth:`engines.protocol.GameState.events`)."""
        s = self.state
        lines = []
        rnd = int(before[core.H_ROUND])
        if int(s[core.H_ROUND]) != rnd or self.is_terminal():
            parts = []
            for q in range(int(s[core.H_NP])):
                b = core.PB + q * core.PSTRIDE
                fish = int(s[b + core.P_NFISH]) - int(before[b + core.P_NFISH])
                pts = int(s[b + core.P_POINTS]) - int(before[b + core.P_POINTS])
                parts.append(f"{who(q)} " + (f"catches {fish} fish (+{pts} pts)" if fish > 0
                                             else "catches nothing"))
            lines.append(f"  -> round {rnd}: " + "; ".join(parts))
        return lines


STATE_CLASS = LureState


def new_game(config=None, seed: int = 0) -> LureState:
    """A new Lure game (``config``: :class:`LureConfig`, dict or None; ``seed`` in ``0 ..
    2**64-1``). Raises ``ValueError`` for a bad config or seed."""
    return LureState(config, seed)


def finish_frame(df: pd.DataFrame, n_players: int) -> pd.DataFrame:
    """:func:`agents.loop.play_batch`'s frame without the per-seat columns of absent seats
    (``score_p`` ... ``win_p`` for ``p >= n_players``)."""
    drop = [f"{f}_{p}" for f in core.SEAT_FIELDS for p in range(n_players, core.MAX_PLAYERS)]
    return df.drop(columns=[c for c in drop if c in df.columns])


def card_outcomes(frame, n_cards: int) -> dict[str, np.ndarray]:
    """Decode the per-card columns ``card_c`` of a :func:`agents.loop.play_batch` frame (or an
    ``int64 (G, >= n_cards)`` array of them) into ``int64 (G, n_cards)`` arrays:
    ``catch_player`` (seat, -1 in play but not caught, -2 not in play), ``catch_round`` (0 not
    caught), ``catch_group`` (turn-order rank of the catcher's group, -1 not caught) and
    ``reveal_round`` (0 never). Layout: :func:`engines.lure.core.card_record`."""
    if isinstance(frame, pd.DataFrame):
        a = frame[[f"card_{c}" for c in range(n_cards)]].to_numpy(np.int64)
    else:
        a = np.asarray(frame, np.int64)[:, :n_cards]
    who = (a & 7) - 2
    return {"catch_player": who, "catch_round": (a >> 3) & 127,
            "catch_group": ((a >> 10) & 7) - 1, "reveal_round": (a >> 13) & 127}

