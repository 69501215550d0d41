"""Built-in Waschbär-Schmaus bots: easy, medium and hard (see :mod:`.bots`).

The analysis (reviews, hints) models a position as the bots do, through this
public API: the cards a seat cannot see (:func:`unseen_counts`), cards as count
vectors (:func:`counts_of`) and medium's model of the opponents' lays
(:func:`opponent_model`, :class:`OpponentModel`).
"""

from spieltisch.bots.schmaus.bots import HARD_V5, HARD_V8, EasyBot, HardBot, HardConfig, MediumBot
from spieltisch.bots.schmaus.model import OpponentModel, counts_of, opponent_model, unseen_counts

__all__ = [
    "HARD_V5",
    "HARD_V8",
    "EasyBot",
    "HardBot",
    "HardConfig",
    "MediumBot",
    "OpponentModel",
    "counts_of",
    "opponent_model",
    "unseen_counts",
]
