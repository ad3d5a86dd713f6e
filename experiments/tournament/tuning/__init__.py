"""The parts of ``boardlab tune`` (:func:`experiments.tournament.tune.tune`, the entry point,
whose docstring describes the method):

- :mod:`~experiments.tournament.tuning.space`: which parameters are tuned, over which ranges;
- :mod:`~experiments.tournament.tuning.objective`: a vector's win share against the field;
- :mod:`~experiments.tournament.tuning.job`: the run's inputs checked, its settings;
- :mod:`~experiments.tournament.tuning.study`: the optuna study, its trials and outputs;
- :mod:`~experiments.tournament.tuning.check`: the check of the winner on fresh deals;
- :mod:`~experiments.tournament.tuning.store`: the output folder rule, ``meta.json``, saving
  the tuned agent in the agent store;
- :mod:`~experiments.tournament.tuning.result`: :class:`TuneResult` and the files' names;
- :mod:`~experiments.tournament.tuning.plots`: ``objective.png`` and ``importances.png``.
"""
