"""experiments.pairs.compare: rank agreement of two rat-pair tables."""

import pandas as pd
import pytest

from experiments.pairs.compare import comparison_figure, rank_agreement

PAIRS = ["CD", "CH", "CS", "DC", "DH", "DS"]


def _table(rates, players=4):
    return pd.DataFrame({"players": players, "pair": PAIRS, "win_rate": rates,
                         "ci_low": [r - 0.01 for r in rates],
                         "ci_high": [r + 0.01 for r in rates]})


def test_known_values_identical_reversed_and_one_swap():
    a = _table([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    same = rank_agreement(a, a).iloc[0]
    assert same.spearman == pytest.approx(1.0) and same.kendall == pytest.approx(1.0)
    assert same.rank_change == 0 and same.top_a == same.top_b == "DS"
    rev = rank_agreement(a, _table([0.6, 0.5, 0.4, 0.3, 0.2, 0.1])).iloc[0]
    assert rev.spearman == pytest.approx(-1.0) and rev.top_b == "CD"
    # swapping the two easiest pairs: Spearman 1 - 6*2/(6*35) = 0.943, Kendall 13/15
    one = rank_agreement(a, _table([0.1, 0.2, 0.3, 0.4, 0.65, 0.6])).iloc[0]
    assert one.spearman == pytest.approx(1 - 12 / 210) and one.kendall == pytest.approx(13 / 15)
    assert one.mean_b == pytest.approx(a.win_rate.mean() + 0.15 / 6)


def test_one_row_per_common_player_count_and_a_figure():
    a = pd.concat([_table([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], n) for n in (1, 4)])
    b = _table([0.2, 0.1, 0.3, 0.4, 0.5, 0.6], 4)
    agree = rank_agreement(a, b)
    assert agree.players.tolist() == [4] and agree.most_moved.iloc[0] in ("CD", "CH")
    fig = comparison_figure(a, b, "heuristic", "pimc")
    assert len(fig.axes) == 1 and "rho" in fig.axes[0].get_title()


def test_bad_tables_are_named():
    with pytest.raises(ValueError, match="table b lacks columns"):
        rank_agreement(_table([0.1] * 6), pd.DataFrame({"pair": PAIRS}))
    with pytest.raises(ValueError, match="no \\(players, pair\\) cell"):
        rank_agreement(_table([0.1] * 6, 1), _table([0.1] * 6, 2))
