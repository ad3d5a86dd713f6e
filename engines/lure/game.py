"""Door 1: the step API of Lure (:class:`LureGame`), action text, observations, JSON records.

Thin Python over the compiled kernels of :mod:`engines.lure.core` (the only copy of the rules,
``../shared/rules/lure.md``). ``LureGame(config, deck, seed, game_index=g)`` plays exactly game
``g`` of :func:`engines.lure.batch.play_batch` with the same ``seed`` when driven by the same
agents (:class:`agents.lure.Agent`).

Action text:

* cast: ``"cast 3d6 d12"``, ``"cast 2d6 d20 lures adjust*2 x3 boost"``, ``"cast nothing"``;
* adjust: ``"adjust d6#2+1 d20-1"`` (d6 slots are numbered 1..5 in the order of the roll),
  ``"adjust none"``.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import numpy as np

from engines import dice
from engines.lure import core as K
from engines.lure import decks as D
from engines.lure.config import LURE_KINDS, LureConfig

RECORD_FORMAT = "boardlab.lure.record"
RECORD_VERSION = 1
SLOT_NAMES = ("d6#1", "d6#2", "d6#3", "d6#4", "d6#5", "d12", "d20", "d4")
SPECIAL_NAMES = ("d12", "d20", "d4")
_PHASES = {K.PH_CAST: "cast", K.PH_ADJUST: "adjust", K.PH_END: "end"}


class LureGame:
    """One game of Lure, step by step.

    Args:
        config: :class:`LureConfig` (default: 4 players, base game).
        deck: :class:`engines.lure.decks.Deck` (default: the reconstruction).
        seed: int >= 0 or ``numpy.random.SeedSequence`` (as in ``play_batch``).
        game_index: which game of that seed's sequence to play.
        game_seed: the uint64 game seed itself (overrides ``seed``/``game_index``; used by
            replays).

    Raises:
        ValueError: bad config, seed or index.
    """

    def __init__(self, config: LureConfig | None = None, deck: D.Deck | None = None, seed=0,
                 game_index: int = 0, *, game_seed: int | None = None):
        from engines.lure.batch import base_word

        self.config = config if config is not None else LureConfig()
        if not isinstance(self.config, LureConfig):
            raise ValueError(f"config must be a LureConfig; got {type(self.config).__name__}")
        self.deck = deck if deck is not None else D.default_deck()
        if int(game_index) < 0:
            raise ValueError(f"game_index = {game_index!r}; expected >= 0")
        self.seed = seed
        self.game_index = int(game_index)
        if game_seed is None:
            game_seed = int(K.game_seed(np.uint64(base_word(seed)), self.game_index))
        self.game_seed = int(game_seed)
        self.cfg = self.config.to_array()
        self.state = np.zeros(K.STATE_LEN, np.int64)
        self.work = np.zeros(K.WORK_LEN, np.int64)
        K.init_state(self.state, self.cfg, self.deck.conds, self.deck.info,
                     np.uint64(self.game_seed))
        self.policy_rng = np.array(
            [K.policy_seed(np.uint64(self.game_seed), p) for p in range(self.config.n_players)],
            np.uint64).view(np.int64)
        self.history: list[tuple[int, int]] = []

    # ------------------------------------------------------------ basic protocol
    @property
    def n_players(self) -> int:
        """Number of players."""
        return self.config.n_players

    @property
    def phase(self) -> str:
        """``"cast"``, ``"adjust"`` or ``"end"``."""
        return _PHASES[int(self.state[K.H_PHASE])]

    @property
    def round(self) -> int:
        """Current round (1-based)."""
        return int(self.state[K.H_ROUND])

    def current_player(self) -> int:
        """Seat of the player to decide, -1 when the game is over."""
        return int(self.state[K.H_CUR])

    def is_terminal(self) -> bool:
        """True after the final round has been scored."""
        return int(self.state[K.H_PHASE]) == K.PH_END

    def _pb(self, p: int) -> int:
        return K.PB + p * K.PSTRIDE

    def scores(self) -> np.ndarray:
        """int64 ``(n_players,)`` final scores (raises ``ValueError`` before the end)."""
        if not self.is_terminal():
            raise ValueError("scores are known only at the end of the game")
        return np.array([self.state[self._pb(p) + K.P_SCORE] for p in range(self.n_players)])

    def returns(self) -> np.ndarray:
        """float64 ``(n_players,)``: 1/k for each of the k winners, 0 otherwise (0s before the end).

        Rules *End and scoring*: highest score; ties to fewer fish; remaining ties shared.
        """
        if not self.is_terminal():
            return np.zeros(self.n_players)
        w = np.array([self.state[self._pb(p) + K.P_WIN] for p in range(self.n_players)], float)
        return w / w.sum()

    def clone(self) -> LureGame:
        """Independent copy (state, chance stream, policy streams and history)."""
        g = object.__new__(LureGame)
        g.__dict__.update(self.__dict__)
        g.state = self.state.copy()
        g.work = np.zeros(K.WORK_LEN, np.int64)
        g.policy_rng = self.policy_rng.copy()
        g.history = list(self.history)
        return g

    # ------------------------------------------------------------ actions
    def legal_actions(self) -> list[int]:
        """Every legal action of the player to decide, ascending (``[]`` at the end).

        Casts: all (d6 count x available special dice x tokens per kind held); the list grows
        as the product of (tokens held per kind + 1). Adjusts: every delta vector of at most as
        many steps as adjusts played (with the parity rule when adjusts must be used).
        """
        if self.is_terminal():
            return []
        p = self.current_player()
        b = self._pb(p)
        if self.phase == "cast":
            avail = int(K.available_specials(self.state, p))
            specs = [s for s in range(8) if not s & ~avail]
            held = [range(int(self.state[b + K.P_HELD + k]) + 1) for k in range(K.NK)]
            out = []
            for counts in itertools.product(*held):
                lure = sum(int(c) << (6 + 5 * k) for k, c in enumerate(counts))
                for spec in specs:
                    for n6 in range(6):
                        out.append(n6 | (spec << 3) | lure)
            return sorted(out)
        slots = [s for s in range(K.NSLOT) if self.state[b + K.P_RAW + s] >= 0]
        raw = [int(self.state[b + K.P_RAW + s]) for s in slots]
        k = int(self.state[b + K.P_CAST + K.K_ADJ])
        lo = np.array([1 - v for v in raw], np.int64)
        hi = np.array([int(K.SLOT_FACES[s]) - v for s, v in zip(slots, raw, strict=True)],
                      np.int64)
        size = int(np.prod([min(2 * k + 1, h - lo_ + 1)
                            for lo_, h in zip(lo, hi, strict=True)] or [1]))
        buf = np.zeros((size, max(len(slots), 1)), np.int64)
        need = (not self.config.adjust_may_be_unused) and len(slots) > 0
        n = dice.enumerate_deltas(lo, hi, len(slots), k, need, buf)
        out = []
        for t in range(n):
            delta = np.zeros(K.NSLOT, np.int64)
            for i, s in enumerate(slots):
                delta[s] = buf[t, i]
            out.append(int(K.encode_adjust(delta)))
        return sorted(out)

    def apply_action(self, action) -> None:
        """Apply an action (int, or text as :meth:`string_to_action` reads).

        Raises:
            ValueError: the action is illegal (the message names it and the rule); nothing
                changes.
        """
        if isinstance(action, str):
            action = self.string_to_action(action)
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"action {action!r} must be an int or a text action")
        a = int(action)
        err = int(K.check_action(self.state, self.cfg, a)) if 0 <= a < 2**62 else K.E_BITS
        if err != K.E_OK:
            what = self._safe_text(a)
            raise ValueError(f"illegal action {a} ({what}) for player {self.current_player()} "
                             f"in phase {self.phase!r}: {K.ERROR_TEXT[err]}")
        p = self.current_player()
        K.apply_action(self.state, self.cfg, self.deck.conds, self.deck.info, a, self.work)
        self.history.append((p, a))

    def _safe_text(self, a: int) -> str:
        try:
            return self.action_to_string(a)
        except ValueError:
            return "?"

    def action_to_string(self, action: int, phase: str | None = None) -> str:
        """Text of an action in ``phase`` (default: the current phase)."""
        phase = phase or self.phase
        a = int(action)
        if a < 0:
            raise ValueError(f"action {a} is negative")
        if phase == "cast":
            parts = [f"{a & 7}d6"] if a & 7 else []
            parts += [SPECIAL_NAMES[i] for i in range(3) if (a >> 3) & (1 << i)]
            lures = []
            for k in range(K.NK):
                n = (a >> (6 + 5 * k)) & 31
                if n:
                    lures.append(LURE_KINDS[k] + (f"*{n}" if n > 1 else ""))
            text = "cast " + (" ".join(parts) if parts else "nothing")
            return text + (" lures " + " ".join(lures) if lures else "")
        if phase == "adjust":
            delta = np.zeros(K.NSLOT, np.int64)
            K.decode_adjust(a, delta)
            moves = [f"{SLOT_NAMES[s]}{int(d):+d}" for s, d in enumerate(delta) if d]
            return "adjust " + (" ".join(moves) if moves else "none")
        raise ValueError(f"no actions in phase {phase!r}")

    def string_to_action(self, text: str) -> int:
        """Parse action text (see the module docstring) for the current phase.

        Raises:
            ValueError: unreadable text, naming the bad token.
        """
        toks = [t for t in re.split(r"[\s,]+", text.strip().lower()) if t]
        if not toks:
            raise ValueError("empty action text")
        if self.phase == "adjust" or toks[0] == "adjust":
            delta = np.zeros(K.NSLOT, np.int64)
            for t in toks:
                if t in ("adjust", "none"):
                    continue
                m = re.fullmatch(r"(d6#[1-5]|d12|d20|d4)([+-]\d+)", t)
                if not m:
                    raise ValueError(f"adjust token {t!r}; expected e.g. 'd6#2+1' or 'd20-1'")
                delta[SLOT_NAMES.index(m.group(1))] += int(m.group(2))
            if np.any(np.abs(delta) > 31):
                raise ValueError(f"adjust {text!r} moves a die more than 31 faces")
            return int(K.encode_adjust(delta))
        n6, spec = 0, 0
        counts = [0] * K.NK
        for t in toks:
            if t in ("cast", "lures", "lure", "+", "nothing"):
                continue
            m = re.fullmatch(r"([0-5])d6", t)
            if m:
                n6 = int(m.group(1))
                continue
            if t in SPECIAL_NAMES:
                spec |= 1 << SPECIAL_NAMES.index(t)
                continue
            m = re.fullmatch(r"(adjust|adj|x[1-6]|boost)(?:\*(\d+))?", t)
            if not m:
                raise ValueError(f"cast token {t!r}; expected Nd6, d12, d20, d4, adjust, x1..x6 "
                                 f"or boost (optionally *N)")
            kind = "adjust" if m.group(1) == "adj" else m.group(1)
            counts[LURE_KINDS.index(kind)] += int(m.group(2) or 1)
        if any(c > 31 for c in counts):
            raise ValueError(f"cast {text!r} plays more than 31 tokens of a kind")
        return int(K.encode_cast(n6, spec, np.array(counts, np.int64)))

    # ------------------------------------------------------------ views
    def table(self) -> list[str]:
        """Ids of the fish on the table, in reveal order."""
        n = int(self.state[K.H_NTABLE])
        return [self.deck.ids[int(c)] for c in self.state[K.TABLE:K.TABLE + n]]

    def caught(self, p: int) -> list[str]:
        """Ids of the fish player ``p`` has caught."""
        loc = self.state[K.LOC:K.LOC + len(self.deck)]
        return [self.deck.ids[c] for c in np.flatnonzero(loc == K.LOC_CAUGHT + p)]

    def observation_array(self, player: int) -> np.ndarray:
        """The state as ``player`` sees it (int64 ``(STATE_LEN,)``, hidden fields -1)."""
        self._check_player(player)
        return K.observe(self.state, int(player), np.zeros(K.STATE_LEN, np.int64))

    def _check_player(self, player):
        if not isinstance(player, (int, np.integer)) or not 0 <= player < self.n_players:
            raise ValueError(f"player {player!r}; expected 0..{self.n_players - 1}")

    def observation(self, player: int) -> dict:
        """What ``player`` may see, as a JSON-ready dict.

        Hidden (``None``): other players' lure tokens by kind (their count is shown), their
        cast until every cast is in, their adjusted dice until their group is resolved; the
        bag contents and the draw pile. Raises ``ValueError`` for a bad seat.
        """
        o = self.observation_array(player)
        players = []
        for p in range(self.n_players):
            b = K.PB + p * K.PSTRIDE
            held = None if o[b + K.P_HELD] < 0 else {
                LURE_KINDS[k]: int(o[b + K.P_HELD + k]) for k in range(K.NK)}
            cast = None
            if o[b + K.P_N6] >= 0 and (o[b + K.P_CAST_DONE] or self.phase != "cast"):
                cast = {"d6": int(o[b + K.P_N6]),
                        "special": [SPECIAL_NAMES[i] for i in range(3)
                                    if o[b + K.P_SPEC] & (1 << i)],
                        "lures": {LURE_KINDS[k]: int(o[b + K.P_CAST + k])
                                  for k in range(K.NK) if o[b + K.P_CAST + k] > 0}}
            players.append({
                "seat": p,
                "lures": held,
                "n_lures": int(o[b + K.P_NHELD]),
                "cast_done": bool(o[b + K.P_CAST_DONE]),
                "cast": cast,
                "roll": {SLOT_NAMES[s]: int(o[b + K.P_RAW + s]) for s in range(K.NSLOT)
                         if o[b + K.P_RAW + s] >= 0},
                "dice": {SLOT_NAMES[s]: int(o[b + K.P_DICE + s]) for s in range(K.NSLOT)
                         if o[b + K.P_DICE + s] >= 0},
                "resting": [SPECIAL_NAMES[i] for i in range(3) if o[b + K.P_RESTING] & (1 << i)],
                "caught": self.caught(p),
                "fish_points": int(o[b + K.P_POINTS]),
                "boosts_kept": int(o[b + K.P_KEPT]),
                "trophies": int(o[b + K.P_TROPHY]),
                "last_round": None if o[b + K.P_LAST_NDICE] < 0 else {
                    "cast": {"d6": int(o[b + K.P_LAST_N6]),
                             "special": [SPECIAL_NAMES[i] for i in range(3)
                                         if o[b + K.P_LAST_SPEC] & (1 << i)],
                             "lures": {LURE_KINDS[k]: int(o[b + K.P_LAST_CAST + k])
                                       for k in range(K.NK) if o[b + K.P_LAST_CAST + k] > 0}},
                    "dice": {SLOT_NAMES[s]: int(o[b + K.P_LAST_DICE + s])
                             for s in range(K.NSLOT) if o[b + K.P_LAST_DICE + s] >= 0},
                    "sum": int(o[b + K.P_LAST_SUM]),
                    "turn_order": int(o[b + K.P_LAST_GROUPR]),
                    "caught": int(o[b + K.P_LAST_CAUGHT])},
            })
        return {
            "player": int(player), "phase": self.phase, "round": self.round,
            "final_round": bool(o[K.H_FINAL]), "current_player": int(o[K.H_CUR]),
            "table": self.table(), "fish_left_in_deck": int(o[K.H_NDRAW]),
            "bag_size": int(o[K.H_BAGN]),
            "discard": {LURE_KINDS[k]: int(o[K.H_DISC + k]) for k in range(K.NK)},
            "players": players,
            "scores": self.scores().tolist() if self.is_terminal() else None,
        }

    def __str__(self) -> str:
        dw = " + Deep Waters" if self.config.deep_waters else ""
        final = " (final)" if self.state[K.H_FINAL] else ""
        lines = [f"Lure, {self.n_players} players{dw}, round {self.round}{final}, "
                 f"phase {self.phase}, fish left in deck {int(self.state[K.H_NDRAW])}"]
        tab = []
        for cid in self.table():
            i = self.deck.index(cid)
            req = self.deck.requirement_text(i)
            tab.append(f"{cid}[{int(self.deck.catch_numbers[i])}+{' ' + req if req else ''}: "
                       f"{int(self.deck.points[i])}pt]")
        lines.append("table: " + (" ".join(tab) if tab else "(empty)"))
        for p in range(self.n_players):
            b = self._pb(p)
            held = {LURE_KINDS[k]: int(self.state[b + K.P_HELD + k]) for k in range(K.NK)
                    if self.state[b + K.P_HELD + k]}
            roll = " ".join(f"{SLOT_NAMES[s]}={int(self.state[b + K.P_DICE + s])}"
                            for s in range(K.NSLOT) if self.state[b + K.P_DICE + s] >= 0)
            lines.append(
                f"P{p}: {int(self.state[b + K.P_POINTS])} fish pts, "
                f"{int(self.state[b + K.P_KEPT])} boosts, fish {self.caught(p)}, lures {held}"
                + (f", roll {roll}" if roll else "")
                + (f", score {int(self.state[b + K.P_SCORE])}" if self.is_terminal() else ""))
        if not self.is_terminal():
            lines.append(f"to act: P{self.current_player()}")
        return "\n".join(lines)

    # ------------------------------------------------------------ records
    def record(self, agents=None) -> dict:
        """JSON-ready record of the game so far (config, deck rows, seeds, actions, result)."""
        seed = self.seed if isinstance(self.seed, (int, np.integer)) else None
        phases = self.clone_at_start()
        acts = []
        for p, a in self.history:
            acts.append({"player": p, "action": a, "text": phases.action_to_string(a)})
            phases.apply_action(a)
        rec = {
            "format": RECORD_FORMAT, "version": RECORD_VERSION,
            "config": self.config.to_dict(),
            "deck": {"source": self.deck.source, "sha256": self.deck.sha256(),
                     "rows": self.deck.rows()},
            "seed": None if seed is None else int(seed), "game_index": self.game_index,
            "game_seed": str(self.game_seed),
            "agents": list(agents) if agents is not None else None,
            "actions": acts,
            "terminal": self.is_terminal(),
            "scores": self.scores().tolist() if self.is_terminal() else None,
            "returns": self.returns().tolist() if self.is_terminal() else None,
        }
        return rec

    def clone_at_start(self) -> LureGame:
        """A fresh game with the same config, deck and seeds (no action applied)."""
        return LureGame(self.config, self.deck, self.seed, self.game_index,
                        game_seed=self.game_seed)

    def save_record(self, path, agents=None) -> None:
        """Write :meth:`record` as JSON to ``path``."""
        Path(path).write_text(json.dumps(self.record(agents), indent=1))

    @classmethod
    def replay(cls, record) -> LureGame:
        """Rebuild a game from a record (dict, JSON text or path) and check its result.

        Raises:
            ValueError: not a Lure record, an action illegal where it is replayed (naming its
                index), a player mismatch, or final scores different from the recorded ones.
        """
        if isinstance(record, (str, Path)) and not str(record).lstrip().startswith("{"):
            record = json.loads(Path(record).read_text())
        elif isinstance(record, str):
            record = json.loads(record)
        if record.get("format") != RECORD_FORMAT:
            raise ValueError(f"not a Lure record: format {record.get('format')!r}, expected "
                             f"{RECORD_FORMAT!r}")
        config = LureConfig.from_dict(record["config"])
        deck = D.deck_from_rows(record["deck"]["rows"], source=record["deck"].get("source",
                                                                                  "<record>"))
        game = cls(config, deck, record.get("seed") or 0, record.get("game_index", 0),
                   game_seed=int(record["game_seed"]))
        for i, step in enumerate(record["actions"]):
            if game.current_player() != step["player"]:
                raise ValueError(f"record action {i}: player {step['player']} recorded, but "
                                 f"player {game.current_player()} is to act")
            try:
                game.apply_action(int(step["action"]))
            except ValueError as e:
                raise ValueError(f"record action {i}: {e}") from None
        if record.get("scores") is not None:
            if not game.is_terminal() or game.scores().tolist() != list(record["scores"]):
                got = game.scores().tolist() if game.is_terminal() else None
                raise ValueError(f"replayed scores {got} differ from the record's "
                                 f"{record['scores']}")
        return game


def play_game(config: LureConfig | None = None, agents=("greedy",), seed=0, game_index=0,
              deck: D.Deck | None = None) -> LureGame:
    """Play one whole game through the step API with compiled agents (one name per seat, or one
    for all). Returns the finished :class:`LureGame` (its ``record()`` replays)."""
    from agents.lure import Agent

    game = LureGame(config, deck, seed, game_index)
    names = list(agents) if not isinstance(agents, str) else [agents]
    if len(names) == 1:
        names = names * game.n_players
    if len(names) != game.n_players:
        raise ValueError(f"{len(names)} agents for {game.n_players} players")
    seats = [Agent(n) for n in names]
    while not game.is_terminal():
        game.apply_action(seats[game.current_player()].act(game))
    return game
