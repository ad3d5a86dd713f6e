"""The main job, ``boardlab river-rats pairs`` (experiments.pairs.job, experiments.cli.pairs)."""

import json

import numpy as np
import pandas as pd
import pytest

from experiments.cli import main
from experiments.cli.pairs import river_rats_players
from experiments.pairs.job import (
    PAIRS,
    UNORDERED,
    PairsSpec,
    play_pair_batch,
    run_pairs,
    unordered_table,
)
from experiments.runner import batch_seed


def test_twelve_ordered_and_six_unordered_pairs():
    assert len(PAIRS) == 12 and len(set(PAIRS)) == 12
    assert all(p[0] != p[1] for p in PAIRS)
    assert len(UNORDERED) == 6


def test_cells_cover_every_pair_and_player_count_with_its_rats_fixed():
    cells = PairsSpec(players=(1, 3), agents="random", games=10).cells()
    assert len(cells) == 24
    assert {(c["players"], c["pair"]) for c in cells} == {(n, p) for n in (1, 3) for p in PAIRS}
    for c in cells:
        assert c["config"]["rats"] == [c["pair"][0], c["pair"][1]]
        assert len(c["agents"]) == c["players"]


@pytest.mark.parametrize(
    "spec, message",
    [
        (PairsSpec(players=(5,), agents="random"), "player count 5"),
        (PairsSpec(players=(2,), agents="nobody"), "nobody"),
        (PairsSpec(players=(1, 2), agents=["random", "greedy"]),
         "2 names but 1 seat at --players 1"),
        (PairsSpec(players=(2,), agents="random", rules={"rats": ("C", "D")}), "may not set"),
        (PairsSpec(players=(2,), agents="random", rules={"difficulty": "hard"}), "difficulty"),
    ],
)
def test_bad_specs_raise_naming_the_problem(spec, message):
    with pytest.raises(ValueError, match=message):
        spec.cells()


def test_a_list_of_agents_is_dealt_round_the_table_at_every_player_count():
    # issue 12.9: one documented rule for every player count, nothing dropped silently
    cells = PairsSpec(players=(2, 3, 4), agents=["heuristic", "greedy"]).cells()
    by_n = {c["players"]: c["agents"] for c in cells}
    assert by_n == {2: ["heuristic", "greedy"], 3: ["heuristic", "greedy", "heuristic"],
                    4: ["heuristic", "greedy", "heuristic", "greedy"]}


def test_batch_function_counts_only_its_pair():
    cell = PairsSpec(players=(2,), agents="random").cells()[0]
    out = play_pair_batch(cell, 300, batch_seed(1, 0))
    assert out["games"] == 300 and 0 <= out["wins"] <= 300
    assert out["rounds"] > 0


def test_same_table_for_one_and_two_workers(tmp_path):
    spec = PairsSpec(players=(1, 4), agents="random", games=600, seed=3)
    one, _ = run_pairs(spec, n_jobs=1, batch_size=250, progress=False)
    two, _ = run_pairs(spec, n_jobs=2, batch_size=250, progress=False, out_dir=tmp_path)
    pd.testing.assert_frame_equal(one, two)
    assert (one["games"] == 600).all()
    assert ((one["ci_low"] <= one["win_rate"]) & (one["win_rate"] <= one["ci_high"])).all()


def test_unordered_table_weights_both_orders_equally():
    from experiments.stats import wilson_interval

    rows = [{"players": 2, "pair": p, "games": 100 * (1 + i % 2), "wins": 10 + i}
            for i, p in enumerate(PAIRS)]
    df = pd.DataFrame(rows)
    df["win_rate"] = df["wins"] / df["games"]
    df["ci_low"], df["ci_high"] = wilson_interval(df["wins"], df["games"])
    u = unordered_table(df)
    assert len(u) == 6
    cd = u.set_index("unordered").loc["CD"]
    rates = df.set_index("pair")["win_rate"]
    assert np.isclose(cd["win_rate"], (rates["CD"] + rates["DC"]) / 2)
    assert cd["games"] == df.set_index("pair").loc[["CD", "DC"], "games"].sum()
    assert cd["ci_low"] < cd["win_rate"] < cd["ci_high"]
    # narrower than either order's own interval, wider than zero
    width = df.set_index("pair").eval("ci_high - ci_low")
    assert 0 < cd["ci_high"] - cd["ci_low"] < min(width["CD"], width["DC"])


def test_players_option_accepts_ranges_and_lists():
    assert river_rats_players(["1..4"]) == [1, 2, 3, 4]
    assert river_rats_players(["2", "4"]) == [2, 4]
    assert river_rats_players(["1-2,4"]) == [1, 2, 4]
    with pytest.raises(ValueError, match="--players 5"):
        river_rats_players(["5"])


def test_command_writes_tables_plots_and_metadata(tmp_path, capsys):
    out = tmp_path / "pairs"
    rc = main(["river-rats", "pairs", "--players", "2", "--agents", "random", "--games", "400",
               "--batch-size", "200", "--seed", "9", "--out", str(out), "--quiet"])
    assert rc == 0
    for name in ("pairs.csv", "pairs.parquet", "unordered_pairs.csv", "heatmap.png",
                 "unordered_pairs.png", "metadata.json"):
        assert (out / name).stat().st_size > 0, name
    df = pd.read_csv(out / "pairs.csv")
    assert len(df) == 12 and set(df["pair"]) == set(PAIRS)
    assert {"win_rate", "ci_low", "ci_high", "mean_rounds", "mean_hands_won",
            "mean_hands_lost", "mean_rats_defeated", "other_loss_share",
            "mean_jokers_earned"} <= set(df.columns)
    assert "debt_loss_share" not in df.columns  # it was 1 - win rate by the rules
    # by the rules every loss is on the players' debt unless the game stalls, runs out of
    # cards under empty_draw="lose" or hits its length limit: none at the default rules
    assert (df["other_loss_share"] == 0).all()
    assert (df["mean_rats_defeated"] >= 2 * df["win_rate"]).all()
    assert (df["mean_rats_defeated"] <= 2).all()
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["seed"] == 9 and meta["games_total"] == 12 * 400
    assert meta["machine"]["cpu_count"] >= 1 and "code_version" in meta
    assert meta["backend"] == "loky" and "wall_time_s" in meta
    assert np.isclose(pd.read_parquet(out / "pairs.parquet")["win_rate"], df["win_rate"]).all()
    # the same command again answers from the finished run: nothing is replayed, same table
    rc = main(["river-rats", "pairs", "--players", "2", "--agents", "random", "--games", "400",
               "--batch-size", "200", "--seed", "9", "--out", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    assert "nothing was played" in text and "♦K" in text
    pd.testing.assert_frame_equal(pd.read_csv(out / "pairs.csv"), df)


def test_table_explains_its_columns_and_the_heatmap_title_is_plain_text(tmp_path):
    from experiments.pairs.job import ROUNDS_NOTE, PairsSpec, format_table, run_pairs
    from experiments.pairs.plots import heatmap_figure

    table, _ = run_pairs(PairsSpec(players=[1], agents="heuristic", games=40), batch_size=40,
                         progress=False)
    text = format_table(table)
    assert "debt loss" not in text and "Rats beaten" in text and ROUNDS_NOTE in text
    assert "collective hands played per game" in ROUNDS_NOTE
    fig = heatmap_figure(table)
    assert "`" not in fig._suptitle.get_text()
    assert "heuristic in every seat" in fig._suptitle.get_text()
