"""Duplicate-format tournaments (experiments.tournament): seating, the deal depends only on the
seed, per-deal sums against a plain reference, worker-count independence, resume, statistics
and outputs, for all four games, and bad input."""

import itertools
import json

import numpy as np
import pandas as pd
import pytest

from experiments.runner import batch_seed
from experiments.tournament.run import (
    Tournament,
    make_tables,
    play_deals,
    run_tournament,
    seatings,
)
from experiments.tournament.games import WIN_UNITS, AgentRef, get_adapter, parse_agents

GAMES = ["rats", "recurring", "lure", "river_rats"]


# ---- seating --------------------------------------------------------------------------------
@pytest.mark.parametrize("k, n", [(3, 2), (4, 4), (5, 3), (3, 4), (2, 5), (6, 4)])
def test_every_agent_holds_every_seat_equally_often(k, n):
    """Duplicate format: over all tables and rotations each agent sits in each seat the same
    number of times, so seat order cancels."""
    counts = np.zeros((k, n), dtype=int)
    for t in make_tables(k, n, cooperative=False):
        for lineup in seatings(t, False):
            for seat, a in enumerate(lineup):
                counts[a, seat] += 1
    assert (counts == counts[0, 0]).all()


def test_tables_round_robin_and_cooperative_teams():
    assert make_tables(4, 2, False) == list(itertools.combinations(range(4), 2))
    assert make_tables(2, 3, False) == [(0, 1, 0), (1, 0, 1)]
    assert make_tables(3, 4, True) == [(0,) * 4, (1,) * 4, (2,) * 4]
    assert seatings((0, 1, 2), False) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    with pytest.raises(ValueError, match="at least 2"):
        make_tables(1, 4, False)


# ---- the deal depends only on the seed --------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_copies_of_a_deterministic_agent_tie_exactly(game):
    """Two labels of the same deterministic policy: every rotation replays the same deals, so
    their totals are exactly equal and the paired test sees no difference."""
    ad = get_adapter(game)
    det = {"rats": "greedy", "recurring": "greedy", "lure": "greedy", "river_rats": "heuristic"}
    a = det[game]
    r = run_tournament(game, f"{a}@one,{a}@two,random", 4, 12, batch_size=5, rating_deals=0,
                       save=False)
    s = r.sums
    assert s["w_sum"][0] == s["w_sum"][1] and s["s_sum"][0] == s["s_sum"][1]
    assert s["dw_pos"][0][1] == 0 and s["dw_neg"][0][1] == 0
    row = r.pairwise.query("agent == 'one' and opponent == 'two'").iloc[0]
    assert row.ahead == 0.5 and row.p_t == 1.0 and row.verdict == "no difference shown"
    # and the copies beat random (a check that the statistics see real differences)
    assert r.agents.loc["one", "win_rate"] > r.agents.loc["random", "win_rate"]
    assert r.meta["cooperative"] == ad.cooperative


def test_recurring_deals_do_not_depend_on_the_line_up():
    """The holder of the 1 (dealt cards) of game i is the same whoever sits where."""
    from agents.loop import play_batch
    from engines.recurring import RecurringConfig

    cfg = RecurringConfig(n_players=4)
    a = play_batch(cfg, ["random", "greedy", "heuristic", "random"], 30, seed=123)
    b = play_batch(cfg, ["heuristic", "heuristic", "greedy", "greedy"], 30, seed=123)
    c = play_batch(cfg, ["heuristic", "heuristic", "greedy", "greedy"], 30, seed=124)
    assert (a.start_player == b.start_player).all()
    assert not (a.start_player == c.start_player).all()


def test_river_rats_deals_do_not_depend_on_the_team():
    from agents.loop import play_batch

    a = play_batch(None, "random", 40, seed=77, game="river_rats")
    b = play_batch(None, "heuristic", 40, seed=77, game="river_rats")
    assert (a.rat_pair == b.rat_pair).all() and (a.seed == b.seed).all()


@pytest.mark.parametrize("game", GAMES)
def test_adapter_equals_step_api_replay(game):
    """Game i of the adapter's seed word is the step-API game with seed game_seed(word, i)
    driven by the same agents (so the deal is fixed by the word), for every game."""
    from agents.loop import play_stepwise
    from engines.protocol import chance

    ad = get_adapter(game)
    n = 3
    cfg = ad.config(n)
    seats = [ad.resolve(AgentRef(x, x)) for x in ("heuristic", "random", "greedy")]
    if ad.cooperative:
        seats = [seats[0]] * n
    g_per = ad.games_per_deal(cfg)
    out = ad.play(cfg, seats, 2, 99)
    for i in range(2):
        ret = np.zeros(n)
        for j in range(g_per):
            seed = chance.word_to_seed(chance.game_seed(chance.as_word(99), i * g_per + j))
            st = play_stepwise(cfg, [s.base for s in seats], seed)
            ret += st.returns()
        if game == "recurring":
            assert np.allclose(ret, out.score[i])
        elif game == "river_rats":
            assert (ret[0] > 0) == (out.win[i, 0] == 1)
        else:
            assert np.allclose(ret, out.win[i])


# ---- sums against a plain reference -----------------------------------------------------------
def test_play_deals_sums_match_a_plain_reference():
    ad = get_adapter("rats")
    refs = [ad.resolve(AgentRef(n, n)) for n in ("greedy", "heuristic", "random")]
    tour = Tournament("rats", 2, refs)
    seed = batch_seed(5, 0)
    sums = play_deals(tour.cell(), 15, seed)
    word = int(seed.generate_state(1, np.uint64)[0] >> np.uint64(1))
    cfg = ad.config(2)
    w = np.zeros((3, 15))
    h = np.zeros((3, 3))
    games = 0
    for t in tour.tables:
        for r in range(2):
            lineup = (t[r % 2], t[(r + 1) % 2])
            out = ad.play(cfg, [refs[a] for a in lineup], 15, word)
            games += 15
            for p, a in enumerate(lineup):
                w[a] += out.win[:, p] * WIN_UNITS
            a, b = lineup
            for i in range(15):
                k0, k1 = out.key[i]
                h[a, b] += 2 if k0 > k1 else (1 if k0 == k1 else 0)
                h[b, a] += 2 if k1 > k0 else (1 if k0 == k1 else 0)
    assert sums["games"] == 15 and sums["played"] == games
    assert sums["w_sum"].tolist() == w.sum(1).tolist()
    assert sums["w_sq"].tolist() == (w * w).sum(1).tolist()
    assert sums["h_sum"].tolist() == h.tolist()
    d = w[0] - w[1]
    assert sums["dw_sq"][0, 1] == (d * d).sum() and sums["dw_pos"][0, 1] == (d > 0).sum()
    # 2 players, 3 agents: each plays 2 tables x 2 rotations per deal
    assert tour.games_per_deal().tolist() == [4, 4, 4]


def test_river_rats_team_results_are_play_batch_on_the_same_seeds():
    from agents.loop import play_batch

    r = run_tournament("river_rats", "heuristic,greedy", 2, 30, batch_size=30, seed=3,
                       rating_deals=0, save=False)
    word = int(batch_seed(3, 0).generate_state(1, np.uint64)[0] >> np.uint64(1))
    for i, name in enumerate(("heuristic", "greedy")):
        df = play_batch({"n_players": 2}, name, 30, seed=word, game="river_rats")
        assert r.sums["w_sum"][i] == WIN_UNITS * int(df.won.sum())
        assert r.agents.loc[name, "win_rate"] == pytest.approx(df.won.mean())


# ---- runner: workers, resume, outputs ---------------------------------------------------------
def test_same_results_for_one_or_two_workers_and_resume(tmp_path):
    kw = dict(n_players=3, n_deals=40, batch_size=10, seed=8, rating_deals=10)
    one = run_tournament("recurring", "greedy,heuristic,random", out_dir=tmp_path / "a", **kw)
    two = run_tournament("recurring", "greedy,heuristic,random", n_jobs=2, save=False, **kw)
    assert one.sums == two.sums
    pd.testing.assert_frame_equal(one.agents, two.agents)
    again = run_tournament("recurring", "greedy,heuristic,random", out_dir=tmp_path / "a", **kw)
    assert again.meta["games_played_this_run"] == 0 and again.sums == one.sums
    other = run_tournament("recurring", "greedy,heuristic,random", save=False,
                           **{**kw, "seed": 9})
    assert other.sums != one.sums


def test_outputs_written(tmp_path):
    r = run_tournament("lure", "greedy,heuristic,random", 3, 10, batch_size=5, rating_deals=4,
                       out_dir=tmp_path)
    for name in ("agents.csv", "pairwise.csv", "matrix.csv", "seats.csv", "meta.json",
                 "agents.png", "pairwise.png"):
        assert (tmp_path / name).stat().st_size > 0, name
    assert not (tmp_path / "_partial").exists()  # a finished run keeps only its results
    meta = json.loads((tmp_path / "meta.json").read_text())
    assert meta["deals"] == 10 and meta["games_played"] == 10 * 1 * 3
    assert meta["config"]["n_players"] == 3 and meta["seed"] == 0 and "code_version" in meta
    agents = pd.read_csv(tmp_path / "agents.csv", index_col="agent")
    assert set(agents.index) == {"greedy", "heuristic", "random"}
    assert {"win_rate", "win_low", "win_high", "mu", "sigma"} <= set(agents.columns)
    assert (agents.win_low <= agents.win_rate).all() and (agents.win_rate <= agents.win_high).all()
    m = pd.read_csv(tmp_path / "matrix.csv", index_col="agent")
    off = ~np.eye(3, dtype=bool)
    # ahead(A, B) + ahead(B, A) = 1 for every pair
    assert np.allclose((m.to_numpy() + m.to_numpy().T)[off], 1.0)
    assert r.meta["rating_deals"] == 4
    assert r.agents.rating_games.tolist() == [12, 12, 12]  # 1 table x 3 rotations x 4 deals


def test_stronger_agent_is_significantly_better_and_rated_higher():
    r = run_tournament("rats", "heuristic,random", 2, 40, batch_size=20, rating_deals=40,
                       save=False)
    row = r.pairwise.query("agent == 'heuristic'").iloc[0]
    assert row.verdict == "better" and row.p_holm < 1e-2 and row.ahead > 0.65
    assert r.agents.loc["heuristic", "mu"] > r.agents.loc["random", "mu"] + 5
    assert r.agents.loc["heuristic", "rank"] == 1
    # seats: duplicate format played every seat equally
    assert r.seats.deals.tolist() == [80, 80]


# ---- agents text and bad input ----------------------------------------------------------------
def test_parse_agents_grammar():
    ad = get_adapter("rats")
    refs = parse_agents("greedy,heuristic:win_bias=2;joker_value=10@eager,heuristic", ad)
    assert [r.label for r in refs] == ["greedy", "eager", "heuristic"]
    eager = np.array(refs[1].params)
    default = np.array(refs[2].params)
    assert eager[4] == 2 and eager[7] == 10 and np.array_equal(eager[:4], default[:4])
    full = parse_agents("heuristic:1;2;3;4;5;6;7;8@v", ad)[0]
    assert full.params == (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0)


@pytest.mark.parametrize("agents, message", [
    ("greedy,nonesuch", "unknown Rats agent 'nonesuch'"),
    ("greedy,heuristic:1;2", "expected 8"),
    ("greedy,heuristic:bogus=1", "unknown parameter 'bogus'"),
    ("greedy,heuristic:win_bias=x", "not a number"),
    ("greedy,greedy", "given twice"),
    ("", "empty"),
])
def test_bad_agents_are_rejected(agents, message):
    with pytest.raises(ValueError, match=message):
        run_tournament("rats", agents, 4, 10, save=False)


def test_bad_sizes_and_options_are_rejected():
    with pytest.raises(ValueError, match="n_deals 1"):
        run_tournament("rats", "greedy,random", 4, 1, save=False)
    with pytest.raises(ValueError, match="2..5 players"):
        run_tournament("rats", "greedy,random", 7, 10, save=False)
    with pytest.raises(ValueError, match="unknown Rats option"):
        run_tournament("rats", "greedy,random", 4, 10, options={"colour": 1}, save=False)
    with pytest.raises(ValueError, match="unknown game"):
        run_tournament("chess", "a,b", 2, 10, save=False)
    with pytest.raises(ValueError, match="caution"):
        run_tournament("lure", "greedy,heuristic:caution=3", 4, 10, save=False)


def test_recurring_match_length_option_sets_the_deal():
    """A ReCURRRing deal is one match of games_per_match games (rules "Scoring")."""
    r = run_tournament("recurring", "greedy,random", 3, 4, options={"games_per_match": 2},
                       rating_deals=0, save=False)
    # 2 agents at 3 seats: tables A B A and B A B, 3 rotations each, 2 games per match
    assert r.meta["games_per_deal"] == 2 and r.meta["games_played"] == 4 * 6 * 2
    assert "x 2 games per match" in r.summary()
    assert "(2 tables x 3 rotations x 2 games per match)" in r.summary()
    # the runs history counts games (4 deals of 12 games), and keeps the deals
    run = r.meta["runs"][-1]
    assert (run["games_played"], run["deals_played"]) == (48, 4)


def test_committed_results_hold_no_runner_state():
    """Issue 12.2: a README command whose default folder holds committed tables must run as
    shown, so no runner state (which would tie the folder to old code) is committed."""
    import shutil
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    if shutil.which("git") is None or not (root / ".git").exists():
        pytest.skip("not a git checkout")
    files = subprocess.run(["git", "ls-files", "results"], cwd=root, capture_output=True,
                           text=True, check=True).stdout.split()
    assert files and not [f for f in files if f.endswith("state.json")]


def test_default_folder_names_the_rules_options():
    """Tournaments under other rules options get folders of their own; without options the
    name is the committed results' (agents only)."""
    from pathlib import Path

    from experiments.outputs import tournament_out_dir

    plain = tournament_out_dir("rats", 4, ["random", "greedy", "heuristic"])
    assert plain == Path("results/rats/tournaments/4p_random-greedy-heuristic")
    assert plain.is_dir()  # the committed tournament
    expert = tournament_out_dir("river-rats", 4, ["greedy", "heuristic", "peek"],
                                options={"difficulty": "expert"})
    assert expert.name == "4p_greedy-heuristic-peek_difficulty_expert"
    assert tournament_out_dir("rats", 4, ["a", "b"], options={"x": 1, "a": True}).name \
        == "4p_a-b_a_True_x_1"


def test_kuhn_poker_ranks_by_chips_its_utility():
    # random wins more hands than heuristic (it calls where heuristic folds) but loses chips:
    # Kuhn poker's utility is chips (zero-sum), so heuristic ranks above random
    r = run_tournament("kuhn_poker", "random,heuristic", 2, 2000, batch_size=500,
                       rating_deals=400, save=False)
    a = r.agents
    assert a.loc["heuristic", "score"] > a.loc["random", "score"]
    assert a.loc["heuristic", "win_rate"] < a.loc["random", "win_rate"]
    assert a.loc["heuristic", "rank"] == 1 and a.loc["random", "rank"] == 2
    row = r.pairwise.query("agent == 'heuristic'").iloc[0]
    assert row.verdict == "better" and row.score_diff > 0 and row.p_holm < 1e-6
    assert a.loc["heuristic", "mu"] > a.loc["random", "mu"]  # rated on chips too
    text = r.summary()
    assert "ranked by chips per game" in text and "heuristic > random: chips" in text
    assert text.index("heuristic") < text.index("random")
    assert r.meta["ranked_by"] == "chips"


def test_win_share_games_still_rank_by_win_rate():
    r = run_tournament("lure", "random,heuristic", 2, 20, batch_size=10, rating_deals=0,
                       save=False)
    assert r.meta["ranked_by"] == "win rate" and "ranked by win rate" in r.summary()
    assert (r.agents["rank"] == r.agents["win_rate"].rank(ascending=False, method="min")).all()
