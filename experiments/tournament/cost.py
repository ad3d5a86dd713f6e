"""How long a tournament or a win-rate table takes to play, and the sizes the commands choose
when they are not given.

The agents differ in speed by three orders of magnitude: on one core `heuristic` plays
6,000-100,000 games a second, `net` 800-8,000, the search agents 4-400 games a second per seat
(`net-search-fast`: 4 in Rats, 30-37 in the other games; ``benchmarks/strength_speed.py``).
A duplicate tournament seats every agent at many tables (Lure's default field of 7 agents:
35 tables x 4 rotations per deal, 80 of them with `net-search-fast` in a seat), so a field
with a search agent costs seconds per deal where one without costs milliseconds.

**Estimate.** One deal costs the sum, over its tables, seat rotations, seats and games, of the
seated agent's CPU seconds per seat and game (:func:`seat_seconds`, from the measured speeds
:data:`SEAT_GAMES_PER_S`); the ratings replay their deals in the main process
(:func:`experiments.tournament.run.compute_ratings`), so they do not spread over ``--jobs``.

**Defaults** (``boardlab tournament`` and ``boardlab winrates`` without ``--games``,
:func:`tournament_defaults`, :func:`winrates_defaults`): a field without search agents plays
the nominal size (1000 deals, 300 of them rated, batches of 100; ``winrates``: 20,000). A field
with a search agent plays as many deals as fit in :data:`BUDGET_S` CPU seconds by the estimate
(at least :data:`MIN_DEALS`, at most the nominal size, in steps of :data:`DEAL_STEP`), rates a
fifth of them and plays batches of :data:`SEARCH_BATCH` deals, so that ``--jobs 2`` shares the
work. The rule depends only on the field, the player count and the rules (the tables), never on
the machine, so a default run gives the same numbers everywhere. A game whose speeds were not
measured (Kuhn poker, a test game of a few cards) keeps the nominal deals and has no estimate.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

__all__ = ["SEAT_GAMES_PER_S", "NO_ESTIMATE", "SPEED_SOURCE", "BUDGET_S", "MIN_DEALS", "DEAL_STEP",
           "DEFAULT_DEALS", "DEFAULT_RATING_DEALS", "DEFAULT_BATCH", "SEARCH_BATCH",
           "WINRATES_GAMES", "seat_seconds", "is_search", "deal_seconds",
           "TournamentSizes", "tournament_defaults", "winrates_defaults", "wall_seconds",
           "format_duration", "seat_rates_from_table"]

SEAT_GAMES_PER_S: dict[str, dict[str, float]] = {
    "lure": {"random": 2.1e5, "greedy": 5.4e4, "heuristic": 5.4e4, "net": 6.7e3,
             "pimc-fast": 2.5e2, "pimc": 1.3e2, "net-search-lite": 2.6e2, "net-search-fast": 3.7e1,
             "ismcts-fast": 7.5e1},
    "rats": {"random": 4.4e5, "greedy": 4.4e4, "heuristic": 2.6e4, "net": 3.1e3,
             "pimc-fast": 7.6e1, "pimc": 3.9e1, "net-search-lite": 9.9e1, "net-search-fast": 8.5e0,
             "ismcts-fast": 4.2e1},
    "recurring": {"random": 5.0e5, "greedy": 6.0e5, "heuristic": 3.8e5, "net": 3.1e4,
                  "pimc-fast": 3.8e2, "pimc": 2.0e2, "net-search-lite": 4.1e2,
                  "net-search-fast": 3.0e1, "ismcts-fast": 1.3e2},
    "river_rats": {"random": 5.5e5, "greedy": 4.1e4, "heuristic": 4.2e4, "net": 5.9e3,
                   "pimc-fast": 2.3e2, "pimc": 1.1e2, "net-search-lite": 2.4e2,
                   "net-search-fast": 3.6e1, "ismcts-fast": 5.5e1},
}
"""Games per CPU second that one seat of each agent costs, per game, at 4 players on one core
(2 significant digits): search agents from their games in one seat against ``heuristic``
(``one_seat_games_per_s``), the others from every seat theirs (``all_seats_games_per_s`` x 4;
River Rats: every seat is the agent's, so all-seats x 4 for every agent). Source:
:data:`SPEED_SOURCE` (:func:`seat_rates_from_table` turns it into this table; a test checks
they agree). Agents missing here (user policies, other presets) count as ``heuristic``."""
SPEED_SOURCE = "benchmarks/results/strength_speed.csv"
"""The benchmark table (``python benchmarks/strength_speed.py``) :data:`SEAT_GAMES_PER_S`
comes from; its rows name the machine, the date and the load of the measurement."""
NO_ESTIMATE = "no time estimate (this game's speeds are not measured)"
"""What the commands print instead of an estimate for a game missing from
:data:`SEAT_GAMES_PER_S`."""
BUDGET_S = 600.0
"""CPU seconds (one core) a default-sized run of a field with search agents is sized for."""
MIN_DEALS = 100
"""Fewest deals a default-sized run plays (win shares to about +-0.03 at 4 players)."""
DEAL_STEP = 50
"""Default sizes of fields with search agents are multiples of this."""
DEFAULT_DEALS = 1000
"""``boardlab tournament``'s deals for a field without search agents."""
DEFAULT_RATING_DEALS = 300
"""``boardlab tournament``'s rated deals for a field without search agents (at most the deals)."""
DEFAULT_BATCH = 100
"""``boardlab tournament``'s deals per work unit for a field without search agents."""
SEARCH_BATCH = 10
"""Deals per work unit for a field with a search agent (a few seconds per deal: small units
let ``--jobs`` share the work and a killed run lose little)."""
WINRATES_GAMES = 20_000
"""``boardlab winrates``' games (River Rats) or deals per player count without search agents."""


def seat_seconds(game: str, base: str, params=None) -> float:
    """Estimated CPU seconds (one core) one seat of agent ``base`` costs per game of ``game``,
    ``1 / SEAT_GAMES_PER_S`` at the agent's default parameters. A search preset the table
    does not list is estimated from a listed one of the same search (``PolicySpec.kind``) and
    rollout policy (or, failing that, of the search it guides: ``net-ismcts`` from ``ismcts``),
    its cost taken proportional to the simulations (``net-search``'s 16 worlds
    cost twice ``net-search-fast``'s 8), and so is a search agent given other ``params``
    (its float parameter vector, e.g. more simulations); any other agent missing from the
    table (user policies, Lure's ``cautious`` and ``bold``) counts as ``heuristic``. Measured
    at 4 players: other player counts are assumed to cost the same per seat. NaN for a game
    whose speeds were not measured (Kuhn poker). Raises ``ValueError`` for an unknown
    game."""
    from agents.policy import specs

    from engines.protocol import normalize_game_name

    game = normalize_game_name(game)
    table = SEAT_GAMES_PER_S.get(game)
    if table is None:
        return math.nan
    reg = specs(game)
    spec = reg.get(base)
    if spec is None or not spec.search:
        return 1.0 / table.get(base, table["heuristic"])

    def sims(vec):
        return max(float(vec[0]), 1.0)  # "simulations" leads every search vector

    def key(sp):
        return sp.kind, float(sp.params_array()[1])  # the search and its rollout policy

    own = sims(spec.params_array())
    if base in table:
        rate = table[base]
    else:
        peers = [n for n in table if n in reg and reg[n].search and key(reg[n]) == key(spec)]
        if not peers:
            peers = [n for n in table if n in reg and reg[n].search and reg[n].kind == spec.kind]
        if not peers:  # a guided search no preset of its kind measured: its unguided search
            plain = (_unguided(spec.kind), key(spec)[1])
            peers = [n for n in table if n in reg and reg[n].search and key(reg[n]) == plain]
        if not peers:
            return 1.0 / table["heuristic"]
        near = min(peers, key=lambda n: abs(math.log(sims(reg[n].params_array()) / own)))
        rate = table[near] * sims(reg[near].params_array()) / own
    if params is not None and len(params):
        rate *= own / sims(params)
    return 1.0 / rate


def _unguided(kind: int) -> int:
    """The unguided search kind a guided one builds on (``net-ismcts`` on ``ismcts``,
    ``net-search`` on ``pimc``); other kinds unchanged."""
    from agents import layout

    return {layout.K_NET_ISMCTS: layout.K_ISMCTS, layout.K_NET_PIMC: layout.K_PIMC}.get(kind, kind)


def is_search(game: str, base: str) -> bool:
    """Whether ``base`` is a shipped search agent of ``game`` (``PolicySpec.search``); user
    policies and unknown names are not."""
    from agents.policy import specs

    spec = specs(game).get(base)
    return bool(spec is not None and spec.search)


def deal_seconds(tour) -> float:
    """Estimated CPU seconds of one deal of the tournament ``tour``
    (:class:`experiments.tournament.run.Tournament`): over its tables, seat rotations and
    seats, :func:`seat_seconds` of the seated agent, times the games of a deal (ReCURRRing:
    the match length). NaN for a game whose speeds were not measured."""
    from experiments.tournament.run import seatings

    ad = tour.adapter
    total = 0.0
    for t in tour.tables:
        for lineup in seatings(t, ad.cooperative):
            total += sum(seat_seconds(ad.name, tour.agents[a].base, tour.agents[a].params)
                         for a in lineup)
    return total * tour.deal_games()


def wall_seconds(play_s: float, serial_s: float, n_jobs: int, units: int) -> float:
    """Estimated wall seconds: ``play_s`` CPU seconds spread over ``n_jobs`` workers (-1: all
    cores), at most one per work unit (``units``), plus ``serial_s`` seconds played in the main
    process (the ratings). Compilation and loading are not counted."""
    jobs = (os.cpu_count() or 1) if n_jobs == -1 else max(int(n_jobs), 1)
    return play_s / max(1, min(jobs, max(int(units), 1))) + serial_s


def _fit(per_unit_s: float, nominal: int, overhead: float = 1.0) -> int:
    """Most units (a multiple of DEAL_STEP, MIN_DEALS..nominal) whose cost fits BUDGET_S;
    ``nominal`` when the cost is unknown (NaN) or nothing."""
    if not per_unit_s > 0:
        return nominal
    fit = math.floor(BUDGET_S / (per_unit_s * overhead) / DEAL_STEP) * DEAL_STEP
    return int(min(nominal, max(MIN_DEALS, fit)))


@dataclass(frozen=True)
class TournamentSizes:
    """Default sizes of a run and what they cost by the estimate.

    ``deals`` (deals, or River Rats win-rate games, per player count), ``rating_deals``,
    ``batch_size`` (deals per work unit), ``search`` (labels of the field's search agents;
    empty: the nominal sizes), ``play_s`` and ``rating_s`` (estimated CPU seconds on one core of
    the play and of the ratings' replay at these sizes)."""

    deals: int
    rating_deals: int
    batch_size: int
    search: tuple[str, ...]
    play_s: float
    rating_s: float

    def note(self, what: str = "deals") -> str:
        """One line on why these sizes, for the start of a run: the deals alone, or with a
        search agent in the field ``"<deals> deals (the field includes search agent
        net-search-fast: sized to about <BUDGET_S as a duration> of one core)"``."""
        if not self.search or math.isnan(self.play_s):
            return f"{self.deals} {what}"
        who = ", ".join(self.search)
        return (f"{self.deals} {what} (the field includes search agent"
                f"{'s' if len(self.search) > 1 else ''} {who}: sized to about "
                f"{format_duration(BUDGET_S)} of one core)")


def tournament_defaults(tour) -> TournamentSizes:
    """Default ``--games``, ``--rating-deals`` and ``--batch-size`` of ``boardlab tournament``
    for the tournament ``tour`` (module docstring): without search agents 1000, 300 and 100;
    with one, the deals that fit :data:`BUDGET_S` with a fifth of them rated (the rating replay
    counted), batches of :data:`SEARCH_BATCH`."""
    ad = tour.adapter
    search = tuple(a.label for a in tour.agents if is_search(ad.name, a.base))
    per = deal_seconds(tour)
    if not search:
        deals, rating, batch = DEFAULT_DEALS, min(DEFAULT_RATING_DEALS, DEFAULT_DEALS), \
            DEFAULT_BATCH
    else:
        deals = _fit(per, DEFAULT_DEALS, overhead=1.2)
        rating, batch = deals // 5, SEARCH_BATCH
    return TournamentSizes(deals, rating, batch, search, deals * per, rating * per)


def winrates_defaults(game: str, refs, players, options: dict | None = None) -> TournamentSizes:
    """Default ``--games`` of ``boardlab winrates`` for agents ``refs`` (resolved
    :class:`experiments.tournament.games.AgentRef`) at the player counts ``players``: 20,000
    without search agents, else as many as fit :data:`BUDGET_S` over all player counts
    (River Rats: every agent plays that many games as a team at each count; competitive
    games: that many deals of a tournament per count). No ratings are played (``rating_deals``
    0); ``batch_size`` is the tournaments' work unit. Raises ``ValueError`` for a bad player
    count or option."""
    from experiments.tournament.games import get_adapter
    from experiments.tournament.run import Tournament

    ad = get_adapter(game)
    search = tuple(r.label for r in refs if is_search(ad.name, r.base))
    per = 0.0
    for n in players:
        if ad.cooperative:
            g = ad.games_per_deal(ad.config(n, options))
            per += sum(n * g * seat_seconds(ad.name, r.base, r.params) for r in refs)
        else:
            per += deal_seconds(Tournament(ad.name, int(n), list(refs), dict(options or {})))
    if not search:
        return TournamentSizes(WINRATES_GAMES, 0, DEFAULT_BATCH, (), WINRATES_GAMES * per, 0.0)
    games = _fit(per, WINRATES_GAMES)
    return TournamentSizes(games, 0, SEARCH_BATCH, search, games * per, 0.0)


def format_duration(seconds: float) -> str:
    """A rough duration for an estimate: in whole seconds up to a minute and a half
    (``"<n> s"``), in whole minutes up to an hour and a half (``"<n> min"``), else in hours with
    one decimal (``"<x.x> h"``); ``"?"`` for NaN (speeds not measured)."""
    if math.isnan(seconds):
        return "?"
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def seat_rates_from_table(df, players: int = 4) -> dict[str, dict[str, float]]:
    """:data:`SEAT_GAMES_PER_S` from the benchmark table (a pandas DataFrame of
    ``benchmarks/strength_speed.py``'s CSV; rows of ``players`` players), rounded to 2
    significant digits: search agents' ``one_seat_games_per_s``; the others' (and every River
    Rats agent's) ``all_seats_games_per_s`` x ``players``. Raises ``KeyError`` for a table
    without those columns."""
    from experiments.tournament.games import get_adapter

    out: dict[str, dict[str, float]] = {}
    for r in df[df["players"] == players].itertuples():
        coop = get_adapter(r.game).cooperative
        rate = (r.one_seat_games_per_s if (r.search and not coop)
                else r.all_seats_games_per_s * players)
        out.setdefault(r.game, {})[r.agent] = float(f"{rate:.2g}")
    return out
