"""Waschbär-Schmaus bots: easy, medium and hard (rulings W-4 .. W-18).

Every bot decides from a seat's view only (``state.view(seat)``) and the
legal action ids; every random choice comes from ``self.rng`` (seeded by
:class:`~spieltisch.bots.base.Bot`), so a bot is reproducible from its seed.

* **easy** lays its strongest cards a third of the time and something
  random otherwise; it targets the opponent who laid the most food face value,
  puts the ×5 on its best card and discards its lowest cards.
* **medium** maximises its expected pot share this round against a simple
  model of the opponents: each opponent scores like the best lay of a random
  hand drawn from the unseen cards (:class:`~.model.OpponentModel`). Its
  grocer picks the likely winner, its ×5 its best card, and it discards its
  weakest cards.
* **hard** samples the opponents' hands from the unseen cards, lets them lay
  like medium (with some random lays mixed in), and scores every legal lay of
  its own against the samples with the exact round rules
  (:func:`~.model.round_scores`). The samples fit what the view tells about
  each opponent: the cards it kept at its last lay are ones with which medium
  would have made that lay again, a hand that drew for W-5 this round allows
  a full lay only since its last draw (:func:`~.model.short_draws`), and
  after a reshuffle the draw pile's cards are told apart (:mod:`.pile`). Its
  objective is its chance to win the game after the round: with 4 players
  under the default rules and before the last round a value fitted to played
  games (:mod:`.value`); otherwise the totals blurred by the rounds left,
  plus the worth of drawing when it ends lowest (W-15), minus the worth of
  the cards it spends, plus what the rest of its hand can still win. Grocer
  targets and ×5 cards are chosen knowing every revealed card. Its versions
  are configs (:class:`HardConfig`): :data:`HARD_V8` (``hard``, ``hard@v8``)
  and the baseline :data:`HARD_V5` (``hard@v5``).

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from spieltisch.bots.base import Bot, Budget, View
from spieltisch.bots.schmaus.model import (
    FOOD_MAX,
    FOOD_SUM,
    KEEP_VALUE,
    SOLO,
    Gains,
    OpponentModel,
    awards,
    carried,
    cost,
    counts_of,
    fits,
    legal_lays,
    medium_lay,
    medium_rule,
    model_choices,
    modelled_round,
    opponent_hand_size,
    revealed_lays,
    round_scores,
    short_draws,
    unseen_counts,
)
from spieltisch.bots.schmaus.pile import pile_source
from spieltisch.bots.schmaus.value import FITTED_OPTIONS, FITTED_PLAYERS, FOOD_SHARE, features, refill, value
from spieltisch.engine.schmaus import actions as A
from spieltisch.engine.schmaus.cards import KIND, VALUE, can_play_full


def _decode(legal: Sequence[int]) -> tuple[list[int], list[int], list[int], list[int]]:
    """Split legal ids into lays, grocer targets, ×5 cards and discards."""
    lays = [i for i in legal if i < A.TARGET_BASE]
    targets = [i - A.TARGET_BASE for i in legal if A.TARGET_BASE <= i < A.X5_BASE]
    x5 = [i - A.X5_BASE for i in legal if A.X5_BASE <= i < A.DISCARD_BASE]
    discards = [i - A.DISCARD_BASE for i in legal if i >= A.DISCARD_BASE]
    return lays, targets, x5, discards


class SchmausBot(Bot):
    """Shared plumbing of the levels: dispatch on the kind of decision."""

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
        lays = revealed_lays(view)
        free = round_scores(lays, [None] * len(lays), [FOOD_MAX[i] for i in lays])
        return max(targets, key=lambda t: (free[t], view["scores"][t], -t))

    def times5(self, view: View, cards: list[int]) -> int:
        """The ×5 on the most valuable food card (W-11)."""
        return max(cards)

    def discard(self, view: View, cards: list[int]) -> int:
        """The weakest card (W-16)."""
        return min(cards, key=lambda k: (KEEP_VALUE[k], k))


class EasyBot(SchmausBot):
    """Sensible but beatable: its strongest lay a third of the time, else a random one."""

    level = "easy"
    greed = 0.35

    def lay(self, view: View, lays: list[int]) -> int:
        if self.rng.random() < self.greed:
            return max(lays, key=lambda i: (SOLO[i], -i))
        return lays[self.rng.randrange(len(lays))]

    def target(self, view: View, targets: list[int]) -> int:
        """The opponent who laid the most food face value."""
        lays = revealed_lays(view)
        return max(targets, key=lambda t: (FOOD_SUM[lays[t]], -t))

    def discard(self, view: View, cards: list[int]) -> int:
        return min(cards, key=lambda k: (VALUE[k] if k < 5 else 3, k))


class MediumBot(SchmausBot):
    """Greedy for the expected pot share of this round (see :class:`OpponentModel`)."""

    level = "medium"
    work_unit = "samples"
    default_work = 32

    def lay(self, view: View, lays: list[int]) -> int:
        samples = self.work
        model = OpponentModel(
            unseen_counts(view), opponent_hand_size(view), view["players"], samples, self.rng
        )
        return medium_lay([], model, lays)


CARD_WEIGHT = 0.6
"""Points per unit of :data:`KEEP_VALUE` a card spent now would earn later."""
DRAW_WEIGHT = 0.6
"""Points per unit of keep value of a card drawn for being lowest (W-15)."""
BLUR = 2.5
"""Scale of the spread the remaining rounds add to score differences."""
LATE_BLUR = 2.5
""":data:`BLUR` in the last :data:`LATE_ROUNDS` rounds before the end."""
LATE_ROUNDS = 2
FIT_TRIES = 8
"""How many sets of drawn cards :meth:`HardBot._deal_hands` tries per opponent
and sample to make its hand fit what W-5 tells."""
TRIES = 6
"""How many sets of kept cards :meth:`HardBot._deal_hands` tries per opponent
and sample to make its last lay a medium player's choice."""
PLAN_WEIGHT = 0.6
"""Points per point of the greedy lays the rest of the hand still allows
in the next rounds (see :meth:`HardBot._plan_value`)."""
PLAN_ROUNDS = 3
"""How many later lays :meth:`HardBot._plan_value` plans from the rest of the hand."""
PLAN_DECAY = 0.8
"""Discount of each further planned lay (draws and the game's end)."""
SHORT_DRAW = 1.5
"""Factor on the worth of drawing when the hand after the lay is 3 cards
or fewer: a short hand leaves no choice next round (W-5)."""
OPPONENT_SAMPLES = 24
"""Hands the opponent model of a hard decision samples (:class:`OpponentModel`)."""


@dataclass(frozen=True)
class Search:
    """What :meth:`HardBot._search` needs before its samples: the opponents'
    hand sizes and what they kept (``history``), the opponent model and
    medium's gains and rule, each opponent's last lay (``last``) and short
    draws (``short``) the deals are fitted to, each lay's bonus and draw value
    (the plain objective), this seat's hand after each lay (keep value, size,
    food, other cards, plan value: the fitted value's inputs), the mean keep
    value of a drawn card, and what the draw pile holds when a reshuffle
    tells it (its possible cards and its size)."""

    me: int
    n: int
    pool: list[int]
    sizes: dict[int, int]
    history: dict[int, tuple[int, tuple[bool, ...]]]
    model: OpponentModel
    gain: Gains
    medium: Callable[[Sequence[int]], int]
    last: dict[int, int]
    short: dict[int, int | None]
    bonus: dict[int, float]
    draws: dict[int, float]
    spread: float
    no_hunter_draw: bool
    after: dict[int, tuple[float, float, float, float, float]]
    avg_keep: float
    pile: tuple[list[int], int] | None


@dataclass(frozen=True)
class HardConfig:
    """A version of :class:`HardBot`."""

    version: str
    noise: float
    """Share of sampled opponent lays that are random instead of medium's."""
    pile_knowledge: bool
    """Deal the opponents' hands apart from what a reshuffled draw pile holds (:mod:`.pile`)."""


HARD_V5 = HardConfig("v5", noise=0.15, pile_knowledge=False)
"""``hard@v5``, the baseline: the fitted value, the opponents' hands dealt from all unseen cards alike."""
HARD_V8 = HardConfig("v8", noise=0.05, pile_knowledge=True)
"""``hard@v8``, the default: v5 that knows what a reshuffled draw pile holds.
Given the real hand, the model of medium makes medium's lay in 96% of its
lays; with the pile told apart, a lower share of random lays (5%, v5: 15%)
measured stronger (docs/bots.md)."""


class HardBot(SchmausBot):
    """Samples the hidden hands and scores every legal lay against them (see the module)."""

    level = "hard"
    work_unit = "samples"
    default_work = 64

    def __init__(
        self, game: str, seat: int, seed: int, budget: Budget | None = None, config: HardConfig = HARD_V8
    ) -> None:
        super().__init__(game, seat, seed, budget)
        self.config = config

    @property
    def version(self) -> str:
        """The kept version this bot plays (``v8``)."""
        return self.config.version

    # -- future worth --------------------------------------------------------
    def _weights(self, view: View, hand_after: int) -> tuple[float, float]:
        """Points per keep-value unit of a spent card, and of a drawn card."""
        left = view["rounds"] - view["round"]
        card = CARD_WEIGHT * min(1.0, left / 3)
        draws = min(view["options"]["loser_draws"], view["draw_pile_size"] + len(view["discard"]))
        draw = DRAW_WEIGHT * min(1.0, left / 2) * draws
        if hand_after <= 3:
            draw *= SHORT_DRAW
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
        blur = LATE_BLUR if left <= LATE_ROUNDS else BLUR
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
        each the best of what is left, discounted by :data:`PLAN_DECAY`.
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
            weight *= PLAN_DECAY
            for k in A.PLAYS[best]:
                hand[k] -= 1
        return total

    def _deal_hands(
        self,
        rest: Sequence[int],
        sizes: Mapping[int, int],
        history: Mapping[int, tuple[int, tuple[bool, ...]]],
        last: Mapping[int, int],
        medium: Callable[[Sequence[int]], int],
        short: Mapping[int, int | None],
    ) -> dict[int, list[int]]:
        """The opponents' hands of one sample, dealt from the shuffled unseen
        cards ``rest``. First the cards each kept unplayed at its last lay
        (:func:`carried`): up to :attr:`tries` disjoint random sets of the
        kinds it could have kept are tried, and the first with which a medium
        player would have chosen that lay (``last``) again is taken; then the
        rest of its hand, as drawn since: up to :attr:`fit_tries` random sets
        are tried until the hand fits its W-5 draws (see :func:`fits`)."""
        used = [False] * len(rest)
        hands = {}
        for s, k in sizes.items():
            counts = [0] * 12
            old, allowed = history[s]
            old = min(old, k)
            if old:
                free = [i for i, c in enumerate(rest) if not used[i] and allowed[c]]
                chosen = free[:old]
                if s in last:
                    lay = last[s]
                    for t in range(TRIES):
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
            need = k - sum(counts)
            free = [i for i in range(len(rest)) if not used[i]]
            pick = free[:need]
            drew = short.get(s)
            if drew is not None and need > 0:
                for t in range(FIT_TRIES):
                    window = free[t * need : (t + 1) * need]
                    if len(window) < need:
                        break
                    hand = list(counts)
                    for i in window:
                        hand[rest[i]] += 1
                    if fits(hand, [rest[i] for i in window], drew):
                        pick = window
                        break
            for i in pick:
                used[i] = True
                counts[rest[i]] += 1
            hands[s] = counts
        return hands

    # -- lay -----------------------------------------------------------------
    def lay(self, view: View, lays: list[int]) -> int:
        totals = self._search(view, lays)
        return max(lays, key=lambda i: (totals[i], -i))

    def _search(self, view: View, lays: list[int]) -> dict[int, float]:
        """Every lay's summed chance to win the game over the sampled hands."""
        deadline = self.deadline()
        search = self._prepare(view, lays)
        totals = dict.fromkeys(lays, 0.0)
        done = 0
        rest = list(search.pool)
        while done < self.work and (done == 0 or time.perf_counter() < deadline):
            self.rng.shuffle(rest)
            dealt = self._deal(search, rest)
            table = self._opponents_lays(search, dealt)
            self._score(view, search, dealt, table, lays, totals)
            done += 1
        return totals

    def _prepare(self, view: View, lays: list[int]) -> Search:
        """What a search over ``lays`` needs before its samples (see :class:`Search`)."""
        me, n = view["seat"], view["players"]
        size = len(view["hand"])
        unseen = unseen_counts(view)
        pool = [k for k in range(12) for _ in range(unseen[k])]
        sizes = {s: view["hand_sizes"][s] + (3 if view["committed"][s] else 0) for s in range(n) if s != me}
        history = {s: carried(view, s) for s in sizes}
        model = OpponentModel(unseen, opponent_hand_size(view), n, OPPONENT_SAMPLES, self.rng)
        avg_keep = sum(KEEP_VALUE[k] for k in pool) / len(pool) if pool else 0.0
        spread = self._spread(view)
        bonus = {}
        draws = {}
        after = {}
        hand = counts_of(view["hand"])
        left = view["rounds"] - view["round"]
        gains: dict[int, float] = {}
        for lay in lays:
            card, draw = self._weights(view, size - len(A.PLAYS[lay]))
            rest = list(hand)
            for k in A.PLAYS[lay]:
                rest[k] -= 1
            plan = self._plan_value(rest, model, min(left, PLAN_ROUNDS), gains) if left > 0 else 0.0
            bonus[lay] = -card * cost(lay) + PLAN_WEIGHT * plan
            draws[lay] = draw * avg_keep
            keep = sum(KEEP_VALUE[k] * rest[k] for k in range(12))
            food = float(sum(rest[:5]))
            after[lay] = (keep, float(sum(rest)), food, float(sum(rest)) - food, plan)
        gain = Gains(model)
        last = {}
        if view["round_results"]:
            plays = view["round_results"][-1]["plays"]
            last = {s: A.PLAY_ID[tuple(sorted(KIND[c] for c in plays[s]))] for s in sizes if plays[s]}
        short = {s: short_draws(view, s) for s in sizes}
        pile = None
        source = pile_source(view) if self.config.pile_knowledge and view["phase"] == "play" else None
        if source is not None:
            possible = [min(a, b) for a, b in zip(source, unseen, strict=True)]
            pile_size = int(view["draw_pile_size"])
            if sum(possible) >= pile_size:
                pile = ([k for k in range(12) for _ in range(possible[k])], pile_size)
                if pile_size:  # the cards drawn (W-5, W-15) at the pile's mean keep value
                    avg_keep = sum(KEEP_VALUE[k] * c for k, c in enumerate(possible)) / sum(possible)
        no_hunter_draw = view["options"]["hunter_draw"] == "nobody"
        return Search(
            me,
            n,
            pool,
            sizes,
            history,
            model,
            gain,
            medium_rule(gain),
            last,
            short,
            bonus,
            draws,
            spread,
            no_hunter_draw,
            after,
            avg_keep,
            pile,
        )

    def _deal(self, search: Search, rest: Sequence[int]) -> dict[int, list[int]]:
        """The opponents' hands of one sample, from the shuffled unseen cards
        ``rest``: when the draw pile's cards are known (:attr:`Search.pile`),
        they are first drawn from the reshuffled discards still unseen, and the
        hands are dealt from the unseen cards left, in ``rest``'s order."""
        if search.pile is not None:
            pool, size = search.pile
            self.rng.shuffle(pool)
            taken = [0] * 12
            for k in pool[:size]:
                taken[k] += 1
            left = []
            for c in rest:
                if taken[c]:
                    taken[c] -= 1
                else:
                    left.append(c)
            rest = left
        return self._deal_hands(rest, search.sizes, search.history, search.last, search.medium, search.short)

    def _opponents_lays(self, search: Search, dealt: Mapping[int, list[int]]) -> list[int]:
        """The table of one sample: each opponent lays like medium with its dealt
        hand, or (with probability :attr:`HardConfig.noise`) a random legal lay;
        this seat's entry is a placeholder."""
        table = [0] * search.n
        for s, counts in dealt.items():
            if self.rng.random() < self.config.noise:
                options = legal_lays(tuple(counts))
                table[s] = options[self.rng.randrange(len(options))]
            else:
                table[s] = search.medium(counts)
        return table

    def _score(
        self,
        view: View,
        search: Search,
        dealt: Mapping[int, list[int]],
        table: list[int],
        lays: list[int],
        totals: dict[int, float],
    ) -> None:
        """Add each lay's chance to win the game, laid against ``table``, to
        ``totals`` (the round by its exact rules, W-6...W-15): the fitted value
        (:mod:`.value`) where it holds, else the plain objective."""
        left = view["rounds"] - view["round"]
        if left <= 0 or view["players"] != FITTED_PLAYERS or view["options"] != FITTED_OPTIONS:
            for lay in lays:
                table[search.me] = lay
                individual, void = modelled_round(table)
                draw = 0.0 if void and search.no_hunter_draw else search.draws[lay]  # W-15 variant
                totals[lay] += self._win_chance(view, individual, draw, search.bonus[lay], search.spread)
            return
        me, n = search.me, search.n
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
            for s in range(n):
                if s in lowest:
                    keep[s] += draws * avg
                    size[s] += draws
                    food[s] += draws * FOOD_SHARE
                extra = refill(food[s], size[s] - food[s])
                keep[s] += extra * avg
                size[s] += extra
            x = features(me, [t + a for t, a in zip(scores, shares, strict=True)], keep, size, plan)
            totals[lay] += value(left, x)

    # -- choices after the reveal (W-9, W-11) ----------------------------------
    def _choice_value(self, view: View, lays: list[int], target: int | None, x5: int | None) -> float:
        """My chance to win the game after the round, other choosers modelled."""
        me = view["seat"]
        fixed = {me: target} if target is not None else None
        targets = model_choices(lays, fixed)
        values = [FOOD_MAX[i] for i in lays]
        if x5 is not None:
            values[me] = VALUE[x5]
        individual = round_scores(lays, targets, values)
        _, draw = self._weights(view, view["hand_sizes"][me])
        pool = unseen_counts(view)
        total = sum(pool)
        avg_keep = sum(KEEP_VALUE[k] * pool[k] for k in range(12)) / total if total else 0.0
        return self._win_chance(view, individual, draw * avg_keep, 0.0, self._spread(view))

    def target(self, view: View, targets: list[int]) -> int:
        lays = revealed_lays(view)
        free = round_scores(lays, [None] * len(lays), [FOOD_MAX[i] for i in lays])
        return max(targets, key=lambda t: (self._choice_value(view, lays, t, None), free[t], -t))

    def times5(self, view: View, cards: list[int]) -> int:
        lays = revealed_lays(view)
        return max(cards, key=lambda k: (self._choice_value(view, lays, None, k), k))

    def discard(self, view: View, cards: list[int]) -> int:
        """The card worth least later; duplicates of plentiful cheap food first."""
        hand = counts_of(view["hand"])
        return min(cards, key=lambda k: (KEEP_VALUE[k] - 0.01 * hand[k], k))
