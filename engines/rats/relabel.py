"""Relabelling Rats' hidden cards: worlds with a consistent past within the current round, for
inference over hidden cards (:mod:`agents.inference`; the contract of the relabel hooks:
:mod:`engines.protocol.relabel` and :mod:`engines.river_rats.relabel`).

What seat ``p`` does not know (:func:`engines.rats.core.determinize`): in round 1 where the
cards of the other hands and the kitty lie among those places; from round 2 on how each other
seat's holding (``HAND | ASIDE``, known) splits into hand and set-aside pile. A relabelling
permutes exactly those cards, within those groups: round 1 one group (every other hand, set-
aside pile and the kitty), later rounds one group per other seat. Cards are sets (card masks),
so a place's cards in the world are the images of its true cards, a uniform subset of its
group of the place's size: the same for any true deal consistent with ``p``'s information.
While another seat builds a lead that is not yet one, only relabellings whose world lets the
builder go on are kept (drawn again, as ``determinize`` does). Hidden cards do not move during
a round (a card moves when it is played, face up), so a relabelling applies to every state of
the current round (:func:`relabel_consistent`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.protocol.bits import low_bit
from engines.protocol.chance import mix
from engines.protocol.relabel import shuffle_onto
from engines.rats import core

__all__ = ["N_CARDS", "relabel_map", "relabel", "relabel_action", "relabeled_world",
           "relabel_consistent"]

N_CARDS = 54
"""Card ids ``0 .. 53`` (``4 * rank + suit``, jokers 52 and 53)."""
MAX_TRIES = 1 << 16
"""Relabellings drawn at most while a builder's hand must complete its lead (the last one is
kept, as in ``determinize``)."""


@njit(cache=True)
def _mask_cards(m, out, n):
    """Append the cards of card mask ``m`` in id order to ``out`` from ``n``; returns the new
    length."""
    while m != 0:
        out[n] = low_bit(m)
        n += 1
        m &= m - 1
    return n


@njit(cache=True, inline="always")
def _group(s, p, src, q_or_all):
    """The cards of one relabelling group in canonical place order (each place's cards in id
    order): round 1 (``q_or_all`` = -1) every other seat's hand and set-aside pile, then the
    kitty; later rounds seat ``q_or_all``'s hand then its set-aside pile. Returns the count."""
    n = 0
    if q_or_all < 0:
        for q in range(s[core.N_PLAYERS]):
            if q != p:
                n = _mask_cards(s[core.HAND + q], src, n)
                n = _mask_cards(s[core.ASIDE + q], src, n)
        n = _mask_cards(s[core.KITTY], src, n)
    else:
        n = _mask_cards(s[core.HAND + q_or_all], src, n)
        n = _mask_cards(s[core.ASIDE + q_or_all], src, n)
    return n


@njit(cache=True)
def _draw_map(s, p, words, perm):
    """One uniform relabelling of ``p``'s groups into ``perm``, from the generator ``words[0]``;
    returns the cards moved."""
    for c in range(N_CARDS):
        perm[c] = c
    src = np.empty(N_CARDS, dtype=np.int64)
    dst = np.empty(N_CARDS, dtype=np.int64)
    moved = 0
    first = -1 if s[core.ROUND] == 1 else 0
    last = 0 if s[core.ROUND] == 1 else s[core.N_PLAYERS]
    for g in range(first, last):
        if g == p:
            continue
        n = _group(s, p, src, g)
        for i in range(n):
            dst[i] = src[i]
        dst[:n].sort()
        shuffle_onto(src, dst, n, words, perm)
        moved += n
    return moved


@njit(cache=True)
def relabel_map(s, s0, p, seed, perm):
    """A uniform relabelling for seat ``p`` of the Rats state ``s`` into ``perm`` (``int64
    (54,)``; module docstring), drawn from the word ``seed``; ``s0`` (the initial state) is not
    needed: hidden cards do not move within a round. While another seat builds a lead, drawn
    again until that seat can go on. Returns the number of cards in the groups."""
    words = np.empty(1, dtype=np.int64)
    words[0] = seed
    moved = _draw_map(s, p, words, perm)
    if not (s[core.PHASE] == core.PHASE_BUILD and s[core.CUR] != p):
        return moved
    w = np.empty_like(s)
    for _ in range(MAX_TRIES):
        relabel(s, perm, w)
        if core.build_candidates(w, True) != 0 or core.lead_complete(w):
            break
        moved = _draw_map(s, p, words, perm)
    return moved


@njit(cache=True)
def _relabel_mask(m, perm):
    out = np.int64(0)
    while m != 0:
        out |= np.int64(1) << perm[low_bit(m)]
        m &= m - 1
    return out


@njit(cache=True)
def relabel(src, perm, out):
    """``src`` (a Rats state) with every card ``c`` replaced by ``perm[c]``, into ``out``: the
    card masks (hands, capture piles, set-aside piles, tables, kitty) and the last card added
    to a lead being built."""
    out[:] = src
    out[core.KITTY] = _relabel_mask(src[core.KITTY], perm)
    for q in range(src[core.N_PLAYERS]):
        for b in (core.HAND, core.CAPT, core.ASIDE, core.TABLE):
            out[b + q] = _relabel_mask(src[b + q], perm)
    if 0 <= src[core.LAST_ADDED] < N_CARDS:
        out[core.LAST_ADDED] = perm[src[core.LAST_ADDED]]


@njit(cache=True)
def relabel_action(a, perm):
    """Action ``a`` with its card relabelled (a card id ``0 .. 53``); the declarations and
    ``FINISH`` unchanged."""
    if 0 <= a < N_CARDS:
        return perm[a]
    return a


@njit(cache=True)
def relabeled_world(s, p, perm, seed, out):
    """The world of relabelling ``perm`` for seat ``p``: :func:`relabel` of ``s`` with the
    chance word reseeded as ``determinize`` does (``mix(seed ^ DET_SALT)``), into ``out``."""
    relabel(s, perm, out)
    out[core.RNG] = mix(np.int64(seed) ^ core.DET_SALT)


@njit(cache=True)
def relabel_consistent(past, s, p):
    """True when the past state ``past`` is of the same round as ``s`` (hidden cards move only
    between rounds, so the relabellings of ``s`` apply to it)."""
    return past[core.ROUND] == s[core.ROUND]
