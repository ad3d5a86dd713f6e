"""The optional relabel hooks of a game, behind compiled names chosen by a game id (as
:mod:`engines.protocol.kernels`): what inference over hidden cards needs (:mod:`agents.inference`).

A game offers them in ``engines/<game>/relabel.py`` (River Rats: :mod:`engines.river_rats.relabel`,
which documents the contract): ``N_CARDS``, ``relabel_map(s, s0, p, seed, perm)``,
``relabel(src, perm, out)``, ``relabel_action(a, perm)``, ``relabeled_world(s, p, perm, seed,
out)``, ``relabel_consistent(past, s, p)``. For a game without them :func:`g_relabel_cards` is
0 and the other hooks do nothing, so a search asked to infer plays as without inference.
"""

from __future__ import annotations

import importlib
import importlib.util

from numba import njit, types
from numba.extending import overload

from engines.protocol import GAME_NAMES
from engines.protocol.chance import rand_below
from engines.protocol.direct import direct_call_by_game

__all__ = ["shuffle_onto", "has_relabel", "g_relabel_cards", "g_relabel_map", "g_relabel",
           "g_relabel_action", "g_relabeled_world", "g_relabel_consistent"]

_OPTS = {"cache": True}


@njit(cache=True)
def shuffle_onto(src, dst, n, words, perm):
    """Send the cards ``src[:n]`` to a uniform arrangement of the cards ``dst[:n]``: shuffle
    ``dst[:n]`` in place (Fisher-Yates, drawing from the generator ``words[0]``) and set
    ``perm[src[i]] = dst[i]``. The common step of the games' ``relabel_map``."""
    for i in range(n - 1, 0, -1):
        j = rand_below(words, 0, i + 1)
        t = dst[i]
        dst[i] = dst[j]
        dst[j] = t
    for i in range(n):
        perm[src[i]] = dst[i]


def has_relabel(game: str) -> bool:
    """True when game ``game`` (a normalized name) offers the relabel hooks."""
    return importlib.util.find_spec(f"engines.{game}.relabel") is not None


def _hooks(game):
    if not isinstance(game, types.IntegerLiteral):
        return None, False
    name = GAME_NAMES[game.literal_value]
    if not has_relabel(name):
        return None, True
    return importlib.import_module(f"engines.{name}.relabel"), True


def g_relabel_cards(game):
    """The number of card ids the game's relabellings permute; 0 without relabel hooks."""


@overload(g_relabel_cards, jit_options=_OPTS)
def _ov_cards(game):
    R, ok = _hooks(game)
    if not ok:
        return None
    n = 0 if R is None else R.N_CARDS

    def impl(game):
        return n
    return impl


def _hook_call(stub, hook: str, none):
    """``stub`` as a compiled name (:func:`engines.protocol.direct.direct_call_by_game`) that
    calls the game's relabel hook ``hook`` (a function of ``engines/<game>/relabel.py``) with
    the arguments after ``game``, or ``none`` (compiled, the same arguments) for a game without
    hooks."""
    def resolve(game_id):
        name = GAME_NAMES[game_id]
        if not has_relabel(name):
            return none
        return getattr(importlib.import_module(f"engines.{name}.relabel"), hook)
    return direct_call_by_game(stub, resolve)


@njit(cache=True)
def _no_map(s, s0, p, seed, perm):
    return 0


@njit(cache=True)
def _copy_cards(src, perm, out):
    out[:] = src


@njit(cache=True)
def _same_action(a, perm):
    return a


@njit(cache=True)
def _same_world(s, p, perm, seed, out):
    out[:] = s


@njit(cache=True)
def _never_consistent(past, s, p):
    return False


def g_relabel_map(game, s, s0, p, seed, perm):
    """The game's ``relabel_map`` (a uniform relabelling of ``p``'s unknown cards into
    ``perm``; returns the cards moved), or 0 without hooks."""


g_relabel_map = _hook_call(g_relabel_map, "relabel_map", _no_map)


def g_relabel(game, src, perm, out):
    """The game's ``relabel`` (``src`` with its cards relabelled into ``out``); a copy without
    hooks."""


g_relabel = _hook_call(g_relabel, "relabel", _copy_cards)


def g_relabel_action(game, a, perm):
    """The game's ``relabel_action``; ``a`` itself without hooks."""


g_relabel_action = _hook_call(g_relabel_action, "relabel_action", _same_action)


def g_relabeled_world(game, s, p, perm, seed, out):
    """The game's ``relabeled_world`` (the world now of relabelling ``perm``); a copy of ``s``
    without hooks."""


g_relabeled_world = _hook_call(g_relabeled_world, "relabeled_world", _same_world)


def g_relabel_consistent(game, past, s, p):
    """The game's ``relabel_consistent`` (may the past state ``past`` be relabelled by a
    relabelling for ``p`` of the state now ``s``); False without hooks."""


g_relabel_consistent = _hook_call(g_relabel_consistent, "relabel_consistent",
                                  _never_consistent)
