"""The front of fewest cards off the win-diff goal against cards changed (issue 27: the search's
objective shown to the designer, and the targets no rebalance can reach): known answers on
planted decks."""

from __future__ import annotations

import pandas as pd
import pytest

from experiments.lure.rebalance_front import change_front, slopes


def _deck(points, win_pp, players=(2, 3), se_pp=0.2):
    """A verify-like frame: card ``i`` (difficulty ``i``) with ``points[i]`` and win advantage
    ``win_pp[i]`` pp at every player count, intervals of +-1.96 se."""
    rows = []
    for i, (p, w) in enumerate(zip(points, win_pp, strict=True)):
        for n in players:
            rows.append({"id": f"B{i + 1:02d}", "players": n, "points_before": p,
                         "difficulty_before": float(i), "win_diff_before": w / 100,
                         "win_diff_low_before": (w - 1.96 * se_pp) / 100,
                         "win_diff_high_before": (w + 1.96 * se_pp) / 100})
    return pd.DataFrame(rows)


# ten cards on the line win = 2 x points (slope 2 pp per point), a band of +-5 pp around the
# median (11 pp) holds points 3..8; B01 (1 point: 2 pp) and B10 (10 points: 20 pp) are off
POINTS = [1, 3, 4, 5, 5, 6, 6, 7, 8, 10]
LINE = [2.0 * p for p in POINTS]


def test_the_slope_is_the_win_advantage_per_point():
    s = slopes(_deck(POINTS, LINE))
    assert s == pytest.approx({2: 2.0, 3: 2.0})


def test_each_change_brings_one_off_card_in_and_the_least_points_move():
    f = change_front(_deck(POINTS, LINE), tolerance=5.0, points_range=(1, 10), shift_step=0.5)
    assert list(f["off"][:3]) == [2, 1, 0]
    assert list(f["changes"][:3]) == [0, 1, 2]
    # in by the least move: B01 1 -> 3 (6 pp, inside 6..16 at shift 0) and B10 10 -> 8
    assert f["changed_cards"].iloc[2] == "B01 1->3 B10 10->8"
    assert f["points_moved"].iloc[2] == 4


def test_the_order_of_value_can_hold_a_card_off():
    # B05 (5 points) wins 24 pp: in the band (about 7..17 pp) only at 1-2 points, below the
    # easier B02-B04 (3-4 points): a new inversion, which only --allow-reorder permits
    win = list(LINE)
    win[4] = 24.0
    kept = change_front(_deck(POINTS, win), tolerance=5.0, points_range=(1, 10), shift_step=0.5)
    free = change_front(_deck(POINTS, win), tolerance=5.0, points_range=(1, 10), shift_step=0.5,
                        allow_reorder=True)
    assert free["off"].min() == 0 and "B05 5->" in free["changed_cards"].iloc[-1]
    assert kept["off"].min() == 1 and "B05" not in kept["changed_cards"].iloc[-1]


def test_only_the_changeable_cards_change():
    f = change_front(_deck(POINTS, LINE), tolerance=5.0, points_range=(1, 10),
                     changeable=["B10"], shift_step=0.5)
    assert list(f["off"]) == [2, 1]
    assert f["changed_cards"].iloc[-1] == "B10 10->8"


def test_bad_ranges_are_refused():
    with pytest.raises(ValueError, match="bad points range 5..2"):
        change_front(_deck(POINTS, LINE), tolerance=5.0, points_range=(5, 2))
    with pytest.raises(ValueError, match="no slope"):
        change_front(_deck([3] * 5, [6.0] * 5), tolerance=5.0, points_range=(1, 5))
