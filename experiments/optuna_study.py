"""The optuna plumbing shared by the two searches built on it: ``boardlab tune``
(:mod:`experiments.tournament.tune`) and ``boardlab lure rebalance --method tpe``
(:mod:`experiments.lure.rebalance_search`).

Both keep their study in a journal file (optuna ``JournalStorage`` on a
``JournalFileBackend``) inside their output folder, so a run killed part-way resumes exactly:

* :func:`journal_storage`: the storage of a journal file;
* :func:`open_study`: create or load the study, guarded by the run's settings (a journal of
  other settings is refused with one line naming what differs);
* :func:`trial_seed`: the seed of the sampler that draws trial ``n``, a hash of the run's seed
  and ``n``, so a resumed study draws what an uninterrupted one would;
* :func:`quiet_optuna`: optuna's log and experimental-feature warnings silenced while a study
  runs.
"""

from __future__ import annotations

import contextlib
import json
import warnings
from pathlib import Path

import numpy as np

from experiments.outputs import settings_diff

__all__ = ["N_STARTUP", "journal_storage", "open_study", "trial_seed", "quiet_optuna"]

N_STARTUP = 10
"""Uniform random trials TPE plays (after the start) before it models the objective."""


def journal_storage(path: str | Path):
    """An optuna ``JournalStorage`` on the journal file ``path`` (created on first write)."""
    import optuna

    try:
        from optuna.storages.journal import JournalFileBackend
    except ImportError:  # optuna 3.6 .. 3.x
        JournalFileBackend = optuna.storages.JournalFileStorage  # noqa: N806
    return optuna.storages.JournalStorage(JournalFileBackend(str(path)))


def trial_seed(seed: int, number: int) -> int:
    """The seed (an ``int`` in ``[0, 2**31)``) of the sampler that draws trial ``number`` of a
    study seeded ``seed``: ``SeedSequence([seed, number])``'s first word, halved."""
    return int(np.random.SeedSequence([int(seed) & (2**63 - 1), int(number)])
               .generate_state(1, np.uint32)[0] >> 1)


@contextlib.contextmanager
def quiet_optuna():
    """Within the block: optuna logs warnings only and its ``ExperimentalWarning`` is not
    shown; the previous log level is restored after."""
    import optuna

    level = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            yield
    finally:
        optuna.logging.set_verbosity(level)


def open_study(path: str | Path, name: str, direction: str, settings: dict, folder,
               other_out: str = "another --out"):
    """The optuna study ``name`` of the journal file ``path``, created or loaded to resume.

    A new study records ``settings`` (JSON-ready: what determines the run's trials) as its
    user attribute ``"settings"``; a loaded one must hold the same. Returns ``(study, new)``,
    ``new`` True when the settings were recorded now (the caller then queues its first
    trials). Raises a one-line ``ValueError`` naming ``folder``, what differs, ``other_out``
    (the options that choose another folder) and ``--force`` for a journal without boardlab
    settings or with other settings."""
    import optuna

    study = optuna.create_study(storage=journal_storage(path), study_name=name,
                                direction=direction, load_if_exists=True)
    stored = study.user_attrs.get("settings")
    if stored is None and study.trials:
        raise ValueError(f"{path} holds a study without boardlab settings: choose "
                         f"{other_out}, or --force to start over")
    mine = json.loads(json.dumps(settings))
    if stored is None:
        study.set_user_attr("settings", mine)
        return study, True
    if stored != mine:
        raise ValueError(f"{folder} holds a study with other settings "
                         f"({settings_diff(stored, mine)}): use {other_out}, or --force to "
                         f"start over")
    return study, False
