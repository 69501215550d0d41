"""Waschbär-Schmaus hard, version 2: lookahead over the rest of the game.

hard@v1 (:class:`~spieltisch.bots.schmaus.HardBot`) scores each lay by one
round played out exactly against sampled hands, and guesses what the cards it
keeps or spends are worth later from fixed weights. hard@v2 keeps v1's
samples (the opponents' hands fitted to the public record, their lays as a
medium player's) and v1's ranking, and then plays the rest of the game out in
each sampled world for v1's best few lays: every seat, its own included, lays
like a medium player in the later rounds (one table of medium's expected
gains per decision, :func:`medium_ranks`), the round rules are applied
exactly (W-5 .. W-17: short-hand and empty-hand draws, the lowest drawing,
the hand limit, reshuffles), and the sampled draw pile decides what everyone
draws. The value of a lay is its share of won games (W-18, a tie counts)
over the worlds plus v1's own estimate over the same samples
(:attr:`HardBotV2.blend`); each world is played out once per candidate with
the same cards and the same reshuffles (common random numbers), so the
candidates are compared on the same deals. In the last round v1's search is
already exact and decides alone.

Its budget is counted in work like v1's: ``samples`` sampled worlds
(default 128); the number of candidates played out
(:attr:`HardBotV2.candidates`) and the rounds played out are fixed, so a
decision depends only on the seed and the view. An optional wall-clock cap
stops the play-outs early as it stops v1's sampling.

Measured against v1 on the same deals (docs/bots.md, "Waschbär-Schmaus
hard@v2"), it is not shown stronger, so ``hard`` stays hard@v1; v2 is kept
as a candidate and for the play-out machinery (:class:`Table`).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

from spieltisch.bots.base import View
from spieltisch.bots.schmaus import (
    _EFFECT,
    _FOOD_MAX,
    KEEP_VALUE,
    HardBot,
    OpponentModel,
    Sample,
    _cost,
    awards,
    counts_of,
    legal_lays,
    model_choices,
    round_scores,
)
from spieltisch.engine.schmaus import actions as A
from spieltisch.engine.schmaus.cards import GUARDIAN, HUNTER, can_play_full


def medium_ranks(model: OpponentModel) -> list[int]:
    """Every lay id's rank in medium's order of preference under ``model``
    (higher is preferred: the best expected gain, then the cheaper cards,
    then the lower id, as :func:`~spieltisch.bots.schmaus.medium_lay`)."""
    order = sorted(range(len(A.PLAYS)), key=lambda i: (model.gain(i), -_cost(i), -i))
    ranks = [0] * len(A.PLAYS)
    for r, i in enumerate(order):
        ranks[i] = r
    return ranks


class MediumPolicy:
    """A medium player's lay from a hand, by fixed ranks (:func:`medium_ranks`),
    remembered per hand."""

    __slots__ = ("known", "ranks")

    def __init__(self, ranks: Sequence[int]) -> None:
        self.ranks = ranks
        self.known: dict[tuple[int, ...], int] = {}

    def lay(self, hand: Sequence[int]) -> int:
        key = tuple(hand)
        best = self.known.get(key)
        if best is None:
            best = self.known[key] = max(legal_lays(key), key=self.ranks.__getitem__)
        return best


class Rules:
    """The rule options a play-out reads every round (W-5, W-6, W-15 .. W-17)."""

    __slots__ = ("draw_until_playable", "hand_limit", "loser_draws", "no_hunter_draw", "refill_to")

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.hand_limit = int(options["hand_limit"])
        self.loser_draws = int(options["loser_draws"])
        self.refill_to = int(options["refill_to"])
        self.no_hunter_draw = options["hunter_draw"] == "nobody"
        self.draw_until_playable = options["short_hand"] == "draw-until-playable"


class Table:
    """A whole table of a sampled world (every hand, the draw pile's order,
    the discard pile, the totals), played round by round with the engine's
    rules; each seat's grocer target and ×5 card are chosen as the bots
    expect them (:func:`~spieltisch.bots.schmaus.model_choices`, the best
    card), and hand-limit discards drop the cards worth least later."""

    __slots__ = ("discard", "hands", "pile", "rng", "rules", "scores", "shuffled")

    def __init__(
        self,
        rules: Rules,
        hands: list[list[int]],
        pile: list[int],
        discard: list[int],
        scores: list[int],
        rng: random.Random,
    ) -> None:
        self.rules = rules
        self.hands = hands
        self.pile = pile  # top is the last element, as in the engine
        self.discard = discard
        self.scores = scores
        self.rng = rng
        self.shuffled = False
        """Whether the pile is a reshuffled discard pile (W-17): then each
        draw takes a random card of it instead of the top one."""

    def draw(self, seat: int, count: int) -> None:
        """W-17: draw, shuffling the discard pile into a new pile when it runs out."""
        hand = self.hands[seat]
        pile = self.pile
        if len(pile) >= count and not self.shuffled:
            for _ in range(count):
                hand[pile.pop()] += 1
            return
        for _ in range(count):
            if not pile:
                if not self.discard:
                    return
                pile = self.pile = self.discard
                self.discard = []
                self.shuffled = True
            if self.shuffled:  # a random card of a reshuffled pile: the same as shuffling it
                i = int(self.rng.random() * len(pile))
                pile[i], pile[-1] = pile[-1], pile[i]
            hand[pile.pop()] += 1

    def shed(self, seat: int, keep_play: bool) -> None:
        """W-16: discard the cards worth least later down to the hand limit
        (before a lay keeping a full lay when the hand has one, W-5)."""
        hand = self.hands[seat]
        limit = self.rules.hand_limit
        while sum(hand) > limit:
            options = [k for k in range(12) if hand[k]]
            if keep_play and can_play_full(hand):
                safe = []
                for k in options:
                    hand[k] -= 1
                    if can_play_full(hand):
                        safe.append(k)
                    hand[k] += 1
                options = safe or options
            k = min(options, key=lambda c: (KEEP_VALUE[c] - 0.01 * hand[c], c))
            hand[k] -= 1
            self.discard.append(k)

    def play_round(self, lays: Sequence[int], last: bool) -> None:
        """Lay ``lays`` (one lay id per seat), score the round, and unless it
        is the ``last`` one, draw and discard up to the next round's lays."""
        rules = self.rules
        hands = self.hands
        n = len(hands)
        for s in range(n):
            hand = hands[s]
            for k in A.PLAYS[lays[s]]:
                hand[k] -= 1
        for s in range(n):  # W-6, in seat order, before the reveal
            if not any(hands[s]):
                self.draw(s, 2)
        individual = round_scores(lays, model_choices(lays), [_FOOD_MAX[i] for i in lays])
        shares, lowest = awards(individual)  # W-14
        if rules.no_hunter_draw:  # W-15 variant: nobody draws after a void round
            effects = [_EFFECT[i] for i in lays]
            if HUNTER in effects and GUARDIAN not in effects:
                lowest = []
        for s in range(n):
            self.scores[s] += shares[s]
            self.discard.extend(A.PLAYS[lays[s]])
        if last:
            return
        for s in lowest:  # W-15
            self.draw(s, rules.loser_draws)
        if rules.refill_to:
            for s in range(n):
                self.draw(s, max(0, rules.refill_to - sum(hands[s])))
        limit = rules.hand_limit
        for s in range(n):  # W-16
            if sum(hands[s]) > limit:
                self.shed(s, keep_play=False)
        if rules.draw_until_playable:  # the next round: W-5 in seat order, then W-16 keeping a lay
            for s in range(n):
                hand = hands[s]
                while not _full(hand) and (self.pile or self.discard):
                    self.draw(s, 1)
        for s in range(n):
            if sum(hands[s]) > limit:
                self.shed(s, keep_play=True)


def _full(hand: Sequence[int]) -> bool:
    """:func:`~spieltisch.engine.schmaus.cards.can_play_full`, inlined for the play-outs."""
    food = hand[0] + hand[1] + hand[2] + hand[3] + hand[4]
    return food >= 3 or (food == 2 and sum(hand) > 2)


class HardBotV2(HardBot):
    """hard@v1's samples, then the rest of the game played out for its best lays."""

    version = "v2"
    default_work = 128
    candidates = 4
    """How many of v1's best lays are played out to the end of the game."""
    deals = 1
    """Play-outs per sample and candidate, each with the draw pile in another
    order (the first in the sample's own)."""
    within: int | None = None
    """Play out only when at most this many rounds follow this one (earlier,
    v1's choice stands); ``None``: in every round but the last."""
    blend = 1.0
    """Weight of v1's own estimate (its summed chance to win over the same
    samples) added to the play-outs' wins."""
    horizon: int | None = None
    """How many rounds are played out (this one included); ``None``: to the
    end of the game. A shorter play-out ends with v1's estimate of the chance
    to win from the totals and the cards in hand (:meth:`_leaf`)."""

    def lay(self, view: View, lays: list[int]) -> int:
        deadline = self.deadline()
        samples: list[Sample] = []
        totals, model = self._search(view, lays, samples)
        ranked = sorted(lays, key=lambda i: (totals[i], -i), reverse=True)
        left = view["rounds"] - view["round"]
        if left <= 0 or len(ranked) == 1 or (self.within is not None and left > self.within):
            return ranked[0]  # the last round: v1's search is already exact
        chosen = ranked[: self.candidates]
        policy = MediumPolicy(medium_ranks(model))
        wins = dict.fromkeys(chosen, 0.0)
        me, n = view["seat"], view["players"]
        hand = counts_of(view["hand"])
        discard = [k for k in range(12) for _ in range(counts_of(view["discard"])[k])]
        spread = self._spread(view)
        rules = Rules(view["options"])
        for done, sample in enumerate(samples):
            if done and time.perf_counter() > deadline:
                break  # a wall-clock cap (none by default) ran out
            rest = [0] * 12  # the draw pile: what the hands left of the shuffled unseen cards
            for k in sample.unseen:
                rest[k] += 1
            for counts in sample.hands.values():
                for k in range(12):
                    rest[k] -= counts[k]
            pile = []
            for k in sample.unseen:
                if rest[k] > 0:
                    rest[k] -= 1
                    pile.append(k)
            for deal in range(self.deals):
                if deal:
                    self.rng.shuffle(pile)  # the same hands, another order of the draw pile
                seed = self.rng.getrandbits(32)
                for lay in chosen:
                    hands = [list(hand) if s == me else list(sample.hands[s]) for s in range(n)]
                    table = list(sample.table)
                    table[me] = lay
                    world = Table(
                        rules, hands, list(pile), list(discard), list(view["scores"]), random.Random(seed)
                    )
                    wins[lay] += self._play_out(view, world, table, policy, spread) / self.deals
        return max(chosen, key=lambda i: (wins[i] + self.blend * totals[i], totals[i], -i))

    def _play_out(
        self, view: View, world: Table, lays: list[int], policy: MediumPolicy, spread: float
    ) -> float:
        """This seat's chance to win the game (W-18, a tie counts) in ``world``
        after this round's ``lays``, every later lay a medium player's (by
        ``policy``): 1 or 0 at the game's end, else
        (a :attr:`horizon`) v1's estimate (:meth:`_leaf`)."""
        rnd, rounds = view["round"], view["rounds"]
        stop = rounds if self.horizon is None else min(rounds, rnd + self.horizon - 1)
        while True:
            world.play_round(lays, last=rnd >= stop)
            if rnd >= stop:
                break
            rnd += 1
            lays = [policy.lay(h) for h in world.hands]
        me = view["seat"]
        if rnd < rounds:
            return self._leaf(world, me, rounds - rnd, spread)
        return 1.0 if world.scores[me] >= max(world.scores) else 0.0

    def _leaf(self, world: Table, me: int, left: int, spread: float) -> float:
        """v1's chance to win with ``left`` rounds to go (see
        :meth:`~spieltisch.bots.schmaus.HardBot._win_chance`), each seat's
        total counting its hand at :attr:`card_weight` points per keep value."""
        weight = self.card_weight * min(1.0, left / 3)
        totals = [
            t + weight * sum(KEEP_VALUE[k] * h[k] for k in range(12))
            for t, h in zip(world.scores, world.hands, strict=True)
        ]
        blur = self.late_blur if left <= self.late_rounds else self.blur
        scale = spread * math.sqrt(left) * math.sqrt(2) * blur
        chance = 1.0
        for j, t in enumerate(totals):
            if j != me:
                chance *= 0.5 * (1.0 + math.erf((totals[me] - t + 0.5) / scale))
        return chance
