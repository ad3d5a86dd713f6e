"""``boardlab learn collect|train|evaluate|value-collect|value-train``: the pipeline of the
learned policy ``net`` (:mod:`agents.net`, :mod:`experiments.learn`) and of the learned value
(:mod:`agents.value`).

- ``collect GAME --out DIR``: teacher decisions (PIMC action values, the information-state
  tensor, legal actions, player count) on seeded games through the runner; ``--student FILE``
  makes it a DAgger round (the student plays, the teacher labels).
- ``train DIR[,DIR...] --out FILE``: train on one or more data folders (needs the ``learn``
  extra: jax, optax), calibrate how far the network trusts its prior (the heuristic) on
  seeded calibration deals (:mod:`experiments.learn.calibrate`); writes the weights file and
  its model card.
- ``evaluate GAME``: ``net`` (the shipped weights, or ``--weights FILE``) against the heuristic
  and the teacher on the same deals, with 95% intervals and games/s on one core.
- ``value-collect GAME --out DIR``: self-play games of ``net`` (``--policy``), a few positions
  of each with the seat's final return (:mod:`experiments.learn.value_data`).
- ``value-train DIR[,DIR...] --out FILE``: the value network on them
  (:mod:`experiments.learn.value_train`); ship it as ``agents/weights/<game>_value.npz``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from engines.names import GAME_NAMES
from experiments.cli import QUIET_HELP, GameChoices

GAME_CHOICES = GameChoices(GAME_NAMES)


def register(sub) -> None:
    """Add ``boardlab learn`` to the command line (``sub``: the top-level subparsers)."""
    p = sub.add_parser("learn", help="learned policy net: collect teacher data, train, evaluate",
                       description=__doc__.split("\n\n")[0])
    lsub = p.add_subparsers(dest="learn_command", metavar="STEP", required=True)
    c = lsub.add_parser("collect", help="teacher decisions on seeded games (resumable)")
    c.add_argument("game", choices=GAME_CHOICES, metavar="GAME")
    c.add_argument("--out", required=True, help="data folder (meta.json, data/*.npz)")
    c.add_argument("--players", default=None, help="player counts, e.g. 1..4 or 2,4 "
                   "(default: every count of the game)")
    c.add_argument("--games", type=int, default=1000, help="games per player count")
    c.add_argument("--teacher", default="pimc",
                   help="PIMC preset, or net-search-fast / net-search / net-search-strong for "
                        "a round of expert iteration (default pimc)")
    c.add_argument("--student", default=None, metavar="WEIGHTS",
                   help="DAgger round: this weights file plays, the teacher labels")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--jobs", type=int, default=1, help="worker processes (-1: all cores)")
    c.add_argument("--batch-size", type=int, default=50,
                   help="games per work unit and file (the data depend on it, not on --jobs)")
    c.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    c.set_defaults(func=_collect)
    t = lsub.add_parser("train", help="train net on collected data (learn extra)")
    t.add_argument("data", help="data folders, comma-separated (behaviour cloning + DAgger)")
    t.add_argument("--out", required=True, help="weights file to write (.npz; its model card "
                   "is written beside it as .md)")
    t.add_argument("--force", action="store_true",
                   help="replace an existing weights file or model card at --out")
    t.add_argument("--max-decisions", type=int, default=None)
    for k, v, what in (
            ("h1", 64, "first hidden layer's units"), ("h2", 32, "second hidden layer's units"),
            ("epochs", 4, "passes over the training decisions"),
            ("batch", 512, "decisions per minibatch"), ("lr", 1e-3, "Adam's learning rate"),
            ("tau", 0.1, "temperature of the target softmax over the teacher's values "
             "(teacher value units)"),
            ("mix", 1.0, "share of softmax(values / tau) in the target, the rest the teacher's "
             "one-hot choice"),
            ("holdout", 0.05, "share of games held out"), ("seed", 0, "training seed"),
            ("prior", 1, "format 1: 1 the heuristic's choice is an input, 0 the tensor only"),
            ("regret", 0.0, "weight of the expected-regret term of the loss")):
        t.add_argument(f"--{k}", type=type(v), default=v, help=f"{what} (default {v})")
    t.add_argument("--model", choices=("auto", "tensor", "features"), default="auto",
                   help="tensor: format 1 (the information-state tensor with the heuristic's "
                   "choice); features: format 2 (the game's action features); auto: features "
                   "when the data carry them")
    t.add_argument("--calibrate-players", type=int, default=4,
                   help="calibrate the prior's gate at this player count (0: do not)")
    t.add_argument("--calibrate-deals", type=int, default=1000)
    t.set_defaults(func=_train)
    e = lsub.add_parser("evaluate", help="net against the heuristic and the teacher")
    e.add_argument("game", choices=GAME_CHOICES, metavar="GAME")
    e.add_argument("--weights", default=None, help="weights file (default: the shipped one)")
    e.add_argument("--players", type=int, default=4)
    e.add_argument("--deals", type=int, default=2000)
    e.add_argument("--against", default="heuristic,pimc-fast",
                   help="agents judged beside net on the same deals")
    e.add_argument("--seed", type=int, default=12345, help="deal seed (not a training seed)")
    e.add_argument("--json", default=None, metavar="FILE", help="also write the rows as JSON")
    e.set_defaults(func=_evaluate)
    vc = lsub.add_parser("value-collect", help="self-play positions and their outcomes for the "
                         "learned value (resumable)")
    vc.add_argument("game", choices=GAME_CHOICES, metavar="GAME")
    vc.add_argument("--out", required=True, help="data folder (meta.json, data/*.npz)")
    vc.add_argument("--players", default=None, help="player counts, e.g. 1..4 (default: every "
                    "count of the game)")
    vc.add_argument("--games", type=int, default=10000, help="games per player count")
    vc.add_argument("--policy", default="net", help="the policy of every seat (default net)")
    vc.add_argument("--every", type=int, default=20,
                    help="record about one unforced decision in EVERY (default 20)")
    vc.add_argument("--seed", type=int, default=0)
    vc.add_argument("--jobs", type=int, default=1, help="worker processes (-1: all cores)")
    vc.add_argument("--batch-size", type=int, default=5000,
                    help="games per work unit and file (the data depend on it, not on --jobs)")
    vc.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    vc.set_defaults(func=_value_collect)
    vt = lsub.add_parser("value-train", help="train the learned value on value data (learn "
                         "extra)")
    vt.add_argument("data", help="value data folders, comma-separated")
    vt.add_argument("--out", required=True, help="value weights file to write (.npz; its model "
                    "card beside it as .md)")
    vt.add_argument("--force", action="store_true",
                    help="replace an existing weights file or model card at --out")
    from experiments.learn.value_train import VALUE_DEFAULTS

    for k, v in VALUE_DEFAULTS.items():
        vt.add_argument(f"--{k}", type=type(v), default=v, help=f"(default {v})")
    vt.set_defaults(func=_value_train)


def _counts(text, game):
    from engines.protocol import core_of
    from experiments.cli import parse_player_counts

    C = core_of(game)
    if text is None:
        return list(range(C.MIN_PLAYERS, C.MAX_PLAYERS + 1))
    return parse_player_counts(text, C.MIN_PLAYERS, C.MAX_PLAYERS, game)


def _collect(args: argparse.Namespace) -> int:
    from experiments.learn.collect import run_collect

    res = run_collect(args.game, args.out, _counts(args.players, args.game), args.games,
                      teacher=args.teacher, student=args.student, seed=args.seed,
                      jobs=args.jobs, batch_size=args.batch_size, progress=not args.quiet)
    dec = sum(int(t["decisions"]) for t in res.totals)
    print(f"{args.out}: {int(res.games.sum())} games, {dec} decisions "
          f"({res.wall_time:.0f} s this run)")
    return 0


def _train(args: argparse.Namespace) -> int:
    from experiments.learn.card import write_card
    from experiments.learn.data import load_dataset
    from experiments.learn.train import DEFAULTS, save_weights, train

    _check_train_options(args)
    ds = load_dataset([d for d in args.data.split(",") if d], args.max_decisions)
    st = {k: getattr(args, k) for k in DEFAULTS if hasattr(args, k)}
    w, info = train(ds, st)
    path = save_weights(args.out, ds.game, w, info)
    if args.calibrate_players and info.get("model") != "features":  # format 2 has no gate
        from experiments.learn.calibrate import calibrate

        cal = calibrate(path, args.calibrate_players, args.calibrate_deals)
        print(f"gate shift {cal['shift']:+.2f} (calibration deals at "
              f"{args.calibrate_players} players)")
    card = write_card(path)
    print(f"{path}: weights written; model card {card}")
    return 0


def _check_train_options(args: argparse.Namespace) -> None:
    """Refuse bad training settings before any data is read: ``ValueError`` in one line naming
    the option as typed and what it takes; an existing weights file or model card at ``--out``
    is refused unless ``--force`` (nothing is replaced that this run did not write)."""
    from experiments.options import check_int

    for k in ("h1", "h2", "epochs", "batch"):
        check_int(getattr(args, k), f"--{k}")
    check_int(args.seed, "--seed", 0)
    for k, ok, want in (("lr", args.lr > 0, "> 0"), ("tau", args.tau > 0, "> 0"),
                        ("mix", 0 <= args.mix <= 1, "in 0..1"),
                        ("holdout", 0 < args.holdout < 1, "strictly between 0 and 1"),
                        ("regret", args.regret >= 0, ">= 0")):
        if not ok:  # also False for nan
            raise ValueError(f"--{k} {getattr(args, k)!r}: expected a number {want}")
    if args.prior not in (0, 1):
        raise ValueError(f"--prior {args.prior!r}: expected 0 or 1")
    out = Path(args.out)
    for p in (out, out.with_suffix(".md")):
        if p.exists() and not args.force:
            raise ValueError(f"--out {args.out}: {p} exists; expected a new file (give --force "
                             f"to replace it)")


def _evaluate(args: argparse.Namespace) -> int:
    from agents.net import use_weights
    from experiments.learn.evaluate import TEAM_GAMES, duplicate, team

    if args.weights:
        use_weights(args.game, args.weights)
    others = [a for a in args.against.split(",") if a]
    if args.game in TEAM_GAMES:
        rows = team(args.game, ["net"] + others, args.players, args.deals, args.seed)
        for r in rows:
            print(f"{r['agent']:<12} {r['rate']:.3f} [{r['low']:.3f}, {r['high']:.3f}] "
                  f"{r['games_per_s']:>9.0f} games/s")
    else:
        others = [a for a in others if a != "heuristic"]
        rows = duplicate(args.game, ["net"] + others, args.players, args.deals, args.seed)
        for r in rows:
            print(f"{r['agent']:<12} {r['mean']:.3f} vs heuristic {r['base_mean']:.3f}: "
                  f"{r['diff']:+.3f} [{r['low']:+.3f}, {r['high']:+.3f}] p={r['p']:.1e} "
                  f"{r['games_per_s']:>9.0f} games/s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    return 0


def _value_collect(args: argparse.Namespace) -> int:
    from experiments.learn.value_data import run_value_collect
    from experiments.options import check_int

    check_int(args.games, "--games")
    check_int(args.every, "--every")
    check_int(args.batch_size, "--batch-size")
    res = run_value_collect(args.game, args.out, _counts(args.players, args.game), args.games,
                            policy=args.policy, every=args.every, seed=args.seed,
                            jobs=args.jobs, batch_size=args.batch_size,
                            progress=not args.quiet)
    n = sum(int(t["positions"]) for t in res.totals)
    print(f"{args.out}: {int(res.games.sum())} games, {n} positions "
          f"({res.wall_time:.0f} s this run)")
    return 0


def _value_train(args: argparse.Namespace) -> int:
    from experiments.learn.value_train import VALUE_DEFAULTS, train_value
    from experiments.options import check_int

    for k in ("h1", "h2", "epochs", "batch"):
        check_int(getattr(args, k), f"--{k}")
    for k, ok, want in (("lr", args.lr > 0, "> 0"),
                        ("holdout", 0 < args.holdout < 1, "strictly between 0 and 1"),
                        ("weight_decay", args.weight_decay >= 0, ">= 0")):
        if not ok:
            raise ValueError(f"--{k.replace('_', '-')} {getattr(args, k)!r}: expected a number "
                             f"{want}")
    out = Path(args.out)
    for p in (out, out.with_suffix(".md")):
        if p.exists() and not args.force:
            raise ValueError(f"--out {args.out}: {p} exists; expected a new file (give --force "
                             f"to replace it)")
    fig = train_value([d for d in args.data.split(",") if d], out, force=args.force,
                      settings={k: getattr(args, k) for k in VALUE_DEFAULTS})
    print(f"{out}: value weights written (held-out mse {fig['mse']:.4f} against "
          f"{fig['mse_constant']:.4f} for the mean, R^2 {fig['r2']:.3f}); model card "
          f"{out.with_suffix('.md')}")
    return 0
