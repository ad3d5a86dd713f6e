"""What a proposed deck does to the ways of playing Lure: the play styles we ship against each
other, before and after, on the same deals (``boardlab lure rebalance``'s report).

A rebalance that hands one style the game is not a fix (the strategies' side of balance:
de Mesentier Silva et al. 2019, "Evolving the Hearthstone Meta", balance the match-ups with the
fewest card changes). :func:`style_table` seats the five styles of :data:`STYLES` at one
5-player table, every seat order of the five cyclic rotations, ``n_games`` games each on the
same seeds for both decks (common random numbers: the same deals), and returns each style's win
share (ties shared) before and after with 95% intervals. :func:`hands_the_game` names a style
whose win share rises by more than :data:`STYLE_SHIFT_PP` with its interval clear of it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from experiments.lure.defaults import STYLE_GAMES  # noqa: F401  (re-exported)
from experiments.stats import newcombe_difference, wilson_interval

__all__ = ["STYLES", "STYLE_SHIFT_PP", "STYLE_CONFIDENCE", "STYLE_GAMES", "style_table",
           "hands_the_game", "style_markdown"]

STYLES = ("cautious", "bold", "greedy", "heuristic", "net")
"""The Lure play styles we ship, seated together (``agents/lure*``)."""
STYLE_SHIFT_PP = 5.0
"""A proposal hands a style the game when that style's win share rises by more than this many
percentage points, the interval of the rise (:data:`STYLE_CONFIDENCE`) wholly above it."""
STYLE_CONFIDENCE = 0.99
"""Level of the rise's interval: 95% with a Bonferroni correction over the five styles."""


def style_table(decks: dict, deep_waters: bool, n_games: int, seed: int, run_root,
                **runner) -> pd.DataFrame:
    """Each style's win share per deck at a 5-player table of the five styles.

    Args:
        decks: ``{"before": Deck, "after": Deck}``.
        deep_waters: play with Deep Waters.
        n_games: games per seat rotation and deck; seed: the seed of every rotation (the same
            deals for both decks and every rotation).
        run_root: folder of the runner states (``styles_<deck>_<rotation>``: resumable).
        runner: :func:`experiments.lure.simulation.simulate`'s keyword options.

    Returns one row per style: ``style``, ``games`` (per deck), ``win_<deck>``,
    ``win_<deck>_low``, ``win_<deck>_high`` (fractions, Wilson), ``change_pp`` (after -
    before, percentage points) with its Newcombe interval ``change_low_pp``,
    ``change_high_pp`` (:data:`STYLE_CONFIDENCE`, 99%: 95% corrected over the five styles;
    conservative: the decks' games are correlated by the shared deals).
    """
    from experiments.lure.simulation import simulate

    wins = {tag: dict.fromkeys(STYLES, 0.0) for tag in decks}
    for tag, deck in decks.items():
        for r in range(len(STYLES)):
            seats = list(STYLES[r:] + STYLES[:r])
            _, games, _ = simulate(deck, [5], deep_waters, seats, int(n_games), int(seed),
                                   out_dir=Path(run_root) / f"styles_{tag}_{r}", **runner)
            row = games.iloc[0]
            for p, name in enumerate(seats):
                wins[tag][name] += float(row[f"seat_{p}_win"]) * int(row["games"])
    n = len(STYLES) * int(n_games)
    rows = []
    for name in STYLES:
        row = {"style": name, "games": n}
        for tag in decks:
            lo, hi = wilson_interval(wins[tag][name], n)
            row.update({f"win_{tag}": wins[tag][name] / n, f"win_{tag}_low": float(lo),
                        f"win_{tag}_high": float(hi)})
        if {"before", "after"} <= set(decks):
            d, lo, hi = newcombe_difference(wins["after"][name], n, wins["before"][name], n,
                                            STYLE_CONFIDENCE)
            row.update({"change_pp": 100 * float(d), "change_low_pp": 100 * float(lo),
                        "change_high_pp": 100 * float(hi)})
        rows.append(row)
    return pd.DataFrame(rows)


def hands_the_game(table: pd.DataFrame) -> list[str]:
    """The styles whose win share the proposal raises by more than :data:`STYLE_SHIFT_PP`
    (the 99% interval of the rise wholly above it)."""
    if "change_low_pp" not in table:
        return []
    return list(table.loc[table["change_low_pp"] > STYLE_SHIFT_PP, "style"])


def style_markdown(table: pd.DataFrame, n_games: int, seed: int) -> list[str]:
    """The report's section "The play styles against each other, before and after"."""
    from experiments.markdown import markdown_table

    t = pd.DataFrame({
        "style": table["style"],
        "wins before (95%)": [f"{a:.3f} ({lo:.3f}-{hi:.3f})" for a, lo, hi in
                              zip(table["win_before"], table["win_before_low"],
                                  table["win_before_high"], strict=True)],
        "wins after (95%)": [f"{a:.3f} ({lo:.3f}-{hi:.3f})" for a, lo, hi in
                             zip(table["win_after"], table["win_after_low"],
                                 table["win_after_high"], strict=True)],
        "change (pp, 99%)": [f"{d:+.1f} ({lo:+.1f}..{hi:+.1f})" for d, lo, hi in
                             zip(table["change_pp"], table["change_low_pp"],
                                 table["change_high_pp"], strict=True)]})
    handed = hands_the_game(table)
    biggest = table.iloc[int(np.argmax(np.abs(table["change_pp"].to_numpy())))]
    verdict = (f"**The proposal hands the game to {', '.join(handed)}** (win share up by more "
               f"than {STYLE_SHIFT_PP:g} pp): not a fix." if handed else
               f"No style gains more than {STYLE_SHIFT_PP:g} pp (the largest change: "
               f"{biggest['style']} {biggest['change_pp']:+.1f} pp).")
    return ["## The play styles against each other, before and after", "",
            f"The five styles we ship ({', '.join(STYLES)}) at one 5-player table, in each of "
            f"the five cyclic seat orders, {n_games} games per order and deck on the same "
            f"seeds (seed {seed}: the same deals before and after); win shares with ties "
            f"shared (fair share 0.200). A rebalance that hands one style the game is not a "
            f"fix.", "", markdown_table(t), "", verdict, ""]
