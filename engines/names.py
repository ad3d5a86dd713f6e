"""The registry of games: their names, ids, titles and descriptions, importable without
Numba or NumPy (the command line builds its ``--help`` from them in well under a second);
:mod:`engines.protocol` re-exports them.

:data:`REGISTRY` is the one list of games: adding a game is its own files
(``engines/<name>/``, ``agents/<name>.py``, its rules summary) plus one line here
(``docs/adding_a_game.md``). Everything else about a game is its
:class:`engines.description.GameDescription`.
"""

from __future__ import annotations

from engines.description import GameDescription, load_description

__all__ = ["REGISTRY", "GAME_IDS", "GAME_NAMES", "GAME_TITLES", "DESCRIPTIONS", "describe",
           "normalize_game_name"]

REGISTRY = (
    "river_rats",
    "lure",
    "rats",
    "recurring",
    "kuhn_poker",
)
"""The registered games, in id order (one line per game)."""

DESCRIPTIONS: dict[str, GameDescription] = {g: load_description(g) for g in REGISTRY}
"""Game name -> its description (``engines/<game>/description.py``)."""
GAME_IDS = {g: i for i, g in enumerate(REGISTRY)}
"""Game name -> the integer id the compiled dispatch (:mod:`engines.protocol.kernels`)
specializes on."""
GAME_NAMES = tuple(GAME_IDS)
"""The games' names as the code spells them (``"river_rats"``...)."""
GAME_TITLES = {g: d.title for g, d in DESCRIPTIONS.items()}
"""Game name -> its title as printed on the box."""


def normalize_game_name(game: str) -> str:
    """``"river-rats"``/``"River Rats"``/``"river_rats"`` -> ``"river_rats"``; ``ValueError``
    naming the text and the games otherwise."""
    if isinstance(game, str) and game in GAME_IDS:
        return game
    key = str(game).strip().lower().replace("-", "_").replace(" ", "_")
    key = {t.lower().replace(" ", "_"): g for g, t in GAME_TITLES.items()}.get(key, key)
    if key not in GAME_IDS:
        raise ValueError(f"unknown game {game!r}: expected one of {', '.join(GAME_NAMES)}")
    return key


def describe(game: str) -> GameDescription:
    """The description of ``game`` (any spelling :func:`normalize_game_name` accepts);
    ``ValueError`` for an unknown game."""
    return DESCRIPTIONS[normalize_game_name(game)]
