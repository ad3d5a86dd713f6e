"""River Rats' description (:mod:`engines.description`): a cooperative game of 1-4 players
against two Rat hands; the team wins or loses together."""

from engines.description import GameDescription

DESCRIPTION = GameDescription(
    name="river_rats", title="River Rats", min_players=1, max_players=4, default_players=4,
    play_players=2, cooperative=True, utility="identical", min_utility=-1.0, max_utility=1.0,
    outcome="team", score_name="team win", score_units=1, tunable=("heuristic", "greedy"),
    param_bounds={"h_eff": (1.0, 8.0), "max_reveals": (0.0, 4.0), "joker_value": (0.0, 2.0)},
    default_bound=(0.0, 1.0), rules="river_rats.md")
