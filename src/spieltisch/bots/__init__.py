"""Bots: built-in levels per game and external programs, all behind :class:`Bot`.

``make_bot(game, spec, seat, seed)`` understands the seat specs used
everywhere (terminal play, the lab, the web table):

* ``random`` - uniformly random legal play
* ``easy`` / ``medium`` / ``hard`` - the built-in levels of that game, the
  default version; ``hard@v1`` … ``hard@v12`` a kept version (baselines and
  candidates for head-to-head measurements)
* ``LEVEL:KEY=VALUE...`` - a budget per decision counted in work
  (``hard:playouts=1200`` for Scout, ``hard:samples=256`` for
  Waschbär-Schmaus), optionally with a wall-clock cap (``:cap=2``,
  machine-dependent); see :mod:`spieltisch.bots.spec`
* ``cmd:COMMAND`` - an external program speaking the bot protocol
  (``docs/bot-protocol.md``)

A built-in bot is a plain picklable object built from its spec string alone,
so a worker process can build it (``make_bot``) and answer
``bot.choose(view, legal)``; without a cap its answers depend only on the
spec, the seed and the views it was shown.
"""

from __future__ import annotations

import importlib

from spieltisch.bots.base import Bot, Budget, RandomBot, View
from spieltisch.bots.spec import BotSpec, parse_spec
from spieltisch.engine import OptionsError, get_game

LEVELS = ("random", "easy", "medium", "hard")

# Built-in levels: per game and level, the kept versions (oldest first), each
# a module:class imported on first use. The default is the last one unless
# _DEFAULT names another (a newer version becomes the default only once it is
# measured stronger, docs/bots.md).
_BUILT_IN: dict[str, dict[str, dict[str, str]]] = {
    "scout": {
        "easy": {"v1": "spieltisch.bots.scout:EasyBot"},
        "medium": {"v1": "spieltisch.bots.scout:MediumBot"},
        "hard": {
            "v1": "spieltisch.bots.scout:HardBot",
            "v2": "spieltisch.bots.scout:HardBotV2",
            "v3": "spieltisch.bots.scout:HardBotV3",
            "v4": "spieltisch.bots.scout:HardBotV4",
            "v5": "spieltisch.bots.scout:HardBotV5",
            "v6": "spieltisch.bots.scout:HardBotV6",
            "v7": "spieltisch.bots.scout:HardBotV7",
            "v8": "spieltisch.bots.scout:HardBotV8",
            "v9": "spieltisch.bots.scout:HardBotV9",
            "v10": "spieltisch.bots.scout:HardBotV10",
            "v11": "spieltisch.bots.scout:HardBotV11",
            "v12": "spieltisch.bots.scout:HardBotV12",
        },
    },
    "schmaus": {
        "easy": {"v1": "spieltisch.bots.schmaus:EasyBot"},
        "medium": {"v1": "spieltisch.bots.schmaus:MediumBot"},
        "hard": {
            "v1": "spieltisch.bots.schmaus:HardBot",
            "v2": "spieltisch.bots.schmaus_rollout:HardBotV2",
            "v3": "spieltisch.bots.schmaus_weighted:HardBotV3",
            "v4": "spieltisch.bots.schmaus_tuned:HardBotV4",
            "v5": "spieltisch.bots.schmaus_value:HardBotV5",
            "v6": "spieltisch.bots.schmaus_value:HardBotV6",
            "v7": "spieltisch.bots.schmaus_value:HardBotV7",
            "v8": "spieltisch.bots.schmaus_pile:HardBotV8",
        },
    },
}


_DEFAULT: dict[tuple[str, str], str] = {("scout", "hard"): "v12", ("schmaus", "hard"): "v8"}


def versions(game: str, level: str) -> list[str]:
    """The kept versions of a built-in level, oldest first."""
    if level == "random":
        return ["v1"]
    return list(_BUILT_IN[get_game(game).name].get(level, {}))


def default_version(game: str, level: str) -> str:
    """The version a spec without ``@VERSION`` plays."""
    kept = versions(game, level)
    return _DEFAULT.get((get_game(game).name, level), kept[-1] if kept else "v1")


def bot_class(game: str, level: str) -> type[Bot]:
    """The class of a built-in level, ``LEVEL`` or ``LEVEL@VERSION``."""
    name = get_game(game).name
    level, _, version = level.partition("@")
    if level == "random":
        if version and version != "v1":
            raise OptionsError(f"unknown version {version!r} of random: it has v1 only")
        return RandomBot
    kept = _BUILT_IN[name].get(level)
    if kept is None:
        raise OptionsError(f"unknown bot level {level!r}: choose one of {', '.join(LEVELS)} or cmd:...")
    if version and version not in kept:
        raise OptionsError(
            f"unknown version {version!r} of {level} for {get_game(game).title}: "
            f"choose one of {', '.join(kept)}"
        )
    module, cls = kept[version or default_version(name, level)].split(":")
    found: type[Bot] = getattr(importlib.import_module(module), cls)
    return found


def parse_bot_spec(game: str, spec: str) -> tuple[type[Bot], BotSpec]:
    """The class and parsed budget of a built-in bot spec; raises
    :class:`OptionsError` (a ``ValueError``) saying what is wrong."""
    head = spec.strip().split(":", 1)[0]
    cls = bot_class(game, head.strip())
    return cls, parse_spec(spec, cls.work_unit)


def check_spec(game: str, spec: str) -> None:
    """Raise :class:`OptionsError` unless ``spec`` names a built-in bot of
    ``game`` with a valid budget (``cmd:`` specs are checked when started)."""
    if not spec.startswith("cmd:"):
        parse_bot_spec(game, spec)


def make_bot(
    game: str,
    spec: str,
    seat: int,
    seed: int,
    budget: Budget | None = None,
    timeout: float = 10.0,
) -> Bot:
    """A bot for ``seat`` from a seat spec (see the module docs). What the
    spec states of the budget wins over ``budget``; what neither states is
    the level's default."""
    if spec.startswith("cmd:"):
        from spieltisch.bots.external import ExternalBot

        return ExternalBot(game, seat, seed, command=spec[4:], timeout=timeout, budget=budget)
    cls, parsed = parse_bot_spec(game, spec)
    return cls(game, seat, seed, parsed.budget(budget))


__all__ = [
    "LEVELS",
    "Bot",
    "BotSpec",
    "Budget",
    "RandomBot",
    "View",
    "bot_class",
    "check_spec",
    "default_version",
    "make_bot",
    "parse_bot_spec",
    "versions",
]
