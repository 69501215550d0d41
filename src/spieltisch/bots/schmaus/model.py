"""What the Waschbär-Schmaus bots know and assume: card facts per lay id, the
exact round arithmetic (W-7 .. W-15), what a seat's view tells about the
unseen cards and each opponent's hand, and medium's model of an opponent
(:class:`OpponentModel`). Shared by the levels (:mod:`.bots`) and by the
analysis (reviews, hints), which model the opponents the same way."""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping, Sequence
from functools import cache, lru_cache
from itertools import combinations, combinations_with_replacement
from typing import Any

from spieltisch.bots.base import View
from spieltisch.engine.schmaus import actions as A
from spieltisch.engine.schmaus.cards import (
    BASE,
    EFFECTS,
    FOOD,
    GARBAGE,
    GROCER,
    GUARDIAN,
    HUNTER,
    KIND,
    VALUE,
    X2,
    X3,
    X5,
    can_play_full,
)
from spieltisch.engine.schmaus.options import deck_counts

# -- card facts per lay id (precomputed once, as in the engine) ----------------

EFFECT = tuple(next((k for k in p if k >= 5), -1) for p in A.PLAYS)
FOOD_SUM = tuple(sum(VALUE[k] for k in p if k < 5) for p in A.PLAYS)
FOOD_MAX = tuple(max((VALUE[k] for k in p if k < 5), default=0) for p in A.PLAYS)
BASE_POINTS = tuple(sum(BASE[k] for k in p) for p in A.PLAYS)

KEEP_VALUE = (1.0, 2.0, 3.0, 4.0, 5.0, 8.0, 4.0, 7.0, 3.0, 2.0, 5.0, 4.0)
"""What a card in hand is worth for later rounds (food: its value; raccoons
and the grocer more, garbage little), used for discards and the cost of a lay."""


def counts_of(cards: Sequence[str]) -> list[int]:
    """A list of card ids (as in a view) as a count vector of length 12."""
    counts = [0] * 12
    for c in cards:
        counts[KIND[c]] += 1
    return counts


@lru_cache(maxsize=1 << 14)
def legal_lays(counts: tuple[int, ...]) -> tuple[int, ...]:
    """Lay ids a hand allows (W-4), or its one forced short lay of food only (W-5)."""
    if not can_play_full(counts):
        return (A.PLAY_ID[tuple(k for k in FOOD for _ in range(counts[k]))],)
    food = [k for k in FOOD if counts[k]]
    out = [
        A.PLAY_ID[combo]
        for combo in combinations_with_replacement(food, 3)
        if all(combo.count(k) <= counts[k] for k in combo)
    ]
    pairs = [c for c in combinations_with_replacement(food, 2) if c[0] != c[1] or counts[c[0]] >= 2]
    for e in EFFECTS:
        if counts[e]:
            out.extend(A.PLAY_ID[(*pair, e)] for pair in pairs)
    return tuple(out)


# -- exact round arithmetic -----------------------------------------------------


def round_scores(lays: Sequence[int], targets: Sequence[int | None], x5: Sequence[int]) -> list[int]:
    """Individual scores of a round (W-7 .. W-13) from lay ids, grocer targets
    and the value of each ×5 card (ignored for seats without a ×5 raccoon).

    The same arithmetic as ``engine.schmaus.cards.resolve`` (a test checks
    that), without building a result record: hard calls it thousands of times
    per decision."""
    effects = [EFFECT[i] for i in lays]
    guardian = GUARDIAN in effects  # W-7
    if not guardian and HUNTER in effects:  # W-8
        return [0] * len(lays)
    zeroed: set[int | None] = set()
    garbage = 0
    if not guardian:
        zeroed = {targets[s] for s, e in enumerate(effects) if e == GROCER}  # W-9
        garbage = effects.count(GARBAGE)  # W-10
    doubling = effects.count(X2)  # W-11
    out = []
    for seat, lay in enumerate(lays):
        total = FOOD_SUM[lay]
        if seat in zeroed:
            total = 0
        elif total:
            e = effects[seat]
            if e == X5:
                total += 4 * x5[seat]
            elif e == X3:
                total *= 3
            total <<= doubling
        out.append((total >> garbage) + BASE_POINTS[lay])  # W-12, W-13
    return out


def model_choices(lays: Sequence[int], fixed: Mapping[int, int] | None = None) -> list[int | None]:
    """Grocer targets as the bots expect them (W-9): every grocer picks the
    opponent who would score most without any grocer; ``fixed`` overrides
    some seats' targets."""
    targets: list[int | None] = [None] * len(lays)
    grocers = [s for s, i in enumerate(lays) if EFFECT[i] == GROCER]
    if not grocers:
        return targets
    free = round_scores(lays, targets, [FOOD_MAX[i] for i in lays])
    for s in grocers:
        if fixed is not None and s in fixed:
            targets[s] = fixed[s]
        else:
            targets[s] = max((o for o in range(len(lays)) if o != s), key=lambda o: free[o])
    return targets


def modelled_round(lays: Sequence[int]) -> tuple[list[int], bool]:
    """The round of the table ``lays`` as the bots expect it: each seat's score
    (grocer targets by :func:`model_choices`, every ×5 on the best card) and
    whether the hunter voids it (W-8, unless a guardian blocks it, W-7)."""
    effects = [EFFECT[i] for i in lays]
    void = HUNTER in effects and GUARDIAN not in effects
    return round_scores(lays, model_choices(lays), [FOOD_MAX[i] for i in lays]), void


def awards(individual: Sequence[int]) -> tuple[list[int], list[int]]:
    """The pot shares (W-14) and the seats with the lowest score (W-15)."""
    pot = sum(individual)
    best = max(individual)
    low = min(individual)
    winners = [s for s, v in enumerate(individual) if v == best]
    share = pot // len(winners)
    return [share if v == best else 0 for v in individual], [s for s, v in enumerate(individual) if v == low]


# -- what the view tells -------------------------------------------------------


def unseen_counts(view: View) -> list[int]:
    """Cards the seat cannot see: the deck (``options.deck`` over the defaults)
    minus its own hand, the face-up discard pile and any revealed lay. The
    draw pile and the other hands are hidden together (W-3)."""
    counts = deck_counts(view["options"])
    seen = list(view["hand"] or []) + list(view["discard"])
    if view.get("revealed"):
        seen += [c for lay in view["revealed"] for c in lay]
    elif view.get("my_play"):
        seen += list(view["my_play"])
    for c in seen:
        counts[KIND[c]] -= 1
    return [max(0, c) for c in counts]


def solo_best(counts: Sequence[int]) -> int:
    """The best score a hand could make alone (no other player's effects)."""
    food = [VALUE[k] for k in (4, 3, 2, 1, 0) for _ in range(min(counts[k], 3))][:3]
    if len(food) < 2:
        return sum(food)
    best = sum(food)
    two = food[0] + food[1]
    if counts[X3]:
        best = max(best, 3 * two + 3)
    if counts[X5]:
        best = max(best, two + 4 * food[0] + 3)
    if counts[X2]:
        best = max(best, 2 * two + 3)
    if counts[GUARDIAN]:
        best = max(best, two + 3)
    return best


SOLO = tuple(round_scores([i], [None], [FOOD_MAX[i]])[0] for i in range(len(A.PLAYS)))
"""Each lay's own score with nobody else's effects (×5 on the best card; a hunter voids it)."""


class OpponentModel:
    """Medium's picture of an opponent: the best solo score of a random hand of
    the opponents' average size drawn from the unseen cards."""

    def __init__(self, unseen: Sequence[int], hand_size: int, players: int, samples: int, rng: Any) -> None:
        pool = [k for k in range(12) for _ in range(unseen[k])]
        size = max(3, min(hand_size, len(pool)))
        scores = []
        for _ in range(samples if len(pool) >= 3 else 0):
            hand = [0] * 12
            for k in rng.sample(pool, size):
                hand[k] += 1
            scores.append(solo_best(hand))
        self.scores = sorted(scores) or [6]
        self.mean = sum(self.scores) / len(self.scores)
        self.players = players

    def beat(self, score: float) -> float:
        """The chance that one opponent scores below ``score`` (ties count half)."""
        below = bisect_left(self.scores, score)
        equal = bisect_right(self.scores, score) - below
        return (below + 0.5 * equal) / len(self.scores)

    def gain(self, lay: int) -> float:
        """Expected pot share of a lay this round against i.i.d. opponents."""
        e = EFFECT[lay]
        others = self.players - 1
        if e == HUNTER:
            return 0.0  # W-8: the round is void
        food = FOOD_SUM[lay] * (3 if e == X3 else 1) + (4 * FOOD_MAX[lay] if e == X5 else 0)
        scale = 1.0
        if e == X2:
            scale = 2.0
        elif e == GARBAGE:
            scale = 0.5
        mine = food * scale + BASE_POINTS[lay]
        p = self.beat(mine / scale)
        if e == GROCER:  # W-9: the strongest opponent is zeroed
            win = p**others + others * p ** (others - 1) * (1 - p)
            pot = mine + (others - 1) * self.mean * scale
        else:
            win = p**others
            pot = mine + others * self.mean * scale
        return win * pot


def opponent_model(view: View, rng: Any, samples: int = 24) -> OpponentModel:
    """Medium's model of the opponents at the table of ``view`` before the lay,
    as the analysis (reviews, hints) uses it: hands of the opponents' mean size
    now plus a lay's three cards, drawn from the cards this seat cannot see."""
    me, n = int(view["seat"]), int(view["players"])
    sizes = [view["hand_sizes"][s] for s in range(n) if s != me]
    return OpponentModel(unseen_counts(view), round(sum(sizes) / len(sizes)) + 3, n, samples, rng)


def medium_rule(gain: Gains) -> Callable[[Sequence[int]], int]:
    """Medium's lay from a hand under the model of ``gain`` (as :func:`medium_lay`: the
    best expected gain, ties to the cheaper cards), the keys remembered."""
    keys: dict[int, tuple[float, float, int]] = {}

    def rule(counts: Sequence[int]) -> int:
        best, top = -1, (-math.inf, 0.0, 0)
        for i in legal_lays(tuple(counts)):
            key = keys.get(i)
            if key is None:
                key = keys[i] = (gain[i], -cost(i), -i)
            if key > top:
                best, top = i, key
        return best

    return rule


def medium_lay(counts: Sequence[int], model: OpponentModel, legal: Sequence[int] | None = None) -> int:
    """Medium's lay: the best expected gain; ties go to the cheaper cards."""
    options = legal if legal is not None else legal_lays(tuple(counts))
    return max(options, key=lambda i: (model.gain(i), -cost(i), -i))


def cost(lay: int) -> float:
    """The keep value (:data:`KEEP_VALUE`) of a lay's cards."""
    return sum(KEEP_VALUE[k] for k in A.PLAYS[lay])


def revealed_lays(view: View) -> list[int]:
    """The lay ids of the revealed lays, by seat."""
    return [A.PLAY_ID[tuple(sorted(KIND[c] for c in lay))] for lay in view["revealed"]]


@cache
def could_keep(lay: int) -> tuple[bool, ...]:
    """Per card kind: could a greedy player (like medium) have held it beside
    ``lay`` and still chosen ``lay``? Not if a lay of ``lay`` plus that card
    scores more alone. Only lays of food, raccoons or the guardian tell this."""
    cards = A.PLAYS[lay]
    if len(cards) < 3 or EFFECT[lay] in (HUNTER, GARBAGE, GROCER):
        return (True,) * 12
    out = []
    for k in range(12):
        four = tuple(sorted((*cards, k)))
        better = any(SOLO[A.PLAY_ID[c]] > SOLO[lay] for c in combinations(four, 3) if c in A.PLAY_ID)
        out.append(not better)
    return tuple(out)


def carried(view: View, seat: int) -> tuple[int, tuple[bool, ...]]:
    """How many cards ``seat`` holds that it already held, unplayed, at its last
    lay, and which kinds those can be (see :func:`could_keep`), from the round
    results (W-5, W-6, W-15, W-16 draws and discards)."""
    results = view["round_results"]
    if not results:
        return 0, (True,) * 12
    size = view["options"]["hand_size"]
    kept = 0
    for r in results:
        size += r["short_hand_draws"][seat] - len(r["plays"][seat])
        kept = size
        size += r["empty_hand_draws"][seat] + r["drawn"][seat] - r["hand_limit_discards"][seat]
    last = A.PLAY_ID[tuple(sorted(KIND[c] for c in results[-1]["plays"][seat]))]
    return max(0, kept), could_keep(last)


def short_draws(view: View, seat: int) -> int | None:
    """How many cards ``seat`` drew this round before laying because its hand
    allowed no full lay (W-5: drawn one at a time until it does), from its
    hand size now and the round results; None when that rule is off or the
    piles are empty, so its hand need not allow a full lay."""
    if view["options"]["short_hand"] != "draw-until-playable" or view["phase"] != "play":
        return None
    if not view["draw_pile_size"] and not view["discard"]:
        return None
    size: int = view["options"]["hand_size"]
    for r in view["round_results"]:
        size += r["short_hand_draws"][seat] - len(r["plays"][seat])
        size += r["empty_hand_draws"][seat] + r["drawn"][seat] - r["hand_limit_discards"][seat]
    now: int = view["hand_sizes"][seat] + (3 if view["committed"][seat] else 0)
    return max(0, now - size)


def opponent_hand_size(view: View) -> int:
    """The opponents' mean hand size before their lay."""
    seat = view["seat"]
    sizes: list[int] = [
        view["hand_sizes"][s] + (3 if view["committed"][s] and view["phase"] == "play" else 0)
        for s in range(view["players"])
        if s != seat
    ]
    return round(sum(sizes) / len(sizes))


def fits(hand: Sequence[int], drawn: Sequence[int], short: int) -> bool:
    """Whether a sampled hand fits W-5: it allows a full lay, and when its
    player drew ``short`` > 0 cards for a short hand, it did not before the
    last of them (one of ``drawn``)."""
    if not can_play_full(hand):
        return False
    if not short:
        return True
    before = list(hand)
    for c in set(drawn):
        before[c] -= 1
        if not can_play_full(before):
            return True
        before[c] += 1
    return False


class Gains(dict[int, float]):
    """Medium's expected gain of each lay (:meth:`OpponentModel.gain`), computed when first asked."""

    def __init__(self, model: OpponentModel) -> None:
        super().__init__()
        self.model = model

    def __missing__(self, lay: int) -> float:
        value = self[lay] = self.model.gain(lay)
        return value
