"""Where a strong River Rats agent decides differently from a reference agent, and where the
games of a Rat pair are lost.

:func:`decision_differences` plays games with ``agent`` (e.g. the ``pimc`` search agent) in
every seat through the step API and, at every decision with more than one legal action, also
asks ``reference`` (e.g. ``heuristic``) what it would do in the same state, without letting the
reference touch the game or the seat's policy memory (its memory is restored after the call).
The tally, per decision type, says which decisions search changes most often: the type is the
action *kind* of the rules core (draw from the market or the deck, play a card, play the
joker, a suit action, a power, the expert joker; ``docs/rules/river_rats.md``, "A turn").

:func:`loss_stages` splits each pair's losses by the Rat the players were facing when they
lost (the active Rat, or the waiting one after defeating the first), from a pair table's
``mean_rats_defeated`` and ``win_rate``: a won game has defeated both Rats and a lost one 0 or
1 (rules, "End of the game"), so ``mean_rats_defeated = 2 * win_rate + lost_on_second``.

Command line: ``boardlab river-rats decisions`` (:mod:`experiments.cli.pairs`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import numpy as np
import pandas as pd

__all__ = ["KIND_LABELS", "decision_differences", "summarize_decisions", "loss_stages"]

KIND_LABELS: dict[int, str] = {
    0: "draw from the market", 1: "draw from the deck", 2: "play a card", 3: "play the joker",
    4: "joker: remove a Rat card", 5: "no suit action", 6: "♣ push to the market",
    7: "♦ swap: take out", 8: "♦ swap: put in", 9: "♥ stake a deck card", 10: "♠ discard",
    11: "♣ power: push",
    12: "♦ power: swap out", 13: "♦ power: swap in", 14: "♥ power: reveal",
    15: "♥ power: stake", 16: "♠ power: discard", 17: "stop the power", 18: "expert joker: reveal",
    19: "expert joker: stop", 20: "stuck",
}
"""Readable name of each action kind (``action // 64``) of :mod:`engines.river_rats.core`."""


_CARD_KINDS = frozenset((0, 2, 6, 7, 8, 10, 11, 12, 13, 16))
"""Kinds whose ``arg`` (``action % 64``) is a card id."""


def _kind(action: int) -> int:
    return int(action) // 64


def _rank_change(a: int, b: int) -> float:
    """Rank of ``a``'s card minus rank of ``b``'s (both of one card kind, both plain cards
    0..51), else NaN."""
    from engines.cards import rank_of

    ka, ca, cb = _kind(a), a % 64, b % 64
    if ka != _kind(b) or ka not in _CARD_KINDS or ca > 51 or cb > 51:
        return np.nan
    return float(rank_of(ca) - rank_of(cb))


def decision_differences(agent: str = "pimc", reference: str = "heuristic",
                         players: int | Iterable[int] = 4, n_games: int = 200, seed: int = 2026,
                         rules: dict | None = None, rats: tuple[str, str] | None = None,
                         progress: bool = False) -> pd.DataFrame:
    """Every contested decision of ``n_games`` games per player count played by ``agent``.

    ``players``: a player count (1..4) or several; ``rules``: extra
    :class:`engines.river_rats.RiverRatsConfig` fields; ``rats``: a fixed ``(active, waiting)`` pair
    such as ``("D", "S")`` or ``None`` for random Rats. Game ``g`` has the seed it has in
    ``agents.loop.play_batch(config, agent, n_games, seed)``, so the games are the batch
    simulator's. Returns one row per decision with at least two legal actions: ``players``,
    ``game``, ``phase`` (name), ``n_legal``, ``action`` and ``reference_action`` (ints),
    ``kind`` and ``reference_kind`` (labels of :data:`KIND_LABELS`), ``changed`` (bool),
    ``rank_change`` (the agent's card rank minus the reference's when both chose a plain card
    of the same kind, else NaN; ranks 2..A count 0..12).
    Raises ``ValueError`` for an unknown agent, a bad player count or bad rules."""
    from agents.policy import Agent
    from engines.protocol import chance
    from engines.protocol import game_class
    from engines.river_rats import RiverRatsConfig
    from engines.river_rats import core as C

    counts = [players] if isinstance(players, (int, np.integer)) else list(players)
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 1:
        raise ValueError(f"bad n_games {n_games!r}: expected a positive number of games")
    seed = chance.check_seed(seed)
    strong, ref = Agent("river_rats", agent), Agent("river_rats", reference)
    cls = game_class("river_rats")
    rows = []
    for n in counts:
        cfg = RiverRatsConfig.from_dict({**(rules or {}), "n_players": int(n), "rats": rats})
        words = chance.game_seeds(seed, int(n_games))
        it = range(int(n_games))
        if progress:
            from experiments.runner import tqdm  # text bar unless ipywidgets draws one
            it = tqdm(it, desc=f"{n} player(s)", unit="game")
        for g in it:
            st = cls(cfg, chance.word_to_seed(words[g]))
            while not st.is_terminal():
                legal = st.legal_actions()
                if len(legal) == 1:
                    st.apply_action(legal[0])
                    continue
                p = st.current_player()
                memory = st.seat_memory[p].copy()
                b = ref(st)
                st.seat_memory[p][:] = memory
                a = strong(st)
                rows.append((int(n), g, C.PHASE_NAMES[int(st.state[C.PHASE])], len(legal),
                             int(a), int(b), KIND_LABELS[_kind(a)], KIND_LABELS[_kind(b)],
                             a != b, _rank_change(a, b)))
                st.apply_action(a)
    return pd.DataFrame(rows, columns=["players", "game", "phase", "n_legal", "action",
                                       "reference_action", "kind", "reference_kind", "changed",
                                       "rank_change"])


def summarize_decisions(decisions: pd.DataFrame) -> pd.DataFrame:
    """Per decision phase (rows of :func:`decision_differences`): ``decisions`` (contested
    decisions), ``changed_share`` (share where the agent chose otherwise than the reference),
    ``share_of_changes`` (this phase's part of all changes), ``other_kind_share`` (share where
    it chose another kind of action, not just another card of the same kind) and
    ``top_change`` (the most frequent "reference kind → agent kind" among the changes, with its
    count) and ``higher_card_share`` (among changes to another card of the same kind, the share
    where the agent's card has the higher rank; NaN if none). Sorted by ``share_of_changes``,
    largest first."""
    total = int(decisions["changed"].sum())
    rows = []
    for phase, d in decisions.groupby("phase", sort=False):
        ch = d[d["changed"]]
        top = Counter(zip(ch["reference_kind"], ch["kind"], strict=True)).most_common(1)
        rows.append({"phase": phase, "decisions": len(d),
                     "changed_share": len(ch) / len(d),
                     "share_of_changes": len(ch) / total if total else np.nan,
                     "other_kind_share": float((d["kind"] != d["reference_kind"]).mean()),
                     "top_change": f"{top[0][0][0]} → {top[0][0][1]} ({top[0][1]})" if top
                     else "",
                     "higher_card_share": float((ch["rank_change"].dropna() > 0).mean())
                     if ch["rank_change"].notna().any() else np.nan})
    return pd.DataFrame(rows).sort_values("share_of_changes", ascending=False,
                                          ignore_index=True)


def loss_stages(pairs: pd.DataFrame) -> pd.DataFrame:
    """``pairs`` (a :func:`experiments.pairs.job.pair_table` frame, or its CSV) with the
    columns ``lost_on_first`` and ``lost_on_second``: the share of *games* lost while facing
    the active Rat, and while facing the waiting Rat (after defeating the first); with
    ``win_rate`` they sum to 1. Raises ``ValueError`` if the table's figures are inconsistent
    with "a win defeats both Rats, a loss at most one"."""
    won = pairs["win_rate"].to_numpy(dtype=float)
    second = pairs["mean_rats_defeated"].to_numpy(dtype=float) - 2 * won
    first = 1 - won - second
    if (second < -1e-9).any() or (first < -1e-9).any():
        raise ValueError("mean_rats_defeated and win_rate are inconsistent: expected "
                         "2 * win_rate <= mean_rats_defeated <= 1 + win_rate")
    return pairs.assign(lost_on_first=np.clip(first, 0, 1), lost_on_second=np.clip(second, 0, 1))
