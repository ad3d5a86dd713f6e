"""Round-robin tournaments of bot strategies in duplicate format, for all four games.

**Seating (duplicate format).** The agents are seated at *tables* (line-ups):

* competitive games (Rats, ReCURRRing, Lure) with ``K >= N`` agents for ``N`` seats: every
  ``N``-subset of the agents is a table; with ``K < N``: every pair ``(A, B)`` sits alternately
  ``A B A B ...`` (and, for odd ``N``, also ``B A B A ...`` so both hold as many seats);
* every table is played in all ``N`` cyclic **seat rotations** (rotation ``r`` puts line-up
  slot ``(p + r) mod N`` in seat ``p``) on the **same deals**: each agent holds every seat on
  every deal, so seat order and deck luck cancel out;
* River Rats is cooperative: each agent is a team (all seats play it) and every team plays the
  same deals; teams are compared by win rate on identical deals.

**Runner.** A tournament is one runner cell (:func:`experiments.runner.run_experiment`): batch
``b`` of deals gets the seed ``SeedSequence(seed, spawn_key=(b,))``, and every table and rotation
of that batch replays the same deals from it. All tables of a deal are played in the same work
unit, because the statistics pair results *across* tables by deal (see
:mod:`experiments.stats`); the batch function returns per-deal sufficient statistics
(integer sums), so memory stays flat, results do not depend on ``n_jobs`` or the backend, and a
killed run resumes from ``_partial/state.json`` in the output folder. A folder that holds a
finished tournament (its ``meta.json``) is answered from when the settings are the same and
refused when they differ, unless ``overwrite`` (``--force``): :mod:`experiments.outputs`.

**Results** (:class:`TournamentResult`): per agent the win rate and mean score with 95%
intervals (deal-clustered t-intervals; River Rats team win rates with Wilson intervals), ranked
by **the game's own utility** (:data:`experiments.tournament.games.RANKED_BY`, read from the
game's description): the win rate where the returns are win shares, the chips (Kuhn poker) or
match points (ReCURRRing) where they are chips or points, the other measure beside it; a
pairwise matrix (how often A finishes ahead of B when they meet, ties half, with intervals),
Plackett-Luce ratings with uncertainty from ``openskill`` (mu, sigma, ordinal ``mu - 3 sigma``)
over the first ``rating_deals`` deals and paired tests of "A better than B" (paired t-test and
sign test on per-deal differences, Holm-adjusted), both on the ranked measure.
:meth:`TournamentResult.save` writes CSV + PNG + ``meta.json`` under
``results/<game>/tournaments/<name>/``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from experiments.io import code_version, machine_info, write_json
from experiments.runner import batch_seed, run_experiment, speed_summary
from experiments.stats import (
    holm_adjusted_pvalues,
    mean_interval,
    paired_tests,
    wilson_interval,
)
from experiments.tournament.games import (
    WIN_UNITS,
    AgentRef,
    GameAdapter,
    get_adapter,
    parse_agents,
)
from scipy import stats as st


__all__ = ["Tournament", "TournamentResult", "make_tables", "seatings", "play_deals",
           "DealPlayer", "run_tournament", "compute_ratings", "register_policy",
           "PARTIAL_DIR"]

PARTIAL_DIR = "_partial"
EXPERIMENT = "tournament"
"""The experiment name in the ``settings`` of a tournament's ``meta.json``."""
OUTPUT_FILES = ("agents.csv", "pairwise.csv", "matrix.csv", "seats.csv", "meta.json",
                "agents.png", "pairwise.png")
"""The files :meth:`TournamentResult.save` writes."""
"""Subfolder of a tournament's output folder holding the runner's ``state.json`` (resume)."""

SUM_KEYS = ("w_sum", "w_sq", "s_sum", "s_sq", "h_sum", "h_sq", "dw_sq", "dw_pos", "dw_neg",
            "ds_sq", "ds_pos", "ds_neg", "seat_w", "seat_games")
"""Integer sums returned by :func:`play_deals` besides ``games`` (deals) and ``played``."""


def register_policy(game: str, name: str, fn, default_params=None, description: str = "") -> None:
    """Make a compiled user policy available to tournaments of ``game`` under ``name`` (see
    :meth:`experiments.tournament.games.GameAdapter.register_policy`; raises ``ValueError``)."""
    get_adapter(game).register_policy(name, fn, default_params, description)


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


def _word(seed: np.random.SeedSequence) -> int:
    """Seed word (``0 .. 2**63 - 1``) of one batch for the game engines."""
    return int(seed.generate_state(1, np.uint64)[0] >> np.uint64(1))


def _play_all(tour: Tournament, n_deals: int, word: int):
    """Yield ``(lineup, Outcome)`` for every table and rotation, all on the deals of ``word``."""
    ad = tour.adapter
    cfg = ad.config(tour.n_players, tour.options)
    for t in tour.tables:
        for lineup in seatings(t, ad.cooperative):
            yield lineup, ad.play(cfg, [tour.agents[a] for a in lineup], n_deals, word)


_TOURS: dict[str, Tournament] = {}


def _tour_of(cell: dict) -> Tournament:
    key = json.dumps(cell, sort_keys=True)
    if key not in _TOURS:
        _TOURS[key] = Tournament.from_cell(cell)
    return _TOURS[key]


def play_deals(cell: dict, n_deals: int, seed: np.random.SeedSequence) -> dict[str, Any]:
    """The runner's batch function: play ``n_deals`` deals of the tournament ``cell``
    (:meth:`Tournament.cell`) at every table in every rotation; return integer sums.

    Per deal ``i`` and agent ``a``: ``w[a, i]`` win units (1/60 of a win share, summed over
    ``a``'s games on the deal) and ``s[a, i]`` score units; per pair ``h[a, b, i]`` = over
    their meetings, 2 when ``a`` finished ahead of ``b``, 1 for a tie. Returned keys (int64):
    ``games`` (= deals), ``played`` (games played), ``w_sum``/``w_sq``/``s_sum``/``s_sq`` (K,)
    sums over deals of ``w``, ``w**2``, ...; ``h_sum``/``h_sq`` (K, K); ``dw_sq``, ``dw_pos``,
    ``dw_neg`` (K, K) sums of ``(w_a - w_b)**2`` and counts of deals with ``w_a > w_b`` /
    ``<``; the same ``ds_*`` for scores; ``seat_w``/``seat_games`` (N,) win units and games
    per seat. Raises ``ValueError`` from the adapter (bad agents, illegal user actions).
    """
    tour = _tour_of(cell)
    ad = tour.adapter
    k, n_seats = len(tour.agents), tour.n_players
    w = np.zeros((k, n_deals), dtype=np.int64)
    s = np.zeros((k, n_deals), dtype=np.int64)
    h = np.zeros((k, k, n_deals), dtype=np.int64)
    seat_w = np.zeros(n_seats, dtype=np.int64)
    seat_games = np.zeros(n_seats, dtype=np.int64)
    played = 0
    team_key = np.zeros((k, n_deals))
    for lineup, out in _play_all(tour, n_deals, _word(seed)):
        wu = np.rint(out.win * WIN_UNITS).astype(np.int64)
        su = np.rint(out.score * ad.score_scale).astype(np.int64)
        played += n_deals * tour.deal_games()
        seat_w += wu.sum(axis=0)
        seat_games += n_deals
        if ad.cooperative:
            a = lineup[0]
            w[a] += wu[:, 0]
            s[a] += su[:, 0]
            team_key[a] = out.key[:, 0]
            continue
        for p, a in enumerate(lineup):
            w[a] += wu[:, p]
            s[a] += su[:, p]
        for p, q in itertools.combinations(range(n_seats), 2):
            a, b = lineup[p], lineup[q]
            if a == b:
                continue
            c = np.sign(out.key[:, p] - out.key[:, q]).astype(np.int64)
            h[a, b] += 1 + c
            h[b, a] += 1 - c
    if ad.cooperative:
        for a, b in itertools.permutations(range(k), 2):
            h[a, b] = 1 + np.sign(team_key[a] - team_key[b]).astype(np.int64)
    dw = w[:, None, :] - w[None, :, :]
    ds = s[:, None, :] - s[None, :, :]
    return {
        "games": n_deals, "played": played,
        "w_sum": w.sum(axis=1), "w_sq": (w * w).sum(axis=1),
        "s_sum": s.sum(axis=1), "s_sq": (s * s).sum(axis=1),
        "h_sum": h.sum(axis=2), "h_sq": (h * h).sum(axis=2),
        "dw_sq": (dw * dw).sum(axis=2), "dw_pos": (dw > 0).sum(axis=2),
        "dw_neg": (dw < 0).sum(axis=2),
        "ds_sq": (ds * ds).sum(axis=2), "ds_pos": (ds > 0).sum(axis=2),
        "ds_neg": (ds < 0).sum(axis=2),
        "seat_w": seat_w, "seat_games": seat_games,
    }


class DealPlayer:
    """Picklable batch function carrying user policies to worker processes.

    ``DealPlayer(game, names)`` holds the user policies ``names`` of ``game`` (function,
    default parameters, description); calling it registers them in the worker's adapter if
    missing, then runs :func:`play_deals`. Its runner fingerprint is that of
    :func:`play_deals` (``__module__``/``__qualname__``), the policies' bytecode going into the
    fingerprint's extra part (:func:`run_tournament`).
    """

    def __init__(self, game: str, names):
        ad = get_adapter(game)
        self.game = ad.name
        self.policies = {n: (ad.user[n].fn, ad.user[n].default_params, ad.user[n].description)
                         for n in names}
        self.__module__ = play_deals.__module__
        self.__qualname__ = play_deals.__qualname__

    def __call__(self, cell, n_deals, seed):
        ad = get_adapter(self.game)
        for name, (fn, params, desc) in self.policies.items():
            if name not in ad.user:
                ad.register_policy(name, fn, params, desc)
        return play_deals(cell, n_deals, seed)

    def fingerprint(self) -> str:
        """Hash of the user policies' Python bytecode and constants."""
        h = hashlib.sha256()
        for name in sorted(self.policies):
            fn = self.policies[name][0]
            code = getattr(fn, "py_func", fn).__code__
            h.update(name.encode() + code.co_code + repr(code.co_consts).encode())
            h.update(np.asarray(self.policies[name][1], dtype=np.float64).tobytes())
        return h.hexdigest()[:16]


def compute_ratings(tour: Tournament, seed: int, n_deals: int, batch_size: int) -> pd.DataFrame:
    """Plackett-Luce ratings (``openskill.models.PlackettLuce``, mu 25, sigma 25/3, ``tau = 0``)
    from the games of the first ``n_deals`` deals, replayed exactly as the tournament played
    them (same batches and seeds), in a fixed order: deal by deal, then table and rotation.
    ``tau = 0`` switches off openskill's skill-drift term: a bot's strength does not change
    between games, so every game counts alike and sigma keeps shrinking as games are added.

    The ratings are on the measure the tournament ranks by
    (:data:`experiments.tournament.games.RANKED_BY`). Ranked by win rate: each game is a
    free-for-all among the distinct agents at the table, ranked by their best seat's rank key
    (:class:`experiments.tournament.games.Outcome`); in a cooperative game each deal is one
    match among all teams, ranked by their result. Ranked by chips or points (Kuhn poker,
    ReCURRRing): each table's deal is one match, its agents ranked by their chips or points
    summed over the table's seat rotations (the duplicate total, in which the cards cancel:
    an ordering of single games would rank by who won the hand, not by how much). Returns a
    DataFrame indexed by agent label: ``mu``, ``sigma``, ``ordinal`` (``mu - 3 sigma``),
    ``rating_games`` (matches rated).
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0)
    labels = [a.label for a in tour.agents]
    ratings = {lab: model.rating(name=lab) for lab in labels}
    counts = dict.fromkeys(labels, 0)
    coop = tour.adapter.cooperative
    by_score = tour.adapter.ranked_by == "score" and not coop
    rotations = len(seatings(tour.tables[0], coop)) if tour.tables else 1
    done = b = 0
    while done < n_deals:
        nb = min(batch_size, n_deals - done)
        games = list(_play_all(tour, nb, _word(batch_seed(seed, b))))
        for i in range(nb):
            if by_score:  # one match per table: its rotations' summed chips or points
                for t in range(0, len(games), rotations):
                    total: dict[int, float] = {}
                    for lineup, out in games[t:t + rotations]:
                        for p, a in enumerate(lineup):
                            total[a] = total.get(a, 0.0) + out.score[i, p]
                    _rate(model, ratings, counts, [labels[a] for a in total],
                          list(total.values()))
                continue
            if coop:
                keys = {lineup[0]: out.key[i, 0] for lineup, out in games}
                _rate(model, ratings, counts, [labels[a] for a in keys], list(keys.values()))
                continue
            for lineup, out in games:
                best: dict[int, float] = {}
                for p, a in enumerate(lineup):
                    best[a] = max(best.get(a, -np.inf), out.key[i, p])
                _rate(model, ratings, counts, [labels[a] for a in best], list(best.values()))
        done += nb
        b += 1
    rows = {lab: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.mu - 3 * r.sigma,
                  "rating_games": counts[lab]} for lab, r in ratings.items()}
    return pd.DataFrame.from_dict(rows, orient="index")


def _rate(model, ratings, counts, labels, keys):
    # rank 1 = best; equal keys share a rank
    order = sorted(set(keys), reverse=True)
    ranks = [order.index(k) + 1 for k in keys]
    new = model.rate([[ratings[lab]] for lab in labels], ranks=ranks)
    for lab, team in zip(labels, new, strict=True):
        ratings[lab] = team[0]
        counts[lab] += 1


@dataclass
class TournamentResult:
    """Everything a tournament produced.

    ``agents``: DataFrame indexed by label: ``base``, ``params``, ``games``, ``win_rate``,
    ``win_low``, ``win_high``, ``score``, ``score_low``, ``score_high``, ``mu``, ``sigma``,
    ``ordinal``, ``rank`` (by the game's utility: :data:`experiments.tournament.games.RANKED_BY`,
    named in ``meta["ranked_by"]``). ``pairwise``: one row per ordered pair (``agent``,
    ``opponent``): ``meetings``, ``ahead`` (share of meetings finished ahead, ties half),
    ``ahead_low``/``ahead_high``, ``p_ahead_holm`` (Student's t over deals of "ahead differs
    from 1/2", Holm over the pairs: the star of the matrix picture), ``win_diff`` (mean
    per-game win-share difference, agent minus opponent, over the whole tournament),
    ``score_diff``, ``t``, ``p_t``, ``p_sign`` (on win shares), ``p_t_score``, ``p_sign_score``
    (on scores), ``p_holm`` (Holm over the unordered pairs, on the ranked measure's ``p_t``;
    for a cooperative game on ``p_sign``, McNemar's exact test), ``verdict`` (on the ranked
    measure).
    ``seats``: per seat, the deals played in it (over all line-ups and rotations) and its win
    rate. ``meta``: metadata (JSON-ready, with the runner's ``runs`` history). ``sums``: the
    raw integer totals.
    """

    tournament: Tournament
    agents: pd.DataFrame
    pairwise: pd.DataFrame
    seats: pd.DataFrame
    meta: dict
    sums: dict

    def matrix(self, column: str = "ahead") -> pd.DataFrame:
        """Pairwise ``column`` as a square agent x opponent DataFrame (NaN on the diagonal)."""
        labels = list(self.agents.index)
        m = self.pairwise.pivot(index="agent", columns="opponent", values=column)
        return m.reindex(index=labels, columns=labels)

    def summary(self) -> str:
        """A readable text table for the terminal: agents sorted by the ranked measure (the
        game's utility, :data:`experiments.tournament.games.RANKED_BY`), which the header
        names, with the win rate beside it, then the significant pairs on that measure."""
        ad = self.tournament.adapter
        lines = [f"{ad.title}, {self.tournament.n_players} players: {self.meta['deals']} deals, "
                 f"{self.meta['games_played']} games ({self.meta['tables']} tables x "
                 f"{self.meta['rotations_per_table']} rotations"
                 + (f" x {self.tournament.deal_games()} games per match"
                    if self.tournament.deal_games() > 1 else "") + ")"]
        by_score = ad.ranked_by == "score"
        unit = "match" if self.tournament.deal_games() > 1 else "game"
        utility = ad.utility.replace("_", "-")
        lines.append(f"ranked by {ad.ranked_name} per {unit}, the game's utility ({utility} "
                     "returns" + (f" in {ad.score_name})" if by_score else ": win shares)")
                     + ("; win rate beside it" if by_score else ""))
        # a game whose score is its win share (Rats) shows that column once
        same = np.allclose(self.agents["score"], self.agents["win_rate"], equal_nan=True)
        score_head = f"{ad.score_name + ' [95% CI]':>26}"
        win_head = f"{'win rate [95% CI]':>24}"
        head = (f"{'rank':>4}  {'agent':<28} "
                + (f"{score_head}  {win_head}" if by_score else
                   win_head + ("" if same else f"  {score_head}"))
                + f"  {'rating mu +- sigma':>20}")
        lines.append(head)
        for lab, r in self.agents.sort_values(["rank", "win_rate"],
                                              ascending=[True, False]).iterrows():
            win = f"{r.win_rate:7.3f} [{r.win_low:6.3f}, {r.win_high:6.3f}]"
            score = f"{r.score:8.3f} [{r.score_low:7.3f}, {r.score_high:7.3f}]"
            lines.append(f"{int(r['rank']):>4}  {lab[:28]:<28} "
                         + (f"   {score}  {win}" if by_score else
                            win + ("" if same else f"   {score}"))
                         + (f"  {r['mu']:9.2f} +- {r['sigma']:5.2f}" if "mu" in r else ""))
        sig = self.pairwise[(self.pairwise.verdict == "better")]
        if by_score:
            what = f"{ad.score_name} per {unit}"
            test = f"paired t-test on per-deal {ad.score_name}"
            column = "score_diff"
        else:
            what = "team win rate" if ad.cooperative else "win share per game"
            test = ("McNemar's exact test on the deals one team won" if ad.cooperative
                    else "paired t-test on per-deal win shares")
            column = "win_diff"
        if len(sig):
            lines.append(f"significantly better ({test}, Holm-adjusted p < 0.05):")
            for _, r in sig.iterrows():
                p_txt = f"= {r.p_holm:.2g}" if r.p_holm > 0 else "< 1e-300"
                lines.append(f"  {r.agent} > {r.opponent}: {what} {r[column]:+.3f}, p {p_txt}")
        else:
            lines.append(f"no pair differs significantly ({test}, Holm-adjusted 5%)")
        return "\n".join(lines)

    def save(self, out_dir) -> dict[str, Path]:
        """Write ``agents.csv``, ``pairwise.csv``, ``matrix.csv``, ``seats.csv``,
        ``meta.json``, ``agents.png`` and ``pairwise.png`` into ``out_dir``; return the
        paths by kind."""
        from experiments.io import atomic_write_text
        from experiments.tournament.plots import plot_agents, plot_matrix

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = {"agents": out / "agents.csv", "pairwise": out / "pairwise.csv",
                 "matrix": out / "matrix.csv", "seats": out / "seats.csv",
                 "meta": out / "meta.json", "agents_png": out / "agents.png",
                 "matrix_png": out / "pairwise.png"}
        atomic_write_text(paths["agents"], self.agents.to_csv(index_label="agent"))
        atomic_write_text(paths["pairwise"], self.pairwise.to_csv(index=False))
        atomic_write_text(paths["matrix"], self.matrix().to_csv(index_label="agent"))
        atomic_write_text(paths["seats"], self.seats.to_csv(index_label="seat"))
        write_json(paths["meta"], {**self.meta, "sums": self.sums})
        plot_agents(self).savefig(paths["agents_png"], dpi=110, bbox_inches="tight")
        plot_matrix(self).savefig(paths["matrix_png"], dpi=110, bbox_inches="tight")
        import matplotlib.pyplot as plt

        plt.close("all")
        return paths


def analyse(tour: Tournament, sums: dict, ratings: pd.DataFrame | None,
            meta: dict) -> TournamentResult:
    """Turn the runner's integer sums (:func:`play_deals` keys) into a
    :class:`TournamentResult`. Raises ``ValueError`` if fewer than 2 deals were played."""
    ad = tour.adapter
    n = int(sums["games"])
    if n < 2:
        raise ValueError(f"{n} deal(s) played: the intervals and tests need at least 2")
    labels = [a.label for a in tour.agents]
    k = len(labels)
    g = tour.games_per_deal()
    m = tour.meetings_per_deal()
    sc = ad.score_scale
    if ad.cooperative:
        wins = np.asarray(sums["w_sum"]) // WIN_UNITS
        wr = wins / n
        lo, hi = wilson_interval(wins, n)
    else:
        wr, lo, hi = mean_interval(sums["w_sum"], sums["w_sq"], n, scale=WIN_UNITS * g)
        lo, hi = np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)
    sm, slo, shi = mean_interval(sums["s_sum"], sums["s_sq"], n, scale=sc * g)
    if ad.cooperative:  # the score is the team's win: same Wilson interval
        sm, slo, shi = wr, lo, hi
    agents = pd.DataFrame({
        "base": [a.base for a in tour.agents],
        "params": [" ".join(f"{x:.4g}" for x in (a.params or ())) for a in tour.agents],
        "games": g * n * tour.deal_games(),
        "win_rate": wr, "win_low": lo, "win_high": hi,
        "score": sm, "score_low": slo, "score_high": shi,
    }, index=pd.Index(labels, name="agent"))
    if ratings is not None:
        agents = agents.join(ratings)
    # rank by the game's own utility (games.RANKED_BY): chips or points where the returns
    # are chips or points, else the win rate; the other measure stands beside it
    ranked_col = "score" if ad.ranked_by == "score" else "win_rate"
    agents["rank"] = agents[ranked_col].rank(ascending=False, method="min").astype(int)

    h_sum, h_sq = np.asarray(sums["h_sum"]), np.asarray(sums["h_sq"])
    w_sum, s_sum = np.asarray(sums["w_sum"]), np.asarray(sums["s_sum"])
    dw_sum = w_sum[:, None] - w_sum[None, :]
    ds_sum = s_sum[:, None] - s_sum[None, :]
    if len(set(g.tolist())) != 1:
        raise ValueError(f"agents play unequal numbers of games per deal {g.tolist()}: the "
                         f"paired differences need a balanced design")
    gw = float(WIN_UNITS * g[0])
    tw = paired_tests(dw_sum / gw, np.asarray(sums["dw_sq"]) / gw ** 2, n,
                      sums["dw_pos"], sums["dw_neg"])
    gs = float(sc * g[0])
    ts = paired_tests(ds_sum / gs, np.asarray(sums["ds_sq"]) / gs ** 2, n,
                      sums["ds_pos"], sums["ds_neg"])
    iu = np.triu_indices(k, 1)
    p_holm = np.full((k, k), np.nan)
    # the verdict's test is on the ranked measure: the paired t-test on per-deal win shares,
    # or on per-deal chips/points where the game's utility is chips/points; for a cooperative
    # game's 0/1 team wins, McNemar's exact test (the sign test on the discordant deals)
    tr = ts if ad.ranked_by == "score" else tw
    p_verdict = tr["p_sign"] if ad.cooperative else tr["p_t"]
    if len(iu[0]):
        adj = holm_adjusted_pvalues(p_verdict[iu])
        p_holm[iu] = adj
        p_holm[(iu[1], iu[0])] = adj
    # the matrix's own test: is the share of meetings finished ahead different from 1/2?
    # (Student's t over deals, the same per-deal values as its interval; Holm over the pairs)
    p_ahead = np.full((k, k), np.nan)
    for a, b in zip(*iu, strict=True):
        sc2 = 2.0 * max(int(m[a, b]), 1)
        mean = h_sum[a, b] / sc2 / n
        var = max(h_sq[a, b] / sc2 ** 2 - n * mean * mean, 0.0) / max(n - 1, 1)
        if var > 0:
            p_ahead[a, b] = 2 * st.t.sf(abs(mean - 0.5) / np.sqrt(var / n), n - 1)
        else:
            p_ahead[a, b] = 1.0 if mean == 0.5 else 0.0
    p_ahead_holm = np.full((k, k), np.nan)
    if len(iu[0]):
        adj = holm_adjusted_pvalues(p_ahead[iu])
        p_ahead_holm[iu] = adj
        p_ahead_holm[(iu[1], iu[0])] = adj
    rows = []
    for a in range(k):
        for b in range(k):
            if a == b:
                continue
            mab = max(int(m[a, b]), 1)
            ah, alo, ahi = mean_interval(h_sum[a, b], h_sq[a, b], n, scale=2.0 * mab)
            verdict = "no difference shown"
            if p_holm[a, b] < 0.05:
                verdict = "better" if tr["mean_diff"][a, b] > 0 else "worse"
            rows.append({"agent": labels[a], "opponent": labels[b],
                         "meetings": int(m[a, b]) * n, "ahead": float(ah),
                         "ahead_low": float(max(alo, 0.0)), "ahead_high": float(min(ahi, 1.0)),
                         "p_ahead_holm": float(p_ahead_holm[a, b]),
                         "win_diff": float(tw["mean_diff"][a, b]),
                         "score_diff": float(ts["mean_diff"][a, b]),
                         "t": float(tw["t"][a, b]), "p_t": float(tw["p_t"][a, b]),
                         "p_sign": float(tw["p_sign"][a, b]), "p_holm": float(p_holm[a, b]),
                         "p_t_score": float(ts["p_t"][a, b]),
                         "p_sign_score": float(ts["p_sign"][a, b]), "verdict": verdict})
    pairwise = pd.DataFrame(rows)
    seat_games = np.asarray(sums["seat_games"])
    seats = pd.DataFrame({"deals": seat_games,
                          "win_rate": np.asarray(sums["seat_w"]) / WIN_UNITS
                          / np.maximum(seat_games, 1)},
                         index=pd.RangeIndex(tour.n_players, name="seat"))
    return TournamentResult(tour, agents, pairwise, seats, meta,
                            {k_: np.asarray(v).tolist() for k_, v in sums.items()})




def run_tournament(game: str, agents, n_players: int | None = None, n_deals: int = 1000, *,
                   seed: int = 0, options: dict | None = None, n_jobs: int = 1,
                   backend: str = "loky", scheduler: str | None = None, batch_size: int = 100,
                   rating_deals: int = 300, out_dir=None, save: bool = True,
                   progress: bool = False, agents_root=None,
                   overwrite: bool = False, on_start=None) -> TournamentResult:
    """Run a duplicate-format round robin and return (and by default save) its results.

    An output folder that holds another tournament (other agents, deals, seed or options),
    another run or files no tournament recorded is not overwritten unless ``overwrite=True``
    (``ValueError`` naming the folder); one that holds a finished tournament of the same
    settings is answered from its files (nothing is played or written;
    :func:`experiments.outputs.claim_folder`).

    Args:
        game: ``rats``, ``recurring``, ``river_rats`` (or ``river-rats``), ``lure``.
        agents: ``--agents`` text (see :func:`experiments.tournament.games.parse_agents`) or
            a list of names / :class:`AgentRef`.
        n_players: seats per table (default: the game's usual count).
        n_deals: deals; every table plays each deal in every rotation.
        seed: master seed (batch ``b`` uses ``SeedSequence(seed, spawn_key=(b,))``).
        options: config fields of the game (e.g. ``{"difficulty": "expert"}``).
        n_jobs, backend, scheduler: parallel fan-out (see :func:`run_experiment`).
        batch_size: deals per work unit (results depend on it, not on ``n_jobs``).
        rating_deals: deals whose games feed the ratings (at most ``n_deals``).
        out_dir: output folder (default :func:`experiments.outputs.tournament_out_dir` under the
            agent store, :func:`experiments.tournament.games.store_root` of ``agents_root``: the
            user's data folder, outside the repository, so a user's runs never dirty the
            clone); partial results there make a re-run resume. ``save``: write CSV/PNG/JSON there.
        progress: show the runner's progress bar (counts deals).
        agents_root: root folder of saved tuned agents (default ``results``).
        on_start: ``None`` or a function called as ``on_start(tournament, settings)`` (the
            :class:`Tournament` and the settings dict of ``meta.json``: ``deals``,
            ``rating_deals``, ``batch_size``, ...) once the arguments are checked, just before
            play begins (``boardlab tournament`` prints its size and estimated time there);
            not called when the folder answers from a finished tournament.

    Returns a :class:`TournamentResult`. Raises ``ValueError`` for bad agents, options, sizes.
    """
    ad = get_adapter(game)
    n_players = ad.default_players if n_players is None else n_players
    if isinstance(agents, str):
        refs = parse_agents(agents, ad, agents_root)
    else:
        refs = [ad.resolve(a if isinstance(a, AgentRef) else AgentRef(str(a), str(a)),
                           agents_root) for a in agents]
        labels = [r.label for r in refs]
        if len(set(labels)) != len(labels):
            raise ValueError(f"agent labels {labels} repeat: give each agent its own label")
    if isinstance(n_deals, bool) or not isinstance(n_deals, (int, np.integer)) or n_deals < 2:
        raise ValueError(f"n_deals {n_deals!r}: expected an integer >= 2")
    if isinstance(rating_deals, bool) or not isinstance(rating_deals, (int, np.integer)) \
            or rating_deals < 0:
        raise ValueError(f"rating_deals {rating_deals!r}: expected an integer >= 0")
    tour = Tournament(ad.name, int(n_players), refs, dict(options or {}))
    user = sorted({r.base for r in refs if r.base in ad.user})
    player = DealPlayer(ad.name, user) if user else play_deals
    extra = player.fingerprint() if user else None
    if out_dir is None and save:  # in the user's data folder: a run never dirties the clone
        from experiments.outputs import tournament_out_dir
        from experiments.tournament.games import store_root

        out_dir = tournament_out_dir(ad.name, n_players, [r.label for r in refs],
                                  root=store_root(agents_root), options=options)
    cfg = ad.config(tour.n_players, tour.options)
    settings = _settings(ad, tour, cfg, int(n_deals), seed, int(batch_size),
                         min(int(rating_deals), int(n_deals)), extra)
    if save:
        from experiments.outputs import (
            check_writable,
            claim_folder,
            legacy_tournament_settings,
        )

        claim = claim_folder(out_dir, experiment=EXPERIMENT, settings=settings,
                             outputs=OUTPUT_FILES, force=overwrite, meta_name="meta.json",
                             legacy=lambda meta: legacy_tournament_settings(ad, meta))
        if claim.finished:
            return _from_folder(tour, claim.folder, claim.meta)
        check_writable(out_dir)
    if on_start is not None:
        on_start(tour, settings)
    t0 = time.perf_counter()
    res = run_experiment(player, [tour.cell()], seed=seed, games_per_cell=int(n_deals),
                         batch_size=int(batch_size), n_jobs=n_jobs, backend=backend,
                         scheduler=scheduler,
                         out_dir=Path(out_dir) / PARTIAL_DIR if save else None,
                         progress=progress, fingerprint_extra=extra, overwrite=overwrite)
    wall = time.perf_counter() - t0
    sums = res.totals[0]
    t1 = time.perf_counter()
    ratings = (compute_ratings(tour, seed, min(int(rating_deals), int(n_deals)), int(batch_size))
               if rating_deals > 0 else None)
    rating_time = time.perf_counter() - t1
    played = int(sums["played"])
    meta = {
        "kind": "boardlab.tournament", "settings": settings, "game": ad.name, "title": ad.title,
        "n_players": tour.n_players, "config": cfg.to_dict(),
        "agents": [dict(r.to_dict(), description=ad.describe(r.base)) for r in refs],
        "param_names": list(ad.param_names), "cooperative": ad.cooperative,
        "tables": len(tour.tables), "lineups": [list(t) for t in tour.tables],
        "rotations_per_table": 1 if ad.cooperative else tour.n_players,
        "games_per_deal": tour.deal_games(), "deals": int(sums["games"]), "games_played": played,
        "seed": seed, "batch_size": batch_size, "n_jobs": n_jobs, "backend": backend,
        "rating_deals": min(int(rating_deals), int(n_deals)),
        "rating_model": "openskill PlackettLuce (mu0 25, sigma0 25/3, tau 0)",
        "wall_time_s": wall, "play_time_s": res.wall_time, "setup_time_s": res.setup_time,
        "games_played_this_run": res.games_played * tour.games_per_deal_total(),
        **speed_summary(res, tour.games_per_deal_total()),
        "rating_time_s": rating_time, "resumed_batches": res.resumed_batches,
        "code_version": code_version(), "machine": machine_info(),
        "intervals": ("95%: deal-clustered Student-t for win rates, scores and head-to-head "
                      "shares" + ("; Wilson for team win rates" if ad.cooperative else "")),
        "ranked_by": ad.ranked_name,
        "test": (f"paired t-test and exact sign test on per-deal differences of the ranked "
                 f"measure ({ad.ranked_name}); Holm over pairs"),
    }
    result = analyse(tour, sums, ratings, meta)
    if save:
        paths = result.save(out_dir)
        result.meta["files"] = {k_: str(v) for k_, v in paths.items()}
        write_json(paths["meta"], {**result.meta, "sums": result.sums})
        from experiments.outputs import finish_partial

        finish_partial(out_dir)  # a finished folder holds only its results
    return result


def _settings(ad: GameAdapter, tour: Tournament, cfg, n_deals: int, seed: int,
              batch_size: int, rating_deals: int, user_policies=None) -> dict:
    """What determines a tournament's numbers (stored in ``meta.json`` as ``settings``):
    the game, seats, agents (labels, bases, parameters), the full rules config, deals, seed,
    batch size, rating deals and the user policies' fingerprint."""
    return {"experiment": EXPERIMENT, "game": ad.name, "n_players": tour.n_players,
            "agents": [a.to_dict() for a in tour.agents], "config": cfg.to_dict(),
            "deals": n_deals, "seed": seed, "batch_size": batch_size,
            "rating_deals": rating_deals, "user_policies": user_policies}




def _from_folder(tour: Tournament, folder: Path, meta: dict) -> TournamentResult:
    """The :class:`TournamentResult` of the finished tournament in ``folder`` (its
    ``meta.json`` sums and the ratings of its ``agents.csv``), with ``meta["answered_from"]``
    naming the folder and ``games_played_this_run`` 0. Raises ``ValueError`` when the files
    cannot be read."""
    try:
        sums = {k: np.asarray(v, dtype=np.int64) for k, v in meta["sums"].items()}
        table = pd.read_csv(folder / "agents.csv", index_col="agent")
    except (KeyError, TypeError, ValueError, OSError) as exc:
        raise ValueError(f"{folder} holds a finished tournament of these settings but its "
                         f"files cannot be read ({type(exc).__name__}: {exc}): add --force to "
                         "play it again") from None
    cols = [c for c in ("mu", "sigma", "ordinal", "rating_games") if c in table.columns]
    ratings = table[cols] if "mu" in cols else None
    meta = {k: v for k, v in meta.items() if k != "sums"}
    meta.update(games_played_this_run=0, answered_from=str(folder),
                files={"meta": str(folder / "meta.json")})
    return analyse(tour, sums, ratings, meta)
