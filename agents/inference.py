"""Inference over hidden cards for the guided search: worlds weighted by how likely the other
players' observed actions are under the learned policy ``net``.

Policy-based inference (Rebstock, Solinas, Buro and Sturtevant 2019, "Policy based inference
in trick-taking card games"; Solinas, Rebstock and Buro 2019, "Improving search with supervised
learning in trick-based card games"): a world in which the others' past decisions look like
what ``net`` would have done is more likely than one in which they look like mistakes. In River
Rats the others are teammates, so what they played, kept, drew and passed on tells where the
hidden cards are.

How (:func:`infer_world_seeds`, called by :func:`agents.search.net_pimc` when
``params[H_INFER] > 0``):

1. The game's decision log (:mod:`engines.protocol.history`: the initial state and every
   action, kept by the game loop in the seat's policy memory) is replayed, and the other
   players' decisions among the last ``params[H_INFER]`` decisions that had a choice are kept,
   from the last point on where the player knew no card it does not know now (the game's
   ``relabel_consistent``: in River Rats, since the last reshuffle of known cards).
2. ``params[H_INFER_WORLDS]`` candidate worlds are drawn as *relabellings* of the cards the
   searching player does not know (:mod:`engines.protocol.relabel`; River Rats:
   :mod:`engines.river_rats.relabel`): the same relabelling applied to each kept past state
   gives that world's past, consistent with what the player saw.
3. A candidate's log-likelihood is the sum over the kept decisions of
   ``log((1 - EPSILON) * p + EPSILON / n)``, ``p`` ``net``'s probability of the action taken (in
   that world's past, from the deciding player's information state) among ``n`` legal ones:
   the mixture keeps a world alive when a teammate played what ``net`` would not (they are
   not ``net``); ``params[H_INFER_TEMP]`` multiplies it (a tempered likelihood, 1 = Bayes).
4. The search's worlds are drawn from the candidates in proportion to their likelihood
   (systematic resampling), each with its own future (deck order and chance) and rollouts.

Fair: every step reads the hidden cards only through a relabelling drawn from the player's
information, the seed and the public history, so the worlds do not depend on where the hidden
cards really are (tested: a history relabelled by any such permutation gives the same
decisions). A game without relabel hooks, a seat without a log, or a state that does not
replay from its log (a determinized copy) gets no inference: the search then draws its worlds
with ``determinize`` as without.
"""

from __future__ import annotations

import numpy as np
from numba import literally, njit

from agents.layout import search_settings
from agents.net import net_logits, softmax
from engines.protocol.chance import SEAT_WORDS, next_u64, rand_float
from engines.protocol.history import log_actions, log_count, log_initial
from engines.protocol.kernels import (
    g_apply_action,
    g_current_player,
    g_legal_actions,
    g_sizes,
)
from engines.protocol.relabel import (
    g_relabel,
    g_relabel_action,
    g_relabel_cards,
    g_relabel_consistent,
    g_relabel_map,
    g_relabeled_world,
)

__all__ = ["EPSILON", "IMPOSSIBLE", "infer_world_seeds", "inferred_world", "world_log_likelihood"]

EPSILON = 0.1
"""The weight of a uniform choice in the model of another player's decision (module
docstring, step 3)."""
IMPOSSIBLE = -30.0
"""Log-likelihood of a past decision whose action is not legal in a candidate's past (does not
happen with a consistent relabelling; kept as a guard)."""


@njit(cache=True)
def _evidence(game, s, player, rng, window, past, acts, actors):
    """Replay the log of ``rng`` and keep the other players' decisions with a choice among the
    last ``window``: their states into ``past[:m]``, actions and deciders into ``acts``,
    ``actors``; returns ``m``, or -1 when there is no log or it does not replay to ``s``."""
    literally(game)
    sz = g_sizes(game)
    n = log_count(rng, sz[0])
    if n < 0:
        return -1
    s0 = log_initial(rng, sz[0])
    log = log_actions(rng, sz[0])
    w = s0.copy()
    buf = np.empty(sz[1], dtype=np.int64)
    m = 0
    for t in range(n):
        if t >= n - window:
            if not g_relabel_consistent(game, w, s, player):
                m = 0  # the player has lost track of a card since: only later decisions count
            else:
                q = g_current_player(game, w)
                if q != player and m < past.shape[0] and g_legal_actions(game, w, buf) > 1:
                    past[m] = w
                    acts[m] = log[t]
                    actors[m] = q
                    m += 1
        g_apply_action(game, w, log[t])
    for i in range(sz[0]):
        if w[i] != s[i]:
            return -1
    return m


@njit(cache=True)
def world_log_likelihood(game, perm, past, acts, actors, m, params, aux, mem):
    """The log-likelihood (``float64``, untempered) of the decisions ``acts[:m]`` taken by
    ``actors[:m]`` in the past states ``past[:m]`` under ``net`` in the world of relabelling
    ``perm`` (module docstring, step 3). ``params``: the search's parameter row (``net``'s
    parameters from ``ROLLOUT_AT``); ``mem``: a seat memory (``net`` does not change it)."""
    literally(game)
    net_params = search_settings(params).rollout_params
    sz = g_sizes(game)
    pw = np.empty(sz[0], dtype=np.int64)
    buf = np.empty(sz[1], dtype=np.int64)
    z = np.empty(sz[1], dtype=np.float64)
    tot = 0.0
    for j in range(m):
        g_relabel(game, past[j], perm, pw)
        nl = g_legal_actions(game, pw, buf)
        a = g_relabel_action(game, acts[j], perm)
        idx = -1
        for i in range(nl):
            if buf[i] == a:
                idx = i
                break
        if idx < 0:
            tot += IMPOSSIBLE
            continue
        if not net_logits(game, pw, actors[j], buf, nl, net_params, aux, mem, z):
            continue  # no weights: no evidence
        softmax(z, nl)
        tot += np.log((1.0 - EPSILON) * z[idx] + EPSILON / nl)
    return tot


@njit(cache=True)
def infer_world_seeds(game, s, player, params, aux, rng, k, seeds_out):
    """Draw the ``k`` worlds of a search with inference (module docstring): ``seeds_out[:k]``
    (``int64``) gets the relabelling seed of each chosen world (repeats allowed: likely
    worlds are searched more), for :func:`engines.protocol.relabel.g_relabel_map` with the
    searching ``player``'s state ``s`` and the log's initial state. Draws from the seat's
    stream ``rng[0]``. Returns ``k``, or 0 when there is no inference to do (no relabel hooks,
    no log, no other player's decision in the window, ``params[H_INFER]`` 0): the caller then
    uses ``determinize``."""
    literally(game)
    settings = search_settings(params)
    if g_relabel_cards(game) == 0 or settings.infer_window <= 0.0:
        return 0
    sz = g_sizes(game)
    window = np.int64(settings.infer_window)
    past = np.empty((window, sz[0]), dtype=np.int64)
    acts = np.empty(window, dtype=np.int64)
    actors = np.empty(window, dtype=np.int64)
    m = _evidence(game, s, player, rng, window, past, acts, actors)
    if m <= 0:
        return 0
    s0 = log_initial(rng, sz[0])
    n_cand = max(k, np.int64(settings.infer_worlds))
    beta = settings.infer_temperature
    perm = np.empty(g_relabel_cards(game), dtype=np.int64)
    mem = rng[:SEAT_WORDS].copy()
    cand = np.empty(n_cand, dtype=np.int64)
    ll = np.empty(n_cand, dtype=np.float64)
    for c in range(n_cand):
        seed = next_u64(rng, 0)
        cand[c] = seed
        g_relabel_map(game, s, s0, player, seed, perm)
        ll[c] = beta * world_log_likelihood(game, perm, past, acts, actors, m, params, aux,
                                            mem)
    top = ll.max()
    w = np.exp(ll - top)
    tot = w.sum()
    # systematic resampling: k evenly spaced points through the cumulative weights
    u = rand_float(rng, 0) / k
    c = 0
    acc = w[0] / tot
    for i in range(k):
        x = u + i / k
        while acc < x and c < n_cand - 1:
            c += 1
            acc += w[c] / tot
        seeds_out[i] = cand[c]
    return k


@njit(cache=True)
def inferred_world(game, s, player, rng, relabel_seed, seed, out):
    """The world of relabelling seed ``relabel_seed`` (one of :func:`infer_world_seeds`'s) for
    ``player`` in state ``s``, with chance word ``seed`` (its own future: deck order and
    draws), into ``out`` (``int64 (STATE_SIZE,)``); ``rng``: the seat memory holding the log."""
    literally(game)
    sz = g_sizes(game)
    perm = np.empty(g_relabel_cards(game), dtype=np.int64)
    g_relabel_map(game, s, log_initial(rng, sz[0]), player, relabel_seed, perm)
    g_relabeled_world(game, s, player, perm, seed, out)
