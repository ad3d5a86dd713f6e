"""The optuna tuner (experiments.tournament.tune): the field's line-ups, every trial on the same
deals, the search space and its rules, a tiny study that improves and saves a loadable agent,
same seed -> same trials, a killed study resumed to the same result, settings checks, one-line
errors, and the command line."""

import json

from pathlib import Path

import numpy as np
import optuna
import pandas as pd
import pytest

import experiments.tournament.tune as T
from experiments.cli import main
from experiments.tournament.games import AgentRef, get_adapter
from experiments.tournament.run import run_tournament
from experiments.tournament.tune import (
    evaluate,
    field_tables,
    parse_bounds,
    search_space,
    tune,
)

TRIAL_COLUMNS = ["number", "role", "objective", "objective_se", "best_so_far"]


def _trials(r) -> pd.DataFrame:
    """A study's trials without the timings (which differ from run to run)."""
    return r.trials.drop(columns=["eval_s"])


# ---- the objective ------------------------------------------------------------------------
def test_field_tables():
    assert field_tables(3, 3, False) == [(0, 1, 2), (0, 1, 3), (0, 2, 3)]
    assert field_tables(1, 4, False) == [(0, 1, 1, 1)]
    assert field_tables(2, 4, False) == [(0, 1, 2, 1)]
    assert field_tables(0, 4, True) == [(0, 0, 0, 0)]
    with pytest.raises(ValueError, match="field is empty"):
        field_tables(0, 3, False)


def test_candidates_share_their_deals():
    """Equal vectors get exactly equal objectives (common random numbers)."""
    ad = get_adapter("recurring")
    field = [ad.resolve(AgentRef("greedy", "greedy"))]
    x = ad.registry_params("heuristic")
    y = x.copy()
    y[6] = 5.0  # pass a lot
    obj = evaluate("recurring", "heuristic", [x, y, x], field, 3, 20, seed=1, batch_size=10)
    assert obj[0] == obj[2] and obj[0] != obj[1]


# ---- the search space ---------------------------------------------------------------------
def test_search_space_of_a_heuristic_family_uses_the_games_bounds():
    ad = get_adapter("recurring")
    x0 = ad.registry_params("heuristic")
    sp = search_space("recurring", "heuristic", x0)
    assert [p.name for p in sp] == list(ad.param_names)
    assert [(p.low, p.high) for p in sp] == [tuple(map(float, b)) for b in ad.param_bounds]
    assert not any(p.integer for p in sp) and {p.source for p in sp} == {"game"}
    # a start outside the family's bounds (a saved agent) widens them to contain it
    x1 = x0.copy()
    x1[0] = -12.5
    assert search_space("recurring", "heuristic", x1)[0].low == -12.5
    # another preset of the family (Lure's greedy) gets the same bounds, its weights stay real
    lure = get_adapter("lure")
    sp = search_space("lure", "greedy", lure.registry_params("greedy"))
    assert [(p.low, p.high) for p in sp] == [tuple(map(float, b)) for b in lure.param_bounds]
    assert not any(p.integer for p in sp)


def test_search_space_of_a_search_agent():
    ad = get_adapter("rats")
    x0 = ad.registry_params("ismcts")
    sp = {p.name: p for p in search_space("rats", "ismcts", x0)}
    # default: the exploration constant and the named, non-zero leaf-value weights
    assert list(sp) == ["exploration", "win", "alive", "captured_this_round", "captured_card",
                        "holding_card", "hand_card"]
    assert (sp["win"].low, sp["win"].high, sp["win"].source) == (2.5, 40.0, "rule")
    assert "exploration" not in {p.name for p in search_space("rats", "pimc",
                                                              ad.registry_params("pimc"))}
    named = {p.name: p for p in search_space(
        "rats", "ismcts", x0, "simulations,rollout_joker_value,exploration")}
    sims = named["simulations"]
    assert sims.integer and (sims.low, sims.high, sims.start) == (100, 1600, 400)
    assert isinstance(sims.distribution(), optuna.distributions.IntDistribution)
    # the rollout policy's parameters get the heuristic family's bounds
    assert (named["rollout_joker_value"].low, named["rollout_joker_value"].high) == (0.0, 20.0)
    # integers only when the bounds are integral; bounds add a parameter to the default set
    assert not search_space("rats", "ismcts", x0, "simulations",
                            {"simulations": (100, 800.5)})[0].integer
    sp = search_space("rats", "ismcts", x0, None, {"horizon": (0, 2)})
    assert sp[0].name == "horizon" and sp[0].integer and sp[0].source == "user"


@pytest.mark.parametrize("kw, match", [
    (dict(tune_params="nope"), "unknown parameter 'nope' of Rats ismcts"),
    (dict(tune_params="peek"), "'peek' of Rats ismcts is structural"),
    (dict(tune_params="win,win"), "named twice"),
    (dict(tune_params="value_9"), r"default 0 .* --bounds value_9=LO:HI"),
    (dict(bounds={"win": (5.0, 5.0)}), "expected finite LO < HI"),
    (dict(bounds={"win": (1.0, float("inf"))}), "expected finite LO < HI"),
    (dict(bounds={"win": (20.0, 30.0)}), "exclude its starting value 10"),
    (dict(bounds={"nope": (0, 1)}), "--bounds names unknown parameter 'nope'"),
    (dict(tune_params="win", bounds={"alive": (1, 4)}), "which --params does not tune"),
])
def test_bad_parameters_and_bounds_are_one_line_errors(kw, match):
    x0 = get_adapter("rats").registry_params("ismcts")
    with pytest.raises(ValueError, match=match) as e:
        search_space("rats", "ismcts", x0, kw.get("tune_params"), kw.get("bounds"))
    assert "\n" not in str(e.value)


def test_parse_bounds():
    assert parse_bounds("pass_bias=-8:0, empties=2:6.5") == {"pass_bias": (-8.0, 0.0),
                                                              "empties": (2.0, 6.5)}
    assert parse_bounds(None) == {}
    for bad in ("pass_bias=3", "pass_bias:1:2", "=1:2", "a=x:2", "a=1:2,a=2:3"):
        with pytest.raises(ValueError, match="--bounds"):
            parse_bounds(bad)


@pytest.mark.parametrize("kw, match", [
    (dict(agent="greedy", game="rats"), "no tunable parameters"),
    (dict(tune_params=["nope"]), "unknown parameter 'nope'"),
    (dict(sampler="grid"), "sampler 'grid' .*expected one of tpe, cmaes, random"),
    (dict(n_trials=0), r"n_trials \(--trials\) 0"),
    (dict(n_deals=1), r"n_deals \(--games\) 1"),
    (dict(n_deals=3.0), r"n_deals \(--games\) 3.0"),
    (dict(validate_deals=1), "validate_deals"),
    (dict(bounds={"pass_bias": (0, 5)}), "exclude its starting value"),
    (dict(field_agents="nobody"), r"field \(--field\): unknown ReCURRRing agent 'nobody'"),
    (dict(n_players=9), "ReCURRRing is played by 3..5 players"),
    (dict(name="a/b"), r"name 'a/b' \(--name\)"),
    (dict(agent="nobody"), "unknown ReCURRRing agent 'nobody'"),
])
def test_tune_rejects_bad_input_and_writes_nothing(tmp_path, kw, match):
    kw = dict(game="recurring", agent="heuristic", n_deals=4, n_trials=2, validate_deals=0,
              progress=False, agents_root=tmp_path) | kw
    with pytest.raises(ValueError, match=match) as e:
        tune(kw.pop("game"), kw.pop("agent"), **kw)
    assert "\n" not in str(e.value)
    assert not any(tmp_path.iterdir())


# ---- studies ------------------------------------------------------------------------------
def test_tiny_study_improves_and_saves_a_loadable_agent(tmp_path):
    """From a poor start (pass whenever allowed) a few trials on one parameter find a better
    vector; the outputs are written, the agent is saved and usable by name, and the check on
    fresh deals confirms the gain."""
    ad = get_adapter("recurring")
    bad = ad.registry_params("heuristic")
    bad[6] = 8.0  # pass_bias
    r = tune("recurring", "heuristic", field_agents="greedy", n_players=3, n_deals=40,
             n_trials=6, tune_params=["pass_bias"], sampler="random", start=bad, name="fixed",
             seed=3, batch_size=20, validate_deals=60, agents_root=tmp_path, progress=False)
    assert r.n_trials == 6 and len(r.trials) == 6
    assert r.trials.role.tolist() == ["start"] + ["sampled"] * 5
    assert r.start_objective == r.trials.objective[0]
    assert r.best_objective == r.trials.objective.max() > r.start_objective + 0.1
    assert r.best[6] < 8.0 and np.array_equal(np.delete(r.best, 6), np.delete(bad, 6))
    assert (r.trials.best_so_far == r.trials.objective.cummax()).all()
    out = tmp_path / "recurring" / "tuning" / "fixed"
    assert r.out_dir == str(out)
    for f in ("study.journal", "trials.csv", "objective.png", "importances.csv",
              "importances.png", "meta.json"):
        assert (out / f).stat().st_size > 0, f
    assert not (out / "trial_run").exists()
    csv = pd.read_csv(out / "trials.csv")
    assert list(csv.columns[:5]) == TRIAL_COLUMNS and "pass_bias" in csv.columns
    assert csv.objective.tolist() == pytest.approx(r.trials.objective.tolist(), abs=1e-12)
    imp = pd.read_csv(out / "importances.csv")
    assert imp.parameter.tolist() == ["pass_bias"] and imp.importance[0] == 1.0
    meta = json.loads((out / "meta.json").read_text())
    assert meta["trials_complete"] == 6 and meta["best_objective"] == r.best_objective
    assert meta["settings"]["sampler"] == "random" and meta["validation"]["deals"] == 60
    # the check on fresh deals: the same objective, tuned vs start, paired by deal
    g = r.gain
    assert g["seed"] == 4 and g["deals"] == 60 and g["verdict"] == "better"
    assert g["win_diff"] == pytest.approx(g["objective_tuned"] - g["objective_start"])
    assert g["low"] < g["win_diff"] < g["high"] and 0 <= g["p_t"] < 0.05
    assert g["tournament"]["verdict"] == "better" and r.validation is not None
    assert "paired t-test p =" in r.summary()
    # the saved agent
    saved = json.loads((tmp_path / "recurring" / "agents" / "fixed.json").read_text())
    assert saved["base"] == "heuristic" and saved["params"] == r.best.tolist()
    assert saved["trials"] == 6 and saved["validation"]["verdict"] == "better"
    t = run_tournament("recurring", "fixed,greedy", 3, 6, rating_deals=0, save=False,
                       agents_root=tmp_path)
    assert t.agents.loc["fixed", "params"].split()[6] == f"{r.best[6]:.4g}"


@pytest.mark.parametrize("sampler", ["tpe", "cmaes", "random"])
def test_same_seed_same_trials(tmp_path, sampler):
    kw = dict(field_agents="greedy", n_players=3, n_deals=8, n_trials=T.N_STARTUP + 3,
              tune_params="pass_bias,empties", sampler=sampler, batch_size=8,
              validate_deals=0, agents_root=tmp_path, progress=False)
    a = tune("recurring", "heuristic", name="a", seed=5, **kw)
    b = tune("recurring", "heuristic", name="b", seed=5, **kw)
    c = tune("recurring", "heuristic", name="c", seed=6, **kw)
    pd.testing.assert_frame_equal(_trials(a), _trials(b))
    assert np.array_equal(a.best, b.best)
    assert not np.allclose(a.trials.pass_bias[1:], c.trials.pass_bias[1:])


@pytest.mark.parametrize("sampler", ["tpe", "cmaes"])
def test_a_killed_study_resumes_to_the_same_result(tmp_path, monkeypatch, sampler):
    """A study killed in its 8th trial (left RUNNING in the journal) and run again with the
    same options ends exactly as an uninterrupted one; so does a study extended from 5 to 13
    trials."""
    kw = dict(field_agents="greedy", n_players=3, n_deals=8, n_trials=13,
              tune_params="pass_bias,empties,take", sampler=sampler, batch_size=4, seed=2,
              validate_deals=0, agents_root=tmp_path, progress=False)
    whole = tune("recurring", "heuristic", name="whole", **kw)

    real = T._evaluate_one
    calls = []

    def dies_in_trial_8(x, ctx):
        calls.append(1)
        if len(calls) == 8:
            raise KeyboardInterrupt
        return real(x, ctx)

    monkeypatch.setattr(T, "_evaluate_one", dies_in_trial_8)
    with pytest.raises(KeyboardInterrupt):
        tune("recurring", "heuristic", name="killed", **kw)
    monkeypatch.setattr(T, "_evaluate_one", real)
    study = optuna.load_study(study_name="tune", storage=T._storage(
        tmp_path / "recurring" / "tuning" / "killed" / T.STUDY_FILE))
    states = [t.state for t in study.trials]
    assert states.count(optuna.trial.TrialState.COMPLETE) == 7
    assert states[7] == optuna.trial.TrialState.RUNNING
    resumed = tune("recurring", "heuristic", name="killed", **kw)
    assert resumed.resumed_trials == 7 and resumed.n_trials == 13
    pd.testing.assert_frame_equal(_trials(resumed), _trials(whole))
    assert np.array_equal(resumed.best, whole.best)

    tune("recurring", "heuristic", name="grown", **(kw | dict(n_trials=5)))
    grown = tune("recurring", "heuristic", name="grown", **kw)
    assert grown.resumed_trials == 5
    pd.testing.assert_frame_equal(_trials(grown), _trials(whole))


def test_other_settings_are_refused_unless_forced(tmp_path):
    kw = dict(field_agents="greedy", n_players=3, n_trials=3, tune_params="pass_bias",
              sampler="random", batch_size=4, validate_deals=0, agents_root=tmp_path,
              progress=False, name="s")
    first = tune("recurring", "heuristic", n_deals=8, **kw)
    again = tune("recurring", "heuristic", n_deals=8, **kw)
    assert again.resumed_trials == 3
    pd.testing.assert_frame_equal(_trials(first), _trials(again))
    with pytest.raises(ValueError, match=r"other settings \(n_deals 8 \(stored\) vs 12") as e:
        tune("recurring", "heuristic", n_deals=12, **kw)
    assert "\n" not in str(e.value) and "--force" in str(e.value)
    fresh = tune("recurring", "heuristic", n_deals=12, overwrite=True, **kw)
    assert fresh.resumed_trials == 0 and fresh.n_trials == 3
    # the agent file of another study is not replaced silently
    with pytest.raises(ValueError, match="holds agent 's' from another tuning run"):
        tune("recurring", "heuristic", n_deals=8, out_dir=tmp_path / "elsewhere", **kw)
    assert not (tmp_path / "elsewhere").exists()


def test_integer_parameters_are_tuned_as_integers(tmp_path, monkeypatch):
    """A search agent's ``simulations`` is sampled as an integer in its rule range (the
    objective is replaced by a cheap function of the vector: no games are played)."""
    monkeypatch.setattr(T, "_evaluate_one",
                        lambda x, ctx: (-abs(x[0] - 37.0) - abs(x[3] - 1.0), 0.0))
    r = tune("rats", "ismcts", field_agents="greedy", n_players=3, n_deals=4,
             n_trials=T.N_STARTUP + 15, tune_params="simulations,exploration",
             bounds={"simulations": (10, 400)}, seed=1, validate_deals=0,
             agents_root=tmp_path, progress=False)
    sims = r.trials.simulations
    assert sims.dtype.kind == "i" and sims.between(10, 400).all()
    assert r.trials.exploration.dtype.kind == "f"
    assert r.best_objective > r.start_objective
    assert r.best[0] == int(r.best[0]) and abs(r.best[0] - 37) < abs(400 - 37)


@pytest.mark.slow
def test_a_search_agent_plays_a_tiny_study(tmp_path):
    r = tune("recurring", "pimc", field_agents="greedy", n_players=3, n_deals=4, n_trials=3,
             tune_params="simulations,emptied", bounds={"simulations": (4, 16)},
             batch_size=4, validate_deals=4, agents_root=tmp_path, progress=False)
    assert r.trials.simulations.dtype.kind == "i" and r.n_trials == 3
    assert r.gain is not None and (tmp_path / "recurring" / "agents" / "pimc_tuned.json").exists()


def test_river_rats_tunes_the_team(tmp_path):
    """Cooperative: no field, the objective is the team's win rate, the check compares the two
    teams on the same fresh deals (no round robin)."""
    r = tune("river-rats", "heuristic", n_players=2, n_deals=30, n_trials=3,
             tune_params="h_eff", sampler="random", batch_size=15, validate_deals=20,
             agents_root=tmp_path, progress=False)
    assert r.game == "river_rats" and r.n_trials == 3
    assert r.gain["tournament"] is None and r.validation is None
    assert r.gain["test"].startswith("McNemar")
    wins = r.trials.objective * 30
    assert np.allclose(wins, np.round(wins))
    check = Path(r.out_dir) / "check"
    assert (check / "_partial" / "state.json").exists()  # runner state where it is not committed
    assert not (check / "state.json").exists()


# ---- the command line ---------------------------------------------------------------------
def test_tune_command(tmp_path, capsys):
    args = ["tune", "recurring", "heuristic", "--players", "3", "--games", "10", "--trials",
            "3", "--params", "pass_bias,is_r", "--bounds", "is_r=-1:2", "--sampler", "random",
            "--field", "greedy", "--validate", "0", "--agents-dir", str(tmp_path), "--name",
            "t1", "--quiet"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "saved as agent 't1'" in text and "after 3 trials" in text
    assert "is_r" in text and "[-1, 2]" in text
    out = tmp_path / "recurring" / "tuning" / "t1"
    assert (out / "trials.csv").exists()
    assert (tmp_path / "recurring" / "agents" / "t1.json").exists()
    # a re-run continues the study (here: nothing left to do)
    assert main(args) == 0
    assert "(3 resumed)" in capsys.readouterr().out
    # more trials, another output folder
    assert main(args[:8] + ["5"] + args[9:] + ["--out", str(tmp_path / "o"), "--force"]) == 0
    assert "after 5 trials" in capsys.readouterr().out
    assert (tmp_path / "o" / "objective.png").exists()


@pytest.mark.parametrize("extra, message", [
    (["--bounds", "is_r=2"], "--bounds 'is_r=2': expected NAME=LO:HI"),
    (["--bounds", "is_r=2:1"], "--bounds is_r=2:1: expected finite LO < HI"),
    (["--params", "nope"], "unknown parameter 'nope' of ReCURRRing heuristic (--params)"),
    (["--trials", "0"], "--trials 0: expected an integer >= 1"),
    (["--games", "1"], "--games 1: expected an integer >= 2"),
    (["--validate", "1"], "--validate 1: expected 0 (skip) or at least 2"),
    (["--field", "nobody"], "field (--field): unknown ReCURRRing agent 'nobody'"),
])
def test_tune_command_rejects_bad_input(tmp_path, capsys, extra, message):
    rc = main(["tune", "recurring", "heuristic", "--games", "4", "--trials", "2", "--validate",
               "0", "--agents-dir", str(tmp_path), "--quiet"] + extra)
    err = capsys.readouterr().err
    assert rc == 2 and message in err and err.count("\n") == 1


def test_tune_command_rejects_a_bad_sampler(capsys):
    with pytest.raises(SystemExit) as e:
        main(["tune", "recurring", "heuristic", "--sampler", "grid"])
    assert e.value.code == 2 and "argument --sampler: invalid choice" in capsys.readouterr().err
