"""Configuration of a Kuhn poker game (``docs/rules/kuhn_poker.md``): the player count, which
Kuhn's game fixes at 2 (a field all the same, as every game of the protocol has one)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

__all__ = ["KuhnPokerConfig"]


@dataclass(frozen=True)
class KuhnPokerConfig:
    """Options of a Kuhn poker game.

    ``n_players`` (int, default 2): 2, the only count of Kuhn's game (rules, "Players").
    """

    n_players: int = 2

    def __post_init__(self) -> None:
        if isinstance(self.n_players, (bool, np.bool_)) or self.n_players != 2:
            raise ValueError(f"KuhnPokerConfig.n_players = {self.n_players!r} is invalid: "
                             f"expected 2")

    def to_dict(self) -> dict:
        """The options as a plain JSON-ready dict (game records)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> KuhnPokerConfig:
        """A config from :meth:`to_dict` output; ``ValueError`` for an unknown key or a bad
        value."""
        names = {f.name for f in dataclasses.fields(cls)}
        if not isinstance(d, dict) or set(d) - names:
            raise ValueError(f"bad KuhnPokerConfig {d!r}: expected a dict of {sorted(names)}")
        return cls(**d)

    def to_array(self) -> np.ndarray:
        """The config array of the rules core, ``int64 (1,)``: ``[n_players]``."""
        return np.array([int(self.n_players)], dtype=np.int64)
