"""The Lure fish-card balance report (``boardlab lure balance``).

For a fish deck, computes per card:

* exact catch probabilities (:func:`engines.dice.exact_table`) with 1..5 d6 and with the
  special dice, the cheapest loadout reaching 50% and 90%, expected points per die committed;
* a **difficulty** ``D = -ln(mean P)``, the mean taken over every dice loadout (0-5 d6 x every
  subset of the special dice; a card that requires a lure gets one boost, a card that forbids
  lures none), a **robust** quadratic fit of points on ``D`` (:func:`fit_curve`: soft-l1 loss,
  the cards far off the first pass set aside, so two broken cards do not move the others' fair
  points), the cards whose points lie off it by at least ``max(2, 1.5 x robust sigma)``
  (over-valued: too many points for their difficulty; under-valued: too few) and the points
  each card would need to sit on it;
* from simulated full games per player count (:func:`simulate`): how often it is caught
  (Wilson interval), in which round, how long it lay on the table, by whom in the turn order
  (share caught by the first group to act, mean rank, share per seat), and the win-rate
  difference between the catcher and the other players of those games (Newcombe interval);
  per player count also the game lengths and the seats' win rates;

and writes CSV tables, PNG plots, ``metadata.json`` and ``report.md`` into one folder.

**Simulation.** Games are played by the one compiled game loop (:func:`agents.loop.run_games`)
on the runner of :mod:`experiments.runner`: one runner *cell* per player count, batch ``b`` of
every cell seeded by ``SeedSequence(seed, spawn_key=(b,))`` and game ``g`` of that batch by
``chance.game_seed(chance.batch_word(that SeedSequence), g)``
(:func:`engines.protocol.chance.game_seeds`). A batch returns integer sums only
(:func:`play_balance_batch`), so the numbers do not depend on the number of workers, memory
stays flat however many games are played, and a killed run resumes from
``<out>/_partial/state.json``. Win shares are summed in units of 1/60 (a tie of ``k`` winners
gives each ``1/k``, as :func:`engines.lure.core.returns`).

Per-card records come from the core's ``card_c`` outcome fields, decoded by
:func:`engines.lure.game.card_outcomes`; rules: ``docs/rules/lure.md``.


The parts: exact odds (:mod:`experiments.lure.odds`), the points curve
(:mod:`experiments.lure.curve`), simulated games (:mod:`experiments.lure.simulation`), the
pictures (:mod:`experiments.lure.balance_plots`); this module runs them and writes the report.
Their public names are importable from here too (``from experiments.lure.balance import
card_table, add_fit, simulate, plot_caught``, as the notebooks do).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from engines.lure import decks as D
from experiments.io import atomic_write_text, code_version, machine_info, write_json
from experiments.lure.balance_plots import (
    CAUGHT_SCALE_NOTE,
    CAUGHT_TICKS,
    caught_axis_limits,
    difficulty_axes,
    plot_caught,
    plot_heatmaps,
    plot_points_vs_difficulty,
)
from experiments.lure.curve import FIT_METHODS, REJECT_SIGMAS, add_fit, fit_curve
from experiments.lure.defaults import BALANCE_GAMES, DEFAULT_AGENTS, THRESHOLD_FLOOR
from experiments.lure.odds import SPEC_LABELS, card_table, difficulty, loadout_label
from experiments.lure.simulation import (
    CARD_SUMS,
    ROUND_BINS,
    SCORE_BINS,
    WIN_UNITS,
    balance_cells,
    card_stats,
    game_stats,
    play_balance_batch,
    simulate,
    simulate_cards,
)
from experiments.markdown import markdown_table, relative_path
from experiments.outputs import legacy_balance_settings, lure_balance_out_dir

__all__ = ["SPEC_LABELS", "WIN_UNITS", "CARD_SUMS", "SCORE_BINS", "ROUND_BINS", "loadout_label",
           "card_table", "difficulty", "FIT_METHODS", "REJECT_SIGMAS", "THRESHOLD_FLOOR",
           "fit_curve", "add_fit", "balance_cells", "play_balance_batch", "simulate",
           "simulate_cards", "card_stats", "game_stats", "plot_points_vs_difficulty",
           "plot_heatmaps", "plot_caught", "caught_axis_limits", "difficulty_axes",
           "CAUGHT_TICKS", "CAUGHT_SCALE_NOTE", "run_balance", "EXPERIMENT", "OUTPUT_FILES",
           "balance_settings", "claim_balance_folder", "flagged_lines"]


def run_balance(deck: D.Deck | None = None, players=(2, 3, 4, 5), deep_waters: bool = False,
                agents=DEFAULT_AGENTS, n_games: int = BALANCE_GAMES, seed: int = 0, out=None,
                n_jobs: int = 1, batch_size: int = 5000, command: str = "",
                progress: bool = False, backend: str = "loky", scheduler: str | None = None,
                overwrite: bool = False, compare_agents=None) -> Path:
    """Compute and write the balance report; returns the output folder.

    Files: ``cards.csv`` (exact odds and fit), ``simulated.csv`` (per card x player count),
    ``games.csv`` (per player count), ``points_vs_difficulty.png``, ``catch_heatmaps.png``,
    ``caught_by_players.png``, ``metadata.json``, ``report.md`` (all written atomically). The
    runner's partial results go to ``<out>/_partial/`` (a re-run with the same settings resumes
    there; a finished run removes them). ``out`` defaults to
    :func:`experiments.outputs.lure_balance_out_dir`.
    ``agents``: Lure policy names cycled over the seats (default ``net``, the learned policy:
    :data:`experiments.lure.defaults.DEFAULT_AGENTS`). ``n_games`` per player count;
    ``seed``, ``batch_size``: the runner's (the numbers depend on them, not on ``n_jobs`` or
    ``backend``).

    Every card is judged (:mod:`experiments.lure.fair_points`): its points against the
    curve (exact) and, in play, on two independent seed sets (``seed`` and
    :func:`experiments.lure.fair_points.seed_sets`' second; ``n_games`` per player count each,
    runner state in ``<out>/_partial/set_b/``): ``verdicts.csv``, ``simulated_set_b.csv``.
    ``compare_agents`` (names, or ``None``: no comparison; the command line's default is
    ``heuristic``): both seed sets are also played by them (``<out>/_partial/compare*/``) and
    a play verdict changes between the players only when both decided it
    (``players_verdicts.csv``, ``compare_simulated*.csv``, ``compare_games.csv``).
    The exact odds do not depend on the players.

    A folder holding a finished report of the same settings is returned as it is (nothing is
    played or written); one holding another report, another run or report files that no run
    recorded is refused unless ``overwrite`` (:func:`claim_balance_folder`).

    Raises:
        ValueError: no player count, a player count outside 2..5, unknown agents, n_games < 1,
            bad runner options, partial results of another experiment in ``out``, or a folder
            refused as above.
    """
    deck = deck if deck is not None else D.default_deck()
    players = sorted(set(int(p) for p in players))
    if not players or any(not 2 <= p <= 5 for p in players):
        raise ValueError(f"player counts {players}; expected values in 2..5")
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 1:
        raise ValueError(f"n_games = {n_games!r}; expected an integer >= 1")
    agents = [agents] if isinstance(agents, str) else list(agents)
    compare = ([compare_agents] if isinstance(compare_agents, str)
               else list(compare_agents or [])) or None
    if compare:
        balance_cells(deck, players, deep_waters, compare)  # unknown names: before any work
    out = Path(out) if out is not None else lure_balance_out_dir(deck, deep_waters)
    settings = balance_settings(deck, players, deep_waters, agents, n_games, seed, batch_size,
                                compare)
    if claim_balance_folder(out, settings, overwrite).finished:
        return out
    t0 = time.perf_counter()
    cards, table = card_table(deck, deep_waters)
    cards, fit = add_fit(cards)
    sim, games, res = simulate(deck, players, deep_waters, agents, int(n_games), seed,
                               n_jobs=n_jobs, batch_size=batch_size, backend=backend,
                               scheduler=scheduler, out_dir=out / "_partial",
                               progress=progress, overwrite=overwrite)
    sim = sim[sim["id"].isin(cards["id"])].reset_index(drop=True)
    from experiments.lure.balance_verdicts import play_verdicts, write_verdict_files

    cmp = play_verdicts(deck, cards, fit, sim, players, deep_waters, agents, compare, n_games,
                        seed, out / "_partial", n_jobs=n_jobs, batch_size=batch_size,
                        backend=backend, scheduler=scheduler, progress=progress,
                        overwrite=overwrite)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "cards.csv", cards.to_csv(index=False))
    atomic_write_text(out / "simulated.csv", sim.to_csv(index=False))
    atomic_write_text(out / "games.csv", games.to_csv(index=False))
    write_verdict_files(out, cmp)
    plot_points_vs_difficulty(cards, fit, out / "points_vs_difficulty.png")
    plot_heatmaps(cards, table, deep_waters, out / "catch_heatmaps.png")
    plot_caught(sim, out / "caught_by_players.png", agents=", ".join(agents))
    meta = _balance_metadata(settings, command, deck, deep_waters, players, agents, n_games,
                             seed, batch_size, n_jobs, backend, fit, t0, res, cmp, compare)
    write_json(out / "metadata.json", meta)
    atomic_write_text(out / "report.md",
                      _report_md(deck, cards, sim, games, fit, meta, deep_waters, cmp))
    from experiments.outputs import finish_partial

    finish_partial(out)  # the runner's partial results: a finished folder holds its results
    return out


def _balance_metadata(settings, command, deck, deep_waters, players, agents, n_games, seed,
                      batch_size, n_jobs, backend, fit, t0, res, cmp, compare) -> dict:
    """The contents of a balance report's ``metadata.json``: the settings and command, the
    deck, players and seeding, the fit, the times and sizes of the runs (``res``: the report's
    games, ``cmp``: the second seed set's and the compared players', from ``t0``), the
    verdicts, the machine."""
    from experiments.runner import speed_summary

    sim_games = int(res.games.sum())
    meta = {
        "experiment": EXPERIMENT, "settings": settings,
        "command": command or "experiments.lure.balance.run_balance",
        "deck": relative_path(deck.source),
        "deck_sha256": deck.sha256(), "deep_waters": bool(deep_waters), "players": players,
        "agents": agents, "n_games_per_player_count": int(n_games), "seed": int(seed),
        "seeding": ("runner: batch b (batch_size games) of every player count has "
                    "SeedSequence(seed, spawn_key=(b,)); game g of that batch has the seed word "
                    "chance.game_seed(chance.batch_word(that SeedSequence), g)"),
        "batch_size": int(batch_size), "n_jobs": n_jobs, "backend": backend,
        "fit": fit,
        "wall_seconds": time.perf_counter() - t0,
        "simulation_seconds": res.wall_time,
        "games_simulated": sim_games,
        "games_played_this_run": int(res.games_played),
        **speed_summary(res),
        "resumed_batches": int(res.resumed_batches),
        "machine": machine_info(),
        "code_version": code_version(),
    }
    from experiments.lure.fair_points import verdict_counts

    meta.update({"seed_sets": list(cmp["seeds"]),
                 "simulation_seconds_set_b": cmp["res_b"].wall_time,
                 "resumed_batches_set_b": int(cmp["res_b"].resumed_batches),
                 "verdicts": verdict_counts(cmp["verdicts"])})
    if compare:
        ch = cmp["players"][cmp["players"]["status"] == "changes"]
        meta.update({"compare_agents": compare,
                     "compare_simulation_seconds": cmp["compare_res"].wall_time
                     + cmp["compare_res_b"].wall_time,
                     "compare_games_simulated": int(cmp["compare_res"].games.sum()),
                     "compare_resumed_batches": int(cmp["compare_res"].resumed_batches
                                                    + cmp["compare_res_b"].resumed_batches),
                     "verdict_changes": list(ch["id"])})
    try:
        meta["load_average"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover - not POSIX
        pass
    return meta


EXPERIMENT = "lure balance"
"""The experiment name in the ``settings`` of a balance report's ``metadata.json``."""
OUTPUT_FILES = ("cards.csv", "simulated.csv", "games.csv", "points_vs_difficulty.png",
                "catch_heatmaps.png", "caught_by_players.png", "metadata.json", "report.md",
                "verdicts.csv", "simulated_set_b.csv", "players_verdicts.csv",
                "compare_simulated.csv", "compare_simulated_set_b.csv", "compare_games.csv")
"""The files :func:`run_balance` writes."""


def balance_settings(deck: D.Deck, players, deep_waters: bool, agents, n_games: int,
                     seed: int, batch_size: int, compare_agents=None) -> dict:
    """What determines a balance report's numbers (``settings`` in its ``metadata.json``):
    the deck's SHA-256, Deep Waters, player counts, agents, games per player count, seed and
    batch size, and the compared agents when there are any (a report without a comparison
    has no such key, as reports written before it)."""
    out = {"experiment": EXPERIMENT, "deck_sha256": deck.sha256(),
           "deep_waters": bool(deep_waters), "players": sorted(int(p) for p in players),
           "agents": list(agents), "games": int(n_games), "seed": int(seed),
           "batch_size": int(batch_size)}
    if compare_agents:
        out["compare_agents"] = list(compare_agents)
    return out


def claim_balance_folder(out, settings: dict, force: bool):
    """:func:`experiments.outputs.claim_folder` for a balance report: a
    :class:`experiments.outputs.Claim` (``finished`` when ``out`` holds this report), or
    ``ValueError`` naming the folder, what is there and ``--force``."""
    from experiments.outputs import check_writable, claim_folder

    claim = claim_folder(out, experiment=EXPERIMENT, settings=settings, outputs=OUTPUT_FILES,
                         force=force, legacy=legacy_balance_settings)
    if not claim.finished:
        check_writable(out)
    return claim


def flagged_lines(cards: pd.DataFrame, fit: dict) -> list[str]:
    """The flagged cards of a card table (:func:`add_fit`) as terminal lines: id, name,
    points, the curve's fair points and the flag; one line saying none when none is."""
    flagged = cards[cards["flag"].fillna("") != ""]
    if not len(flagged):
        return [f"no card lies off the points curve by {fit['threshold']:.2f} points or more"]
    out = [f"{len(flagged)} flagged card(s) (off the points curve by {fit['threshold']:.2f} "
           "points or more):"]
    for _, r in flagged.iterrows():
        fair = "-" if not np.isfinite(r["fair_points"]) else f"{r['fair_points']:.0f}"
        out.append(f"  {r['id']:<5} {str(r.get('name', '')):<18} {int(r['points']):>3} points, "
                   f"fair {fair:>3}: {r['flag']}")
    return out


def _report_md(deck, cards, sim, games, fit, meta, deep, found) -> str:
    """The text of ``report.md``; ``found``: :func:`experiments.lure.balance_verdicts.
    play_verdicts`' result (the verdicts, and the comparison with ``meta["compare_agents"]``
    when there is one). One function a section."""
    L = _report_head(deck, cards, meta, deep)
    L += _how_to_read(fit)
    L += _summary_section(cards, fit, meta, found)
    L += _odds_section(cards)
    L += _simulated_section(sim, games, meta)
    L += _files_section(found)
    return "\n".join(L)


def _report_head(deck, cards, meta, deep) -> list[str]:
    """The title, the deck, the cards, what was simulated and the command."""
    from experiments.lure.fair_points import RECONSTRUCTION_NOTE

    players = meta["players"]
    default = deck.source == str(D.DEFAULT_DECK_PATH)
    L = [f"# Lure fish-card balance report: {'Deep Waters' if deep else 'base game'}", ""]
    L += [f"Deck: `{Path(deck.source).name}` (sha256 `{deck.sha256()[:12]}`)."
          + (" " + RECONSTRUCTION_NOTE if default else ""),
          f"Cards in the report: {len(cards)}"
          + (" (30 base + 15 Deep Waters; each game shuffles them and removes 15 at random)."
             if deep else " (the base set)."),
          f"Simulated: {meta['n_games_per_player_count']} games per player count in each of "
          f"two seed sets ({', '.join(map(str, players))} players), agents "
          f"**{', '.join(meta['agents'])}** "
          f"(seats cycle through the list), seeds {meta['seed_sets'][0]} and "
          f"{meta['seed_sets'][1]} "
          f"(batches of {meta['batch_size']} games; the numbers do not depend on the number of "
          f"workers)"
          + (f"; the same games played by **{', '.join(meta['compare_agents'])}** for the "
             f"verdict comparison." if meta.get("compare_agents") else "."),
          f"Command: `{meta['command']}`", ""]
    return L


def _how_to_read(fit) -> list[str]:
    """The section "How to read this": what each column and figure means."""
    L: list[str] = []
    L += ["## How to read this", "",
          "* **P(…)**: exact probability that the loadout meets the card (all dice rolled at once;"
          " adjust lures applied in the best way; a card that requires a lure is given one"
          " boost, i.e. a lure that changes no die: the token it costs is not in the"
          " difficulty, so such cards may look over-valued).",
          "* **cheapest 50% / 90%**: the dice-only loadout with the fewest dice (then fewest"
          " special dice) reaching that probability; *with lures* (in `cards.csv`): the same"
          " over lure plans too (none, a boost, one or two adjusts, one extra-die lure; then"
          " fewest lure tokens).",
          "* **EV/die**: points x P(catch) / dice committed, at the best dice-only loadout.",
          "* **difficulty** D = -ln(mean P over every dice loadout: 0-5 d6 x every subset of the"
          " special dice). A robustly fitted quadratic (soft-l1 loss; cards more than 3 robust"
          " sigmas off the first pass set aside, so a few broken cards do not bend it) gives"
          " the points a card of that difficulty should carry; cards off it by at least"
          f" {fit['threshold']:.2f} points (max(2, 1.5 x robust sigma)) are flagged.",
          "* **Simulated**: share of games (where the card was in play) in which it was caught"
          " with a 95% Wilson interval; the round it was caught in and how many rounds it lay on"
          " the table first; the share caught by the first group to act and the mean turn-order"
          " rank of the catcher's group (0 = first); and the win rate of its catcher minus that"
          " of the other players of the same games (95% Newcombe interval; ties share the"
          " win). A positive difference that is large for a cheap card points to a card that"
          " decides games.", ""]
    return L


def _summary_section(cards, fit, meta, found) -> list[str]:
    """The section "Summary": the fitted curve, the flagged cards and the verdicts."""
    from experiments.lure.fair_points import verdict_markdown

    L: list[str] = []
    flagged = cards[cards["flag"] != ""]
    L += ["## Summary", ""]
    co = fit["coefficients"]
    L += [f"Fitted curve: points = {co[0]:.3f} D^2 + {co[1]:.3f} D + {co[2]:.3f}"
          f" ({fit.get('method', 'least-squares')} fit; robust sigma "
          f"{fit.get('scale', fit['rmse']):.2f},"
          f" RMSE {fit['rmse']:.2f} points"
          + (f"; set aside from the fit: {', '.join(fit['outliers'])}" if fit.get("outliers")
             else "") + ").", ""]
    if len(flagged):
        L += ["Flagged cards:", ""]
        L += [markdown_table(flagged[["id", "points", "catch_number", "requirements", "difficulty",
                                 "fair_points", "residual", "flag"]])]
    else:
        L += ["No card lies off the curve by more than the threshold."]
    L += ["", "![points vs difficulty](points_vs_difficulty.png)", ""]
    L += verdict_markdown(found["verdicts"], fit["threshold"], meta["n_games_per_player_count"],
                          found["seeds"], ", ".join(meta["agents"]), found.get("players"),
                          ", ".join(meta.get("compare_agents") or []))
    return L


def _odds_section(cards) -> list[str]:
    """The section "Exact odds per card"."""
    L: list[str] = []
    L += ["## Exact odds per card", ""]
    pcols = [c for c in cards.columns if c.startswith("p_")]
    show = cards[["id", "points", "catch_number", "requirements"] + pcols
                 + ["cheapest_50", "cheapest_90", "ev_per_die_best", "ev_per_die_loadout",
                    "difficulty", "fair_points", "flag"]]
    L += [markdown_table(show), "", "![catch probability heatmaps](catch_heatmaps.png)", ""]
    return L


def _simulated_section(sim, games, meta) -> list[str]:
    """The section on the simulated games: per player count, then per card."""
    players = meta["players"]
    L: list[str] = []
    L += [f"## Simulated games ({', '.join(meta['agents'])})", ""]
    g = games.copy()
    g["rounds (sd)"] = [f"{r.mean_rounds:.2f} ({r.sd_rounds:.2f})" for r in g.itertuples()]
    g["seat win shares"] = [" / ".join(f"{r[f'seat_{p}_win']:.3f}" for p in range(r["players"]))
                            for _, r in g.iterrows()]
    g["mean scores"] = [" / ".join(f"{r[f'seat_{p}_score']:.1f}" for p in range(r["players"]))
                        for _, r in g.iterrows()]
    L += ["Per player count: game length in rounds, decisions per game, games cut at the"
          " length bound, and each seat's win share (ties shared) and mean score, seat 0"
          " first.", ""]
    L += [markdown_table(g[["players", "games", "rounds (sd)", "mean_decisions", "truncated",
                       "seat win shares", "mean scores"]], nd=1), ""]
    for n in players:
        s = sim[sim["players"] == n].copy()
        s["caught (95% CI)"] = [f"{r.caught_rate:.2f} ({r.caught_low:.2f}-{r.caught_high:.2f})"
                                for r in s.itertuples()]
        s["win diff (95% CI)"] = [
            f"{r.win_diff:+.3f} ({r.win_diff_low:+.3f}..{r.win_diff_high:+.3f})"
            if np.isfinite(r.win_diff) else "" for r in s.itertuples()]
        L += [f"### {n} players ({meta['n_games_per_player_count']} games)", ""]
        L += [markdown_table(s[["id", "in_play", "caught (95% CI)", "mean_round",
                           "mean_rounds_on_table", "first_group_share", "mean_turn_rank",
                           "win_catcher", "win_others", "win diff (95% CI)"]]), ""]
    L += ["![caught by player count](caught_by_players.png)", ""]
    return L


def _files_section(found) -> list[str]:
    """The section "Files"."""
    L: list[str] = []
    L += ["## Files", "", "* `cards.csv`: exact odds, fit and flags per card",
          "* `simulated.csv`: simulated statistics per card and player count",
          "* `games.csv`: game length and seat win shares per player count",
          "* `verdicts.csv`: every card's verdict, the odds' and play's numbers on both seed "
          "sets and the reasons; `simulated_set_b.csv`: the second seed set's games",
          *(["* `players_verdicts.csv`: the play verdicts with both sets of players; "
             "`compare_simulated.csv`, `compare_simulated_set_b.csv`, `compare_games.csv`: the "
             "compared players' games"] if found.get("players") is not None else []),
          "* `metadata.json`: command, agents, deck hash, seed, sizes, wall time, machine, "
          "load, code version", ""]
    return L
