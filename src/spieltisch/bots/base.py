"""What a bot is: it decides from a seat's view and the legal action ids, never
from the full state (the types make that the only way in)."""

from __future__ import annotations

import random
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from spieltisch.engine import Game, get_game

View = Mapping[str, Any]


@dataclass(frozen=True)
class Budget:
    """How much a bot may think per decision (``None``: the bot's own default).

    ``iterations`` is work in the bot's own unit (:attr:`Bot.work_unit`:
    playouts, samples); with work alone a bot's choices depend only on its
    seed and the views it saw, on any machine and under any load.
    ``seconds`` is an optional wall-clock cap on top (for live play, where a
    bot must answer in time): a capped bot stops early when the machine is
    slow or busy, so its play then depends on the machine."""

    seconds: float | None = None
    iterations: int | None = None


class Bot(ABC):
    """A seat's decision maker. Reproducible from ``seed``."""

    level: ClassVar[str] = "bot"
    work_unit: ClassVar[str | None] = None
    """What the budget counts (``playouts``, ``samples``); ``None``: no search."""
    default_work: ClassVar[int] = 0
    """Work per decision when the budget names none."""

    def __init__(self, game: str, seat: int, seed: int, budget: Budget | None = None) -> None:
        self.game: Game = get_game(game)
        self.game_name = self.game.name
        self.seat = seat
        self.seed = seed
        self.budget = budget or Budget()
        self.rng = random.Random(f"bot/{self.level}/{game}/{seed}/{seat}")

    @property
    def work(self) -> int:
        """Work per decision: the budget's count, else :attr:`default_work`."""
        n = self.budget.iterations
        return n if n is not None else self.default_work

    def deadline(self) -> float:
        """The ``time.perf_counter()`` at which a decision started now must stop
        (``inf`` without a wall-clock cap: then only the work count ends it)."""
        cap = self.budget.seconds
        return time.perf_counter() + cap if cap is not None else float("inf")

    @abstractmethod
    def choose(self, view: View, legal: Sequence[int]) -> int:
        """Pick one of the ``legal`` action ids for the position in ``view``."""

    def game_over(self, outcome: Mapping[str, Any] | None, view: View | None = None) -> None:  # noqa: B027
        """The game has ended (``outcome`` as ``Outcome.to_json()``); most bots ignore it."""

    def close(self) -> None:  # noqa: B027 - most bots hold nothing to release
        """Release resources (external processes)."""

    @property
    def name(self) -> str:
        return self.level


class RandomBot(Bot):
    """Uniformly random legal play."""

    level = "random"

    def choose(self, view: View, legal: Sequence[int]) -> int:
        return legal[self.rng.randrange(len(legal))]
