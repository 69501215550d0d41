"""Waschbär-Schmaus' ``neural`` level: every legal lay scored by a network taught by hard.

For each legal lay (W-4) :func:`candidates` writes one row of inputs: the position
(players, how many rounds are left, hand sizes, the score gaps, the draw pile) and
the lay (medium's expected pot share against its opponent model and its rank among
the lays, the lay's own score, cost and effect, and the hand it leaves: its keep
value and the best lay it still allows). A small network (:mod:`spieltisch.bots.neural`)
scores the rows; the bot lays the best. The network was trained to pick what ``hard``
lays (``examples/train_neural.py``). Grocer targets, ×5 cards and discards are
medium's choices.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from spieltisch.bots.base import Budget, View
from spieltisch.bots.neural import load, require
from spieltisch.bots.schmaus.bots import SchmausBot
from spieltisch.bots.schmaus.model import (
    EFFECT,
    FOOD_SUM,
    KEEP_VALUE,
    SOLO,
    OpponentModel,
    cost,
    counts_of,
    opponent_hand_size,
    solo_best,
    unseen_counts,
)
from spieltisch.engine.schmaus import actions as A

SAMPLES = 32
"""Opponent hands of medium's model per decision (medium's default)."""
MEDIUM_INPUT = 11
"""The input that holds a lay's medium gain (the first after the position's inputs)."""
EFFECTS = (-1, 5, 6, 7, 8, 9, 10, 11)
"""A lay's effect card kind (-1: none), one input each."""


def candidates(view: View, lays: Sequence[int], rng: Any) -> list[list[float]]:
    """One row of inputs per lay id in ``lays``; ``rng`` draws medium's model's hands."""
    me, n = int(view["seat"]), int(view["players"])
    others = [s for s in range(n) if s != me]
    scores = view["scores"]
    sizes = view["hand_sizes"]
    model = OpponentModel(unseen_counts(view), opponent_hand_size(view), n, SAMPLES, rng)
    gains = [model.gain(i) for i in lays]
    best = max(gains)
    order = sorted(range(len(lays)), key=lambda j: -gains[j])
    rank = {j: r for r, j in enumerate(order)}
    counts = counts_of(view["hand"])
    left = int(view["rounds"]) - int(view["round"])
    base = [
        *(1.0 if n == k else 0.0 for k in (2, 3, 4, 5)),
        left / 12,
        1.0 if left == 0 else 0.0,
        len(view["hand"]) / 12,
        sum(sizes[s] for s in others) / len(others) / 12,
        (scores[me] - max(scores[s] for s in others)) / 50,
        (scores[me] - sum(scores[s] for s in others) / len(others)) / 50,
        int(view["draw_pile_size"]) / 54,
    ]
    rows = []
    for j, lay in enumerate(lays):
        rest = list(counts)
        for k in A.PLAYS[lay]:
            rest[k] -= 1
        rows.append(
            [
                *base,
                gains[j] / 30,
                (gains[j] - best) / 30,
                rank[j] / len(lays),
                SOLO[lay] / 30,
                cost(lay) / 10,
                FOOD_SUM[lay] / 15,
                len(A.PLAYS[lay]) / 3,
                *(1.0 if EFFECT[lay] == e else 0.0 for e in EFFECTS),
                sum(rest) / 12,
                sum(KEEP_VALUE[k] * c for k, c in enumerate(rest)) / 30,
                solo_best(rest) / 30,
            ]
        )
    return rows


class NeuralBot(SchmausBot):
    """The lay the network scores best (see the module docs)."""

    level = "neural"

    def __init__(self, game: str, seat: int, seed: int, budget: Budget | None = None) -> None:
        require()
        super().__init__(game, seat, seed, budget)

    def lay(self, view: View, lays: list[int]) -> int:
        if len(lays) == 1:
            return lays[0]
        scores = load("spieltisch.bots.schmaus").scores(candidates(view, lays, self.rng))
        return lays[int(scores.argmax())]


def training_rng(index: int) -> random.Random:
    """The model's random draws for training decision ``index`` (examples/train_neural.py)."""
    return random.Random(f"neural/train/{index}")
