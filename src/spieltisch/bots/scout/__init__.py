"""Built-in Scout bots: easy, medium and hard (see :mod:`.bots`).

The analysis (reviews, hints) models a position as the bots do, through this
public API: what a seat knows (:class:`Knowledge`, :class:`Position`), a world
consistent with it (:func:`sample_world`), medium's best distinct moves
(:func:`candidate_moves`, :func:`distinct_moves`), the moves hard searches
(:meth:`HardBot.candidate_actions`) and a round played out by medium's policy
(:func:`play_out`).
"""

from spieltisch.bots.scout.bots import (
    HARD_V7,
    HARD_V12,
    EasyBot,
    HardBot,
    HardConfig,
    MediumBot,
    candidate_moves,
    distinct_moves,
    play_out,
)
from spieltisch.bots.scout.worlds import Knowledge, Position, sample_world

__all__ = [
    "HARD_V7",
    "HARD_V12",
    "EasyBot",
    "HardBot",
    "HardConfig",
    "Knowledge",
    "MediumBot",
    "Position",
    "candidate_moves",
    "distinct_moves",
    "play_out",
    "sample_world",
]
