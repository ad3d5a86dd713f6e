"""Player counts the tests use, read from the games' descriptions (a game added to the registry
needs no line here)."""

from __future__ import annotations

from engines.names import describe


def three_players(game: str) -> int:
    """Three players where ``game`` allows, else the nearest count it allows (its description's
    ``min_players .. max_players``)."""
    d = describe(game)
    return min(max(3, d.min_players), d.max_players)
