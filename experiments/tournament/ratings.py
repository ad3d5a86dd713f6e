"""Plackett-Luce ratings of a tournament's agents (``openskill``: mu, sigma and the ordinal
``mu - 3 sigma``) from the finishing order of every game of its first ``rating_deals``
deals, replayed in order (:func:`compute_ratings`)."""

from __future__ import annotations


import numpy as np
import pandas as pd

from experiments.workers import batch_seed


from experiments.tournament.play import batch_word, play_all_tables
from experiments.tournament.seating import Tournament, seatings

__all__ = ["compute_ratings"]


def compute_ratings(tour: Tournament, seed: int, n_deals: int, batch_size: int) -> pd.DataFrame:
    """Plackett-Luce ratings (``openskill.models.PlackettLuce``, mu 25, sigma 25/3, ``tau = 0``)
    from the games of the first ``n_deals`` deals, replayed exactly as the tournament played
    them (same batches and seeds), in a fixed order: deal by deal, then table and rotation.
    ``tau = 0`` switches off openskill's skill-drift term: a bot's strength does not change
    between games, so every game counts alike and sigma keeps shrinking as games are added.

    The ratings are on the measure the tournament ranks by
    (:data:`experiments.tournament.games.RANKED_BY`). Ranked by win rate: each game is a
    free-for-all among the distinct agents at the table, ranked by their best seat's rank key
    (:class:`experiments.tournament.games.Outcome`); in a cooperative game each deal is one
    match among all teams, ranked by their result. Ranked by chips or points (Kuhn poker,
    ReCURRRing): each table's deal is one match, its agents ranked by their chips or points
    summed over the table's seat rotations (the duplicate total, in which the cards cancel:
    an ordering of single games would rank by who won the hand, not by how much). Returns a
    DataFrame indexed by agent label: ``mu``, ``sigma``, ``ordinal`` (``mu - 3 sigma``),
    ``rating_games`` (matches rated).
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0)
    labels = [a.label for a in tour.agents]
    ratings = {lab: model.rating(name=lab) for lab in labels}
    counts = dict.fromkeys(labels, 0)
    coop = tour.adapter.cooperative
    by_score = tour.adapter.ranked_by == "score" and not coop
    rotations = len(seatings(tour.tables[0], coop)) if tour.tables else 1
    done = b = 0
    while done < n_deals:
        nb = min(batch_size, n_deals - done)
        games = list(play_all_tables(tour, nb, batch_word(batch_seed(seed, b))))
        for i in range(nb):
            if by_score:  # one match per table: its rotations' summed chips or points
                for t in range(0, len(games), rotations):
                    total: dict[int, float] = {}
                    for lineup, out in games[t:t + rotations]:
                        for p, a in enumerate(lineup):
                            total[a] = total.get(a, 0.0) + out.score[i, p]
                    _rate(model, ratings, counts, [labels[a] for a in total],
                          list(total.values()))
                continue
            if coop:
                keys = {lineup[0]: out.key[i, 0] for lineup, out in games}
                _rate(model, ratings, counts, [labels[a] for a in keys], list(keys.values()))
                continue
            for lineup, out in games:
                best: dict[int, float] = {}
                for p, a in enumerate(lineup):
                    best[a] = max(best.get(a, -np.inf), out.key[i, p])
                _rate(model, ratings, counts, [labels[a] for a in best], list(best.values()))
        done += nb
        b += 1
    rows = {lab: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.mu - 3 * r.sigma,
                  "rating_games": counts[lab]} for lab, r in ratings.items()}
    return pd.DataFrame.from_dict(rows, orient="index")


def _rate(model, ratings, counts, labels, keys):
    # rank 1 = best; equal keys share a rank
    order = sorted(set(keys), reverse=True)
    ranks = [order.index(k) + 1 for k in keys]
    new = model.rate([[ratings[lab]] for lab in labels], ranks=ranks)
    for lab, team in zip(labels, new, strict=True):
        ratings[lab] = team[0]
        counts[lab] += 1
