"""Built-in Scout bots: easy, medium and hard (see :mod:`.bots`)."""

from spieltisch.bots.scout.bots import HARD_V7, HARD_V12, EasyBot, HardBot, HardConfig, MediumBot

__all__ = ["HARD_V7", "HARD_V12", "EasyBot", "HardBot", "HardConfig", "MediumBot"]
