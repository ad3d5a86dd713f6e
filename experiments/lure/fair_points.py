"""Are a fish card's points right for what it takes to catch it? The verdicts of ``boardlab
lure balance`` and of the ``points`` goal of ``boardlab lure rebalance``.

In Lure a player catches every fish its roll meets (``docs/rules/lure.md``, *A round*), so a
card's price is its difficulty. Two lenses judge the points against it, both in card points:

* **the odds** (exact, no seeds): the card's points against the robust points-vs-difficulty
  curve (:func:`experiments.lure.curve.add_fit`): ``residual = points - curve(D)``; off when
  ``|residual|`` reaches the tolerance (the balance report's ``max(2, 1.5 x robust sigma)``).
* **play** (simulated games): what the exact odds cannot see, competition for the same fish,
  turn order, who acts first, splash icons. The measure is the catcher's win advantage
  (:func:`experiments.lure.simulation.card_stats`'s ``win_diff``) with its expected value for the
  card's points and difficulty removed: per player count a weighted robust linear fit
  ``win_diff ~ a + b x points + c x D + e x D_all`` over the deck's cards
  (:func:`play_measure`; ``D_all = -ln P(catch with every die)``, :func:`full_difficulty`: what
  it takes to catch it when a player commits everything, beside ``D``, the mean over every
  loadout), the card's residual divided by ``b`` (percentage points per card point), so it
  reads in card points, then pooled over the player counts (inverse-variance mean). By
  construction it does not grow with the points (the raw win advantage rises about 2-4 pp per
  point, so a band around the median card cannot hold a deck whose points span 1..10) and it
  does not repeat the odds' verdict (the difficulty is in the fit). Positive: the catcher wins
  more than a card of its points and difficulty would give, as if the card had that many points
  too many. Known limit: the catcher of a hard card has usually rolled big and caught other
  fish with the same roll; the difficulty terms remove that on average, not for every kind of
  condition (a hard ``distinct`` card reads high: ``docs/results/lure.md``).

**Evidence before verdicts** (:func:`card_verdicts`): the play lens is measured on two
independent seed sets; each set's side (above the band, below, inside) comes from a one-sided
test of the band's edge with a Holm correction over the cards; a card gets a play verdict only
when the two sets agree, otherwise it is *undecided* with the games per player count that
would decide it (:func:`games_to_decide`). The odds need no seeds.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from experiments.stats import Z95, holm_rejections, outside_band_pvalues

__all__ = ["SEED_SET_OFFSET", "MIN_SLOPE_PP", "VERDICT_WORDS", "seed_sets", "full_difficulty",
           "play_measure",
           "play_sides", "games_to_decide", "card_verdicts", "verdict_counts",
           "compare_players", "verdict_lines", "verdict_markdown", "odds_reason", "play_reason"]

SEED_SET_OFFSET = 1_000_003
"""The second seed set of a run with seed ``s`` is ``s + SEED_SET_OFFSET`` (independent
streams: runs with seeds 0 and 1 share no games)."""
MIN_SLOPE_PP = 0.5
"""Below this win advantage per card point (pp) the play lens cannot convert to points: no
play verdict at that player count."""
VERDICT_WORDS = {1: "too many points", -1: "too few points", 0: "fair"}
"""A side of the band in words: +1 above (the card pays more than what it takes to catch it),
-1 below, 0 inside."""


def seed_sets(seed: int) -> tuple[int, int]:
    """The two independent seed sets of a run with ``seed``: ``(seed, seed + SEED_SET_OFFSET)``."""
    return int(seed), int(seed) + SEED_SET_OFFSET


def full_difficulty(cards: pd.DataFrame) -> np.ndarray:
    """``D_all = -ln P(catch with every die)`` per card (``float64``), from a
    :func:`experiments.lure.odds.card_table` frame's catch probability with five d6 and
    every special die (``p_5d6+d12+d20``, with ``+d4`` in Deep Waters); probabilities below
    1e-4 count as 1e-4; NaN when the frame has no such column."""
    cols = [c for c in cards.columns if c.startswith("p_5d6")]
    if not cols:
        return np.full(len(cards), np.nan)
    full = max(cols, key=lambda c: c.count("+"))
    return -np.log(np.clip(cards[full].to_numpy(np.float64), 1e-4, 1.0))


def _robust_wls(X: np.ndarray, y: np.ndarray, se: np.ndarray) -> np.ndarray:
    """Coefficients of ``y ~ X`` weighted by ``1/se``, soft-l1 loss on the standardized
    residuals (``f_scale`` 2: a card's residual counts squared up to 2 standard errors and
    linearly beyond, so a broken card does not bend the fit), started from least squares."""
    from scipy.optimize import least_squares

    Xw, yw = X / se[:, None], y / se
    b0 = np.linalg.lstsq(Xw, yw, rcond=None)[0]
    return least_squares(lambda b: Xw @ b - yw, b0, loss="soft_l1", f_scale=2.0).x


def play_measure(sim: pd.DataFrame, cards: pd.DataFrame, players) -> pd.DataFrame:
    """The play lens of one set of games (module docstring).

    Args:
        sim: :func:`experiments.lure.simulation.simulate`'s per-card frame (``id``, ``players``,
            ``in_play``, ``win_diff`` and its 95% interval ``win_diff_low``/``win_diff_high``,
            fractions).
        cards: one row per card: ``id``, ``points``, ``difficulty`` and the catch
            probabilities of :func:`full_difficulty` (without them the fit uses ``D`` alone).
        players: the player counts to use.

    Returns one row per card of ``cards`` (same order): ``id``, ``play_points`` (the pooled
    residual in card points; positive: the catcher wins more than a card of its points and
    difficulty), ``play_se`` (its standard error, card points), ``play_pp`` (the pooled
    residual in percentage points of win advantage, at ``play_slope_pp``, the weighted mean
    rise per point, so its sign is ``play_points``') and per player count ``play_points_<n>p``.
    NaN where the card was never caught (or the fit is impossible at every player count).
    """
    ids = list(cards["id"])
    pts = cards.set_index("id")["points"].astype(float)
    dif = cards.set_index("id")["difficulty"].astype(float)
    d_all = full_difficulty(cards)
    extra = [d_all] if np.isfinite(d_all).all() and np.ptp(d_all) > 0 else []
    num, den, num_b = np.zeros(len(ids)), np.zeros(len(ids)), np.zeros(len(ids))
    out = pd.DataFrame({"id": ids})
    for n in players:
        s = sim[(sim["players"] == n) & sim["id"].isin(ids)].set_index("id").reindex(ids)
        wd = s["win_diff"].to_numpy(float) * 100
        se = (s["win_diff_high"] - s["win_diff_low"]).to_numpy(float) * 100 / (2 * Z95)
        p, d = pts.reindex(ids).to_numpy(float), dif.reindex(ids).to_numpy(float)
        ok = np.isfinite(wd) & np.isfinite(se) & (se > 0) & np.isfinite(d)
        col = np.full(len(ids), np.nan)
        if ok.sum() >= 6 and np.ptp(p[ok]) > 0:
            X = np.column_stack([np.ones(len(ids)), p, d, *extra])
            b = _robust_wls(X[ok], wd[ok], se[ok])
            if b[1] >= MIN_SLOPE_PP:
                r = np.where(ok, wd - X @ b, np.nan)
                col = r / b[1]
                w = np.where(ok, (b[1] / se) ** 2, 0.0)
                num += np.nan_to_num(col) * w
                num_b += b[1] * w
                den += w
        out[f"play_points_{int(n)}p"] = col
    with np.errstate(invalid="ignore", divide="ignore"):
        out["play_points"] = np.where(den > 0, num / den, np.nan)
        out["play_se"] = np.where(den > 0, 1 / np.sqrt(den), np.nan)
        # in pp at the weighted mean rise per point: the same sign as play_points always
        out["play_slope_pp"] = np.where(den > 0, num_b / np.where(den > 0, den, 1), np.nan)
        out["play_pp"] = out["play_points"] * out["play_slope_pp"]
    return out[["id", "play_points", "play_se", "play_pp", "play_slope_pp"]
               + [c for c in out.columns if c.endswith("p") and c.startswith("play_points_")]]


def play_sides(measure: pd.DataFrame, tolerance: float, alpha: float = 0.05) -> np.ndarray:
    """Per card of :func:`play_measure`: +1 when its play measure lies above ``+tolerance``
    card points by a one-sided test after a Holm correction over the cards (level ``alpha``),
    -1 below ``-tolerance``, 0 otherwise (also for a card without a measure). ``int8``."""
    x = measure["play_points"].to_numpy(float)
    se = measure["play_se"].to_numpy(float)
    p, side = outside_band_pvalues(x, se, se, -tolerance, tolerance)
    p = np.where(np.isfinite(x), p, np.nan)
    return np.where(holm_rejections(p, alpha), side, 0).astype(np.int8)


def games_to_decide(x: float, se_one_set: float, n_games: int, tolerance: float,
                    n_cards: int, alpha: float = 0.05) -> int:
    """Games per player count (in each seed set) at which the two sets would agree on a card
    whose play measure is ``x`` card points: its Holm-level interval, ``se_one_set`` being one
    set's standard error at ``n_games``, clears the band's edge ``tolerance`` with one more
    standard error to spare (about 84% power per set). Returns at least ``n_games + 1``;
    10**9 for a card on the edge itself."""
    from scipy.stats import norm

    gap = abs(abs(x) - tolerance)
    if not (np.isfinite(gap) and np.isfinite(se_one_set)) or gap < 1e-9:
        return 10 ** 9
    z = float(norm.isf(alpha / max(n_cards, 1))) + 1.0
    need = n_games * (z * se_one_set / gap) ** 2
    return int(min(10 ** 9, max(n_games + 1, math.ceil(need / 100.0) * 100)))


def odds_reason(points: float, fitted: float, difficulty: float, tolerance: float) -> str:
    """The odds' reason line: ``"8 points where the curve gives 5.9 for its difficulty 4.12:
    2.1 points too many for what it takes to catch it"`` (the sign of ``points - fitted`` and
    the words agree; ``fair`` within ``tolerance``)."""
    if not np.isfinite(difficulty):
        return f"{points:g} points, but no dice loadout catches it (difficulty infinite)"
    r = points - fitted
    head = (f"{points:g} point{'' if points == 1 else 's'} where the curve gives "
            f"{fitted:.1f} for its difficulty {difficulty:.2f}: ")
    if abs(r) < tolerance:
        return head + f"{r:+.1f} points, fair (within +-{tolerance:.2f})"
    word = "many" if r > 0 else "few"
    return head + f"{abs(r):.1f} points too {word} for what it takes to catch it"


def play_reason(x: float, pp: float, side: int | None, more: int | None = None) -> str:
    """The play lens' reason line: ``"in play its catcher wins +3.1 pp more than a card of its
    points and difficulty: as if 0.8 points too many, fair"``. ``side``: the decided verdict
    (``None``: the two seed sets disagree, ``more`` the games per player count that would
    decide it)."""
    if not np.isfinite(x):
        return "in play: never caught, no measure"
    word = "more" if pp >= 0 else "less"
    many = "many" if x >= 0 else "few"
    text = (f"in play its catcher wins {abs(pp):.1f} pp {word} than a card of its points and "
            f"difficulty: as if {abs(x):.1f} points too {many}")
    if side is None:
        return text + f"; undecided: about {more} games per player count would decide it"
    return text + (", fair" if side == 0 else f", {VERDICT_WORDS[side]}")


def card_verdicts(cards: pd.DataFrame, sim_a: pd.DataFrame | None, sim_b: pd.DataFrame | None,
                  players, n_games: int, tolerance: float, alpha: float = 0.05
                  ) -> pd.DataFrame:
    """Every card's verdict: the odds and, with games, play on two seed sets.

    Args:
        cards: one row per card: ``id``, ``points``, ``difficulty``, ``fitted_points`` (the
            curve's points at its difficulty; NaN when nobody can catch it).
        sim_a, sim_b: :func:`experiments.lure.simulation.simulate` frames of the same deck on the
            two seed sets (:func:`seed_sets`), or ``None`` (odds only).
        players: player counts; n_games: games per player count in each set.
        tolerance: the band's half-width in card points (both lenses).
        alpha: level of the Holm-corrected play tests.

    Returns one row per card: ``id, points, difficulty, fitted_points, residual,
    odds_side`` (+1 too many points, -1 too few, 0 fair; +2 for a card nobody can catch),
    ``play_points_a, play_se_a, play_side_a`` and the same ``_b``, ``play_points`` and
    ``play_pp`` (both sets pooled), ``play_side`` (the agreed side, or NaN: undecided),
    ``games_to_decide`` (undecided cards), ``verdict`` (``too many points``, ``too few
    points``, ``uncatchable``, ``undecided`` or ``fair``; the odds first, then play),
    ``off`` (bool: the card is off the goal: the odds', or play's agreed verdict),
    ``deviation`` (card points beyond the band's edge: the larger of the two lenses'; inf for
    a card nobody can catch), ``reason_odds``, ``reason_play``.
    """
    d = cards["difficulty"].to_numpy(float)
    fitted = cards["fitted_points"].to_numpy(float)
    res = cards["points"].to_numpy(float) - fitted
    odds = np.where(~np.isfinite(d), 2, np.where(res >= tolerance, 1,
                                                 np.where(res <= -tolerance, -1, 0)))
    out = pd.DataFrame({"id": list(cards["id"]), "points": cards["points"].to_numpy(),
                        "difficulty": d, "fitted_points": fitted, "residual": res,
                        "odds_side": odds.astype(int)})
    out["reason_odds"] = [odds_reason(float(p), f, x, tolerance) for p, f, x in
                          zip(out["points"], fitted, d, strict=True)]
    dev_odds = np.where(np.isfinite(d), np.maximum(0.0, np.abs(res) - tolerance), np.inf)
    dev_odds = np.where(odds != 0, dev_odds, 0.0)
    play_side = np.zeros(len(out))
    dev_play = np.zeros(len(out))
    if sim_a is not None and sim_b is not None:
        base = cards
        ma, mb = play_measure(sim_a, base, players), play_measure(sim_b, base, players)
        sa, sb = play_sides(ma, tolerance, alpha), play_sides(mb, tolerance, alpha)
        xa, xb = ma["play_points"].to_numpy(float), mb["play_points"].to_numpy(float)
        ea, eb = ma["play_se"].to_numpy(float), mb["play_se"].to_numpy(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            wa, wb = 1 / ea ** 2, 1 / eb ** 2
            pooled = (xa * wa + xb * wb) / (wa + wb)
            slope = (ma["play_slope_pp"].to_numpy(float) * wa
                     + mb["play_slope_pp"].to_numpy(float) * wb) / (wa + wb)
            pooled_pp = pooled * slope  # the same sign as the pooled points
        agreed = sa == sb
        play_side = np.where(agreed, sa, np.nan)
        more = [None if ok else games_to_decide(x, (e1 + e2) / 2, n_games, tolerance,
                                                len(out), alpha)
                for ok, x, e1, e2 in zip(agreed, pooled, ea, eb, strict=True)]
        out = out.assign(play_points_a=xa, play_se_a=ea, play_side_a=sa.astype(int),
                         play_points_b=xb, play_se_b=eb, play_side_b=sb.astype(int),
                         play_points=pooled, play_pp=pooled_pp, play_side=play_side,
                         games_to_decide=[np.nan if m is None else m for m in more])
        out["reason_play"] = [play_reason(x, pp, None if not np.isfinite(s) else int(s), m)
                              for x, pp, s, m in zip(pooled, pooled_pp, play_side, more,
                                                     strict=True)]
        dev_play = np.where(np.nan_to_num(play_side) != 0,
                            np.maximum(0.0, np.abs(np.nan_to_num(pooled)) - tolerance), 0.0)
    else:
        out["reason_play"] = "in play: no games"
    verdict = np.where(odds == 2, "uncatchable", np.where(odds == 1, VERDICT_WORDS[1], np.where(
        odds == -1, VERDICT_WORDS[-1], np.where(~np.isfinite(play_side), "undecided",
                                                np.where(play_side == 1, VERDICT_WORDS[1],
                                                         np.where(play_side == -1,
                                                                  VERDICT_WORDS[-1],
                                                                  "fair"))))))
    out["verdict"] = verdict
    out["off"] = (odds != 0) | (np.nan_to_num(play_side) != 0)
    out["deviation"] = np.maximum(dev_odds, dev_play)
    return out


def verdict_counts(verdicts: pd.DataFrame) -> dict:
    """``{"off": cards off the goal, "deviation": card points beyond the band's edges summed
    over them (inf when a card nobody can catch is among them), "undecided": cards}``."""
    return {"off": int(verdicts["off"].sum()),
            "deviation": float(verdicts.loc[verdicts["off"], "deviation"].sum()),
            "undecided": int((verdicts["verdict"] == "undecided").sum())}


def compare_players(mine: pd.DataFrame, other: pd.DataFrame) -> pd.DataFrame:
    """The play verdicts of the same cards with two sets of players (two
    :func:`card_verdicts` frames, same cards): one row per card, ``id, play_side,
    play_side_other`` (NaN: undecided), ``play_points``, ``play_points_other``, ``status``:
    ``changes`` (both decided, different), ``same`` (both decided, equal) or ``undecided``
    (either set of players' two seed sets disagree: no verdict change is claimed), and
    ``games_to_decide`` (the larger of the two, for undecided cards)."""
    m = mine.set_index("id")
    o = other.set_index("id").reindex(m.index)
    a, b = m["play_side"].to_numpy(float), o["play_side"].to_numpy(float)
    both = np.isfinite(a) & np.isfinite(b)
    status = np.where(~both, "undecided", np.where(a != b, "changes", "same"))
    more = np.fmax(m["games_to_decide"].to_numpy(float), o["games_to_decide"].to_numpy(float))
    return pd.DataFrame({"id": list(m.index), "play_side": a, "play_side_other": b,
                         "play_points": m["play_points"].to_numpy(float),
                         "play_points_other": o["play_points"].to_numpy(float),
                         "status": status, "games_to_decide": np.where(both, np.nan, more)})


def _side_text(s: float) -> str:
    return "undecided" if not np.isfinite(s) else VERDICT_WORDS[int(s)]


def verdict_lines(verdicts: pd.DataFrame, tolerance: float, compare: pd.DataFrame | None = None,
                  agents: str = "", other: str = "") -> list[str]:
    """Terminal lines: the cards whose points are wrong for what it takes to catch them, each
    with its reasons; the undecided ones; and, with ``compare`` (:func:`compare_players`),
    the play verdicts that change between ``other`` and ``agents`` players."""
    off = verdicts[verdicts["off"]]
    out = [f"{len(off)} card(s) whose points are wrong for what it takes to catch them "
           f"(off by {tolerance:.2f} points or more):" if len(off) else
           f"every card's points are fair for what it takes to catch it (within "
           f"+-{tolerance:.2f} points)"]
    for r in off.itertuples():
        out.append(f"  {r.id:<5} {r.verdict}: {r.reason_odds}; {r.reason_play}")
    und = verdicts[verdicts["verdict"] == "undecided"]
    for r in und.itertuples():
        out.append(f"  {r.id:<5} undecided: the two seed sets disagree in play; about "
                   f"{int(r.games_to_decide)} games per player count would decide it")
    if compare is not None:
        ch = compare[compare["status"] == "changes"]
        nu = int((compare["status"] == "undecided").sum())
        out.append(f"{len(ch)} play verdict(s) change between {other} and {agents} players"
                   f" (both decided on two seed sets; {nu} undecided with either)"
                   + (":" if len(ch) else ""))
        for r in ch.itertuples():
            out.append(f"  {r.id:<5} {other} {_side_text(r.play_side_other)} "
                       f"({r.play_points_other:+.1f} points) -> {agents} "
                       f"{_side_text(r.play_side)} ({r.play_points:+.1f} points)")
    return out


RECONSTRUCTION_NOTE = ("The default deck is the project's **reconstruction** "
                       "(`engines/lure/default_deck.csv`), not the publisher's cards: findings "
                       "about it are about cards that may not exist. Load the real cards with "
                       "`--cards FILE` (one row per card, the format of that file).")
"""The sentence every Lure report and the README carry about the default deck."""


def verdict_markdown(verdicts: pd.DataFrame, tolerance: float, n_games: int,
                     seeds: tuple[int, int] | None, agents: str,
                     compare: pd.DataFrame | None = None, other: str = "") -> list[str]:
    """The report's section "Is each card's points right for what it takes to catch it?"
    (Markdown lines): the goal in words, the measure, and every card's verdict with its
    numbers and reasons; with ``compare``, the play verdicts with ``other`` players."""
    from experiments.markdown import markdown_table

    L = ["## Is each card's points right for what it takes to catch it?", "",
         "Every verdict reads *this card's points are wrong for what it takes to catch it*. "
         "**The odds** (exact): the card's points against the robust curve of points on "
         f"difficulty; off when they differ by {tolerance:.2f} points or more. **Play** "
         "(simulated games, what the odds cannot see: competition for the same fish, turn "
         "order, splash icons): the catcher's win advantage with its expected value for the "
         "card's points and difficulty removed (a weighted robust fit per player count on "
         "the points, the difficulty and the difficulty with every die committed), "
         "divided by the win advantage one point buys, so it reads in card points and does "
         "not grow with the points; pooled over the player counts. Positive: the catcher "
         "wins more than a card of its points and difficulty would give (as if it had that "
         "many points too many)."]
    if seeds is not None:
        L += ["", f"Evidence before verdicts: play was measured on two independent seed sets "
              f"(seeds {seeds[0]} and {seeds[1]}, {n_games} games per player count each, "
              f"players **{agents}**); a card is off in play only when both sets say so "
              f"(one-sided test of the band's edge, Holm-corrected over the cards), otherwise "
              f"*undecided* with the games that would decide it."]
    counts = verdict_counts(verdicts)
    L += ["", f"**{counts['off']} card(s) off**, {counts['undecided']} undecided.", ""]
    t = pd.DataFrame({"card": verdicts["id"], "points": verdicts["points"],
                      "curve": [f"{x:.1f}" if np.isfinite(x) else "-"
                                for x in verdicts["fitted_points"]],
                      "odds (points off)": [f"{x:+.1f}" if np.isfinite(x) else "-"
                                            for x in verdicts["residual"]]})
    if "play_points_a" in verdicts:
        t["play, set A"] = [f"{x:+.1f}" if np.isfinite(x) else "-"
                            for x in verdicts["play_points_a"]]
        t["play, set B"] = [f"{x:+.1f}" if np.isfinite(x) else "-"
                            for x in verdicts["play_points_b"]]
    t["verdict"] = verdicts["verdict"]
    L += [markdown_table(t), ""]
    shown = verdicts[verdicts["off"] | (verdicts["verdict"] == "undecided")]
    if len(shown):
        L += ["Reasons:", ""]
        L += [f"* **{r.id}** ({r.verdict}): {r.reason_odds}; {r.reason_play}."
              for r in shown.itertuples()]
        L.append("")
    if compare is not None:
        ch = compare[compare["status"] == "changes"]
        L += [f"### Play verdicts: {other} against {agents} players", "",
              f"The same games played by **{other}** (two seed sets as well). A verdict "
              f"changes only when both sets of players decided it on both seed sets: "
              f"{len(ch)} change, {int((compare['status'] == 'same').sum())} agree, "
              f"{int((compare['status'] == 'undecided').sum())} undecided with either.", ""]
        if len(ch):
            c = pd.DataFrame({"card": ch["id"],
                              f"{other}": [f"{_side_text(s)} ({x:+.1f})" for s, x in
                                           zip(ch["play_side_other"], ch["play_points_other"],
                                               strict=True)],
                              f"{agents}": [f"{_side_text(s)} ({x:+.1f})" for s, x in
                                            zip(ch["play_side"], ch["play_points"],
                                                strict=True)]})
            L += [markdown_table(c), ""]
    return L
