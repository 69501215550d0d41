"""Built-in Waschbär-Schmaus bots: easy, medium and hard (see :mod:`.bots`).

What they know and assume of a position (:mod:`.model`: the round arithmetic,
the unseen cards, medium's model of an opponent) is public for the analysis.
"""

from spieltisch.bots.schmaus.bots import HARD_V5, HARD_V8, EasyBot, HardBot, HardConfig, MediumBot
from spieltisch.bots.schmaus.model import OpponentModel, counts_of, unseen_counts

__all__ = [
    "HARD_V5",
    "HARD_V8",
    "EasyBot",
    "HardBot",
    "HardConfig",
    "MediumBot",
    "OpponentModel",
    "counts_of",
    "unseen_counts",
]
