"""The estimated cost of tournaments and win-rate tables, and the sizes the commands choose for
a field with search agents (experiments/tournament/cost.py); the strength-against-speed
benchmark and its picture (benchmarks/strength_speed.py, plot_strength_speed)."""

import importlib
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments.tournament import cost
from experiments.tournament.games import get_adapter, parse_agents
from experiments.tournament.run import Tournament

ROOT = Path(__file__).resolve().parents[2]
GAMES = ["rats", "recurring", "lure", "river_rats"]


def _bench():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        return importlib.import_module("strength_speed")
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


def _tour(game, agents, n=4):
    ad = get_adapter(game)
    return Tournament(ad.name, n, parse_agents(agents, ad))


def test_a_deal_costs_its_seats_games():
    s_h, s_p = cost.seat_seconds("rats", "heuristic"), cost.seat_seconds("rats", "pimc-fast")
    # 2 agents at 2 seats: one table, two rotations, each with one seat of each
    assert cost.deal_seconds(_tour("rats", "heuristic,pimc-fast", 2)) == pytest.approx(
        2 * (s_h + s_p))
    # a ReCURRRing deal is a 3-game match; 2 agents at 3 seats sit A B A and B A B
    r = _tour("recurring", "heuristic,greedy", 3)
    assert cost.deal_seconds(r) == pytest.approx(
        3 * 9 * (cost.seat_seconds("recurring", "heuristic")
                 + cost.seat_seconds("recurring", "greedy")))
    # River Rats: each agent is a team of n seats
    t = _tour("river_rats", "heuristic,net-search-fast", 3)
    assert cost.deal_seconds(t) == pytest.approx(
        3 * (cost.seat_seconds("river_rats", "heuristic")
             + cost.seat_seconds("river_rats", "net-search-fast")))
    # an agent the table does not know costs what heuristic costs ...
    assert cost.seat_seconds("rats", "my_policy") == cost.seat_seconds("rats", "heuristic")
    assert cost.seat_seconds("lure", "bold") == cost.seat_seconds("lure", "heuristic")
    # ... but a search preset it does not list costs its listed sibling's time per simulation
    assert cost.seat_seconds("rats", "net-search") == pytest.approx(
        2 * cost.seat_seconds("rats", "net-search-fast"))
    assert cost.seat_seconds("rats", "pimc-peek") == cost.seat_seconds("rats", "pimc")
    # a guided ISMCTS no table row measures is priced from ismcts at its simulations
    assert cost.seat_seconds("rats", "net-ismcts") == pytest.approx(
        1.5 * cost.seat_seconds("rats", "ismcts-fast"))
    assert cost.seat_seconds("lure", "ismcts") == pytest.approx(
        4 * cost.seat_seconds("lure", "ismcts-fast"))
    # and so does a preset given more simulations
    from agents.policy import get_spec

    v = get_spec("rats", "pimc").params_array().copy()
    v[0] *= 4
    assert cost.seat_seconds("rats", "pimc", v) == pytest.approx(
        4 * cost.seat_seconds("rats", "pimc"))


@pytest.mark.parametrize("game", GAMES)
def test_default_sizes_of_the_default_field(game):
    ad = get_adapter(game)
    refs = parse_agents(",".join(ad.standard_agents()), ad)
    for a in ad.standard_agents():  # the estimate measured every agent of the default field
        assert a in cost.SEAT_GAMES_PER_S[ad.name] or a in ("cautious", "bold"), a
    tour = Tournament(ad.name, ad.default_players, refs)
    s = cost.tournament_defaults(tour)
    assert s.search == ("net-search-fast",)
    assert cost.MIN_DEALS <= s.deals <= cost.DEFAULT_DEALS and s.deals % cost.DEAL_STEP == 0
    assert s.rating_deals == s.deals // 5 and s.batch_size == cost.SEARCH_BATCH
    per = cost.deal_seconds(tour)
    assert s.play_s == pytest.approx(s.deals * per)
    assert s.rating_s == pytest.approx(s.rating_deals * per)
    if cost.MIN_DEALS < s.deals < cost.DEFAULT_DEALS:  # the most that fit the budget
        assert s.play_s + s.rating_s <= cost.BUDGET_S
        assert (s.deals + cost.DEAL_STEP) * per * 1.2 > cost.BUDGET_S
    # without the search agent: the nominal sizes
    fast = [r for r in refs if r.base != "net-search-fast"]
    f = cost.tournament_defaults(Tournament(ad.name, ad.default_players, fast))
    assert (f.deals, f.rating_deals, f.batch_size, f.search) == (1000, 300, 100, ())
    w = cost.winrates_defaults(game, refs, list(ad.players))
    assert cost.MIN_DEALS <= w.deals <= cost.WINRATES_GAMES and w.rating_deals == 0
    assert cost.winrates_defaults(game, fast, list(ad.players)).deals == cost.WINRATES_GAMES


def test_the_sizes_of_a_slow_field_stop_at_the_floor():
    t = _tour("lure", "random,greedy,heuristic,cautious,bold,net,ismcts-strong")
    s = cost.tournament_defaults(t)
    assert s.deals == cost.MIN_DEALS and s.play_s + s.rating_s > cost.BUDGET_S
    assert "the field includes search agent ismcts-strong" in s.note()


def test_wall_time_and_durations():
    assert cost.wall_seconds(100.0, 10.0, 2, 8) == pytest.approx(60.0)
    assert cost.wall_seconds(100.0, 0.0, 4, 1) == pytest.approx(100.0)  # one work unit
    assert cost.wall_seconds(100.0, 0.0, -1, 100) <= 100.0
    assert [cost.format_duration(x) for x in (0.2, 45, 600, 3 * 3600)] == [
        "1 s", "45 s", "10 min", "3.0 h"]


def test_the_speed_table_is_the_committed_benchmark():
    df = pd.read_csv(ROOT / cost.SPEED_SOURCE)
    assert cost.seat_rates_from_table(df) == cost.SEAT_GAMES_PER_S


def test_paired_gain_is_over_deals():
    b = _bench()
    base = np.zeros((4, 5))
    agent = np.tile(np.array([1.0, 0.0, 1.0, 0.0, 1.0]), (4, 1))
    g, lo, hi, p = b.paired_gain(agent, base)
    assert g == pytest.approx(0.6) and lo < 0.6 < hi and 0 < p < 1
    assert b.paired_gain(base, base) == (0.0, 0.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="same shape"):
        b.paired_gain(agent, base[:, :3])


def test_the_benchmark_runs_small(tmp_path):
    out = tmp_path / "s.csv"
    assert _bench().main(["--games", "rats,river_rats", "--agents", "random,heuristic,pimc-fast",
                          "--deals", "3", "--fast-deals", "4", "--min-seconds", "0.01",
                          "--jobs", "1", "--out", str(out)]) == 0
    df = pd.read_csv(out)
    assert list(df.columns) == list(_bench().COLUMNS)
    assert len(df) == 6 and set(df.game) == {"rats", "river_rats"}
    h = df[df.agent == "heuristic"]
    assert (h.gain == 0).all() and (h.gain_low == 0).all()
    assert df.set_index(["game", "agent"]).loc[("rats", "pimc-fast"), "deals"] == 3
    assert (df.all_seats_games_per_s > 0).all() and (df.one_seat_games_per_s > 0).all()


def test_the_picture_labels_every_point_without_overlaps():
    import matplotlib

    matplotlib.use("Agg")
    from experiments.tournament.plots import plot_strength_speed

    df = pd.read_csv(ROOT / cost.SPEED_SOURCE)
    games = ["lure", "rats", "recurring"]
    fig = plot_strength_speed(df, games=games)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    for ax, game in zip(fig.axes, games, strict=True):
        labels = ax.strength_speed_labels
        assert [t.get_text() for t in labels] == list(
            df[df.game == game].sort_values("all_seats_games_per_s").agent)
        boxes = [t.get_window_extent(r) for t in labels]
        frame = ax.get_window_extent(r)
        for i, a in enumerate(boxes):
            assert frame.x0 <= a.x0 and a.x1 <= frame.x1 and frame.y0 <= a.y0 \
                and a.y1 <= frame.y1, (game, labels[i].get_text())
            for b in boxes[i + 1:]:
                assert not a.overlaps(b), (game, labels[i].get_text())
        pts = ax.transData.transform(np.column_stack(
            [df[df.game == game].sort_values("all_seats_games_per_s").all_seats_games_per_s,
             df[df.game == game].sort_values("all_seats_games_per_s").gain]))
        for a in boxes:  # no label covers a point
            assert not any(a.x0 <= x <= a.x1 and a.y0 <= y <= a.y1 for x, y in pts)
        assert "which bot for which budget?" in ax.get_title()
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_a_game_without_measured_speeds_keeps_the_nominal_sizes(tmp_path, capsys):
    from experiments.cli import main

    t = _tour("kuhn_poker", "random,pimc-fast", 2)
    s = cost.tournament_defaults(t)
    assert np.isnan(cost.deal_seconds(t)) and s.deals == cost.DEFAULT_DEALS
    assert s.note() == "1000 deals"
    assert main(["tournament", "kuhn-poker", "--agents", "random,pimc-fast", "--games", "4",
                 "--quiet", "--out", str(tmp_path / "k")]) == 0
    assert cost.NO_ESTIMATE in capsys.readouterr().out.splitlines()[0]
