"""The names of every game's shipped agents, for ``--help`` (which must not import Numba or
the agents to list them: ``tests/test_cli_help_agents.py`` checks this table against the
registry, :func:`agents.policy.specs`, so it cannot fall out of date)."""

from __future__ import annotations

__all__ = ["AGENT_NAMES", "agents_help"]

AGENT_NAMES: dict[str, tuple[str, ...]] = {
    "river_rats": (
        "random", "greedy", "heuristic", "peek", "net", "pimc-fast", "pimc", "pimc-strong",
        "ismcts-fast", "ismcts", "ismcts-strong", "pimc-peek", "net-search-lite",
        "net-search-fast", "net-search", "net-search-strong", "net-ismcts"
    ),
    "lure": (
        "random", "greedy", "heuristic", "cautious", "bold", "net", "pimc-fast", "pimc",
        "pimc-strong", "ismcts-fast", "ismcts", "ismcts-strong", "pimc-peek", "net-search-lite",
        "net-search-fast", "net-search", "net-search-strong", "net-ismcts"
    ),
    "rats": (
        "random", "greedy", "heuristic", "net", "pimc-fast", "pimc", "pimc-strong",
        "ismcts-fast", "ismcts", "ismcts-strong", "pimc-peek", "net-search-lite",
        "net-search-fast", "net-search", "net-search-strong", "net-ismcts"
    ),
    "recurring": (
        "random", "greedy", "heuristic", "net", "pimc-fast", "pimc", "pimc-strong",
        "ismcts-fast", "ismcts", "ismcts-strong", "pimc-peek", "net-search-lite",
        "net-search-fast", "net-search", "net-search-strong", "net-ismcts"
    ),
    "kuhn_poker": (
        "random", "heuristic", "pimc-fast", "pimc", "pimc-strong", "ismcts-fast", "ismcts",
        "ismcts-strong", "pimc-peek"
    ),
}
"""Registry names of each game's shipped agents, in registry order."""


def agents_help(games=None) -> str:
    """The shipped agents of ``games`` (default: every game) as help text, one
    ``Title: name, name, ...`` part per game."""
    from engines.names import describe

    parts = [f"{describe(g).title}: {', '.join(AGENT_NAMES[g])}"
             for g in (games or AGENT_NAMES)]
    return "shipped agents by game: " + "; ".join(parts)
