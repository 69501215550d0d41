"""Waschbär-Schmaus hard's value of a position after the round: a logistic
model of the chance to win the game, one per number of rounds left, fitted to
positions of games of an earlier hard against 3x medium on training deals
(seeds disjoint from every measurement seed; docs/bots.md). Its inputs, per
sampled world after the round (:func:`features`):

* the score differences to the leading, the middle and the trailing
  opponent (the totals after this round's pot, W-14);
* this seat's hand after the lay: its keep value (:data:`KEEP_VALUE`), its
  size and the greedy lays it still allows (the plan value);
* the opponents' mean keep value and size of their sampled hands after
  their lays;

where the lowest draw two cards of the unseen cards' mean keep value
(W-15) and a hand that allows no full lay is filled by W-5's expected draws
(:func:`refill`). It holds for 4 players under the default rule options
(:data:`FITTED_PLAYERS`, :data:`FITTED_OPTIONS`), and not in the last round.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from spieltisch.bots.schmaus.model import KEEP_VALUE
from spieltisch.engine.schmaus.options import normalize_options

FITTED_OPTIONS = normalize_options(None, 4)
"""The rule options the value was fitted under (the defaults): under others the
bot plays its plain objective."""
FITTED_PLAYERS = 4
"""The table size the value was fitted for."""

FOOD_SHARE = 40 / 54
"""The share of food cards in the default deck: the chance that a drawn card is food."""

COEFFICIENTS: dict[int, tuple[float, ...]] = {
    1: (-1.1239, 0.6119, -0.001, 0.0755, 0.7185, -0.2444, 0.3695, -2.3087, 0.6719),
    2: (-2.2717, 0.402, 0.0092, 0.0583, 0.5429, -0.1633, 0.3631, -1.3974, 0.7233),
    3: (-0.7683, 0.2924, 0.0408, 0.0413, 0.612, -0.2399, 0.2203, -0.7031, 0.2062),
    4: (-0.6315, 0.2189, 0.0331, 0.0656, 0.3848, -0.1685, 0.1478, -0.3178, 0.02),
    5: (-1.8008, 0.1755, 0.0284, 0.0845, 0.1988, 0.0053, 0.1974, -0.8, 0.2999),
    6: (-1.3892, 0.1478, 0.0561, 0.0516, 0.2948, -0.071, 0.1375, -1.0335, 0.3514),
    7: (-1.5136, 0.1289, 0.0447, 0.0661, 0.119, 0.0423, 0.211, -0.8725, 0.247),
    8: (-0.7738, 0.1154, 0.053, 0.0492, 0.2222, -0.0518, 0.1325, -0.9411, 0.1705),
    9: (-0.7536, 0.093, 0.0887, 0.0269, 0.2153, -0.0953, 0.1079, -0.6558, 0.1374),
    10: (-1.4317, 0.0866, 0.0334, 0.0899, 0.3617, -0.0558, 0.0853, -0.4206, 0.1709),
    11: (-0.6663, 0.1075, -0.0007, 0.0854, 0.4444, -0.0626, 0.0893, -0.2274, -0.0322),
}
"""Per number of rounds left after this one: the logistic model's weights
of :func:`features`, fitted by ``scripts/fit_schmaus_value.py`` (at the tag ``bots-archive-2026-12-05``)."""


def features(
    me: int,
    totals: Sequence[float],
    keep: Sequence[float],
    sizes: Sequence[float],
    plan: float,
) -> list[float]:
    """The inputs of :func:`value` for seat ``me``: a constant, the score
    differences to the best, middle and worst opponent (per 10 points), its
    hand's keep value (per 10), size and plan value (per 10), and the
    opponents' mean keep value (per 10) and size."""
    others = sorted((totals[j] for j in range(len(totals)) if j != me), reverse=True)
    mid = others[len(others) // 2]
    n = len(totals) - 1
    return [
        1.0,
        (totals[me] - others[0]) / 10,
        (totals[me] - mid) / 10,
        (totals[me] - others[-1]) / 10,
        keep[me] / 10,
        float(sizes[me]),
        plan / 10,
        sum(keep[j] for j in range(len(keep)) if j != me) / n / 10,
        sum(sizes[j] for j in range(len(sizes)) if j != me) / n,
    ]


def hand_features(me: int, scores: Sequence[int], hands: Sequence[Sequence[int]], plan: float) -> list[float]:
    """:func:`features` of a real position (whole hands as count vectors)."""
    keep = [sum(KEEP_VALUE[k] * h[k] for k in range(12)) for h in hands]
    return features(me, list(scores), keep, [float(sum(h)) for h in hands], plan)


def value(left: int, x: Sequence[float], table: Mapping[int, Sequence[float]] = COEFFICIENTS) -> float:
    """The fitted chance to win with ``left`` rounds after this one (weights from ``table``)."""
    w = table[min(left, max(table))]
    z = sum(a * b for a, b in zip(w, x, strict=True))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def refill(food: float, other: float) -> float:
    """W-5's expected draws for a hand of ``food`` food and ``other`` other
    cards: none if it allows a full lay, else until it does (about)."""
    if food >= 3 or (food >= 2 and other >= 1):
        return 0.0
    need = (2 - food) if other >= 1 else (3 - food)
    return max(0.0, need) / FOOD_SHARE
