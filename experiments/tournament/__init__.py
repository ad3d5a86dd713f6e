"""Round-robin tournaments of bot strategies in duplicate format, ratings, and tuning, for all
four games on the one game protocol.

- :mod:`experiments.tournament.run`: :func:`run_tournament`, :func:`register_policy`, built on
  :mod:`~experiments.tournament.seating` (tables and rotations),
  :mod:`~experiments.tournament.play` (the runner's batch function),
  :mod:`~experiments.tournament.ratings` (Plackett-Luce) and
  :mod:`~experiments.tournament.result` (the tables and their statistics);
- :mod:`experiments.tournament.games`: how each game's deals are scored (:class:`GameAdapter`);
- :mod:`experiments.stats`: deal-clustered intervals, paired tests, Holm (shared);
- :mod:`experiments.tournament.plots`: the agents and pairwise-matrix pictures;
- :mod:`experiments.tournament.tune`: the one tuner (``boardlab tune``), its parts in
  :mod:`experiments.tournament.tuning`;
- :mod:`experiments.tournament.winrates`: the agent win-rate table (``boardlab winrates``).
"""

from experiments.tournament.games import AgentRef, get_adapter, parse_agents
from experiments.tournament.run import (
    Tournament,
    TournamentResult,
    register_policy,
    run_tournament,
)

__all__ = ["AgentRef", "Tournament", "TournamentResult", "get_adapter", "parse_agents",
           "register_policy", "run_tournament"]
