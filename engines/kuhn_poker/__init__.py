"""Kuhn poker (``docs/rules/kuhn_poker.md``): the worked example game of
``docs/adding_a_game.md``, small enough to solve exactly.

- :class:`KuhnPokerConfig` (:mod:`engines.kuhn_poker.config`);
- :func:`new_game` -> :class:`KuhnPokerState` (the step API of :mod:`engines.protocol`);
- :mod:`engines.kuhn_poker.core`: the compiled kernels and the flat state layout.
"""

import importlib

__all__ = ["KuhnPokerConfig", "KuhnPokerState", "new_game", "core"]

_WHERE = {"KuhnPokerConfig": "config", "KuhnPokerState": "game", "new_game": "game"}


def __getattr__(name: str):
    """Load the package's names on first use (PEP 562), so that importing the description or
    the config does not compile the rules core."""
    if name == "core":
        return importlib.import_module("engines.kuhn_poker.core")
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'engines.kuhn_poker' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"engines.kuhn_poker.{where}"), name)
    globals()[name] = value
    return value
