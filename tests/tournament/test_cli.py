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
def test_default_agents_neither_search_nor_see_hidden_cards(game):
    """The default field of ``tournament``/``winrates``: every shipped agent but the search
    agents (minutes per deal at their presets) and the hidden-card viewers (``peek``)."""
    ad = get_adapter(game)
    std = ad.standard_agents()
    sp = specs(ad.name)
    assert "random" in std and "heuristic" in std
    assert std == [n for n in ad.shipped if not sp[n].search and not sp[n].sees_hidden
                   and n != "net"]
    assert len(std) < len(ad.shipped)  # every game ships search agents
    assert default_field(game) == [n for n in std if n != "random"]


def test_tournament_and_winrates_default_to_the_standard_agents(monkeypatch, capsys):
    import experiments.tournament.run as run_mod
    import experiments.tournament.winrates as win_mod

    seen = {}

    class _Stop(Exception):
        pass

    def fake(game, agents, *a, **k):
        seen[game] = agents
        raise _Stop

    monkeypatch.setattr(run_mod, "run_tournament", fake)
    monkeypatch.setattr(win_mod, "winrates", fake)
    with pytest.raises(_Stop):
        main(["tournament", "lure", "--quiet"])
    assert seen["lure"] == ",".join(get_adapter("lure").standard_agents())
    with pytest.raises(_Stop):
        main(["winrates", "rats"])
    assert seen["rats"] == ",".join(get_adapter("rats").standard_agents())
