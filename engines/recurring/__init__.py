"""ReCURRRing, the climbing card game (rules: ``../shared/rules/recurring.md``).

The 57-card deck's ids (number ``v`` has ids ``v(v-1)/2 ..``; R cards 45..56) and the removal
per player count are tabled in :mod:`engines.recurring.core`.

- :mod:`engines.recurring.config`  :class:`RecurringConfig`, every [decision] as an option
- :mod:`engines.recurring.core`    the compiled rules core over a flat ``int64`` state
- :mod:`engines.recurring.game`    door 1: the step API :class:`RecurringGame`, text, records
- :mod:`engines.recurring.batch`   door 2: :func:`play_batch` and :func:`match_results`

``play_batch`` and ``match_results`` are imported lazily (they need :mod:`agents.recurring`,
which needs the core).
"""

from engines.recurring.config import RecurringConfig
from engines.recurring.core import compare_plays
from engines.recurring.game import RecurringGame, action_to_string, new_game, parse_play, replay

__all__ = ["RecurringConfig", "RecurringGame", "new_game", "replay", "action_to_string",
           "parse_play", "compare_plays", "play_batch", "match_results"]


def __getattr__(name):
    if name in ("play_batch", "match_results"):
        from engines.recurring import batch

        return getattr(batch, name)
    raise AttributeError(f"module 'engines.recurring' has no attribute {name!r}")
