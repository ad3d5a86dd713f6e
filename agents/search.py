"""Determinized search agents for every game, written once on the protocol: flat Monte Carlo
(PIMC) with common random numbers, and single-observer information-set MCTS (ISMCTS).

Both see only what the acting player may see: every simulation starts from
``determinize(state, player, seed)`` (:mod:`engines.protocol`), a world sampled from the
player's information state, never from the real hidden cards; so a search's decision is the
same whatever the hidden cards really are (tested). Their randomness comes from the seat's own
stream (``rng[0]``), so the same seed gives the same decisions on any number of workers.

**PIMC** (perfect-information Monte Carlo; Ginsberg's GIB, Long et al. 2010 "Understanding the
success of perfect information Monte Carlo sampling in game tree search"): for each of
``samples`` determinized worlds, every legal action is tried and the rest of the play is rolled
out with a registered policy up to the horizon, where the game's leaf value scores it; the
action with the best mean wins. Within one world every action sees the same deck order and the
same rollout streams (common random numbers), so differences between actions are not chance.

**ISMCTS** (single-observer information-set MCTS; Cowling, Powley and Whitehouse, "Information
Set Monte Carlo Tree Search", IEEE TCIAIG 4(2), 2012): each simulation determinizes, descends a
tree of the searching player's turn (its consecutive small decisions; with ``params[6] = 1``,
every later decision too) by UCB1 with availability counts (a child's exploration term
uses how often it was *available*, since worlds differ in their legal actions), expands one new
action, rolls out to the horizon and backs up the leaf value of every player (each node keeps
the mean for the player who acted there). Decisions of other players that the searching player
cannot observe (``observed_action`` hidden: a secret Lure cast, a face-down card) are not
branched on: they are played by the rollout policy. The most visited root action is chosen.

**Guided by the learned policy** (:func:`net_pimc`, the ``net-search*`` presets; expert
iteration's "fast and slow" pair, Anthony, Tian and Barber 2017): PIMC whose rollouts are
played by ``net`` (:mod:`agents.net`; ``params[H_ROLLOUT] = K_NET``) instead of the heuristic,
and whose choice adds ``params[H_PRIOR]`` times the log of ``net``'s probability of each action
to its mean value (a policy-regularized choice: where a few worlds cannot separate two actions,
the learned policy decides). ``net`` reads only its player's information state, in the
sampled worlds as at the root, so the guided search is as fair as PIMC. :func:`net_ismcts`
(``net-ismcts``) guides ISMCTS the same way: ``net``'s probabilities as a PUCT prior at the
root, where they are the player's own.

**Learned leaf value** (``params[H_LEARNED_VALUE] = scale != 0``, :func:`net_pimc` only):
the leaf is scored by the learned value network (:mod:`agents.value`: every seat's expected
return from its own information-state tensor in the world, a cooperative team's mean) times
``scale`` instead of the game's hand-written ``leaf_value``; with ``params[H_MAX_STEPS] < 0``
there is no rollout at all, the leaf is the state right after the action (the value network
in place of rollouts, Silver et al. 2016/2017).

**Inference over hidden cards** (``params[H_INFER] = W > 0``, :func:`net_pimc` only;
:mod:`agents.inference`): the worlds are drawn from candidate relabellings of the hidden cards
in proportion to ``net``'s likelihood of the other players' decisions among the last ``W``
(policy-based inference, Rebstock et al. 2019), where the game offers relabel hooks
(:mod:`engines.protocol.relabel`; River Rats) and the seat's memory holds the game's decision
log (:mod:`engines.protocol.history`); otherwise the worlds come from ``determinize``.

**Peek** (``params[H_PEEK] = 1``, the ``pimc-peek`` agent): the worlds are copies of the true
state, hidden cards and future draws included: an analysis upper bound ("what hidden
information is worth to the search"), never fair play.

**Horizon** (``params[H_HORIZON]``): 0 = the end of the current hand (River Rats' collective
hand, a Rats trick, a ReCURRRing round, a Lure fishing turn: ``progress(s, 0)`` changes),
1 = the end of the round (``progress(s, 1)``), 2 = the end of the game. Short horizons with a
good leaf value beat rollouts to the end at affordable budgets: between two actions the win
chance often differs by a few points, far below the noise of a few dozen rollouts.

**Parameter vector** of a search agent (``float64``, ``N_HEADER`` + ``N_VALUE`` + the game's
``PARAMS_WIDTH``; every slot named in :mod:`agents.layout`): ``[samples or simulations,
rollout policy kind, horizon, exploration constant, max rollout decisions (0: the game's
bound), peek flag, whole-tree flag, prior weight (:func:`net_pimc` only; 0 elsewhere)]`` then
the leaf-value weights (``N_VALUE``, the game's ``leaf_value``; the last four, which no game's
``leaf_value`` reads: ``H_INFER``, ``H_INFER_WORLDS``, ``H_INFER_TEMP`` (inference) and
``H_LEARNED_VALUE`` (the learned value's scale)), then the rollout policy's own parameter
vector. Max rollout decisions: 0 the game's bound, ``n > 0`` at most ``n``, below 0 none.

**Budget.** A budget is a number of worlds (PIMC) or simulations (ISMCTS) per decision, not a
time: a time budget would make the decisions depend on the machine and its load, and the same
seed must give the same decisions everywhere (as in OpenSpiel's ``max_simulations``). The
games-per-second cost of each budget is measured by ``benchmarks/search.py``.
"""

from __future__ import annotations

import numpy as np
from numba import literally, njit, types

from agents.game_hooks import g_act_base, g_leaf_value
from agents.inference import inferred_world, infer_world_seeds
from agents.layout import K_ISMCTS, K_NET, K_NET_ISMCTS, K_NET_PIMC, K_PIMC, search_settings
from agents.net import net_act, net_logits, softmax
from agents.value import learned_leaf
from engines.protocol.chance import SEAT_WORDS, init_seat_memory, mix, next_u64
from engines.protocol.direct import direct_call
from engines.protocol.kernels import (
    g_apply_action,
    g_current_player,
    g_determinize,
    g_is_terminal,
    g_legal_actions,
    g_num_players,
    g_observed_action,
    g_progress,
    g_sizes,
)

__all__ = ["search_act", "search_by_kind", "SEARCH_FUNCTIONS", "pimc", "pimc_values", "net_pimc",
           "net_pimc_values", "ismcts", "net_ismcts", "rollout", "g_rollout", "g_prior",
           "g_leaf", "relative_to_mean"]

_SALT_WORLD = 0x5DEECE66D
_SALT_ROLL = 0x2545F4914F6CDD1D


@njit(inline="always")
def g_prior(game, state, player, legal, n_legal, params, aux, rng, out):
    """``net``'s action probabilities (softmax of :func:`agents.net.net_logits`) of
    ``legal[:n_legal]`` for ``player`` into ``out[:n_legal]`` (``float64``); uniform when
    ``aux`` holds no weights. Reads only ``player``'s information state; ``rng`` (the seat
    memory) is not changed. The prior of the guided searches (Silver et al. 2017's PUCT prior;
    Anthony, Tian and Barber 2017). Inlined into its compiled callers (Numba IR inlining, no
    module of its own)."""
    if not net_logits(game, state, player, legal, n_legal, params, aux, rng, out):
        for i in range(n_legal):
            out[i] = 1.0 / n_legal
        return
    softmax(out, n_legal)


@njit(cache=True)
def _horizon_reached(game, w, level, start):
    if g_is_terminal(game, w):
        return True
    if level >= 2:
        return False
    return g_progress(game, w, level) != start


@njit(cache=True)
def rollout(game, w, level, start, params, aux, legal, mem, max_steps):
    """The unguided :func:`g_rollout` (the game's own rollout policy; arguments and result
    there)."""
    literally(game)
    return g_rollout(game, 0, w, level, start, search_settings(params), aux, legal, mem,
                     max_steps)


@njit(inline="always")
def g_rollout(game, guided, w, level, start, settings, aux, legal, mem, max_steps):
    """Play the world ``w`` (a state array, ``int64 (STATE_SIZE,)``, changed in place) on with
    the rollout policy until the horizon; returns the number of decisions played (int64).

    ``game``: literal game id; ``guided``: literal 1 lets the rollout policy be ``net``
    (:func:`agents.net.net_act`, when ``settings.rollout_kind`` is ``agents.layout.K_NET``), 0 keeps
    the network out of the compiled code (the unguided search agents stay as small as before);
    ``level``: the horizon (0 = the end of the current hand, 1 = of the round, 2 = of the game;
    module docstring), ``start``: ``progress(w, level)`` where the rollout began (it stops when
    that changes or the game ends); ``settings``: a search agent's
    :class:`agents.layout.SearchSettings` (``rollout_kind`` the rollout policy's kind,
    ``rollout_params`` its parameters); ``aux``:
    the game's aux array; ``legal``: ``int64`` scratch of the game's legal-list size; ``mem``:
    ``int64 (players, SEAT_WORDS)`` seat memories; ``max_steps``: a cap on decisions. The Monte
    Carlo rollout of PIMC and ISMCTS (Long et al. 2010; Cowling, Powley and Whitehouse 2012);
    raises nothing (compiled). The rollout policy is the game's ``act`` (its shipped policies),
    called straight from the loop (:func:`agents.game_hooks.g_act_base`); the loop itself is
    inlined into its callers (Numba IR inlining, no module of its own; with ``guided`` 0 the
    compiler drops the ``net`` branch)."""
    kind = np.int64(settings.rollout_kind)
    rp = settings.rollout_params
    steps = 0
    while not _horizon_reached(game, w, level, start) and steps < max_steps:
        q = g_current_player(game, w)
        n = g_legal_actions(game, w, legal)
        if guided == 1 and kind == K_NET:
            a = net_act(game, w, q, legal, n, rp, aux, mem[q])
        else:
            a = g_act_base(game, kind, w, q, legal, n, rp, aux, mem[q])
        g_apply_action(game, w, a)
        steps += 1
    return steps


@njit(cache=True, inline="always")
def pimc_values(game, s, player, legal, n_legal, params, aux, rng, sums):
    """PIMC's value of each legal action (module docstring): ``sums[i]`` (``float64``, at
    least ``n_legal`` long) gets the summed leaf value for ``player`` of ``legal[i]`` over the
    ``params[H_SIMS]`` determinized worlds (divide by the world count for the mean); draws the
    worlds from ``rng`` exactly as :func:`pimc` does; returns the world count (int64). The
    teacher signal of the learned policies (:mod:`agents.net`): action values, not only the
    choice. Inlined into a compiled caller (Numba IR inlining: :func:`pimc` reaches the rollouts
    with no compiled layer between)."""
    return _pimc_values(game, s, player, legal, n_legal, params, aux, rng, sums, 0)


@njit(cache=True, inline="always")
def net_pimc_values(game, s, player, legal, n_legal, params, aux, rng, sums):
    """:func:`pimc_values` of the guided PIMC (``net-search``): rollouts may be played by
    ``net`` (``params[H_ROLLOUT] = agents.layout.K_NET``), and with ``params[H_PRIOR] = c != 0``
    each sum also gets ``k * c * log prior`` (``k`` worlds; the prior: :func:`g_prior` on the
    player's own information state), so ``sums / k`` is what :func:`net_pimc` maximizes;
    returns ``k``. Inlined into a compiled caller, as :func:`pimc_values`."""
    k = _pimc_values(game, s, player, legal, n_legal, params, aux, rng, sums, 1)
    settings = search_settings(params)
    c = settings.prior_weight
    if c != 0.0:
        pri = np.empty(n_legal, dtype=np.float64)
        g_prior(game, s, player, legal, n_legal, settings.rollout_params, aux, rng, pri)
        for i in range(n_legal):
            sums[i] += k * c * np.log(max(pri[i], 1e-12))
    return k


@njit(inline="always")
def _pimc_values(game, s, player, legal, n_legal, params, aux, rng, sums, guided):
    """:func:`pimc_values` (``guided`` 0) and the guided ones' (1), inlined into each caller
    (Numba IR inlining: no compiled layer of its own; ``game`` and ``guided`` arrive as
    constants)."""
    sz = g_sizes(game)
    world = np.empty(sz[0], dtype=np.int64)
    w = np.empty(sz[0], dtype=np.int64)
    buf = np.empty(sz[1], dtype=np.int64)
    mem = np.zeros((sz[2], SEAT_WORDS), dtype=np.int64)
    val = np.zeros(sz[2], dtype=np.float64)
    for i in range(n_legal):
        sums[i] = 0.0
    acts = legal[:n_legal].copy()
    settings = search_settings(params)
    k = max(1, np.int64(settings.simulations))
    level = np.int64(settings.horizon)
    start = g_progress(game, s, level) if level < 2 else 0
    max_steps = np.int64(settings.max_rollout) if settings.max_rollout > 0 else sz[4]
    if settings.max_rollout < 0:
        max_steps = 0  # no rollout: the leaf is the state right after the action
    x = np.empty(sz[7], dtype=np.float32)
    chosen = np.empty(k, dtype=np.int64)
    inferred = g_infer(game, guided, s, player, params, aux, rng, k, chosen) > 0
    for r in range(k):
        seed = next_u64(rng, 0)
        if settings.peek != 0.0:
            world[:] = s
        elif inferred:
            g_inferred_world(game, guided, s, player, rng, chosen[r], seed ^ _SALT_WORLD, world)
        else:
            g_determinize(game, s, player, seed ^ _SALT_WORLD, world)
        for i in range(n_legal):
            w[:] = world
            init_seat_memory(mix(seed ^ _SALT_ROLL), mem)
            g_apply_action(game, w, acts[i])
            g_rollout(game, guided, w, level, start, settings, aux, buf, mem, max_steps)
            g_leaf(game, guided, w, settings.leaf_weights, settings.learned_value, aux, x, val)
            sums[i] += val[player]
    return k


def g_infer(game, guided, s, player, params, aux, rng, k, seeds_out):
    """With the literal ``guided`` = 1, :func:`agents.inference.infer_world_seeds` (the
    relabelling seeds of the ``k`` worlds chosen by inference over hidden cards; returns ``k``,
    or 0 for no inference); with ``guided`` = 0 always 0 (inference is not compiled in)."""


@njit(cache=True)
def _no_inference():
    """:func:`g_infer` of an unguided search: no inference (0 worlds chosen)."""
    return 0


def _pick_infer(game, guided, s, player, params, aux, rng, k, seeds_out):
    if not isinstance(game, types.IntegerLiteral) or not isinstance(guided,
                                                                   types.IntegerLiteral):
        return None
    if guided.literal_value == 0:
        return _no_inference, ()
    return infer_world_seeds, (0, 2, 3, 4, 5, 6, 7, 8)


g_infer = direct_call(g_infer, _pick_infer)


def g_inferred_world(game, guided, s, player, rng, relabel_seed, seed, out):
    """The world of relabelling seed ``relabel_seed`` (from :func:`g_infer`) for ``player``
    with chance word ``seed``, into ``out`` (:func:`agents.inference.inferred_world`); with
    ``guided`` = 0 nothing (never called)."""


@njit(cache=True)
def _same_world(s, out):
    """:func:`g_inferred_world` of an unguided search (never called): ``out[:] = s``."""
    out[:] = s


def _pick_inferred_world(game, guided, s, player, rng, relabel_seed, seed, out):
    if not isinstance(game, types.IntegerLiteral) or not isinstance(guided,
                                                                   types.IntegerLiteral):
        return None
    if guided.literal_value == 0:
        return _same_world, (2, 7)
    return inferred_world, (0, 2, 3, 4, 5, 6, 7)


g_inferred_world = direct_call(g_inferred_world, _pick_inferred_world)


@njit(inline="always")
def g_leaf(game, guided, w, weights, learned, aux, x, out):
    """The leaf value of world ``w`` for every seat into ``out``: with the literal ``guided`` =
    1 and ``learned`` != 0 the learned value times ``learned`` (:func:`agents.value.
    learned_leaf`; the game's leaf value when ``aux`` holds no value weights), else the game's
    hand-written ``leaf_value`` with ``weights``. ``x``: ``float32`` scratch of the game's
    ``TENSOR_SIZE``. With ``guided`` = 0 the value network is not compiled in. Inlined into
    its compiled callers (Numba IR inlining)."""
    if guided == 1:
        if learned == 0.0 or not learned_leaf(game, w, aux, learned, x, out):
            g_leaf_value(game, w, weights, out)
    else:
        g_leaf_value(game, w, weights, out)


@njit(cache=True)
def pimc(game, s, player, legal, n_legal, params, aux, rng):
    """Flat determinized Monte Carlo with common random numbers (module docstring); returns
    the chosen action of ``legal[:n_legal]`` (the best of :func:`pimc_values`, ties to the
    first)."""
    literally(game)
    if n_legal == 1:
        return legal[0]
    sums = np.zeros(n_legal, dtype=np.float64)
    pimc_values(game, s, player, legal, n_legal, params, aux, rng, sums)
    return legal[_best_first(sums, n_legal)]


@njit(cache=True)
def net_pimc(game, s, player, legal, n_legal, params, aux, rng):
    """PIMC guided by ``net`` (``net-search``): the action of the best :func:`net_pimc_values`
    (``net`` rollouts when ``params[H_ROLLOUT]`` is ``agents.layout.K_NET``), i.e. of the best
    ``mean value + params[H_PRIOR] * log prior`` (the prior: :func:`g_prior` on the player's
    own information state; 0 leaves the means alone), ties to the first. The prior term is a
    policy-regularized choice (Grill et al. 2020, "Monte-Carlo tree search as regularized policy
    optimization"): where a handful of worlds cannot tell two actions apart, the learned policy
    does."""
    literally(game)
    if n_legal == 1:
        return legal[0]
    sums = np.zeros(n_legal, dtype=np.float64)
    net_pimc_values(game, s, player, legal, n_legal, params, aux, rng, sums)
    return legal[_best_first(sums, n_legal)]


@njit(cache=True)
def _best_first(sums, n):
    """The index of the largest of ``sums[:n]``, ties to the first (the choice of PIMC)."""
    best = 0
    for i in range(1, n):
        if sums[i] > sums[best]:
            best = i
    return best


# ---- ISMCTS tree, in flat arrays ------------------------------------------------------------
_N_PARENT, _N_CHILD, _N_NEXT, _N_ACTION, _N_ACTOR = 0, 1, 2, 3, 4
_N_INT = 5


@njit(inline="always")
def g_root_prior(game, guided, s, player, legal, n_legal, settings, aux, rng, out):
    """With the literal ``guided`` = 1 and a prior weight (``settings.prior_weight``, a
    :class:`agents.layout.SearchSettings`) other than 0: :func:`g_prior` of the root's
    ``legal[:n_legal]`` into ``out`` (``float64``), returns True; otherwise (and always with
    ``guided`` = 0, where ``net`` is not compiled in) returns False. Inlined into its compiled
    callers (Numba IR inlining)."""
    if guided == 1:
        if settings.prior_weight != 0.0:
            g_prior(game, s, player, legal, n_legal, settings.rollout_params, aux, rng, out)
            return True
    return False


@njit(cache=True)
def ismcts(game, s, player, legal, n_legal, params, aux, rng):
    """Single-observer ISMCTS with UCB1 and availability counts (module docstring); returns
    the most visited root action of ``legal[:n_legal]``."""
    literally(game)
    return _ismcts(game, s, player, legal, n_legal, params, aux, rng, 0)


@njit(cache=True)
def net_ismcts(game, s, player, legal, n_legal, params, aux, rng):
    """ISMCTS guided by ``net`` (``net-ismcts``, kind ``K_NET_ISMCTS``): :func:`ismcts` whose
    root selection adds ``params[H_PRIOR] * P(a) * sqrt(availability) / (1 + visits)`` to
    each child's UCB1 value (``P``: :func:`g_prior`, ``net``'s probabilities on the player's own
    information state; the PUCT term of Silver et al. 2017 with availability counts in place of
    the parent's visits, Cowling et al. 2012), so the simulations go where the learned policy
    and the values agree; rollouts as :func:`net_pimc` (the game's policy, or ``net`` with
    ``params[H_ROLLOUT] = agents.layout.K_NET``) and the same leaf (the learned value with
    ``params[H_LEARNED_VALUE] != 0``). Returns the most visited root action."""
    literally(game)
    return _ismcts(game, s, player, legal, n_legal, params, aux, rng, 1)


@njit(inline="always")
def _ismcts(game, s, player, legal, n_legal, params, aux, rng, guided):
    """:func:`ismcts` (``guided`` 0) and :func:`net_ismcts` (1), inlined into each (Numba IR
    inlining: no compiled layer of its own; ``game`` and ``guided`` arrive as constants)."""
    if n_legal == 1:
        return legal[0]
    sz = g_sizes(game)
    settings = search_settings(params)
    n_sims = max(1, np.int64(settings.simulations))
    c = settings.exploration
    level = np.int64(settings.horizon)
    start = g_progress(game, s, level) if level < 2 else 0
    max_steps = np.int64(settings.max_rollout) if settings.max_rollout > 0 else sz[4]
    n_pl = g_num_players(game, s)
    cap = n_sims + 2
    node = np.full((cap, _N_INT), -1, dtype=np.int64)
    visits = np.zeros(cap, dtype=np.float64)
    avail = np.zeros(cap, dtype=np.float64)
    reward = np.zeros((cap, sz[2]), dtype=np.float64)
    n_nodes = 1
    w = np.empty(sz[0], dtype=np.int64)
    buf = np.empty(sz[1], dtype=np.int64)
    mem = np.zeros((sz[2], SEAT_WORDS), dtype=np.int64)
    val = np.zeros(sz[2], dtype=np.float64)
    path = np.empty(cap, dtype=np.int64)
    pri = np.zeros(n_legal, dtype=np.float64)
    guided_root = g_root_prior(game, guided, s, player, legal, n_legal, settings, aux, rng,
                               pri)
    wp = settings.prior_weight
    node_prior = np.zeros(cap, dtype=np.float64)
    x = np.empty(sz[7], dtype=np.float32)
    for _ in range(n_sims):
        seed = next_u64(rng, 0)
        if settings.peek != 0.0:
            w[:] = s
        else:
            g_determinize(game, s, player, seed ^ _SALT_WORLD, w)
        init_seat_memory(mix(seed ^ _SALT_ROLL), mem)
        cur = 0
        depth = 0
        path[0] = 0
        expanded = False
        while not expanded and not _horizon_reached(game, w, level, start):
            q = g_current_player(game, w)
            if q != player and settings.whole_tree == 0.0:
                break  # the tree covers the searching player's turn; rollouts play the rest
            n = g_legal_actions(game, w, buf)
            if q != player and g_observed_action(game, w, buf[0], player) != buf[0]:
                break  # hidden decisions of others are not branched on: rollout plays them
            # availability, and the first legal action without a child
            new_a = -1
            best = -1
            best_u = -1e300
            for i in range(n):
                a = buf[i]
                ch = node[cur, _N_CHILD]
                while ch >= 0 and node[ch, _N_ACTION] != a:
                    ch = node[ch, _N_NEXT]
                if ch < 0:
                    if new_a < 0:
                        new_a = a
                    continue
                avail[ch] += 1.0
                u = reward[ch, q] / visits[ch] + c * np.sqrt(np.log(avail[ch]) / visits[ch])
                if guided_root and cur == 0:
                    u += wp * node_prior[ch] * np.sqrt(avail[ch]) / (1.0 + visits[ch])
                if u > best_u:
                    best_u = u
                    best = ch
            if new_a >= 0 and n_nodes < cap:
                ch = n_nodes
                n_nodes += 1
                node[ch, _N_PARENT] = cur
                node[ch, _N_ACTION] = new_a
                node[ch, _N_ACTOR] = q
                node[ch, _N_NEXT] = node[cur, _N_CHILD]
                node[cur, _N_CHILD] = ch
                avail[ch] = 1.0
                if guided_root and cur == 0:
                    for j in range(n_legal):
                        if legal[j] == new_a:
                            node_prior[ch] = pri[j]
                g_apply_action(game, w, new_a)
                cur = ch
                expanded = True
            elif best >= 0:
                g_apply_action(game, w, node[best, _N_ACTION])
                cur = best
            else:
                break
            depth += 1
            path[depth] = cur
        g_rollout(game, guided, w, level, start, settings, aux, buf, mem, max_steps)
        g_leaf(game, guided, w, settings.leaf_weights, settings.learned_value, aux, x, val)
        for d in range(depth, 0, -1):
            nd = path[d]
            visits[nd] += 1.0
            for j in range(n_pl):
                reward[nd, j] += val[j]
        visits[0] += 1.0
    best = -1
    most = -1.0
    ch = node[0, _N_CHILD]
    while ch >= 0:  # most visits; ties to the smaller action id
        if visits[ch] > most:
            most = visits[ch]
            best = ch
        elif visits[ch] == most and node[ch, _N_ACTION] < node[best, _N_ACTION]:
            best = ch
        ch = node[ch, _N_NEXT]
    return node[best, _N_ACTION] if best >= 0 else legal[0]


@njit(cache=True)
def search_act(game, kind, s, player, legal, n_legal, params, aux, rng):
    """The action of search agent ``kind`` (``K_PIMC``, ``K_ISMCTS``, ``K_NET_PIMC``,
    ``K_NET_ISMCTS`` of :mod:`agents.layout`), ``kind`` known at run time."""
    literally(game)
    return search_by_kind(game, kind, s, player, legal, n_legal, params, aux, rng)


@njit(inline="always")
def search_by_kind(game, kind, s, player, legal, n_legal, params, aux, rng):
    """:func:`search_act`'s dispatch over the four agents, inlined into its caller (Numba IR
    inlining: no compiled layer between the caller and the agents). A table of the compiled
    loop dispatches over only the agents it seats (:func:`agents.dispatch.mixed_kind`)."""
    if kind == K_ISMCTS:
        return ismcts(game, s, player, legal, n_legal, params, aux, rng)
    if kind == K_NET_ISMCTS:
        return net_ismcts(game, s, player, legal, n_legal, params, aux, rng)
    if kind == K_NET_PIMC:
        return net_pimc(game, s, player, legal, n_legal, params, aux, rng)
    return pimc(game, s, player, legal, n_legal, params, aux, rng)


SEARCH_FUNCTIONS = {K_PIMC: pimc, K_ISMCTS: ismcts, K_NET_PIMC: net_pimc,
                    K_NET_ISMCTS: net_ismcts}
"""Search agent kind -> its compiled function (signature ``(game, s, player, legal, n_legal,
params, aux, rng)``, ``game`` a literal id): a caller that knows the kind calls this one agent,
so only it is compiled, where :func:`search_act` (a kind known at run time) compiles all four."""


@njit(cache=True)
def relative_to_mean(out, n):
    """Make the seats' values ``out[:n]`` relative to their mean (a competitive game's leaf
    value: what matters is being ahead of the others) and zero the seats beyond ``n``."""
    tot = 0.0
    for p in range(n):
        tot += out[p]
    for p in range(n):
        out[p] -= tot / n
    for p in range(n, out.shape[0]):
        out[p] = 0.0
