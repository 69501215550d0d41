"""A minimal in-process bot for a ``py:`` seat spec (docs/bots.md, "In-process bots").

    spieltisch play scout --seat 1=py:examples/py_bot.py:make_bot
    spieltisch lab tournament --game schmaus --bot medium --bot py:examples/py_bot.py:make_bot:7

The table calls ``make_bot(game=..., seat=..., seed=..., arg=...)`` once per seat and game
and asks the object it returns to ``choose(view, legal)``: the seat's view and the engine's
legal action ids, as every bot gets them. This one plays a random legal id (seeded by the
table's seed, or by the spec's argument). A trained policy would turn the view into its
tensor here (``spieltisch.rl.schmaus.obs.observation(view)``, docs/rl.md) and pick the
legal id its network likes best.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any


class RandomPlayer:
    """Uniformly random legal play, reproducible from its seed."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)
        self.games = 0

    def choose(self, view: Mapping[str, Any], legal: Sequence[int]) -> int:
        return legal[self.rng.randrange(len(legal))]

    def game_over(self, outcome: Mapping[str, Any] | None, view: Mapping[str, Any] | None = None) -> None:
        self.games += 1  # optional: the game has ended (outcome as Outcome.to_json())


def make_bot(game: str, seat: int, seed: int, arg: str | None = None) -> RandomPlayer:
    """The factory a ``py:examples/py_bot.py:make_bot[:ARG]`` seat calls."""
    return RandomPlayer(f"{game}/{seat}/{arg if arg is not None else seed}")
