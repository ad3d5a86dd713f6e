"""ReCURRRing, the climbing card game (rules: ``docs/rules/recurring.md``), on the one game
protocol (:mod:`engines.protocol`).

- :mod:`engines.recurring.config`  :class:`RecurringConfig`, every [decision] as an option
- :mod:`engines.recurring.core`    the compiled rules core over a flat ``int64`` state (layout,
  action table, knowledge and determinization rule in its docstring)
- :mod:`engines.recurring.game`    door 1: the step API :class:`RecurringState`, action text

Door 2 (whole games of compiled policies) is :func:`agents.loop.play_batch`; match play (3
games, rules "Scoring") belongs to the experiments layer.
"""

from engines.description import lazy_names

__all__ = ["RecurringConfig", "RecurringState", "new_game", "replay", "core"]

__getattr__, __dir__ = lazy_names(
    __name__, __all__,
    {"RecurringConfig": "engines.recurring.config", "RecurringState": "engines.recurring.game",
     "new_game": "engines.recurring.game", "replay": "engines.protocol"})
