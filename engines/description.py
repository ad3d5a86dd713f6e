"""The one description of each game: every fact about a game that code outside its rules core
needs (its name and title, player range and defaults, whether it is cooperative, its utility,
how a tournament reads its outcome, its score, its tuning bounds, its agents' module), declared
once in ``engines/<game>/description.py`` and read by the command line, the tournament, the
OpenSpiel and PettingZoo adapters, the learned-policy tools and the conformance test.

Pure Python (no NumPy, no Numba): the command line builds its ``--help`` from it in well under
a second. The registry of games is :data:`engines.names.REGISTRY`: adding a game is its own
files plus one line there (``docs/adding_a_game.md``). Loading a description imports the game's
package, so every game's ``__init__.py`` loads its public names on first use
(:func:`lazy_names`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

# the package holding the games: ``engines``, or the name a benchmark's copy of a past revision
# imports it under (``benchmarks/poker_eval.py --baseline``)
_PACKAGE = __name__.rpartition(".")[0]

__all__ = ["GameDescription", "UTILITIES", "OUTCOMES", "load_description", "lazy_names"]

UTILITIES = ("identical", "constant_sum", "zero_sum", "general_sum")
"""Utility types, as OpenSpiel names them (``pyspiel.GameType.Utility``): ``identical`` every
seat gets the same return (a team game), ``constant_sum``/``zero_sum`` the returns sum to a
constant/zero, ``general_sum`` anything else."""
OUTCOMES = ("team", "place", "win_then_score", "match", "chips")
"""How the tournament reads one deal (:mod:`experiments.tournament.games`): ``team`` every
seat wins when the team wins (return > 0); ``place`` the returns are win shares and the
rank key is the finishing place (outcome fields ``place_<seat>``, lower is better);
``win_then_score`` the returns are win shares, ties broken by the score (outcome fields
``score_<seat>``); ``chips`` the returns are chips won or lost: the most chips win the deal
(ties share), the score is the chips; ``match`` a deal is a match of ``games_per_match``
games (config field :attr:`GameDescription.match_games_field`) whose summed returns decide the
winner."""


@dataclass(frozen=True)
class GameDescription:
    """What code outside a game's rules core knows of the game (one instance per game).

    - ``name``: the code name (``"river_rats"``: the folder ``engines/<name>``, the module
      ``agents.<name>``); ``title``: the name on the box.
    - ``min_players``/``max_players``: the player range; ``default_players``: the count of the
      config's default and of tables when none is given; ``play_players``: the count of
      ``boardlab play`` when none is given (a session with one human).
    - ``cooperative``: every seat plays for one team (evaluated by win rate, not duplicate
      matches).
    - ``utility`` (:data:`UTILITIES`), ``min_utility``, ``max_utility``, ``utility_sum`` (None
      unless constant-sum): the returns' type and bounds (OpenSpiel's game info). A bound may
      be the name of a rules-core constant (``"N_IDS"``), read when needed.
    - ``outcome`` (:data:`OUTCOMES`), ``match_games_field``: how a tournament reads a deal.
    - ``score_name``: what a tournament's score column measures; ``score_units``: integer
      units per score point when summing (``"win"``: the tournament's win units).
    - ``tunable``: the shipped policies whose parameter vector ``tune`` searches (first: the
      tunable family); ``param_bounds``: their search box, a tuple of ``(low, high)`` per
      parameter in order, or a dict by parameter name with ``default_bound`` for the rest.
    - ``simultaneous``: the game has simultaneous moves (a PettingZoo parallel environment).
    - ``rules``: the rules summary's file name under ``docs/rules/``.
    - ``explicit_deals``: 0, or the number of equally likely deals that are the game's only
      chance event; the rules core then offers ``init_deal(cfg, deal, out)`` (a new game with
      deal ``deal``), :meth:`engines.protocol.GameState.from_deal` builds one, and the OpenSpiel
      adapter makes the deal one explicit chance node (so CFR can walk the whole tree).
    """

    name: str
    title: str
    min_players: int
    max_players: int
    default_players: int
    play_players: int
    cooperative: bool
    utility: str
    min_utility: float | str
    max_utility: float | str
    utility_sum: float | None = None
    outcome: str = "place"
    match_games_field: str | None = None
    score_name: str = "win share"
    score_units: int | str = "win"
    tunable: tuple[str, ...] = ("heuristic",)
    param_bounds: tuple | dict | None = None
    default_bound: tuple[float, float] = (0.0, 1.0)
    simultaneous: bool = False
    rules: str = ""
    explicit_deals: int = 0
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        problems = []
        if not (1 <= self.min_players <= self.default_players <= self.max_players):
            problems.append(f"players {self.min_players}..{self.max_players} with default "
                            f"{self.default_players}")
        if not self.min_players <= self.play_players <= self.max_players:
            problems.append(f"play_players {self.play_players}")
        if self.utility not in UTILITIES:
            problems.append(f"utility {self.utility!r} (expected one of {', '.join(UTILITIES)})")
        if self.outcome not in OUTCOMES:
            problems.append(f"outcome {self.outcome!r} (expected one of {', '.join(OUTCOMES)})")
        if self.outcome == "match" and not self.match_games_field:
            problems.append("outcome 'match' without match_games_field")
        if self.cooperative != (self.outcome == "team"):
            problems.append("cooperative games (and only they) read outcomes as 'team'")
        if problems:
            raise ValueError(f"game description {self.name!r}: bad " + "; ".join(problems))

    @property
    def players(self) -> tuple[int, ...]:
        """The allowed player counts, ascending."""
        return tuple(range(self.min_players, self.max_players + 1))

    @property
    def agents_module(self) -> str:
        """The module of the game's shipped policies (``agents.<name>``)."""
        return f"agents.{self.name}"

    def utility_bounds(self, core=None) -> tuple[float, float]:
        """``(min_utility, max_utility)`` as floats; a bound naming a rules-core constant is
        read from ``core`` (the game's ``engines.<name>.core``, imported when None)."""
        def value(v):
            if isinstance(v, str):
                mod = core or importlib.import_module(f"{_PACKAGE}.{self.name}.core")
                return float(getattr(mod, v))
            return float(v)
        return value(self.min_utility), value(self.max_utility)

    def bounds_for(self, param_names) -> tuple[tuple[float, float], ...]:
        """The tuning box of the tunable family's parameters ``param_names`` (in order)."""
        if isinstance(self.param_bounds, dict):
            return tuple(tuple(self.param_bounds.get(n, self.default_bound)) for n in param_names)
        if self.param_bounds is None:
            return tuple(self.default_bound for _ in param_names)
        return tuple(tuple(b) for b in self.param_bounds)[:len(param_names)]


def load_description(name: str) -> GameDescription:
    """The :class:`GameDescription` declared as ``DESCRIPTION`` in
    ``engines/<name>/description.py`` (a plain import: every game's package loads its names on
    first use, so this imports neither NumPy nor the rules core). Raises ``ValueError`` (one
    line) when the file or the name is missing or the description names another game."""
    modname = f"{_PACKAGE}.{name}.description"
    try:
        mod = importlib.import_module(modname)
    except ModuleNotFoundError as exc:
        if exc.name not in (modname, f"{_PACKAGE}.{name}"):
            raise
        raise ValueError(f"game {name!r}: no engines/{name}/description.py") from None
    d = getattr(mod, "DESCRIPTION", None)
    if not isinstance(d, GameDescription):
        raise ValueError(f"game {name!r}: engines/{name}/description.py defines no "
                         f"DESCRIPTION = GameDescription(...)")
    if d.name != name:
        raise ValueError(f"game {name!r}: its description is named {d.name!r}")
    return d


def lazy_names(package: str, names, where: dict[str, str], deprecated: dict | None = None):
    """``(__getattr__, __dir__)`` for the game package ``package`` (``"engines.lure"``) whose
    public ``names`` load on first use (PEP 562), so that importing its description or its
    config compiles and loads nothing.

    ``where`` maps a name to the module defining it (``"engines.lure.game"``), or to
    ``"module:attribute"`` for a name spelled otherwise there; the package's ``core`` is its
    module ``<package>.core``. A loaded name is kept in the package. ``deprecated`` maps an old
    name to its new one: every use warns (``DeprecationWarning``) and gives the new name's
    value. An unknown name raises ``AttributeError``."""
    import sys
    import warnings

    deprecated = dict(deprecated or {})

    def __getattr__(name: str):  # noqa: N807  (the module hook of PEP 562)
        if name == "core":
            return importlib.import_module(f"{package}.core")
        if name in deprecated:
            warnings.warn(f"{package}.{name} is deprecated: use {deprecated[name]}",
                          DeprecationWarning, stacklevel=2)
            return __getattr__(deprecated[name])
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attr = where[name].partition(":")
        value = getattr(importlib.import_module(module), attr or name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:  # noqa: N807
        return sorted(names)

    return __getattr__, __dir__
