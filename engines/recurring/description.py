"""ReCURRRing's description (:mod:`engines.description`): a climbing card game of 3-5
players; a game's return is its points, a tournament deal is a match of ``games_per_match``
games won by the highest total."""

from engines.description import GameDescription

DESCRIPTION = GameDescription(
    name="recurring", title="ReCURRRing", min_players=3, max_players=5, default_players=4,
    play_players=4, cooperative=False, utility="general_sum", min_utility=0.0,
    max_utility="N_IDS", outcome="match", match_games_field="games_per_match",
    score_name="match points", score_units=1, tunable=("heuristic",),
    param_bounds=((-10, 10),) * 8, rules="recurring.md")
