"""Kuhn poker (``docs/rules/kuhn_poker.md``): the worked example game of
``docs/adding_a_game.md``, small enough to solve exactly.

- :class:`KuhnPokerConfig` (:mod:`engines.kuhn_poker.config`);
- :func:`new_game` -> :class:`KuhnPokerState` (the step API of :mod:`engines.protocol`);
- :mod:`engines.kuhn_poker.core`: the compiled kernels and the flat state layout.
"""

from engines.description import lazy_names

__all__ = ["KuhnPokerConfig", "KuhnPokerState", "new_game", "core"]

__getattr__, __dir__ = lazy_names(
    __name__, __all__,
    {"KuhnPokerConfig": "engines.kuhn_poker.config", "KuhnPokerState": "engines.kuhn_poker.game",
     "new_game": "engines.kuhn_poker.game"})
