"""Lure's description (:mod:`engines.description`): 2-5 players fish with dice; the returns
are win shares (ties share), points break ties in a tournament's ranking."""

from engines.description import GameDescription

DESCRIPTION = GameDescription(
    name="lure", title="Lure", min_players=2, max_players=5, default_players=4, play_players=3,
    cooperative=False, utility="constant_sum", min_utility=0.0, max_utility=1.0,
    utility_sum=1.0, outcome="win_then_score", score_name="points", score_units=1,
    tunable=("heuristic",),
    param_bounds=((-1, 1), (0, 2), (0, 3), (0, 3), (0, 3), (0, 1), (0, 0.5), (0, 2)),
    simultaneous=True, rules="lure.md")
