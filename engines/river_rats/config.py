"""Configuration of a River Rats game: every rule variant and every **[decision]** of
``docs/rules/river_rats.md`` as one documented field of :class:`RiverRatsConfig`.

The compiled kernels read the configuration as a small ``int64`` array
(:meth:`RiverRatsConfig.to_array`)
whose layout is:

=====  ==================  =====================================================================
index  name                meaning
=====  ==================  =====================================================================
0      CFG_N_PLAYERS       1..4
1      CFG_RAT_ACTIVE      suit 0..3 of the first (active) Rat, -1 = random
2      CFG_RAT_WAITING     suit 0..3 of the second (waiting) Rat, -1 = random
3-6    CFG_CHAR0..3        character suit of seat 0..3, -1 = random (all -1 or none -1)
7      CFG_DIFFICULTY      0 first_game, 1 normal, 2 advanced, 3 expert
8      CFG_MATCH           0 exact, 1 at_least
9      CFG_STAYS           1 = ``defeated_rat_stays``
10     CFG_FIRST_PLAYER    seat of the first turn
11     CFG_EMPTY_DRAW      0 skip, 1 lose
12     CFG_FG_BONUS        1 = defeat bonuses apply at ``first_game``
13     CFG_RANKING         tie-break options of the hand ranking, bit flags: 1 = full house by
                           the three then the pair; 2 = four/three of a kind by the set only;
                           4 = two pair without the kicker; 8 = two pair by the higher pair only
=====  ==================  =====================================================================
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

__all__ = ["RiverRatsConfig", "DIFFICULTIES", "SUIT_LETTERS", "CFG_SIZE"]

SUIT_LETTERS = "CDHS"
"""Suit letters by suit number (0 clubs, 1 diamonds, 2 hearts, 3 spades), as used in configs."""
DIFFICULTIES = ("first_game", "normal", "advanced", "expert")
"""Difficulty names by code (``docs/rules/river_rats.md``, "Difficulty levels")."""
PREDICTION_MATCHES = ("exact", "at_least")
EMPTY_DRAWS = ("skip", "lose")

CFG_N_PLAYERS, CFG_RAT_ACTIVE, CFG_RAT_WAITING = 0, 1, 2
CFG_CHAR0 = 3
CFG_DIFFICULTY, CFG_MATCH, CFG_STAYS, CFG_FIRST_PLAYER, CFG_EMPTY_DRAW, CFG_FG_BONUS = (
    7, 8, 9, 10, 11, 12)
CFG_RANKING = 13
CFG_SIZE = 14
RANK_FH_PAIR, RANK_SET_ONLY, RANK_2P_NO_KICKER, RANK_2P_HIGH_ONLY = 1, 2, 4, 8
FULL_HOUSE_TIES = ("tie", "pair")
SET_TIES = ("kickers", "set_only")
TWO_PAIR_TIES = ("pairs_then_kicker", "pairs_only", "higher_pair_only")

_SUIT_ALIASES = {"c": 0, "♣": 0, "d": 1, "♦": 1, "h": 2, "♥": 2, "s": 3, "♠": 3}


def _suit(value, field: str) -> int:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and 0 <= value <= 3:
        return int(value)
    if isinstance(value, str) and value.strip().lower() in _SUIT_ALIASES:
        return _SUIT_ALIASES[value.strip().lower()]
    raise ValueError(f"bad {field}: {value!r} is not a suit (expected one of 'C', 'D', 'H', 'S')")


@dataclass(frozen=True)
class RiverRatsConfig:
    """Rules of one River Rats game (``docs/rules/river_rats.md``).

    Fields (defaults are the rules file's):

    - ``n_players`` (int, default 4): 1..4 players; 1 is the solo game ("Solo" under "Powers").
    - ``rats`` (``(active, waiting)`` suit letters such as ``("D", "S")``, or ``None``, default):
      the ordered pair of River Rats ("Setup" 2); ``None`` draws both at random from the four
      Kings. Both must differ.
    - ``characters`` (tuple of ``n_players`` distinct suit letters in seat order, or ``None``,
      default): the Aces the players take ("Setup" 1); ``None`` deals them at random.
    - ``difficulty`` (default ``"normal"``): ``"first_game"``, ``"normal"``, ``"advanced"`` or
      ``"expert"`` ("Difficulty levels").
    - ``prediction_match`` (default ``"exact"``) **[decision]**: ``"exact"`` earns a joker when
      the players' best category equals the predicted one, ``"at_least"`` when it is that
      category or higher ("Resolution" 1).
    - ``defeated_rat_stays`` (default ``True``) **[decision]**: the first Rat's King stays in the
      Rat's hand for the second Rat ("Round setup" 1); ``False`` removes it from the game.
    - ``first_player`` (default 0) **[decision]**: seat of the first turn of the game ("A turn").
    - ``empty_draw`` (default ``"skip"``) **[decision]**: when a card is needed and both the deck
      and the discard pile are empty, ``"skip"`` simply does not draw it; ``"lose"`` ends the
      game as a loss for the players ("Resolution", last paragraph).
    - ``first_game_defeat_bonuses`` (default ``True``) **[decision]**: at ``first_game`` the Rats
      have no abilities but their defeat bonuses still apply; ``False`` switches them off too.
    - ``full_house_ties`` (default ``"tie"``) **[decision]** ("Hand ranking"): full houses with
      the same three are a tie; ``"pair"`` lets the pair decide.
    - ``set_ties`` (default ``"kickers"``) **[decision]**: four and three of a kind compare the
      rank of the set, then the kickers high to low; ``"set_only"`` ignores the kickers.
    - ``two_pair_ties`` (default ``"pairs_then_kicker"``) **[decision]**: two pair compares the
      higher pair, the lower pair, then the kicker; ``"pairs_only"`` ignores the kicker,
      ``"higher_pair_only"`` compares the higher pair alone.
      (Flushes, straights and straight flushes by the highest card only are rules, not options.)

    Raises ``ValueError`` naming the field for any bad value (see :meth:`__post_init__`).
    """

    n_players: int = 4
    rats: tuple[str, str] | None = None
    characters: tuple[str, ...] | None = None
    difficulty: str = "normal"
    prediction_match: str = "exact"
    defeated_rat_stays: bool = True
    first_player: int = 0
    empty_draw: str = "skip"
    first_game_defeat_bonuses: bool = True
    full_house_ties: str = "tie"
    set_ties: str = "kickers"
    two_pair_ties: str = "pairs_then_kicker"

    def __post_init__(self) -> None:
        """Validate every field; raises ``ValueError`` naming the bad field and the expected
        values. Suit letters are normalised to upper-case ``C D H S``."""
        n = self.n_players
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= 4:
            raise ValueError(f"bad n_players: {n!r} (expected an integer 1..4)")
        object.__setattr__(self, "n_players", int(n))
        if self.rats is not None:
            if isinstance(self.rats, str) or len(self.rats) != 2:
                raise ValueError(f"bad rats: {self.rats!r} (expected a pair (active, waiting) of "
                                 f"suit letters such as ('D', 'S'), or None for random)")
            a, w = (_suit(x, "rats") for x in self.rats)
            if a == w:
                raise ValueError(f"bad rats: {self.rats!r} (the two Rats must differ)")
            object.__setattr__(self, "rats", (SUIT_LETTERS[a], SUIT_LETTERS[w]))
        if self.characters is not None:
            if isinstance(self.characters, str) or len(self.characters) != self.n_players:
                raise ValueError(f"bad characters: {self.characters!r} (expected {self.n_players}"
                                 f" suit letters, one per seat, or None for random)")
            ch = [_suit(x, "characters") for x in self.characters]
            if len(set(ch)) != len(ch):
                raise ValueError(f"bad characters: {self.characters!r} (each player takes a "
                                 f"different Ace)")
            object.__setattr__(self, "characters", tuple(SUIT_LETTERS[c] for c in ch))
        if self.difficulty not in DIFFICULTIES:
            raise ValueError(f"bad difficulty: {self.difficulty!r} "
                             f"(expected one of {DIFFICULTIES})")
        if self.prediction_match not in PREDICTION_MATCHES:
            raise ValueError(f"bad prediction_match: {self.prediction_match!r} "
                             f"(expected one of {PREDICTION_MATCHES})")
        if not isinstance(self.defeated_rat_stays, (bool, np.bool_)):
            raise ValueError(f"bad defeated_rat_stays: {self.defeated_rat_stays!r} "
                             f"(expected a bool)")
        fp = self.first_player
        if isinstance(fp, bool) or not isinstance(fp, (int, np.integer)) or not 0 <= fp < n:
            raise ValueError(f"bad first_player: {fp!r} (expected a seat 0..{n - 1})")
        if self.empty_draw not in EMPTY_DRAWS:
            raise ValueError(f"bad empty_draw: {self.empty_draw!r} (expected one of {EMPTY_DRAWS})")
        for name, allowed in (("full_house_ties", FULL_HOUSE_TIES), ("set_ties", SET_TIES),
                              ("two_pair_ties", TWO_PAIR_TIES)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"bad {name}: {getattr(self, name)!r} (expected one of "
                                 f"{allowed})")
        if not isinstance(self.first_game_defeat_bonuses, (bool, np.bool_)):
            raise ValueError(f"bad first_game_defeat_bonuses: {self.first_game_defeat_bonuses!r} "
                             f"(expected a bool)")

    def to_array(self) -> np.ndarray:
        """The configuration as the kernels' ``int64`` array of shape ``(CFG_SIZE,)`` (layout in
        the module docstring)."""
        a = np.full(CFG_SIZE, -1, dtype=np.int64)
        a[CFG_N_PLAYERS] = self.n_players
        if self.rats is not None:
            a[CFG_RAT_ACTIVE] = SUIT_LETTERS.index(self.rats[0])
            a[CFG_RAT_WAITING] = SUIT_LETTERS.index(self.rats[1])
        if self.characters is not None:
            for i, c in enumerate(self.characters):
                a[CFG_CHAR0 + i] = SUIT_LETTERS.index(c)
        a[CFG_DIFFICULTY] = DIFFICULTIES.index(self.difficulty)
        a[CFG_MATCH] = PREDICTION_MATCHES.index(self.prediction_match)
        a[CFG_STAYS] = int(bool(self.defeated_rat_stays))
        a[CFG_FIRST_PLAYER] = self.first_player
        a[CFG_EMPTY_DRAW] = EMPTY_DRAWS.index(self.empty_draw)
        a[CFG_FG_BONUS] = int(bool(self.first_game_defeat_bonuses))
        a[CFG_RANKING] = ((RANK_FH_PAIR if self.full_house_ties == "pair" else 0)
                          | (RANK_SET_ONLY if self.set_ties == "set_only" else 0)
                          | (RANK_2P_NO_KICKER if self.two_pair_ties == "pairs_only" else 0)
                          | (RANK_2P_HIGH_ONLY if self.two_pair_ties == "higher_pair_only"
                             else 0))
        return a

    def to_dict(self) -> dict:
        """Plain JSON-able dict of the fields (tuples become lists)."""
        d = dataclasses.asdict(self)
        for k in ("rats", "characters"):
            if d[k] is not None:
                d[k] = list(d[k])
        return d

    @classmethod
    def from_dict(cls, d: dict) -> RiverRatsConfig:
        """Inverse of :meth:`to_dict`; raises ``ValueError`` for unknown field names."""
        names = {f.name for f in dataclasses.fields(cls)}
        bad = sorted(set(d) - names)
        if bad:
            raise ValueError(f"unknown RiverRatsConfig field(s) {bad}: expected some of "
                             f"{sorted(names)}")
        kw = dict(d)
        for k in ("rats", "characters"):
            if kw.get(k) is not None:
                kw[k] = tuple(kw[k])
        return cls(**kw)


def as_config(config) -> RiverRatsConfig:
    """``None`` -> default :class:`RiverRatsConfig`; a dict -> :meth:`RiverRatsConfig.from_dict`;
    a RiverRatsConfig as is."""
    if config is None:
        return RiverRatsConfig()
    if isinstance(config, RiverRatsConfig):
        return config
    if isinstance(config, dict):
        return RiverRatsConfig.from_dict(config)
    raise ValueError(f"bad config: {config!r} (expected a river_rats.RiverRatsConfig, a dict or "
                     f"None)")

