"""Who plays the Lure balance jobs by default (every job answered by strong players).

Kept free of numpy and pandas so that the command line can show the defaults in its help
without importing the experiment modules.

* :data:`DEFAULT_AGENTS`: ``net``, the learned policy. In duplicate matches it beats the tuned
  ``heuristic`` at a fraction of its speed (``docs/guides/lure_balance.md``; the balance's
  times with each: ``docs/results/lure.md``). The search agents are stronger still but far
  slower, so they are not the default.
* :data:`REFERENCE_AGENTS`: ``heuristic``, the players whose verdicts the default run sets
  beside the strong players' (``--compare-agents``).
"""

from __future__ import annotations

__all__ = ["DEFAULT_AGENTS", "REFERENCE_AGENTS", "BALANCE_GAMES", "VERIFY_GAMES", "DEFAULT_GOAL",
           "STYLE_GAMES", "THRESHOLD_FLOOR", "resolve_compare"]

DEFAULT_AGENTS = ("net",)
"""The players of ``lure balance`` and ``lure rebalance`` by default: the learned policy."""
REFERENCE_AGENTS = ("heuristic",)
"""The players the default run compares its verdicts with (``--compare-agents``'s default)."""


BALANCE_GAMES = 2000
"""Games per player count and seed set of ``lure balance`` by default: two seed sets by
``net`` and two by the compared ``heuristic``, 4 x 2000 games each, keep the default run within
its time target on a 2-core machine, and its verdicts agree between seeds
(``docs/results/lure.md`` has the times and the target)."""
VERIFY_GAMES = 2000
"""Games per player count, deck and seed set of the fresh-seed check of ``lure rebalance``'s
``points`` goal (two seed sets) and ``curve`` goal (one: its verdicts are exact) by default, the
size of the balance report's verdicts; the ``win-diff`` goal keeps 20000."""
STYLE_GAMES = 300
"""Games per seat order and deck of ``lure rebalance``'s play-styles table by default (5 seat
orders: 1500 games per deck)."""
THRESHOLD_FLOOR = 2.0
"""The smallest flag threshold, card points: a card is flagged when its points lie at least
``max(THRESHOLD_FLOOR, 1.5 x robust sigma)`` off the curve. Points are whole numbers and the
curve's fair points are rounded, so a card within two points of the curve may be the designer's
rounding; a floor of 2 also keeps the verdicts of the other cards when a deck has broken cards
(with the floor 1 of the past, the threshold moved 1.55..1.79 between three broken copies of
the shipped deck as the robust fit set different cards aside, and flipped B10, B11, B24, whose
points lie 1.6-1.7 off; ``docs/results/lure.md``)."""
DEFAULT_GOAL = "points"
"""The goal of ``lure rebalance`` by default: every card's points fair for what it takes to
catch it (:mod:`experiments.lure.fair_points`)."""


def resolve_compare(agents, compare) -> list[str] | None:
    """The compared players of a run.

    Args:
        agents: the report's players (a name or a list of names, cycled over the seats).
        compare: ``None`` (not given): :data:`REFERENCE_AGENTS`, unless ``agents`` are those
            already (then no comparison); ``"none"``, ``""`` or an empty list: no comparison;
            otherwise names (a string is split at commas, blanks dropped).

    Returns a list of names, or ``None`` for no comparison. The names are not checked here
    (:func:`experiments.lure.simulation.balance_cells` does).
    """
    agents = [agents] if isinstance(agents, str) else [str(a) for a in agents]
    if compare is None:
        return None if agents == list(REFERENCE_AGENTS) else list(REFERENCE_AGENTS)
    names = ([x.strip() for x in compare.split(",")] if isinstance(compare, str)
             else [str(x).strip() for x in compare])
    names = [x for x in names if x]
    if not names or [x.lower() for x in names] == ["none"]:
        return None
    return names
