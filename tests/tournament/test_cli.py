"""``boardlab tournament`` and ``boardlab tune`` from the command line."""

import json

import pytest

from agents.policy import specs
from experiments.cli import main
from experiments.tournament.games import get_adapter
from experiments.tournament.tune import default_field
from experiments.cli.tournament import parse_options


def test_tournament_command_writes_results(tmp_path, capsys):
    out = tmp_path / "t"
    rc = main(["tournament", "rats", "--agents", "greedy,random", "--players", "2",
               "--games", "12", "--batch-size", "6", "--rating-deals", "4", "--out", str(out),
               "--quiet", "--option", "ace_high_sequences=true"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "Rats, 2 players: 12 deals" in text and "games/s" in text
    meta = json.loads((out / "meta.json").read_text())
    assert meta["config"]["ace_high_sequences"] is True and meta["deals"] == 12
    # the same command again answers from the finished tournament: it says so, plays nothing
    assert main(["tournament", "rats", "--agents", "greedy,random", "--players", "2",
                 "--games", "12", "--batch-size", "6", "--rating-deals", "4", "--out",
                 str(out), "--quiet", "--option", "ace_high_sequences=true"]) == 0
    text = capsys.readouterr().out
    assert "nothing was played" in text and "games/s" not in text
    assert "Rats, 2 players: 12 deals" in text


def test_tournament_command_rejects_bad_input(capsys):
    assert main(["tournament", "rats", "--agents", "greedy,nobody", "--games", "5",
                 "--quiet"]) == 2
    assert "unknown Rats agent 'nobody'" in capsys.readouterr().err
    assert main(["tournament", "recurring", "--option", "speed", "--quiet"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err


def test_tune_command(tmp_path, capsys):
    rc = main(["tune", "recurring", "heuristic", "--players", "3", "--games", "10",
               "--random", "2", "--refine", "1", "--params", "pass_bias,is_r",
               "--validate", "0", "--agents-dir", str(tmp_path), "--name", "t1", "--quiet",
               "--save-anyway"])  # --validate 0 checks nothing: saved only when asked
    assert rc == 0
    text = capsys.readouterr().out
    assert "saved as agent 't1'" in text
    assert (tmp_path / "recurring" / "agents" / "t1.json").exists()


def test_parse_options():
    assert parse_options(["difficulty=expert", "rats=[\"D\",\"S\"]", "n=3"]) == {
        "difficulty": "expert", "rats": ["D", "S"], "n": 3}


def test_winrates_command(capsys, tmp_path):
    csv = tmp_path / "w.csv"
    rc = main(["winrates", "river-rats", "--agents", "random,heuristic", "--players", "1,2",
               "--games", "40", "--csv", str(csv)])
    assert rc == 0
    text = capsys.readouterr().out
    assert "| `heuristic` |" in text and "2 players" in text and csv.exists()
    rc = main(["winrates", "recurring", "--agents", "random,greedy", "--players", "3",
               "--games", "6"])
    assert rc == 0 and "fair 0.33" in capsys.readouterr().out
    assert main(["winrates", "rats", "--players", "9"]) == 2
    assert "--players" in capsys.readouterr().err


@pytest.mark.parametrize("game", ["rats", "recurring", "lure", "river_rats"])
def test_default_field_is_the_fast_agents_net_and_net_search_fast(game):
    """The default field of ``tournament``/``winrates`` (issue 26): every shipped agent that
    neither searches nor sees hidden cards (``net`` included) and ``net-search-fast``; the
    other search presets and the hidden-card viewers (``peek``) only when named. ``tune``'s
    default field is it without ``random`` and without the search agent."""
    ad = get_adapter(game)
    std = ad.standard_agents()
    sp = specs(ad.name)
    assert {"random", "heuristic", "net", "net-search-fast"} <= set(std)
    assert std == [n for n in ad.shipped if n == "net-search-fast"
                   or (not sp[n].search and not sp[n].sees_hidden)]
    assert [n for n in std if sp[n].search] == ["net-search-fast"]
    assert not any(sp[n].sees_hidden for n in std)
    assert default_field(game) == [n for n in std if n not in ("random", "net-search-fast")]
    assert "net" in default_field(game)


def test_tournament_and_winrates_default_to_the_standard_agents(monkeypatch, capsys):
    """Without ``--agents``/``--games`` the commands play the default field at the sizes of
    :mod:`experiments.tournament.cost` (fewer deals, a fifth of them rated, batches of 10 when
    the field searches); given sizes are passed through."""
    import experiments.tournament.run as run_mod
    import experiments.tournament.winrates as win_mod
    from experiments.tournament.cost import tournament_defaults, winrates_defaults
    from experiments.tournament.games import parse_agents
    from experiments.tournament.run import Tournament

    seen = {}

    class _Stop(Exception):
        pass

    def fake(game, agents, *a, **k):
        seen[game] = (agents, a, k)
        raise _Stop

    monkeypatch.setattr(run_mod, "run_tournament", fake)
    monkeypatch.setattr(win_mod, "winrates", fake)
    lure = get_adapter("lure")
    with pytest.raises(_Stop):
        main(["tournament", "lure", "--quiet"])
    agents, a, k = seen["lure"]
    assert agents == ",".join(lure.standard_agents())
    want = tournament_defaults(Tournament("lure", 4, parse_agents(agents, lure)))
    assert want.search == ("net-search-fast",) and 100 <= want.deals < 1000
    assert a == (4, want.deals) and k["rating_deals"] == want.deals // 5
    assert k["batch_size"] == 10 and callable(k["on_start"])
    with pytest.raises(_Stop):
        main(["tournament", "lure", "--quiet", "--games", "400"])
    _, a, k = seen["lure"]
    assert a == (4, 400) and k["rating_deals"] == 80 and k["batch_size"] == 10
    with pytest.raises(_Stop):
        main(["tournament", "lure", "--quiet", "--agents", "greedy,heuristic"])
    _, a, k = seen["lure"]
    assert a == (4, 1000) and k["rating_deals"] == 300 and k["batch_size"] == 100
    with pytest.raises(_Stop):
        main(["winrates", "rats"])
    agents, a, k = seen["rats"]
    rats = get_adapter("rats")
    assert agents == ",".join(rats.standard_agents())
    w = winrates_defaults("rats", parse_agents(agents, rats), list(rats.players))
    assert a == (list(rats.players), w.deals) and k["batch_size"] == 10
    out = capsys.readouterr().out
    assert f"playing {w.deals} deals (the field includes search agent net-search-fast" in out
    assert "estimated" in out and "--jobs 1" in out


def test_help_says_what_the_default_field_is():
    from experiments.cli import build_parser

    def sub_help(name):
        sub = next(a for a in build_parser()._actions if isinstance(a.choices, dict))
        return " ".join(sub.choices[name].format_help().split())

    for cmd in ("tournament", "winrates"):
        text = sub_help(cmd)
        assert "net included, and net-search-fast" in text, cmd
        assert "fewer when the field includes a search agent" in text, cmd
    assert "a fifth of --games when the field includes a search agent" in sub_help("tournament")
    assert "net included, except random" in sub_help("tune")


def test_a_tournament_with_a_search_agent_prints_its_size_and_estimate(tmp_path, capsys):
    rc = main(["tournament", "rats", "--agents", "heuristic,pimc-fast", "--players", "2",
               "--games", "4", "--quiet", "--out", str(tmp_path / "t")])
    assert rc == 0
    out = capsys.readouterr().out
    line = out.splitlines()[0]
    assert line.startswith("playing 4 deals, 2 games each (1 table x 2 rotations), no "
                           "ratings: estimated ") and "with --jobs 1" in line, line
    meta = json.loads((tmp_path / "t" / "meta.json").read_text())
    assert meta["batch_size"] == 10 and meta["rating_deals"] == 0
