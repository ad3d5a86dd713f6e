"""Helpers of the ReCURRRing tests: scenario states, text moves, random play."""

from __future__ import annotations

import numpy as np

from engines.protocol import chance
from engines.recurring import RecurringConfig, RecurringState, new_game
from engines.recurring import core as C


def scenario(hands, start=0, **options) -> RecurringState:
    """A scenario state with ``hands`` (one ``{number: count}`` per seat, 10 = R)."""
    return RecurringState.from_hands(hands, start, **options)


def play(g: RecurringState, *texts: str) -> None:
    """Apply moves given as text (``"play 7-7"``, ``"pass"``, ``"77"``)."""
    for t in texts:
        g.apply_action(g.string_to_action(t))


def legal_text(g: RecurringState) -> list[str]:
    """The legal actions of ``g`` as text."""
    return [g.action_to_string(a) for a in g.legal_actions()]


def i64(x: int) -> np.int64:
    """A Python int (signed or unsigned 64-bit) as its ``int64`` bit pattern."""
    x &= (1 << 64) - 1
    return np.int64(x - (1 << 64) if x >= 1 << 63 else x)


def random_walk(n_players: int, seed: int, steps: int | None = None, **options):
    """A dealt game after ``steps`` uniformly random decisions (all of them if None, or until
    the end); returns the list of states passed (step-API objects, cloned)."""
    g = new_game(RecurringConfig(n_players=n_players, **options), seed)
    rng = np.array([chance.seat_seed(chance.as_word(seed), 7)], dtype=np.int64)
    out = [g.clone()]
    k = 0
    while not g.is_terminal() and (steps is None or k < steps):
        legal = g.legal_actions()
        g.apply_action(legal[chance.rand_below(rng, 0, len(legal))])
        out.append(g.clone())
        k += 1
    return out


def deck_counts(n_players: int) -> np.ndarray:
    """``int64 (10,)`` counts of numbers 1..9 and R in the deck of ``n_players``."""
    return C.deck_counts(n_players)
