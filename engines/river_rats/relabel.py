"""Relabelling River Rats' hidden cards: worlds with a consistent past, for inference over
hidden cards (:mod:`agents.inference`; the optional relabel hooks of
:mod:`engines.protocol.relabel`).

A *relabelling* for seat ``p`` is a permutation ``perm`` of the 54 card ids that moves only the
cards whose place ``p`` does not know (:func:`engines.river_rats.core.determinize`'s pool: the
other hands, the deck, the Rat's face-down cards, face-down debt and stake, another player's
face-down collective card, the waiting Rat's King) and sends the waiting Rat's King to a King.
Applied to the state now it gives a world; applied to a past state of the same game it gives
that world's past, so the other players' past decisions can be scored in it.

- :func:`relabel_map` draws ``perm`` uniformly from a seed. The cards it moves are taken in the
  order of their places in the game's *initial* state, so a true history relabelled by any such
  permutation (another deal consistent with everything ``p`` saw) gives the same worlds for the
  same seed: the sampler is a function of ``p``'s information, the seed and the public history.
- :func:`relabel` applies ``perm`` to a state: every pile's cards, the display piles of the
  last resolution, the public-card mask, the card words of the header (the prediction card,
  the card played, the pending swap) and the waiting Rat's suit.
- :func:`relabel_consistent` tells whether a past state may be relabelled so: not when ``p``
  knew a card's place then that it does not know now (a reshuffle put the discards back into
  the deck), since that card's past place was public.
- :func:`relabel_action` applies it to an action (the kinds whose argument is a card id).
- :func:`relabeled_world` is the world now: the relabelled state with the other hands sorted,
  the deck shuffled and the chance word restarted from the seed, as
  :func:`~engines.river_rats.core.determinize` leaves its worlds (the same distribution:
  a uniform deal of the hidden cards into the hidden places, the waiting King a uniform unseen
  King).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.protocol.chance import rand_below
from engines.protocol.relabel import shuffle_onto
from engines.river_rats import core

__all__ = ["N_CARDS", "relabel_map", "relabel", "relabel_action", "relabeled_world",
           "relabel_consistent"]

N_CARDS = 54
"""Card ids ``0 .. 53`` (rank * 4 + suit, the two jokers 52 and 53)."""
_CARD_ARG = np.zeros(core.N_KINDS, dtype=np.bool_)
for _k in (core.K_DRAW_MARKET, core.K_PLAY, core.K_JOKER, core.K_PUSH, core.K_SWAP_OUT,
           core.K_SWAP_IN, core.K_DISCARD, core.K_PPUSH, core.K_PSWAP_OUT, core.K_PSWAP_IN,
           core.K_PDISCARD):
    _CARD_ARG[_k] = True
_CARD_WORDS = (core.PRED_CARD, core.PLAYED, core.PENDING)


@njit(cache=True)
def relabel_map(s, s0, p, seed, perm):
    """A uniform relabelling for seat ``p`` of the state ``s`` into ``perm`` (``int64
    (54,)``): the cards whose place ``p`` does not know in ``s``, taken in the order of their
    places in the game's initial state ``s0``, go to a uniform arrangement of the same cards
    (the waiting Rat's King to a uniform unseen King); every other card to itself. ``seed``:
    an ``int64`` word. Returns the number of cards moved."""
    for c in range(N_CARDS):
        perm[c] = c
    place = np.empty(N_CARDS, dtype=np.int64)
    k = 0
    for j in range(core.N_PILES):
        b = core.PILE_BASE[j]
        for i in range(s0[b]):
            place[s0[b + 1 + i]] = k
            k += 1
    unknown = np.zeros(N_CARDS, dtype=np.bool_)
    n = 0
    for c in range(N_CARDS):
        if not core.known_cards(s, p, c):
            unknown[c] = True
            n += 1
    if n == 0:
        return 0
    words = np.empty(1, dtype=np.int64)
    words[0] = seed
    aside = -1
    if s[core.WAITING] >= 0 and s[core.ASIDE] > 0 and unknown[s[core.ASIDE + 1]]:
        aside = s[core.ASIDE + 1]
    # the moved cards in initial-place order (src) and in id order (dst)
    src = np.empty(n, dtype=np.int64)
    dst = np.empty(n, dtype=np.int64)
    m = 0
    for c in range(N_CARDS):
        if unknown[c]:
            dst[m] = c
            m += 1
    order = np.argsort(place[dst])
    for i in range(n):
        src[i] = dst[order[i]]
    if aside >= 0:
        nk = 0
        for i in range(n):
            if dst[i] >> 2 == core.KING:
                nk += 1
        r = rand_below(words, 0, nk)
        king = -1
        for i in range(n):
            if dst[i] >> 2 == core.KING:
                if r == 0:
                    king = dst[i]
                    break
                r -= 1
        perm[aside] = king
        _drop(src, n, aside)
        _drop(dst, n, king)
        n -= 1
    shuffle_onto(src, dst, n, words, perm)
    return n + (1 if aside >= 0 else 0)


@njit(cache=True)
def _drop(a, n, c):
    """Remove the value ``c`` from ``a[:n]`` keeping the order (``a[n-1]`` is then stale)."""
    i = 0
    while a[i] != c:
        i += 1
    for j in range(i, n - 1):
        a[j] = a[j + 1]


@njit(cache=True)
def relabel(src, perm, out):
    """``src`` (a River Rats state, ``int64 (STATE_SIZE,)``) with every card ``c`` replaced by
    ``perm[c]``, into ``out``: the piles, the public-card mask, the header's card words and the
    waiting Rat's suit (from its relabelled King); the evaluator's scratch cleared. The display
    piles of the last resolution stay: they are what every player saw then (a card shown
    there may be hidden again now, shuffled back into the deck)."""
    out[:] = src
    for j in range(core.N_PILES):
        _relabel_pile(src, core.PILE_BASE[j], perm, out)
    for w in _CARD_WORDS:
        if 0 <= src[w] < N_CARDS:
            out[w] = perm[src[w]]
    pub = np.int64(0)
    for c in range(N_CARDS):
        if (src[core.PUBLIC] >> c) & 1:
            pub |= np.int64(1) << perm[c]
    out[core.PUBLIC] = pub
    if src[core.WAITING] >= 0 and src[core.ASIDE] > 0:
        out[core.WAITING] = out[core.ASIDE + 1] & 3
        out[core.SECOND_RAT] = out[core.WAITING]
    for i in range(64):
        out[core.SCR + i] = 0


@njit(cache=True, inline="always")
def _relabel_pile(src, b, perm, out):
    for i in range(src[b]):
        c = src[b + 1 + i]
        if 0 <= c < N_CARDS:
            out[b + 1 + i] = perm[c]


@njit(cache=True)
def relabel_action(a, perm):
    """Action ``a`` with its card argument relabelled by ``perm`` (kinds whose argument is a
    card id: draw from the market, play, joker, push, swap, discard and their powers); other
    actions unchanged."""
    k = a >> 6
    arg = a & 63
    if k < core.N_KINDS and _CARD_ARG[k] and arg < N_CARDS:
        return (k << 6) + perm[arg]
    return a


@njit(cache=True)
def relabeled_world(s, p, perm, seed, out):
    """The world of relabelling ``perm`` for seat ``p``: :func:`relabel` of ``s``, the chance
    word restarted from ``seed`` and the order of hidden cards hidden
    (:func:`engines.river_rats.core.hide_order`), into ``out``."""
    relabel(s, perm, out)
    out[core.RNG] = seed
    out[core.FAILED_DRAW] = 0
    core.hide_order(out, p)


@njit(cache=True)
def relabel_consistent(past, s, p):
    """True when every card whose place seat ``p`` knew in the past state ``past`` is known to
    ``p`` in the state now ``s`` (relabellings for ``p`` then leave that past's public and
    own cards alone); False after a reshuffle of known cards into the deck."""
    for c in range(N_CARDS):
        if core.known_cards(past, p, c) and not core.known_cards(s, p, c):
            return False
    return True
