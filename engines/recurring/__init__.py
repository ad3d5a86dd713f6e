"""ReCURRRing, the climbing card game (rules: ``docs/rules/recurring.md``), on the one game
protocol (:mod:`engines.protocol`).

- :mod:`engines.recurring.config`  :class:`RecurringConfig`, every [decision] as an option
- :mod:`engines.recurring.core`    the compiled rules core over a flat ``int64`` state (layout,
  action table, knowledge and determinization rule in its docstring)
- :mod:`engines.recurring.game`    door 1: the step API :class:`RecurringState`, action text

Door 2 (whole games of compiled policies) is :func:`agents.loop.play_batch`; match play (3
games, rules "Scoring") belongs to the experiments layer.
"""

from engines.protocol import replay
from engines.recurring import core
from engines.recurring.config import RecurringConfig
from engines.recurring.game import RecurringState, new_game

__all__ = ["RecurringConfig", "RecurringState", "new_game", "replay", "core"]
