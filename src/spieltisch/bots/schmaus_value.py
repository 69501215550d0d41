"""Waschbär-Schmaus hard, version 5: v1's search with a value of the position
fitted to played games.

hard@v1 (:class:`~spieltisch.bots.schmaus.HardBot`) scores a lay in each
sampled world by its chance to win the game after the round, from a
hand-made formula: the totals blurred by the rounds left, plus fixed weights
for the cards it spends, the lays the rest of its hand allows and the worth
of drawing when lowest (W-15). Its weights sit on a plateau (docs/bots.md,
"Waschbär-Schmaus screens", hard@v4). hard@v5 keeps v1's samples, its
opponent model and its exact round arithmetic, and replaces that formula in
every round but the last by a logistic model of the chance to win
(:func:`value`), one per number of rounds left, fitted by
``scripts/fit_schmaus_value.py`` to positions of hard@v1 against 3× medium
on training deals (seeds disjoint from every measurement seed). Its inputs,
per sampled world after the round (:func:`features`):

* the score differences to the leading, the middle and the trailing
  opponent (the totals after this round's pot, W-14);
* this seat's hand after the lay: its keep value (:data:`KEEP_VALUE`), its
  size and the greedy lays it still allows (v1's plan value);
* the opponents' mean keep value and size of their sampled hands after
  their lays;

where the lowest draw two cards of the unseen cards' mean keep value
(W-15) and a hand that allows no full lay is filled by W-5's expected draws
(:func:`_refill`), as the positions at the next round's start were
recorded. In the last round the objective is v1's (the game's winner,
exactly), and so it is at tables of other than 4 players or under other
than the default rule options, for which the value was not fitted. Grocer
targets and ×5 cards are v1's (their hindsight regret is nil, docs/bots.md,
"Waschbär-Schmaus hard@v5").

Only the seat's view is used; the budget is v1's: ``samples`` sampled
worlds, counted in work, so a decision depends only on the seed and the view.

Two kept candidates share v5's search (docs/bots.md, "Waschbär-Schmaus
hard@v6 and hard@v7"; neither measured stronger than v5): hard@v6
(:class:`HardBotV6`) refits the weights to games of hard@v5 itself (one step
of policy iteration), and hard@v7 (:class:`HardBotV7`) adds the count of
each effect card this seat keeps to the inputs (:func:`effect_counts`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import ClassVar

from spieltisch.bots.base import View
from spieltisch.bots.schmaus import (
    KEEP_VALUE,
    HardBot,
    _Search,
    awards,
    counts_of,
    modelled_round,
)
from spieltisch.engine.schmaus import actions as A
from spieltisch.engine.schmaus.options import normalize_options

_DEFAULTS = normalize_options(None, 4)
"""The rule options the value was fitted under (the defaults)."""

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
of :func:`features` (fitted by ``scripts/fit_schmaus_value.py``)."""


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


def _refill(food: float, other: float) -> float:
    """W-5's expected draws for a hand of ``food`` food and ``other`` other
    cards: none if it allows a full lay, else until it does (about)."""
    if food >= 3 or (food >= 2 and other >= 1):
        return 0.0
    need = (2 - food) if other >= 1 else (3 - food)
    return max(0.0, need) / FOOD_SHARE


@dataclass(frozen=True)
class _SearchV5(_Search):
    """v1's :class:`~spieltisch.bots.schmaus._Search` plus, per lay, this
    seat's hand after it (keep value, size, food, other cards, plan value)
    and the unseen cards' mean keep value."""

    after: dict[int, tuple[float, float, float, float, float]]
    avg_keep: float


class HardBotV5(HardBot):
    """hard@v1's search with a fitted value of the position after the round
    (version 5, ``hard@v5``)."""

    version = "v5"
    fitted_players = 4
    """The table size the value was fitted for; other tables, and games with
    other than the default rule options, use v1's objective."""
    blend = 1.0
    coefficients: ClassVar[Mapping[int, Sequence[float]]] = COEFFICIENTS
    """The fitted weights per number of rounds left (see :func:`value`)."""
    """Weight of the fitted value; the rest is v1's objective on the same samples."""

    def _prepare(self, view: View, lays: list[int]) -> _Search:
        search = super()._prepare(view, lays)
        hand = counts_of(view["hand"])
        left = view["rounds"] - view["round"]
        after = {}
        gains = search.gain
        for lay in lays:
            rest = list(hand)
            for k in A.PLAYS[lay]:
                rest[k] -= 1
            plan = (
                self._plan_value(rest, search.model, min(left, self.plan_rounds), gains) if left > 0 else 0.0
            )
            keep = sum(KEEP_VALUE[k] * rest[k] for k in range(12))
            food = float(sum(rest[:5]))
            after[lay] = (keep, float(sum(rest)), food, float(sum(rest)) - food, plan)
        pool = search.pool
        avg_keep = sum(KEEP_VALUE[k] for k in pool) / len(pool) if pool else 0.0
        values = {f.name: getattr(search, f.name) for f in fields(search)}
        return _SearchV5(**values, after=after, avg_keep=avg_keep)

    def _opponents_lays(self, search: _Search, dealt: Mapping[int, list[int]]) -> list[int]:
        """v1's table of one sample; the dealt hands are kept for :meth:`_score`
        (which v1's search calls next, on the same sample)."""
        table = super()._opponents_lays(search, dealt)
        self._dealt = dealt
        return table

    def _score(
        self,
        view: View,
        search: _Search,
        table: list[int],
        lays: list[int],
        totals: dict[int, float],
        weight: float = 1.0,
    ) -> None:
        left = view["rounds"] - view["round"]
        if (
            left <= 0
            or not self.coefficients
            or view["players"] != self.fitted_players
            or view["options"] != _DEFAULTS
            or not isinstance(search, _SearchV5)
        ):
            super()._score(view, search, table, lays, totals, weight)
            return
        if self.blend < 1.0:
            super()._score(view, search, table, lays, totals, weight * (1.0 - self.blend))
        weight *= self.blend
        me, n = search.me, search.n
        dealt = self._dealt
        draws = min(view["options"]["loser_draws"], view["draw_pile_size"] + len(view["discard"]))
        avg = search.avg_keep
        base_keep = [0.0] * n
        base_size = [0.0] * n
        base_food = [0.0] * n
        for s, counts in dealt.items():
            laid = A.PLAYS[table[s]]
            base_keep[s] = sum(KEEP_VALUE[k] * counts[k] for k in range(12)) - sum(
                KEEP_VALUE[k] for k in laid
            )
            base_size[s] = float(sum(counts) - len(laid))
            base_food[s] = float(sum(counts[:5]) - sum(1 for k in laid if k < 5))
        scores = view["scores"]
        for lay in lays:
            table[me] = lay
            individual, void = modelled_round(table)
            shares, lowest = awards(individual)
            if void and search.no_hunter_draw:
                lowest = []
            keep_after, size_after, food_after, _, plan = search.after[lay]
            keep = list(base_keep)
            size = list(base_size)
            food = list(base_food)
            keep[me], size[me], food[me] = keep_after, size_after, food_after
            drawn = 0.0
            for s in range(n):
                if s in lowest:
                    keep[s] += draws * avg
                    size[s] += draws
                    food[s] += draws * FOOD_SHARE
                    if s == me:
                        drawn += draws
                extra = _refill(food[s], size[s] - food[s])
                keep[s] += extra * avg
                size[s] += extra
                if s == me:
                    drawn += extra
            x = features(me, [t + a for t, a in zip(scores, shares, strict=True)], keep, size, plan)
            x += self._extra_inputs(search, lay, drawn)
            totals[lay] += weight * value(left, x, self.coefficients)

    def _extra_inputs(self, search: _SearchV5, lay: int, drawn: float) -> list[float]:
        """Inputs of the value beyond :func:`features` for ``lay``, after
        ``drawn`` cards expected to be drawn (none in v5; see hard@v7)."""
        return []


COEFFICIENTS_V6: dict[int, tuple[float, ...]] = {
    1: (-1.4504, 0.6267, 0.0279, 0.0409, 0.0962, 0.1251, 0.573, -1.8762, 0.4324),
    2: (-1.4991, 0.3952, 0.0266, 0.0418, -0.1501, 0.1859, 0.421, -1.2511, 0.3047),
    3: (-1.4012, 0.2908, 0.028, 0.0454, 0.2255, -0.0178, 0.3275, -0.9792, 0.3051),
    4: (-1.1221, 0.225, 0.0547, 0.0171, 0.3515, -0.112, 0.2092, -1.2211, 0.4137),
    5: (-1.3903, 0.1886, 0.0482, 0.0196, -0.0013, 0.0322, 0.2758, -0.939, 0.3422),
    6: (-1.3893, 0.1626, 0.0194, 0.053, -0.0088, 0.0434, 0.2111, -0.9961, 0.34),
    7: (-2.072, 0.142, 0.0194, 0.0617, -0.0231, 0.0684, 0.2048, -1.0974, 0.5212),
    8: (-1.6015, 0.1212, 0.0159, 0.071, 0.2964, -0.0443, 0.1226, -0.4613, 0.2481),
    9: (-1.6091, 0.0961, 0.0312, 0.0723, 0.1816, 0.0151, 0.1411, -0.3112, 0.164),
    10: (-1.3685, 0.0867, 0.0644, 0.0383, 0.2631, -0.0464, 0.0337, -0.4901, 0.2394),
    11: (-1.2293, 0.0915, 0.0832, 0.0085, 0.3756, -0.0612, 0.0886, -0.468, 0.1626),
}
"""hard@v6's weights of :func:`features` per number of rounds left after this
one: refitted by ``scripts/fit_schmaus_value.py fit`` to 8,000 training games
of hard@v5 itself against 3× medium (seeds 120000–120999 and 122000–122999,
disjoint from every measurement seed): one step of policy iteration."""


class HardBotV6(HardBotV5):
    """hard@v5 with its value refitted to games of hard@v5 itself (one step of
    policy iteration; version 6, ``hard@v6``): the same features, search,
    samples and fallbacks as v5; only :attr:`coefficients` differ."""

    version = "v6"
    coefficients: ClassVar[Mapping[int, Sequence[float]]] = COEFFICIENTS_V6


EFFECT_KINDS = range(5, 12)
"""The effect cards' kinds (×3, ×2, ×5, hunter, garbage, grocer, guardian)."""


def effect_counts(hand: Sequence[int]) -> list[float]:
    """hard@v7's extra inputs: the count of each effect card in a hand (a
    count vector of length 12)."""
    return [float(hand[k]) for k in EFFECT_KINDS]


COEFFICIENTS_V7: dict[int, tuple[float, ...]] = {
    1: (
        -0.4243,
        0.6602,
        0.0434,
        0.0066,
        0.506,
        0.0894,
        0.524,
        -1.8492,
        0.2141,
        -0.1908,
        -0.4515,
        -0.074,
        0.4077,
        0.0897,
        -0.1359,
        -0.3684,
    ),
    2: (
        -1.4101,
        0.414,
        0.0193,
        0.0368,
        0.2582,
        -0.0112,
        0.2399,
        -1.5199,
        0.5028,
        0.1752,
        -0.2563,
        0.6568,
        0.3102,
        0.1122,
        -0.0141,
        -0.0794,
    ),
    3: (
        -1.2287,
        0.316,
        0.0207,
        0.0448,
        0.287,
        0.0968,
        0.1895,
        -1.183,
        0.2664,
        0.1499,
        -0.3696,
        0.4777,
        0.1427,
        -0.1215,
        0.0271,
        -0.2054,
    ),
    4: (
        -1.4251,
        0.2405,
        0.0435,
        0.0266,
        0.3287,
        -0.0036,
        0.1903,
        -0.97,
        0.3442,
        -0.0246,
        -0.3621,
        0.3132,
        0.2106,
        0.1228,
        -0.034,
        -0.1319,
    ),
    5: (
        -1.4172,
        0.1981,
        0.0342,
        0.0415,
        -0.0336,
        0.0196,
        0.2057,
        -1.041,
        0.3876,
        0.2923,
        -0.2186,
        0.5001,
        0.3515,
        0.0091,
        -0.0056,
        -0.098,
    ),
    6: (
        -1.6876,
        0.1705,
        0.0305,
        0.0507,
        0.2917,
        0.0066,
        0.1416,
        -0.9809,
        0.4009,
        -0.0088,
        -0.2429,
        0.2116,
        0.1831,
        0.0463,
        -0.0968,
        -0.1733,
    ),
    7: (
        -1.4639,
        0.1493,
        0.0329,
        0.048,
        0.1233,
        0.0201,
        0.1314,
        -1.1333,
        0.4006,
        0.2121,
        -0.2138,
        0.2679,
        0.1199,
        0.0437,
        -0.0324,
        -0.0448,
    ),
    8: (
        -1.4477,
        0.1255,
        0.0406,
        0.0427,
        0.1678,
        -0.0533,
        0.1417,
        -0.7232,
        0.3257,
        0.08,
        -0.1635,
        0.2157,
        0.1634,
        0.0535,
        -0.0009,
        0.0346,
    ),
    9: (
        -1.3913,
        0.1107,
        0.0564,
        0.025,
        0.226,
        0.0333,
        0.1337,
        -0.5643,
        0.2144,
        -0.0659,
        -0.3543,
        0.094,
        0.0456,
        0.0509,
        -0.082,
        -0.1814,
    ),
    10: (
        -1.396,
        0.0954,
        0.0351,
        0.062,
        0.3314,
        -0.0595,
        0.0704,
        -0.5101,
        0.2577,
        -0.0877,
        -0.2541,
        -0.1367,
        0.204,
        0.0159,
        -0.0085,
        -0.0917,
    ),
    11: (
        -0.6332,
        0.1001,
        0.0593,
        0.0127,
        0.4676,
        -0.1215,
        0.0741,
        -0.3937,
        0.082,
        -0.0184,
        -0.1819,
        0.058,
        0.1713,
        0.1433,
        -0.0033,
        -0.1523,
    ),
}
"""hard@v7's weights of :func:`features` followed by :func:`effect_counts`
of this seat's hand, per number of rounds left after this one: fitted by
``scripts/fit_schmaus_value.py fit --effects`` to 8,000 training games of
hard@v5 against 3× medium (seeds 122000–123999)."""


@dataclass(frozen=True)
class _SearchV7(_SearchV5):
    """v5's search plus, per lay, the effect cards this seat keeps, and the
    unseen cards' share of each effect kind."""

    effects_after: dict[int, list[float]]
    effect_share: list[float]


class HardBotV7(HardBotV6):
    """hard@v6 whose value also weighs each kind of effect card this seat
    keeps (version 7, ``hard@v7``): v5's features plus the expected count of
    each effect card in its hand after the round (the kept ones and the
    unseen cards' share of the expected draws)."""

    version = "v7"
    coefficients: ClassVar[Mapping[int, Sequence[float]]] = COEFFICIENTS_V7

    def _prepare(self, view: View, lays: list[int]) -> _Search:
        search = super()._prepare(view, lays)
        assert isinstance(search, _SearchV5)
        hand = counts_of(view["hand"])
        effects_after = {}
        for lay in lays:
            rest = list(hand)
            for k in A.PLAYS[lay]:
                rest[k] -= 1
            effects_after[lay] = effect_counts(rest)
        pool = search.pool
        share = [sum(1 for c in pool if c == k) / len(pool) if pool else 0.0 for k in EFFECT_KINDS]
        values = {f.name: getattr(search, f.name) for f in fields(search)}
        return _SearchV7(**values, effects_after=effects_after, effect_share=share)

    def _extra_inputs(self, search: _SearchV5, lay: int, drawn: float) -> list[float]:
        if not isinstance(search, _SearchV7):
            return []
        return [c + drawn * p for c, p in zip(search.effects_after[lay], search.effect_share, strict=True)]
