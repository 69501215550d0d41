"""Built-in Scout bots: easy, medium and hard (see :mod:`.bots`)."""

from spieltisch.bots.scout.bots import (
    EasyBot,
    HardBot,
    HardBotV2,
    HardBotV3,
    HardBotV4,
    HardBotV5,
    HardBotV6,
    HardBotV7,
    HardBotV8,
    HardBotV9,
    HardBotV10,
    HardBotV11,
    HardBotV12,
    MediumBot,
)

__all__ = [
    "EasyBot",
    "HardBot",
    "HardBotV2",
    "HardBotV3",
    "HardBotV4",
    "HardBotV5",
    "HardBotV6",
    "HardBotV7",
    "HardBotV8",
    "HardBotV9",
    "HardBotV10",
    "HardBotV11",
    "HardBotV12",
    "MediumBot",
]
