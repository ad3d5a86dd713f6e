"""The ``boardlab`` command line.

Each module of this package registers its own subcommands through a ``register(sub)``
function, listed in :data:`REGISTRARS` (``sub``: the top-level subparsers object):
``play`` (one command for the four games), ``river-rats pairs`` (the main job),
``tournament`` / ``tune`` / ``winrates``, ``lure`` (balance report, odds), ``poker`` and
``learn`` (the learned policy's pipeline).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import re
import sys

REGISTRARS: tuple[str, ...] = (
    "experiments.cli.play",
    "experiments.cli.pairs",
    "experiments.cli.tournament",
    "experiments.cli.lure",
    "experiments.cli.poker",
    "experiments.cli.learn",
)
"""Modules whose ``register(sub)`` adds subcommands, in help order."""


QUIET_HELP = ("no progress bar and no notes on standard error (errors still show); the "
              "results print as usual")
"""The help of ``--quiet``, which means the same in every command."""


def parse_player_counts(values: str | list[str], lo: int, hi: int, game: str) -> list[int]:
    """``--players`` text (``"4"``, ``"1..4"``, ``"2-5"``, ``"2,4"``, ``"1-2,4"``, or a list of
    such texts) -> sorted distinct player counts, each in ``lo..hi``.

    Raises ``ValueError`` naming the unreadable part or the count outside ``lo..hi`` (``game``
    names the game in that message)."""
    out: list[int] = []
    for v in [values] if isinstance(values, str) else values:
        for part in v.split(","):
            m = re.fullmatch(r"\s*(\d)\s*(?:(?:\.\.|-)\s*(\d)\s*)?", part)
            if not m:
                raise ValueError(f"bad --players {part!r}: expected counts such as {hi}, "
                                 f"{lo}..{hi}, {lo},{hi}")
            counts = range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1)
            if any(not lo <= n <= hi for n in counts):
                raise ValueError(f"bad --players {part.strip()}: {game} has {lo} to {hi} "
                                 f"players")
            out.extend(counts)
    if not out:
        raise ValueError("--players is empty")
    return sorted(set(out))


def output_folder(text: str) -> str:
    """``type=`` of the ``--out`` options that name a folder: ``text`` unchanged, or
    ``argparse.ArgumentTypeError`` (a one-line usage error) when it names an existing file."""
    import os

    if os.path.exists(text) and not os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is a file: expected a folder")
    return text


def worker_count(text: str) -> int:
    """``type=`` of the ``--jobs`` options: a positive integer or -1 (all cores), else
    ``argparse.ArgumentTypeError`` (a one-line usage error before anything is planned or
    printed)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value == 0 or value < -1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a positive number of worker "
                                         "processes, or -1 for all cores")
    return value


class GameChoices(tuple):
    """Game names as ``choices`` of an argument: listed hyphenated (``river-rats``), accepted in
    either spelling (``river_rats`` too), so a usage error lists each game once."""

    def __new__(cls, names):
        return super().__new__(cls, dict.fromkeys(n.replace("_", "-") for n in names))

    def __contains__(self, value) -> bool:
        return isinstance(value, str) and tuple.__contains__(self, value.replace("_", "-"))


class WholeNamesFormatter(argparse.HelpFormatter):
    """Help text wrapped as argparse does, except that a line never breaks inside a
    hyphenated name (``net-search-fast``, ``--ci-width``), so the names in ``--help`` can be
    copied as printed."""

    def _split_lines(self, text, width):
        import textwrap

        text = self._whitespace_matcher.sub(" ", text).strip()
        return textwrap.wrap(text, width, break_on_hyphens=False)

    def _fill_text(self, text, width, indent):
        import textwrap

        text = self._whitespace_matcher.sub(" ", text).strip()
        return textwrap.fill(text, width, initial_indent=indent, subsequent_indent=indent,
                             break_on_hyphens=False)


class OneLineErrorParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose usage errors (an unknown choice, a value that is not a
    number, a missing argument) are one line naming the value as typed, with where to find the
    usage, and exit status 2; its subcommands' parsers are of the same class, and every help
    is wrapped by :class:`WholeNamesFormatter`."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", WholeNamesFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        """Print ``PROG: error: MESSAGE (usage: PROG --help)`` to standard error and exit with
        status 2 (``SystemExit``)."""
        self.exit(2, f"{self.prog}: error: {message} (usage: {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """Build the full argument parser of ``boardlab`` (all registered subcommands)."""
    parser = OneLineErrorParser(
        prog="boardlab",
        description="Simulation and strategy analysis for River Rats, Lure, Rats and ReCURRRing.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in REGISTRARS:
        importlib.import_module(name).register(sub)
    _plain_help(parser)
    return parser


def plain_text(doc: str | None) -> str | None:
    """A docstring as terminal text: reStructuredText roles and literals
    (``:func:`x```, ````x````) become plain ``x``; used for every ``--help`` description."""
    if not doc:
        return doc
    doc = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", doc)
    return re.sub(r"``([^`]+)``", r"\1", doc)


def _plain_help(parser: argparse.ArgumentParser) -> None:
    """Apply :func:`plain_text` to the description and option help of ``parser`` and of all
    its subcommands."""
    parser.description = plain_text(parser.description)
    for action in parser._actions:
        action.help = plain_text(action.help) if isinstance(action.help, str) else action.help
        if isinstance(action, argparse._SubParsersAction):
            for child in set(action.choices.values()):
                _plain_help(child)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``boardlab`` console script; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    from experiments.notes import install_compile_note

    try:
        install_compile_note(quiet=bool(getattr(args, "quiet", False)))
        with _terminate_as_interrupt():
            return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError, OverflowError) as exc:
        print(f"boardlab: error: {_option_names(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        out = getattr(args, "out", None)
        where = f" in {out}" if out else ""
        print(f"\nboardlab: interrupted; finished batches are kept{where}: run the same command "
              "again to resume where it stopped", file=sys.stderr, flush=True)
        return 130
    except OSError as exc:  # a folder or file the user named cannot be written or read
        print(f"boardlab: error: {os_error_line(exc, getattr(args, 'out', None))}",
              file=sys.stderr)
        return 1


def os_error_line(exc: OSError, out=None) -> str:
    """The one-line message (after ``boardlab: error:``) of a file-system error that stopped a
    command whose output folder is ``out`` (``None``: none or unknown): the file and the cause;
    for a full disk (``ENOSPC``, ``EDQUOT``) the folder, that the finished games are kept
    (every batch's results were written atomically before) and that the same command resumes
    once space is freed; for a permission error, what to do."""
    import errno
    import os

    name = exc.filename if exc.filename is not None else ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        folder = out or (os.path.dirname(str(name)) or ".")
        return (f"no space left on the disk of {folder} (writing {name or 'a result file'}): "
                "the finished games are kept there; free some space and run the same "
                "command again to resume where it stopped")
    hint = ("; choose a folder you can write to (--out), or change its permissions"
            if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS) else "")
    return f"{name}{': ' if name else ''}{exc.strerror or exc}{hint}"


@contextlib.contextmanager
def _terminate_as_interrupt():
    """While a command runs, SIGTERM (``kill PID``, a scheduler's stop) ends it the way Ctrl-C
    does: ``KeyboardInterrupt`` is raised in the main thread, so the run's lock is removed,
    its finished batches are kept and :func:`main` prints one line on how to resume. The
    previous handler is restored afterwards; outside the main thread nothing changes."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


_API_TO_OPTION = {"games_per_cell": "--games", "n_jobs": "--jobs", "batch_size": "--batch-size",
                  "group_batches": "--round-batches", "max_games": "--max-games",
                  "ci_width": "--ci-width", "n_deals": "--games", "n_games": "--games",
                  "rating_deals": "--rating-deals", "validate_deals": "--validate",
                  "n_trials": "--trials"}


def _option_names(message: str) -> str:
    """A library error message with the API's parameter names replaced by the command-line
    options the user typed (``games_per_cell -5`` -> ``--games -5``)."""
    import re

    message = message.replace(" (overwrite=True)", "").replace("overwrite=True", "--force")
    message = re.sub(r"^(bad )?(seed|scheduler)\b", r"\1--\2", message)
    return re.sub(r"\b(" + "|".join(_API_TO_OPTION) + r")\b",
                  lambda m: _API_TO_OPTION[m.group(1)], message)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
