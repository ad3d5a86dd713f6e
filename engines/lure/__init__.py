"""Lure (Allplay, 2024) on the one game protocol of :mod:`engines.protocol`.

* :mod:`engines.lure.decks`: the fish-deck file format, loader and default deck;
* :mod:`engines.lure.config`: :class:`LureConfig` (every [decision] of the rules file, and the
  deck);
* :mod:`engines.lure.core`: the compiled kernels over the flat state (the rules, the action
  table, observation and determinization);
* :mod:`engines.lure.game`: door 1, the step API :class:`LureState`.

Whole games of compiled policies (door 2) are played by :func:`agents.loop.play_batch`.
Rules: ``docs/rules/lure.md``.
"""

from engines.lure import core
from engines.lure.config import LureConfig
from engines.lure.decks import Deck, default_deck, load_deck
from engines.lure.game import LureState, new_game
from engines.protocol import replay

__all__ = ["LureConfig", "LureState", "new_game", "replay", "core", "Deck", "default_deck",
           "load_deck"]


def __getattr__(name: str):
    """The deprecated old name ``LureGame`` (now :class:`LureState`), with a
    ``DeprecationWarning``."""
    if name == "LureGame":
        import warnings

        warnings.warn("engines.lure.LureGame is deprecated: use LureState", DeprecationWarning,
                      stacklevel=2)
        return LureState
    raise AttributeError(f"module 'engines.lure' has no attribute {name!r}")
