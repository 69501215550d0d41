"""In-process bots: ``py:MODULE:FACTORY[:ARG]`` seat specs (docs/bots.md, docs/rl.md).

``MODULE`` is an importable module (``mybots.agent``) or a Python file
(``examples/py_bot.py``); ``FACTORY`` a callable in it. The table calls
``FACTORY(game=NAME, seat=SEAT, seed=SEED, arg=ARG)`` (``NAME`` the engine's game name,
``scout`` or ``schmaus``; ``ARG`` the text after the third colon, else ``None``) once per
seat and game, and seats what it returns: a :class:`~spieltisch.bots.base.Bot`, or any
object with ``choose(view, legal) -> int`` (the seat's view and the engine's legal ids, as
every bot gets them) and optionally ``game_over(outcome, view)`` and ``close()``. The game's
rule options, where it has any, are in every view (``view["options"]``).

Unlike a ``cmd:`` program it runs in the table's own process: no protocol, no process start,
a trained policy answers at the speed of its forward pass. It is trusted code, like any
module you import; the web table never seats one (only the built-in levels).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from spieltisch.bots.base import Bot, Budget, View
from spieltisch.engine import OptionsError

PREFIX = "py:"


def parse_python_spec(spec: str) -> tuple[str, str, str | None]:
    """``py:MODULE:FACTORY[:ARG]`` -> ``(MODULE, FACTORY, ARG)``; :class:`OptionsError` if malformed."""
    module, _, rest = spec.strip()[len(PREFIX) :].partition(":")
    factory, colon, arg = rest.partition(":")
    module, factory = module.strip(), factory.strip()
    if not module or not factory:
        raise OptionsError(
            f"bot spec {spec!r}: write py:MODULE:FACTORY[:ARG], e.g. py:examples/py_bot.py:make_bot"
        )
    if not factory.isidentifier():
        raise OptionsError(f"bot spec {spec!r}: {factory!r} is not a Python name (the factory in {module})")
    return module, factory, arg if colon else None


def _module(spec: str, name: str) -> ModuleType:
    if name.endswith(".py"):
        path = Path(name).resolve()
        if not path.is_file():
            raise OptionsError(f"bot spec {spec!r}: no file {name!r}")
        key = f"spieltisch_py_bot_{abs(hash(str(path)))}"
        if key in sys.modules:
            return sys.modules[key]
        loader = importlib.util.spec_from_file_location(key, path)
        if loader is None or loader.loader is None:
            raise OptionsError(f"bot spec {spec!r}: {name!r} cannot be loaded as a module")
        module = importlib.util.module_from_spec(loader)
        sys.modules[key] = module
        try:
            loader.loader.exec_module(module)
        except Exception as exc:
            del sys.modules[key]
            raise OptionsError(f"bot spec {spec!r}: {name} failed to load: {exc!r}") from exc
        return module
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        raise OptionsError(
            f"bot spec {spec!r}: no module {name!r} ({exc}); name an importable module or a .py file"
        ) from exc
    except Exception as exc:
        raise OptionsError(f"bot spec {spec!r}: module {name} failed to load: {exc!r}") from exc


def load_factory(spec: str) -> tuple[Callable[..., Any], str | None]:
    """The factory a ``py:`` spec names, and its argument; :class:`OptionsError` naming what is
    missing (the module, the file, the factory, or a factory that is not callable)."""
    name, factory_name, arg = parse_python_spec(spec)
    module = _module(spec, name)
    factory = getattr(module, factory_name, None)
    if factory is None:
        raise OptionsError(f"bot spec {spec!r}: {name} has no {factory_name!r}")
    if not callable(factory):
        raise OptionsError(f"bot spec {spec!r}: {name}.{factory_name} is not callable")
    return factory, arg


class PythonBot(Bot):
    """A seat played by an object from a ``py:`` factory that is not itself a :class:`Bot`."""

    level = "python"

    def __init__(
        self, game: str, seat: int, seed: int, spec: str, player: Any, budget: Budget | None = None
    ) -> None:
        super().__init__(game, seat, seed, budget)
        self.spec = spec
        self.player = player

    @property
    def name(self) -> str:
        return self.spec

    def choose(self, view: View, legal: Sequence[int]) -> int:
        return int(self.player.choose(view, legal))

    def game_over(self, outcome: Mapping[str, Any] | None, view: View | None = None) -> None:
        if callable(getattr(self.player, "game_over", None)):
            self.player.game_over(outcome, view)

    def close(self) -> None:
        if callable(getattr(self.player, "close", None)):
            self.player.close()


def make_python_bot(game: str, spec: str, seat: int, seed: int, budget: Budget | None = None) -> Bot:
    """The bot a ``py:`` spec's factory makes for ``seat`` (see the module docs)."""
    from spieltisch.engine import get_game

    factory, arg = load_factory(spec)
    name = get_game(game).name
    try:
        player = factory(game=name, seat=seat, seed=seed, arg=arg)
    except Exception as exc:
        raise OptionsError(f"bot spec {spec!r}: the factory raised {exc!r}") from exc
    if isinstance(player, Bot):
        return player
    if not callable(getattr(player, "choose", None)):
        raise OptionsError(
            f"bot spec {spec!r}: the factory returned {type(player).__name__}, which has no "
            "choose(view, legal) method (return a spieltisch.bots.Bot or an object with one)"
        )
    return PythonBot(game, seat, seed, spec, player, budget)
