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

from engines.description import lazy_names

__all__ = ["LureConfig", "LureState", "new_game", "replay", "core", "Deck", "default_deck",
           "load_deck"]

__getattr__, __dir__ = lazy_names(
    __name__, __all__,
    {"LureConfig": "engines.lure.config", "LureState": "engines.lure.game",
     "new_game": "engines.lure.game", "replay": "engines.protocol",
     "Deck": "engines.lure.decks", "default_deck": "engines.lure.decks",
     "load_deck": "engines.lure.decks"})
