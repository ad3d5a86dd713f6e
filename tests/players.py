"""Player counts the tests use, read from the games' descriptions (a game added to the registry
needs no line here), and the fair-play check every search agent's test uses."""

from __future__ import annotations

from engines.names import describe


def three_players(game: str) -> int:
    """Three players where ``game`` allows, else the nearest count it allows (its description's
    ``min_players .. max_players``)."""
    d = describe(game)
    return min(max(3, d.min_players), d.max_players)


def assert_fair(agent, game: str, first_seed: int, rng_seed: int, world_seed: int,
                wanted: int = 3) -> None:
    """Fair play of ``agent`` (an :class:`agents.policy.Agent`): at positions sampled from
    random-play games of ``game`` (three players where allowed; seeds from ``first_seed``),
    it decides the same on the real state and on two worlds where everything its player
    cannot see was dealt anew (``determinize`` with seeds from ``world_seed``; the same seat
    memory, so the same own randomness). Checks at least ``wanted`` positions (at most
    ``wanted + 3``)."""
    import numpy as np

    from engines.protocol import game_class

    rng = np.random.default_rng(rng_seed)
    cls = game_class(game)
    checked = 0
    for seed in range(first_seed, first_seed + 50):  # one game of the big games; several short
        st = cls(cls.config_class(n_players=three_players(game)), seed)
        while not st.is_terminal() and checked < wanted + 3:
            if len(st.legal_actions()) > 1 and rng.random() < 0.3:
                p = st.current_player()
                mem = st.seat_memory.copy()
                a = agent(st)
                for k in range(2):
                    d = st.determinize(p, world_seed + k)
                    d.seat_memory[:] = mem
                    assert agent(d) == a, (game, seed, p)
                st.seat_memory[:] = mem
                checked += 1
            legal = st.legal_actions()
            st.apply_action(legal[int(rng.integers(len(legal)))])
        if checked >= wanted:
            break
    assert checked >= wanted
