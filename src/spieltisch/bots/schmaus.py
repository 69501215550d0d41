"""Waschbär-Schmaus bots: easy, medium and hard (rulings W-4 .. W-18).

Every bot decides from a seat's view only (``state.view(seat)``) and the
legal action ids; every random choice comes from ``self.rng`` (seeded by
:class:`~spieltisch.bots.base.Bot`), so a bot is reproducible from its seed.

* **easy** lays its strongest cards a third of the time and something
  random otherwise; it targets the opponent who laid the most food face value,
  puts the ×5 on its best card and discards its lowest cards.
* **medium** maximises its expected pot share this round against a simple
  model of the opponents: each opponent scores like the best lay of a random
  hand drawn from the unseen cards (:class:`OpponentModel`). Its grocer picks
  the likely winner, its ×5 its best card, and it discards its weakest cards.
* **hard** samples the opponents' hands from the unseen cards, lets them lay
  like medium (with some random lays mixed in), and scores every legal lay of
  its own against the samples with the exact round rules (:func:`round_scores`,
  the same arithmetic as ``engine/schmaus/cards.resolve``). The samples fit
  what the view tells about each opponent: the cards it kept at its last lay
  are ones with which medium would have made that lay again, and a hand that
  drew for W-5 this round allows a full lay only since its last draw
  (:func:`short_draws`). Its objective is its chance to win the game: its pot
  share relative to the opponents', plus the worth of drawing when it ends
  lowest (W-15), minus the worth of the cards it spends, plus what the rest of
  its hand can still win in the next rounds. Grocer targets and ×5 cards are
  chosen knowing every revealed card.

Budgets are counted in work: ``Budget.iterations`` is the number of samples
(medium: opponent score samples, default 32; hard: opponent-hand samples),
so a decision depends only on the seed and the view, on any machine. An
optional ``Budget.seconds`` wall-clock cap (none by default) stops hard
earlier on a slow or busy machine, which trades reproducibility for an
answer in time.
"""

from __future__ import annotations

import math
import time
from abc import abstractmethod
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import combinations, combinations_with_replacement
from typing import Any

from spieltisch.bots.base import Bot, View
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

_EFFECT = tuple(next((k for k in p if k >= 5), -1) for p in A.PLAYS)
_FOOD_SUM = tuple(sum(VALUE[k] for k in p if k < 5) for p in A.PLAYS)
_FOOD_MAX = tuple(max((VALUE[k] for k in p if k < 5), default=0) for p in A.PLAYS)
_BASE = tuple(sum(BASE[k] for k in p) for p in A.PLAYS)

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
    effects = [_EFFECT[i] for i in lays]
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
        total = _FOOD_SUM[lay]
        if seat in zeroed:
            total = 0
        elif total:
            e = effects[seat]
            if e == X5:
                total += 4 * x5[seat]
            elif e == X3:
                total *= 3
            total <<= doubling
        out.append((total >> garbage) + _BASE[lay])  # W-12, W-13
    return out


def model_choices(lays: Sequence[int], fixed: Mapping[int, int] | None = None) -> list[int | None]:
    """Grocer targets as the bots expect them (W-9): every grocer picks the
    opponent who would score most without any grocer; ``fixed`` overrides
    some seats' targets."""
    targets: list[int | None] = [None] * len(lays)
    grocers = [s for s, i in enumerate(lays) if _EFFECT[i] == GROCER]
    if not grocers:
        return targets
    free = round_scores(lays, targets, [_FOOD_MAX[i] for i in lays])
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
    effects = [_EFFECT[i] for i in lays]
    void = HUNTER in effects and GUARDIAN not in effects
    return round_scores(lays, model_choices(lays), [_FOOD_MAX[i] for i in lays]), void


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


def _solo_best(counts: Sequence[int]) -> int:
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


SOLO = tuple(round_scores([i], [None], [_FOOD_MAX[i]])[0] for i in range(len(A.PLAYS)))
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
            scores.append(_solo_best(hand))
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
        e = _EFFECT[lay]
        others = self.players - 1
        if e == HUNTER:
            return 0.0  # W-8: the round is void
        food = _FOOD_SUM[lay] * (3 if e == X3 else 1) + (4 * _FOOD_MAX[lay] if e == X5 else 0)
        scale = 1.0
        if e == X2:
            scale = 2.0
        elif e == GARBAGE:
            scale = 0.5
        mine = food * scale + _BASE[lay]
        p = self.beat(mine / scale)
        if e == GROCER:  # W-9: the strongest opponent is zeroed
            win = p**others + others * p ** (others - 1) * (1 - p)
            pot = mine + (others - 1) * self.mean * scale
        else:
            win = p**others
            pot = mine + others * self.mean * scale
        return win * pot


def medium_rule(gain: _Gains) -> Callable[[Sequence[int]], int]:
    """Medium's lay from a hand under the model of ``gain`` (as :func:`medium_lay`: the
    best expected gain, ties to the cheaper cards), the keys remembered."""
    keys: dict[int, tuple[float, float, int]] = {}

    def rule(counts: Sequence[int]) -> int:
        best, top = -1, (-math.inf, 0.0, 0)
        for i in legal_lays(tuple(counts)):
            key = keys.get(i)
            if key is None:
                key = keys[i] = (gain[i], -_cost(i), -i)
            if key > top:
                best, top = i, key
        return best

    return rule


def medium_lay(counts: Sequence[int], model: OpponentModel, legal: Sequence[int] | None = None) -> int:
    """Medium's lay: the best expected gain; ties go to the cheaper cards."""
    options = legal if legal is not None else legal_lays(tuple(counts))
    return max(options, key=lambda i: (model.gain(i), -_cost(i), -i))


def _cost(lay: int) -> float:
    return sum(KEEP_VALUE[k] for k in A.PLAYS[lay])


def _decode(legal: Sequence[int]) -> tuple[list[int], list[int], list[int], list[int]]:
    """Split legal ids into lays, grocer targets, ×5 cards and discards."""
    lays = [i for i in legal if i < A.TARGET_BASE]
    targets = [i - A.TARGET_BASE for i in legal if A.TARGET_BASE <= i < A.X5_BASE]
    x5 = [i - A.X5_BASE for i in legal if A.X5_BASE <= i < A.DISCARD_BASE]
    discards = [i - A.DISCARD_BASE for i in legal if i >= A.DISCARD_BASE]
    return lays, targets, x5, discards


def _revealed_lays(view: View) -> list[int]:
    return [A.PLAY_ID[tuple(sorted(KIND[c] for c in lay))] for lay in view["revealed"]]


@cache
def _could_keep(lay: int) -> tuple[bool, ...]:
    """Per card kind: could a greedy player (like medium) have held it beside
    ``lay`` and still chosen ``lay``? Not if a lay of ``lay`` plus that card
    scores more alone. Only lays of food, raccoons or the guardian tell this."""
    cards = A.PLAYS[lay]
    if len(cards) < 3 or _EFFECT[lay] in (HUNTER, GARBAGE, GROCER):
        return (True,) * 12
    out = []
    for k in range(12):
        four = tuple(sorted((*cards, k)))
        better = any(SOLO[A.PLAY_ID[c]] > SOLO[lay] for c in combinations(four, 3) if c in A.PLAY_ID)
        out.append(not better)
    return tuple(out)


def carried(view: View, seat: int) -> tuple[int, tuple[bool, ...]]:
    """How many cards ``seat`` holds that it already held, unplayed, at its last
    lay, and which kinds those can be (see :func:`_could_keep`), from the round
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
    return max(0, kept), _could_keep(last)


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


def _opponent_hand_size(view: View) -> int:
    """The opponents' mean hand size before their lay."""
    seat = view["seat"]
    sizes: list[int] = [
        view["hand_sizes"][s] + (3 if view["committed"][s] and view["phase"] == "play" else 0)
        for s in range(view["players"])
        if s != seat
    ]
    return round(sum(sizes) / len(sizes))


def _fits(hand: Sequence[int], drawn: Sequence[int], short: int) -> bool:
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


class _Gains(dict[int, float]):
    """Medium's expected gain of each lay (:meth:`OpponentModel.gain`), computed when first asked."""

    def __init__(self, model: OpponentModel) -> None:
        super().__init__()
        self.model = model

    def __missing__(self, lay: int) -> float:
        value = self[lay] = self.model.gain(lay)
        return value


@dataclass(frozen=True)
class _Search:
    """What :meth:`HardBot._search` needs before its samples: the opponents'
    hand sizes and what they kept (``history``), the opponent model and
    medium's gains and rule, each opponent's last lay (``last``) and short
    draws (``short``) the deals are fitted to, and each lay's bonus and draw
    value."""

    me: int
    n: int
    pool: list[int]
    sizes: dict[int, int]
    history: dict[int, tuple[int, tuple[bool, ...]]]
    model: OpponentModel
    gain: _Gains
    medium: Callable[[Sequence[int]], int]
    last: dict[int, int]
    short: dict[int, int | None]
    bonus: dict[int, float]
    draws: dict[int, float]
    spread: float
    no_hunter_draw: bool


@dataclass(frozen=True)
class Sample:
    """One sample of :meth:`HardBot._search`: the opponents' hands (count
    vectors by seat), the lays of every seat (this seat's entry is a
    placeholder) and the shuffled unseen cards the hands were dealt from."""

    hands: dict[int, list[int]]
    table: list[int]
    unseen: list[int]


class _SchmausBot(Bot):
    """Shared plumbing: dispatch on the kind of decision."""

    def choose(self, view: View, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        lays, targets, x5, discards = _decode(legal)
        if lays:
            return self.lay(view, lays)
        if targets:
            return A.TARGET_BASE + self.target(view, targets)
        if x5:
            return A.X5_BASE + self.times5(view, x5)
        return A.DISCARD_BASE + self.discard(view, discards)

    @abstractmethod
    def lay(self, view: View, lays: list[int]) -> int:
        """The lay (an action id from ``lays``) this level makes (W-4)."""

    def target(self, view: View, targets: list[int]) -> int:
        """The likely winner: the opponent who would score most without grocers (W-9)."""
        lays = _revealed_lays(view)
        free = round_scores(lays, [None] * len(lays), [_FOOD_MAX[i] for i in lays])
        return max(targets, key=lambda t: (free[t], view["scores"][t], -t))

    def times5(self, view: View, cards: list[int]) -> int:
        """The ×5 on the most valuable food card (W-11)."""
        return max(cards)

    def discard(self, view: View, cards: list[int]) -> int:
        """The weakest card (W-16)."""
        return min(cards, key=lambda k: (KEEP_VALUE[k], k))


class EasyBot(_SchmausBot):
    """Sensible but beatable: its strongest lay a third of the time, else a random one."""

    level = "easy"
    greed = 0.35

    def lay(self, view: View, lays: list[int]) -> int:
        if self.rng.random() < self.greed:
            return max(lays, key=lambda i: (SOLO[i], -i))
        return lays[self.rng.randrange(len(lays))]

    def target(self, view: View, targets: list[int]) -> int:
        """The opponent who laid the most food face value."""
        lays = _revealed_lays(view)
        return max(targets, key=lambda t: (_FOOD_SUM[lays[t]], -t))

    def discard(self, view: View, cards: list[int]) -> int:
        return min(cards, key=lambda k: (VALUE[k] if k < 5 else 3, k))


class MediumBot(_SchmausBot):
    """Greedy for the expected pot share of this round (see :class:`OpponentModel`)."""

    level = "medium"
    work_unit = "samples"
    default_work = 32

    def lay(self, view: View, lays: list[int]) -> int:
        samples = self.work
        model = OpponentModel(
            unseen_counts(view), _opponent_hand_size(view), view["players"], samples, self.rng
        )
        return medium_lay([], model, lays)


class HardBot(_SchmausBot):
    """Samples the hidden hands and scores every legal lay against them
    (version 1, ``hard@v1``)."""

    level = "hard"
    version = "v1"
    work_unit = "samples"
    default_work = 64
    noise = 0.15
    """Share of sampled opponent lays that are random instead of medium's."""
    card_weight = 0.6
    """Points per unit of :data:`KEEP_VALUE` a card spent now would earn later."""
    draw_weight = 0.6
    """Points per unit of keep value of a card drawn for being lowest (W-15)."""
    blur = 2.5
    """Scale of the spread the remaining rounds add to score differences."""
    infer = True
    """Sample the cards an opponent kept unplayed last round among those a
    greedy player could have kept (see :func:`carried`)."""
    late_blur = 2.5
    """:attr:`blur` in the last :attr:`late_rounds` rounds before the end."""
    late_rounds = 2
    their_model = False
    """Model the opponents' lays with the cards *they* cannot see (the unseen
    cards plus this seat's hand) instead of this seat's unseen cards."""
    fit_tries = 8
    """How many sets of drawn cards :meth:`_deal` tries per opponent and sample
    to make its hand fit what W-5 tells (0: no such check)."""
    tries = 6
    """How many sets of kept cards :meth:`_deal` tries per opponent and sample
    to make its last lay a medium player's choice (0: no such check)."""
    plan_weight = 0.6
    """Points per point of the greedy lays the rest of the hand still allows
    in the next rounds (see :meth:`_plan_value`)."""
    plan_rounds = 3
    """How many later lays :meth:`_plan_value` plans from the rest of the hand."""
    plan_decay = 0.8
    """Discount of each further planned lay (draws and the game's end)."""
    short_draw = 1.5
    """Factor on the worth of drawing when the hand after the lay is 3 cards
    or fewer: a short hand leaves no choice next round (W-5)."""

    # -- future worth --------------------------------------------------------
    def _weights(self, view: View, hand_after: int) -> tuple[float, float]:
        """Points per keep-value unit of a spent card, and of a drawn card."""
        left = view["rounds"] - view["round"]
        card = self.card_weight * min(1.0, left / 3)
        draws = min(view["options"]["loser_draws"], view["draw_pile_size"] + len(view["discard"]))
        draw = self.draw_weight * min(1.0, left / 2) * draws
        if hand_after <= 3:
            draw *= self.short_draw
        return card, draw

    @staticmethod
    def _spread(view: View) -> float:
        """The spread of the score difference of two players over one round:
        about ``mean pot * sqrt(3.4 / players)`` (pots vary about as much as
        their mean), from the pots seen so far and a prior of 8.4 a player."""
        n = view["players"]
        pots = [r["pot"] for r in view["round_results"]]
        mean = (sum(pots) + 3 * 8.4 * n) / (len(pots) + 3)
        return float(mean * math.sqrt(3.4 / n))

    def _win_chance(
        self, view: View, individual: Sequence[int], draw: float, bonus: float, spread: float
    ) -> float:
        """The chance to win the game (W-18, a tie counts) after this round:
        pot shares (W-14) and the worth of drawing for the lowest (W-15) are
        added to the totals, and the remaining rounds blur the differences."""
        me = view["seat"]
        shares, lowest = awards(individual)
        totals = [
            t + s + (draw if i in lowest else 0.0)
            for i, (t, s) in enumerate(zip(view["scores"], shares, strict=True))
        ]
        totals[me] += bonus
        left = view["rounds"] - view["round"]
        chance = 1.0
        if left <= 0:
            best = max(totals)
            return 1.0 if totals[me] >= best else 0.0
        blur = self.late_blur if left <= self.late_rounds else self.blur
        scale = spread * math.sqrt(left) * math.sqrt(2) * blur
        for j, t in enumerate(totals):
            if j != me:
                chance *= 0.5 * (1.0 + math.erf((totals[me] - t + 0.5) / scale))
        return chance

    def _plan_value(
        self, counts: Sequence[int], model: OpponentModel, rounds: int, gains: dict[int, float]
    ) -> float:
        """What the rest of a hand is worth in later rounds: the expected pot
        shares (:meth:`OpponentModel.gain`) of the lays it still allows,
        each the best of what is left, discounted by :attr:`plan_decay`.
        A hand that cannot make a full lay plans nothing (W-5 draws refill it)."""
        hand = list(counts)
        total = 0.0
        weight = 1.0
        for _ in range(rounds):
            if not can_play_full(hand):
                break
            best, value = -1, -1.0
            for i in legal_lays(tuple(hand)):
                g = gains.get(i)
                if g is None:
                    g = gains[i] = model.gain(i)
                if g > value:
                    best, value = i, g
            total += weight * value
            weight *= self.plan_decay
            for k in A.PLAYS[best]:
                hand[k] -= 1
        return total

    def _deal(
        self,
        rest: Sequence[int],
        sizes: Mapping[int, int],
        history: Mapping[int, tuple[int, tuple[bool, ...]]],
        last: Mapping[int, int],
        medium: Any,
        short: Mapping[int, int | None],
    ) -> dict[int, list[int]]:
        """The opponents' hands of one sample: see :meth:`_deal_kept`."""
        return self._deal_kept(rest, sizes, history, last, medium, short)[0]

    def _deal_kept(
        self,
        rest: Sequence[int],
        sizes: Mapping[int, int],
        history: Mapping[int, tuple[int, tuple[bool, ...]]],
        last: Mapping[int, int],
        medium: Any,
        short: Mapping[int, int | None],
    ) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
        """The opponents' hands of one sample, dealt from the shuffled unseen
        cards ``rest``. First the cards each kept unplayed at its last lay
        (:func:`carried`): up to :attr:`tries` disjoint random sets of the
        kinds it could have kept are tried, and the first with which a medium
        player would have chosen that lay (``last``) again is taken; then the
        rest of its hand, as drawn since: up to :attr:`fit_tries` random sets
        are tried until the hand fits its W-5 draws (see :func:`_fits`).
        Also returns each opponent's sampled hand at its last lay: the cards it
        kept beside that lay plus the lay's cards (hard@v3 weights by them)."""
        used = [False] * len(rest)
        hands = {}
        before_lay = {}
        for s, k in sizes.items():
            counts = [0] * 12
            old, allowed = history[s]
            old = min(old, k)
            if old:
                free = [i for i, c in enumerate(rest) if not used[i] and allowed[c]]
                chosen = free[:old]
                if s in last:
                    lay = last[s]
                    for t in range(self.tries):
                        window = free[t * old : (t + 1) * old]
                        if len(window) < old:
                            break
                        before = [0] * 12
                        for i in window:
                            before[rest[i]] += 1
                        for c in A.PLAYS[lay]:
                            before[c] += 1
                        if medium(before) == lay:
                            chosen = window
                            break
                for i in chosen:
                    used[i] = True
                    counts[rest[i]] += 1
            if s in last:
                before = list(counts)
                for c in A.PLAYS[last[s]]:
                    before[c] += 1
                before_lay[s] = before
            need = k - sum(counts)
            free = [i for i in range(len(rest)) if not used[i]]
            pick = free[:need]
            drew = short.get(s)
            if drew is not None and need > 0:
                for t in range(self.fit_tries):
                    window = free[t * need : (t + 1) * need]
                    if len(window) < need:
                        break
                    hand = list(counts)
                    for i in window:
                        hand[rest[i]] += 1
                    if _fits(hand, [rest[i] for i in window], drew):
                        pick = window
                        break
            for i in pick:
                used[i] = True
                counts[rest[i]] += 1
            hands[s] = counts
        return hands, before_lay

    # -- lay -----------------------------------------------------------------
    def lay(self, view: View, lays: list[int]) -> int:
        totals, _ = self._search(view, lays)
        return max(lays, key=lambda i: (totals[i], -i))

    def _search(
        self, view: View, lays: list[int], keep: list[Sample] | None = None
    ) -> tuple[dict[int, float], OpponentModel]:
        """Every lay's summed chance to win the game over the sampled hands,
        and the opponent model used. With ``keep``, each sample is appended to
        it (the opponents' hands, their lays and the shuffled unseen cards),
        for a later search to reuse."""
        deadline = self.deadline()
        search = self._prepare(view, lays)
        totals = dict.fromkeys(lays, 0.0)
        done = 0
        rest = list(search.pool)
        while done < self.work and (done == 0 or time.perf_counter() < deadline):
            self.rng.shuffle(rest)
            dealt = self._deal(rest, search.sizes, search.history, search.last, search.medium, search.short)
            table = self._opponents_lays(search, dealt)
            if keep is not None:
                keep.append(Sample(dealt, list(table), list(rest)))
            self._score(view, search, table, lays, totals)
            done += 1
        return totals, search.model

    def _prepare(self, view: View, lays: list[int]) -> _Search:
        """What a search over ``lays`` needs before its samples (see :class:`_Search`)."""
        me, n = view["seat"], view["players"]
        size = len(view["hand"])
        unseen = unseen_counts(view)
        pool = [k for k in range(12) for _ in range(unseen[k])]
        sizes = {s: view["hand_sizes"][s] + (3 if view["committed"][s] else 0) for s in range(n) if s != me}
        history = {s: carried(view, s) if self.infer else (0, (True,) * 12) for s in sizes}
        model_pool = unseen
        if self.their_model:
            model_pool = [u + h for u, h in zip(unseen, counts_of(view["hand"]), strict=True)]
        model = OpponentModel(model_pool, _opponent_hand_size(view), n, 24, self.rng)
        avg_keep = sum(KEEP_VALUE[k] for k in pool) / len(pool) if pool else 0.0
        spread = self._spread(view)
        bonus = {}
        draws = {}
        hand = counts_of(view["hand"])
        left = view["rounds"] - view["round"]
        gains: dict[int, float] = {}
        for lay in lays:
            card, draw = self._weights(view, size - len(A.PLAYS[lay]))
            bonus[lay] = -card * _cost(lay)
            if self.plan_weight and left > 0:
                after = list(hand)
                for k in A.PLAYS[lay]:
                    after[k] -= 1
                plan = self._plan_value(after, model, min(left, self.plan_rounds), gains)
                bonus[lay] += self.plan_weight * plan
            draws[lay] = draw * avg_keep
        gain = _Gains(model)
        medium = medium_rule(gain)

        last = {}
        if self.tries and view["round_results"]:
            plays = view["round_results"][-1]["plays"]
            last = {s: A.PLAY_ID[tuple(sorted(KIND[c] for c in plays[s]))] for s in sizes if plays[s]}
        short = {s: short_draws(view, s) for s in sizes} if self.fit_tries else {}
        no_hunter_draw = view["options"]["hunter_draw"] == "nobody"
        return _Search(
            me,
            n,
            pool,
            sizes,
            history,
            model,
            gain,
            medium,
            last,
            short,
            bonus,
            draws,
            spread,
            no_hunter_draw,
        )

    def _opponents_lays(self, search: _Search, dealt: Mapping[int, list[int]]) -> list[int]:
        """The table of one sample: each opponent lays like medium with its dealt
        hand, or (with probability :attr:`noise`) a random legal lay; this seat's
        entry is a placeholder."""
        table = [0] * search.n
        for s, counts in dealt.items():
            if self.rng.random() < self.noise:
                options = legal_lays(tuple(counts))
                table[s] = options[self.rng.randrange(len(options))]
            else:
                table[s] = self._medium_lay(search, s, counts)
        return table

    def _medium_lay(self, search: _Search, seat: int, counts: Sequence[int]) -> int:
        """The lay of opponent ``seat`` with the dealt hand ``counts`` when it plays like medium."""
        return search.medium(counts)

    def _score(
        self,
        view: View,
        search: _Search,
        table: list[int],
        lays: list[int],
        totals: dict[int, float],
        weight: float = 1.0,
    ) -> None:
        """Add ``weight`` times each lay's chance to win the game, laid against
        ``table``, to ``totals`` (the round by its exact rules, W-6...W-15)."""
        for lay in lays:
            table[search.me] = lay
            individual, void = modelled_round(table)
            draw = 0.0 if void and search.no_hunter_draw else search.draws[lay]  # W-15 variant
            totals[lay] += weight * self._win_chance(view, individual, draw, search.bonus[lay], search.spread)

    # -- choices after the reveal (W-9, W-11) ----------------------------------
    def _choice_value(self, view: View, lays: list[int], target: int | None, x5: int | None) -> float:
        """My chance to win the game after the round, other choosers modelled."""
        me = view["seat"]
        fixed = {me: target} if target is not None else None
        targets = model_choices(lays, fixed)
        values = [_FOOD_MAX[i] for i in lays]
        if x5 is not None:
            values[me] = VALUE[x5]
        individual = round_scores(lays, targets, values)
        _, draw = self._weights(view, view["hand_sizes"][me])
        pool = unseen_counts(view)
        total = sum(pool)
        avg_keep = sum(KEEP_VALUE[k] * pool[k] for k in range(12)) / total if total else 0.0
        return self._win_chance(view, individual, draw * avg_keep, 0.0, self._spread(view))

    def target(self, view: View, targets: list[int]) -> int:
        lays = _revealed_lays(view)
        free = round_scores(lays, [None] * len(lays), [_FOOD_MAX[i] for i in lays])
        return max(targets, key=lambda t: (self._choice_value(view, lays, t, None), free[t], -t))

    def times5(self, view: View, cards: list[int]) -> int:
        lays = _revealed_lays(view)
        return max(cards, key=lambda k: (self._choice_value(view, lays, None, k), k))

    def discard(self, view: View, cards: list[int]) -> int:
        """The card worth least later; duplicates of plentiful cheap food first."""
        hand = counts_of(view["hand"])
        return min(cards, key=lambda k: (KEEP_VALUE[k] - 0.01 * hand[k], k))
