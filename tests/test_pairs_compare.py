"""experiments.pairs.compare: rank agreement of two rat-pair tables."""

import pandas as pd
import pytest

from experiments.pairs.compare import comparison_figure, rank_agreement

PAIRS = ["CD", "CH", "CS", "DC", "DH", "DS"]


def _table(rates, players=4):
    return pd.DataFrame({"players": players, "pair": PAIRS, "win_rate": rates,
                         "ci_low": [r - 0.01 for r in rates],
                         "ci_high": [r + 0.01 for r in rates]})


def test_known_values_identical_reversed_and_one_swap():
    a = _table([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    same = rank_agreement(a, a).iloc[0]
    assert same.spearman == pytest.approx(1.0) and same.kendall == pytest.approx(1.0)
    assert same.rank_change == 0 and same.top_a == same.top_b == "DS"
    rev = rank_agreement(a, _table([0.6, 0.5, 0.4, 0.3, 0.2, 0.1])).iloc[0]
    assert rev.spearman == pytest.approx(-1.0) and rev.top_b == "CD"
    # swapping the two easiest pairs: Spearman 1 - 6*2/(6*35) = 0.943, Kendall 13/15
    one = rank_agreement(a, _table([0.1, 0.2, 0.3, 0.4, 0.65, 0.6])).iloc[0]
    assert one.spearman == pytest.approx(1 - 12 / 210) and one.kendall == pytest.approx(13 / 15)
    assert one.mean_b == pytest.approx(a.win_rate.mean() + 0.15 / 6)


def test_one_row_per_common_player_count_and_a_figure():
    a = pd.concat([_table([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], n) for n in (1, 4)])
    b = _table([0.2, 0.1, 0.3, 0.4, 0.5, 0.6], 4)
    agree = rank_agreement(a, b)
    assert agree.players.tolist() == [4] and agree.most_moved.iloc[0] in ("CD", "CH")
    fig = comparison_figure(a, b, "heuristic", "pimc")
    assert len(fig.axes) == 1 and "rho" in fig.axes[0].get_title()


def test_bad_tables_are_named():
    with pytest.raises(ValueError, match="table b lacks columns"):
        rank_agreement(_table([0.1] * 6), pd.DataFrame({"pair": PAIRS}))
    with pytest.raises(ValueError, match="no \\(players, pair\\) cell"):
        rank_agreement(_table([0.1] * 6, 1), _table([0.1] * 6, 2))


def test_side_by_side_states_agents_means_gain_and_moves():
    from experiments.pairs.compare import format_side_by_side

    a = _table([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]).assign(agents="heuristic,heuristic", games=1000)
    # every pair 20 points easier, and CD (hardest) becomes the easiest: rank +5
    b = _table([0.9, 0.4, 0.5, 0.6, 0.7, 0.8]).assign(agents="net,net", games=100_000)
    text = format_side_by_side(a, b, "results/x")
    assert "net (results/x), against heuristic here" in text
    assert "net 65.0% against heuristic 35.0% on average, +30.0 points per pair" in text
    assert "(+20.0 to +80.0; 100,000+ games per pair)" in text
    assert "♣K→♦K +5" in text and "♣K→♥K" not in text  # the others move by 1


def test_compare_option_prints_beside_and_refuses_other_rules(tmp_path, capsys):
    """``boardlab river-rats pairs --compare RUN`` (make run: the learned policy's table):
    the other table is read and checked before anything is played."""
    from experiments.cli import main

    ref = tmp_path / "ref"
    assert main(["river-rats", "pairs", "--players", "1", "--games", "400", "--batch-size",
                 "200", "--quiet", "--out", str(ref), "--agents", "greedy"]) == 0
    capsys.readouterr()
    out = tmp_path / "out"
    args = ["river-rats", "pairs", "--players", "1", "--games", "400", "--batch-size", "200",
            "--quiet", "--out", str(out), "--compare", str(ref)]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert f"Beside it, greedy ({ref}, given by --compare), against heuristic here" in text
    assert "1 player: greedy" in text and "Spearman rho" in text
    for bad, needle in ((["--difficulty", "expert"], "difficulty='normal' (here 'expert')"),
                        ([], "no readable rat-pair table")):
        target = tmp_path / "none" if not bad else ref
        argv = args[:-1] + [str(target)] + bad
        argv[argv.index(str(out))] = str(tmp_path / "out2")
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert needle in err and "--compare" in err and len(err.splitlines()) == 1, err
        assert not (tmp_path / "out2").exists()


def test_compare_command_writes_the_picture_and_refuses_other_rules(tmp_path, capsys):
    from experiments.cli import main

    runs = []
    for agent, difficulty in (("greedy", "normal"), ("heuristic", "normal"),
                              ("heuristic", "expert")):
        out = tmp_path / f"{agent}_{difficulty}"
        assert main(["river-rats", "pairs", "--players", "1", "2", "--games", "200",
                     "--batch-size", "100", "--quiet", "--out", str(out), "--agents", agent,
                     "--difficulty", difficulty]) == 0
        runs.append(str(out))
    capsys.readouterr()
    png = tmp_path / "cmp.png"
    assert main(["river-rats", "compare", runs[0], runs[1], "--out", str(png)]) == 0
    text = capsys.readouterr().out
    assert "Beside it, heuristic" in text and "2 players: heuristic" in text
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert main(["river-rats", "compare", runs[0], runs[1], "--out", str(png)]) == 2  # exists
    assert main(["river-rats", "compare", runs[0], runs[2]]) == 2
    err = capsys.readouterr().err
    assert "other rules" in err and "difficulty" in err


@pytest.mark.parametrize("counts", [[4], [1, 2], [1, 2, 3, 4]])
def test_agents_figure_keeps_title_and_legend_inside_whatever_the_player_counts(counts):
    from experiments.pairs.compare import agents_figure

    def table(shift):
        return pd.concat([_table([0.2 + shift + 0.05 * i for i in range(6)], n)
                          for n in counts])

    tables = {f"{name} (1,000,000+ games per pair)": table(s)
              for name, s in (("heuristic", 0.0), ("net", 0.1), ("pimc", 0.2))}
    fig = agents_figure(tables)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    box = fig.bbox
    texts = [fig._suptitle, *fig.legends[0].get_texts()]
    for text in texts:
        extent = text.get_window_extent(renderer)
        assert box.x0 - 1 <= extent.x0 and extent.x1 <= box.x1 + 1, text.get_text()
