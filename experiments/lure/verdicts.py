"""Card verdicts from simulated games, and how they change between weaker and stronger players
(``boardlab lure balance`` and ``boardlab lure rebalance`` judge the cards with strong players
by default and say which verdicts the heuristic would have given otherwise).

**Who plays**: :mod:`experiments.lure.defaults` (``net`` by default, compared with
``heuristic``; re-exported here).

**Verdicts** (per card and player count, from one set of players' games,
:func:`side_verdicts`):

* *rarely caught*: the card's 95% Wilson interval of "caught in the games it is in play" lies
  wholly below :data:`CATCH_FLOOR` (90%);
* *decides games* / *pays little*: its catcher win advantage ("win diff") lies above / below
  the band ``median card +- WIN_TOLERANCE_PP`` (5 percentage points) of those players, after a
  Holm correction over every card and player count: the same rule as the rebalance's win-diff
  goal (:func:`experiments.lure.rebalance_stats.off_band`, the band centred on the median card
  of the same players' games).

A card's verdict is the set of these labels over the player counts (with the player counts
each holds at), or ``ok``.

**Reason classes** (:func:`reason`), comparing the weaker players' verdict with the stronger
players' (which side is stronger: :func:`stronger`, from :data:`AGENT_RANK`):

=============================  ================================================================
rarely caught by ...           reason
=============================  ================================================================
both                           hard for everyone (", more so for strong players" when they
                               catch it clearly less often, :data:`MOVE_PP`; "less so" more)
the weaker only                only weak players miss it
the stronger only              strong players leave it (not worth the dice to them)
=============================  ================================================================

and, for the win advantage, *decides games for everyone*, *strong players exploit it*
(above the band with strong players only), *decides games only among weak players*, *pays
little for everyone*, *strong players gain little from it*, *pays little only among weak
players*. When the two sets of players cannot be ranked, ``weak``/``strong`` are replaced by
the agents' names.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from experiments.lure.defaults import DEFAULT_AGENTS, REFERENCE_AGENTS, resolve_compare
from experiments.lure.rebalance_measures import card_arrays
from experiments.lure.rebalance_stats import band_pvalues, off_band

__all__ = ["DEFAULT_AGENTS", "REFERENCE_AGENTS", "AGENT_RANK", "CATCH_FLOOR",
           "WIN_TOLERANCE_PP", "MOVE_PP", "LABELS", "resolve_compare", "stronger", "side_verdicts",
           "verdict_text", "reason", "band_reason", "reason_words", "compare_verdicts",
           "verdict_summary", "verdict_lines", "verdict_markdown", "who_played"]

AGENT_RANK = {"random": 0, "greedy": 1, "cautious": 1, "bold": 1, "heuristic": 2, "net": 3,
              "pimc": 3, "net-search-lite": 3, "net-search": 3}
"""Measured order of strength of the Lure agents, from duplicate matches: the heuristic beats
random, greedy, cautious and bold (``docs/results/lure.md``); ``net`` (+0.334,
``docs/results/learned_policy.md``), ``pimc`` (+0.323) and ``net-search-lite`` (+0.333) beat
the heuristic, and ``net-search`` beats ``pimc`` by +0.055 (``docs/guides/search_agents.md``).
Agents of one rank are not ordered (a tie); an agent missing here was not measured in Lure (or,
as ``pimc-peek``, sees hidden cards) and is not ranked."""
CATCH_FLOOR = 0.90
"""A card is *rarely caught* when its 95% interval of the caught share lies below this."""
WIN_TOLERANCE_PP = 5.0
"""Half-width of the win-advantage band, percentage points (the rebalance goal's default)."""
MOVE_PP = 5.0
"""A card rarely caught by both sets of players is *harder* (or *less hard*) for the stronger
ones when its caught share moves by at least this many percentage points between them at some
player count, with the two 95% intervals apart."""
LABELS = ("rarely caught", "decides games", "pays little")
"""The verdict labels, in the order a verdict text lists them."""


def _names(agents) -> list[str]:
    return [agents] if isinstance(agents, str) else [str(a) for a in agents]


def stronger(agents, compare) -> str | None:
    """Which of two sets of players is stronger by :data:`AGENT_RANK` (a set ranks as its
    weakest seat): ``"agents"``, ``"compare"`` or ``None`` (a tie, or an agent not ranked)."""
    ra = [AGENT_RANK.get(a) for a in _names(agents)]
    rc = [AGENT_RANK.get(a) for a in _names(compare)]
    if None in ra or None in rc or min(ra) == min(rc):
        return None
    return "agents" if min(ra) > min(rc) else "compare"


def side_verdicts(sim: pd.DataFrame, ids: Sequence[str], players: Sequence[int], *,
                  tolerance_pp: float = WIN_TOLERANCE_PP, catch_floor: float = CATCH_FLOOR,
                  correction: str = "holm", alpha: float = 0.05) -> dict:
    """The verdicts of one set of players' games.

    Args:
        sim: per card and player count, :func:`experiments.lure.simulation.simulate`'s first
            frame (``id``, ``players``, ``caught_rate`` and its interval ``caught_low``,
            ``caught_high``, ``win_diff`` and its
            interval, ``in_play``).
        ids, players: the cards and player counts, in the order of the returned arrays.
        tolerance_pp: the band's half-width, percentage points; catch_floor: the caught share
            below which (the whole 95% interval) a card is rarely caught; correction, alpha:
            the win-advantage test's multiple-comparison correction
            (:func:`experiments.lure.rebalance_stats.off_band`).

    Returns a dict of ``(cards, players)`` arrays: ``rare`` (bool), ``band`` (``int8``: +1
    above the band after the correction, -1 below, 0 inside or not tested), ``caught``,
    ``caught_low``, ``caught_high``, ``wd``, ``lo``, ``hi`` (fractions; NaN where the card was
    never in play
    or never caught), and ``targets`` ``float64 (players,)``: the band centres, percentage
    points (the median card's win advantage). Raises ``ValueError`` for a bad correction.
    """
    st = card_arrays(sim, ids, players)
    idx = pd.MultiIndex.from_product([list(ids), list(players)], names=["id", "players"])
    r = sim.set_index(["id", "players"]).reindex(idx)
    high, low = (r[col].to_numpy(np.float64).reshape(len(ids), len(players))
                 for col in ("caught_high", "caught_low"))
    targets = np.array([float(np.nanmedian(st["wd"][:, k]) * 100)
                        if np.isfinite(st["wd"][:, k]).any() else 0.0
                        for k in range(len(players))])
    off = off_band(st, targets, tolerance_pp, correction, alpha)
    _, side = band_pvalues(st, targets, tolerance_pp)
    rare = (st["in_play"] > 0) & np.nan_to_num(high < float(catch_floor), nan=False)
    return {"rare": rare.astype(bool), "band": np.where(off, side, 0).astype(np.int8),
            "caught": st["caught"], "caught_low": low, "caught_high": high, "wd": st["wd"],
            "lo": st["lo"],
            "hi": st["hi"], "targets": targets}


def _players_text(ns: Sequence[int]) -> str:
    """``[2, 3, 4, 5]`` -> ``"2-5 p"``, ``[2, 4]`` -> ``"2, 4 p"``."""
    ns = sorted(int(n) for n in ns)
    if len(ns) > 2 and ns == list(range(ns[0], ns[-1] + 1)):
        return f"{ns[0]}-{ns[-1]} p"
    return ", ".join(map(str, ns)) + " p"


def _labels(rare_row, band_row, players) -> dict[str, list[int]]:
    """Verdict labels of one card -> the player counts each holds at."""
    out: dict[str, list[int]] = {}
    for k, n in enumerate(players):
        for lab, hit in zip(LABELS, (bool(rare_row[k]), band_row[k] > 0, band_row[k] < 0),
                            strict=True):
            if hit:
                out.setdefault(lab, []).append(int(n))
    return out


def verdict_text(rare_row, band_row, players) -> str:
    """A card's verdict as text: its labels (:data:`LABELS` order) with the player counts each
    holds at, ``"rarely caught (2-5 p); decides games (3 p)"``, or ``"ok"``. ``rare_row``
    (bool), ``band_row`` (+1/0/-1): ``(players,)`` rows of :func:`side_verdicts`."""
    labs = _labels(rare_row, band_row, players)
    return "; ".join(f"{k} ({_players_text(v)})" for k, v in labs.items()) or "ok"


_REASONS = {  # (label, held by the weaker, held by the stronger) -> reason
    ("rarely caught", True, True): "hard for everyone",
    ("rarely caught", True, False): "only {weak} players miss it",
    ("rarely caught", False, True): "{strong} players leave it",
    ("decides games", True, True): "decides games for everyone",
    ("decides games", False, True): "{strong} players exploit it",
    ("decides games", True, False): "decides games only among {weak} players",
    ("pays little", True, True): "pays little for everyone",
    ("pays little", False, True): "{strong} players gain little from it",
    ("pays little", True, False): "pays little only among {weak} players",
}


def reason(weak_labels, strong_labels, weak: str = "weak", strong: str = "strong",
           catch_move: int = 0) -> str:
    """The reason class of a card from the verdict labels of the weaker and of the stronger
    players (iterables of :data:`LABELS`): one class per label either holds (module
    docstring), joined by ``"; "``; ``""`` when neither holds any. ``weak``, ``strong``: the
    words for the two sets of players (agents' names when they cannot be ranked).
    ``catch_move``: for a card rarely caught by both, +1 when the stronger players catch it
    clearly more often (:data:`MOVE_PP`), -1 clearly less often, 0 neither: "hard for
    everyone" then reads "hard for everyone, less so (more so) for strong players". Raises
    ``ValueError`` for a label not in :data:`LABELS`."""
    w, s = set(weak_labels), set(strong_labels)
    bad = (w | s) - set(LABELS)
    if bad:
        raise ValueError(f"bad verdict labels {sorted(bad)}: expected among {', '.join(LABELS)}")
    out = []
    for lab in LABELS:
        if lab in w or lab in s:
            text = _REASONS[(lab, lab in w, lab in s)].format(weak=weak, strong=strong)
            if lab == "rarely caught" and lab in w and lab in s and catch_move:
                text += f", {'less' if catch_move > 0 else 'more'} so for {strong} players"
            out.append(text)
    return "; ".join(out)


def _catch_move(weak: dict, strong: dict, j: int) -> int:
    """+1/-1/0: whether the stronger players catch card ``j`` clearly more/less often than
    the weaker at a player count where both rarely catch it (the largest such move of at least
    :data:`MOVE_PP` with the two 95% intervals apart; 0 when none)."""
    both = weak["rare"][j] & strong["rare"][j]
    d = (strong["caught"][j] - weak["caught"][j]) * 100
    apart = (strong["caught_low"][j] > weak["caught_high"][j]) | (
        strong["caught_high"][j] < weak["caught_low"][j])
    ok = both & apart & (np.abs(np.nan_to_num(d)) >= MOVE_PP)
    if not ok.any():
        return 0
    return int(np.sign(d[ok][np.argmax(np.abs(d[ok]))]))


def band_reason(weak_side: int, strong_side: int, weak: str = "weak",
                strong: str = "strong") -> str:
    """:func:`reason` of the win-advantage verdicts alone: sides +1 (above the band), -1
    (below) or 0 (inside) of the weaker and the stronger players."""
    lab = {1: ["decides games"], -1: ["pays little"], 0: []}
    return reason(lab[int(np.sign(weak_side))], lab[int(np.sign(strong_side))], weak, strong)


def reason_words(agents, compare) -> tuple[str, str, bool]:
    """The words :func:`reason` uses for two sets of players (names or lists of names):
    ``(word for agents, word for compare, agents are the stronger)``: ``"strong"``/``"weak"``
    when :func:`stronger` ranks them, else their names (comma-joined; agents then count as
    the "stronger" side, so a reason reads "<compare> players ... <agents> players")."""
    order = stronger(agents, compare)
    if order == "agents":
        return "strong", "weak", True
    if order == "compare":
        return "weak", "strong", False
    return ",".join(_names(agents)), ",".join(_names(compare)), True


def compare_verdicts(sim: pd.DataFrame, sim_compare: pd.DataFrame, players, agents,
                     compare_agents, **kw) -> pd.DataFrame:
    """Every card's verdicts with the report's players (``sim``) and with the compared players
    (``sim_compare``; both :func:`experiments.lure.simulation.simulate` frames of the same deck
    and player counts), one row per card and player count (cards in ``sim``'s order).

    Columns: ``id, players, agents, compare_agents`` (names, comma-joined),
    ``caught_rate``, ``caught_rate_compare``, ``win_diff``, ``win_diff_low``,
    ``win_diff_high`` and the same ``_compare`` (fractions), ``band_target_pp``,
    ``band_target_compare_pp``, ``rarely_caught``, ``rarely_caught_compare`` (bool),
    ``win_band``, ``win_band_compare`` (+1 above the band, -1 below, 0 inside), then per card
    ``verdict``, ``verdict_compare`` (:func:`verdict_text`), ``changes`` (the two verdicts
    hold different labels, whatever their player counts) and ``reason`` (:func:`reason` of
    the weaker set's labels against the stronger's, :func:`reason_words`). ``kw``:
    :func:`side_verdicts`'s options (``ValueError`` for a bad correction)."""
    players = [int(n) for n in players]
    ids = list(dict.fromkeys(sim["id"]))
    a = side_verdicts(sim, ids, players, **kw)
    c = side_verdicts(sim_compare, ids, players, **kw)
    w_agents, w_compare, agents_strong = reason_words(agents, compare_agents)
    rows = []
    for j, cid in enumerate(ids):
        la = set(_labels(a["rare"][j], a["band"][j], players))
        lc = set(_labels(c["rare"][j], c["band"][j], players))
        why = (reason(lc, la, w_compare, w_agents, _catch_move(c, a, j)) if agents_strong
               else reason(la, lc, w_agents, w_compare, _catch_move(a, c, j)))
        card = {"verdict": verdict_text(a["rare"][j], a["band"][j], players),
                "verdict_compare": verdict_text(c["rare"][j], c["band"][j], players),
                "changes": la != lc, "reason": why}
        for k, n in enumerate(players):
            rows.append({"id": cid, "players": n, "agents": ",".join(_names(agents)),
                         "compare_agents": ",".join(_names(compare_agents)),
                         "caught_rate": a["caught"][j, k], "caught_rate_compare": c["caught"][j, k],
                         "win_diff": a["wd"][j, k], "win_diff_low": a["lo"][j, k],
                         "win_diff_high": a["hi"][j, k], "win_diff_compare": c["wd"][j, k],
                         "win_diff_compare_low": c["lo"][j, k],
                         "win_diff_compare_high": c["hi"][j, k],
                         "band_target_pp": a["targets"][k],
                         "band_target_compare_pp": c["targets"][k],
                         "rarely_caught": bool(a["rare"][j, k]),
                         "rarely_caught_compare": bool(c["rare"][j, k]),
                         "win_band": int(a["band"][j, k]),
                         "win_band_compare": int(c["band"][j, k]), **card})
    return pd.DataFrame(rows)


def _largest(x: pd.Series) -> float:
    """The value of largest size (NaN when none is finite)."""
    x = x.dropna()
    return float(x.iloc[int(np.argmax(np.abs(x.to_numpy())))]) if len(x) else float("nan")


def verdict_summary(verdicts: pd.DataFrame) -> pd.DataFrame:
    """One row per card of :func:`compare_verdicts`'s frame: ``id``, ``verdict_compare``,
    ``verdict``, ``reason``, ``changes`` and the largest (in size, over the player counts)
    change from the compared to the report's players of the caught share
    (``caught_change_pp``) and of the win advantage (``win_diff_change_pp``), percentage
    points: how far the numbers move with the other players."""
    rows = []
    for cid, g in verdicts.groupby("id", sort=False):
        r = g.iloc[0]
        rows.append({"id": cid, "verdict_compare": r["verdict_compare"],
                     "verdict": r["verdict"], "reason": r["reason"],
                     "changes": bool(r["changes"]),
                     "caught_change_pp": 100 * _largest(g["caught_rate"]
                                                        - g["caught_rate_compare"]),
                     "win_diff_change_pp": 100 * _largest(g["win_diff"]
                                                          - g["win_diff_compare"])})
    return pd.DataFrame(rows, columns=["id", "verdict_compare", "verdict", "reason", "changes",
                                       "caught_change_pp", "win_diff_change_pp"])


def who_played(agents, compare=None, games: int | None = None) -> str:
    """One line naming the players: ``"simulated games played by net in every seat (20000 per
    player count); verdicts compared with heuristic"``."""
    names = _names(agents)
    seats = (f"{names[0]} in every seat" if len(set(names)) == 1
             else f"{', '.join(names)} (cycled over the seats)")
    text = f"simulated games played by {seats}"
    if games is not None:
        text += f" ({games} per player count)"
    if compare:
        text += f"; verdicts compared with {', '.join(_names(compare))}"
    return text


def verdict_lines(summary: pd.DataFrame, agents, compare) -> list[str]:
    """Terminal lines of :func:`verdict_summary`: how many cards change verdict, then one line
    per card that does (``B28: heuristic ok -> net rarely caught (2-5 p): strong players leave
    it``), then the cards with the same non-ok verdict under both, by reason."""
    a, c = ", ".join(_names(agents)), ", ".join(_names(compare))
    ch = summary[summary["changes"]]
    out = [f"{len(ch)} card(s) change verdict between {c} and {a} players"
           + (":" if len(ch) else "")]
    for r in ch.itertuples():
        out.append(f"  {r.id:<5} {c} {r.verdict_compare} -> {a} {r.verdict}: {r.reason} "
                   f"(caught {r.caught_change_pp:+.1f} pp, win diff "
                   f"{r.win_diff_change_pp:+.1f} pp)")
    same = summary[~summary["changes"] & (summary["reason"] != "")]
    for why, g in same.groupby("reason", sort=False):
        out.append(f"  same verdict, {why}: {', '.join(g['id'])}")
    return out


def verdict_markdown(summary: pd.DataFrame, agents, compare, games: int,
                     tolerance_pp: float = WIN_TOLERANCE_PP,
                     catch_floor: float = CATCH_FLOOR) -> list[str]:
    """The report's section "Verdicts: <compare> against <agents> players" (Markdown lines):
    the rules, the cards that change verdict and the cards with a verdict under either set of
    players, each with both verdicts, the reason and how far the numbers move."""
    from experiments.markdown import markdown_table

    a, c = ", ".join(_names(agents)), ", ".join(_names(compare))
    L = [f"## Verdicts: {c} against {a} players", "",
         f"The simulated games were played twice, {games} games per player count each, with "
         f"the same seeds: by **{a}** (the report's players) and by **{c}**. A card is "
         f"*rarely caught* when its 95% interval of the caught share lies below "
         f"{100 * catch_floor:.0f}%; it *decides games* (or *pays little*) when its catcher "
         f"win advantage lies above (below) the band of the median card +-{tolerance_pp:g} pp "
         f"of the same players after a Holm correction over every card and player count "
         f"(the rebalance's win-diff rule). The reason compares the two: *only weak players "
         f"miss it* is a card the stronger players do catch (its numbers move), *hard for "
         f"everyone* one nobody catches reliably, *strong players leave it* one the stronger "
         f"players do not chase, *strong players exploit it* one whose catcher wins more "
         f"with them than the band allows. Changes (pp) go from {c} to {a}, the largest over "
         f"the player counts. Every card and player count: `verdicts.csv`.", ""]
    cols = {"id": "card", "verdict_compare": f"verdict ({c})", "verdict": f"verdict ({a})",
            "reason": "reason", "caught_change_pp": "caught change (pp)",
            "win_diff_change_pp": "win diff change (pp)"}
    shown = summary.assign(**{k: [f"{x:+.1f}" if np.isfinite(x) else "" for x in summary[k]]
                              for k in ("caught_change_pp", "win_diff_change_pp")})
    ch = shown[shown["changes"]]
    L += [f"**{len(ch)} card(s) change verdict.**", ""]
    if len(ch):
        L += [markdown_table(ch[list(cols)].rename(columns=cols)), ""]
    same = shown[~shown["changes"] & (shown["reason"] != "")]
    if len(same):
        L += ["The same verdict with both:", "",
              markdown_table(same[list(cols)].rename(columns=cols)), ""]
    return L
