"""Rats' description (:mod:`engines.description`): a climbing trick game of 2-5 players; the
returns are win shares, a tournament ranks by finishing place."""

from engines.description import GameDescription

DESCRIPTION = GameDescription(
    name="rats", title="Rats", min_players=2, max_players=5, default_players=4, play_players=4,
    cooperative=False, utility="general_sum", min_utility=0.0, max_utility=1.0,
    outcome="place", score_name="win share", score_units="win", tunable=("heuristic",),
    param_bounds=((-5, 5),) * 7 + ((0, 20),), rules="rats.md")
