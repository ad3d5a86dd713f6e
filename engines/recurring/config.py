"""Configuration of a ReCURRRing game: every **[decision]** of ``docs/rules/recurring.md``
as an option (or, where the rules leave no alternative, a named constant of
:mod:`engines.recurring.core`).

:meth:`RecurringConfig.to_array` packs the game options into the ``int64`` config array
(``core.CONFIG_SIZE`` words) the compiled kernels read; the match options (a match of
``games_per_match`` games, rules "Scoring") belong to the experiments layer: the engine plays
one game.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

__all__ = ["RecurringConfig", "MATCH_TIE_CHOICES"]

MATCH_TIE_CHOICES = ("shared", "none")


@dataclass(frozen=True)
class RecurringConfig:
    """Options of a ReCURRRing game and match (rules: ``docs/rules/recurring.md``).

    Attributes
    ----------
    n_players:
        3..5; the deck is reduced per player count ("Components and players").
    open_single_every_round:
        **[decision]** ``True`` (default): the start player of *every* round must open with
        exactly one card; ``False``: only in the first round of a game, later start players
        open with any play (still no pass).
    emptier_on_table_scores:
        **[decision]** ``True`` (default): if the player who emptied their hand is the one
        whose play is last on the table, they take it face up as usual; ``False``: it goes
        face down with their other face-down cards (scores nothing).
    games_per_match:
        Games in a match ("Scoring": 3).
    match_tie:
        **[decision]** ``"shared"`` (default): players tied on the highest match total share
        the win; ``"none"``: a tied match has no winner.

    The remaining decision, "a player whose hand is empty cannot act and is skipped", has no
    alternative an engine could offer and is the constant
    :data:`engines.recurring.core.EMPTY_HAND_SKIPPED`.
    """

    n_players: int = 4
    open_single_every_round: bool = True
    emptier_on_table_scores: bool = True
    games_per_match: int = 3
    match_tie: str = "shared"

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Check every field; raises ``ValueError`` naming the bad field, its value and what
        was expected."""
        def bad(field, value, expected):
            raise ValueError(f"RecurringConfig.{field} = {value!r} is invalid: expected {expected}")

        if not _is_int(self.n_players) or not 3 <= self.n_players <= 5:
            bad("n_players", self.n_players, "an integer 3..5")
        for name in ("open_single_every_round", "emptier_on_table_scores"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                bad(name, getattr(self, name), "True or False")
        if not _is_int(self.games_per_match) or self.games_per_match < 1:
            bad("games_per_match", self.games_per_match, "an integer >= 1")
        if self.match_tie not in MATCH_TIE_CHOICES:
            bad("match_tie", self.match_tie, f"one of {MATCH_TIE_CHOICES}")

    def to_dict(self) -> dict:
        """The options as a plain JSON-ready dict (used in game records)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> RecurringConfig:
        """Build a config from :meth:`to_dict` output (missing keys take their defaults);
        raises ``ValueError`` for something that is not a dict, an unknown key or a bad
        value."""
        names = {f.name for f in dataclasses.fields(cls)}
        if not isinstance(d, dict):
            raise ValueError(f"bad RecurringConfig {d!r}: expected a dict of its fields "
                             f"{sorted(names)}")
        unknown = set(d) - names
        if unknown:
            raise ValueError(f"unknown RecurringConfig field(s) {sorted(unknown)}: "
                             f"expected {sorted(names)}")
        return cls(**d)

    def to_array(self) -> np.ndarray:
        """The config array of the rules core, ``int64 (CONFIG_SIZE,)`` = ``(3,)``:
        ``[n_players, open_single_every_round, emptier_on_table_scores]`` (the match options
        ``games_per_match`` and ``match_tie`` are applied by the experiments, not the core)."""
        return np.array([self.n_players, int(bool(self.open_single_every_round)),
                         int(bool(self.emptier_on_table_scores))], dtype=np.int64)


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))
