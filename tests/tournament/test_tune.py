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

import experiments.tournament.games as G
import experiments.tournament.tune as T
import experiments.tournament.tuning.study as tuning_study
from experiments.optuna_study import journal_storage
from experiments.outputs import tuning_out_dir
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


@pytest.fixture(autouse=True)
def _private_agent_store(tmp_path_factory, monkeypatch):
    """Every test gets its own agent store: nothing is written in the user's data folder."""
    monkeypatch.setenv("BOARDLAB_AGENTS_DIR", str(tmp_path_factory.mktemp("store")))


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
    # a significant gain on fresh deals: the agent is saved in the store
    assert r.saved and "significant" in r.save_note
    assert r.path == str(tmp_path / "recurring" / "agents" / "fixed.json")
    assert json.loads((out / "agent.json").read_text())["params"] == r.best.tolist()
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

    real = tuning_study._evaluate_one
    calls = []

    def dies_in_trial_8(x, ctx):
        calls.append(1)
        if len(calls) == 8:
            raise KeyboardInterrupt
        return real(x, ctx)

    monkeypatch.setattr(tuning_study, "_evaluate_one", dies_in_trial_8)
    with pytest.raises(KeyboardInterrupt):
        tune("recurring", "heuristic", name="killed", **kw)
    monkeypatch.setattr(tuning_study, "_evaluate_one", real)
    study = optuna.load_study(study_name="tune", storage=journal_storage(
        tmp_path / "recurring" / "tuning" / "killed" / T.STUDY_FILE))
    states = [t.state for t in study.trials]
    assert states.count(optuna.trial.TrialState.COMPLETE) == 7
    assert states[7] == optuna.trial.TrialState.RUNNING
    resumed = tune("recurring", "heuristic", name="killed", **kw)
    assert resumed.resumed_trials == 7 and resumed.n_trials == 13
    pd.testing.assert_frame_equal(_trials(resumed), _trials(whole))
    assert np.array_equal(resumed.best, whole.best)

    # a finished study is a finished run: more trials are other settings (refused, one line)
    tune("recurring", "heuristic", name="grown", **(kw | dict(n_trials=5)))
    with pytest.raises(ValueError, match=r"other settings .*5 there, 13 now.*--force") as e:
        tune("recurring", "heuristic", name="grown", **kw)
    assert "\n" not in str(e.value)


def test_other_settings_are_refused_unless_forced(tmp_path):
    kw = dict(field_agents="greedy", n_players=3, n_trials=3, tune_params="pass_bias",
              sampler="random", batch_size=4, validate_deals=0, agents_root=tmp_path,
              progress=False, name="s", save_anyway=True)
    first = tune("recurring", "heuristic", n_deals=8, **kw)
    out = tmp_path / "recurring" / "tuning" / "s"
    before = _checksums(tmp_path)
    again = tune("recurring", "heuristic", n_deals=8, **kw)  # answers from the folder
    assert again.answered_from == str(out) and again.n_trials == 3 and again.saved
    pd.testing.assert_frame_equal(_trials(first), _trials(again), check_dtype=False)
    assert again.summary() == first.summary()
    assert _checksums(tmp_path) == before
    with pytest.raises(ValueError, match=r"other settings \(.*8 there, 12 now") as e:
        tune("recurring", "heuristic", n_deals=12, **kw)
    assert "\n" not in str(e.value) and "--force" in str(e.value)
    assert _checksums(tmp_path) == before
    fresh = tune("recurring", "heuristic", n_deals=12, overwrite=True, **kw)
    assert fresh.resumed_trials == 0 and fresh.n_trials == 3
    # the agent file of another study is not replaced silently
    with pytest.raises(ValueError, match="holds agent 's' from another tuning run"):
        tune("recurring", "heuristic", n_deals=8, out_dir=tmp_path / "elsewhere", **kw)
    assert not (tmp_path / "elsewhere").exists()


def test_integer_parameters_are_tuned_as_integers(tmp_path, monkeypatch):
    """A search agent's ``simulations`` is sampled as an integer in its rule range (the
    objective is replaced by a cheap function of the vector: no games are played)."""
    monkeypatch.setattr(tuning_study, "_evaluate_one",
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
    assert r.gain is not None and (Path(r.out_dir) / "agent.json").exists()
    assert r.saved == (r.gain["verdict"] == "better")


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
    assert not check.exists()  # the check's runner state goes once the run finished


# ---- the command line ---------------------------------------------------------------------
def test_tune_command(tmp_path, capsys):
    args = ["tune", "recurring", "heuristic", "--players", "3", "--games", "10", "--trials",
            "3", "--params", "pass_bias,is_r", "--bounds", "is_r=-1:2", "--sampler", "random",
            "--field", "greedy", "--validate", "0", "--agents-dir", str(tmp_path), "--name",
            "t1", "--quiet"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "agent 't1' not saved: no check on fresh deals (--validate 0)" in text
    assert "--save-anyway" in text and "after 3 trials" in text
    assert "is_r" in text and "[-1, 2]" in text
    out = tmp_path / "recurring" / "tuning" / "t1"
    assert (out / "trials.csv").exists() and (out / "agent.json").exists()
    assert not (tmp_path / "recurring" / "agents" / "t1.json").exists()
    # a re-run answers from the finished study: nothing is played or written
    before = _checksums(tmp_path)
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "answered from the finished study in" in text and "after 3 trials" in text
    assert _checksums(tmp_path) == before
    # --save-anyway saves it from the finished study, still playing nothing
    assert main(args + ["--save-anyway"]) == 0
    assert "saved as agent 't1' (saved with --save-anyway)" in capsys.readouterr().out
    assert (tmp_path / "recurring" / "agents" / "t1.json").exists()
    assert {k: v for k, v in _checksums(tmp_path).items() if "agents" not in k} == before
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


def _checksums(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with its content hash."""
    import hashlib

    return {str(f.relative_to(folder)): hashlib.sha256(f.read_bytes()).hexdigest()
            for f in sorted(folder.rglob("*")) if f.is_file()}


def test_tune_command_rejects_a_bad_sampler(capsys):
    with pytest.raises(SystemExit) as e:
        main(["tune", "recurring", "heuristic", "--sampler", "grid"])
    assert e.value.code == 2 and "argument --sampler: invalid choice" in capsys.readouterr().err


# ---- where tuned agents live, when they are saved, the folder rule (issue 24) --------------
COMMITTED = {"rats": ["heuristic_tuned"], "river_rats": ["heuristic_tuned", "heuristic_cmaes"]}
REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("game", sorted(COMMITTED))
def test_committed_agents_load_by_name_from_any_folder(game, tmp_path, monkeypatch):
    """The repository's committed tuned agents resolve by name whatever the current folder and
    whatever the agent store (used by committed tournaments and notebooks)."""
    monkeypatch.chdir(tmp_path)
    ad = get_adapter(game)
    for name in COMMITTED[game]:
        saved = json.loads((REPO / "results" / game / "agents" / f"{name}.json").read_text())
        ref = ad.resolve(AgentRef(name, name))
        assert ref.base == saved["base"] and list(ref.params) == saved["params"]
        assert G.find_agent(game, name) == REPO / "results" / game / "agents" / f"{name}.json"
    with pytest.raises(ValueError, match=r"unknown .* agent 'nobody'.* or a tuned agent saved "
                                         r"in .*agents or .*results") as e:
        ad.resolve(AgentRef("nobody", "nobody"))
    assert "\n" not in str(e.value)


def test_the_agent_store_does_not_depend_on_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("BOARDLAB_AGENTS_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    assert G.store_root() == tmp_path / "data" / "boardlab"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert G.store_root() == Path.home() / ".local" / "share" / "boardlab"
    monkeypatch.setenv("BOARDLAB_AGENTS_DIR", str(tmp_path / "env"))
    assert G.agents_dir("rats") == tmp_path / "env" / "rats" / "agents"
    assert G.agents_dir("rats", tmp_path / "arg") == tmp_path / "arg" / "rats" / "agents"
    assert tuning_out_dir("river-rats", "x") == tmp_path / "env" / "river_rats" / "tuning" / "x"
    # an agent in the store shadows a committed one of the same name
    shadow = tmp_path / "env" / "rats" / "agents" / "heuristic_tuned.json"
    shadow.parent.mkdir(parents=True)
    shadow.write_text(json.dumps({"game": "rats", "base": "greedy", "params": []}))
    assert G.find_agent("rats", "heuristic_tuned") == shadow
    assert get_adapter("rats").resolve(AgentRef("h", "heuristic_tuned")).base == "greedy"
    shadow.write_text("{broken")
    with pytest.raises(ValueError, match="not a readable tuned agent"):
        get_adapter("rats").resolve(AgentRef("h", "heuristic_tuned"))


def _fake_check(verdict: str, diff: float, p: float):
    """A stand-in for the fresh-deal check (plays nothing) giving ``verdict``."""
    def fake(res, ad, *args, **kw):
        res.gain = {"deals": 50, "seed": 1, "win_diff": diff, "low": diff - 0.1,
                    "high": diff + 0.1, "p_t": p, "p_sign": p, "verdict": verdict,
                    "objective_start": 0.3, "objective_tuned": 0.3 + diff,
                    "test": "paired t-test over deals, two-sided", "tournament": None}
    return fake


@pytest.mark.parametrize("verdict, diff, p, save_anyway, saved", [
    ("better", 0.05, 0.001, False, True),
    ("no difference shown", 0.01, 0.4, False, False),
    ("worse", -0.05, 0.001, False, False),
    ("no difference shown", 0.01, 0.4, True, True),
])
def test_an_agent_is_saved_only_with_a_significant_gain(tmp_path, monkeypatch, verdict, diff,
                                                        p, save_anyway, saved):
    """With --out X from another folder: nothing is written in the current folder, the best
    vector is in X/agent.json, and the store gets the agent only when the fresh-deal gain is
    significant (or --save-anyway); then it is usable by name from any folder."""
    monkeypatch.setattr(tuning_study, "_evaluate_one", lambda x, ctx: (-abs(x[6] + 2.0), 0.01))
    monkeypatch.setattr(T, "check_on_fresh_deals", _fake_check(verdict, diff, p))
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    store = tmp_path / "store"
    monkeypatch.setenv("BOARDLAB_AGENTS_DIR", str(store))
    r = tune("recurring", "heuristic", field_agents="greedy", n_players=3, n_deals=4,
             n_trials=5, tune_params="pass_bias", sampler="random", seed=1, validate_deals=50,
             out_dir=tmp_path / "X", name="mine", progress=False, save_anyway=save_anyway)
    assert not any(cwd.iterdir())
    agent = json.loads((tmp_path / "X" / "agent.json").read_text())
    assert agent["params"] == r.best.tolist() and agent["validation"]["verdict"] == verdict
    meta = json.loads((tmp_path / "X" / "meta.json").read_text())
    assert r.saved is saved and meta["saved"] is saved
    in_store = store / "recurring" / "agents" / "mine.json"
    assert in_store.exists() is saved
    if saved:
        assert r.path == meta["agent_file"] == str(in_store)
        monkeypatch.chdir(tmp_path)
        ref = get_adapter("recurring").resolve(AgentRef("mine", "mine"))
        assert list(ref.params) == r.best.tolist()
    else:
        assert r.path == "" and "--save-anyway" in r.save_note and f"{diff:+.4f}" in r.save_note
        with pytest.raises(ValueError, match="unknown ReCURRRing agent 'mine'"):
            get_adapter("recurring").resolve(AgentRef("mine", "mine"))


def test_no_importance_picture_when_nothing_beat_the_start(tmp_path, monkeypatch):
    """A study whose best trial is the start draws no importance picture and says why (in the
    summary and meta.json); one that improves draws it."""
    x0 = get_adapter("recurring").registry_params("heuristic")
    monkeypatch.setattr(tuning_study, "_evaluate_one",
                        lambda x, ctx: (-float(np.sum((x - x0) ** 2)), 0.01))
    kw = dict(field_agents="greedy", n_players=3, n_deals=4, n_trials=8,
              tune_params="pass_bias,empties", sampler="random", validate_deals=0,
              agents_root=tmp_path, progress=False)
    r = tune("recurring", "heuristic", name="flat", **kw)
    out = Path(r.out_dir)
    assert r.best_objective == r.start_objective
    assert r.importances_note.startswith("not drawn: no trial beat the start")
    assert not (out / "importances.png").exists() and "importances_png" not in r.files
    assert "importance: not drawn: no trial beat the start" in r.summary()
    assert json.loads((out / "meta.json").read_text())["importances_note"] == r.importances_note
    i = list(get_adapter("recurring").param_names).index("pass_bias")
    monkeypatch.setattr(tuning_study, "_evaluate_one", lambda x, ctx: (float(x[i]), 0.01))
    r = tune("recurring", "heuristic", name="better", **kw)
    assert r.best_objective > r.start_objective and r.importances_note == ""
    assert (Path(r.out_dir) / "importances.png").stat().st_size > 0


@pytest.mark.parametrize("content", [
    {"trials.csv": "number,objective\n0,0.5\n"},  # a user's own file, no meta.json
    {"meta.json": json.dumps({"kind": "boardlab.tournament",
                              "settings": {"experiment": "tournament"}})},
    {"meta.json": "{not json"},
])
def test_a_folder_with_other_results_is_refused_and_left_alone(tmp_path, monkeypatch, content):
    monkeypatch.setattr(tuning_study, "_evaluate_one", lambda x, ctx: pytest.fail("played"))
    out = tmp_path / "X"
    out.mkdir()
    for name, text in content.items():
        (out / name).write_text(text)
    before = _checksums(out)
    with pytest.raises(ValueError, match=r"X.*--force") as e:
        tune("recurring", "heuristic", field_agents="greedy", n_players=3, n_deals=4,
             n_trials=2, validate_deals=0, out_dir=out, progress=False)
    assert "\n" not in str(e.value)
    assert _checksums(out) == before


def test_a_committed_study_answers_from_its_folder(tmp_path, monkeypatch):
    """The committed River Rats study (meta.json of the former layout) is a finished run: the
    same command answers from it, plays nothing and changes nothing; other settings are
    refused."""
    monkeypatch.setattr(tuning_study, "_evaluate_one", lambda x, ctx: pytest.fail("played"))
    folder = REPO / "results" / "river_rats" / "tuning" / "heuristic_tuned"
    before = _checksums(folder)
    kw = dict(n_players=4, n_deals=3000, n_trials=50, seed=2026, batch_size=500,
              validate_deals=20000, name="heuristic_tuned", out_dir=folder, progress=False)
    r = tune("river-rats", "heuristic", **kw)
    assert r.answered_from == str(folder) and r.n_trials == 50 and len(r.trials) == 50
    assert r.gain["verdict"] == "no difference shown"
    assert r.importances_note.startswith("not drawn: no trial beat the start")
    with pytest.raises(ValueError, match=r"other settings .*50 there, 60 now.*--force"):
        tune("river-rats", "heuristic", **(kw | dict(n_trials=60)))
    assert _checksums(folder) == before
