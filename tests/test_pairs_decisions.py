"""experiments.pairs.decisions: where a strong agent decides differently from a reference, and
where the games of a pair are lost (rules, "End of the game": a win defeats both Rats)."""

import numpy as np
import pandas as pd
import pytest

from agents.loop import play_batch, play_stepwise
from engines.protocol import chance
from engines.river_rats import RiverRatsConfig
from experiments.cli import main
from experiments.pairs.decisions import (
    KIND_LABELS,
    decision_differences,
    loss_stages,
    summarize_decisions,
)


def test_same_randomized_agent_as_reference_never_differs():
    # random draws from the seat's stream: the reference's draw must not shift the agent's
    d = decision_differences("random", "random", players=(1, 3), n_games=6, seed=5)
    assert len(d) > 100 and not d["changed"].any()
    assert set(d["players"]) == {1, 3} and (d["n_legal"] >= 2).all()


def test_the_agent_plays_the_batch_simulators_games_and_the_reference_only_watches():
    d = decision_differences("heuristic", "random", players=2, n_games=4, seed=11)
    words = chance.game_seeds(chance.as_word(11), 4)
    cfg = RiverRatsConfig(n_players=2)
    for g in range(4):
        st = play_stepwise(cfg, "heuristic", chance.word_to_seed(words[g]))
        replay = type(st)(cfg, st.seed)
        contested = 0
        for a in st.history:
            contested += len(replay.legal_actions()) > 1
            replay.apply_action(a)
        assert (d["game"] == g).sum() == contested
    assert d["changed"].mean() > 0.3  # random differs from heuristic most of the time
    assert set(d["kind"]) | set(d["reference_kind"]) <= set(KIND_LABELS.values())
    same_kind = d[d["changed"] & (d["kind"] == d["reference_kind"])]
    assert same_kind["rank_change"].notna().any()


def test_summary_shares_add_up():
    d = pd.DataFrame({"phase": ["play"] * 4 + ["draw"] * 2,
                      "kind": ["play a card"] * 4 + ["draw from the deck"] * 2,
                      "reference_kind": ["play a card"] * 4 + ["draw from the market"] * 2,
                      "changed": [True, True, False, False, True, False],
                      "rank_change": [2.0, -1.0, np.nan, np.nan, np.nan, np.nan]})
    s = summarize_decisions(d).set_index("phase")
    assert s.loc["play", "changed_share"] == 0.5 and s.loc["draw", "changed_share"] == 0.5
    assert s["share_of_changes"].sum() == pytest.approx(1.0)
    assert s.loc["play", "share_of_changes"] == pytest.approx(2 / 3)
    assert s.loc["draw", "other_kind_share"] == 1.0 and s.loc["play", "other_kind_share"] == 0
    assert s.loc["play", "higher_card_share"] == 0.5
    assert s.loc["draw", "top_change"] == "draw from the market → draw from the deck (1)"


def test_loss_stages_match_the_games_outcomes():
    df = play_batch(RiverRatsConfig(n_players=3, rats=("C", "S")), "heuristic", 400, seed=3)
    lost = df["won"] == 0
    assert (df.loc[~lost, "rats_defeated"] == 2).all()
    table = pd.DataFrame({"win_rate": [df["won"].mean()],
                          "mean_rats_defeated": [df["rats_defeated"].mean()]})
    st = loss_stages(table).iloc[0]
    assert st.lost_on_second == pytest.approx((lost & (df["rats_defeated"] == 1)).mean())
    assert st.lost_on_first == pytest.approx((lost & (df["rats_defeated"] == 0)).mean())
    assert st.lost_on_first + st.lost_on_second + st.win_rate == pytest.approx(1.0)
    with pytest.raises(ValueError, match="inconsistent"):
        loss_stages(pd.DataFrame({"win_rate": [0.5], "mean_rats_defeated": [0.4]}))


@pytest.mark.parametrize("argv, bad", [
    (["--rats", "DD"], "--rats 'DD'"), (["--rats", "XY"], "--rats 'XY'"),
    (["--games", "0"], "--games 0"), (["--players", "5"], "--players 5"),
    (["--agent", "nobody"], "nobody"), (["--seed", "-3"], "--seed -3"),
])
def test_cli_bad_options_are_one_line(argv, bad, capsys, tmp_path):
    out = tmp_path / "d.csv"
    assert main(["river-rats", "decisions", "--quiet", "--out", str(out), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and bad in err and not out.exists()


def test_cli_prints_the_phases_and_writes_the_decisions(capsys, tmp_path):
    out = tmp_path / "d.csv"
    assert main(["river-rats", "decisions", "--agent", "greedy", "--games", "3", "--players",
                 "2", "--rats", "ds", "--quiet", "--out", str(out), "--decisions",
                 str(tmp_path / "all.csv")]) == 0
    text = capsys.readouterr().out
    assert "2 player(s): 3 games by greedy" in text and "draw" in text
    summary = pd.read_csv(out)
    assert {"draw", "play"} <= set(summary["phase"]) and (summary["players"] == 2).all()
    assert len(pd.read_csv(tmp_path / "all.csv")) == summary["decisions"].sum() > 20
