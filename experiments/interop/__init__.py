"""Adapters of the four boardlab games to other frameworks (the ``interop`` extra).

- :mod:`experiments.interop.openspiel_game`: every game as a registered OpenSpiel (``pyspiel``)
  Python game ``boardlab_<game>``, with explicit chance nodes that pick the game's 64-bit seed
  (``import experiments.interop.openspiel_game`` registers them: OpenSpiel has no plugin
  discovery, so ``pyspiel.load_game("boardlab_rats")`` works only after that import);
- :mod:`experiments.interop.pettingzoo_env`: PettingZoo AEC environments for every game and
  player count (and a parallel environment for Lure's simultaneous cast);
- :mod:`experiments.interop.bots`: our registered policies as ``pyspiel.Bot`` objects and our
  heuristic as a rollout evaluator for OpenSpiel's ISMCTS.

The submodules import ``pyspiel`` / ``pettingzoo`` themselves; this package imports neither, so
``import experiments.interop`` works without the extra.
"""
