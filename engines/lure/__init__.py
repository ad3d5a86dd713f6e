"""Lure (Allplay, 2024): fish decks as data, the rules core, the two doors.

* :mod:`engines.lure.decks`: the fish-deck file format, loader and default deck;
* :mod:`engines.lure.config`: :class:`LureConfig` (every [decision] of the rules file);
* :mod:`engines.lure.core`: compiled kernels over the flat state (the rules);
* :mod:`engines.lure.game`: door 1, the step API :class:`LureGame` and JSON records;
* :mod:`engines.lure.batch`: door 2, the compiled :func:`play_batch`.

Rules: ``../shared/rules/lure.md``.
"""

from engines.lure.config import LureConfig
from engines.lure.decks import Deck, default_deck, load_deck

__all__ = ["LureConfig", "Deck", "default_deck", "load_deck", "LureGame", "play_batch",
           "simulate"]


def __getattr__(name):
    if name == "LureGame":
        from engines.lure.game import LureGame

        return LureGame
    if name in ("play_batch", "simulate"):
        from engines.lure import batch

        return getattr(batch, name)
    raise AttributeError(name)
