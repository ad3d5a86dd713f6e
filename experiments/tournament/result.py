"""What a tournament produced (:class:`TournamentResult`: the agents' table, the pairwise
table, the seats, the metadata; saved as CSV, PNG and ``meta.json``) and how it is computed
from the runner's sums (:func:`analyse`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.io import write_json
from experiments.stats import (
    holm_adjusted_pvalues,
    mean_interval,
    paired_tests,
    wilson_interval,
)
from experiments.tournament.games import (
    WIN_UNITS,
)
from scipy import stats as st


from experiments.tournament.seating import Tournament

__all__ = ["TournamentResult", "analyse"]


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
