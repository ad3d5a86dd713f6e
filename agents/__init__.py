"""Policies (compiled, tunable) and search agents for each game, behind one protocol per game."""
