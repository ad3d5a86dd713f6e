"""Configuration of a Rats game: every **[decision]** of ``docs/rules/rats.md`` as an option.

The defaults are the rules file's decisions. :meth:`RatsConfig.to_array` packs the options into
the ``int64 (CONFIG_SIZE,)`` array the compiled kernels read (``engines.rats.core.init_state``
copies it into the state's header, see the layout table of :mod:`engines.rats.core`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

__all__ = ["RatsConfig", "SEQUENCE_TIE_CHOICES", "JOKER_READING_CHOICES", "MAX_ROUNDS_TIE_CHOICES"]

SEQUENCE_TIE_CHOICES = ("later", "earlier")
JOKER_READING_CHOICES = ("strongest", "weakest")
MAX_ROUNDS_TIE_CHOICES = ("shared", "none")


@dataclass(frozen=True)
class RatsConfig:
    """Options of a Rats game (rules: ``docs/rules/rats.md``).

    Attributes
    ----------
    n_players:
        2..5 ("Components and players").
    first_leader:
        Seat 0..n_players-1 that leads the first trick, or ``None`` (default) to draw it from
        the game's RNG ("Deal (first round)").
    ace_high_sequences:
        **[decision]** ``False`` (default): in a sequence the ace counts as 1 only, so Q-K-A is
        not a sequence. ``True``: the ace may also stand above the king (Q-K-A); wrap-arounds
        such as K-A-2 are never sequences.
    sequence_tie:
        **[decision]** who takes a trick between two equal sequences (possible only with
        jokers): ``"later"`` play (default, as for sets) or ``"earlier"`` play.
    joker_pair_rank:
        **[decision]** rank 0..12 (2..A) of an all-joker set; default 12 (ace). A set with
        natural cards always takes their rank.
    joker_sequence_reading:
        **[decision]** ``"strongest"`` (default): a sequence containing jokers is read as the
        strongest sequence consistent with its natural cards (highest top card);
        ``"weakest"``: as the weakest one.
    max_rounds:
        Variant "End of the game": ``None`` (default) plays until at most one player remains;
        an integer ``k >= 1`` stops after round ``k`` and ranks by holding size, then spades,
        hearts, diamonds.
    max_rounds_tie:
        **[decision]** a tie left after the tie-breaks: ``"shared"`` (default, each tied player
        gets an equal share of the win) or ``"none"`` (nobody wins).
    round_cap:
        **[decision]** safety cap, default 200: after this many rounds the game ends as in the
        ``max_rounds`` variant and is flagged ``truncated``.
    """

    n_players: int = 4
    first_leader: int | None = None
    ace_high_sequences: bool = False
    sequence_tie: str = "later"
    joker_pair_rank: int = 12
    joker_sequence_reading: str = "strongest"
    max_rounds: int | None = None
    max_rounds_tie: str = "shared"
    round_cap: int = 200

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Check every field; raises ``ValueError`` naming the bad field, its value and what
        was expected."""
        def bad(field, value, expected):
            raise ValueError(f"RatsConfig.{field} = {value!r} is invalid: expected {expected}")

        if not _is_int(self.n_players) or not 2 <= self.n_players <= 5:
            bad("n_players", self.n_players, "an integer 2..5")
        if self.first_leader is not None and (
            not _is_int(self.first_leader) or not 0 <= self.first_leader < self.n_players
        ):
            bad("first_leader", self.first_leader, f"None or a seat 0..{self.n_players - 1}")
        if not isinstance(self.ace_high_sequences, (bool, np.bool_)):
            bad("ace_high_sequences", self.ace_high_sequences, "True or False")
        if self.sequence_tie not in SEQUENCE_TIE_CHOICES:
            bad("sequence_tie", self.sequence_tie, f"one of {SEQUENCE_TIE_CHOICES}")
        if not _is_int(self.joker_pair_rank) or not 0 <= self.joker_pair_rank <= 12:
            bad("joker_pair_rank", self.joker_pair_rank, "an integer 0..12 (2..A)")
        if self.joker_sequence_reading not in JOKER_READING_CHOICES:
            bad("joker_sequence_reading", self.joker_sequence_reading,
                f"one of {JOKER_READING_CHOICES}")
        if self.max_rounds is not None and (not _is_int(self.max_rounds) or self.max_rounds < 1):
            bad("max_rounds", self.max_rounds, "None or an integer >= 1")
        if self.max_rounds_tie not in MAX_ROUNDS_TIE_CHOICES:
            bad("max_rounds_tie", self.max_rounds_tie, f"one of {MAX_ROUNDS_TIE_CHOICES}")
        if not _is_int(self.round_cap) or self.round_cap < 1:
            bad("round_cap", self.round_cap, "an integer >= 1")

    def to_dict(self) -> dict:
        """The options as a plain JSON-ready dict (game records store it; :meth:`from_dict`
        rebuilds the config)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> RatsConfig:
        """Build a config from :meth:`to_dict` output (missing keys take their defaults).
        Raises ``ValueError`` for a non-dict, unknown keys, or a bad value (naming the
        field)."""
        if not isinstance(d, dict):
            raise ValueError(f"bad RatsConfig {d!r}: expected a dict of its fields")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - names
        if unknown:
            raise ValueError(f"unknown RatsConfig field(s) {sorted(unknown)}: "
                             f"expected {sorted(names)}")
        return cls(**d)

    def to_array(self) -> np.ndarray:
        """``int64`` array of shape ``(CONFIG_SIZE,) = (9,)`` read by
        :func:`engines.rats.core.init_state`:
        ``[n_players, first_leader (-1 = draw), ace_high, sequence_tie_later, joker_pair_rank,
        reading_strongest, max_rounds (0 = none), tie_shared, round_cap]``."""
        return np.array([
            self.n_players,
            -1 if self.first_leader is None else self.first_leader,
            int(bool(self.ace_high_sequences)),
            int(self.sequence_tie == "later"),
            self.joker_pair_rank,
            int(self.joker_sequence_reading == "strongest"),
            0 if self.max_rounds is None else self.max_rounds,
            int(self.max_rounds_tie == "shared"),
            self.round_cap,
        ], dtype=np.int64)


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))
