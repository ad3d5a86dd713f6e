"""The agents' contract written as code: what ``agents/<game>.py`` must and may offer, checked
once per game when its agents are first used (and for every registered game by the
conformance test), with a one-line error naming the missing or malformed hook.

Required (every game; :mod:`agents.policy` says what each means):

===================  =====================================================================
``SPECS``            tuple of :class:`agents.layout.PolicySpec`: the shipped policies
``act``              ``@njit act(kind, state, player, legal, n_legal, params, aux, rng)``
``make_aux``         ``make_aux(config) -> float64 array`` of game data for ``act``
``PARAMS_WIDTH``     int: the length of every parameter row passed to ``act``
``POLICY_FUNCTIONS`` dict name -> ``@njit policy(state, player, legal, n_legal, params, rng)``
                     of the shipped policies that need no game data (a table of one such
                     policy compiles only it; may be a subset of ``SPECS``)
===================  =====================================================================

Optional, by group:

- **Search agents** (all or none): ``leaf_value(state, weights, out)`` (``@njit``),
  ``LEAF_VALUE_NAMES`` (tuple of str), ``LEAF_VALUE_DEFAULT`` (float array no longer than the
  names); and the optional settings ``ROLLOUT_POLICY`` (a ``SPECS`` name, default
  ``"heuristic"``), ``SEARCH_PRESETS`` (preset name -> (simulations, horizon, exploration)),
  ``SEARCH_HORIZON`` (0, 1 or 2: the horizon of every preset), ``LEARNED_VALUE_SCALE`` (a
  positive float, default 1.0: a return of 1 in the units of ``leaf_value``; the scale of the
  learned value, :mod:`agents.value`, in the ``net-search`` presets of a game that ships value
  weights).
- ``check_agent_params(name, vec)``: game-specific checks of a parameter vector (raises
  ``ValueError``).
- ``TABLE_ORDER_POLICIES``: dict name (of ``POLICY_FUNCTIONS``) -> ``(listing, policy)``, for
  a shipped policy that draws from the legal actions in the game's own listing order rather
  than the ascending one: ``@njit listing(state, out) -> n`` lists the legal actions in that
  order and ``@njit policy(state, player, legal, n_legal, params, rng)`` takes that list and
  returns **the same action** (and draws the same numbers) as the named policy does from the
  ascending list. The compiled loop uses the pair at a table where every seat plays that
  policy (:func:`agents.dispatch.g_legal_seat`), sparing the sort and the way back to table
  order (River Rats' ``random``); tested game for game against the general loop.
- **Action features** (all or none; the input of the learned policy's format
  ``boardlab.net/2``, :mod:`agents.net`): ``action_features(state, player, legal, n_legal,
  params, rng, state_out, action_out)`` (``@njit``; ``params`` the heuristic's, ``rng`` the
  seat memory, read only; fills ``float32`` ``state_out (len(STATE_FEATURE_NAMES),)`` and
  ``action_out (n_legal, len(ACTION_FEATURE_NAMES))`` from the player's information only),
  ``STATE_FEATURE_NAMES`` and ``ACTION_FEATURE_NAMES`` (tuples of str), ``FEATURES_VERSION``
  (int >= 1: bump it whenever what any feature computes changes, and retrain or re-stamp the
  shipped weights; with the names it makes the features hash that weights files are checked
  against, :func:`agents.net.layout_signature`).

A game without the search group has no search agents (and no ``pimc``/``ismcts`` names).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from agents.layout import PolicySpec

__all__ = ["AgentsContract", "contract", "check_module", "REQUIRED", "SEARCH_GROUP",
           "FEATURES_GROUP", "lazy_feature_hooks"]

REQUIRED = ("SPECS", "act", "make_aux", "PARAMS_WIDTH", "POLICY_FUNCTIONS")
"""The hooks every ``agents/<game>.py`` defines."""
SEARCH_GROUP = ("leaf_value", "LEAF_VALUE_NAMES", "LEAF_VALUE_DEFAULT")
"""The hooks a game with search agents defines together."""
FEATURES_GROUP = ("action_features", "STATE_FEATURE_NAMES", "ACTION_FEATURE_NAMES",
                  "FEATURES_VERSION")
"""The hooks a game with action features (``net`` format 2) defines together."""


def lazy_feature_hooks(owner: str, features: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` (PEP 562) for the agents module ``owner`` that serves the
    action-features group (:data:`FEATURES_GROUP`) from the module ``features`` (a name such as
    ``"agents.recurring_features"``), imported on first use: the features build on the owner's
    heuristic, so they live in their own module, and either may be imported first. Any other
    missing name raises ``AttributeError`` as usual."""
    import importlib

    def __getattr__(name: str):
        if name in FEATURES_GROUP:
            return getattr(importlib.import_module(features), name)
        raise AttributeError(f"module {owner!r} has no attribute {name!r}")

    return __getattr__


@dataclass(frozen=True)
class AgentsContract:
    """The checked hooks of one game's agents module (:func:`contract`): the required ones,
    and the optional ones (None or the documented default where absent)."""

    game: str
    module: ModuleType
    specs: tuple
    act: Callable
    make_aux: Callable
    params_width: int
    policy_functions: dict
    leaf_value: Callable | None = None
    leaf_value_names: tuple[str, ...] = ()
    leaf_value_default: Any = None
    rollout_policy: str = "heuristic"
    search_presets: dict = field(default_factory=dict)
    search_horizon: int | None = None
    learned_value_scale: float = 1.0
    check_agent_params: Callable | None = None
    action_features: Callable | None = None
    state_feature_names: tuple[str, ...] = ()
    action_feature_names: tuple[str, ...] = ()
    features_version: int | None = None
    table_order_policies: dict = field(default_factory=dict)

    @property
    def has_search(self) -> bool:
        """True if the game offers the search agents (it has the search group)."""
        return self.leaf_value is not None


def check_module(game: str, mod: ModuleType) -> AgentsContract:
    """The :class:`AgentsContract` of ``mod`` (the agents module of ``game``). Raises
    ``ValueError`` in one line naming the module and the first missing or malformed hook."""
    where = f"agents/{game}.py"

    def bad(msg: str):
        raise ValueError(f"{where}: {msg}")

    for name in REQUIRED:
        if not hasattr(mod, name):
            bad(f"missing hook {name} (required: {', '.join(REQUIRED)}; see agents.contract)")
    specs = tuple(mod.SPECS)
    if not specs or not all(isinstance(s, PolicySpec) and s.game == game for s in specs):
        bad(f"SPECS must be a non-empty tuple of PolicySpec of game {game!r}")
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        bad("SPECS names must be distinct")
    for hook in ("act", "make_aux"):
        if not callable(getattr(mod, hook)):
            bad(f"{hook} must be callable")
    width = mod.PARAMS_WIDTH
    if not isinstance(width, int) or width < 0 or any(len(s.default_params) > width
                                                      for s in specs):
        bad(f"PARAMS_WIDTH {width!r} must be an int at least every SPECS parameter count")
    pf = mod.POLICY_FUNCTIONS
    if not isinstance(pf, dict) or not set(pf) <= set(names) or not all(map(callable,
                                                                            pf.values())):
        bad(f"POLICY_FUNCTIONS must map SPECS names ({', '.join(names)}) to compiled policies")
    present = [h for h in SEARCH_GROUP if hasattr(mod, h)]
    kw: dict[str, Any] = {}
    if present:
        if len(present) != len(SEARCH_GROUP):
            missing = [h for h in SEARCH_GROUP if h not in present]
            bad(f"missing hook {missing[0]} (the search agents need all of "
                f"{', '.join(SEARCH_GROUP)})")
        if len(mod.LEAF_VALUE_DEFAULT) > len(mod.LEAF_VALUE_NAMES):
            bad("LEAF_VALUE_DEFAULT has more weights than LEAF_VALUE_NAMES")
        roll = getattr(mod, "ROLLOUT_POLICY", "heuristic")
        if roll not in names:
            bad(f"ROLLOUT_POLICY {roll!r} is not one of SPECS ({', '.join(names)})")
        horizon = getattr(mod, "SEARCH_HORIZON", None)
        if horizon not in (None, 0, 1, 2):
            bad(f"SEARCH_HORIZON {horizon!r}: expected 0, 1 or 2")
        scale = getattr(mod, "LEARNED_VALUE_SCALE", 1.0)
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not scale > 0:
            bad(f"LEARNED_VALUE_SCALE {scale!r}: expected a positive number")
        kw.update(leaf_value=mod.leaf_value, leaf_value_names=tuple(mod.LEAF_VALUE_NAMES),
                  learned_value_scale=float(scale),
                  leaf_value_default=mod.LEAF_VALUE_DEFAULT, rollout_policy=roll,
                  search_presets=dict(getattr(mod, "SEARCH_PRESETS", {})),
                  search_horizon=horizon)
    present = [h for h in FEATURES_GROUP if hasattr(mod, h)]
    if present:
        if len(present) != len(FEATURES_GROUP):
            missing = [h for h in FEATURES_GROUP if h not in present]
            bad(f"missing hook {missing[0]} (action features need all of "
                f"{', '.join(FEATURES_GROUP)})")
        if not callable(mod.action_features) or not mod.STATE_FEATURE_NAMES \
                or not mod.ACTION_FEATURE_NAMES:
            bad("action_features must be callable and the feature names non-empty tuples")
        version = mod.FEATURES_VERSION
        if type(version) is not int or version < 1:
            bad(f"FEATURES_VERSION {version!r}: expected an int >= 1")
        kw.update(action_features=mod.action_features,
                  state_feature_names=tuple(mod.STATE_FEATURE_NAMES),
                  action_feature_names=tuple(mod.ACTION_FEATURE_NAMES),
                  features_version=version)
    table = getattr(mod, "TABLE_ORDER_POLICIES", {})
    if not isinstance(table, dict) or not set(table) <= set(pf) or not all(
            isinstance(v, tuple) and len(v) == 2 and all(map(callable, v))
            for v in table.values()):
        bad("TABLE_ORDER_POLICIES must map POLICY_FUNCTIONS names to (listing, policy) pairs "
            "of compiled functions")
    kw["table_order_policies"] = dict(table)
    check = getattr(mod, "check_agent_params", None)
    if check is not None and not callable(check):
        bad("check_agent_params must be callable")
    return AgentsContract(game=game, module=mod, specs=specs, act=mod.act,
                          make_aux=mod.make_aux, params_width=width, policy_functions=dict(pf),
                          check_agent_params=check, **kw)


_contracts: dict[str, AgentsContract] = {}


def contract(game: str) -> AgentsContract:
    """The checked :class:`AgentsContract` of ``game``'s agents module ``agents.<game>``
    (checked once per process; ``ValueError`` in one line, see :func:`check_module`)."""
    from engines.protocol import normalize_game_name

    game = normalize_game_name(game)
    if game not in _contracts:
        _contracts[game] = check_module(game, importlib.import_module(f"agents.{game}"))
    return _contracts[game]
