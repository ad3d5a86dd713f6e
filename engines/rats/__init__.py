"""Rats, the climbing trick game (rules: ``../shared/rules/rats.md``).

- :mod:`engines.rats.config`  :class:`RatsConfig`, every [decision] of the rules as an option
- :mod:`engines.rats.core`    the compiled rules core over a flat ``int64`` state (layout table)
- :mod:`engines.rats.game`    door 1: the step API :class:`RatsGame`, action text, JSON records
- :mod:`engines.rats.batch`   door 2: :func:`play_batch`, whole games in one compiled loop

``play_batch`` is imported lazily (it needs :mod:`agents.rats`, which needs the core).
"""

from engines.rats.config import RatsConfig
from engines.rats.core import trick_winner
from engines.rats.game import RatsGame, action_to_string, new_game, replay

__all__ = ["RatsConfig", "RatsGame", "new_game", "replay", "action_to_string", "trick_winner",
           "play_batch"]


def __getattr__(name):
    if name == "play_batch":
        from engines.rats.batch import play_batch

        return play_batch
    raise AttributeError(f"module 'engines.rats' has no attribute {name!r}")
