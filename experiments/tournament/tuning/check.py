"""The check of a tuned vector on fresh deals (seed ``seed + 1``): the tuning objective
itself, tuned vs start paired by deal, and for competitive games a round-robin tournament of
start, tuned and the field (see :mod:`experiments.tournament.tune`, "Check on fresh deals")."""

from __future__ import annotations


import numpy as np

from experiments.runner import run_experiment
from experiments.stats import mean_interval, paired_tests
from experiments.tournament.games import WIN_UNITS, AgentRef
from experiments.tournament.run import (
    PARTIAL_DIR,
    DealPlayer,
    Tournament,
    play_deals,
    run_tournament,
)
from experiments.tournament.tuning.objective import field_tables

__all__ = ["paired_difference", "verdict", "check_on_fresh_deals"]


def paired_difference(sums: dict, a: int, b: int, gw: float) -> dict:
    """Agent ``a`` minus agent ``b`` per game from :func:`play_deals` sums (``gw``: win units
    per game): mean difference with its 95% t-interval over deals
    (:func:`experiments.stats.mean_interval`), paired t-test and sign test
    (:func:`experiments.stats.paired_tests`; deal = unit)."""
    n = int(sums["games"])
    w = np.asarray(sums["w_sum"], dtype=np.float64)
    d_sum = (w[a] - w[b]) / gw
    d_sq = float(np.asarray(sums["dw_sq"])[a][b]) / gw ** 2
    tests = paired_tests(d_sum, d_sq, n, np.asarray(sums["dw_pos"])[a][b],
                         np.asarray(sums["dw_neg"])[a][b])
    d, low, high = mean_interval(d_sum, d_sq, n)
    return {"win_diff": float(d), "low": float(low), "high": float(high),
            "p_t": float(tests["p_t"]), "p_sign": float(tests["p_sign"])}


def verdict(d: float, p: float) -> str:
    """``"better"``/``"worse"`` (the sign of the difference ``d``) when ``p < 0.05``, else
    ``"no difference shown"``."""
    if p < 0.05:
        return "better" if d > 0 else "worse"
    return "no difference shown"


def check_on_fresh_deals(res, ad, agent, field_refs, deals, seed, options, n_jobs, batch_size,
              backend, scheduler, out, agents_root, progress) -> None:
    """Two checks of the winner on fresh deals (seed ``seed + 1``), see the module docstring:
    (1) the tuning objective itself, tuned vs start, each against the field alone at the
    field's tables, paired by deal (runner state in ``out/check/_partial/``); (2) competitive
    games: a round-robin tournament of start, tuned and the field (``out/validation/``)."""
    user = sorted({r.base for r in [*field_refs, AgentRef("x", res.base)] if r.base in ad.user})
    player = DealPlayer(ad.name, user) if user else play_deals
    taken = {f.label for f in field_refs}
    start_label = next(lab for lab in ("start", "start_vector", f"{res.name}_start")
                       if lab not in taken and lab != res.name)
    refs = [AgentRef(start_label, res.base, tuple(res.start)),
            AgentRef(res.name, res.base, tuple(res.best))] + list(field_refs)
    tables = field_tables(len(field_refs), res.n_players, ad.cooperative)
    tables = [tuple(c if a == 0 else a + 1 for a in t) for c in (0, 1) for t in tables]
    tour = Tournament(ad.name, res.n_players, refs, dict(options), tables)
    run = run_experiment(player, [tour.cell()], seed=int(seed) + 1, games_per_cell=int(deals),
                         batch_size=int(batch_size), n_jobs=n_jobs, backend=backend,
                         scheduler=scheduler, out_dir=out / "check" / PARTIAL_DIR,
                         progress=progress,
                         fingerprint_extra=player.fingerprint() if user else None,
                         overwrite=True)
    sums = run.totals[0]
    n = int(sums["games"])
    gw = float(WIN_UNITS * tour.games_per_deal()[0])
    w = np.asarray(sums["w_sum"], dtype=np.float64) / gw / n
    check = paired_difference(sums, 1, 0, gw)
    p_verdict = check["p_sign"] if ad.cooperative else check["p_t"]
    gain = {"deals": n, "seed": int(seed) + 1, "start": start_label, "tuned": res.name,
            "objective_start": float(w[0]), "objective_tuned": float(w[1]), **check,
            "verdict": verdict(check["win_diff"], p_verdict),
            "test": ("McNemar exact (sign) test" if ad.cooperative else "paired t-test")
            + " over deals, two-sided", "tournament": None}
    if not ad.cooperative:
        s_ref = AgentRef(agent if agent != res.name else f"{agent}_start", res.base,
                         tuple(res.start))
        t_ref = AgentRef(res.name, res.base, tuple(res.best))
        others = [f for f in field_refs if f.label not in {s_ref.label, t_ref.label}
                  and not (f.base == res.base and f.params == s_ref.params)]
        v = run_tournament(ad.name, [s_ref, t_ref] + others, res.n_players, int(deals),
                           seed=int(seed) + 1, options=options, n_jobs=n_jobs, backend=backend,
                           scheduler=scheduler, batch_size=batch_size,
                           rating_deals=min(300, int(deals)), out_dir=out / "validation",
                           progress=progress, agents_root=agents_root, overwrite=True)
        pw = v.pairwise
        row = pw[(pw.agent == t_ref.label) & (pw.opponent == s_ref.label)].iloc[0]
        labels = list(v.agents.index)
        rr = paired_difference(v.sums, labels.index(t_ref.label), labels.index(s_ref.label),
                               float(WIN_UNITS * v.tournament.games_per_deal()[0]))
        gain["tournament"] = {
            "agents": labels, "start": s_ref.label, "tuned": t_ref.label,
            "tuned_win_rate": float(v.agents.loc[t_ref.label, "win_rate"]),
            "start_win_rate": float(v.agents.loc[s_ref.label, "win_rate"]),
            **rr, "p_holm": float(row.p_holm), "verdict": str(row.verdict),
            "folder": str(out / "validation")}
        res.validation = v
    res.gain = gain
