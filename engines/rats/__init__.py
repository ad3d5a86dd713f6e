"""Rats, the climbing trick game (rules: ``docs/rules/rats.md``), behind the one game
protocol (:mod:`engines.protocol`).

- :mod:`engines.rats.config`  :class:`RatsConfig`, every [decision] of the rules as an option
- :mod:`engines.rats.core`    the compiled rules core: the protocol's kernels over a flat
  ``int64`` state (layout, action table and determinization rule in its docstring)
- :mod:`engines.rats.game`    door 1: the step API :class:`RatsState` (action text, moves,
  observation dict, readable table)

Whole games of compiled policies (door 2) run in :func:`agents.loop.play_batch`; records replay
with :func:`replay` (:func:`engines.protocol.replay`).
"""

from engines.description import lazy_names

__all__ = ["RatsConfig", "RatsState", "new_game", "replay", "core"]

__getattr__, __dir__ = lazy_names(
    __name__, __all__,
    {"RatsConfig": "engines.rats.config", "RatsState": "engines.rats.game",
     "new_game": "engines.rats.game", "replay": "engines.protocol"})
