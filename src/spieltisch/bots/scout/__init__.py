"""Built-in Scout bots: easy, medium and hard (see :mod:`.bots`)."""

from spieltisch.bots.scout.bots import EasyBot, HardBot, MediumBot

__all__ = ["EasyBot", "HardBot", "MediumBot"]
