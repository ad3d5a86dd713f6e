"""``boardlab river-rats pairs``: the River Rats win-rate table per Rat pair
(:mod:`experiments.river_rats_pairs`) from the command line."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from experiments.cli import QUIET_HELP, output_folder, parse_player_counts, worker_count
from experiments.options import BACKENDS



def river_rats_players(values: list[str]) -> list[int]:
    """River Rats player counts from ``--players`` (1..4; see :func:`parse_player_counts`)."""
    return parse_player_counts(values, 1, 4, "River Rats")


def _bool(v: str) -> bool:
    t = v.strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"{v!r} is not a boolean (true/false)")


def add_pairs_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``boardlab river-rats pairs`` (shared with ``make run``)."""
    from engines.river_rats.config import (
        DIFFICULTIES,
        EMPTY_DRAWS,
        FULL_HOUSE_TIES,
        PREDICTION_MATCHES,
        SET_TIES,
        TWO_PAIR_TIES,
    )
    from experiments.cli.agent_names import AGENT_NAMES
    from experiments.options import PAIRS_DEFAULT_AGENT as DEFAULT_AGENT

    p.add_argument("--players", nargs="+", default=["1..4"],
                   help="player counts: 4, or 1..4, or 2 3 (default 1..4)")
    p.add_argument("--agents", nargs="+", default=[DEFAULT_AGENT],
                   help="one policy for every seat, or a list dealt round the table (seat p "
                        "plays name p mod the list's length; comma or space separated; default "
                        f"{DEFAULT_AGENT}): River Rats' shipped agents are "
                        f"{', '.join(AGENT_NAMES['river_rats'])}")
    rules = p.add_argument_group(
        "River Rats rules options", "the rule variants and [decision]s of the rules "
        "(docs/rules/river_rats.md; the sections named in brackets); the defaults are the "
        "rules file's")
    rules.add_argument("--difficulty", choices=DIFFICULTIES, default="normal",
                       help="difficulty level: which Rat abilities and defeat bonuses apply "
                            "[Difficulty levels] (default normal)")
    rules.add_argument("--prediction-match", choices=PREDICTION_MATCHES, default="exact",
                       help="a prediction earns a joker when the players' best category is "
                            "exactly the predicted one (exact) or that category or higher "
                            "(at_least) [Resolution 1] (default exact)")
    rules.add_argument("--defeated-rat-stays", type=_bool, default=True, metavar="BOOL",
                       help="true: the first Rat's King stays in the Rat's hand for the second "
                            "Rat; false: it leaves the game [Round setup 1] (default true)")
    rules.add_argument("--first-player", type=int, default=0, metavar="SEAT",
                       help="seat (0..players-1) of the game's first turn [A turn] (default 0)")
    rules.add_argument("--empty-draw", choices=EMPTY_DRAWS, default="skip",
                       help="when a card is needed and deck and discard pile are empty: skip "
                            "the draw, or lose the game [Resolution] (default skip)")
    rules.add_argument("--first-game-defeat-bonuses", type=_bool, default=True, metavar="BOOL",
                       help="at --difficulty first_game the Rats have no abilities; true keeps "
                            "their defeat bonuses, false switches them off too (default true)")
    rules.add_argument("--full-house-ties", choices=FULL_HOUSE_TIES, default="tie",
                       help="full houses with the same three: a tie, or the pair decides "
                            "[Hand ranking] (default tie)")
    rules.add_argument("--set-ties", choices=SET_TIES, default="kickers",
                       help="four or three of a kind of the same rank: the kickers decide high "
                            "to low, or set_only: a tie [Hand ranking] (default kickers)")
    rules.add_argument("--two-pair-ties", choices=TWO_PAIR_TIES, default="pairs_then_kicker",
                       help="two pair compares the higher pair, the lower pair, then the "
                            "kicker; pairs_only ignores the kicker, higher_pair_only compares "
                            "the higher pair alone [Hand ranking] (default pairs_then_kicker)")
    p.add_argument("--games", type=int, default=10_000,
                   help="games per pair and player count (the first round with --ci-width)")
    p.add_argument("--ci-width", type=float, default=None, metavar="W",
                   help="keep adding batches until every 95%% interval is narrower than W "
                        "(e.g. 0.02 for ±1 point)")
    p.add_argument("--max-games", type=int, default=None,
                   help="cap per pair and player count with --ci-width (default 10x --games)")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--jobs", type=worker_count, default=1,
                   help="parallel workers (-1: all cores)")
    p.add_argument("--backend", choices=BACKENDS, default="loky")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="address of a running dask.distributed scheduler (--backend dask)")
    p.add_argument("--batch-size", type=int, default=5_000, help="games per batch (default 5000)")
    p.add_argument("--round-batches", type=int, default=4,
                   help="with --ci-width: batches added per pair in each round (default 4)")
    p.add_argument("--out", default=None,
                   type=output_folder,
                   help="output folder (default ROOT/river_rats/pairs_<agents>_<difficulty>"
                        "_<players>p_seed<seed> in the user's data folder, ROOT = "
                        "$BOARDLAB_AGENTS_DIR or ~/.local/share/boardlab: outside the clone); "
                        "re-running with the same folder resumes")
    p.add_argument("--compare", default=None, metavar="RUN",
                   help="a finished pairs run (its folder or pairs.csv) played under the same "
                        "rules, printed beside this one: mean win rates, the gain per pair, "
                        "the rank agreement and the pairs that move (make run: the committed "
                        "table of the learned policy net, results/river_rats/pairs_net)")
    p.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    p.add_argument("--force", action="store_true",
                   help="replace what the output folder holds (a finished run of other "
                        "settings, partial results of another experiment, or files no run "
                        "recorded), and play a finished run of the same settings again; "
                        "without it such a folder is refused, and a finished run of the same "
                        "settings is answered from its files")


def register(sub) -> None:
    """Add ``boardlab river-rats pairs`` and ``boardlab river-rats decisions``."""
    from experiments.cli.agent_names import AGENT_NAMES

    rr = sub.add_parser("river-rats", help="River Rats experiments")
    rsub = rr.add_subparsers(dest="experiment", metavar="EXPERIMENT", required=True)
    p = rsub.add_parser("pairs", help="win rate per ordered Rat pair (the main job)",
                        description=run.__doc__)
    add_pairs_arguments(p)
    p.set_defaults(func=run)
    d = rsub.add_parser("decisions", help="which decisions a strong agent makes differently "
                        "from a reference agent", description=run_decisions.__doc__)
    d.add_argument("--agent", default="pimc",
                   help="the agent that plays (default pimc; River Rats' shipped agents: "
                        f"{', '.join(AGENT_NAMES['river_rats'])})")
    d.add_argument("--reference", default="heuristic",
                   help="the agent asked at every decision (default heuristic)")
    d.add_argument("--players", nargs="+", default=["4"], help="player counts (default 4)")
    d.add_argument("--games", type=int, default=200, help="games per player count")
    d.add_argument("--rats", default=None, metavar="PAIR",
                   help="a fixed (active, waiting) pair such as DS (default: random Rats)")
    d.add_argument("--difficulty", default="normal")
    d.add_argument("--seed", type=int, default=2026)
    d.add_argument("--out", default=None, metavar="CSV",
                   help="write the summary (one row per player count and phase) to this CSV")
    d.add_argument("--decisions", default=None, metavar="CSV",
                   help="write every contested decision to this CSV")
    d.add_argument("--force", action="store_true",
                   help="replace the files named by --out and --decisions if they exist")
    d.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    d.set_defaults(func=run_decisions)
    c = rsub.add_parser("compare", help="finished rat-pair tables of several agents side by "
                        "side: rank agreement, pairs that move, one picture",
                        description=run_compare.__doc__)
    c.add_argument("runs", nargs="+", metavar="RUN",
                   help="two or more finished pairs runs (folders or pairs.csv), the reference "
                        "first; the last sorts the picture's rows")
    c.add_argument("--out", default=None, metavar="PNG",
                   help="write the picture (one panel per player count) to this file")
    c.add_argument("--force", action="store_true", help="replace the --out file if it exists")
    c.set_defaults(func=run_compare)


def run_decisions(args: argparse.Namespace) -> int:
    """Play games with --agent in every seat and, at every decision with a choice, ask
    --reference what it would do in the same state; print, per decision phase, how often the
    two differ and the most frequent change (reference kind -> agent kind)."""
    from experiments.io import atomic_write_bytes
    from experiments.pairs.decisions import decision_differences, summarize_decisions

    rats = None
    if args.rats is not None:
        r = args.rats.strip().upper()
        if len(r) != 2 or r[0] == r[1] or not set(r) <= set("CDHS"):
            raise ValueError(f"bad --rats {args.rats!r}: expected two different suit letters "
                             "of C, D, H, S, active Rat first (e.g. DS)")
        rats = (r[0], r[1])
    from engines.protocol.chance import check_seed
    from experiments.outputs import claim_file

    check_seed(args.seed, "--seed")
    for option, path in (("--out", args.out), ("--decisions", args.decisions)):
        if path:
            claim_file(path, option, args.force)
    df = decision_differences(args.agent, args.reference, river_rats_players(args.players),
                              args.games, args.seed, {"difficulty": args.difficulty}, rats,
                              progress=not args.quiet)
    import pandas as pd

    summaries = []
    with pd.option_context("display.width", 120, "display.max_colwidth", 60):
        for n, d in df.groupby("players"):
            print(f"\n{n} player(s): {d['game'].nunique()} games by {args.agent}, "
                  f"{len(d):,} decisions with a choice, {100 * d['changed'].mean():.1f}% "
                  f"differ from {args.reference} (shares in %)")
            summ = summarize_decisions(d)
            summaries.append(summ.assign(players=n, agent=args.agent, reference=args.reference))
            for c in ("changed_share", "share_of_changes", "other_kind_share",
                      "higher_card_share"):
                summ[c] = (100 * summ[c]).round(1)
            print(summ.to_string(index=False))
    for path, frame in ((args.out, lambda: pd.concat(summaries, ignore_index=True)),
                        (args.decisions, lambda: df)):
        if path:
            atomic_write_bytes(Path(path), frame().to_csv(index=False).encode())
            print(f"written: {path}")
    return 0


def run_compare(args: argparse.Namespace) -> int:
    """Compare finished rat-pair tables (the same rules, different agents): for each run after
    the first, per player count, the mean win rates, the gain per pair, Spearman's rho and the
    pairs whose rank moves against the first run; with --out, a picture of every pair's win
    rate under each agent with 95% intervals."""
    from experiments.io import atomic_write_bytes
    from experiments.outputs import claim_file
    from experiments.pairs.compare import (
        agents_label,
        agents_figure,
        format_side_by_side,
        read_table,
        rules_of,
    )

    if len(args.runs) < 2:
        raise ValueError(f"bad RUN {args.runs[0]!r}: expected two or more finished runs")
    if args.out:
        claim_file(args.out, "--out", args.force)
    tables = {}
    rules0 = None
    for path in args.runs:
        table, meta = read_table(path, "RUN")
        rules = rules_of(meta)
        if rules0 is None:
            rules0 = rules
        elif rules is not None:
            differ = sorted(k for k in rules0 if k in rules and rules[k] != rules0[k])
            if differ:
                raise ValueError(f"bad RUN {path!r}: played under other rules than "
                                 f"{args.runs[0]!r} ({', '.join(differ)}); expected runs of "
                                 "the same rules")
        label = f"{agents_label(table)} ({int(table['games'].min()):,}+ games per pair)"
        tables[label] = table
    first = next(iter(tables.values()))
    for path, table in zip(args.runs[1:], list(tables.values())[1:], strict=True):
        print(format_side_by_side(first, table, path))
    if args.out:
        import io

        buf = io.BytesIO()
        agents_figure(tables).savefig(buf, format="png", dpi=110, bbox_inches="tight")
        atomic_write_bytes(Path(args.out), buf.getvalue())
        print(f"written: {args.out}")
    return 0


def _agent_names(args: argparse.Namespace) -> list[str]:
    """``--agents`` as a list of names (comma or space separated); ``ValueError`` when it
    names none (``--agents ""``)."""
    names = [a.strip() for v in args.agents for a in v.split(",") if a.strip()]
    if not names:
        raise ValueError(f"bad --agents {' '.join(args.agents)!r}: expected one or more "
                         "policy names, e.g. heuristic")
    return names


EXPERIMENT = "river-rats pairs"
"""The experiment name in ``metadata.json`` and in the settings of :func:`run_settings`."""


def run_settings(spec, batch_size: int, ci_width, max_games, round_batches) -> dict:
    """What determines the numbers of a pairs run (compared with a finished run's
    ``metadata.json`` by :func:`experiments.outputs.claim_folder`): the player counts, agents,
    every rules field (defaults filled in), games, seed, batch size and, with ``ci_width``, the
    interval's stopping options."""
    from engines.river_rats import RiverRatsConfig

    rules = RiverRatsConfig(n_players=1, rats=("C", "D"), **spec.rules).to_dict()
    for key in ("n_players", "rats"):
        rules.pop(key, None)
    return {"experiment": EXPERIMENT, "players": [int(n) for n in spec.players],
            "agents": spec.agents if isinstance(spec.agents, str) else list(spec.agents),
            "rules": rules, "games": spec.games, "seed": spec.seed, "batch_size": batch_size,
            "ci_width": ci_width, "max_games": max_games if ci_width is not None else None,
            "round_batches": round_batches if ci_width is not None else None}


def legacy_settings(meta: dict) -> dict:
    """:func:`run_settings` of a ``metadata.json`` written before it stored ``"settings"``
    (its ``spec``, first ``configs`` entry, batch size, interval options and command line).
    Raises ``KeyError``/``TypeError`` when the file lacks them."""
    import re

    from engines.river_rats import RiverRatsConfig
    from experiments.pairs.job import PairsSpec

    if meta.get("experiment") != EXPERIMENT:
        return {"experiment": meta.get("experiment") or meta.get("kind")}
    spec = meta["spec"]
    rules = RiverRatsConfig.from_dict(next(iter(meta["configs"].values()))).to_dict()
    for key in ("n_players", "rats"):
        rules.pop(key, None)
    m = re.search(r"--round-batches[ =](\d+)", meta.get("command") or "")
    return run_settings(PairsSpec(players=spec["players"], agents=spec["agents"], rules=rules,
                                  games=spec["games_per_pair"], seed=spec["seed"]),
                        meta["batch_size"], meta.get("ci_width"), meta.get("max_games"),
                        int(m.group(1)) if m else 4)


def spec_from_args(args: argparse.Namespace):
    """The :class:`PairsSpec` that the command-line options describe."""
    from experiments.pairs.job import PairsSpec

    agents = _agent_names(args)
    rules = {"difficulty": args.difficulty, "prediction_match": args.prediction_match,
             "defeated_rat_stays": args.defeated_rat_stays, "first_player": args.first_player,
             "empty_draw": args.empty_draw,
             "first_game_defeat_bonuses": args.first_game_defeat_bonuses,
             "full_house_ties": args.full_house_ties, "set_ties": args.set_ties,
             "two_pair_ties": args.two_pair_ties}
    return PairsSpec(players=river_rats_players(args.players),
                     agents=agents[0] if len(agents) == 1 else agents,
                     rules=rules, games=args.games, seed=args.seed)


def default_out(spec) -> Path:
    """Deterministic default output folder of a spec (so the same command resumes):
    ``ROOT/river_rats/pairs_<agents>_<difficulty>_<players>p_seed<seed>`` in the user's data
    folder (ROOT: :func:`experiments.tournament.games.store_root`, ``$BOARDLAB_AGENTS_DIR`` or
    ``~/.local/share/boardlab``), outside the repository: a user's runs never dirty the
    clone."""
    from experiments.tournament.games import store_root

    agents = spec.agents if isinstance(spec.agents, str) else "-".join(spec.agents)
    players = "".join(str(n) for n in spec.players)
    return store_root() / "river_rats" / (
        f"pairs_{agents}_{spec.rules.get('difficulty', 'normal')}_{players}p_seed{spec.seed}")


def run(args: argparse.Namespace) -> int:
    """Estimate the players' win rate for each of the 12 ordered Rat pairs (active, waiting)
    at each player count, on common random numbers, and write CSV/Parquet tables, a heatmap,
    a bar chart of the 6 unordered pairs and a metadata JSON into the output folder."""
    agents = set(_agent_names(args))
    if len(agents) == 1 and args.scheduler is None:
        # one policy at every seat: on a cold kernel cache it compiles in a second process
        # from now on, while this one imports the rest (agents.precompile)
        from agents.precompile import start

        start("river_rats", agents.pop())
    from experiments.outputs import check_writable, claim_folder
    from experiments.pairs.job import OUTPUT_FILES, format_table, run_pairs, write_outputs

    spec = spec_from_args(args)
    spec.cells()  # bad rules or agents: one line before anything is looked at on disk
    out = Path(args.out) if args.out else default_out(spec)
    settings = run_settings(spec, args.batch_size, args.ci_width, args.max_games,
                            args.round_batches)
    compare = _compare_table(args.compare, settings["rules"])
    claim = claim_folder(out, experiment=EXPERIMENT, settings=settings, outputs=OUTPUT_FILES,
                         force=args.force, legacy=legacy_settings)
    if claim.finished:
        return _answer_from(claim, format_table, compare)
    check_writable(out)
    t0 = time.perf_counter()
    pairs, result = run_pairs(spec, n_jobs=args.jobs, backend=args.backend,
                              scheduler=args.scheduler, out_dir=out, ci_width=args.ci_width,
                              max_games=args.max_games, batch_size=args.batch_size,
                              group_batches=args.round_batches, progress=not args.quiet,
                              overwrite=args.force)
    wall = time.perf_counter() - t0
    paths = write_outputs(out, pairs, result, spec,
                          extra_meta={"settings": settings,
                                      "command": "boardlab " + " ".join(sys.argv[1:]),
                                      "ci_width": args.ci_width, "max_games": args.max_games,
                                      "total_wall_time_s": wall})
    print(format_table(pairs))
    _print_beside(pairs, compare)
    rate = result.games_played / result.wall_time if result.wall_time else float("nan")
    workers = (f"the workers of the scheduler at {args.scheduler}" if args.scheduler
               else f"{result.meta['n_jobs']} job(s)")
    compiled = ("compilation on the workers included" if args.scheduler else
                f"compilation excluded: {result.setup_time:.1f} s before the play starting "
                "workers and compiling or loading the kernels")
    print(f"\n{int(pairs['games'].sum()):,} games in all; this run played "
          f"{result.games_played:,} games in {result.wall_time:.1f} s of play ({rate:,.0f} "
          f"games/s, {workers}, backend {args.backend}; {compiled}); resumed "
          f"{result.resumed_batches} batches")
    print(f"results in {out}/: " + ", ".join(p.name for p in paths.values()))
    return 0


def _compare_table(path: str | None, rules: dict):
    """``--compare``: (the finished table at ``path``, its description) or ``None``; read and
    checked before anything is played. ``ValueError`` (one line, naming the option as given)
    when it is missing, not a rat-pair table, or played under other rules than ``rules``."""
    if path is None:
        return None
    from experiments.pairs.compare import read_table, rules_of

    table, meta = read_table(path)
    theirs = rules_of(meta)
    if theirs is not None:
        differ = sorted(k for k in rules if k in theirs and theirs[k] != rules[k])
        if differ:
            shown = ", ".join(f"{k}={theirs[k]!r} (here {rules[k]!r})" for k in differ)
            raise ValueError(f"bad --compare {path!r}: played under other rules: {shown}; "
                             "expected a run of the same rules")
    return table, f"{path}, given by --compare"


def _print_beside(pairs, compare) -> None:
    """Print :func:`experiments.pairs.compare.format_side_by_side` of ``compare`` (from
    :func:`_compare_table`) under the table, if given."""
    if compare is None:
        return
    from experiments.pairs.compare import format_side_by_side

    print(format_side_by_side(pairs, compare[0], compare[1]))


def _answer_from(claim, format_table, compare=None) -> int:
    """Print the table of the finished run in ``claim.folder`` (its ``pairs.csv``): nothing is
    played or written."""
    import pandas as pd

    path = claim.folder / "pairs.csv"
    try:
        pairs = pd.read_csv(path)
    except (OSError, ValueError) as exc:
        raise ValueError(f"{claim.folder} holds a finished run of these settings but its "
                         f"pairs.csv cannot be read ({type(exc).__name__}): add --force to "
                         "play it again") from None
    print(format_table(pairs))
    _print_beside(pairs, compare)
    when = claim.meta.get("written_utc") or ""
    print(f"\nanswered from the finished run in {claim.folder}/ ({int(pairs['games'].sum()):,} "
          f"games{', written ' + when if when else ''}): nothing was played; add --force to "
          "play it again")
    return 0
