"""The one game protocol and the kernels every game shares.

- :mod:`engines.protocol.game`  the protocol: the kernels every rules core offers, the step-API
  base class :class:`GameState`, game records (:func:`replay`, :func:`load_record`), the game
  of a name (:func:`game_class`, :func:`core_of`, :func:`new_game`); re-exported here
- :mod:`engines.protocol.kernels`  compiled calls of a game's kernels by game id
- :mod:`engines.protocol.direct`  compile-time dispatch without a compiled layer of its own
  (:func:`direct_call`, what the calls by game id are made with)
- :mod:`engines.protocol.chance`  the one source of chance (splitmix64 words) of every game and
  policy
- :mod:`engines.protocol.deal`  compiled dealing of random hands (for
  :func:`engines.cards.random_hands`)
- :mod:`engines.protocol.bits`  bit tricks (population count, highest set bit)
- :mod:`engines.protocol.borrow`  views of arrays without Numba's reference counting in hot loops
- :mod:`engines.protocol.hints`  branch hints for the compiler (``unlikely``)
- :mod:`engines.protocol.history`  the game's decision log in a seat's policy memory (for
  inference over hidden cards)
- :mod:`engines.protocol.relabel`  a game's optional relabel hooks (worlds with a consistent
  past) by game id
"""

from __future__ import annotations

from engines.protocol.game import (  # noqa: F401  (the package's public names)
    GAME_IDS,
    GAME_NAMES,
    GAME_TITLES,
    normalize_game_name,
    RECORD_FORMAT,
    core_of,
    game_class,
    GameState,
    new_game,
    replay,
    load_record,
)

__all__ = [
    "GAME_IDS",
    "GAME_NAMES",
    "GAME_TITLES",
    "normalize_game_name",
    "RECORD_FORMAT",
    "core_of",
    "game_class",
    "GameState",
    "new_game",
    "replay",
    "load_record",
]
