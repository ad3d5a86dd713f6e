"""Kuhn poker's description (:mod:`engines.description`): the worked example game of
``docs/adding_a_game.md``, two players, zero-sum, small enough to solve exactly."""

from engines.description import GameDescription

DESCRIPTION = GameDescription(
    name="kuhn_poker", title="Kuhn Poker", min_players=2, max_players=2, default_players=2,
    play_players=2, cooperative=False, utility="zero_sum", min_utility=-2.0, max_utility=2.0,
    utility_sum=0.0, outcome="chips", score_name="chips", score_units=1,
    tunable=("heuristic",), param_bounds=((0.0, 1.0),) * 3, rules="kuhn_poker.md",
    explicit_deals=6)
