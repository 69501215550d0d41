"""What a bot is: it decides from a seat's view and the legal action ids, never
from the full state (the types make that the only way in)."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from spieltisch.engine import Game, get_game

View = Mapping[str, Any]


@dataclass(frozen=True)
class Budget:
    """How much a bot may think per decision (``None``: the bot's own default)."""

    seconds: float | None = None
    iterations: int | None = None


class Bot(ABC):
    """A seat's decision maker. Reproducible from ``seed``."""

    level: ClassVar[str] = "bot"

    def __init__(self, game: str, seat: int, seed: int, budget: Budget | None = None) -> None:
        self.game: Game = get_game(game)
        self.game_name = self.game.name
        self.seat = seat
        self.seed = seed
        self.budget = budget or Budget()
        self.rng = random.Random(f"bot/{self.level}/{game}/{seed}/{seat}")

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
