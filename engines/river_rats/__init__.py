"""River Rats (``docs/rules/river_rats.md``): rules core and step API.

- :class:`Config`: every rule variant and **[decision]** of the rules file as a field;
- :func:`new_game` -> :class:`RiverRatsState` (the step API of :mod:`engines.protocol`),
  :func:`replay`, :func:`load_record`;
- :mod:`engines.river_rats.core`: the compiled kernels and the flat state layout.

Whole games of compiled policies (door 2) are played by :func:`agents.loop.play_batch`.
"""

from engines.chance import game_seed
from engines.protocol import load_record, replay
from engines.river_rats import core
from engines.river_rats.config import DIFFICULTIES, SUIT_LETTERS, Config
from engines.river_rats.game import RULES_SUMMARY, RiverRatsState, new_game

State = RiverRatsState
"""Alias of :class:`RiverRatsState`."""

__all__ = ["Config", "DIFFICULTIES", "SUIT_LETTERS", "RiverRatsState", "State", "new_game",
           "replay", "load_record", "game_seed", "core", "RULES_SUMMARY"]
