"""``--help`` lists every game's shipped agents (from a table that must match the registry),
explains the River Rats rules options, and bad ``--jobs`` stops before anything is printed."""

import pytest

from experiments.cli import build_parser, main
from experiments.cli.agent_names import AGENT_NAMES


def _help(capsys, argv):
    with pytest.raises(SystemExit):
        build_parser().parse_args(argv + ["--help"])
    return " ".join(capsys.readouterr().out.split())


def test_agent_table_is_the_registry():
    from agents.policy import specs
    from engines.names import GAME_NAMES

    assert {g: tuple(specs(g)) for g in GAME_NAMES} == AGENT_NAMES


@pytest.mark.parametrize("command", [["tournament"], ["tune"], ["winrates"], ["play"]])
def test_help_lists_every_agent_name_whole(capsys, command):
    text = _help(capsys, command)
    for names in AGENT_NAMES.values():
        for name in names:
            assert f" {name}," in text or f" {name};" in text or f" {name}." in text, name


def test_pairs_help_explains_every_rules_option(capsys):
    text = _help(capsys, ["river-rats", "pairs"])
    for option in ("--difficulty", "--prediction-match", "--defeated-rat-stays",
                   "--first-player", "--empty-draw", "--first-game-defeat-bonuses",
                   "--full-house-ties", "--set-ties", "--two-pair-ties"):
        after = text.split(option, 2)[-1][:400]  # the option's own help (past the usage line)
        assert "(default" in after and "[" in after, option
    assert "net-search-fast" in text  # River Rats' agents in --agents' help


@pytest.mark.parametrize("argv", [["tournament", "rats", "--jobs", "0"],
                                  ["winrates", "rats", "--jobs", "-3"],
                                  ["river-rats", "pairs", "--jobs", "0"]])
def test_bad_jobs_is_refused_before_the_plan(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    assert exc.value.code == 2 and out == ""
    assert "--jobs" in err and "positive number" in err and len(err.strip().splitlines()) == 1
