"""Bots: built-in levels per game and external programs, all behind :class:`Bot`.

``make_bot(game, spec, seat, seed)`` understands the seat specs used
everywhere (terminal play, the lab, the web table):

* ``random`` - uniformly random legal play
* ``easy`` / ``medium`` / ``neural`` / ``hard`` - the built-in levels of that game, the
  default version; ``hard@baseline`` (or its name, ``hard@v7`` for Scout,
  ``hard@v5`` for Waschbär-Schmaus) the one kept baseline, for the lab's
  head-to-head measurements (:func:`versions`)
* ``LEVEL:KEY=VALUE...`` - a budget per decision counted in work
  (``hard:playouts=1200`` for Scout, ``hard:samples=256`` for
  Waschbär-Schmaus), optionally with a wall-clock cap (``:cap=2``,
  machine-dependent); see :mod:`spieltisch.bots.spec`
* ``cmd:COMMAND`` - an external program speaking the bot protocol
  (``docs/bot-protocol.md``)
* ``py:MODULE:FACTORY[:ARG]`` - an in-process bot made by a Python factory
  (:mod:`spieltisch.bots.python`)

A retired version (``hard@v9``) is refused with a message naming the kept
ones; a game stored while it played resumes with today's default in its
place (:func:`resolve_stored_spec`).

A built-in bot is a plain picklable object built from its spec string alone,
so a worker process can build it (``make_bot``) and answer
``bot.choose(view, legal)``; without a cap its answers depend only on the
spec, the seed and the views it was shown.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from spieltisch.bots.base import Bot, Budget, RandomBot, View
from spieltisch.bots.python import PREFIX as PY_PREFIX
from spieltisch.bots.python import load_factory, make_python_bot
from spieltisch.bots.spec import BotSpec, parse_spec
from spieltisch.engine import OptionsError, get_game

LEVELS = ("random", "easy", "medium", "neural", "hard")

BASELINE = "baseline"
"""The version alias of a level's kept baseline (``hard@baseline``)."""


@dataclass(frozen=True)
class Level:
    """A built-in level of one game: its one bot class and its kept versions.

    A level keeps its default and at most one baseline; a newer version
    becomes the default only once it is measured stronger (docs/bots.md), and
    a version that is neither is retired (git history keeps it). A kept
    version is a frozen config of the class, the module's ``HARD_V12``-style
    constant (``LEVEL_VERSION``); a level without such constants takes none."""

    module: str
    bot: str
    """The class in ``module``, imported on first use."""
    default: str = "v1"
    baseline: str | None = None
    retired: tuple[str, ...] = ()
    """Versions that existed once: stored games that name them resume with the default."""

    @property
    def versions(self) -> list[str]:
        return [v for v in (self.baseline, self.default) if v is not None]

    def config(self, version: str) -> Any:
        """The frozen config of a kept ``version`` (None: the class takes none)."""
        name = f"{self.bot.removesuffix('Bot').upper()}_{version.upper()}"
        return getattr(importlib.import_module(self.module), name, None)


def _retired(newest: int, *kept: int) -> tuple[str, ...]:
    return tuple(f"v{i}" for i in range(1, newest + 1) if i not in kept)


_BUILT_IN: dict[str, dict[str, Level]] = {
    "scout": {
        "easy": Level("spieltisch.bots.scout", "EasyBot"),
        "medium": Level("spieltisch.bots.scout", "MediumBot"),
        "neural": Level("spieltisch.bots.scout.neural", "NeuralBot"),
        "hard": Level("spieltisch.bots.scout", "HardBot", "v12", "v7", _retired(12, 7, 12)),
    },
    "schmaus": {
        "easy": Level("spieltisch.bots.schmaus", "EasyBot"),
        "medium": Level("spieltisch.bots.schmaus", "MediumBot"),
        "neural": Level("spieltisch.bots.schmaus.neural", "NeuralBot"),
        "hard": Level("spieltisch.bots.schmaus", "HardBot", "v8", "v5", _retired(8, 5, 8)),
    },
}


def _level(game: str, level: str) -> Level:
    if level == "random":
        return Level("spieltisch.bots.base", "RandomBot")
    found = _BUILT_IN[get_game(game).name].get(level)
    if found is None:
        raise OptionsError(
            f"unknown bot level {level!r}: choose one of {', '.join(LEVELS)}, cmd:... or py:..."
        )
    return found


def versions(game: str, level: str) -> list[str]:
    """The kept versions of a built-in level: its baseline (if any), then its default."""
    return _level(game, level).versions


def default_version(game: str, level: str) -> str:
    """The version a spec without ``@VERSION`` plays."""
    return _level(game, level).default


def baseline_version(game: str, level: str) -> str | None:
    """The kept baseline of a level (``LEVEL@baseline``), or None."""
    return _level(game, level).baseline


def _version(game: str, level: str, version: str | None) -> str:
    """The kept version ``version`` names (None: the default); raises :class:`OptionsError`."""
    kept = _level(game, level)
    if not version:
        return kept.default
    if version == BASELINE and kept.baseline is not None:
        return kept.baseline
    if version in kept.versions:
        return version
    names = ", ".join(f"{level}@{v}" for v in kept.versions)
    if kept.baseline is not None:
        names += f" ({level}@{BASELINE} is {level}@{kept.baseline})"
    what = "retired" if version in kept.retired else "unknown"
    raise OptionsError(f"{what} version {version!r} of {level} for {get_game(game).title}: choose {names}")


def bot_class(game: str, level: str) -> type[Bot]:
    """The class of a built-in level, ``LEVEL`` or ``LEVEL@VERSION`` (one class
    per level; its versions are configs of it)."""
    name, _, version = level.partition("@")
    _version(game, name, version or None)
    kept = _level(game, name)
    found: type[Bot] = getattr(importlib.import_module(kept.module), kept.bot)
    return found


def bot_config(game: str, level: str) -> Any:
    """The frozen config of ``LEVEL`` or ``LEVEL@VERSION`` (None: the level takes none)."""
    name, _, version = level.partition("@")
    return _level(game, name).config(_version(game, name, version or None))


def parse_bot_spec(game: str, spec: str) -> tuple[type[Bot], BotSpec]:
    """The class and parsed budget of a built-in bot spec; raises
    :class:`OptionsError` (a ``ValueError``) saying what is wrong."""
    head = spec.strip().split(":", 1)[0]
    cls = bot_class(game, head.strip())
    return cls, parse_spec(spec, cls.work_unit)


def check_spec(game: str, spec: str) -> None:
    """Raise :class:`OptionsError` unless ``spec`` names a built-in bot of
    ``game`` with a valid budget, or a ``py:`` factory that exists (``cmd:`` specs
    are checked when started)."""
    if spec.startswith(PY_PREFIX):
        load_factory(spec)
    elif not spec.startswith("cmd:"):
        parse_bot_spec(game, spec)


def resolve_stored_spec(game: str, spec: str) -> str:
    """The spec to play a *stored* game's seat with: ``spec`` itself, or, when
    it names a retired version (``hard@v9:playouts=400``), today's default of
    that level with the same budget (``hard:playouts=400``), so that a game
    begun before the version was retired resumes. Anything else that is not
    a valid spec raises :class:`OptionsError` as :func:`check_spec` does."""
    if spec.startswith("cmd:"):
        return spec
    head, colon, rest = spec.strip().partition(":")
    level, at, version = head.strip().partition("@")
    if at and level.strip() in LEVELS and version.strip() in _level(game, level.strip()).retired:
        spec = level.strip() + colon + rest
    check_spec(game, spec)
    return spec


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
    if spec.startswith(PY_PREFIX):
        return make_python_bot(game, spec, seat, seed, budget)
    cls, parsed = parse_bot_spec(game, spec)
    config = bot_config(game, spec.strip().split(":", 1)[0].strip())
    if config is None:
        return cls(game, seat, seed, parsed.budget(budget))
    return cls(game, seat, seed, parsed.budget(budget), config)  # type: ignore[call-arg]


__all__ = [
    "BASELINE",
    "LEVELS",
    "Bot",
    "BotSpec",
    "Budget",
    "Level",
    "RandomBot",
    "View",
    "baseline_version",
    "bot_class",
    "bot_config",
    "check_spec",
    "default_version",
    "make_bot",
    "parse_bot_spec",
    "resolve_stored_spec",
    "versions",
]
