"""Lure experiments: the fish-card balance report (:mod:`experiments.lure.balance`,
``boardlab lure balance`` / ``boardlab lure odds``).

The agents' win rates, tuning and interactive play of Lure are the generic commands
``boardlab winrates lure``, ``boardlab tune lure heuristic`` and ``boardlab play lure``.
"""
