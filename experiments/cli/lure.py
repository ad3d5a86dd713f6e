"""``boardlab lure ...``: the Lure fish-card tools.

* ``boardlab lure balance [--cards FILE] [--players 2..5] [--deep-waters] [--agents ...]``:
  the fish-card balance report (:mod:`experiments.lure.balance`) under ``results/lure/``;
* ``boardlab lure odds [--cards FILE] [--deep-waters]``: exact catch probabilities per card;
* ``boardlab lure card SPEC``: one proposed or changed card's exact odds and fair points
  (:mod:`experiments.lure.card`); ``lure balance --what-if SPEC`` re-runs the report with it;
* ``boardlab lure rebalance [--goal win-diff|curve] ...``: the fewest and smallest card
  changes that meet a goal, verified on fresh seeds (:mod:`experiments.lure.rebalance`) under
  ``results/lure/rebalance/``.

Agents' win rates: ``boardlab winrates lure``; tuning: ``boardlab tune lure heuristic``;
playing: ``boardlab play lure`` (one command line for every game).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from experiments.cli import QUIET_HELP, output_folder, parse_player_counts
from experiments.lure.defaults import (
    BALANCE_GAMES,
    DEFAULT_AGENTS,
    DEFAULT_GOAL,
    REFERENCE_AGENTS,
    STYLE_GAMES,
    VERIFY_GAMES,
    resolve_compare,
)


def parse_players(text: str) -> list[int]:
    """``"2..5"``, ``"2-5"``, ``"2,4"`` or ``"3"`` -> sorted player counts in 2..5
    (:func:`experiments.cli.parse_player_counts`).

    Raises:
        ValueError: unreadable text or a count outside 2..5.
    """
    return parse_player_counts(text, 2, 5, "Lure")


def _game_arguments(p, agents_note: str) -> None:
    """The options every simulating Lure command shares: --cards, --players, --deep-waters,
    --agents (``agents_note`` ends the latter's help)."""
    p.add_argument("--cards", help="fish deck CSV (default: the reconstructed deck)")
    p.add_argument("--players", default="2..5", help="player counts, e.g. 2..5, 4 or 2,4")
    p.add_argument("--deep-waters", action="store_true", help="play with Deep Waters")
    p.add_argument("--agents", nargs="+", default=list(DEFAULT_AGENTS),
                   help=f"agents by seat, cycled over the seats {agents_note}")
    p.add_argument("--quiet", action="store_true", help=QUIET_HELP)


def register(sub) -> None:
    """Add ``boardlab lure`` (balance, odds, card, rebalance)."""
    p = sub.add_parser("lure", help="Lure: fish-card balance report and exact catch odds")
    lsub = p.add_subparsers(dest="lure_command", metavar="ACTION", required=True)

    b = lsub.add_parser(
        "balance", help="write the fish-card balance report under results/lure/",
        description="Exact catch odds, a points-vs-difficulty fit with over-/under-valued "
                    "flags, and simulated games per player count (compiled loop on the "
                    "experiment runner: parallel with --jobs, reproducible for any number of "
                    "workers, resumable from the output folder).")
    _game_arguments(b, f"(default {', '.join(DEFAULT_AGENTS)}: the learned policy, strong "
                       "and affordable; heuristic for the fast tuned rules); commas also "
                       "separate names")
    b.add_argument("--compare-agents", default=None, metavar="AGENTS",
                   help="also play the same games with these agents (comma-separated, cycled "
                        "over the seats) and list which cards' verdicts change and why "
                        f"(verdicts.csv); default {', '.join(REFERENCE_AGENTS)} (none when "
                        "--agents is already that); none: no comparison")
    b.add_argument("--games", type=int, default=BALANCE_GAMES,
                   help=f"games per player count in each of the two seed sets ({BALANCE_GAMES}; "
                        "played by --agents and again by --compare-agents)")
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--jobs", type=int, default=1, help="worker processes (-1: all cores)")
    b.add_argument("--batch-size", type=int, default=5000,
                   help="games per work unit (the numbers depend on it, not on --jobs)")
    b.add_argument("--out", type=output_folder,
                   help="output folder (default results/lure/<base|deep_waters>)")
    b.add_argument("--force", action="store_true",
                   help="overwrite a report made with other settings (otherwise an error)")
    b.add_argument("--what-if", default=None, metavar="SPEC",
                   help="re-run the report with one card changed or added, e.g. "
                        "'B17: points=7' or 'cn=14; pair; points=5' (default output folder "
                        "results/lure/what_if/<spec>_<base|deep_waters>)")
    b.set_defaults(func=_balance)

    c = lsub.add_parser(
        "card", help="exact catch odds and fair points of one proposed or changed card",
        description="Exact catch probability of a proposed card (or of a deck card with a "
                    "change) for every loadout, its difficulty, and the points the current "
                    "deck's points-vs-difficulty curve gives it. SPEC: items separated by ';', "
                    "KEY=VALUE (points/pts, catch_number/cn, requirements/req, splash, trophy, "
                    "set, name) or a bare requirement code (pair, distinct, lure, no_lure, "
                    "special2, odd, even, stubborn, has:V[,V...]); 'B17: points=7' changes "
                    "card B17.")
    c.add_argument("spec", metavar="SPEC", help="e.g. 'cn=14; pair' or 'B17: points=7'")
    c.add_argument("--cards", help="fish deck CSV (default: the reconstructed deck)")
    c.add_argument("--deep-waters", action="store_true",
                   help="odds with the Deep Waters special die (d4) and curve of the whole deck")
    c.add_argument("--csv", help="also write P(catch) of every loadout and lure plan here")
    c.add_argument("--force", action="store_true", help="replace the --csv file if it exists")
    c.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    c.set_defaults(func=_card)

    r = lsub.add_parser(
        "rebalance", help="propose the fewest card changes that meet a balance goal",
        description="Propose the fewest card changes that meet a goal, the way a designer "
                    "would, and recommend them only when they are better than the deck as it "
                    "is. Goals: points (default): every card's points fair for what it takes "
                    "to catch it: within +-TOLERANCE of the robust points-vs-difficulty curve "
                    "(exact odds; the changes are the exact fixes of the cards off it, points "
                    "kept in the order of difficulty) and not off by as much in play on two "
                    "fresh seed sets (the catcher's win advantage with its rise per point and "
                    "per unit of difficulty removed, in card points); curve: the exact part "
                    "alone; win-diff: every card's catcher win advantage within "
                    "+-TOLERANCE percentage points of the target (simulated search, resumed "
                    "from the output folder when run again). Never worse: on fresh seeds, by "
                    "the goal's own measure, the proposal must leave fewer cards off (or as "
                    "many, less far off) and hand no play style the game (the styles cautious, "
                    "bold, greedy, heuristic and net at one table, before and after, on the "
                    "same deals); otherwise 'no change recommended' (deck.csv is then the "
                    "original deck, rejected_deck.csv the proposal). Writes deck.csv "
                    "(loadable by --cards), what changed and why, the cards still off with "
                    "what holds each, and a before/after report. Exit status: 0 recommended "
                    "(or nothing to change) and every card meets the goal on the fresh seeds; "
                    "3 some card is still off it (listed); 4 no change recommended; 2 bad "
                    "input; 1 a file or folder cannot be written; 130 interrupted (run again "
                    "to resume).")
    r.add_argument("--goal", default=DEFAULT_GOAL,
                   help="points (default), curve or win-diff")
    r.add_argument("--tolerance", default=None,
                   help="win-diff: percentage points of win rate (default 5); points, curve: "
                        "card points (default the balance report's threshold, "
                        "max(2, 1.5 x robust sigma of the curve's residuals))")
    r.add_argument("--target", default=None,
                   help="win-diff: the win diff every card should have, percentage points "
                        "(default median: the start deck's median card per player count)")
    r.add_argument("--curve", default="fit",
                   help="fit (the balance report's quadratic, default) or proportional "
                        "(points = k x difficulty): the curve goal's curve, and the curve "
                        "cards nobody can catch are put on")
    _game_arguments(r, f"(default {', '.join(DEFAULT_AGENTS)}, the learned policy; "
                       "heuristic for the fast tuned rules; search agents allowed, slow)")
    r.add_argument("--change", default="all",
                   help="card ids that may change, comma-separated (default all)")
    r.add_argument("--fields", default="points",
                   help="fields that may change: points, catch_number, requirements, splash "
                        "(comma-separated; default points)")
    r.add_argument("--points-range", default=None,
                   help="allowed points LO..HI (default the deck's lowest..highest)")
    r.add_argument("--requirements-whitelist", default=None,
                   help="requirement sets a card may take, e.g. 'pair,distinct,has:1,5,none' "
                        "(+ joins codes: odd+pair); default the sets the deck uses and none")
    r.add_argument("--trials", type=int, default=60,
                   help="win-diff: complete trials of the search (the start deck counts)")
    r.add_argument("--games", type=int, default=4000,
                   help="win-diff: games per player count per trial (the same seeds for every "
                        "trial)")
    r.add_argument("--verify-games", type=int, default=None,
                   help=f"games per player count of each deck on fresh seeds (default "
                        f"{VERIFY_GAMES}: in each of two seed sets for the points goal, one set "
                        f"for curve; 20000 for win-diff)")
    r.add_argument("--styles-games", type=int, default=STYLE_GAMES,
                   help=f"games per seat order and deck of the play styles' table ({STYLE_GAMES};"
                        " 5 seat orders; 0: no table)")
    r.add_argument("--screen-games", type=int, default=None,
                   help="win-diff: games per player count of the start deck for the evidence "
                        "rule (which cards are off their band, and the confirmation; default "
                        "--verify-games, so that the evidence has the power of the check)")
    r.add_argument("--seed", type=int, default=0,
                   help="seed of the search (the verification uses seed + 1, the "
                        "confirmation of the flagged cards seed + 2)")
    r.add_argument("--jobs", type=int, default=1, help="worker processes (-1: all cores)")
    r.add_argument("--batch-size", type=int, default=1000,
                   help="games per work unit (the numbers depend on it, not on --jobs)")
    r.add_argument("--out", type=output_folder,
                   help="output folder (default results/lure/rebalance/"
                                 "<goal>_<base|deep_waters>)")
    r.add_argument("--force", action="store_true",
                   help="start over in a folder holding a rebalance with other settings")
    r.add_argument("--allow-reorder", action="store_true",
                   help="lift the order constraint (by default no change puts a harder card "
                        "below an easier one in points, beyond pairs the deck already had so)")
    r.add_argument("--method", default="model",
                   help="win-diff search: model (model steps, default), front (the exact "
                        "front's proposals, then model steps) or tpe (an optuna TPE study over "
                        "the same cards); see benchmarks/rebalance.py")
    r.add_argument("--correction", default="holm",
                   help="multiple-comparison correction over cards x player counts: holm "
                        "(default) or bh (Benjamini-Hochberg)")
    r.add_argument("--alpha", default=0.05,
                   help="level of the corrected tests (default 0.05)")
    r.add_argument("--compare-agents", default=None, metavar="AGENTS",
                   help="win-diff: also play both decks with these agents (comma-separated, "
                        "cycled over the seats) and report which cards' verdicts change and "
                        f"why; default {', '.join(REFERENCE_AGENTS)} for the win-diff goal "
                        "(none when --agents is already that, and for the curve goal); none: "
                        "no comparison")
    r.add_argument("--compare-games", type=int, default=None,
                   help="games per player count and deck for --compare-agents (default "
                        "--verify-games, the check's power; give fewer for a slow search "
                        "agent)")
    r.set_defaults(func=_rebalance)

    o = lsub.add_parser("odds", help="exact catch probabilities of every card")
    o.add_argument("--cards", help="fish deck CSV (default: the reconstructed deck)")
    o.add_argument("--deep-waters", action="store_true", help="with the Deep Waters cards")
    o.add_argument("--csv", help="also write the table to this CSV file")
    o.add_argument("--force", action="store_true", help="replace the --csv file if it exists")
    o.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    o.set_defaults(func=_odds)


def _deck(path):
    from engines.lure.decks import load_deck

    return load_deck(path) if path else None


def _balance_agents(values) -> list[str]:
    """``--agents`` values (names, also comma-separated) -> names; ``ValueError`` naming the
    option for an unknown name."""
    from agents.policy import names

    out = [x.strip() for v in values for x in v.split(",") if x.strip()]
    known = names("lure")
    if not out:
        raise ValueError("--agents is empty: expected Lure agent names, e.g. heuristic")
    for x in out:
        if x not in known:
            raise ValueError(f"bad --agents {x!r}: expected names among {', '.join(known)}")
    return out


def _compare_agents(agents: list[str], value) -> list[str] | None:
    """``--compare-agents`` -> names or ``None`` (:func:`experiments.lure.defaults.
    resolve_compare`); ``ValueError`` naming the option for an unknown name."""
    names = resolve_compare(agents, value)
    if names is None:
        return None
    try:
        return _balance_agents(names)
    except ValueError as exc:
        raise ValueError(str(exc).replace("--agents", "--compare-agents")
                         + ", or none") from None


def _check_int(value, option: str, lo: int, what: str) -> None:
    if value < lo:
        raise ValueError(f"bad {option} {value}: expected {what}")


def _check_jobs(jobs: int) -> None:
    if jobs == 0 or jobs < -1:
        raise ValueError(f"bad --jobs {jobs}: expected a positive integer or -1 (all cores)")


def _balance(args: argparse.Namespace) -> int:
    from experiments.lure.balance import run_balance

    players = parse_players(args.players)
    agents = _balance_agents(args.agents)
    compare = _compare_agents(agents, args.compare_agents)
    _check_int(args.games, "--games", 1, "an integer >= 1 (games per player count)")
    _check_int(args.batch_size, "--batch-size", 1, "an integer >= 1")
    _check_int(args.seed, "--seed", 0, "an integer >= 0")
    _check_jobs(args.jobs)
    from experiments.outputs import lure_balance_out_dir, lure_what_if_out_dir

    deck = _deck(args.cards)
    if args.what_if is not None:
        from engines.lure.decks import default_deck
        from experiments.lure.card import apply_card_spec, card_report, format_report

        base = deck or default_deck()
        print(format_report(card_report(base, args.what_if, args.deep_waters)) + "\n")
        deck = apply_card_spec(base, args.what_if)[0]
        if args.out is None:
            args.out = str(lure_what_if_out_dir(args.what_if, args.deep_waters))
    from engines.lure.decks import default_deck
    from experiments.lure.balance import balance_settings, claim_balance_folder

    base_deck = deck or default_deck()
    out = Path(args.out) if args.out else lure_balance_out_dir(base_deck, args.deep_waters)
    claim = claim_balance_folder(out, balance_settings(base_deck, players, args.deep_waters,
                                                       agents, args.games, args.seed,
                                                       args.batch_size, compare), args.force)
    cmd = "boardlab " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:] else ""
    if not cmd.startswith("boardlab lure balance"):
        cmd = "boardlab lure balance"
    out = run_balance(deck, players, args.deep_waters, agents, args.games,
                      args.seed, out, args.jobs, batch_size=args.batch_size, command=cmd,
                      progress=_progress(args), overwrite=args.force, compare_agents=compare)
    if args.what_if is not None and not claim.finished:
        from engines.lure.decks import write_deck

        write_deck(deck, out / "deck.csv", comment=f"what if: {args.what_if}")
        print(f"the changed deck: {out / 'deck.csv'} (loadable with --cards)")
    _print_flags(out)
    if claim.finished:
        print(f"answered from the finished report in {out}/: nothing was played; add --force "
              "to play it again")
    else:
        print(f"wrote {out / 'report.md'}")
    return 0


def _progress(args: argparse.Namespace) -> bool:
    """Show the progress bar and notes: on a terminal, unless ``--quiet``."""
    return sys.stderr.isatty() and not getattr(args, "quiet", False)


def _print_flags(out: Path) -> None:
    """Print who played and every card's verdict of the report in ``out`` (its
    ``verdicts.csv`` and fit) and, when it compared two sets of players, the play verdicts
    that change (its ``players_verdicts.csv``)."""
    import pandas as pd

    from experiments.io import read_json
    from experiments.lure.fair_points import verdict_lines
    from experiments.lure.verdicts import who_played

    meta = read_json(out / "metadata.json")
    compare = meta.get("compare_agents")
    print(who_played(meta["agents"], compare, meta.get("n_games_per_player_count"))
          + f"; two seed sets {tuple(meta.get('seed_sets') or ())}")
    verdicts = pd.read_csv(out / "verdicts.csv")
    players = (pd.read_csv(out / "players_verdicts.csv")
               if compare and (out / "players_verdicts.csv").is_file() else None)
    print("\n".join(verdict_lines(verdicts, meta["fit"]["threshold"], players,
                                  ", ".join(meta["agents"]), ", ".join(compare or []))))


def _card(args: argparse.Namespace) -> int:
    """``boardlab lure card SPEC``: :func:`experiments.lure.card.card_report` printed."""
    from engines.lure.decks import default_deck
    from experiments.lure.card import card_report, format_report
    from experiments.outputs import claim_file

    if args.csv:
        claim_file(args.csv, "--csv", args.force)
    rep = card_report(_deck(args.cards) or default_deck(), args.spec, args.deep_waters)
    print(format_report(rep))
    if args.csv:
        from experiments.io import atomic_write_text

        atomic_write_text(args.csv, rep["long"].to_csv(index=False))
        print(f"every loadout written to {args.csv}")
    return 0


def _odds(args: argparse.Namespace) -> int:
    import pandas as pd

    from experiments.lure.curve import add_fit
    from experiments.lure.odds import card_table

    from engines.lure.decks import default_deck
    from experiments.outputs import claim_file

    if args.csv:
        claim_file(args.csv, "--csv", args.force)
    deck = _deck(args.cards) or default_deck()
    cards, _ = add_fit(card_table(deck, args.deep_waters)[0])
    cols = ["id", "points", "catch_number", "requirements"] + [c for c in cards.columns
                                                               if c.startswith("p_")]
    cols += ["cheapest_50", "cheapest_90", "difficulty", "fair_points", "flag"]
    with pd.option_context("display.width", 250, "display.max_columns", 40):
        print(cards[cols].round(3).to_string(index=False))
    if args.csv:
        from experiments.io import atomic_write_text

        atomic_write_text(args.csv, cards.to_csv(index=False))
        print(f"table written to {args.csv}")
    return 0


def _rebalance(args: argparse.Namespace) -> int:
    """``boardlab lure rebalance``: :func:`experiments.lure.rebalance.rebalance`, printed."""
    from experiments.lure.rebalance import rebalance

    players = parse_players(args.players)
    agents = _balance_agents(args.agents)
    _check_jobs(args.jobs)
    if args.compare_agents is None and args.goal.strip().lower() != "win-diff":
        compare = None  # the default comparison: only where games judge the cards
    else:
        compare = _compare_agents(agents, args.compare_agents)
    cmd = "boardlab " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:] else ""
    if not cmd.startswith("boardlab lure rebalance"):
        cmd = "boardlab lure rebalance"
    res = rebalance(_deck(args.cards), args.goal, tolerance=args.tolerance,
                    target=args.target, curve=args.curve, players=players,
                    deep_waters=args.deep_waters, agents=agents, change=args.change,
                    fields=args.fields, points_range=args.points_range,
                    requirements_whitelist=args.requirements_whitelist,
                    n_trials=args.trials, n_games=args.games, verify_games=args.verify_games,
                    seed=args.seed, n_jobs=args.jobs, batch_size=args.batch_size,
                    out=args.out, overwrite=args.force, progress=_progress(args),
                    command=cmd, method=args.method, correction=args.correction,
                    alpha=args.alpha, allow_reorder=args.allow_reorder,
                    compare_agents=compare, compare_games=args.compare_games,
                    screen_games=args.screen_games, styles_games=args.styles_games)
    print(_rebalance_players(res.out))
    print(res.summary())
    print(f"the proposed deck: {res.out / 'deck.csv'} (loadable with --cards)")
    if not hasattr(res, "meta"):  # a FinishedRebalance says where its answer came from
        print(f"wrote {res.out / 'report.md'}")
    return res.exit_status


def _rebalance_players(out: Path) -> str:
    """Who played a rebalance and, when it compared, how many verdicts change (from
    ``out/metadata.json``; one line)."""
    from experiments.io import read_json
    from experiments.lure.verdicts import who_played

    meta = read_json(Path(out) / "metadata.json")
    cmp = meta.get("compare") or {}
    text = who_played(meta.get("agents") or [], cmp.get("agents"))
    if cmp:
        text += (f" ({cmp.get('games')} games per player count and deck): "
                 f"{meta.get('compare_changed_verdicts')} verdict(s) change (report.md, "
                 "compare_agents.csv)")
    return text
