"""Issue 26 for Lure: ``lure balance`` and ``lure rebalance`` judge the cards with strong players
(``net``) by default, compare the verdicts with the heuristic's and say why they change
(experiments/lure/verdicts.py, defaults.py, balance.py, cli/lure.py)."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pandas as pd
import pytest

from experiments import cli
from experiments.cli import build_parser
from experiments.lure import balance as B
from experiments.lure import rebalance as R
from experiments.lure import simulation
from experiments.lure import verdicts as V
from experiments.lure.defaults import DEFAULT_AGENTS, REFERENCE_AGENTS, resolve_compare
from experiments.stats import wilson_interval

IDS = [f"C{i:02d}" for i in range(12)]


def _sim(players, caught: dict, win: dict, games: int = 20000) -> pd.DataFrame:
    """A per-card frame as simulate's: every card caught in 99% of ``games`` with a win
    advantage of +0.10, but the cards of ``caught`` (rate) and ``win`` (win diff)."""
    rows = []
    for n in players:
        for cid in IDS:
            rate = caught.get(cid, 0.99)
            lo, hi = wilson_interval(round(rate * games), games)
            wd = win.get(cid, 0.10)
            rows.append({"id": cid, "players": n, "in_play": games, "caught_rate": rate,
                         "caught_low": float(lo), "caught_high": float(hi), "win_diff": wd,
                         "win_diff_low": wd - 0.01, "win_diff_high": wd + 0.01})
    return pd.DataFrame(rows)


# a planted scenario: C01 only the heuristic fails to catch; C02 nobody catches; C03 the strong
# players leave; C04's catcher wins far more with strong players; C05 pays little with both
WEAK = {"caught": {"C01": 0.55, "C02": 0.50, "C03": 0.99}, "win": {"C05": -0.05}}
STRONG = {"caught": {"C01": 0.98, "C02": 0.30, "C03": 0.60}, "win": {"C04": 0.30, "C05": -0.05}}


def test_verdict_changes_are_classified_on_a_planted_scenario():
    weak, strong = _sim([2, 4], **WEAK), _sim([2, 4], **STRONG)
    v = V.compare_verdicts(strong, weak, [2, 4], ["net"], ["heuristic"])
    assert len(v) == 2 * len(IDS) and set(v["agents"]) == {"net"}
    s = V.verdict_summary(v).set_index("id")
    assert s.loc["C01", "verdict_compare"] == "rarely caught (2, 4 p)"
    assert s.loc["C01", "verdict"] == "ok" and s.loc["C01", "changes"]
    assert s.loc["C01", "reason"] == "only weak players miss it"
    assert s.loc["C01", "caught_change_pp"] == pytest.approx(43.0)
    assert s.loc["C02", "reason"] == "hard for everyone, more so for strong players"
    assert not s.loc["C02", "changes"]
    assert s.loc["C03", "reason"] == "strong players leave it" and s.loc["C03", "changes"]
    assert s.loc["C04", "verdict"] == "decides games (2, 4 p)"
    assert s.loc["C04", "reason"] == "strong players exploit it"
    assert s.loc["C05", "reason"] == "pays little for everyone"
    assert (s.drop(index=["C01", "C02", "C03", "C04", "C05"])["reason"] == "").all()
    lines = V.verdict_lines(V.verdict_summary(v), ["net"], ["heuristic"])
    assert lines[0] == "3 card(s) change verdict between heuristic and net players:"
    assert any(x.startswith("  C01") and "heuristic rarely caught (2, 4 p) -> net ok" in x
               for x in lines)
    # the same games with the players' roles swapped: the words follow the strength, not
    # which set is the report's
    w = V.verdict_summary(V.compare_verdicts(weak, strong, [2, 4], "heuristic", "net"))
    assert w.set_index("id").loc["C01", "reason"] == "only weak players miss it"
    # players that cannot be ranked are named instead
    u = V.verdict_summary(V.compare_verdicts(strong, weak, [2, 4], "pimc-peek", "heuristic"))
    assert u.set_index("id").loc["C01", "reason"] == "only heuristic players miss it"


def test_reason_classes_and_strength_order():
    assert V.reason(["rarely caught"], []) == "only weak players miss it"
    assert V.reason([], ["decides games"]) == "strong players exploit it"
    assert V.reason(["decides games"], []) == "decides games only among weak players"
    assert V.reason([], ["pays little"], "greedy", "heuristic") == (
        "heuristic players gain little from it")
    assert V.reason(["rarely caught"], ["rarely caught"], catch_move=1) == (
        "hard for everyone, less so for strong players")
    assert V.reason([], []) == "" and V.band_reason(0, 1) == "strong players exploit it"
    with pytest.raises(ValueError, match="bad verdict labels"):
        V.reason(["boring"], [])
    assert V.stronger(["net"], ["heuristic"]) == "agents"
    assert V.stronger("heuristic", "net") == "compare"
    assert V.stronger(["net", "heuristic"], ["heuristic"]) is None  # a set ranks as its weakest
    assert V.stronger("net", "pimc") is None and V.stronger("pimc-peek", "random") is None
    assert V.verdict_text([True, False, True], [0, 1, 1], [2, 3, 4]) == (
        "rarely caught (2, 4 p); decides games (3, 4 p)")
    assert V.verdict_text([True] * 4, [0] * 4, [2, 3, 4, 5]) == "rarely caught (2-5 p)"


def test_the_default_players_are_the_strong_ones():
    assert DEFAULT_AGENTS == ("net",) and REFERENCE_AGENTS == ("heuristic",)
    p = build_parser()
    for argv in (["lure", "balance"], ["lure", "rebalance"]):
        args = p.parse_args(argv)
        assert args.agents == ["net"] and args.compare_agents is None
    assert inspect.signature(B.run_balance).parameters["agents"].default == DEFAULT_AGENTS
    assert inspect.signature(R.rebalance).parameters["agents"].default == DEFAULT_AGENTS
    assert resolve_compare(["net"], None) == ["heuristic"]
    assert resolve_compare(["heuristic"], None) is None
    assert resolve_compare(["net"], "none") is None and resolve_compare("net", "") is None
    assert resolve_compare(["net"], "greedy, random") == ["greedy", "random"]


def _balance(out, *extra):
    return cli.main(["lure", "balance", "--players", "2", "--games", "30", "--batch-size", "15",
                     "--out", str(out), *extra])


def test_default_run_names_both_sets_of_players_and_resumes(tmp_path, capsys, monkeypatch):
    out = tmp_path / "d"
    assert _balance(out) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("simulated games played by net in every seat (30 per player "
                              "count); verdicts compared with heuristic; two seed sets")
    assert "play verdict(s) change between heuristic and net players" in printed
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["agents"] == ["net"] and meta["compare_agents"] == ["heuristic"]
    assert meta["settings"]["compare_agents"] == ["heuristic"]
    assert meta["compare_games_simulated"] == 30 and "load_average" in meta
    report = (out / "report.md").read_text()
    assert "agents **net**" in report and "played by **heuristic**" in report
    assert "### Play verdicts: heuristic against net players" in report
    assert "## Simulated games (net)" in report
    assert len(pd.read_csv(out / "verdicts.csv")) == 30
    players = pd.read_csv(out / "players_verdicts.csv")
    assert len(players) == 30 and set(players["status"]) <= {"changes", "same", "undecided"}
    assert (out / "compare_simulated.csv").exists()
    assert (out / "compare_simulated_set_b.csv").exists()
    games = pd.read_csv(out / "compare_games.csv")
    assert list(games["agents"]) == ["heuristic,heuristic"]
    # the same seed in another folder: the same verdicts
    assert _balance(tmp_path / "e") == 0
    assert (tmp_path / "e" / "verdicts.csv").read_text() == (out / "verdicts.csv").read_text()
    # a run killed before its report (Ctrl-C while drawing): the same command resumes every
    # set of games from its partial results, which the finished run then removes
    killed = tmp_path / "k"

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(B, "plot_points_vs_difficulty", interrupted)
    assert _balance(killed) == 130
    assert (killed / "_partial").is_dir() and not (killed / "metadata.json").exists()
    monkeypatch.undo()
    assert _balance(killed) == 0
    meta = json.loads((killed / "metadata.json").read_text())
    assert meta["resumed_batches"] == 2 and meta["resumed_batches_set_b"] == 2
    assert meta["compare_resumed_batches"] == 4 and meta["games_played_this_run"] == 0
    assert (killed / "verdicts.csv").read_text() == (out / "verdicts.csv").read_text()
    assert not (killed / "_partial").exists()
    capsys.readouterr()
    # answered from the finished folder: the same lines, nothing played
    assert _balance(out) == 0
    again = capsys.readouterr().out
    assert "verdicts compared with heuristic" in again and "nothing was played" in again


def test_agents_heuristic_still_works_without_a_comparison(tmp_path, capsys):
    out = tmp_path / "h"
    assert _balance(out, "--agents", "heuristic") == 0
    printed = capsys.readouterr().out
    assert printed.startswith("simulated games played by heuristic in every seat")
    assert "compared" not in printed and not (out / "players_verdicts.csv").exists()
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["agents"] == ["heuristic"] and "compare_agents" not in meta["settings"]
    assert "### Play verdicts" not in (out / "report.md").read_text()
    # and compared with the strong players on request
    assert _balance(tmp_path / "hn", "--agents", "heuristic", "--compare-agents", "net") == 0
    assert "between net and heuristic players" in capsys.readouterr().out


@pytest.mark.parametrize("argv, needle", [
    (["lure", "balance", "--compare-agents", "nobody"], "--compare-agents 'nobody'"),
    (["lure", "balance", "--compare-agents", "net,,x"], "--compare-agents 'x'"),
    (["lure", "rebalance", "--compare-agents", "nobody"], "--compare-agents 'nobody'"),
    (["lure", "rebalance", "--goal", "curve", "--compare-agents", "heuristic"],
     "--compare-agents applies to --goal win-diff"),
    (["lure", "rebalance", "--goal", "win-diff", "--compare-games", "1"], "--compare-games"),
])
def test_bad_compare_agents_are_one_line_errors(tmp_path, capsys, argv, needle):
    rc = cli.main(argv + ["--players", "2", "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert rc == 2 and needle in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_a_planted_card_through_the_whole_report(tmp_path, monkeypatch, capsys):
    """The balance report's verdicts on simulated results planted by agent: B30's catcher
    wins 20 pp more than its points and difficulty explain with strong players only, on both
    seed sets: play says too many points with net, fair with the heuristic; the verdict change,
    the reasons' words and signs, the report's table and the terminal lines (the exact odds
    untouched)."""
    real = B.simulate

    def planted(deck, players, deep_waters, agents, n_games, seed, **kw):
        sim, games, res = real(deck, players, deep_waters, ["random"], n_games, seed, **kw)
        sim = sim.copy()
        cards = B.card_table(deck, False)[0].set_index("id")
        wd = 0.02 + 0.03 * sim["id"].map(cards["points"]).to_numpy(float)
        sim["win_diff"], sim["win_diff_low"], sim["win_diff_high"] = wd, wd - 0.01, wd + 0.01
        if list(agents) == ["net"]:
            b30 = (sim["id"] == "B30").to_numpy()
            sim.loc[b30, ["win_diff", "win_diff_low", "win_diff_high"]] += 0.20
        return sim, games, res

    monkeypatch.setattr(B, "simulate", planted)  # the report's own games
    monkeypatch.setattr(simulation, "simulate", planted)  # the second seed set, the compared
    out = tmp_path / "p"
    assert _balance(out) == 0
    printed = capsys.readouterr().out
    assert "1 play verdict(s) change between heuristic and net players" in printed
    line = next(x for x in printed.splitlines() if x.startswith("  B30   heuristic"))
    assert "heuristic fair" in line and "-> net too many points" in line
    v = pd.read_csv(out / "verdicts.csv").set_index("id")
    assert v.loc["B30", "verdict"] == "too many points" and v.loc["B30", "play_side"] == 1
    assert v.loc["B30", "play_points"] > 2 and "pp more than a card" in v.loc["B30", "reason_play"]
    report = (out / "report.md").read_text()
    assert "| B30 | fair (" in report and ") | too many points (+" in report
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["verdict_changes"] == ["B30"]
    cards = pd.read_csv(out / "cards.csv")
    assert (cards["flag"].fillna("") != "").sum() == 4  # the exact odds' flags as before


def test_rebalance_compares_with_the_heuristic_by_default(tmp_path, capsys):
    out = tmp_path / "r"
    rc = cli.main(["lure", "rebalance", "--goal", "win-diff", "--styles-games", "0",
                   "--players", "2", "--trials", "2", "--games", "200",
                   "--verify-games", "200", "--screen-games", "200", "--batch-size", "200",
                   "--out", str(out)])
    assert rc in (0, R.EXIT_OFF_GOAL)
    printed = capsys.readouterr().out
    assert printed.startswith("simulated games played by net in every seat; verdicts compared "
                              "with heuristic (200 games per player count and deck)")
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["agents"] == ["net"] and meta["compare"] == {"agents": ["heuristic"],
                                                             "games": 200}
    cmp = pd.read_csv(out / "compare_agents.csv", keep_default_na=False)
    assert "reason" in cmp.columns
    assert (cmp["reason"] != "").all() or len(cmp) == 0
    report = (out / "report.md").read_text()
    assert "agents net" in report and "## Verdicts with other players: heuristic" in report
    # the curve goal plays no games to judge: no comparison by default
    rc = cli.main(["lure", "rebalance", "--goal", "curve", "--styles-games", "0",
                   "--players", "2", "--verify-games",
                   "20", "--batch-size", "20", "--out", str(tmp_path / "c")])
    assert rc == 0 and "compare" not in json.loads((tmp_path / "c" / "metadata.json")
                                                   .read_text())


def test_side_verdicts_band_is_the_rebalance_rule():
    """The win-advantage verdict is the rebalance's corrected rule around the median card."""
    sim = _sim([3], {}, {"C07": 0.16, "C08": 0.30})
    v = V.side_verdicts(sim, IDS, [3])
    assert v["targets"][0] == pytest.approx(10.0)
    # C07 lies 1 pp beyond the band's edge, 1.96 standard errors: p = 0.025, above Holm's
    # 0.05 / 11 once C08 (far off) is rejected first: inside; C08 above
    assert v["band"][IDS.index("C07"), 0] == 0 and v["band"][IDS.index("C08"), 0] == 1
    assert not v["rare"].any() and np.isfinite(v["caught_low"]).all()
