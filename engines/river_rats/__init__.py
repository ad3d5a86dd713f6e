"""River Rats (``docs/rules/river_rats.md``): rules core and step API.

- :class:`RiverRatsConfig` (``Config``: its deprecated old name): every rule variant and
  **[decision]** of the rules file as a field;
- :func:`new_game` -> :class:`RiverRatsState` (the step API of :mod:`engines.protocol`),
  :func:`replay`, :func:`load_record`;
- :mod:`engines.river_rats.core`: the compiled kernels and the flat state layout.

Whole games of compiled policies (door 2) are played by :func:`agents.loop.play_batch`.
"""

import importlib

__all__ = ["RiverRatsConfig", "DIFFICULTIES", "SUIT_LETTERS", "RiverRatsState", "State", "new_game",
           "replay", "load_record", "game_seed", "core", "RULES_SUMMARY"]

_WHERE = {"RiverRatsConfig": "config", "DIFFICULTIES": "config", "SUIT_LETTERS": "config",
          "RiverRatsState": "game", "State": "game", "new_game": "game",
          "RULES_SUMMARY": "game", "replay": "protocol", "load_record": "protocol",
          "game_seed": "chance"}


def __getattr__(name: str):
    """Load the package's names on first use (PEP 562), so importing only
    :mod:`engines.river_rats.config` (the command line's ``--help``) does not compile or load
    the rules core. ``State`` is an alias of :class:`RiverRatsState`."""
    if name == "core":
        return importlib.import_module("engines.river_rats.core")
    if name == "Config":  # the deprecated old name: not cached, so every use warns
        import warnings

        warnings.warn("engines.river_rats.Config is deprecated: use RiverRatsConfig",
                      DeprecationWarning, stacklevel=2)
        return importlib.import_module("engines.river_rats.config").RiverRatsConfig
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'engines.river_rats' has no attribute {name!r}")
    mod = importlib.import_module(f"engines.{where}" if where in ("protocol", "chance")
                                  else f"engines.river_rats.{where}")
    value = getattr(mod, "RiverRatsState" if name == "State" else name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
