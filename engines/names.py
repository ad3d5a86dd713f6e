"""The four games' names and ids, importable without Numba or NumPy (the command line builds
its ``--help`` from them in well under a second); :mod:`engines.protocol` re-exports them."""

from __future__ import annotations

__all__ = ["GAME_IDS", "GAME_NAMES", "GAME_TITLES", "normalize_game_name"]

GAME_IDS = {"river_rats": 0, "lure": 1, "rats": 2, "recurring": 3}
"""Game name -> the integer id the compiled dispatch (:mod:`engines.kernels`) specializes on."""
GAME_NAMES = tuple(GAME_IDS)
"""The games' names as the code spells them (``"river_rats"``...)."""
GAME_TITLES = {"river_rats": "River Rats", "lure": "Lure", "rats": "Rats",
               "recurring": "ReCURRRing"}
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
