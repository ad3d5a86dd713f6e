"""The seating of a duplicate-format round robin (see :mod:`experiments.tournament.run`,
"Seating"): the tables (:func:`make_tables`), their seat rotations (:func:`seatings`) and the
:class:`Tournament` they make with the agents, the rules options and the game."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from experiments.tournament.games import (
    AgentRef,
    GameAdapter,
    get_adapter,
)


__all__ = ["make_tables", "seatings", "Tournament"]


def make_tables(n_agents: int, n_players: int, cooperative: bool) -> list[tuple[int, ...]]:
    """Line-ups (agent indices by slot) of a round robin; see the module docstring.

    Raises ``ValueError`` for fewer than 2 agents (1 for cooperative games) or players < 1.
    """
    if n_players < 1:
        raise ValueError(f"n_players {n_players!r}: expected >= 1")
    if cooperative:
        if n_agents < 1:
            raise ValueError("a cooperative tournament needs at least 1 agent (team)")
        return [(a,) * n_players for a in range(n_agents)]
    if n_agents < 2:
        raise ValueError(f"{n_agents} agent(s): a tournament needs at least 2")
    if n_players < 2:
        raise ValueError(f"n_players {n_players!r}: a competitive game needs at least 2")
    if n_agents >= n_players:
        return list(itertools.combinations(range(n_agents), n_players))
    tables = []
    for a, b in itertools.combinations(range(n_agents), 2):
        tables.append(tuple(a if i % 2 == 0 else b for i in range(n_players)))
        if n_players % 2:
            tables.append(tuple(b if i % 2 == 0 else a for i in range(n_players)))
    return tables


def seatings(table: tuple[int, ...], cooperative: bool) -> list[tuple[int, ...]]:
    """The seat rotations of a line-up: rotation ``r`` seats slot ``(p + r) mod N`` in seat
    ``p``; a cooperative team (all slots equal) has one seating."""
    n = len(table)
    if cooperative:
        return [tuple(table)]
    return [tuple(table[(p + r) % n] for p in range(n)) for r in range(n)]


@dataclass
class Tournament:
    """A tournament's definition: ``game``, ``n_players``, resolved ``agents``
    (:class:`AgentRef`), config ``options`` and the ``tables`` (default :func:`make_tables`).
    JSON round trip through :meth:`cell` / :meth:`from_cell` (the runner's cell)."""

    game: str
    n_players: int
    agents: list[AgentRef]
    options: dict = field(default_factory=dict)
    tables: list[tuple[int, ...]] | None = None

    def __post_init__(self):
        ad = get_adapter(self.game)
        self.game = ad.name
        ad.check_players(self.n_players)
        ad.config(self.n_players, self.options)  # validates the options
        if self.tables is None:
            self.tables = make_tables(len(self.agents), self.n_players, ad.cooperative)
        self.tables = [tuple(int(a) for a in t) for t in self.tables]
        for t in self.tables:
            if len(t) != self.n_players or not all(0 <= a < len(self.agents) for a in t):
                raise ValueError(f"table {t}: expected {self.n_players} agent indices "
                                 f"0..{len(self.agents) - 1}")

    @property
    def adapter(self) -> GameAdapter:
        """The game's adapter."""
        return get_adapter(self.game)

    def cell(self) -> dict:
        """JSON-ready runner cell."""
        return {"game": self.game, "n_players": self.n_players, "options": self.options,
                "agents": [a.to_dict() for a in self.agents],
                "tables": [list(t) for t in self.tables]}

    @classmethod
    def from_cell(cls, cell: dict) -> Tournament:
        """Inverse of :meth:`cell`."""
        return cls(cell["game"], int(cell["n_players"]),
                   [AgentRef.from_dict(a) for a in cell["agents"]], dict(cell["options"]),
                   [tuple(t) for t in cell["tables"]])

    def games_per_deal(self) -> np.ndarray:
        """``int64`` (K,): seats (games) each agent plays per deal (1 per team deal in a
        cooperative game)."""
        g = np.zeros(len(self.agents), dtype=np.int64)
        coop = self.adapter.cooperative
        for t in self.tables:
            for lineup in seatings(t, coop):
                if coop:
                    g[lineup[0]] += 1
                else:
                    for a in lineup:
                        g[a] += 1
        return g

    def meetings_per_deal(self) -> np.ndarray:
        """``int64`` (K, K): head-to-head comparisons of A and B per deal (seat pairs at the
        same game; 1 per deal for cooperative teams)."""
        k = len(self.agents)
        m = np.zeros((k, k), dtype=np.int64)
        if self.adapter.cooperative:
            m[:] = 1
            np.fill_diagonal(m, 0)
            return m
        for t in self.tables:
            for lineup in seatings(t, False):
                for p, q in itertools.combinations(range(len(lineup)), 2):
                    a, b = lineup[p], lineup[q]
                    if a != b:
                        m[a, b] += 1
                        m[b, a] += 1
        return m

    def deal_games(self) -> int:
        """Games in one deal (1; ReCURRRing: the match length of the config)."""
        return self.adapter.games_per_deal(self.adapter.config(self.n_players, self.options))

    def games_per_deal_total(self) -> int:
        """Games played per deal over all tables and rotations (each counted once)."""
        coop = self.adapter.cooperative
        return sum(len(seatings(t, coop)) for t in self.tables) * self.deal_games()
