"""The shipped policies of every game behind one compiled name, ``g_act``, chosen by a game id
(the same literal-id specialization as :mod:`engines.protocol.kernels`).

``g_act(game, kind, state, player, legal, n_legal, params, aux, rng)`` calls
``agents.<game>.act(kind, ...)`` of the game whose id (:data:`engines.protocol.GAME_IDS`) is the
compile-time constant ``game``, or, for a kind ``>= agents.layout.SEARCH_BASE``, the search
agents of :mod:`agents.search` (which roll out with the game's own ``act``,
:func:`agents.game_hooks.g_act_base`), or for ``agents.layout.K_NET`` the learned policy of
:mod:`agents.net`. Contract of ``act``: :mod:`agents.policy`.

When ``kind`` is a literal too (the compiled loop makes it one when every seat plays the same
shipped policy), the call goes straight to that one policy function (the game module's
``POLICY_FUNCTIONS``, or the search agent of that kind), so nothing else is compiled in: a
table of ``heuristic`` players compiles the heuristic, not every policy of the game. A table of
several of the game's own policies (``heuristic`` beside ``greedy``, say) compiles the game's
``act`` alone, without the search agents and ``net`` (:data:`OWN_KINDS`); a table with search
agents or ``net`` among several kinds compiles the game's ``act`` and those agents it seats,
not the others (:func:`mixed_kind`). :func:`table_kind` tells which.
"""

from __future__ import annotations

import functools

from numba import njit, types

from agents.contract import contract
from agents.layout import K_ISMCTS, K_NET, K_NET_ISMCTS, K_NET_PIMC, K_PIMC, USER_KIND
from agents.net import net_act
from agents.search import SEARCH_FUNCTIONS
from engines.protocol import GAME_NAMES
from engines.protocol.direct import direct_call
from engines.protocol.kernels import core_for_id

__all__ = ["g_act", "g_act_seat", "g_legal_seat", "ANY_KINDS", "OWN_KINDS",
           "MIXED_BASE", "extra_kinds", "mixed_kind", "table_kind"]

ANY_KINDS = -1
"""``one_kind`` of a table that may seat every shipped kind: :func:`g_act_seat` dispatches over
the game's own policies, ``net`` and every search agent at run time. :func:`table_kind` never
gives it (a table compiles only the agents it seats, :func:`mixed_kind`); the literal stays for
code that means every kind (``benchmarks/compile_time.py``'s peer)."""
OWN_KINDS = -2
"""``one_kind`` of a table whose seats play several of the game's own policies (its
``agents.<game>.act``: no search agent, no ``net``): only those are compiled into the loop, not
the search agents (a cold kernel cache compiles such a table much faster than one with
every agent; docs/benchmarks.md)."""
MIXED_BASE = -16
"""``one_kind`` of a table of several kinds with search agents or ``net`` among them is
``MIXED_BASE - mask`` (:func:`mixed_kind`), ``mask`` a bit per agent beyond the game's own
``act`` (:func:`extra_kinds`) seated at the table."""


@functools.cache
def extra_kinds() -> tuple[int, ...]:
    """The shipped kinds beyond a game's own ``act``, in the bit order of :func:`mixed_kind`'s
    mask: the search agents ``K_PIMC``, ``K_ISMCTS``, ``K_NET_PIMC``, ``K_NET_ISMCTS``, then
    ``net``'s ``K_NET`` (:mod:`agents.layout`)."""
    return (K_PIMC, K_ISMCTS, K_NET_PIMC, K_NET_ISMCTS, K_NET)


def mixed_kind(kinds) -> int:
    """The loop's literal ``one_kind`` for a table of several kinds that seats the agents of
    ``kinds`` (``int`` sequence) beyond the game's own ``act``: ``MIXED_BASE - mask``, bit ``i``
    of ``mask`` set when ``extra_kinds()[i]`` is seated; only those agents are compiled in.
    Raises ``ValueError`` when ``kinds`` holds none of them."""
    extra = extra_kinds()
    mask = 0
    for k in kinds:
        if int(k) in extra:
            mask |= 1 << extra.index(int(k))
    if mask == 0:
        raise ValueError(f"bad kinds {list(kinds)!r}: expected a search agent or net among them")
    return MIXED_BASE - mask


def _seated_extra(one_kind: int) -> tuple[int, ...]:
    """The kinds beyond the game's own ``act`` a table of literal ``one_kind`` may seat (all of
    them for :data:`ANY_KINDS`), in :func:`extra_kinds` order."""
    extra = extra_kinds()
    if one_kind == ANY_KINDS:
        return extra
    mask = MIXED_BASE - one_kind
    return tuple(k for i, k in enumerate(extra) if mask >> i & 1)


def table_kind(kinds) -> int:
    """The compiled loop's literal ``one_kind`` for a table whose seats play ``kinds`` (``int``
    sequence, one per seat): the one shipped kind every seat plays; else :data:`OWN_KINDS` when
    every shipped seat plays one of the game's own policies (kinds below ``agents.layout.K_NET``),
    else :func:`mixed_kind` of the shipped kinds (only the search agents and ``net`` seated are
    compiled in). A table with a user seat (kind ``>= agents.layout.USER_KIND``) is never of
    one kind; its shipped seats alone decide between the other two."""
    ks = [int(k) for k in kinds]
    shipped = [k for k in ks if k < USER_KIND]
    if shipped and len(shipped) == len(ks) and all(k == shipped[0] for k in shipped):
        return shipped[0]
    return OWN_KINDS if all(k < K_NET for k in shipped) else mixed_kind(shipped)


def g_act(game, kind, state, player, legal, n_legal, params, aux, rng):
    """The action of shipped policy ``kind`` of game ``game`` (a literal id): the one policy
    function or agent of a literal ``kind`` called straight, else the game's policies by
    ``kind`` at run time (:func:`_by_kind_at_run_time`)."""


def _pick_act(game, kind, state, player, legal, n_legal, params, aux, rng):
    if not isinstance(game, types.IntegerLiteral):
        return None
    gid = game.literal_value
    if isinstance(kind, types.IntegerLiteral):
        one = _one_callee(contract(GAME_NAMES[gid]), kind.literal_value)
        if one is not None:
            return one[0], _positions(one[1], 1, 2)
    return _by_kind_at_run_time(gid, extra_kinds()), tuple(range(9))


g_act = direct_call(g_act, _pick_act)


@functools.cache
def _by_kind_at_run_time(game_id: int, seated: tuple[int, ...]):
    """A compiled function ``(game, kind, state, player, legal, n_legal, params, aux, rng)``
    that plays policy ``kind`` (known at run time) of the game with id ``game_id``: one of the
    agents ``seated`` (kinds of :func:`extra_kinds`: search agents, ``net``) where ``kind`` is
    one of them, else the game's own ``act``; only those agents are compiled in. ``g_act`` and
    ``g_act_seat`` call it straight (:func:`engines.protocol.direct.direct_call`), so no
    compiled layer stands between the loop and it; the test of each kind is inlined (Numba IR
    inlining)."""
    agents = contract(GAME_NAMES[game_id])
    f = agents.act

    @njit(inline="always")
    def own(game, kind, state, player, legal, n_legal, params, aux, rng):
        return f(kind, state, player, legal, n_legal, params, aux, rng)

    chain = own
    for k in seated:
        one = _one_callee(agents, k)
        if one is not None and one[1] == "game":
            chain = _kind_or(k, one[0], chain)

    @njit
    def by_kind(game, kind, state, player, legal, n_legal, params, aux, rng):
        return chain(game, kind, state, player, legal, n_legal, params, aux, rng)
    return by_kind


def _kind_or(k: int, fn, rest):
    """An inlined compiled ``(game, kind, state, ...)`` calling agent ``fn`` (called ``(game,
    state, player, legal, n_legal, params, aux, rng)``) when ``kind == k``, else ``rest``."""
    @njit(inline="always")
    def kind_or(game, kind, state, player, legal, n_legal, params, aux, rng):
        if kind == k:
            return fn(game, state, player, legal, n_legal, params, aux, rng)
        return rest(game, kind, state, player, legal, n_legal, params, aux, rng)
    return kind_or


def _one_callee(agents, k: int):
    """The one compiled function that plays the literal kind ``k`` of a game, as ``(function,
    style)``: ``net``'s :func:`agents.net.net_act` or a search agent
    (:data:`agents.search.SEARCH_FUNCTIONS`), style ``"game"``, called ``(game, state, player,
    legal, n_legal, params, aux, rng)``; the policy function the game's ``POLICY_FUNCTIONS``
    give for that kind, style ``"policy"``, called ``(state, player, legal, n_legal, params,
    rng)``; else the game's own ``act`` (a kind of its own without a policy function), style
    ``"act"``, called ``(kind, state, player, legal, n_legal, params, aux, rng)``. ``agents``:
    the game's :class:`agents.contract.AgentsContract`. None for a search kind in a game without
    search agents. A caller that calls it straight (not through ``g_act``) keeps one compiled
    layer out of the loop."""
    if k == K_NET:
        return net_act, "game"
    if k in extra_kinds():
        if not agents.has_search:
            return None
        return SEARCH_FUNCTIONS[k], "game"
    name = next((sp.name for sp in agents.specs if sp.kind == k), None)
    pol = agents.policy_functions.get(name)
    return (agents.act, "act") if pol is None else (pol, "policy")


def _positions(style: str, kind_at: int, state_at: int) -> tuple[int, ...]:
    """The argument positions :func:`_one_callee`'s function of ``style`` is called with, for
    a caller whose kind is argument ``kind_at`` and whose ``(state, player, legal, n_legal,
    params, aux, rng)`` start at argument ``state_at`` (the game id is argument 0)."""
    s = state_at
    if style == "game":
        return (0, s, s + 1, s + 2, s + 3, s + 4, s + 5, s + 6)
    if style == "policy":
        return (s, s + 1, s + 2, s + 3, s + 4, s + 6)
    return (kind_at, s, s + 1, s + 2, s + 3, s + 4, s + 5, s + 6)


def g_act_seat(game, one_kind, kind, state, player, legal, n_legal, params, aux, rng):
    """``g_act`` for a seat of kind ``kind`` at a table whose seats all play the literal kind
    ``one_kind`` (then ``kind`` is ignored and only that policy is compiled in), or where
    ``one_kind`` is :data:`OWN_KINDS` (the game's own ``act`` on ``kind`` at run time), a
    :func:`mixed_kind` (those agents or the game's ``act`` on ``kind`` at run time) or
    :data:`ANY_KINDS` (every agent); see :func:`table_kind`."""


def _pick_act_seat(game, one_kind, kind, state, player, legal, n_legal, params, aux, rng):
    if not isinstance(game, types.IntegerLiteral) or not isinstance(one_kind,
                                                                   types.IntegerLiteral):
        return None
    gid, one = game.literal_value, one_kind.literal_value
    if one >= 0:
        listed = _table_order(gid, one)
        if listed is not None:
            return listed[1], (3, 4, 5, 6, 7, 9)
        callee = _one_callee(contract(GAME_NAMES[gid]), one)
        return None if callee is None else (callee[0], _positions(callee[1], 1, 3))
    if one == OWN_KINDS:
        return contract(GAME_NAMES[gid]).act, (2, 3, 4, 5, 6, 7, 8, 9)
    return _by_kind_at_run_time(gid, _seated_extra(one)), (0, 2, 3, 4, 5, 6, 7, 8, 9)


g_act_seat = direct_call(g_act_seat, _pick_act_seat)


def _table_order(game_id: int, kind: int):
    """The game's ``(listing, policy)`` of ``TABLE_ORDER_POLICIES`` (:mod:`agents.contract`)
    for shipped kind ``kind``, or None when the game lists none for it."""
    agents = contract(GAME_NAMES[game_id])
    name = next((sp.name for sp in agents.specs if sp.kind == kind), None)
    return agents.table_order_policies.get(name)


def g_legal_seat(game, one_kind, state, out):
    """The legal actions the compiled loop hands to a seat, into ``out`` (``int64
    (MAX_LEGAL,)``); returns their number. At a table whose seats all play the literal shipped
    kind ``one_kind`` that the game lists in ``TABLE_ORDER_POLICIES`` (:mod:`agents.contract`),
    the game's own listing in table order (for that kind's table-order policy, which
    :func:`g_act_seat` then calls: the same actions as the policy on the ascending list, without
    sorting the list and mapping back); otherwise the ascending list of
    ``g_legal_actions``."""


def _pick_legal_seat(game, one_kind, state, out):
    if not isinstance(game, types.IntegerLiteral):
        return None
    if isinstance(one_kind, types.IntegerLiteral) and one_kind.literal_value >= 0:
        listed = _table_order(game.literal_value, one_kind.literal_value)
        if listed is not None:
            return listed[0], (2, 3)
    return core_for_id(game.literal_value).legal_actions, (2, 3)


g_legal_seat = direct_call(g_legal_seat, _pick_legal_seat)
