"""Lure experiments: the fish-card balance report (:mod:`experiments.lure.balance`,
``boardlab lure balance`` / ``boardlab lure odds``), one card's odds and fair points
(:mod:`experiments.lure.card`, ``boardlab lure card``) and the deck rebalance
(:mod:`experiments.lure.rebalance`, :mod:`experiments.lure.rebalance_report`,
``boardlab lure rebalance``). Both play ``net`` by default and compare their verdicts with
the heuristic's (:mod:`experiments.lure.defaults`, :mod:`experiments.lure.verdicts`).

The agents' win rates, tuning and interactive play of Lure are the generic commands
``boardlab winrates lure``, ``boardlab tune lure heuristic`` and ``boardlab play lure``.
"""
