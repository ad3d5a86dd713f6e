"""River Rats (``../shared/rules/river_rats.md``): rules core, step API and batch simulator.

- :class:`Config`: every rule variant and **[decision]** of the rules file as a field;
- :func:`new_game` -> :class:`State` (step API, door 1), :func:`replay`, :func:`load_record`;
- :func:`play_batch` (compiled batch simulator, door 2) and its lower levels
  :func:`play_games`, :func:`play_sums`;
- :mod:`engines.river_rats.core`: the compiled kernels and the flat state layout.
"""

from engines.river_rats import core
from engines.river_rats.config import DIFFICULTIES, SUIT_LETTERS, Config
from engines.river_rats.core import game_seed
from engines.river_rats.state import RECORD_FORMAT, State, load_record, new_game, replay
from engines.river_rats.batch import (  # noqa: E402,I001 - batch imports agents, which import core
    COLUMNS,
    SUM_FIELDS,
    play_batch,
    play_game_stepwise,
    play_games,
    play_sums,
    resolve_policies,
    summary_frame,
)

__all__ = [
    "Config", "DIFFICULTIES", "SUIT_LETTERS", "State", "new_game", "replay", "load_record",
    "RECORD_FORMAT", "play_batch", "play_games", "play_sums", "summary_frame",
    "play_game_stepwise", "resolve_policies", "COLUMNS", "SUM_FIELDS", "game_seed", "core",
]
