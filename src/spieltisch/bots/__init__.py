"""Bots: built-in levels per game and external programs, all behind :class:`Bot`.

``make_bot(game, spec, seat, seed)`` understands the seat specs used
everywhere (terminal play, the lab, the web table):

* ``random`` - uniformly random legal play
* ``easy`` / ``medium`` / ``hard`` - the built-in levels of that game
* ``cmd:COMMAND`` - an external program speaking the bot protocol
  (``docs/bot-protocol.md``)
"""

from __future__ import annotations

import importlib

from spieltisch.bots.base import Bot, Budget, RandomBot, View
from spieltisch.engine import OptionsError, get_game

LEVELS = ("random", "easy", "medium", "hard")

# Built-in levels: module and class per game, imported on first use.
_BUILT_IN: dict[str, dict[str, str]] = {
    "scout": {
        "easy": "spieltisch.bots.scout:EasyBot",
        "medium": "spieltisch.bots.scout:MediumBot",
        "hard": "spieltisch.bots.scout:HardBot",
    },
    "schmaus": {
        "easy": "spieltisch.bots.schmaus:EasyBot",
        "medium": "spieltisch.bots.schmaus:MediumBot",
        "hard": "spieltisch.bots.schmaus:HardBot",
    },
}


def bot_class(game: str, level: str) -> type[Bot]:
    name = get_game(game).name
    if level == "random":
        return RandomBot
    target = _BUILT_IN[name].get(level)
    if target is None:
        raise OptionsError(f"unknown bot level {level!r}: choose one of {', '.join(LEVELS)} or cmd:...")
    module, cls = target.split(":")
    found: type[Bot] = getattr(importlib.import_module(module), cls)
    return found


def make_bot(
    game: str,
    spec: str,
    seat: int,
    seed: int,
    budget: Budget | None = None,
    timeout: float = 10.0,
) -> Bot:
    """A bot for ``seat`` from a seat spec (see the module docs)."""
    if spec.startswith("cmd:"):
        from spieltisch.bots.external import ExternalBot

        return ExternalBot(game, seat, seed, command=spec[4:], timeout=timeout, budget=budget)
    return bot_class(game, spec)(game, seat, seed, budget)


__all__ = ["LEVELS", "Bot", "Budget", "RandomBot", "View", "bot_class", "make_bot"]
