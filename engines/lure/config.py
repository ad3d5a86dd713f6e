"""Lure game configuration: every **[decision]** of ``docs/rules/lure.md`` as an option,
and the fish deck, so that one :class:`LureConfig` says everything a game needs.

:class:`LureConfig` is a frozen dataclass; :meth:`LureConfig.to_array` packs it into the one
``int64 (CONFIG_SIZE,)`` vector the compiled kernels read (``init_state`` copies it into the
static section of the state, so ``apply_action(state, a)`` needs nothing else):

=========================  ==========  ====================================================
cfg index                  position    meaning
=========================  ==========  ====================================================
C_NPLAYERS                 0           players (2..5)
C_DEEP                     1           Deep Waters on (d4, new requirements, 15-card swap)
C_ADJ_UNUSED               2           a played adjust may be left unused
C_UNUSED_LURE_POINTS       3           points per unused lure token at the end
C_TROPHY_BONUS             4           points to the player(s) with the most trophies
C_BOOST_POINTS             5           points per kept boost
C_START_LURES              6           lures each player draws at setup
C_SPLASH_SMALL             7           fish revealed per splash with few players
C_SPLASH_LARGE             8           fish revealed per splash otherwise
C_SMALL_MAX                9           largest player count that uses ``C_SPLASH_SMALL``
C_DEEP_REMOVE              10          cards removed at random after shuffling in Deep Waters
C_MIX .. C_MIX+7           11..18      lure tokens of each kind: adjust, extra 1..6, boost
C_NCARDS                   19          cards in the deck (1..MAX_CARDS)
C_CONDS                    20..979     the deck's condition rows (:mod:`engines.dice`),
                                       ``MAX_CARDS x dice.COND_LEN``, card-major, zero-padded
C_INFO                     980..1235   the deck's info rows (:mod:`engines.lure.decks`:
                                       points, splash, trophy, set), ``MAX_CARDS x INFO_LEN``
=========================  ==========  ====================================================

:data:`CONFIG_SIZE` = 1236.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from engines import dice
from engines.lure import decks

C_NPLAYERS = 0
C_DEEP = 1
C_ADJ_UNUSED = 2
C_UNUSED_LURE_POINTS = 3
C_TROPHY_BONUS = 4
C_BOOST_POINTS = 5
C_START_LURES = 6
C_SPLASH_SMALL = 7
C_SPLASH_LARGE = 8
C_SMALL_MAX = 9
C_DEEP_REMOVE = 10
C_MIX = 11
C_NCARDS = C_MIX + 8
C_CONDS = C_NCARDS + 1
C_INFO = C_CONDS + decks.MAX_CARDS * dice.COND_LEN
CONFIG_SIZE = C_INFO + decks.MAX_CARDS * decks.INFO_LEN
"""Length of :meth:`LureConfig.to_array` (options, then the deck's tables)."""

LURE_KINDS = ("adjust", "x1", "x2", "x3", "x4", "x5", "x6", "boost")
"""Lure token kinds, in the order of every per-kind array (index 0 adjust, 1..6 extra die
showing 1..6, 7 boost)."""


@dataclass(frozen=True)
class LureConfig:
    """Options of one Lure game (rules: ``lure.md``; defaults are the rules file's).

    Attributes:
        n_players: 2..5 players (*Components*).
        deep_waters: play with the Deep Waters expansion (*End and scoring*, last line).
        adjust_may_be_unused: **[decision]** a played adjust may be left unused (it is
            discarded all the same). When False, every adjust must move a die if any die was
            rolled.
        lure_mix: **[decision]** tokens per kind in the bag, order :data:`LURE_KINDS`; default
            6 adjust, two extra-die lures of each value 1..6, 6 boost (24 tokens).
        unused_lure_points: **[decision]** points per lure token left unused at the end
            (default 0: they score nothing).
        trophy_bonus: **[decision]** with Deep Waters, points scored by each player with the
            most trophy icons (at least one) at the end (default 5).
        boost_points: points per boost kept (rules: 2).
        starting_lures: lures each player draws from the bag at setup. The sources do not
            give any; default 0 (gap in the rules file, our choice).
        splash_small / splash_large / splash_small_max_players: fish revealed per splash:
            2 with 2-3 players, else 3 (*A round*, step 1).
        deep_waters_removed: cards removed at random after the 15 new cards are shuffled
            into the 30 (rules: 15, so 30 stay in play).
        deck: the fish deck (:class:`engines.lure.decks.Deck`; default the shipped
            reconstruction, :func:`engines.lure.decks.default_deck`). Part of the config so
            that a record (``to_dict``) replays on the deck it was played with.

    Equality and hashing compare every field, the deck by content. Raises ``ValueError``
    naming the field, the value and what is expected for a bad value.
    """

    n_players: int = 4
    deep_waters: bool = False
    adjust_may_be_unused: bool = True
    lure_mix: tuple[int, ...] = field(default=(6, 2, 2, 2, 2, 2, 2, 6))
    unused_lure_points: int = 0
    trophy_bonus: int = 5
    boost_points: int = 2
    starting_lures: int = 0
    splash_small: int = 2
    splash_large: int = 3
    splash_small_max_players: int = 3
    deep_waters_removed: int = 15
    deck: decks.Deck = field(default_factory=decks.default_deck)

    def __post_init__(self):
        def bad(name, value, expected):
            raise ValueError(f"LureConfig.{name} = {value!r}; expected {expected}")

        if not isinstance(self.n_players, (int, np.integer)) or not 2 <= self.n_players <= 5:
            bad("n_players", self.n_players, "an integer 2..5")
        mix = tuple(self.lure_mix)
        if len(mix) != 8 or any((not isinstance(m, (int, np.integer))) or m < 0 for m in mix):
            bad("lure_mix", self.lure_mix, f"8 counts >= 0 for {LURE_KINDS}")
        if sum(mix) > 60:
            bad("lure_mix", self.lure_mix, "at most 60 tokens in all")
        object.__setattr__(self, "lure_mix", tuple(int(m) for m in mix))
        for name, lo, hi in (("unused_lure_points", -10, 10), ("trophy_bonus", 0, 50),
                             ("boost_points", 0, 20), ("starting_lures", 0, 5),
                             ("splash_small", 1, 10), ("splash_large", 1, 10),
                             ("splash_small_max_players", 1, 5),
                             ("deep_waters_removed", 0, 60)):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or not lo <= v <= hi:
                bad(name, v, f"an integer {lo}..{hi}")
        for name in ("deep_waters", "adjust_may_be_unused"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                bad(name, getattr(self, name), "True or False")
            object.__setattr__(self, name, bool(getattr(self, name)))
        if not isinstance(self.deck, decks.Deck):
            bad("deck", self.deck, "an engines.lure.decks.Deck (load_deck(path) or "
                "default_deck())")
        # the repr is built once (the step API keys per-config caches on it at every decision)
        text = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self))
        object.__setattr__(self, "_repr", f"LureConfig({text})")

    def __repr__(self) -> str:
        return self._repr

    def to_array(self) -> np.ndarray:
        """The config as ``int64 (CONFIG_SIZE,)``: the options, then the deck's condition and
        info rows (layout: the module table)."""
        a = np.zeros(CONFIG_SIZE, np.int64)
        a[C_NPLAYERS] = self.n_players
        a[C_DEEP] = int(self.deep_waters)
        a[C_ADJ_UNUSED] = int(self.adjust_may_be_unused)
        a[C_UNUSED_LURE_POINTS] = self.unused_lure_points
        a[C_TROPHY_BONUS] = self.trophy_bonus
        a[C_BOOST_POINTS] = self.boost_points
        a[C_START_LURES] = self.starting_lures
        a[C_SPLASH_SMALL] = self.splash_small
        a[C_SPLASH_LARGE] = self.splash_large
        a[C_SMALL_MAX] = self.splash_small_max_players
        a[C_DEEP_REMOVE] = self.deep_waters_removed
        a[C_MIX:C_MIX + 8] = self.lure_mix
        n = len(self.deck)
        a[C_NCARDS] = n
        a[C_CONDS:C_CONDS + n * dice.COND_LEN] = self.deck.conds.ravel()
        a[C_INFO:C_INFO + n * decks.INFO_LEN] = self.deck.info.ravel()
        return a

    def to_dict(self) -> dict:
        """JSON-ready dict of the fields; ``deck`` becomes ``{"source", "sha256", "rows"}``
        (:meth:`engines.lure.decks.Deck.rows`), which :meth:`from_dict` reads back."""
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["lure_mix"] = list(self.lure_mix)
        d["deck"] = {"source": self.deck.source, "sha256": self.deck.sha256(),
                     "rows": self.deck.rows()}
        return d

    @classmethod
    def from_dict(cls, d: dict) -> LureConfig:
        """Inverse of :meth:`to_dict` (missing fields take their defaults). ``deck`` may be the
        dict of :meth:`to_dict` (its ``sha256``, when present, must match the rows), a list of
        deck rows or a :class:`engines.lure.decks.Deck`. Raises ``ValueError`` naming an
        unknown field, a malformed deck or a bad value."""
        if not isinstance(d, dict):
            raise ValueError(f"bad LureConfig dict {d!r}: expected a dict of its fields")
        names = {f.name for f in dataclasses.fields(cls)}
        for k in d:
            if k not in names:
                raise ValueError(f"unknown LureConfig field {k!r}; expected one of {sorted(names)}")
        d = dict(d)
        if "lure_mix" in d and isinstance(d["lure_mix"], (list, tuple)):
            d["lure_mix"] = tuple(d["lure_mix"])
        if "deck" in d:
            d["deck"] = _deck_from(d["deck"])
        return cls(**d)


def _deck_from(value) -> decks.Deck:
    """A :class:`Deck` from the ``deck`` entry of a config dict; ``ValueError`` otherwise."""
    if isinstance(value, decks.Deck):
        return value
    if isinstance(value, list):
        return decks.deck_from_rows(value, "<config>")
    if isinstance(value, dict) and isinstance(value.get("rows"), list):
        deck = decks.deck_from_rows(value["rows"], str(value.get("source", "<config>")))
        want = value.get("sha256")
        if want is not None and want != deck.sha256():
            raise ValueError(f"LureConfig.deck: the rows hash to {deck.sha256()[:16]}..., not "
                             f"the recorded sha256 {str(want)[:16]}...")
        return deck
    raise ValueError(f"LureConfig.deck = {value!r:.60}; expected a Deck, a list of deck rows or "
                     f"a dict with 'rows'")
