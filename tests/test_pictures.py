"""The pictures say what they show (issue 24): the River Rats pair heatmap labels its blank
diagonal, every colour bar has a label, the tournament's rating picture draws the same
interval as the printed table (mu +- sigma), and the Lure caught-share chart uses a scale on
which near-equal shares stand apart. Built from small or committed tables: nothing is
simulated."""

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from experiments.lure import balance  # noqa: E402
from experiments.lure.odds import spec_list  # noqa: E402
from experiments.pairs import plots as pair_plots  # noqa: E402
from experiments.tournament import plots as tour_plots  # noqa: E402
from experiments.tournament.games import AgentRef  # noqa: E402
from experiments.tournament.run import Tournament, result_from_folder  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SUITS = "CDHS"


def _texts(fig) -> list[str]:
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def _colorbar_labels(fig) -> list[str]:
    """The label of every colour bar of ``fig`` (found through the images' colour bars)."""
    bars = {id(im.colorbar): im.colorbar for ax in fig.axes for im in ax.images
            if im.colorbar is not None}
    return [cb.ax.get_ylabel() or cb.ax.get_xlabel() for cb in bars.values()]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _pairs(players=(1, 2)) -> pd.DataFrame:
    rows = []
    for n in players:
        for a in SUITS:
            for w in SUITS:
                if a != w:
                    rate = 0.05 + 0.02 * SUITS.index(a) + 0.01 * SUITS.index(w) + 0.05 * n
                    rows.append(dict(players=n, pair=a + w, active=a, waiting=w,
                                     agents="heuristic", games=1000, win_rate=rate,
                                     ci_low=rate - 0.01, ci_high=rate + 0.01))
    return pd.DataFrame(rows)


def _tournament(folder: str):
    """The :class:`TournamentResult` of a committed tournament folder (no games played)."""
    path = ROOT / "results" / folder
    meta = json.loads((path / "meta.json").read_text())
    refs = [AgentRef.from_dict(a) for a in meta["agents"]]
    tour = Tournament(meta["game"], int(meta["n_players"]), refs, {},
                      [tuple(t) for t in meta["lineups"]])
    return result_from_folder(tour, path, meta)


# ---- River Rats pair heatmap -----------------------------------------------------------------
def test_pair_heatmap_labels_its_diagonal_and_colour_bar():
    fig = pair_plots.heatmap_figure(_pairs())
    texts = _texts(fig)
    assert texts.count(pair_plots.DIAGONAL_LABEL) == 2 * 4  # 4 diagonal cells per panel
    assert "same Rat" in pair_plots.DIAGONAL_LABEL
    labels = _colorbar_labels(fig)
    assert labels and all(lab.strip() for lab in labels)
    assert "win rate" in labels[0]


def test_pair_heatmap_diagonal_label_sits_on_the_diagonal():
    fig = pair_plots.heatmap_figure(_pairs(players=(3,)))
    ax = fig.axes[0]
    where = {(round(t.get_position()[0]), round(t.get_position()[1])) for t in ax.texts
             if t.get_text() == pair_plots.DIAGONAL_LABEL}
    assert where == {(i, i) for i in range(4)}


# ---- tournament pictures ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def rats_result():
    return _tournament("rats/tournaments/4p_random-greedy-heuristic")


def test_agents_picture_draws_mu_plus_minus_one_sigma_like_the_table(rats_result):
    fig = tour_plots.plot_agents(rats_result)
    ax = fig.axes[1]
    bars = ax.containers[0]
    segs = bars.lines[2][0].get_segments()
    half = np.array([(s[1][0] - s[0][0]) / 2 for s in segs])
    df = rats_result.agents.sort_values("win_rate")
    np.testing.assert_allclose(half, df["sigma"].to_numpy(float), rtol=1e-9)
    centre = np.array([(s[1][0] + s[0][0]) / 2 for s in segs])
    np.testing.assert_allclose(centre, df["mu"].to_numpy(float), rtol=1e-9)
    interval = tour_plots.RATING_INTERVAL
    assert interval in ax.get_xlabel() and interval in ax.get_title()
    lines = rats_result.summary().splitlines()
    assert lines[1].startswith("ranked by ")  # which measure ranks, then the table's header
    assert f"rating {interval}" in lines[2]
    assert "2 sigma" not in ax.get_xlabel() + ax.get_title()


@pytest.mark.parametrize("folder", ["rats/tournaments/4p_random-greedy-heuristic",
                                    "river_rats/tournaments/4p_random-greedy-heuristic-peek"])
def test_matrix_picture_labels_colour_bar_and_diagonal(folder):
    result = _tournament(folder)
    fig = tour_plots.plot_matrix(result)
    labels = _colorbar_labels(fig)
    assert labels and all(lab.strip() for lab in labels)
    assert _texts(fig).count(tour_plots.SAME_AGENT_LABEL) == len(result.agents)


# ---- Lure pictures ---------------------------------------------------------------------------
def _sim(rates: dict[str, float], players=(2, 3)) -> pd.DataFrame:
    rows = []
    for n in players:
        for cid, r in rates.items():
            rows.append(dict(id=cid, players=n, in_play=20000, caught_rate=r,
                             caught_low=r - 0.002, caught_high=min(r + 0.002, 1.0)))
    return pd.DataFrame(rows)


def test_caught_chart_shows_differences_between_near_equal_cards():
    """28 of 30 cards caught in 97-99.9% of games: on a 0-1 axis they look equal; the chart's
    scale must put 97% and 99.5% well apart (here: over a tenth of the axis height)."""
    rates = {f"B{i:02d}": 0.97 + 0.029 * i / 28 for i in range(1, 29)}
    rates.update(B29=0.88, B30=0.71)
    fig = balance.plot_caught(_sim(rates), agents="heuristic")
    ax = fig.axes[0]
    assert tuple(np.round(ax.get_ylim(), 6)) != (0.0, 1.0)
    y = ax.transAxes.inverted().transform(ax.transData.transform([[0, 0.97], [0, 0.995]]))[:, 1]
    assert y[1] - y[0] > 0.1
    lo, hi = ax.get_ylim()
    assert lo <= 0.71 - 0.002 and hi >= 0.999  # every interval inside the axes
    assert balance.CAUGHT_SCALE_NOTE in _texts(fig)  # the scale is explained
    assert "logit" in ax.get_ylabel()


def test_caught_axis_limits_cover_the_data_and_reject_empty():
    lo, hi = balance.caught_axis_limits([0.2, 0.95], [0.25, 0.999])
    assert 0 < lo < 0.2 and 0.999 <= hi < 1
    lo, hi = balance.caught_axis_limits([0.97], [0.98])
    assert lo <= 0.9 and hi >= 0.98
    with pytest.raises(ValueError, match="no finite"):
        balance.caught_axis_limits([np.nan], [np.nan])


def test_caught_chart_handles_certain_and_missing_cards():
    sim = _sim({"B01": 1.0, "B02": 0.0, "B03": 0.5})
    sim.loc[sim["id"] == "B02", ["caught_rate", "caught_low", "caught_high"]] = np.nan
    fig = balance.plot_caught(sim)
    lo, hi = fig.axes[0].get_ylim()
    assert 0 < lo < hi < 1


def test_lure_catch_heatmaps_colour_bar_is_labelled():
    from engines import dice

    cards = pd.read_csv(ROOT / "results" / "lure" / "base" / "cards.csv").head(3)
    specs = spec_list(False)
    ctx = max(dice.PLAN_FLAG, dice.PLAN_NONE) + 1
    table = np.random.default_rng(0).random((len(cards), 6, max(specs) + 1, ctx))
    fig = balance.plot_heatmaps(cards, table, False)
    labels = _colorbar_labels(fig)
    assert labels and all(lab.strip() for lab in labels)
