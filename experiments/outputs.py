"""Output folders and files that are never replaced silently.

The rule of every ``boardlab`` command that writes results (``river-rats pairs``,
``tournament``, ``tune``, ``lure balance``/``rebalance``, and the ``--csv``/``--out`` files of
``winrates``, ``decisions``, ``lure odds``/``card``): **it never replaces a file it did not
write in this run unless ``--force`` is given.** For a folder, the decision is taken from the
run's own metadata file (``metadata.json`` or ``meta.json``, committed with the results):

======================================  ======================================================
the folder holds                        what the command does
======================================  ======================================================
nothing (or does not exist)             runs
only partial results (``_partial/``)    runs; the runner resumes them or refuses them
                                        (:func:`experiments.runner.run_experiment`)
a finished run of **the same settings** answers from it: prints its table, plays nothing,
                                        writes nothing (``--force``: runs again from scratch)
a finished run of **other settings**,   refuses with one line naming the folder, what is
or of another command                   there, what differs, and ``--force``
files this command writes but no        refuses (a user's own ``pairs.csv`` or
metadata file and no ``_partial/``      ``agents.csv``): one line naming them and ``--force``
======================================  ======================================================

"Settings" are what determine a run's numbers (a command's ``settings`` dict: games, seed,
agents, rules, batch size...), stored under ``"settings"`` in the metadata file; for metadata
written before this key existed, a command supplies ``legacy`` to derive them from the fields
it did store (:func:`legacy_tournament_settings`, :func:`legacy_tuning_settings`,
:func:`legacy_balance_settings`). Each command's default output folder is named here too
(:func:`tournament_out_dir`, :func:`tuning_out_dir`, :func:`lure_balance_out_dir`,
:func:`lure_what_if_out_dir`, :func:`lure_rebalance_out_dir`). Commands call
:func:`claim_folder` before they start playing and :func:`claim_file` for a single output file;
both raise ``ValueError`` (one line) and change nothing on disk.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments.io import read_json

__all__ = ["Claim", "claim_folder", "claim_file", "check_writable", "same_settings",
           "settings_diff", "normalize", "remove_previous_run", "run_files", "finish_partial",
           "RUN_OUTPUTS", "tournament_out_dir", "tuning_out_dir", "lure_balance_out_dir",
           "lure_what_if_out_dir", "lure_rebalance_out_dir", "legacy_tournament_settings",
           "legacy_tuning_settings", "legacy_balance_settings"]

PARTIAL_DIR = "_partial"
"""The runner's folder of partial results inside an output folder: beside it, output files
without a metadata file are a run of this command that stopped while writing them, resumed
(or refused) by the runner."""
META_NAMES = ("metadata.json", "meta.json")
"""The names of the metadata file a finished run of any boardlab command leaves in its
folder: a folder holding either is a finished run's."""


@dataclass(frozen=True)
class Claim:
    """What :func:`claim_folder` found: ``status`` is ``"new"`` (run: nothing finished is
    there, or ``--force``) or ``"finished"`` (a finished run of the same settings: answer from
    it); ``meta`` is that run's metadata (``None`` for ``"new"``); ``folder`` the folder."""

    status: str
    folder: Path
    meta: dict | None = None

    @property
    def finished(self) -> bool:
        """True when the folder already holds this run's results."""
        return self.status == "finished"


def normalize(obj: Any) -> Any:
    """``obj`` as JSON would give it back (tuples -> lists, numpy scalars -> numbers), so that
    settings computed now compare equal to settings read from a metadata file."""
    from experiments.io import jsonable

    return json.loads(json.dumps(obj, default=jsonable, sort_keys=True))


def _comparable(obj: Any) -> Any:
    """``obj`` without what names a place rather than a setting: a deck record's ``source`` (the
    path it was read from, which differs between clones; its ``sha256`` and ``rows`` are the
    deck)."""
    if isinstance(obj, dict):
        keep = {k: _comparable(v) for k, v in obj.items()}
        if {"source", "sha256", "rows"} <= set(keep):
            keep.pop("source")
        return keep
    if isinstance(obj, list):
        return [_comparable(v) for v in obj]
    return obj


def same_settings(a: dict, b: dict) -> bool:
    """True when two settings dicts are equal after :func:`normalize` (a deck's file path
    aside: :func:`_comparable`)."""
    return _comparable(normalize(a)) == _comparable(normalize(b))


def settings_diff(stored: dict, mine: dict, limit: int = 3) -> str:
    """The first ``limit`` settings that differ, as ``"games 1000000 there, 200 now; seed ..."``
    (a key missing on one side shows as ``-``)."""
    stored = _flat(_comparable(normalize(stored)))
    mine = _flat(_comparable(normalize(mine)))
    parts = []
    for key in sorted(set(stored) | set(mine), key=lambda k: (k not in mine, str(k))):
        if stored.get(key) != mine.get(key):
            parts.append(f"{key} {_short(stored.get(key, '-'))} there, "
                         f"{_short(mine.get(key, '-'))} now")
    more = f"; and {len(parts) - limit} more" if len(parts) > limit else ""
    return "; ".join(parts[:limit]) + more


def _flat(d: dict, prefix: str = "") -> dict:
    """Nested dicts as one level with dotted keys (``{"search": {"seed": 0}}`` ->
    ``{"search.seed": 0}``), so a difference names the setting itself."""
    out = {}
    for k, v in d.items():
        if isinstance(v, dict) and v:
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _short(value: Any, width: int = 40) -> str:
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    return text if len(text) <= width else text[:width - 3] + "..."


def _describe(meta: dict, experiment: str | None = None) -> str:
    """A few words on the run a metadata file records: its kind (``experiment`` when known),
    size and date."""
    what = experiment or meta.get("experiment") or meta.get("kind") or "boardlab"
    what = str(what).removeprefix("boardlab.")
    games = meta.get("games_total") or meta.get("games_played") or meta.get("games")
    size = f" of {int(games):,} games" if isinstance(games, (int, float)) and games else ""
    when = meta.get("written_utc") or (meta.get("machine") or {}).get("utc")
    return f"a finished {what} run{size}" + (f" ({when})" if when else "")


def claim_folder(folder: str | os.PathLike, *, experiment: str, settings: dict,
                 outputs: Iterable[str], force: bool,
                 meta_name: str = "metadata.json",
                 legacy: Callable[[dict], dict | None] | None = None) -> Claim:
    """Decide whether a command may write its results into ``folder`` (see the module
    docstring's table).

    Args:
        folder: the output folder (it may not exist).
        experiment: the command's name as metadata files record it (``"river-rats pairs"``);
            a metadata file whose ``settings["experiment"]`` (or, for older files, whose
            ``legacy`` settings) names another command is another command's run.
        settings: what determines this run's numbers, JSON-ready; must hold ``"experiment"``.
        outputs: the file names this command writes into the folder.
        force: ``--force``: always ``"new"``; the finished run the folder holds is removed
            first, as a whole (:func:`remove_previous_run`), so that the new run's files
            never stand beside another run's.
        meta_name: the metadata file's name in the folder.
        legacy: derives settings from a metadata file written without ``"settings"`` (``None``
            when it cannot); such a file is then compared like a new one.

    Returns a :class:`Claim`. Raises ``ValueError`` (one line naming the folder, what is there
    and ``--force``) when the folder holds another run or files of this command that no run
    recorded; nothing on disk is changed then (only ``force`` removes anything).
    """
    folder = Path(folder)
    if not folder.is_dir():
        return Claim("new", folder)
    if force:
        remove_previous_run(folder)
        return Claim("new", folder)
    meta_path = folder / meta_name
    if not meta_path.is_file():  # another command's run (a tournament's meta.json, say)
        meta_path = next((folder / n for n in META_NAMES if (folder / n).is_file()), meta_path)
        meta_name = meta_path.name
    if meta_path.is_file():
        try:
            meta = read_json(meta_path)
        except (ValueError, OSError) as exc:
            raise ValueError(f"{folder} holds {meta_name} that cannot be read ({exc}): choose "
                             "another --out, or add --force to replace the folder's results"
                             ) from None
        if not isinstance(meta, dict):
            meta = {}
        stored = meta.get("settings")
        if not (isinstance(stored, dict) and "experiment" in stored) and legacy is not None:
            try:
                stored = legacy(meta)
            except (KeyError, TypeError, ValueError, AttributeError):
                stored = None
        if isinstance(stored, dict) and stored.get("experiment") == experiment:
            if same_settings(stored, settings):
                return Claim("finished", folder, meta)
            raise ValueError(f"{folder} holds {_describe(meta, experiment)} with other settings "
                             f"({settings_diff(stored, settings)}): choose another --out, or "
                             "add --force to replace it")
        other = stored.get("experiment") if isinstance(stored, dict) else None
        raise ValueError(f"{folder} holds {_describe(meta, other)}, not a {experiment} run: "
                         "choose another --out, or add --force to replace it")
    present = sorted(n for n in outputs if (folder / n).exists())
    if present and not (folder / PARTIAL_DIR).is_dir():
        names = ", ".join(present[:4]) + (f" and {len(present) - 4} more"
                                          if len(present) > 4 else "")
        raise ValueError(f"{folder} holds {names} but no {meta_name} of a finished run: "
                         "choose another --out, or add --force to replace them")
    return Claim("new", folder)


RUN_OUTPUTS = {"river-rats pairs": ("experiments.pairs.job", "OUTPUT_FILES"),
               "tournament": ("experiments.tournament.run", "OUTPUT_FILES"),
               "tune": ("experiments.tournament.tune", "OUTPUTS"),
               "lure balance": ("experiments.lure.balance", "OUTPUT_FILES"),
               "lure rebalance": ("experiments.lure.rebalance", "OUTPUT_FILES")}
"""Per experiment name (as metadata files record it), the module and constant listing the
files a finished run of that command writes into its folder: what ``--force`` removes."""


def run_files(meta: dict) -> set[str]:
    """The names of the files the finished run that wrote ``meta`` (a parsed metadata file)
    left in its folder: the output files of its command (:data:`RUN_OUTPUTS`, found from
    ``settings["experiment"]``, ``experiment`` or ``kind``) and the files its metadata lists
    (``files``); empty for a run of no known command."""
    import importlib

    settings = meta.get("settings") if isinstance(meta.get("settings"), dict) else {}
    names = {settings.get("experiment"), meta.get("experiment"),
             str(meta.get("kind") or "").removeprefix("boardlab.")}
    found: set[str] = set()
    for name in names:
        if name in RUN_OUTPUTS:
            module, attr = RUN_OUTPUTS[name]
            found.update(getattr(importlib.import_module(module), attr))
    listed = meta.get("files")
    if isinstance(listed, dict):
        found.update(Path(str(v)).name for v in listed.values())
    return found


def remove_previous_run(folder: str | os.PathLike) -> list[str]:
    """``--force``: remove the finished run in ``folder`` as a whole: the files its metadata
    file (:data:`META_NAMES`) says the run wrote (:func:`run_files`), then the metadata file
    itself, last, so that a removal cut short is finished by the next ``--force``. Files no
    run of ours recorded (a user's notes, other commands' files) are never removed; nor is
    anything when the folder holds no readable metadata file. Returns the names removed."""
    folder = Path(folder)
    removed = []
    for meta_name in META_NAMES:
        meta_path = folder / meta_name
        if not meta_path.is_file():
            continue
        try:
            meta = read_json(meta_path)
        except (ValueError, OSError):
            continue
        if not isinstance(meta, dict):
            continue
        for name in sorted(run_files(meta) - set(META_NAMES)):
            path = folder / name
            if path.is_file() and not path.is_symlink():
                path.unlink()
                removed.append(name)
        meta_path.unlink()
        removed.append(meta_name)
    return removed


def finish_partial(folder: str | os.PathLike, name: str = PARTIAL_DIR) -> None:
    """After a run's results and metadata are written: remove the runner's partial results
    under ``<folder>/<name>`` (every ``state.json`` in it and in its subfolders, as a Lure
    balance keeps one per seed set and compared player) and each folder left empty, so a
    finished folder holds only its results (the metadata answers a re-run). Files the runner
    did not write stay, with the folders that hold them."""
    import contextlib

    from experiments.run_state import STATE_FILE

    partial = Path(folder) / name
    if not partial.is_dir() or partial.is_symlink():
        return
    for here, _, files in os.walk(partial, topdown=False):
        if STATE_FILE in files:
            with contextlib.suppress(FileNotFoundError):
                (Path(here) / STATE_FILE).unlink()
        with contextlib.suppress(OSError):
            Path(here).rmdir()


def claim_file(path: str | os.PathLike, option: str, force: bool) -> Path:
    """Check that the output file ``path`` (given with ``option``, e.g. ``"--csv"``) may be
    written: it does not exist yet (or ``force``), it is not a folder, and its folder exists
    and is writable or can be created (no file stands in the way). Returns ``path`` as a
    ``Path``; raises ``ValueError`` (one line naming ``option``, the path and what to do)
    otherwise. Nothing is created."""
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"bad {option} {str(path)!r}: a folder; expected a file name")
    if p.exists() and not force:
        raise ValueError(f"{option} {path} exists: choose another file, or add --force to "
                         "replace it")
    parent = p.parent if str(p.parent) else Path(".")
    existing = parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"bad {option} {str(path)!r}: {existing} is a file, not a folder")
    check_writable(parent, option)
    return p


def check_writable(folder: str | os.PathLike, option: str = "--out") -> None:
    """Raise ``ValueError`` (one line) when ``folder`` exists but this process may not create
    files in it, or when its nearest existing parent is not writable (so the folder cannot be
    made); saying to choose another ``option`` or change the permissions."""
    import tempfile

    p = Path(folder)
    while not p.exists() and p != p.parent:
        p = p.parent
    if not p.is_dir():
        raise ValueError(f"{option} {folder}: {p} is a file, not a folder; choose another "
                         f"{option}")
    if not os.access(p, os.W_OK | os.X_OK):
        raise ValueError(f"{option} {folder}: {p} is read-only for this user; choose a folder "
                         "you can write to, or change its permissions (chmod u+w)")
    try:  # the file system may still refuse (/proc, a read-only mount): try, then tidy up
        os.rmdir(tempfile.mkdtemp(prefix=".boardlab-probe-", dir=p))
    except OSError as exc:
        raise ValueError(f"{option} {folder}: no folder can be created in {p} "
                         f"({exc.strerror or exc}); choose a folder on a writable disk"
                         ) from None


# ---- each command's default output folder -----------------------------------------------------
def tournament_out_dir(game: str, n_players: int, labels, root="results",
                       options: dict | None = None) -> Path:
    """``<root>/<game>/tournaments/<N>p_<agents>[_<options>]`` (``boardlab tournament``): agent
    labels joined by ``-``, then the rules options, if any, as ``key_value`` (so tournaments
    under other rules get folders of their own); made file-name safe, shortened with a hash
    when long. Raises ``ValueError`` for an unknown game."""
    from experiments.tournament.games import get_adapter

    def clean(text):
        return "".join(c if c.isalnum() or c in "_." else "_" for c in str(text))

    safe = "-".join(clean(lab) for lab in labels)
    for key, value in sorted((options or {}).items()):
        safe += f"_{clean(key)}_{clean(value)}"
    if len(safe) > 60:
        safe = safe[:48] + "_" + hashlib.sha256(safe.encode()).hexdigest()[:8]
    return Path(root) / get_adapter(game).name / "tournaments" / f"{n_players}p_{safe}"


def tuning_out_dir(game: str, name: str, agents_root=None) -> Path:
    """``<store>/<game>/tuning/<name>`` (``boardlab tune``): the agent store's folder
    (:func:`experiments.tournament.games.store_root` of ``agents_root``), not the current
    folder. Raises ``ValueError`` for an unknown game."""
    from experiments.tournament.games import get_adapter, store_root

    return store_root(agents_root) / get_adapter(game).name / "tuning" / name


def _deck_prefix(deck) -> str:
    """``""`` for the shipped Lure deck, else the deck file's stem and ``_`` (``mydeck_``)."""
    from engines.lure.decks import DEFAULT_DECK_PATH

    return "" if deck.source == str(DEFAULT_DECK_PATH) else Path(deck.source).stem + "_"


def lure_balance_out_dir(deck, deep_waters: bool) -> Path:
    """``results/lure/<base|deep_waters>`` (``boardlab lure balance``), prefixed with the deck
    file's stem for a deck (:class:`engines.lure.decks.Deck`) that is not the shipped default
    (``results/lure/mydeck_base``)."""
    tag = "deep_waters" if deep_waters else "base"
    return Path("results") / "lure" / f"{_deck_prefix(deck)}{tag}"


def lure_what_if_out_dir(card_spec: str, deep_waters: bool) -> Path:
    """``results/lure/what_if/<card>_<base|deep_waters>`` (``boardlab lure balance --what-if``):
    the card spec made a file name (runs of other characters as ``_``, at most 60)."""
    import re

    slug = re.sub(r"[^A-Za-z0-9]+", "_", card_spec).strip("_")[:60] or "card"
    tag = "deep_waters" if deep_waters else "base"
    return Path("results") / "lure" / "what_if" / f"{slug}_{tag}"


def lure_rebalance_out_dir(deck, goal: str, deep_waters: bool) -> Path:
    """``results/lure/rebalance/<goal>_<base|deep_waters>`` (``boardlab lure rebalance``),
    prefixed with the deck file's stem for a deck that is not the shipped default."""
    tag = "deep_waters" if deep_waters else "base"
    return (Path("results") / "lure" / "rebalance"
            / f"{_deck_prefix(deck)}{goal.replace('-', '_')}_{tag}")


# ---- settings of metadata written before the settings were stored ----------------------------
def legacy_tournament_settings(ad, meta: dict) -> dict:
    """A tournament's settings (``experiments.tournament.run``'s ``settings`` of ``meta.json``)
    derived from a ``meta.json`` written before it stored them; ``ad`` is the game's
    :class:`experiments.tournament.games.GameAdapter` (the config is completed with today's
    defaults of fields added since). Another command's file gives ``{"experiment": <its
    kind>}``."""
    if meta.get("kind") != "boardlab.tournament":
        return {"experiment": meta.get("kind") or meta.get("experiment")}
    if meta.get("game") != ad.name:
        return {"experiment": f"{meta.get('game')} tournament"}
    cfg = ad.config(int(meta["n_players"]), {})
    cfg = type(cfg).from_dict(meta["config"])
    agents = [{k: v for k, v in a.items() if k != "description"} for a in meta["agents"]]
    return {"experiment": "tournament", "game": ad.name, "n_players": int(meta["n_players"]),
            "agents": agents, "config": cfg.to_dict(), "deals": int(meta["deals"]),
            "seed": meta["seed"], "batch_size": meta["batch_size"],
            "rating_deals": meta["rating_deals"], "user_policies": None}


def legacy_tuning_settings(meta: dict) -> dict | None:
    """The claim settings of a tuning ``meta.json`` written before they were stored whole (its
    ``settings`` were the study's alone); ``None`` for any other file."""
    st = meta.get("settings")
    if meta.get("kind") != "boardlab.tuning" or not isinstance(st, dict) or "experiment" in st:
        return None
    return {"experiment": "tune", **st, "n_trials": meta.get("n_trials_requested"),
            "validate_deals": meta.get("validation_deals"), "name": meta.get("name")}


def legacy_balance_settings(meta: dict) -> dict:
    """A Lure balance's settings (:func:`experiments.lure.balance.balance_settings`) from a
    ``metadata.json`` written before it stored them; another command's file gives
    ``{"experiment": <its kind>}``."""
    if "n_games_per_player_count" not in meta:
        return {"experiment": meta.get("experiment") or meta.get("kind") or "other"}
    return {"experiment": "lure balance", "deck_sha256": meta["deck_sha256"],
            "deep_waters": bool(meta["deep_waters"]), "players": meta["players"],
            "agents": meta["agents"], "games": meta["n_games_per_player_count"],
            "seed": meta["seed"], "batch_size": meta["batch_size"]}
