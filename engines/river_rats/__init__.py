"""River Rats (``docs/rules/river_rats.md``): rules core and step API.

- :class:`RiverRatsConfig` (``Config``: its deprecated old name): every rule variant and
  **[decision]** of the rules file as a field;
- :func:`new_game` -> :class:`RiverRatsState` (the step API of :mod:`engines.protocol`),
  :func:`replay`, :func:`load_record`;
- :mod:`engines.river_rats.core`: the compiled kernels and the flat state layout.

Whole games of compiled policies (door 2) are played by :func:`agents.loop.play_batch`.
"""

from engines.description import lazy_names

__all__ = ["RiverRatsConfig", "DIFFICULTIES", "SUIT_LETTERS", "RiverRatsState", "State", "new_game",
           "replay", "load_record", "game_seed", "core", "RULES_SUMMARY"]

__getattr__, __dir__ = lazy_names(
    __name__, __all__,
    {"RiverRatsConfig": "engines.river_rats.config", "DIFFICULTIES": "engines.river_rats.config",
     "SUIT_LETTERS": "engines.river_rats.config", "RiverRatsState": "engines.river_rats.game",
     "State": "engines.river_rats.game:RiverRatsState", "new_game": "engines.river_rats.game",
     "RULES_SUMMARY": "engines.river_rats.game", "replay": "engines.protocol",
     "load_record": "engines.protocol", "game_seed": "engines.protocol.chance"})
